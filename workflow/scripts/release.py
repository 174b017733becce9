"""The release of one dataset's gold standard: data files, dataset card, Croissant metadata."""

from pathlib import Path

import simgold
from simgold.io.tables import read_parquet
from simgold.report.archive import input_records
from simgold.report.release import release
from simgold.workflow.job import provenance_for, run


def main(snakemake, log):
    name, inputs = snakemake.wildcards.dataset, snakemake.input
    # "items" is a name snakemake keeps for itself: the items table comes as item_table
    # the card file's prose is in the spec already (read by the config check); it is an input so that an edit remakes the card
    tables = {
        key.replace("item_table", "items"): read_parquet(inputs[key])
        for key in inputs.keys()
        if key not in ("sources", "card_file")
    }
    sources = input_records({name: snakemake.params.spec}, Path.cwd())
    made = release(
        name,
        snakemake.params.spec,
        tables,
        sources,
        confidence=snakemake.params.confidence,
        made_with=f"simgold {simgold.__version__}",
        date=snakemake.params.date,
        provenance=provenance_for(snakemake),
    )
    out = Path(snakemake.output[0])
    out.mkdir(parents=True, exist_ok=True)
    for file, data in made.files.items():
        (out / file).write_bytes(data)
    for warning in made.warnings:
        log.warning("%s", warning)
    log.info("%s: %s", out, ", ".join(made.files))


run(snakemake, main)
