# Stages 6 and 7: embeddings (one streaming pass per file), comparisons (A&G), model scoring.


# Vectors that packaged models compute are kept once per word in .snakemake/simgold-cache/
# ($SIMGOLD_CACHE; simgold.io.vectorcache). The store is not an input: it changes how long the job
# takes, never what it writes, so nothing reruns when it changes.
rule embeddings:
    input:
        unpack(embedding_inputs),
    output:
        table=RESULTS["embeddings"],
        machine=RESULTS["machine"],
    log:
        "logs/embeddings/{model}.log",
    conda:
        "../envs/models.yaml"
    threads: 2
    resources:
        mem_mb=embedding_mem_mb,
        runtime=60,
    params:
        model=model_spec,
    script:
        "../scripts/scores.py"


# A contextual model's vectors of each item's words in its context: a result of their own, so that an
# archive holds them and a rebuild scores from them (simgold.report.archive).
rule context_vectors:
    input:
        item_table=result("clean", dataset="{dataset}", table="items"),
    output:
        table=RESULTS["context_vectors"],
        machine=RESULTS["context_machine"],
    log:
        "logs/embeddings/in-context/{dataset}/{model}.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        model=model_spec,
    script:
        "../scripts/scores.py"


rule comparisons:
    input:
        unpack(comparison_inputs),
    output:
        table=RESULTS["comparisons"],
        ag=RESULTS["comparisons_ag"],
    log:
        "logs/comparisons/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(COMPARED),
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        kind=dataset_param("kind"),
    script:
        "../scripts/scores.py"


rule score:
    input:
        unpack(score_inputs),
    output:
        predictions=RESULTS["predictions"],
        scores=RESULTS["scores"],
    log:
        "logs/scores/{dataset}/{model}.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        kind=dataset_param("kind"),
        model=model_spec,
        scoring=CONFIG["scoring"],
    script:
        "../scripts/scores.py"


rule model_differences:
    input:
        unpack(difference_inputs),
    output:
        differences=RESULTS["model_differences"],
        msd=RESULTS["msd"],
    log:
        "logs/scores/{dataset}/model_differences.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        scoring=CONFIG["scoring"],
    script:
        "../scripts/scores.py"


rule score_summary:
    input:
        scores=[result("scores", dataset=d, model=m) for d, m in SCORED],
        msd=expand(RESULTS["msd"], dataset=sorted(SCORED_BY)),
        differences=expand(RESULTS["model_differences"], dataset=sorted(SCORED_BY)),
    output:
        summary=RESULTS["scores_summary"],
        differences=RESULTS["differences_summary"],
    log:
        "logs/scores/summary.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/scores.py"
