"""The jobs of workflow/rules/context.smk, one function per rule (``run`` picks the rule's):

* ``context_significance``: Per pair: is the similarity different in the two contexts? Recomputed
  from ratings, or shipped.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.context import context_summary, significance
from simgold.workflow.job import provenance_for, run


def context_significance_job(snakemake, log):
    name, settings = snakemake.wildcards.dataset, snakemake.params.context
    ratings = read_parquet(snakemake.input.ratings) if "ratings" in snakemake.input.keys() else None
    tests = significance(
        name,
        read_parquet(snakemake.input.item_table),
        ratings,
        read_parquet(snakemake.input.means),
        test=settings["test"],
        pvalue=settings["pvalue"],
    )
    summary = context_summary(name, snakemake.params.language, tests)
    log.info("\n%s", summary.T.to_string(header=False))
    prov = provenance_for(snakemake)
    write_parquet(tests, snakemake.output.tests, table="context_tests", provenance=prov)
    write_parquet(summary, snakemake.output.summary, table="context_summary", provenance=prov)


JOBS = {"context_significance": context_significance_job}

run(snakemake, JOBS[snakemake.rule])
