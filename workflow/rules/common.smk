# Shared, side-effect-free parse-time code: config validation and input functions.
import os
import re
import sys

from simgold.config import (
    check_config,
    dataset_input_files,
    embedding_mem_mb as model_mem_mb,
    has_comparisons,
    has_ratings,
    is_contextual,
    model_languages,
    translation_files,
    translation_root,
)

# The JSON schema first (unknown keys, types), then what a schema cannot say (files exist,
# ISO codes, scale order, layout keys); both name the dataset and the key on failure. The
# resolved CONFIG carries the schema's defaults: rules read it, never the raw `config`.
CONFIG = check_config(config)
DATASETS = sorted(CONFIG["datasets"])
# ag-evaluation files go straight to the comparisons stage; every other dataset is cleaned
CLEANED = [d for d in DATASETS if CONFIG["datasets"][d]["kind"] != "comparisons"]
COMPARED = [d for d in DATASETS if has_comparisons(CONFIG["datasets"][d])]
MODELS = sorted(CONFIG["models"])
# each model scores the datasets of its languages
MODEL_DATASETS = {
    m: [d for d in DATASETS if CONFIG["datasets"][d]["language"] in model_languages(CONFIG["models"][m])]
    for m in MODELS
}
SCORED = [(d, m) for m in MODELS for d in MODEL_DATASETS[m]]
SCORED_BY = {d: sorted(m for dd, m in SCORED if dd == d) for d in sorted({d for d, _ in SCORED})}
# two-context datasets get context significance, and the CoSimLex metrics for every model
CONTEXT_DATASETS = [d for d in DATASETS if CONFIG["datasets"][d]["kind"] == "contexts"]
COSIMLEX = [(d, m) for d, m in SCORED if d in CONTEXT_DATASETS]
# the noise sanity check: models and datasets with a gold standard, as the config restricts them
NOISE = CONFIG["noise"]
# datasets whose gold standard a model's similarities are correlated with
GOLD_SCORED = {d for d in CLEANED if CONFIG["datasets"][d]["kind"] != "rankings"}
NOISED = [
    (d, m)
    for d, m in SCORED
    if d in GOLD_SCORED and m in NOISE.get("models", MODELS) and d in NOISE.get("datasets", DATASETS)
]
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
    model=alternatives(MODELS),


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
    """Everything a dataset's report page shows."""
    d = wildcards.dataset
    inputs = {
        "scores": [f"results/scores/{d}/{m}/scores.parquet" for m in SCORED_BY.get(d, [])],
        "figures": [path for path, _ in report_figures(d)],
    }
    if d in CLEANED:
        inputs["clean"] = f"results/clean/{d}/summary.parquet"
        inputs["audit"] = f"results/audit/{d}.parquet"
    if d in RATED or d in RANKED:
        inputs["agreement"] = f"results/agreement/{d}/agreement.parquet"
    if d in RATED:
        inputs["agreement_ci"] = f"results/agreement/{d}/agreement_ci.parquet"
        inputs["alpha"] = f"results/agreement/{d}/alpha.parquet"
        inputs["reliability"] = f"results/reliability/{d}/summary.parquet"
    if d in SCORED_BY:
        inputs["differences"] = f"results/scores/{d}/model_differences.parquet"
        inputs["msd"] = f"results/scores/{d}/msd.parquet"
    if d in CONTEXT_DATASETS:
        inputs["context"] = f"results/context/{d}/tests.parquet"
    return inputs


def report_figures(d):
    """(path, caption) of every figure a dataset's page shows (embedded in the page)."""
    figures = []
    if d in SCORED_BY:
        figures.append((f"results/report/{d}/scores.png", "Model scores with 95% bootstrap CIs and the human ceiling"))
    if any(dd == d for dd, _ in NOISED):
        figures.append(
            (
                f"results/report/{d}/noise.png",
                "Noise sanity check: mean Spearman as noise is added (2.5-97.5 percentile band)",
            )
        )
    if d in CONTEXT_DATASETS:
        figures.append((f"results/report/{d}/context.png", "Mean similarity of each pair in its two contexts"))
    if d in RATED or d in RANKED:
        figures.append(
            (f"results/agreement/{d}/raters.png", "Agreement of each rater (pairwise and with the item means)")
        )
    if d in RATED:
        figures.append(
            (
                f"results/reliability/{d}/curve.png",
                "How many raters are enough: expected reliability of the item means against the raters per item "
                "(Spearman-Brown from split halves; band: 95% of the splits); the dashed lines at 0.8 and 0.9 "
                "and the dotted lines at the raters each needs",
            )
        )
    if d in CLEANED:
        figures.append((f"results/gold/{d}/distribution.png", "Gold scores: items per bin, SD and RSD by score"))
    return figures


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


def all_targets():
    clean = expand("results/clean/{dataset}/{table}.parquet", dataset=CLEANED, table=CLEAN_TABLES)
    agreement = expand(
        "results/agreement/{dataset}/{file}",
        dataset=RATED + RANKED,
        file=["agreement.parquet", "raters.parquet", "raters.png"],
    )
    # the intermediate tables too: every table the workflow makes is a result (and goes into the archive)
    agreement += expand("results/calibrate/{dataset}/{table}.parquet", dataset=RATED, table=["ratings", "raters"])
    agreement += expand("results/agreement/{dataset}/ratings.parquet", dataset=RATED)
    agreement += expand("results/agreement/{dataset}/rankings.parquet", dataset=RANKED)
    agreement += expand("results/agreement/{dataset}/{table}.parquet", dataset=RATED, table=["agreement_ci", "alpha"])
    agreement += expand(
        "results/reliability/{dataset}/{file}", dataset=RATED, file=["summary.parquet", "curve.parquet", "curve.png"]
    )
    agreement += expand("results/audit/{dataset}.parquet", dataset=CLEANED)
    gold = expand(
        "results/gold/{dataset}/{file}",
        dataset=CLEANED,
        file=["gold.parquet", "distribution.parquet", "distribution.png"],
    )
    translate = expand(
        "results/translate/{dataset}/{table}.parquet", dataset=TRANSLATED, table=["items", "dropped"]
    ) + ["results/translate/crosslingual.parquet", "results/translate/crosslingual_correlations.parquet"]
    scores = [f"results/scores/{d}/{m}/{t}.parquet" for d, m in SCORED for t in ("predictions", "scores")]
    scores += expand(
        "results/scores/{dataset}/{table}.parquet", dataset=sorted(SCORED_BY), table=["model_differences", "msd"]
    )
    scores += expand("results/embeddings/{model}.parquet", model=MODELS)
    scores += expand("results/comparisons/{dataset}.{ext}", dataset=COMPARED, ext=["parquet", "ag.txt"])
    scores += ["results/scores/summary.parquet"] if SCORED else []
    context = expand("results/context/{dataset}/{table}.parquet", dataset=CONTEXT_DATASETS, table=["tests", "summary"])
    context += [f"results/scores/{d}/{m}/cosimlex.parquet" for d, m in COSIMLEX]
    context += ["results/scores/cosimlex_summary.parquet"] if COSIMLEX else []
    scores += context
    report_files = [f"results/noise/{d}/{m}.parquet" for d, m in NOISED]
    report_files += expand("results/report/{dataset}/index.html", dataset=DATASETS)
    report_files += [path for d in DATASETS for path, _ in report_figures(d)]
    report_files += ["results/report/index.html", "results/report/summary.tsv"]
    if SCORED:
        report_files += ["results/scores/wide.tsv"] + [f"results/scores/json/{m}/{d}.json" for d, m in SCORED]
    scores += report_files
    return clean + ["results/clean/summary.parquet"] + agreement + gold + translate + scores


# the workflow's own directory (this checkout, or the one a module deployment points to): the
# archive takes the workflow's code from here, and the run's results from the working directory
WORKFLOW_DIR = os.path.normpath(os.path.join(str(workflow.current_basedir), "..", ".."))


def finished_message():
    """The last lines of a run: where the answer is."""
    lines = ["", "simgold: finished. The results:"]
    lines.append(
        "  report   results/report/index.html (open it in a browser; or: snakemake --report results/report.html)"
    )
    if SCORED:
        lines.append("  scores   results/scores/wide.tsv (dataset x model), results/report/summary.tsv (every metric)")
    lines.append("  in the terminal: simgold scores, simgold agreement; for a paper: snakemake --cores 8 archive")
    return "\n".join(lines)
