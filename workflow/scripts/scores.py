"""The jobs of workflow/rules/scores.smk, one function per rule (``run`` picks the rule's):

* ``embeddings``: Vectors of every word the model's datasets need: one pass over the embedding file
  (or computed once per word), and beside them what made them (simgold.io.machine).
* ``context_vectors``: A contextual model's vectors of each item's two words in its context.
* ``comparisons``: Comparisons (A&G): read from ag-evaluation files, or made from rankings or per-
  rater ratings.
* ``score``: Score one model on one dataset: predictions, correlations and the A&G score with
  bootstrap CIs.
* ``model_differences``: Paired bootstrap and Williams' test between every two models scored on the
  same dataset, and the dataset's minimum significant Spearman difference.
* ``score_summary``: One table of every dataset x model x metric, with CIs, OOV shares, the human
  ceiling and the dataset's minimum significant Spearman difference.
"""

from simgold.workflow.warm import hand_over

hand_over()  # where the run's warm worker answers, it runs this job (simgold.workflow.warm)

import itertools

import pandas as pd

from simgold.io.embeddings import load_model, write_embeddings
from simgold.io.machine import machine_json, machine_record
from simgold.io.minilm import get_model
from simgold.io.tables import TABLES, read_parquet, write_parquet
from simgold.stages.comparisons import from_rankings, from_ratings, read_ag_file, write_ag_file
from simgold.stages.in_context import context_predictions, context_vector_types, in_context_vectors
from simgold.stages.maxdiff import maxdiff_scores
from simgold.stages.msd import MSD_COLUMNS, dataset_msd, with_msd
from simgold.stages.scores import (
    DIFFERENCE_METRICS,
    ScoringSettings,
    across_datasets,
    paired_difference,
    score_dataset,
    summary,
    with_holm,
    words_of,
)
from simgold.stages.vectors import Vectors, log_load
from simgold.workflow.job import input_label, provenance_for, run, work_threads


def embeddings_job(snakemake, log):
    name, model = snakemake.wildcards.model, snakemake.params.model
    words = sorted({w for path in snakemake.input.words for w in words_of(read_parquet(path))})
    log.info("%s: %d distinct words needed by %d datasets", name, len(words), len(snakemake.input.words))
    table, report = load_model(model, words, log=log.info, threads=work_threads(snakemake))
    log_load(log, words, table, report, model["lowercase"])
    prov = provenance_for(snakemake)
    write_embeddings(table, report, snakemake.output.table, prov)
    write_machine(snakemake, model, prov)


def write_machine(snakemake, model, prov):
    """What made the vectors (model files, code, BLAS kernel, CPU): beside the table, not in it."""
    labels = [input_label(str(snakemake.input.vectors))] if "vectors" in snakemake.input.keys() else []
    files = {label: prov["inputs"][label] for label in labels}
    with open(snakemake.output.machine, "wb") as fh:
        fh.write(machine_json(machine_record(model, files)))


def context_vectors_job(snakemake, log):
    name, model_name, model = snakemake.wildcards.dataset, snakemake.wildcards.model, snakemake.params.model
    encoder = get_model()  # its vectors are computed once per context and span (simgold.io.vectorcache)
    items = read_parquet(snakemake.input.item_table)
    table = in_context_vectors(
        name, model_name, items, encoder, store=encoder.store("in-context", log.info), log=log.info
    )
    log.info(
        "%s: %d items, %d with both words found in their context", name, len(table), (table["missing"] == "").sum()
    )
    prov = provenance_for(snakemake)
    write_parquet(
        table, snakemake.output.table, table="context_vectors", provenance=prov, types=context_vector_types(table)
    )
    write_machine(snakemake, model, prov)


def comparisons_job(snakemake, log):
    name, kind = snakemake.wildcards.dataset, snakemake.params.kind
    if kind == "comparisons":
        table = pd.concat([read_ag_file(p, name) for p in snakemake.input.ag], ignore_index=True)
    elif kind == "rankings":
        table = from_rankings(name, read_parquet(snakemake.input.rankings))
    else:
        table = from_ratings(name, read_parquet(snakemake.input.item_table), read_parquet(snakemake.input.ratings))
    counts = table["type"].value_counts().to_dict()
    log.info("%s: %d comparisons over %d targets %s", name, len(table), table["target"].nunique(), counts)
    write_parquet(table, snakemake.output.table, table="comparisons", provenance=provenance_for(snakemake))
    write_ag_file(table, snakemake.output.ag)  # for the reference evaluator


def score_job(snakemake, log):
    name, model_name, model = snakemake.wildcards.dataset, snakemake.wildcards.model, snakemake.params.model
    keys = snakemake.input.keys()
    vectors = Vectors.read(snakemake.input.embeddings, model)
    pred = None
    if "context_vectors" in keys:  # a contextual model on a two-context dataset: each word's vector in its context
        pred = context_predictions(read_parquet(snakemake.input.context_vectors))
    pred, scores = score_dataset(
        name,
        model_name,
        snakemake.params.kind,
        read_parquet(snakemake.input.pairs),
        vectors,
        gold=read_parquet(snakemake.input.gold) if "gold" in keys else None,
        comparisons=read_parquet(snakemake.input.comparisons) if "comparisons" in keys else None,
        agreement=read_parquet(snakemake.input.agreement) if "agreement" in keys else None,
        raters=read_parquet(snakemake.input.raters) if "raters" in keys else None,
        scoring=(scoring := ScoringSettings(**snakemake.params.scoring)),
        pred=pred,
    )
    if "answers" in keys:  # a BWS dataset: the model answers each tuple too
        rows = maxdiff_scores(name, model_name, read_parquet(snakemake.input.answers), pred, scoring)
        scores = pd.concat([scores, pd.DataFrame(rows, columns=scores.columns)], ignore_index=True)
    log.info("\n%s", scores.to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(pred, snakemake.output.predictions, table="predictions", provenance=prov)
    write_parquet(scores, snakemake.output.scores, table="scores", provenance=prov)


COLUMNS = list(TABLES["model_differences"].names)


def model_differences_job(snakemake, log):
    name, scoring = snakemake.wildcards.dataset, snakemake.params.scoring
    rows = []
    if "gold" in snakemake.input.keys():
        gold = read_parquet(snakemake.input.gold).set_index("item_id")["mean"]
        preds = {
            p["model"].iloc[0]: p.set_index("item_id")["sim"]
            for p in map(read_parquet, snakemake.input.predictions)
            if len(p)
        }
        for a, b in itertools.combinations(sorted(preds), 2):
            items = gold.index
            for metric in DIFFERENCE_METRICS:
                rows.append(
                    paired_difference(
                        name,
                        a,
                        b,
                        gold.to_numpy(float),
                        preds[a].reindex(items).to_numpy(float),
                        preds[b].reindex(items).to_numpy(float),
                        resamples=scoring["resamples"],
                        seed=scoring["seed"],
                        confidence=scoring["confidence"],
                        metric=metric,
                        min_items=scoring["min_shared_items"],
                    )
                )
    table = with_holm(pd.DataFrame(rows, columns=COLUMNS))
    log.info(
        "\n%s", table.to_string(index=False) if len(table) else f"{name}: fewer than two models or no gold standard"
    )
    scores = pd.concat([read_parquet(p) for p in snakemake.input.scores], ignore_index=True)
    msd = dataset_msd(name, scores, table, min_coverage=scoring["msd_min_coverage"])
    log.info("minimum significant Spearman difference (p < 0.05):\n%s", msd.to_string(index=False))
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.differences, table="model_differences", provenance=prov)
    write_parquet(msd, snakemake.output.msd, table="msd", provenance=prov)


def score_summary_job(snakemake, log):
    msd = [read_parquet(p) for p in snakemake.input.msd]
    msd = pd.concat(msd, ignore_index=True) if msd else pd.DataFrame(columns=MSD_COLUMNS)
    table = with_msd(summary(pd.concat([read_parquet(p) for p in snakemake.input.scores], ignore_index=True)), msd)
    view = table[(table["subset"] == "all") & table["metric"].isin(["spearman", "ag_score"])]
    log.info(
        "\n%s",
        view[
            ["dataset", "model", "metric", "value", "ci_low", "ci_high", "oov_pairs", "human_ceiling", "msd"]
        ].to_string(index=False),
    )
    prov = provenance_for(snakemake)
    write_parquet(table, snakemake.output.summary, table="summary_scores", provenance=prov)
    differences = across_datasets([read_parquet(p) for p in snakemake.input.differences])
    shown = ["dataset", "model_a", "model_b", "metric", "difference", "williams_p", "williams_q_bh"]
    log.info("model differences across datasets (Benjamini-Hochberg q):\n%s", differences[shown].to_string(index=False))
    write_parquet(differences, snakemake.output.differences, table="differences_summary", provenance=prov)


JOBS = {
    "embeddings": embeddings_job,
    "context_vectors": context_vectors_job,
    "comparisons": comparisons_job,
    "score": score_job,
    "model_differences": model_differences_job,
    "score_summary": score_summary_job,
}

run(snakemake, JOBS[snakemake.rule])
