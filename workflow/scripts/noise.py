"""The noise sanity check for one model on one dataset (vectorised; fixed seeds)."""

from simgold.noise import grid, inputs_for, noise_check
from simgold.scoring import Vectors
from simgold.tables import read_parquet, read_provenance, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name, model_name, model, settings = (
        snakemake.wildcards.dataset,
        snakemake.wildcards.model,
        snakemake.params.model,
        snakemake.params.noise,
    )
    mean = read_provenance(snakemake.input.embeddings).get("mean_vector")
    vectors = Vectors(read_parquet(snakemake.input.embeddings), model["lowercase"], model["oov"], mean)
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
        threads=snakemake.threads,
    )
    log.info("\n%s", table.to_string(index=False))
    write_parquet(table, snakemake.output[0], table="noise", provenance=provenance_for(snakemake))


run(snakemake, main)
