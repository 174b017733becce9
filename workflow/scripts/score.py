"""Score one model on one dataset: predictions, correlations and the A&G score with bootstrap CIs."""

from simgold.models import scored_in_context
from simgold.scoring import ScoringSettings, Vectors, score_dataset
from simgold.tables import read_parquet, read_provenance, write_parquet
from simgold.workflow import provenance_for, run


def main(snakemake, log):
    name, model_name, model = snakemake.wildcards.dataset, snakemake.wildcards.model, snakemake.params.model
    keys = snakemake.input.keys()
    mean = read_provenance(snakemake.input.embeddings).get("mean_vector")
    vectors = Vectors(read_parquet(snakemake.input.embeddings), model["lowercase"], model["oov"], mean)
    pred = None
    if scored_in_context(snakemake.params.kind, model):  # each word's vector from its context
        from simgold.in_context import in_context_predictions
        from simgold.minilm import get_model

        encoder = get_model()  # its vectors are computed once per context and span (simgold.vectorcache)
        items = read_parquet(snakemake.input.item_table)
        store = encoder.store("in-context", log.info)
        pred = in_context_predictions(name, model_name, items, encoder, store=store, log=log.info)
    pred, scores = score_dataset(
        name,
        model_name,
        snakemake.params.kind,
        read_parquet(snakemake.input.pairs),
        vectors,
        gold=read_parquet(snakemake.input.gold) if "gold" in keys else None,
        comparisons=read_parquet(snakemake.input.comparisons) if "comparisons" in keys else None,
        agreement=read_parquet(snakemake.input.agreement) if "agreement" in keys else None,
        scoring=ScoringSettings(**snakemake.params.scoring),
        pred=pred,
    )
    log.info("\n%s", scores.to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(pred, snakemake.output.predictions, table="predictions", provenance=prov)
    write_parquet(scores, snakemake.output.scores, table="scores", provenance=prov)


run(snakemake, main)
