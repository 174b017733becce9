"""Gold standard per item and the score distribution, from ratings, rankings, shipped means or
Best-Worst Scaling answers (the distribution's figure is drawn with the dataset's report page).

* ``gold``: from ratings, rankings or shipped means.
* ``bws_gold``: from the BWS answers the agreement stage kept, with both scores of each item.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

from simgold.io.tables import read_parquet, write_parquet
from simgold.stages.bws_gold import gold_from_answers
from simgold.stages.controls import recorded_params, scored
from simgold.stages.gold import gold_from_means, gold_from_rankings, gold_from_ratings, score_distribution
from simgold.workflow.job import provenance_for, run


def gold_job(snakemake, log):
    name, scale, confidence = snakemake.wildcards.dataset, snakemake.params.scale, snakemake.params.confidence
    (items,) = scored(snakemake.params.anchors, read_parquet(snakemake.input.item_table))  # anchors: in_gold
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
    write_gold(snakemake, log, gold, scale, "the ratings resolve (Welch")


def bws_gold_job(snakemake, log):
    params = snakemake.params
    gold, scores = gold_from_answers(
        snakemake.wildcards.dataset,
        read_parquet(snakemake.input.item_table),
        read_parquet(snakemake.input.answers),
        params.scale,
        {**params.bws, "resamples": params.resamples},
        confidence=params.confidence,
        seed=params.seed,
    )
    log.info("\n%s", scores.drop(columns=["dataset"]).to_string(index=False, max_rows=40))
    write_gold(snakemake, log, gold, params.scale, "the answers' bootstrap intervals resolve (apart")
    write_parquet(scores, snakemake.output.scores, table="bws_scores", provenance=provenance_for(snakemake))


def write_gold(snakemake, log, gold, scale, resolved_by):
    """The gold table and its distribution over the scale's bins, with what the log says of them."""
    name, bin_width = snakemake.wildcards.dataset, snakemake.params.gold["bin_width"]
    distribution = score_distribution(name, gold, scale, bin_width)
    log.info("%s: %d items, gold from %s", name, len(gold), gold["basis"].iloc[0] if len(gold) else "nothing")
    share = gold["resolved_share"].mean()
    log.info("item pairs whose order %s, %s): %.3f", resolved_by, snakemake.params.confidence, share)
    log.info("\n%s", distribution.to_string(index=False))
    prov = provenance_for(snakemake, recorded_params(snakemake.params))
    write_parquet(gold, snakemake.output.gold, table="gold", provenance=prov)
    write_parquet(distribution, snakemake.output.distribution, table="distribution", provenance=prov)


JOBS = {"gold": gold_job, "bws_gold": bws_gold_job}

run(snakemake, JOBS[snakemake.rule])
