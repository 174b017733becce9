"""The jobs of workflow/rules/report.smk, one function per rule (``run`` picks the rule's):

* ``report_dataset``: One dataset's report page: its figures (drawn here, all of them, and embedded)
  and tables, readable without Python.
* ``score_tables``: The headline scores as a dataset x model TSV; MTEB's result files (a TaskResult
  per model and dataset, a ModelMeta per model); the leaderboard as TSV, Markdown and LaTeX.
* ``report_index``: The report's front page (the answer first) and the summary table as TSV.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from pathlib import Path

import pandas as pd

from simgold.io.digests import package_version
from simgold.io.tables import read_parquet
from simgold.report.figures import draw_dataset_figures
from simgold.report.leaderboard import leaderboard
from simgold.report.mteb import dataset_revision, embedding_dim, mteb_model_meta, mteb_result
from simgold.report.headline import agreement_overview, flag_scores, headline, wide_table
from simgold.report.pages import dataset_page, index_page, run_footer, write, write_json
from simgold.workflow.job import run

#: the tables of docs/methods.md section 11 a page shows, where the dataset has them
STATISTICS = ("agreement_ci", "alpha", "icc", "retest", "reliability", "gold", "differences", "msd", "audit")
#: a Best-Worst Scaling dataset's tables (section 13; simgold.report.bws_sections.page_tables)
BWS_STATISTICS = ("bws_reliability", "bws_scores", "raters", "item_table")


def report_dataset_job(snakemake, log):
    name, inputs, params = snakemake.wildcards.dataset, snakemake.input, snakemake.params
    # each input read once: the page and its figures share the tables
    tables = {key: read_parquet(inputs[key]) for key in inputs.keys() if key not in ("scores", "noise", "release")}
    scores = pd.concat([read_parquet(p) for p in inputs.scores], ignore_index=True) if inputs.scores else None
    noise = [read_parquet(p) for p in inputs.noise]
    Path(snakemake.output.figures).mkdir(parents=True, exist_ok=True)  # a dataset may have no figure
    figure_tables = {**tables, "scores": scores, "noise": noise, "ranked": params.ranked}
    draw_dataset_figures(name, params.figures, figure_tables, params.outliers)
    statistics = {key: tables[key] for key in STATISTICS if key in tables}
    if "bws_reliability" in tables:
        statistics.update({key: tables[key] for key in BWS_STATISTICS if key in tables})
    html = dataset_page(
        name,
        clean=tables.get("clean"),
        agreement=tables.get("agreement"),
        scores=scores,
        context=tables.get("context"),
        figures=params.figures,
        statistics=statistics,
        release=(
            {"files": released_files(inputs.release), "meta": params.release} if "release" in inputs.keys() else None
        ),
        rejects=tables.get("rejects"),
        footer=run_footer(params.config, package_version("simgold")),
    )
    write(snakemake.output.page, html)
    log.info("%s: page with %d figures, %d statistics tables", name, len(params.figures), len(statistics))


def released_files(paths) -> list[str]:
    """The names of a release's files (the rule's inputs), in name order."""
    return sorted(Path(p).name for p in paths)


def score_tables_job(snakemake, log):
    inputs, outputs, params = snakemake.input, snakemake.output, snakemake.params
    summary = read_parquet(inputs.summary)
    wide = wide_table(headline(summary))
    wide.to_csv(outputs.wide, sep="\t", index=False, float_format="%.6g", lineterminator="\n")
    revisions = {d: dataset_revision(path) for d, path in zip(params.gold_standard_datasets, inputs.gold_standards)}
    for (dataset, model), path in zip(params.scored, outputs.json):
        write_json(path, mteb_result(summary, dataset, model, params.languages[dataset], revisions[dataset]))
    for (model, spec), path, vectors in zip(params.models.items(), outputs.model_meta, inputs.embeddings):
        write_json(path, mteb_model_meta(model, spec, embedding_dim(vectors)))
    tables = leaderboard(summary, min_coverage=params.min_coverage)
    for style, text in tables.items():
        write(outputs[f"leaderboard_{style}"], text)
    log.info("%d datasets x %d models; %d result files", len(wide), wide.shape[1] - 3, len(outputs.json))


def report_index_job(snakemake, log):
    inputs = snakemake.input
    summary = read_parquet(inputs.scores[0]) if inputs.scores else pd.DataFrame(columns=["subset", "metric", "n_used"])
    agreement = agreement_overview(
        [read_parquet(p) for p in inputs.agreement],
        [read_parquet(p) for p in inputs.raters],
        [read_parquet(p) for p in inputs.icc],
        [read_parquet(p) for p in inputs.retest],
    )
    reliability = [read_parquet(p) for p in inputs.reliability]
    page = index_page(
        snakemake.params.datasets,
        summary,
        read_parquet(inputs.clean),
        read_parquet(inputs.crosslingual),
        agreement,
        reliability=pd.concat(reliability, ignore_index=True) if reliability else None,
        audit={name: read_parquet(p) for name, p in zip(snakemake.params.audited, inputs.audit)},
        differences=read_parquet(inputs.differences[0]) if inputs.differences else None,
        releases=snakemake.params.releases,
        footer=run_footer(snakemake.params.config, package_version("simgold")),
    )
    write(snakemake.output.page, page)
    flag_scores(summary).to_csv(
        snakemake.output.summary, sep="\t", index=False, float_format="%.6g", lineterminator="\n"
    )
    log.info("report index: %d datasets, %d score rows", len(snakemake.params.datasets), len(summary))


JOBS = {"report_dataset": report_dataset_job, "score_tables": score_tables_job, "report_index": report_index_job}

run(snakemake, JOBS[snakemake.rule])
