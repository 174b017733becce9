"""The context-effects figure of one two-context dataset."""

from simgold.report import context_figure
from simgold.tables import read_parquet
from simgold.workflow import run


def main(snakemake, log):
    context_figure(
        read_parquet(snakemake.input[0]), snakemake.output[0], f"{snakemake.wildcards.dataset}: context effects"
    )


run(snakemake, main)
