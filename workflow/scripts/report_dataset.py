"""One dataset's report page: its figures (drawn here, all of them, and embedded) and tables,
readable without Python."""

from pathlib import Path

import pandas as pd

from simgold.report import dataset_page, draw_dataset_figures, write
from simgold.tables import read_parquet
from simgold.workflow import run

#: the tables of docs/methods.md section 11 a page shows, where the dataset has them
STATISTICS = ("agreement_ci", "alpha", "reliability", "differences", "msd", "audit")


def main(snakemake, log):
    name, inputs, params = snakemake.wildcards.dataset, snakemake.input, snakemake.params
    # each input read once: the page and its figures share the tables
    tables = {key: read_parquet(inputs[key]) for key in inputs.keys() if key not in ("scores", "noise")}
    scores = pd.concat([read_parquet(p) for p in inputs.scores], ignore_index=True) if inputs.scores else None
    noise = [read_parquet(p) for p in inputs.noise]
    Path(snakemake.output.figures).mkdir(parents=True, exist_ok=True)  # a dataset may have no figure
    figure_tables = {**tables, "scores": scores, "noise": noise, "ranked": params.ranked}
    draw_dataset_figures(name, params.figures, figure_tables, params.outliers)
    statistics = {key: tables[key] for key in STATISTICS if key in tables}
    html = dataset_page(
        name,
        clean=tables.get("clean"),
        agreement=tables.get("agreement"),
        scores=scores,
        context=tables.get("context"),
        figures=params.figures,
        statistics=statistics,
    )
    write(snakemake.output.page, html)
    log.info("%s: page with %d figures, %d statistics tables", name, len(params.figures), len(statistics))


run(snakemake, main)
