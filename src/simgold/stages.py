"""Which datasets (and dataset x model pairs) go through which stage of the workflow, and the
files a run makes from that (``all_targets``, each report page's ``report_figures``).

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
    when it names none). Not a contextual model on a two-context dataset: it is scored with each
    word's vector in its context, and the check adds noise to the words' own vectors, so its curve
    would not start at the score the report shows."""
    from .models import scored_in_context

    noise = config["noise"]
    models = noise["models"] if "models" in noise else config["models"]
    datasets = noise["datasets"] if "datasets" in noise else config["datasets"]
    return [
        (d, m)
        for d, m in scored
        if d in gold_scored
        and m in models
        and d in datasets
        and not scored_in_context(config["datasets"][d]["kind"], config["models"][m])
    ]


# -------------------------------------------------------------------------------- what a run makes

#: the tables the clean stage writes for each dataset
CLEAN_TABLES = ["items", "ratings", "means", "rankings", "rejects", "summary"]


def all_targets(routing: Stages) -> list[str]:
    """Every file the workflow makes (rule ``all``; the archive takes them all): the intermediate
    tables too, since every table is a result."""
    return _clean_and_agreement_targets(routing) + _score_targets(routing) + _report_targets(routing)


def _clean_and_agreement_targets(routing: Stages) -> list[str]:
    rated, ranked, cleaned = routing.rated, routing.ranked, routing.cleaned
    out = [f"results/clean/{d}/{table}.parquet" for d in cleaned for table in CLEAN_TABLES]
    out.append("results/clean/summary.parquet")
    agreement_files = ("agreement.parquet", "raters.parquet")
    out += [f"results/agreement/{d}/{f}" for d in rated + ranked for f in agreement_files]
    out += [f"results/calibrate/{d}/{table}.parquet" for d in rated for table in ("ratings", "raters")]
    out += [f"results/agreement/{d}/ratings.parquet" for d in rated]
    out += [f"results/agreement/{d}/rankings.parquet" for d in ranked]
    out += [f"results/agreement/{d}/{table}.parquet" for d in rated for table in ("agreement_ci", "alpha")]
    out += [f"results/reliability/{d}/{f}" for d in rated for f in ("summary.parquet", "curve.parquet")]
    out += [f"results/audit/{d}.parquet" for d in cleaned]
    gold_files = ("gold.parquet", "distribution.parquet")
    out += [f"results/gold/{d}/{f}" for d in cleaned for f in gold_files]
    out += [f"results/translate/{d}/{table}.parquet" for d in routing.translated for table in ("items", "dropped")]
    return out + ["results/translate/crosslingual.parquet", "results/translate/crosslingual_correlations.parquet"]


def _score_targets(routing: Stages) -> list[str]:
    scored, scored_by = routing.scored, sorted(routing.scored_by)
    out = [f"results/scores/{d}/{m}/{table}.parquet" for d, m in scored for table in ("predictions", "scores")]
    out += [f"results/scores/{d}/{table}.parquet" for d in scored_by for table in ("model_differences", "msd")]
    out += [f"results/embeddings/{m}.parquet" for m in routing.models]
    out += [f"results/comparisons/{d}.{ext}" for d in routing.compared for ext in ("parquet", "ag.txt")]
    out += ["results/scores/summary.parquet"] if scored else []
    out += [f"results/context/{d}/{table}.parquet" for d in routing.context for table in ("tests", "summary")]
    out += [f"results/scores/{d}/{m}/cosimlex.parquet" for d, m in routing.cosimlex]
    return out + (["results/scores/cosimlex_summary.parquet"] if routing.cosimlex else [])


def _report_targets(routing: Stages) -> list[str]:
    out = [f"results/noise/{d}/{m}.parquet" for d, m in routing.noised]
    out += [f"results/report/{d}/index.html" for d in routing.datasets]
    out += [figures_directory(d) for d in routing.datasets]  # the figures each page shows, drawn by its job
    out += ["results/report/index.html", "results/report/summary.tsv"]
    if routing.scored:
        out += ["results/scores/wide.tsv"] + [f"results/scores/json/{m}/{d}.json" for d, m in routing.scored]
    return out


def figures_directory(dataset: str) -> str:
    """Where a dataset's report job writes the figures its page shows (one job draws them all:
    matplotlib is loaded once per dataset, not once per figure or per stage)."""
    return f"results/report/{dataset}/figures"


def report_figures(routing: Stages, dataset: str) -> list[tuple[str, str]]:
    """(path, caption) of every figure a dataset's report page shows (embedded in the page), in
    page order; each file is named for its figure (``scores.png``, ``raters.png``, ...)."""
    d, figures = dataset, []
    if d in routing.scored_by:
        figures.append(("scores", "Model scores with 95% bootstrap CIs and the human ceiling"))
    if any(noised == d for noised, _ in routing.noised):
        figures.append(("noise", "Noise sanity check: mean Spearman as noise is added (2.5-97.5 percentile band)"))
    if d in routing.context:
        figures.append(("context", "Mean similarity of each pair in its two contexts"))
    if d in routing.rated or d in routing.ranked:
        figures.append(("raters", "Agreement of each rater (pairwise and with the item means)"))
    if d in routing.rated:
        caption = (
            "How many raters are enough: expected reliability of the item means against the raters per item "
            "(Spearman-Brown from split halves; band: 95% of the splits); the dashed lines at 0.8 and 0.9 "
            "and the dotted lines at the raters each needs"
        )
        figures.append(("reliability", caption))
    if d in routing.cleaned:
        figures.append(("distribution", "Gold scores: items per bin, SD and RSD by score"))
    return [(f"{figures_directory(d)}/{name}.png", caption) for name, caption in figures]


def finished_message(routing: Stages) -> str:
    """The last lines of a run: where the answer is."""
    lines = ["", "simgold: finished. The results:"]
    lines.append(
        "  report   results/report/index.html (open it in a browser; or: snakemake --report results/report.html)"
    )
    if routing.scored:
        lines.append("  scores   results/scores/wide.tsv (dataset x model), results/report/summary.tsv (every metric)")
    lines.append("  in the terminal: simgold scores, simgold agreement; for a paper: snakemake --cores 8 archive")
    return "\n".join(lines)
