# Stage 5, gold standard (docs/methods.md section 5) and the score distribution.


rule gold:
    input:
        unpack(gold_inputs),
    output:
        gold=RESULTS["gold"],
        distribution=RESULTS["gold_distribution"],
    log:
        "logs/gold/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(CLEANED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        kind=dataset_param("kind"),
        scale=dataset_param("scale"),
        gold=dataset_param("gold"),
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/gold.py"
