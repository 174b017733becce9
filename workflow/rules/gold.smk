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
        dataset=alternatives([d for d in CLEANED if d not in BWS]),
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
        anchors=dataset_param("anchors"),
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/gold.py"


# Best-Worst Scaling: counting scores with bootstrap intervals and the MaxDiff model's utilities
# (docs/methods.md section 13); the gold standard is the one the dataset's bws.score names.
rule bws_gold:
    input:
        item_table=result("clean", dataset="{dataset}", table="items"),
        answers=RESULTS["agreement_answers"],
    output:
        gold=RESULTS["gold"],
        distribution=RESULTS["gold_distribution"],
        scores=RESULTS["bws_scores"],
    log:
        "logs/gold/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(BWS),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        scale=dataset_param("scale"),
        gold=dataset_param("gold"),
        bws=dataset_param("bws"),
        resamples=CONFIG["scoring"]["resamples"],
        seed=CONFIG["scoring"]["seed"],
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/gold.py"
