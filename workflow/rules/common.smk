# Shared, side-effect-free parse-time code: config validation and input functions.
import re

from simgold.config import (
    SCHEMA_PATH,
    check_config,
    dataset_input_files,
    has_ratings,
    translation_files,
    translation_root,
)

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure.
validate(config, SCHEMA_PATH)
CONFIG = check_config(config)
DATASETS = sorted(CONFIG["datasets"])
# datasets with per-rater scores go through calibration and agreement; rankings through agreement
RATED = [d for d in DATASETS if has_ratings(CONFIG["datasets"][d])]
RANKED = [d for d in DATASETS if CONFIG["datasets"][d]["kind"] == "rankings"]
TRANSLATED = [d for d in DATASETS if "translation_of" in CONFIG["datasets"][d]]
# a translation group: a root dataset and every dataset that translates it (directly or in a chain)
GROUPS = {}
for _d in TRANSLATED:
    GROUPS.setdefault(translation_root(CONFIG["datasets"], _d), []).append(_d)


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
    translate = expand(
        "results/translate/{dataset}/{table}.parquet", dataset=TRANSLATED, table=["items", "dropped"]
    ) + ["results/translate/crosslingual.parquet", "results/translate/crosslingual_correlations.parquet"]
    return clean + ["results/clean/summary.parquet"] + agreement + gold + translate
