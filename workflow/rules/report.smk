# The report: figures and tables per dataset and across datasets, flagged for `snakemake --report`
# and written as static pages.


rule report_scores_figure:
    input:
        lambda wildcards: [
            f"results/scores/{wildcards.dataset}/{m}/scores.parquet" for m in SCORED_BY[wildcards.dataset]
        ],
    output:
        report(
            "results/report/{dataset}/scores.png",
            caption="../report/scores.rst",
            category="Model scores",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "model scores"},
        ),
    log:
        "logs/report/{dataset}.scores.log",
    wildcard_constraints:
        dataset=alternatives(sorted(SCORED_BY)),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/report_figures.py"


rule report_noise_figure:
    input:
        lambda wildcards: [
            f"results/noise/{wildcards.dataset}/{m}.parquet" for d, m in NOISED if d == wildcards.dataset
        ],
    output:
        report(
            "results/report/{dataset}/noise.png",
            caption="../report/noise.rst",
            category="Noise sanity check",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "noise curves"},
        ),
    log:
        "logs/report/{dataset}.noise.log",
    wildcard_constraints:
        dataset=alternatives(sorted({d for d, _ in NOISED})),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/report_figures.py"


rule report_context:
    input:
        "results/context/{dataset}/tests.parquet",
    output:
        report(
            "results/report/{dataset}/context.png",
            caption="../report/context.rst",
            category="Context effects",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "context effects"},
        ),
    log:
        "logs/report/{dataset}.context.log",
    wildcard_constraints:
        dataset=alternatives(CONTEXT_DATASETS),
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/report_context.py"


rule report_dataset:
    input:
        unpack(report_inputs),
    output:
        report(
            "results/report/{dataset}/index.html",
            caption="../report/page.rst",
            category="Datasets",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "page": "tables"},
        ),
    log:
        "logs/report/{dataset}.log",
    conda:
        "../envs/stats.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        figures=lambda wildcards: report_figures(STAGES, wildcards.dataset),
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
        runtime=10,
    params:
        datasets=DATASETS,
        audited=CLEANED,
    script:
        "../scripts/report_index.py"
