# Stage 8, context significance (docs/methods.md section 8): does a pair's similarity change with context?


rule context_significance:
    input:
        unpack(context_inputs),
    output:
        tests="results/context/{dataset}/tests.parquet",
        summary="results/context/{dataset}/summary.parquet",
    log:
        "logs/context/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(CONTEXT_DATASETS),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        context=dataset_param("context"),
        language=dataset_param("language"),
    script:
        "../scripts/context_significance.py"
