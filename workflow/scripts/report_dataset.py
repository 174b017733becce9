"""One dataset's report page: its figures (drawn here, all of them, and embedded) and tables,
readable without Python."""

from pathlib import Path

import pandas as pd

from simgold.report import dataset_page, draw_dataset_figures, write
from simgold.tables import read_parquet
from simgold.workflow import run

#: the tables of docs/methods.md section 11 a page shows, where the dataset has them
STATISTICS = ("agreement_ci", "alpha", "reliability", "differences", "msd", "audit")
#: the tables the figures are drawn from, where the dataset has them (besides scores, noise, context)
FIGURE_TABLES = ("raters", "agreement", "reliability", "curve", "gold", "distribution")


def main(snakemake, log):
    name, inputs, params = snakemake.wildcards.dataset, snakemake.input, snakemake.params
    scores = [read_parquet(p) for p in inputs.scores]
    optional = {key: read_parquet(inputs[key]) for key in ("clean", "agreement") if key in inputs.keys()}
    statistics = {key: read_parquet(inputs[key]) for key in STATISTICS if key in inputs.keys()}
    tests = read_parquet(inputs.context) if "context" in inputs.keys() else None
    tables = {key: read_parquet(inputs[key]) for key in FIGURE_TABLES if key in inputs.keys()}
    tables.update(scores=scores, noise=[read_parquet(p) for p in inputs.noise], context=tests, ranked=params.ranked)
    Path(snakemake.output.figures).mkdir(parents=True, exist_ok=True)  # a dataset may have no figure
    draw_dataset_figures(name, params.figures, tables, params.outliers)
    context = None
    if tests is not None:
        context = tests[["word1", "word2", "n1", "n2", "mean1", "mean2", "sd1", "sd2", "statistic", "p", "q", "test"]]
    html = dataset_page(
        name,
        clean=optional.get("clean"),
        agreement=optional.get("agreement"),
        scores=pd.concat(scores, ignore_index=True) if scores else None,
        context=context,
        figures=params.figures,
        statistics=statistics,
    )
    write(snakemake.output.page, html)
    log.info("%s: page with %d figures, %d statistics tables", name, len(params.figures), len(statistics))


run(snakemake, main)
