# How many raters are enough (docs/methods.md section 11.3), on the ratings as they were given
# (without the anchors, as agreement and the gold standard have them, unless anchors.in_gold).
rule reliability:
    input:
        unpack(calibrate_inputs),
    output:
        summary=RESULTS["reliability"],
        curve=RESULTS["reliability_curve"],
    log:
        "logs/reliability/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(RATED),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        persistent_raters=dataset_param("persistent_raters"),
        anchors=dataset_param("anchors"),
        seed=CONFIG["scoring"]["seed"],
    script:
        "../scripts/reliability.py"
