"""The dataset audit: what the data say against what was released with them."""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.audit import audit_configured
from simgold.workflow.job import provenance_for, run

TABLES = {"items": "item_table", "ratings": "ratings", "means": "means", "rejects": "rejects"}  # table: input


def main(snakemake, log):
    name, inputs = snakemake.wildcards.dataset, snakemake.input
    tables = {table: read_parquet(inputs[key]) for table, key in TABLES.items()}
    source = None
    if "source_items" in inputs.keys():
        source = {"items": read_parquet(inputs.source_items), "means": read_parquet(inputs.source_means)}
    found = audit_configured(name, snakemake.params.spec, tables, source=source)
    counts = found["check"].value_counts().sort_index()
    log.info("%s: %d findings%s", name, len(found), "".join(f"\n  {c}: {n}" for c, n in counts.items()))
    write_parquet(found, snakemake.output[0], table="audit", provenance=provenance_for(snakemake))


run(snakemake, main)
