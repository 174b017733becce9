# How many raters are enough (docs/methods.md section 11.3), on the ratings as they were given.
rule reliability:
    input:
        result("clean", dataset="{dataset}", table="ratings"),
    output:
        summary=RESULTS["reliability"],
        curve=RESULTS["reliability_curve"],
    log:
        "logs/reliability/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(RATED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        persistent_raters=dataset_param("persistent_raters"),
        seed=CONFIG["scoring"]["seed"],
    script:
        "../scripts/reliability.py"
