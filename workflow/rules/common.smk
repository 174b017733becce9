# Shared, side-effect-free parse-time code: config validation and input functions.
import os
import re
import sys

from simgold.config import (
    check_config,
    dataset_input_files,
    embedding_mem_mb as model_mem_mb,
    translation_files,
)
from simgold.stages import CLEAN_TABLES, all_targets, finished_message, report_figures, stages

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure. The
# resolved CONFIG carries the schema's defaults: rules read it, never the raw `config`.
CONFIG = check_config(config)
NOISE = CONFIG["noise"]
# which datasets (and dataset x model pairs) go through which stage: simgold.stages
STAGES = stages(CONFIG)
DATASETS, MODELS, CLEANED, COMPARED = STAGES.datasets, STAGES.models, STAGES.cleaned, STAGES.compared
RATED, RANKED, CONTEXT_DATASETS, TRANSLATED = STAGES.rated, STAGES.ranked, STAGES.context, STAGES.translated
GROUPS, MODEL_DATASETS, SCORED, SCORED_BY = STAGES.groups, STAGES.model_datasets, STAGES.scored, STAGES.scored_by
GOLD_SCORED, COSIMLEX, NOISED = STAGES.gold_scored, STAGES.cosimlex, STAGES.noised


def alternatives(names):
    return "|".join(re.escape(n) for n in names) or "(?!)"


wildcard_constraints:
    dataset=alternatives(DATASETS),
    model=alternatives(MODELS),


def dataset_spec(wildcards):
    return CONFIG["datasets"][wildcards.dataset]


def dataset_param(key):
    """A params function: one key of the dataset's resolved config."""
    return lambda wildcards: CONFIG["datasets"][wildcards.dataset].get(key)


def dataset_sources(wildcards):
    return dataset_input_files(CONFIG["datasets"][wildcards.dataset])


def gold_inputs(wildcards):
    """What the gold standard is made from: filtered ratings, filtered rankings, or shipped means."""
    d = wildcards.dataset
    inputs = {"item_table": f"results/clean/{d}/items.parquet", "means": f"results/clean/{d}/means.parquet"}
    if d in RATED:
        inputs["ratings"] = f"results/agreement/{d}/ratings.parquet"
    elif d in RANKED:
        inputs["rankings"] = f"results/agreement/{d}/rankings.parquet"
    return inputs


def translate_inputs(wildcards):
    ds = CONFIG["datasets"][wildcards.dataset]
    inputs = {
        "item_table": f"results/clean/{wildcards.dataset}/items.parquet",
        "source_items": f"results/clean/{ds['translation_of']}/items.parquet",
        "files": translation_files(ds),
    }
    if ds["translation"]["by"] == "row":  # to check that the rows really are in the source's order
        inputs["gold"] = f"results/gold/{wildcards.dataset}/gold.parquet"
        inputs["source_gold"] = f"results/gold/{ds['translation_of']}/gold.parquet"
    return inputs


def crosslingual_inputs(wildcards):
    members = sorted(set(GROUPS) | set(TRANSLATED))
    return {
        "root_items": expand("results/clean/{dataset}/items.parquet", dataset=sorted(GROUPS)),
        "links": expand("results/translate/{dataset}/items.parquet", dataset=TRANSLATED),
        "gold": expand("results/gold/{dataset}/gold.parquet", dataset=members),
    }


def model_spec(wildcards):
    return CONFIG["models"][wildcards.model]


def words_source(d):
    """The table whose words a model needs for dataset d."""
    if CONFIG["datasets"][d]["kind"] == "comparisons":
        return f"results/comparisons/{d}.parquet"
    return f"results/clean/{d}/items.parquet"


def embedding_inputs(wildcards):
    model = CONFIG["models"][wildcards.model]
    inputs = {"words": [words_source(d) for d in MODEL_DATASETS[wildcards.model]]}
    if "path" in model:
        inputs["vectors"] = model["path"]
    return inputs


def embedding_mem_mb(wildcards):
    """In proportion to the model's file: streamed text needs little, whole loads about twice it."""
    return model_mem_mb(CONFIG["models"][wildcards.model])


def comparison_inputs(wildcards):
    d = wildcards.dataset
    ds = CONFIG["datasets"][d]
    if ds["kind"] == "comparisons":
        return {"ag": dataset_input_files(ds)}
    if ds["kind"] == "rankings":
        return {"rankings": f"results/agreement/{d}/rankings.parquet"}
    return {"item_table": f"results/clean/{d}/items.parquet", "ratings": f"results/agreement/{d}/ratings.parquet"}


def score_inputs(wildcards):
    d = wildcards.dataset
    inputs = {"embeddings": f"results/embeddings/{wildcards.model}.parquet", "pairs": words_source(d)}
    if d in GOLD_SCORED:
        inputs["gold"] = f"results/gold/{d}/gold.parquet"
    if d in COMPARED:
        inputs["comparisons"] = f"results/comparisons/{d}.parquet"
    if d in CONTEXT_DATASETS:  # an in-context model reads each item's context
        inputs["item_table"] = f"results/clean/{d}/items.parquet"
    if d in RATED or d in RANKED:
        inputs["agreement"] = f"results/agreement/{d}/agreement.parquet"
    return inputs


def context_inputs(wildcards):
    d = wildcards.dataset
    inputs = {"item_table": f"results/clean/{d}/items.parquet", "means": f"results/clean/{d}/means.parquet"}
    if d in RATED:
        inputs["ratings"] = f"results/agreement/{d}/ratings.parquet"
    return inputs


def report_inputs(wildcards):
    """Everything a dataset's report page shows, its figures' tables included."""
    d = wildcards.dataset
    inputs = {
        "scores": [f"results/scores/{d}/{m}/scores.parquet" for m in SCORED_BY.get(d, [])],
        "noise": [f"results/noise/{d}/{m}.parquet" for dd, m in NOISED if dd == d],
    }
    if d in CLEANED:
        inputs["clean"] = f"results/clean/{d}/summary.parquet"
        inputs["audit"] = f"results/audit/{d}.parquet"
        inputs["gold"] = f"results/gold/{d}/gold.parquet"
        inputs["distribution"] = f"results/gold/{d}/distribution.parquet"
    if d in RATED or d in RANKED:
        inputs["agreement"] = f"results/agreement/{d}/agreement.parquet"
        inputs["raters"] = f"results/agreement/{d}/raters.parquet"
    if d in RATED:
        inputs["agreement_ci"] = f"results/agreement/{d}/agreement_ci.parquet"
        inputs["alpha"] = f"results/agreement/{d}/alpha.parquet"
        inputs["reliability"] = f"results/reliability/{d}/summary.parquet"
        inputs["curve"] = f"results/reliability/{d}/curve.parquet"
    if d in SCORED_BY:
        inputs["differences"] = f"results/scores/{d}/model_differences.parquet"
        inputs["msd"] = f"results/scores/{d}/msd.parquet"
    if d in CONTEXT_DATASETS:
        inputs["context"] = f"results/context/{d}/tests.parquet"
    return inputs


def difference_inputs(wildcards):
    d = wildcards.dataset
    models = [m for dd, m in SCORED if dd == d]
    inputs = {
        "predictions": [f"results/scores/{d}/{m}/predictions.parquet" for m in models],
        "scores": [f"results/scores/{d}/{m}/scores.parquet" for m in models],
    }
    if d in GOLD_SCORED:
        inputs["gold"] = f"results/gold/{d}/gold.parquet"
    return inputs


# the cleaned tables the audit reads, by input name ("items" is a name snakemake keeps for itself)
AUDITED_TABLES = {"item_table": "items", "ratings": "ratings", "means": "means", "rejects": "rejects"}


def audit_inputs(wildcards):
    """The cleaned tables of a dataset; and of its source, for a translation that carries the
    source's scores beside the source's words."""
    d = wildcards.dataset
    inputs = {key: f"results/clean/{d}/{table}.parquet" for key, table in AUDITED_TABLES.items()}
    ds = CONFIG["datasets"][d]
    source = ds["translation_of"] if "source_words" in ds.get("translation", {}) else None
    if source:
        inputs["source_items"] = f"results/clean/{source}/items.parquet"
        inputs["source_means"] = f"results/clean/{source}/means.parquet"
    return inputs


# the workflow's own directory (this checkout, or the one a module deployment points to): the
# archive takes the workflow's code from here, and the run's results from the working directory
WORKFLOW_DIR = os.path.normpath(os.path.join(str(workflow.current_basedir), "..", ".."))
