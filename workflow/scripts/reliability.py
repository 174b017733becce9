"""How many raters are enough: split-half reliability, Spearman-Brown curve, raters needed (the
curve's figure is drawn with the dataset's report page)."""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.controls import recorded_params, scored
from simgold.stages.reliability import reliability_projection
from simgold.workflow.job import provenance_for, run


def main(snakemake, log):
    name, params = snakemake.wildcards.dataset, snakemake.params
    ratings = read_parquet(snakemake.input.ratings)
    if "item_table" in snakemake.input.keys():  # the dataset has anchors: left out unless in_gold
        _, ratings = scored(params.anchors, read_parquet(snakemake.input.item_table), ratings)
    out = reliability_projection(
        name,
        ratings,
        seed=params.seed,
        persistent_raters=params.persistent_raters,
        stage="raw",
    )
    summary, curve = out["summary"], out["curve"]
    log.info("\n%s", summary.T.to_string(header=False))
    prov = provenance_for(snakemake, recorded_params(params))
    write_parquet(summary, snakemake.output.summary, table="reliability", provenance=prov)
    write_parquet(curve, snakemake.output.curve, table="reliability_curve", provenance=prov)


run(snakemake, main)
