"""CoSimLex subtask 1 and 2 figures of one model on one two-context dataset."""

from simgold.cosimlex import cosimlex_scores
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    table = cosimlex_scores(
        snakemake.wildcards.dataset,
        snakemake.wildcards.model,
        read_parquet(snakemake.input.item_table),
        read_parquet(snakemake.input.gold),
        read_parquet(snakemake.input.predictions),
    )
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="cosimlex", provenance=provenance_for(snakemake))


run(snakemake, main)
