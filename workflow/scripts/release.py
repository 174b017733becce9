"""The jobs of workflow/rules/release.smk, one function per rule (``run`` picks the rule's):

* ``release_{kind}``: The release of one dataset's gold standard: data files, dataset card,
  Croissant metadata (each file declared by the rule; ``simgold.io.paths.release_files``).
* ``release_scores``: The run's model scores on a released dataset, beside its card.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from pathlib import Path

import pandas as pd

import simgold
from simgold.io.tables import read_parquet
from simgold.report.archive import input_records
from simgold.report.release import release, scores_card
from simgold.workflow.job import provenance_for, run


def release_job(snakemake, log):
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
        scored=snakemake.params.scored,
    )
    outputs = {Path(path).name: Path(path) for path in snakemake.output}
    if set(outputs) != set(made.files):  # the rule declares every file: a missing or extra one is a bug
        raise RuntimeError(f"{name}: the release made {sorted(made.files)}, the rule declares {sorted(outputs)}")
    for file, data in made.files.items():
        outputs[file].write_bytes(data)
    for warning in made.warnings:
        log.warning("%s", warning)
    log.info("%s: %s", Path(snakemake.output[0]).parent, ", ".join(made.files))


def release_scores_job(snakemake, log):
    name = snakemake.wildcards.dataset
    scores = pd.concat([read_parquet(path) for path in snakemake.input.scores], ignore_index=True)
    text = scores_card(name, scores, read_parquet(snakemake.input.msd), snakemake.params.models)
    Path(snakemake.output[0]).write_text(text, encoding="utf-8")
    log.info("%s: %d models", snakemake.output[0], scores["model"].nunique())


run(snakemake, release_scores_job if snakemake.rule == "release_scores" else release_job)
