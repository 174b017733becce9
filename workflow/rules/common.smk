# Shared, side-effect-free parse-time code: config validation and input functions.
import re

from simgold.config import SCHEMA_PATH, check_config, dataset_input_files, has_ratings

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure.
validate(config, SCHEMA_PATH)
CONFIG = check_config(config)
DATASETS = sorted(CONFIG["datasets"])
# datasets with per-rater scores go through calibration and agreement; rankings through agreement
RATED = [d for d in DATASETS if has_ratings(CONFIG["datasets"][d])]
RANKED = [d for d in DATASETS if CONFIG["datasets"][d]["kind"] == "rankings"]


def alternatives(names):
    return "|".join(re.escape(n) for n in names) or "(?!)"


wildcard_constraints:
    dataset=alternatives(DATASETS),


CLEAN_TABLES = ["items", "ratings", "means", "rankings", "rejects", "summary"]


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


def all_targets():
    clean = expand("results/clean/{dataset}/{table}.parquet", dataset=DATASETS, table=CLEAN_TABLES)
    agreement = expand(
        "results/agreement/{dataset}/{file}",
        dataset=RATED + RANKED,
        file=["agreement.parquet", "raters.parquet", "raters.png"],
    )
    gold = expand(
        "results/gold/{dataset}/{file}",
        dataset=DATASETS,
        file=["gold.parquet", "distribution.parquet", "distribution.png"],
    )
    return clean + ["results/clean/summary.parquet"] + agreement + gold
