"""The noise sanity check for one model on one dataset (vectorised; fixed seeds)."""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.noise import grid, inputs_for, noise_check
from simgold.stages.vectors import Vectors
from simgold.workflow.job import provenance_for, run, work_threads


def main(snakemake, log):
    name, model_name, model, settings = (
        snakemake.wildcards.dataset,
        snakemake.wildcards.model,
        snakemake.params.model,
        snakemake.params.noise,
    )
    vectors = Vectors.read(snakemake.input.embeddings, model)
    matrix, first, second, gold = inputs_for(
        read_parquet(snakemake.input.predictions), read_parquet(snakemake.input.gold), vectors
    )
    levels = grid(**settings["levels"])
    table = noise_check(
        name,
        model_name,
        matrix,
        first,
        second,
        gold,
        levels=levels,
        k=settings["k"],
        m=settings["m"],
        relative=settings["relative"],
        seed=snakemake.params.seed,
        threads=work_threads(snakemake),
    )
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="noise", provenance=provenance_for(snakemake))


run(snakemake, main)
