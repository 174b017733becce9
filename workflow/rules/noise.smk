# Stage 9, the noise sanity check (docs/methods.md section 9): does a model's score fall as noise is added?


rule noise:
    input:
        embeddings=RESULTS["embeddings"],
        predictions=RESULTS["predictions"],
        gold=RESULTS["gold"],
    output:
        RESULTS["noise"],
    log:
        "logs/noise/{dataset}/{model}.log",
    conda:
        "../envs/models.yaml"
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        # the settings only: which models and datasets get the check is not this job's concern
        noise={key: NOISE[key] for key in ("levels", "k", "m", "relative")},
        seed=CONFIG["scoring"]["seed"],
        model=model_spec,
    script:
        "../scripts/noise.py"
