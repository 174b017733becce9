# The paper-submission archive (METHODS.md section 10): `snakemake archive`. Not part of `all`.


rule archive:
    input:
        all_targets(),
    output:
        f"results/archive/{CONFIG['archive']['name']}.tar.gz",
    log:
        "logs/archive.log",
    conda:
        "../../environment.yml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        config=CONFIG,
    script:
        "../scripts/archive.py"
