"""The jobs of workflow/rules/cosimlex.smk, one function per rule (``run`` picks the rule's):

* ``cosimlex``: CoSimLex subtask 1 and 2 figures of one model on one two-context dataset.
* ``cosimlex_summary``: Every model's CoSimLex figures per language and their mean over languages
  (as the task ranks).
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.cosimlex import cosimlex_scores, cosimlex_summary
from simgold.workflow.job import provenance_for, run


def cosimlex_job(snakemake, log):
    table = cosimlex_scores(
        snakemake.wildcards.dataset,
        snakemake.wildcards.model,
        read_parquet(snakemake.input.item_table),
        read_parquet(snakemake.input.gold),
        read_parquet(snakemake.input.predictions),
    )
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="cosimlex", provenance=provenance_for(snakemake))


def cosimlex_summary_job(snakemake, log):
    table = cosimlex_summary([read_parquet(p) for p in snakemake.input], snakemake.params.languages)
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="cosimlex_summary", provenance=provenance_for(snakemake))


JOBS = {"cosimlex": cosimlex_job, "cosimlex_summary": cosimlex_summary_job}

run(snakemake, JOBS[snakemake.rule])
