"""Which datasets (and dataset x model pairs) go through which stage of the workflow, and the
files a run makes from that (``all_targets``, each report page's ``report_figures``).

Computed once from the resolved config (``simgold.io.config.check_config``); the workflow's input
functions and rules read it (``workflow/rules/common.smk``), so the routing is tested here, not
in Snakemake.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from simgold.io.config import has_comparisons, has_ratings, kept_out, model_languages, translation_root
from simgold.io.models import scored_in_context
from simgold.io.paths import CLEAN_TABLES, RELEASE_DATA, release_files, result
from simgold.workflow.logs import logged_warnings

__all__ = [
    "Stages",
    "stages",
    "all_targets",
    "release_outputs",
    "released_and_scored",
    "scored_models",
    "gold_standard_file",
    "figures_directory",
    "report_figures",
    "unscored_warning",
    "release_report",
    "withheld_warning",
    "archive_licence_warning",
    "asked_for",
    "datasets_of",
    "release_rule",
    "finished_message",
    "RELEASE_LOG",
    "RELEASE_RULES",
]


@dataclass(frozen=True)
class Stages:
    """Which datasets (and dataset x model pairs) go through which stage; each attribute's comment
    says what it holds.

    Attributes
    ----------
    datasets, models, cleaned, compared, rated, ranked, bws, context, translated, released : list of str
        Datasets (or models) sorted.
    groups, model_datasets, scored_by : dict of str to list of str
        Translation groups; each model's datasets; each dataset's models.
    scored, cosimlex, noised, in_context : list of (str, str)
        (dataset, model) pairs.
    gold_scored : set of str
        Datasets whose gold standard the similarities are correlated with.
    kinds : dict of str to str
        Each dataset's kind.
    """

    datasets: list[str]  # every dataset, sorted
    models: list[str]  # every model, sorted
    cleaned: list[str]  # read from raw files (ag-evaluation files go straight to comparisons)
    compared: list[str]  # with A&G comparisons (ag files, rankings, ratings of persistent raters)
    rated: list[str]  # with per-rater scores: calibration and agreement
    ranked: list[str]  # rankings: agreement
    bws: list[str]  # Best-Worst Scaling answers: split-half reliability, rater agreement, scores
    context: list[str]  # two-context datasets: context significance and the CoSimLex metrics
    translated: list[str]  # translations of another dataset
    groups: dict[str, list[str]]  # translation root -> the datasets that translate it
    model_datasets: dict[str, list[str]]  # model -> the datasets of its languages
    scored: list[tuple[str, str]]  # (dataset, model) scored
    scored_by: dict[str, list[str]]  # dataset -> the models that score it
    gold_scored: set[str]  # datasets whose gold standard the similarities are correlated with
    cosimlex: list[tuple[str, str]]  # (dataset, model) with the CoSimLex metrics
    noised: list[tuple[str, str]]  # (dataset, model) with the noise sanity check
    released: list[str]  # with a release: not the datasets whose licence keeps them out (redistribute: false)
    in_context: list[tuple[str, str]]  # (dataset, model) scored with each word's vector in its context
    kinds: dict[str, str]  # dataset -> its kind: the files of its release


def stages(config: dict) -> Stages:
    """The stages of every dataset of a resolved config.

    Parameters
    ----------
    config : dict
        The resolved config (``datasets``, ``models`` and the release settings).

    Returns
    -------
    Stages
        The dataset lists per stage (cleaned, rated, scored pairs, released, ...), all sorted.
    """
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
    in_context = [(d, m) for d, m in scored if scored_in_context(kinds[d], config["models"][m])]
    closed = kept_out(config)
    return Stages(
        datasets=names,
        models=models,
        cleaned=cleaned,
        compared=[d for d in names if has_comparisons(datasets[d])],
        rated=[d for d in names if has_ratings(datasets[d])],
        ranked=[d for d in names if kinds[d] == "rankings"],
        bws=[d for d in names if kinds[d] == "bws"],
        context=context,
        translated=translated,
        groups=_groups(datasets, translated),
        model_datasets=model_datasets,
        scored=scored,
        scored_by={d: sorted(m for dd, m in scored if dd == d) for d in sorted({d for d, _ in scored})},
        gold_scored=gold_scored,
        cosimlex=[(d, m) for d, m in scored if d in context],
        noised=_noised(config, scored, gold_scored, in_context),
        released=[d for d in names if d not in closed],
        in_context=in_context,
        kinds=kinds,
    )


def _groups(datasets: dict, translated: list[str]) -> dict[str, list[str]]:
    """A translation group: a root dataset and every dataset that translates it (directly or in a chain)."""
    groups: dict[str, list[str]] = {}
    for d in translated:
        groups.setdefault(translation_root(datasets, d), []).append(d)
    return groups


def _noised(
    config: dict, scored: list[tuple[str, str]], gold_scored: set[str], in_context: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Models and datasets with a gold standard, as the config's noise block restricts them (all
    when it names none). Not a contextual model on a two-context dataset: it is scored with each
    word's vector in its context, and the check adds noise to the words' own vectors, so its curve
    would not start at the score the report shows."""

    noise = config["noise"]
    models = noise["models"] if "models" in noise else config["models"]
    datasets = noise["datasets"] if "datasets" in noise else config["datasets"]
    return [
        (d, m) for d, m in scored if d in gold_scored and m in models and d in datasets and (d, m) not in in_context
    ]


# -------------------------------------------------------------------------------- what a run makes


def all_targets(routing: Stages) -> list[str]:
    """Every file the workflow makes (rule ``all``; the archive takes them all): the intermediate
    tables too, since every table is a result.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.

    Returns
    -------
    list[str]
        Output paths: cleaning and agreement tables, score tables, then the report's files.
    """
    return _clean_and_agreement_targets(routing) + _score_targets(routing) + _report_targets(routing)


def _clean_and_agreement_targets(routing: Stages) -> list[str]:
    rated, ranked, cleaned = routing.rated, routing.ranked, routing.cleaned
    out = [result("clean", dataset=d, table=table) for d in cleaned for table in CLEAN_TABLES]
    out.append(result("clean_summary"))
    out += _per_dataset(("agreement", "agreement_raters"), rated + ranked)
    out += _per_dataset(("calibrate_ratings", "calibrate_raters"), rated)
    out += _per_dataset(("agreement_ratings",), rated)
    out += _per_dataset(("agreement_rankings",), ranked)
    out += _per_dataset(("bws_reliability", "agreement_raters", "agreement_answers"), routing.bws)
    out += _per_dataset(("agreement_ci", "agreement_alpha", "agreement_icc", "agreement_retest"), rated)
    out += _per_dataset(("reliability", "reliability_curve"), rated)
    out += _per_dataset(("audit",), cleaned)
    out += _per_dataset(("gold", "gold_distribution"), cleaned)
    out += _per_dataset(("bws_scores",), routing.bws)
    out += _per_dataset(("translate_items", "translate_dropped"), routing.translated)
    return out + [result("crosslingual"), result("crosslingual_correlations")]


def _score_targets(routing: Stages) -> list[str]:
    scored, scored_by = routing.scored, sorted(routing.scored_by)
    out = _per_pair(("predictions", "scores"), scored)
    out += _per_dataset(("model_differences", "msd"), scored_by)
    out += [result(name, model=m) for m in routing.models for name in ("embeddings", "machine")]
    out += _per_pair(("context_vectors", "context_machine"), routing.in_context)
    out += _per_dataset(("comparisons", "comparisons_ag"), routing.compared)
    out += [result("scores_summary"), result("differences_summary")] if scored else []
    out += _per_dataset(("context_tests", "context_summary"), routing.context)
    out += _per_pair(("cosimlex",), routing.cosimlex)
    return out + ([result("cosimlex_summary")] if routing.cosimlex else [])


def _report_targets(routing: Stages) -> list[str]:
    out = _per_pair(("noise",), routing.noised)
    out += _per_dataset(("report_page",), routing.datasets)
    out += [figures_directory(d) for d in routing.datasets]  # the figures each page shows, drawn by its job
    # a dataset kept out by its licence (redistribute: false) gets no release
    out += [path for d in routing.released for path in release_outputs(routing, d)]
    out += [result("report_index"), result("report_summary")]
    if routing.scored:
        out += [result("scores_wide")] + _per_pair(("scores_json",), routing.scored)
        out += [result("scores_model_meta", model=m) for m in scored_models(routing)]
        out += [result("leaderboard_tsv"), result("leaderboard_md"), result("leaderboard_tex")]
    return out


def release_outputs(routing: Stages, dataset: str) -> list[str]:
    """Every file of a released dataset's folder: its data, card and metadata (its kind's), and the
    run's model scores beside them where models score it.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.
    dataset : str
        A released dataset's name.

    Returns
    -------
    list[str]
        Paths of the release folder's files (plus ``release_scores`` when models score it).
    """
    scores = [result("release_scores", dataset=dataset)] if dataset in routing.scored_by else []
    return release_files(dataset, routing.kinds[dataset]) + scores


def released_and_scored(routing: Stages) -> list[str]:
    """The released datasets that models score: each has a scores file beside its card.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.

    Returns
    -------
    list[str]
        Dataset names, in the order of ``routing.released``.
    """
    return [d for d in routing.released if d in routing.scored_by]


def scored_models(routing: Stages) -> list[str]:
    """The models that score at least one dataset (each has a folder of result files), sorted.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.

    Returns
    -------
    list[str]
        Model names.
    """
    return sorted({m for _, m in routing.scored})


def gold_standard_file(routing: Stages, dataset: str) -> str:
    """The table a dataset's headline score is computed against: its gold standard, or for a
    dataset without one (rankings, A&G files) its comparisons. Its hash is the dataset's revision
    in the MTEB result files.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.
    dataset : str
        The dataset's name.

    Returns
    -------
    str
        The path of its ``gold`` table, or of its ``comparisons`` table.
    """
    return result("gold" if dataset in routing.gold_scored else "comparisons", dataset=dataset)


def _per_dataset(names: tuple[str, ...], datasets: list[str]) -> list[str]:
    """The named results (simgold.io.paths.RESULTS) of each dataset, dataset by dataset."""
    return [result(name, dataset=d) for d in datasets for name in names]


def _per_pair(names: tuple[str, ...], pairs: list[tuple[str, str]]) -> list[str]:
    """The named results of each (dataset, model) pair, pair by pair."""
    return [result(name, dataset=d, model=m) for d, m in pairs for name in names]


def figures_directory(dataset: str) -> str:
    """Where a dataset's report job writes the figures its page shows (one job draws them all:
    matplotlib is loaded once per dataset, not once per figure or per stage).

    Parameters
    ----------
    dataset : str
        The dataset's name.

    Returns
    -------
    str
        The folder's path (``RESULTS["report_figures"]`` for the dataset).
    """
    return result("report_figures", dataset=dataset)


def report_figures(routing: Stages, dataset: str, *, level: str) -> list[tuple[str, str]]:
    """(path, caption) of every figure a dataset's report page shows (embedded in the page), in
    page order: the entries of the registry simgold.report.figures.FIGURES whose ``shown_if``
    holds; each file is named for its figure (``scores.png``, ``raters.png``, ...). ``level``: the
    CIs' level as captions say it (``simgold.io.config.confidence_label`` of scoring.confidence),
    in place of a caption's ``{level}``; ``{ceiling}`` names the human ceiling where there is one
    (a dataset with per-rater ratings).

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.
    dataset : str
        The dataset's name.
    level : str
        The CIs' level as a caption says it (e.g. ``95%``).

    Returns
    -------
    list[tuple[str, str]]
        (PNG path, caption with ``{level}`` and ``{ceiling}`` filled) per figure shown.
    """
    # here, not at the top: the Snakefile imports this module at every parse (a cluster job parses it
    # again), and the figures' module loads pandas and the pages; only a report job's params read it
    from simgold.report.figures import FIGURES  # heavy: pandas, numpy and the pages; only the report jobs

    ceiling = " and the human ceiling" if dataset in routing.rated else ""  # only raters give one
    return [
        (
            f"{figures_directory(dataset)}/{name}.png",
            figure.caption.replace("{level}", level).replace("{ceiling}", ceiling),
        )
        for name, figure in FIGURES.items()
        if figure.shown_if(routing, dataset)
    ]


def _unscored_datasets(routing: Stages) -> list[str]:
    """The datasets no configured model scores."""
    return [d for d in routing.datasets if d not in routing.scored_by]


def unscored_warning(routing: Stages, languages: dict[str, str]) -> str:
    """A line per dataset that no configured model scores (no model covers its language; a
    comparisons or two-context dataset's model may also be missing), "" when every dataset is
    scored. ``languages``: dataset -> its language.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.
    languages : dict[str, str]
        Dataset name -> its language code.

    Returns
    -------
    str
        One ``simgold: ... is not scored`` line per such dataset, each ending in a newline.
    """
    return "".join(
        f"simgold: {d} is not scored: no configured model covers its language ({languages[d]!r});"
        " add one under models (with that language) to score it\n"
        for d in _unscored_datasets(routing)
    )


#: where each release job logs, its warnings included (rule ``release``)
RELEASE_LOG = "logs/release/{dataset}.log"
#: the most files a targeted run's last lines name one by one
_MAX_NAMED = 20


def release_report(released: list[str]) -> str:
    """For the end of a run: every warning the release jobs of ``released`` logged (no licence,
    raw files that may not be redistributed, pairs left out of a file, ...), read from their logs
    (``RELEASE_LOG``): they scroll past mid-run, and each needs a decision before the release is
    published. Empty when none warned or no log was written.

    Parameters
    ----------
    released : list[str]
        The datasets whose release logs are read.

    Returns
    -------
    str
        A heading line and one indented line per warning, led by a newline; "" with none.
    """
    lines = []
    for d in released:
        path = Path(RELEASE_LOG.format(dataset=d))
        for warning in logged_warnings(path.read_text(encoding="utf-8")) if path.is_file() else []:
            lines.append(f"  {warning}" if warning.startswith(d) else f"  {d}: {warning}")
    if not lines:
        return ""
    return "\n".join(["", f"simgold: to decide before publishing a release (each job's log: {RELEASE_LOG}):", *lines])


def withheld_warning(routing: Stages) -> str:
    """For the end of a whole run: the datasets whose licence keeps them out of a release
    (``redistribute: false``): none is built, and the archive leaves out their items.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.

    Returns
    -------
    str
        A line (led by a newline) naming the datasets kept out; "" when every one is released.
    """
    kept = [d for d in routing.datasets if d not in routing.released]
    if not kept:
        return ""
    return (
        f"\nsimgold: not released (redistribute: false): {', '.join(kept)}; no release is built for them, and an"
        " archive leaves out their raw files and every table that holds their items (only the checksums go in)"
    )


def archive_licence_warning(license: str | None) -> str:
    """For the end of a whole run: that no licence is chosen for the archive (``archive.license``),
    or "" when one is.

    Parameters
    ----------
    license : str | None
        The config's ``archive.license`` (None or "": none chosen).

    Returns
    -------
    str
        The warning, led by a newline; "" when a licence is chosen.
    """
    if license:
        return ""
    return (
        "\nsimgold: no licence is chosen for the archive: set archive.license in the config (an SPDX expression,"
        " such as CC-BY-4.0, that the data and code it holds allow); until one is, the archive says that none"
        " was chosen"
    )


def asked_for(targets: list[str], rule_outputs: dict[str, list[str]]) -> list[str] | None:
    """The files a run was asked to make: None for the whole workflow (no target, ``all`` or
    ``archive``); else each target named on the command line, a rule's name standing for its output
    files (``rule_outputs``: rule -> files), a path as given (normalised), in order, once each.

    Parameters
    ----------
    targets : list[str]
        The targets as named on the command line.
    rule_outputs : dict[str, list[str]]
        Rule name -> its output files.

    Returns
    -------
    list[str] | None
        The files, in order and without repeats; None for a whole run.
    """
    if not targets or {"all", "archive"} & set(targets):
        return None
    files = [f for t in targets for f in (rule_outputs.get(t) or [os.path.normpath(t)])]
    return list(dict.fromkeys(files))


def datasets_of(jobs: list[tuple[str, dict]], *rules: str) -> list[str]:
    """The datasets of a run's jobs of ``rules`` (``jobs``: each job's rule name and wildcards,
    those that ran and those whose files were already there), sorted.

    Parameters
    ----------
    jobs : list[tuple[str, dict]]
        (rule name, wildcards) of each job of the run.
    *rules : str
        The rule names whose jobs count.

    Returns
    -------
    list[str]
        The distinct ``dataset`` wildcards of those jobs, sorted.
    """
    return sorted({wildcards["dataset"] for name, wildcards in jobs if name in rules and "dataset" in wildcards})


def release_rule(kind: str) -> str:
    """The name of the rule that releases a dataset of ``kind`` (workflow/rules/release.smk).

    Parameters
    ----------
    kind : str
        The dataset's kind (``ratings``, ``means``, ``rankings``, ...).

    Returns
    -------
    str
        ``release_{kind}``.
    """
    return f"release_{kind}"


#: the rules that release a dataset, one per kind
RELEASE_RULES = tuple(release_rule(kind) for kind in RELEASE_DATA)


def finished_message(routing: Stages, archive: str | None = None, made: list[str] | None = None) -> str:
    """The last lines of a run: where the answer is; ``archive``: the archive this run made (the
    ``archive`` target), then how to check it instead of how to make it. ``made``: the files a
    targeted run was asked for (``asked_for``), named instead, and nothing else: the report and
    scores it may not have remade are not pointed at.

    Parameters
    ----------
    routing : Stages
        The run's stages, from :func:`stages` of the resolved config.
    archive : str | None, optional
        The path of the archive this run made (None: no archive target).
    made : list[str] | None, optional
        The files a targeted run was asked for (None: a whole run).

    Returns
    -------
    str
        The lines, joined by newlines, led by a blank line.
    """
    if made is not None:
        named = [f"  {path}" for path in made[:_MAX_NAMED]]
        more = [f"  and {len(made) - _MAX_NAMED} more"] if len(made) > _MAX_NAMED else []
        return "\n".join(["", "simgold: finished. Made, as asked:", *named, *more])
    lines = ["", "simgold: finished. The results:"]
    lines.append(
        "  report   results/report/index.html (open it in a browser; or: snakemake --report results/report.html)"
    )
    if routing.scored:
        lines.append("  scores   results/scores/wide.tsv (dataset x model), results/report/summary.tsv (every metric)")
        lines.append(
            "  paper    results/scores/leaderboard.md, .tsv (model x dataset), .tex (dataset x model); best marked, MSD"
        )
    if routing.released:
        lines.append(
            "  release  results/release/{dataset}/ (each gold standard with its card, to publish beside a paper)"
        )
    unscored = _unscored_datasets(routing)
    if routing.models and unscored:
        lines.append(f"  not scored (no model covers their language): {', '.join(unscored)}")
    if archive:
        lines.append(f"  archive  {archive} (unpack it elsewhere, then: simgold verify DIR; simgold rebuild DIR)")
        lines.append("  in the terminal: simgold scores, simgold agreement, simgold rejects")
    else:
        lines.append(
            "  in the terminal: simgold scores, simgold agreement, simgold rejects; for a paper: snakemake --cores 8 archive"
        )
    return "\n".join(lines)
