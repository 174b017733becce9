"""One dataset's report page: its figures (embedded) and tables, readable without Python."""

import pandas as pd

from simgold.report import dataset_page, write
from simgold.tables import read_parquet
from simgold.workflow import run

#: the tables of docs/methods.md section 11 a page shows, where the dataset has them
STATISTICS = ("agreement_ci", "alpha", "reliability", "differences", "msd", "audit")


def main(snakemake, log):
    name, inputs = snakemake.wildcards.dataset, snakemake.input
    scores = pd.concat([read_parquet(p) for p in inputs.scores], ignore_index=True) if inputs.scores else None
    optional = {key: read_parquet(inputs[key]) for key in ("clean", "agreement") if key in inputs.keys()}
    statistics = {key: read_parquet(inputs[key]) for key in STATISTICS if key in inputs.keys()}
    context = None
    if "context" in inputs.keys():
        tests = read_parquet(inputs.context)
        context = tests[["word1", "word2", "n1", "n2", "mean1", "mean2", "sd1", "sd2", "statistic", "p", "q", "test"]]
    html = dataset_page(
        name,
        clean=optional.get("clean"),
        agreement=optional.get("agreement"),
        scores=scores,
        context=context,
        figures=snakemake.params.figures,
        statistics=statistics,
    )
    write(snakemake.output[0], html)
    log.info("%s: page with %d figures, %d statistics tables", name, len(snakemake.params.figures), len(statistics))


run(snakemake, main)
