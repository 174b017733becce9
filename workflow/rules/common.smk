# Shared, side-effect-free parse-time code: config validation and input functions.
import os
import re
import sys

from simgold.io.config import (
    card_input_files,
    check_config,
    dataset_input_files,
    embedding_mem_mb as model_mem_mb,
    translation_files,
)
from simgold.io.labels import confidence_label
from simgold.io.paths import CLEAN_TABLES, RESULTS, release_files, result
from simgold.workflow.routing import (
    RELEASE_LOG,
    all_targets,
    release_outputs,
    release_rule,
    released_and_scored,
    unscored_warning,
    gold_standard_file,
    report_figures,
    scored_models,
    stages,
)

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure. The
# resolved CONFIG carries the schema's defaults: rules read it, never the raw `config`.
CONFIG = check_config(config)
NOISE = CONFIG["noise"]
# the CIs' level as the report's captions say it ("95%")
CI_LEVEL = confidence_label(CONFIG["scoring"]["confidence"])
# which datasets (and dataset x model pairs) go through which stage: simgold.workflow.routing
STAGES = stages(CONFIG)
DATASETS, MODELS, CLEANED, COMPARED = STAGES.datasets, STAGES.models, STAGES.cleaned, STAGES.compared
RATED, RANKED, CONTEXT_DATASETS, TRANSLATED = STAGES.rated, STAGES.ranked, STAGES.context, STAGES.translated
GROUPS, MODEL_DATASETS, SCORED, SCORED_BY = STAGES.groups, STAGES.model_datasets, STAGES.scored, STAGES.scored_by
GOLD_SCORED, COSIMLEX, NOISED = STAGES.gold_scored, STAGES.cosimlex, STAGES.noised
SCORED_MODELS = scored_models(STAGES)
RELEASED = STAGES.released
IN_CONTEXT = set(STAGES.in_context)
BWS = STAGES.bws


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


def calibrate_inputs(wildcards):
    """The cleaned ratings; and the items, whose anchor column marks the anchors calibration
    leaves out of its parameters, where the dataset has anchors (simgold.stages.controls)."""
    d = wildcards.dataset
    inputs = {"ratings": result("clean", dataset=d, table="ratings")}
    if "anchors" in CONFIG["datasets"][d]:
        inputs["item_table"] = result("clean", dataset=d, table="items")
    return inputs


def attention_inputs(wildcards):
    """The ledger, whose attention_check rows the raters table counts, where the dataset has
    attention checks (simgold.stages.controls)."""
    d = wildcards.dataset
    if "attention" not in CONFIG["datasets"][d]:
        return {}
    return {"rejects": result("clean", dataset=d, table="rejects")}


def gold_inputs(wildcards):
    """What the gold standard is made from: filtered ratings, filtered rankings, or shipped means."""
    d = wildcards.dataset
    inputs = {
        "item_table": result("clean", dataset=d, table="items"),
        "means": result("clean", dataset=d, table="means"),
    }
    if d in RATED:
        inputs["ratings"] = result("agreement_ratings", dataset=d)
    elif d in RANKED:
        inputs["rankings"] = result("agreement_rankings", dataset=d)
    return inputs


def translate_inputs(wildcards):
    ds = CONFIG["datasets"][wildcards.dataset]
    inputs = {
        "item_table": result("clean", dataset=wildcards.dataset, table="items"),
        "source_items": result("clean", dataset=ds["translation_of"], table="items"),
        "files": translation_files(ds),
    }
    if ds["translation"]["by"] == "row":  # to check that the rows really are in the source's order
        inputs["gold"] = result("gold", dataset=wildcards.dataset)
        inputs["source_gold"] = result("gold", dataset=ds["translation_of"])
    return inputs


def crosslingual_inputs(wildcards):
    members = sorted(set(GROUPS) | set(TRANSLATED))
    return {
        "root_items": [result("clean", dataset=d, table="items") for d in sorted(GROUPS)],
        "links": [result("translate_items", dataset=d) for d in TRANSLATED],
        "gold": [result("gold", dataset=d) for d in members],
    }


def model_spec(wildcards):
    return CONFIG["models"][wildcards.model]


def words_source(d):
    """The table whose words a model needs for dataset d."""
    if CONFIG["datasets"][d]["kind"] == "comparisons":
        return result("comparisons", dataset=d)
    return result("clean", dataset=d, table="items")


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
        return {"rankings": result("agreement_rankings", dataset=d)}
    return {"item_table": result("clean", dataset=d, table="items"), "ratings": result("agreement_ratings", dataset=d)}


def score_inputs(wildcards):
    d = wildcards.dataset
    inputs = {"embeddings": result("embeddings", model=wildcards.model), "pairs": words_source(d)}
    if d in GOLD_SCORED:
        inputs["gold"] = result("gold", dataset=d)
    if d in COMPARED:
        inputs["comparisons"] = result("comparisons", dataset=d)
    if (d, wildcards.model) in IN_CONTEXT:
        inputs["context_vectors"] = result("context_vectors", dataset=d, model=wildcards.model)
    if d in BWS:  # the MaxDiff accuracy: the model answers each tuple
        inputs["answers"] = result("agreement_answers", dataset=d)
    if d in RATED or d in RANKED:
        inputs["agreement"] = result("agreement", dataset=d)
        inputs["raters"] = result("agreement_raters", dataset=d)
    return inputs


def context_inputs(wildcards):
    d = wildcards.dataset
    inputs = {
        "item_table": result("clean", dataset=d, table="items"),
        "means": result("clean", dataset=d, table="means"),
    }
    if d in RATED:
        inputs["ratings"] = result("agreement_ratings", dataset=d)
    return inputs


def released(d):
    """Every file of a dataset's release folder: its data, card and metadata, and the scores beside them."""
    return release_outputs(STAGES, d)


def report_inputs(wildcards):
    """Everything a dataset's report page shows, its figures' tables included."""
    d = wildcards.dataset
    inputs = {
        "scores": [result("scores", dataset=d, model=m) for m in SCORED_BY.get(d, [])],
        "noise": [result("noise", dataset=d, model=m) for dd, m in NOISED if dd == d],
    }
    if d in RELEASED:
        inputs["release"] = released(d)
    if d in CLEANED:
        inputs["clean"] = result("clean", dataset=d, table="summary")
        inputs["rejects"] = result("clean", dataset=d, table="rejects")
        inputs["audit"] = result("audit", dataset=d)
        inputs["gold"] = result("gold", dataset=d)
        inputs["distribution"] = result("gold_distribution", dataset=d)
    if d in RATED or d in RANKED:
        inputs["agreement"] = result("agreement", dataset=d)
        inputs["raters"] = result("agreement_raters", dataset=d)
    if d in RATED:
        inputs["agreement_ci"] = result("agreement_ci", dataset=d)
        inputs["alpha"] = result("agreement_alpha", dataset=d)
        inputs["icc"] = result("agreement_icc", dataset=d)
        inputs["retest"] = result("agreement_retest", dataset=d)
        inputs["reliability"] = result("reliability", dataset=d)
        inputs["curve"] = result("reliability_curve", dataset=d)
    if d in SCORED_BY:
        inputs["differences"] = result("model_differences", dataset=d)
        inputs["msd"] = result("msd", dataset=d)
    if d in CONTEXT_DATASETS:
        inputs["context"] = result("context_tests", dataset=d)
    if d in BWS:  # split-half reliability, the raters' agreement, both scores of the pairs and their words
        inputs["bws_reliability"] = result("bws_reliability", dataset=d)
        inputs["raters"] = result("agreement_raters", dataset=d)
        inputs["bws_scores"] = result("bws_scores", dataset=d)
        inputs["item_table"] = result("clean", dataset=d, table="items")  # "items" is snakemake's
    return inputs


def release_inputs(wildcards):
    """The tables a dataset's release is made from (simgold.report.release), and its raw files."""
    d = wildcards.dataset
    inputs = {"sources": dataset_sources(wildcards)}
    if card := card_input_files(CONFIG["datasets"][d]):  # the authors' prose: an edit remakes the card
        inputs["card_file"] = card
    if d in CLEANED:
        inputs["item_table"] = result("clean", dataset=d, table="items")  # "items" is snakemake's
        inputs["clean"] = result("clean", dataset=d, table="summary")
        inputs["gold"] = result("gold", dataset=d)
        inputs["distribution"] = result("gold_distribution", dataset=d)
        inputs["audit"] = result("audit", dataset=d)
        inputs["rejects"] = result("clean", dataset=d, table="rejects")  # why an item has no score, who stopped early
        inputs["repeats"] = result("clean", dataset=d, table="repeats")  # the pair of each repeated row
    if d in RATED or d in RANKED:
        inputs["agreement"] = result("agreement", dataset=d)
        inputs["raters"] = result("agreement_raters", dataset=d)
    if d in RATED:
        inputs["agreement_ci"] = result("agreement_ci", dataset=d)
        inputs["calibration"] = result("calibrate_raters", dataset=d)
        inputs["reliability"] = result("reliability", dataset=d)
        inputs["retest"] = result("agreement_retest", dataset=d)
    if CONFIG["datasets"][d]["kind"] in ("rankings", "comparisons"):  # a ratings dataset's gold is its scores
        inputs["comparisons"] = result("comparisons", dataset=d)
    if d in BWS:  # the design and split-half reliability, the raters, both scores, and the answers released
        inputs["bws_reliability"] = result("bws_reliability", dataset=d)
        inputs["raters"] = result("agreement_raters", dataset=d)
        inputs["bws_scores"] = result("bws_scores", dataset=d)
        inputs["answers"] = result("agreement_answers", dataset=d)
    return inputs


def difference_inputs(wildcards):
    d = wildcards.dataset
    models = [m for dd, m in SCORED if dd == d]
    inputs = {
        "predictions": [result("predictions", dataset=d, model=m) for m in models],
        "scores": [result("scores", dataset=d, model=m) for m in models],
    }
    if d in GOLD_SCORED:
        inputs["gold"] = result("gold", dataset=d)
    return inputs


# the cleaned tables the audit reads, by input name ("items" is a name snakemake keeps for itself)
AUDITED_TABLES = {"item_table": "items", "ratings": "ratings", "means": "means", "rejects": "rejects"}


def audit_inputs(wildcards):
    """The cleaned tables of a dataset; and of its source, for a translation that carries the
    source's scores beside the source's words."""
    d = wildcards.dataset
    inputs = {key: result("clean", dataset=d, table=table) for key, table in AUDITED_TABLES.items()}
    ds = CONFIG["datasets"][d]
    source = ds["translation_of"] if "source_words" in ds.get("translation", {}) else None
    if source:
        inputs["source_items"] = result("clean", dataset=source, table="items")
        inputs["source_means"] = result("clean", dataset=source, table="means")
    return inputs


# the workflow's own directory (this checkout, or the one a module deployment points to): the
# archive takes the workflow's code from here, and the run's results from the working directory
WORKFLOW_DIR = os.path.normpath(os.path.join(str(workflow.current_basedir), "..", ".."))
