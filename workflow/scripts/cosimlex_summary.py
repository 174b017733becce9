"""Every model's CoSimLex figures per language and their mean over languages (as the task ranks)."""

from simgold.cosimlex import cosimlex_summary
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    table = cosimlex_summary([read_parquet(p) for p in snakemake.input], snakemake.params.languages)
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="cosimlex_summary", provenance=provenance_for(snakemake))


run(snakemake, main)
