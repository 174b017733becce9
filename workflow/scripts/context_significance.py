"""Per pair: is the similarity different in the two contexts? Recomputed from ratings, or shipped."""

from simgold.context import context_summary, significance
from simgold.tables import read_parquet, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
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


run(snakemake, main)
