# Stage 2, translation merges (docs/methods.md section 2): link translated items to their source items,
# and compare the languages' gold standards over shared items.


rule translate:
    input:
        unpack(translate_inputs),
    output:
        item_table=RESULTS["translate_items"],
        dropped=RESULTS["translate_dropped"],
    log:
        "logs/translate/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(TRANSLATED),
    conda:
        "../envs/readers.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        translation=dataset_param("translation"),
    script:
        "../scripts/translate.py"


rule crosslingual:
    input:
        unpack(crosslingual_inputs),
    output:
        table=RESULTS["crosslingual"],
        correlations=RESULTS["crosslingual_correlations"],
    log:
        "logs/translate/crosslingual.log",
    conda:
        "../envs/readers.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        groups=GROUPS,
        sources={d: CONFIG["datasets"][d]["translation_of"] for d in TRANSLATED},
        languages={d: CONFIG["datasets"][d]["language"] for d in sorted(set(GROUPS) | set(TRANSLATED))},
        scoring=CONFIG["scoring"],
    script:
        "../scripts/translate.py"
