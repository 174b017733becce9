# The paper-submission archive (docs/methods.md section 10): `snakemake archive`. Not part of `all`.


rule archive:
    input:
        all_targets(STAGES),
    output:
        result("archive", name=CONFIG["archive"]["name"]),
    log:
        "logs/archive.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        config=CONFIG,
        # the config as Snakemake merged it (config/config.yaml, --configfile, --config): what ran
        run_config=config,
        code_root=WORKFLOW_DIR,
    script:
        "../scripts/archive.py"
