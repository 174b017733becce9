# Stages 6 and 7: embeddings (one streaming pass per file), comparisons (A&G), model scoring.


# Vectors that packaged models compute are kept once per word in .snakemake/simgold-cache/
# ($SIMGOLD_CACHE; simgold.vectorcache). The store is not an input: it changes how long the job
# takes, never what it writes, so nothing reruns when it changes.
rule embeddings:
    input:
        unpack(embedding_inputs),
    output:
        "results/embeddings/{model}.parquet",
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
        "../scripts/embeddings.py"


rule comparisons:
    input:
        unpack(comparison_inputs),
    output:
        table="results/comparisons/{dataset}.parquet",
        ag="results/comparisons/{dataset}.ag.txt",
    log:
        "logs/comparisons/{dataset}.log",
    wildcard_constraints:
        dataset=alternatives(COMPARED),
    conda:
        "../envs/readers.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        kind=dataset_param("kind"),
    script:
        "../scripts/comparisons.py"


rule score:
    input:
        unpack(score_inputs),
    output:
        predictions="results/scores/{dataset}/{model}/predictions.parquet",
        scores="results/scores/{dataset}/{model}/scores.parquet",
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
        "../scripts/score.py"


rule model_differences:
    input:
        unpack(difference_inputs),
    output:
        differences="results/scores/{dataset}/model_differences.parquet",
        msd="results/scores/{dataset}/msd.parquet",
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
        "../scripts/model_differences.py"


rule score_summary:
    input:
        scores=[f"results/scores/{d}/{m}/scores.parquet" for d, m in SCORED],
        msd=expand("results/scores/{dataset}/msd.parquet", dataset=sorted(SCORED_BY)),
    output:
        "results/scores/summary.parquet",
    log:
        "logs/scores/summary.log",
    conda:
        "../envs/models.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/score_summary.py"
