# Stage 4, inter-rater agreement and outlier filtering (docs/methods.md section 4).


rule agreement:
    input:
        item_table="results/clean/{dataset}/items.parquet",
        raw="results/clean/{dataset}/ratings.parquet",
        calibrated="results/calibrate/{dataset}/ratings.parquet",
        calibration="results/calibrate/{dataset}/raters.parquet",
    output:
        agreement="results/agreement/{dataset}/agreement.parquet",
        raters="results/agreement/{dataset}/raters.parquet",
        ratings="results/agreement/{dataset}/ratings.parquet",
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
    script:
        "../scripts/agreement.py"


rule ranking_agreement:
    input:
        rankings="results/clean/{dataset}/rankings.parquet",
    output:
        agreement="results/agreement/{dataset}/agreement.parquet",
        raters="results/agreement/{dataset}/raters.parquet",
        rankings="results/agreement/{dataset}/rankings.parquet",
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
        "../scripts/ranking_agreement.py"


# Bootstrap CIs on the agreement and alpha at every level (docs/methods.md sections 11.1, 11.2): a
# rule of its own, so the gold standard and the scores do not wait for the resamples.
rule agreement_ci:
    input:
        item_table="results/clean/{dataset}/items.parquet",
        raw="results/clean/{dataset}/ratings.parquet",
        calibrated="results/calibrate/{dataset}/ratings.parquet",
        calibration="results/calibrate/{dataset}/raters.parquet",
    output:
        ci="results/agreement/{dataset}/agreement_ci.parquet",
        alpha="results/agreement/{dataset}/alpha.parquet",
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
        seed=CONFIG["scoring"]["seed"],
        confidence=CONFIG["scoring"]["confidence"],
    script:
        "../scripts/agreement_ci.py"
