"""One table of cleaning counts across datasets (items, ratings, rejects by reason, ledger balance)."""

import pandas as pd

from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    summary = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
    summary = summary.sort_values("dataset", kind="stable").reset_index(drop=True)
    log.info("\n%s", summary.drop(columns=[c for c in summary if c.startswith("rejects_")]).to_string(index=False))
    unbalanced = summary.loc[~summary["ledger_balanced"], "dataset"].tolist()
    if unbalanced:
        raise AssertionError(f"the ledger does not balance for {unbalanced}")
    write_parquet(summary, snakemake.output[0], table=None, provenance=provenance_for(snakemake))


run(snakemake, main)
