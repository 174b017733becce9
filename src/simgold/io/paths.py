"""Where every result file of a run goes: one table of path patterns, keyed by a short name.

The workflow's rules and input functions (``workflow/rules/*.smk``), the list of every file a run
makes (``simgold.workflow.routing.all_targets``), the report, the archive and the command line all
take their paths from here, so a file is named in one place. A pattern's ``{dataset}``,
``{model}``, ... are Snakemake wildcards as they stand (``output: RESULTS["agreement"]``) and
``str.format`` fields for ``result``. Logs (``logs/...``) are not results and are not listed.

Examples
--------
>>> RESULTS["agreement"]
'results/agreement/{dataset}/agreement.parquet'
>>> result("agreement", dataset="ws353")
'results/agreement/ws353/agreement.parquet'

A new result file is one line of ``RESULTS``: a short name and a pattern under ``results/``. Rules
then write ``output: RESULTS["audit_summary"]`` and code calls ``result("audit_summary")``.
``RESULTS`` is read-only, so this example swaps in a copy with the line added:

>>> import simgold.io.paths as paths
>>> paths.RESULTS = MappingProxyType({**RESULTS, "audit_summary": "results/audit/summary.parquet"})
>>> result("audit_summary"), within_results("audit_summary")
('results/audit/summary.parquet', 'audit/summary.parquet')
>>> paths.RESULTS = RESULTS
"""

from __future__ import annotations

from pathlib import PurePosixPath
from types import MappingProxyType

__all__ = ["RESULTS_DIR", "CLEAN_TABLES", "RESULTS", "RELEASE_DATA", "result", "within_results", "release_files"]

#: the directory every result file is under (relative to the working directory of a run)
RESULTS_DIR = "results"

#: the tables the clean stage writes for each dataset (the ``{table}`` of ``RESULTS["clean"]``)
CLEAN_TABLES = ["items", "ratings", "means", "rankings", "repeats", "answers", "rejects", "summary"]

RESULTS = MappingProxyType(
    {
        # cleaning: one file per table of CLEAN_TABLES; the counts of every dataset in one table
        "clean": "results/clean/{dataset}/{table}.parquet",
        "clean_summary": "results/clean/summary.parquet",
        # translation: each item linked to its source item, what did not link; across languages
        "translate_items": "results/translate/{dataset}/items.parquet",
        "translate_dropped": "results/translate/{dataset}/dropped.parquet",
        "crosslingual": "results/translate/crosslingual.parquet",
        "crosslingual_correlations": "results/translate/crosslingual_correlations.parquet",
        # calibration: shifted ratings, each rater's shift
        "calibrate_ratings": "results/calibrate/{dataset}/ratings.parquet",
        "calibrate_raters": "results/calibrate/{dataset}/raters.parquet",
        # agreement: per stage and subset, per rater, the ratings or rankings kept, CIs and alpha
        "agreement": "results/agreement/{dataset}/agreement.parquet",
        "agreement_raters": "results/agreement/{dataset}/raters.parquet",
        "agreement_ratings": "results/agreement/{dataset}/ratings.parquet",
        "agreement_rankings": "results/agreement/{dataset}/rankings.parquet",
        "agreement_ci": "results/agreement/{dataset}/agreement_ci.parquet",
        "agreement_alpha": "results/agreement/{dataset}/alpha.parquet",
        "agreement_icc": "results/agreement/{dataset}/icc.parquet",
        "agreement_retest": "results/agreement/{dataset}/retest.parquet",
        # how many raters are enough
        "reliability": "results/reliability/{dataset}/summary.parquet",
        "reliability_curve": "results/reliability/{dataset}/curve.parquet",
        "audit": "results/audit/{dataset}.parquet",
        "gold": "results/gold/{dataset}/gold.parquet",
        "gold_distribution": "results/gold/{dataset}/distribution.parquet",
        # Best-Worst Scaling: split-half reliability, the answers kept, both scores of each item
        "bws_reliability": "results/agreement/{dataset}/bws_reliability.parquet",
        "agreement_answers": "results/agreement/{dataset}/answers.parquet",
        "bws_scores": "results/gold/{dataset}/bws_scores.parquet",
        # the release of a gold standard (the folder to upload; every file declared, nothing else in
        # it): its data files (``RELEASE_DATA``), the dataset card, the Croissant metadata, and the
        # run's model scores beside the card, made by their own job once the models have run
        "release_data": "results/release/{dataset}/{dataset}{suffix}",
        "release_card": "results/release/{dataset}/README.md",
        "release_croissant": "results/release/{dataset}/croissant.json",
        "release_scores": "results/release/{dataset}/scores.md",
        # models: the vectors each needs, A&G comparisons, scores and what is made from them
        "embeddings": "results/embeddings/{model}.parquet",
        # beside each vector table: what made it (model files, code, BLAS kernel, CPU), simgold.io.machine
        "machine": "results/embeddings/{model}.machine.json",
        # a contextual model's vectors of each item's two words in its context (two-context datasets)
        "context_vectors": "results/embeddings/in-context/{dataset}/{model}.parquet",
        "context_machine": "results/embeddings/in-context/{dataset}/{model}.machine.json",
        "comparisons": "results/comparisons/{dataset}.parquet",
        "comparisons_ag": "results/comparisons/{dataset}.ag.txt",
        "predictions": "results/scores/{dataset}/{model}/predictions.parquet",
        "scores": "results/scores/{dataset}/{model}/scores.parquet",
        "model_differences": "results/scores/{dataset}/model_differences.parquet",
        "msd": "results/scores/{dataset}/msd.parquet",
        "scores_summary": "results/scores/summary.parquet",
        "differences_summary": "results/scores/differences.parquet",
        "scores_wide": "results/scores/wide.tsv",
        # MTEB's format (simgold.report.mteb): a TaskResult per model and dataset, a ModelMeta per
        # model, in mteb's folders {organisation}__{model}/{revision}/ (simgold.report.mteb.model_folder)
        "scores_json": "results/scores/json/simgold__{model}/no_revision_available/{dataset}.json",
        "scores_model_meta": "results/scores/json/simgold__{model}/no_revision_available/model_meta.json",
        # the leaderboard a paper can paste: models x datasets (simgold.report.leaderboard)
        "leaderboard_tsv": "results/scores/leaderboard.tsv",
        "leaderboard_md": "results/scores/leaderboard.md",
        "leaderboard_tex": "results/scores/leaderboard.tex",
        "context_tests": "results/context/{dataset}/tests.parquet",
        "context_summary": "results/context/{dataset}/summary.parquet",
        "cosimlex": "results/scores/{dataset}/{model}/cosimlex.parquet",
        "cosimlex_summary": "results/scores/cosimlex_summary.parquet",
        "noise": "results/noise/{dataset}/{model}.parquet",
        # the report: a page and its figures' directory per dataset, the front page, one summary table
        "report_page": "results/report/{dataset}/index.html",
        "report_figures": "results/report/{dataset}/figures",
        "report_index": "results/report/index.html",
        "report_summary": "results/report/summary.tsv",
        # not part of a run's targets: `snakemake archive`
        "archive": "results/archive/{name}.tar.gz",
    }
)
"""Every result file pattern, by short name (read-only).

Each value is a path relative to the working directory of a run, under ``RESULTS_DIR``; its
``{dataset}``, ``{model}``, ``{table}`` (one of ``CLEAN_TABLES``) and ``{name}`` (the archive's
``archive: name`` in the config) are filled in by ``result`` or kept as Snakemake wildcards.
"""


#: the data files of a dataset's release by the dataset's kind (``{dataset}`` then the suffix),
#: besides its card and Croissant metadata: the gold standard as Parquet and TSV; gensim's word-pair
#: file where the gold is one score per word pair; the A&G comparisons of a rankings dataset (the
#: comparisons a ratings dataset yields stay in the run's results: its gold is the scores). Known
#: from the config alone, so that the release job declares every file it writes.
RELEASE_DATA = MappingProxyType(
    {
        "ratings": (".parquet", ".tsv", ".txt"),
        "means": (".parquet", ".tsv", ".txt"),
        "contexts": (".parquet", ".tsv"),
        "rankings": (".parquet", ".tsv", ".comparisons.parquet", ".comparisons.tsv"),
        "comparisons": (".parquet", ".tsv"),
        "bws": (".parquet", ".tsv", ".txt", ".answers.parquet", ".answers.tsv"),
    }
)


def release_files(dataset: str, kind: str) -> list[str]:
    """The files of a dataset's release, as its release job writes them (the data files of
    ``RELEASE_DATA``, then the card and the Croissant metadata); ``dataset`` may be a wildcard.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    kind : str
        Its kind.

    Returns
    -------
    list of str
        The paths.

    Examples
    --------
    >>> release_files("demo-he-rank", "rankings")[2:4]
    ['results/release/demo-he-rank/demo-he-rank.comparisons.parquet', 'results/release/demo-he-rank/demo-he-rank.comparisons.tsv']
    >>> release_files("{dataset}", "contexts")
    ['results/release/{dataset}/{dataset}.parquet', 'results/release/{dataset}/{dataset}.tsv', 'results/release/{dataset}/README.md', 'results/release/{dataset}/croissant.json']
    """
    data = [result("release_data", dataset=dataset, suffix=suffix) for suffix in RELEASE_DATA[kind]]
    return data + [result("release_card", dataset=dataset), result("release_croissant", dataset=dataset)]


def result(name: str, /, **wildcards: str) -> str:
    """One result file: the pattern ``RESULTS[name]`` with its wildcards filled in.

    Parameters
    ----------
    name : str
        A key of ``RESULTS``.
    **wildcards : str
        A value for every field of the pattern (``dataset``, ``model``, ...). A value may itself
        be a pattern (``dataset="{dataset}"``, ``dataset="*"``), to keep a wildcard or to glob.

    Returns
    -------
    str
        The path, relative to the working directory of a run.

    Raises
    ------
    KeyError
        For a name not in ``RESULTS``, or a field of the pattern with no value.

    Examples
    --------
    >>> result("scores", dataset="ws353", model="glove-6b-50d")
    'results/scores/ws353/glove-6b-50d/scores.parquet'
    >>> result("clean", dataset="{dataset}", table="items")  # a rule's pattern: one table
    'results/clean/{dataset}/items.parquet'
    >>> result("archive", name="simgold-demo")  # ``name`` is a field too: the key is positional
    'results/archive/simgold-demo.tar.gz'
    """
    return RESULTS[name].format(**wildcards)


def within_results(name: str, /, **wildcards: str) -> str:
    """One result file as ``result`` gives it, relative to the results directory instead: for a
    results directory elsewhere than ``RESULTS_DIR`` (``simgold scores --results DIR``).

    Parameters
    ----------
    name : str
        A key of ``RESULTS``.
    **wildcards : str
        A value for every field of the pattern, as for ``result``.

    Returns
    -------
    str
        The path below the results directory.

    Examples
    --------
    >>> within_results("scores_summary")
    'scores/summary.parquet'
    >>> within_results("agreement", dataset="*")  # a glob pattern: Path(directory).glob(...)
    'agreement/*/agreement.parquet'
    """
    return PurePosixPath(result(name, **wildcards)).relative_to(RESULTS_DIR).as_posix()
