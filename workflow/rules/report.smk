# The report: figures and tables per dataset and across datasets, flagged for `snakemake --report`
# and written as static pages. The rules declare disk_mb: Snakemake's default (twice the input
# size) cannot be evaluated while `snakemake --report` renders captions, and warned there.


rule report_dataset:
    input:
        unpack(report_inputs),
    output:
        page=report(
            "results/report/{dataset}/index.html",
            caption="../report/page.rst",
            category="Datasets",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "page": "tables"},
        ),
        # every figure of the page, drawn in this job: matplotlib loads once per dataset
        figures=report(
            directory("results/report/{dataset}/figures"),
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
        figures=lambda wildcards: report_figures(STAGES, wildcards.dataset),
        ranked=lambda wildcards: wildcards.dataset in RANKED,
        outliers=dataset_param("outliers"),
    script:
        "../scripts/report_dataset.py"


rule score_tables:
    input:
        "results/scores/summary.parquet",
    output:
        wide="results/scores/wide.tsv",
        json=[f"results/scores/json/{m}/{d}.json" for d, m in SCORED],
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
        languages={d: CONFIG["datasets"][d]["language"] for d in DATASETS},
    script:
        "../scripts/report_scores.py"


rule report_index:
    input:
        pages=expand("results/report/{dataset}/index.html", dataset=DATASETS),
        clean="results/clean/summary.parquet",
        scores=["results/scores/summary.parquet"] if SCORED else [],
        crosslingual="results/translate/crosslingual_correlations.parquet",
        agreement=expand("results/agreement/{dataset}/agreement.parquet", dataset=RATED + RANKED),
        raters=expand("results/agreement/{dataset}/raters.parquet", dataset=RATED + RANKED),
        reliability=expand("results/reliability/{dataset}/summary.parquet", dataset=RATED),
        audit=expand("results/audit/{dataset}.parquet", dataset=CLEANED),
    output:
        page=report(
            "results/report/index.html",
            caption="../report/index.rst",
            category="Summary",
            labels={"page": "all datasets and models"},
        ),
        summary=report(
            "results/report/summary.tsv",
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
        audited=CLEANED,
    script:
        "../scripts/report_index.py"
