"""The report's front page and the summary table as TSV."""

import pandas as pd

from simgold.report import index_page, write
from simgold.tables import read_parquet
from simgold.workflow import run


def main(snakemake, log):
    summary = (
        read_parquet(snakemake.input.scores[0])
        if snakemake.input.scores
        else pd.DataFrame(columns=["subset", "metric"])
    )
    clean = read_parquet(snakemake.input.clean)
    crosslingual = read_parquet(snakemake.input.crosslingual)
    write(snakemake.output.page, index_page(snakemake.params.datasets, summary, clean, crosslingual))
    summary.to_csv(snakemake.output.summary, sep="\t", index=False, float_format="%.6g", lineterminator="\n")
    log.info("report index: %d datasets, %d score rows", len(snakemake.params.datasets), len(summary))


run(snakemake, main)
