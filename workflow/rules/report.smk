# The report: figures and tables per dataset and across datasets, flagged for `snakemake --report`
# and written as static pages. The rules declare disk_mb: Snakemake's default (twice the input
# size) cannot be evaluated while `snakemake --report` renders captions, and warned there.


rule report_dataset:
    input:
        unpack(report_inputs),
    output:
        page=report(
            RESULTS["report_page"],
            caption="../report/page.rst",
            category="Datasets",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "page": "tables"},
        ),
        # every figure of the page, drawn in this job: matplotlib loads once per dataset
        figures=report(
            directory(RESULTS["report_figures"]),
            patterns=["{figure}.png"],
            caption="../report/figures.rst",
            category="Figures",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "{figure}"},
        ),
    log:
        "logs/report/{dataset}.log",
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        disk_mb=1000,
        runtime=10,
    params:
        figures=lambda wildcards: report_figures(STAGES, wildcards.dataset, level=CI_LEVEL),
        ci_level=CI_LEVEL,
        ranked=lambda wildcards: wildcards.dataset in RANKED,
        outliers=dataset_param("outliers"),
        release=dataset_param("release"),
        config=CONFIG,  # the page's footer: the run's date and the config's digest
    script:
        "../scripts/report.py"


rule score_tables:
    input:
        summary=RESULTS["scores_summary"],
        # what each scored dataset's scores are computed against: its hash is the MTEB revision
        gold_standards=[gold_standard_file(STAGES, d) for d in SCORED_BY],
        # each model's vectors: their dimension is the model meta's embed_dim
        embeddings=[result("embeddings", model=m) for m in SCORED_MODELS],
    output:
        wide=RESULTS["scores_wide"],
        json=[result("scores_json", dataset=d, model=m) for d, m in SCORED],
        model_meta=[result("scores_model_meta", model=m) for m in SCORED_MODELS],
        leaderboard_tsv=RESULTS["leaderboard_tsv"],
        leaderboard_md=RESULTS["leaderboard_md"],
        leaderboard_tex=RESULTS["leaderboard_tex"],
    log:
        "logs/scores/tables.log",
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        disk_mb=1000,
        runtime=10,
    params:
        scored=SCORED,
        gold_standard_datasets=list(SCORED_BY),
        languages={d: CONFIG["datasets"][d]["language"] for d in DATASETS},
        models={m: CONFIG["models"][m] for m in SCORED_MODELS},
        min_coverage=CONFIG["scoring"]["msd_min_coverage"],
    script:
        "../scripts/report.py"


rule report_index:
    input:
        pages=expand(RESULTS["report_page"], dataset=DATASETS),
        clean=RESULTS["clean_summary"],
        scores=[RESULTS["scores_summary"]] if SCORED else [],
        differences=[RESULTS["differences_summary"]] if SCORED else [],
        crosslingual=RESULTS["crosslingual_correlations"],
        agreement=expand(RESULTS["agreement"], dataset=RATED + RANKED),
        raters=expand(RESULTS["agreement_raters"], dataset=RATED + RANKED),
        icc=expand(RESULTS["agreement_icc"], dataset=RATED),
        retest=expand(RESULTS["agreement_retest"], dataset=RATED),
        reliability=expand(RESULTS["reliability"], dataset=RATED),
        audit=expand(RESULTS["audit"], dataset=CLEANED),
        releases=[path for d in RELEASED for path in released(d)],
    output:
        page=report(
            RESULTS["report_index"],
            caption="../report/index.rst",
            category="Summary",
            labels={"page": "all datasets and models"},
        ),
        summary=report(
            RESULTS["report_summary"],
            caption="../report/summary.rst",
            category="Summary",
            labels={"page": "summary table (TSV)"},
        ),
    log:
        "logs/report/index.log",
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        disk_mb=1000,
        runtime=10,
    params:
        datasets=DATASETS,
        # each released dataset's files, by name, and its config's release block
        releases={
            d: {"files": sorted(os.path.basename(p) for p in released(d)), "meta": CONFIG["datasets"][d]["release"]}
            for d in RELEASED
        },
        config=CONFIG,  # the page's footer: the run's date and the config's digest
        audited=CLEANED,
        ci_level=CI_LEVEL,
    script:
        "../scripts/report.py"
