"""Which datasets (and dataset x model pairs) go through which stage of the workflow.

Computed once from the resolved config (``simgold.config.check_config``); the workflow's input
functions and rules read it (``workflow/rules/common.smk``), so the routing is tested here, not
in Snakemake.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import has_comparisons, has_ratings, model_languages, translation_root


@dataclass(frozen=True)
class Stages:
    datasets: list[str]  # every dataset, sorted
    models: list[str]  # every model, sorted
    cleaned: list[str]  # read from raw files (ag-evaluation files go straight to comparisons)
    compared: list[str]  # with A&G comparisons (ag files, rankings, ratings of persistent raters)
    rated: list[str]  # with per-rater scores: calibration and agreement
    ranked: list[str]  # rankings: agreement
    context: list[str]  # two-context datasets: context significance and the CoSimLex metrics
    translated: list[str]  # translations of another dataset
    groups: dict[str, list[str]]  # translation root -> the datasets that translate it
    model_datasets: dict[str, list[str]]  # model -> the datasets of its languages
    scored: list[tuple[str, str]]  # (dataset, model) scored
    scored_by: dict[str, list[str]]  # dataset -> the models that score it
    gold_scored: set[str]  # datasets whose gold standard the similarities are correlated with
    cosimlex: list[tuple[str, str]]  # (dataset, model) with the CoSimLex metrics
    noised: list[tuple[str, str]]  # (dataset, model) with the noise sanity check


def stages(config: dict) -> Stages:
    """The stages of every dataset of a resolved config."""
    datasets = config["datasets"]
    names = sorted(datasets)
    models = sorted(config["models"])
    kinds = {d: datasets[d]["kind"] for d in names}
    cleaned = [d for d in names if kinds[d] != "comparisons"]
    model_datasets = {
        m: [d for d in names if datasets[d]["language"] in model_languages(config["models"][m])] for m in models
    }
    scored = [(d, m) for m in models for d in model_datasets[m]]
    context = [d for d in names if kinds[d] == "contexts"]
    gold_scored = {d for d in cleaned if kinds[d] != "rankings"}
    translated = [d for d in names if "translation_of" in datasets[d]]
    return Stages(
        datasets=names,
        models=models,
        cleaned=cleaned,
        compared=[d for d in names if has_comparisons(datasets[d])],
        rated=[d for d in names if has_ratings(datasets[d])],
        ranked=[d for d in names if kinds[d] == "rankings"],
        context=context,
        translated=translated,
        groups=_groups(datasets, translated),
        model_datasets=model_datasets,
        scored=scored,
        scored_by={d: sorted(m for dd, m in scored if dd == d) for d in sorted({d for d, _ in scored})},
        gold_scored=gold_scored,
        cosimlex=[(d, m) for d, m in scored if d in context],
        noised=_noised(config, scored, gold_scored),
    )


def _groups(datasets: dict, translated: list[str]) -> dict[str, list[str]]:
    """A translation group: a root dataset and every dataset that translates it (directly or in a chain)."""
    groups: dict[str, list[str]] = {}
    for d in translated:
        groups.setdefault(translation_root(datasets, d), []).append(d)
    return groups


def _noised(config: dict, scored: list[tuple[str, str]], gold_scored: set[str]) -> list[tuple[str, str]]:
    """Models and datasets with a gold standard, as the config's noise block restricts them (all
    when it names none)."""
    noise = config["noise"]
    models = noise["models"] if "models" in noise else config["models"]
    datasets = noise["datasets"] if "datasets" in noise else config["datasets"]
    return [(d, m) for d, m in scored if d in gold_scored and m in models and d in datasets]
