"""Gold standard per item and the score distribution, from ratings, rankings or shipped means (the
distribution's figure is drawn with the dataset's report page)."""

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.gold import gold_from_means, gold_from_rankings, gold_from_ratings, score_distribution
from simgold.workflow.job import provenance_for, run


def main(snakemake, log):
    name, scale, confidence = snakemake.wildcards.dataset, snakemake.params.scale, snakemake.params.confidence
    items = read_parquet(snakemake.input.item_table)
    released = read_parquet(snakemake.input.means)
    if "ratings" in snakemake.input.keys():
        gold = gold_from_ratings(
            name, items, read_parquet(snakemake.input.ratings), scale, released, confidence=confidence
        )
    elif "rankings" in snakemake.input.keys():
        gold = gold_from_rankings(name, items, read_parquet(snakemake.input.rankings), confidence=confidence)
    else:
        gold = gold_from_means(name, items, released, scale, confidence=confidence)
    if scale is None:  # rankings: bins over the rank range
        scale = [1, max(2.0, float(gold["mean"].max()))]
    distribution = score_distribution(name, gold, scale, snakemake.params.gold["bin_width"])
    log.info("%s: %d items, gold from %s", name, len(gold), gold["basis"].iloc[0] if len(gold) else "nothing")
    log.info("item pairs whose order the ratings resolve (Welch, %s): %.3f", confidence, gold["resolved_share"].mean())
    log.info("\n%s", distribution.to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(gold, snakemake.output.gold, table="gold", provenance=prov)
    write_parquet(distribution, snakemake.output.distribution, table="distribution", provenance=prov)


run(snakemake, main)
