# Stage 1, cleaning (docs/methods.md section 1): raw sheets -> canonical tables and the rejects ledger.


rule clean_dataset:
    input:
        dataset_sources,
    output:
        expand("results/clean/{{dataset}}/{table}.parquet", table=CLEAN_TABLES),
    log:
        "logs/clean/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(CLEANED),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        spec=dataset_spec,
    script:
        "../scripts/clean_dataset.py"


rule clean_summary:
    input:
        expand("results/clean/{dataset}/summary.parquet", dataset=CLEANED),
    output:
        "results/clean/summary.parquet",
    log:
        "logs/clean/summary.log",
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/clean_summary.py"
