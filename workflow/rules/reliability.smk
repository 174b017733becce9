# How many raters are enough (docs/methods.md section 11.3), on the ratings as they were given.
rule reliability:
    input:
        "results/clean/{dataset}/ratings.parquet",
    output:
        summary="results/reliability/{dataset}/summary.parquet",
        curve="results/reliability/{dataset}/curve.parquet",
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
