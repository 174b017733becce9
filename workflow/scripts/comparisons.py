"""Comparisons (A&G): read from ag-evaluation files, or made from rankings or per-rater ratings."""

import pandas as pd

from simgold.comparisons import from_ratings, from_rankings, read_ag_file, write_ag_file
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name, kind = snakemake.wildcards.dataset, snakemake.params.kind
    if kind == "comparisons":
        table = pd.concat([read_ag_file(p, name) for p in snakemake.input.ag], ignore_index=True)
    elif kind == "rankings":
        table = from_rankings(name, read_parquet(snakemake.input.rankings))
    else:
        table = from_ratings(name, read_parquet(snakemake.input.item_table), read_parquet(snakemake.input.ratings))
    counts = table["type"].value_counts().to_dict()
    log.info("%s: %d comparisons over %d targets %s", name, len(table), table["target"].nunique(), counts)
    write_parquet(table, snakemake.output.table, table="comparisons", provenance=provenance_for(snakemake))
    write_ag_file(table, snakemake.output.ag)  # for the reference evaluator


run(snakemake, main)
