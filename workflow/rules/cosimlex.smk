# The CoSimLex metrics (docs/methods.md section 7) of every model on every two-context dataset.


rule cosimlex:
    input:
        item_table="results/clean/{dataset}/items.parquet",
        gold="results/gold/{dataset}/gold.parquet",
        predictions="results/scores/{dataset}/{model}/predictions.parquet",
    output:
        "results/scores/{dataset}/{model}/cosimlex.parquet",
    log:
        "logs/scores/{dataset}/{model}.cosimlex.log",
    wildcard_constraints:
        dataset=alternatives(CONTEXT_DATASETS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/cosimlex.py"


rule cosimlex_summary:
    input:
        [f"results/scores/{d}/{m}/cosimlex.parquet" for d, m in COSIMLEX],
    output:
        "results/scores/cosimlex_summary.parquet",
    log:
        "logs/scores/cosimlex_summary.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        languages={d: CONFIG["datasets"][d]["language"] for d in CONTEXT_DATASETS},
    script:
        "../scripts/cosimlex_summary.py"
