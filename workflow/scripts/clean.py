"""The jobs of workflow/rules/clean.smk, one function per rule (``run`` picks the rule's):

* ``clean_dataset``: Clean one dataset: read its raw sources, validate every cell, write the
  canonical tables.
* ``clean_summary``: One table of cleaning counts across datasets (items, ratings, rejects by
  reason, ledger balance).
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from pathlib import Path

import pandas as pd

from simgold.errors import DataError
from simgold.io.tables import read_parquet, tsv_bytes, write_parquet
from simgold.io.ledger import rejection_line
from simgold.stages.clean import check_rejected, clean_dataset, require_accepted
from simgold.workflow.job import provenance_for, run


def clean_dataset_job(snakemake, log):
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
    line = rejection_line(summary)
    if line:
        log.warning("%s", line)
    # a failed job's outputs are deleted: the ledger goes beside the log, where the error points
    ledger = Path(snakemake.log[0]).with_suffix(".rejects.tsv")
    try:
        check_rejected(summary, snakemake.params.spec["max_rejected"], str(ledger))
        require_accepted(name, tables, str(ledger))
    except DataError:
        ledger.write_bytes(tsv_bytes(tables["rejects"]))  # a CR in a rejected cell is quoted, not a row end
        raise
    prov = provenance_for(snakemake)
    for path in snakemake.output:  # results/clean/{dataset}/{table}.parquet
        table = Path(path).stem
        write_parquet(tables[table], path, table=table, provenance=prov)


def clean_summary_job(snakemake, log):
    summary = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
    summary = summary.sort_values("dataset", kind="stable").reset_index(drop=True)
    log.info("\n%s", summary.drop(columns=[c for c in summary if c.startswith("rejects_")]).to_string(index=False))
    unbalanced = summary.loc[~summary["ledger_balanced"], "dataset"].tolist()
    if unbalanced:
        raise AssertionError(f"the ledger does not balance for {unbalanced}")
    write_parquet(summary, snakemake.output[0], table=None, provenance=provenance_for(snakemake))


JOBS = {"clean_dataset": clean_dataset_job, "clean_summary": clean_summary_job}

run(snakemake, JOBS[snakemake.rule])
