"""Clean one dataset: read its raw sources, validate every cell, write the canonical tables."""

from pathlib import Path

from simgold.clean import clean_dataset, require_accepted
from simgold.tables import write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name = snakemake.wildcards.dataset
    tables = clean_dataset(name, snakemake.params.spec, log=log)
    summary = tables["summary"].iloc[0]
    log.info(
        "%s: %d items, %d ratings, %d rankings, %d means, %d ledger rows; %d non-blank cells read, %d kept on items",
        name,
        summary.n_items,
        summary.n_ratings,
        summary.n_rankings,
        summary.n_means,
        summary.n_rejects,
        summary.raw_cells,
        summary.label_cells,
    )
    for reason, count in tables["rejects"]["reason"].value_counts().sort_index().items():
        log.info("  ledger (%s): %d", reason, count)
    require_accepted(name, tables)
    prov = provenance_for(snakemake)
    for path in snakemake.output:  # results/clean/{dataset}/{table}.parquet
        table = Path(path).stem
        write_parquet(tables[table], path, table=table, provenance=prov)


run(snakemake, main)
