# Shared, side-effect-free parse-time code: config validation and input functions.
import re

from simgold.config import SCHEMA_PATH, check_config, dataset_input_files

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure.
validate(config, SCHEMA_PATH)
CONFIG = check_config(config)
DATASETS = sorted(CONFIG["datasets"])


wildcard_constraints:
    dataset="|".join(re.escape(d) for d in DATASETS),


CLEAN_TABLES = ["items", "ratings", "means", "rankings", "rejects", "summary"]


def dataset_spec(wildcards):
    return CONFIG["datasets"][wildcards.dataset]


def dataset_sources(wildcards):
    return dataset_input_files(CONFIG["datasets"][wildcards.dataset])


def all_targets():
    return expand("results/clean/{dataset}/{table}.parquet", dataset=DATASETS, table=CLEAN_TABLES) + [
        "results/clean/summary.parquet"
    ]
