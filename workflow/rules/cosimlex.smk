# The CoSimLex metrics (docs/methods.md section 7) of every model on every two-context dataset.


rule cosimlex:
    input:
        item_table=result("clean", dataset="{dataset}", table="items"),
        gold=RESULTS["gold"],
        predictions=RESULTS["predictions"],
    output:
        RESULTS["cosimlex"],
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
        [result("cosimlex", dataset=d, model=m) for d, m in COSIMLEX],
    output:
        RESULTS["cosimlex_summary"],
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
        "../scripts/cosimlex.py"
