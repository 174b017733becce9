# Stage 8, context significance (docs/methods.md section 8): does a pair's similarity change with context?


rule context_significance:
    input:
        unpack(context_inputs),
    output:
        tests=RESULTS["context_tests"],
        summary=RESULTS["context_summary"],
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
        "../scripts/context.py"
