"""A figure of one dataset's report page: the model scores, or the noise curves."""

import pandas as pd

from simgold.report import noise_figure, scores_figure
from simgold.tables import read_parquet
from simgold.workflow import run


def main(snakemake, log):
    name, tables = snakemake.wildcards.dataset, [read_parquet(p) for p in snakemake.input]
    if snakemake.rule == "report_scores_figure":
        scores_figure(pd.concat(tables, ignore_index=True), snakemake.output[0], f"{name}: model scores")
    else:
        noise_figure(tables, snakemake.output[0], f"{name}: noise sanity check")
    log.info("%s: %s from %d tables", name, snakemake.output[0], len(tables))


run(snakemake, main)
