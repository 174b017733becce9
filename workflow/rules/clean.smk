# Stage 1, cleaning (docs/methods.md section 1): raw sheets -> canonical tables and the rejects ledger.


rule clean_dataset:
    input:
        dataset_sources,
    output:
        expand(RESULTS["clean"], table=CLEAN_TABLES, allow_missing=True),
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
        "../scripts/clean.py"


rule clean_summary:
    input:
        expand(RESULTS["clean"], dataset=CLEANED, table="summary"),
    output:
        RESULTS["clean_summary"],
    log:
        "logs/clean/summary.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/clean.py"
