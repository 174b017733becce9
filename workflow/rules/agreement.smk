# Stage 4, inter-rater agreement and outlier filtering (docs/methods.md section 4).


rule agreement:
    input:
        unpack(attention_inputs),  # the ledger, where the dataset has attention checks
        item_table=result("clean", dataset="{dataset}", table="items"),
        raw=result("clean", dataset="{dataset}", table="ratings"),
        calibrated=RESULTS["calibrate_ratings"],
        calibration=RESULTS["calibrate_raters"],
    output:
        agreement=RESULTS["agreement"],
        raters=RESULTS["agreement_raters"],
        ratings=RESULTS["agreement_ratings"],
    log:
        "logs/agreement/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(RATED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        agreement=dataset_param("agreement"),
        outliers=dataset_param("outliers"),
        persistent_raters=dataset_param("persistent_raters"),
        attention=dataset_param("attention"),
        anchors=dataset_param("anchors"),
    script:
        "../scripts/agreement.py"


rule ranking_agreement:
    input:
        rankings=result("clean", dataset="{dataset}", table="rankings"),
    output:
        agreement=RESULTS["agreement"],
        raters=RESULTS["agreement_raters"],
        rankings=RESULTS["agreement_rankings"],
    log:
        "logs/agreement/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(RANKED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        outliers=dataset_param("outliers"),
    script:
        "../scripts/agreement.py"


# Best-Worst Scaling: split-half reliability, each rater's agreement with the others, outlier
# filtering (docs/methods.md section 13).
rule bws_agreement:
    input:
        answers=result("clean", dataset="{dataset}", table="answers"),
    output:
        reliability=RESULTS["bws_reliability"],
        raters=RESULTS["agreement_raters"],
        answers=RESULTS["agreement_answers"],
    log:
        "logs/agreement/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(BWS),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        outliers=dataset_param("outliers"),
        bws=dataset_param("bws"),
        seed=CONFIG["scoring"]["seed"],
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/agreement.py"


# Bootstrap CIs on the agreement, alpha at every level, ICC and test-retest (docs/methods.md
# sections 4, 11.1, 11.2): a rule of its own, so the gold standard and the scores do not wait for the resamples.
# It reads what rule agreement decided (the raters it excluded, the filtered ratings) rather than decide again.
rule agreement_ci:
    input:
        item_table=result("clean", dataset="{dataset}", table="items"),
        raw=result("clean", dataset="{dataset}", table="ratings"),
        calibrated=RESULTS["calibrate_ratings"],
        raters=RESULTS["agreement_raters"],
        filtered=RESULTS["agreement_ratings"],
        repeats=result("clean", dataset="{dataset}", table="repeats"),
    output:
        ci=RESULTS["agreement_ci"],
        alpha=RESULTS["agreement_alpha"],
        icc=RESULTS["agreement_icc"],
        retest=RESULTS["agreement_retest"],
    log:
        "logs/agreement/{dataset}.ci.log",
    wildcard_constraints:
        dataset=alternatives(RATED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        agreement=dataset_param("agreement"),
        outliers=dataset_param("outliers"),
        persistent_raters=dataset_param("persistent_raters"),
        anchors=dataset_param("anchors"),
        seed=CONFIG["scoring"]["seed"],
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/agreement.py"
