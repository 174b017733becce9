# Stage 3, rater calibration (docs/methods.md section 3): per-rater shift or z-score.


rule calibrate:
    input:
        unpack(calibrate_inputs),
    output:
        ratings=RESULTS["calibrate_ratings"],
        raters=RESULTS["calibrate_raters"],
    log:
        "logs/calibrate/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(RATED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        scale=dataset_param("scale"),
        calibration=dataset_param("calibration"),
        anchors=dataset_param("anchors"),
    script:
        "../scripts/calibrate.py"
