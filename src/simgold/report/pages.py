"""Human-readable tables for the report (``snakemake --report``) and the static pages under
``results/report/`` (browsable without Python; they go into the archive). The figures a page
embeds are drawn by simgold.report.figures; building a page needs no matplotlib.

Pages contain no timestamps, so the same results give the same bytes.
"""

from __future__ import annotations

import base64
import html
import json
import posixpath
from pathlib import Path

import numpy as np
import pandas as pd

from simgold.io.labels import confidence_labels
from simgold.io.paths import RESULTS
from simgold.io.tables import AUDIT_CHECKS as CHECKS
from simgold.io.digests import sha256_bytes
from simgold.io.ledger import counted_apart_text, rejected_examples, rejection_line
from simgold.report.bws_sections import bws_precision_text, page_tables
from simgold.report.headline import MAIN_METRICS, flag_scores, headline
from simgold.stages.msd import with_msd
from simgold.stats.agreement_statistics import AGREEMENT_STATISTICS, SCHEMES

__all__ = [
    "dataset_page",
    "index_page",
    "run_footer",
    "interval_text",
    "with_intervals",
    "reliability_view",
    "write",
    "write_json",
    "AUDIT_CHECK_TEXT",
    "CONTEXT_COLUMNS",
]



def _fmt(value, whole: bool = False) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else (f"{value:.0f}" if whole else f"{value:.3f}")
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return html.escape(str(value))


def _whole_columns(frame: pd.DataFrame) -> list[bool]:
    """Per column: whether it is shown as whole numbers, a float column whose values are all whole
    (a row number that missing values made float: 9, not 9.000), unless they all lie in [-1, 1]
    (a correlation or a share that happens to be 0 or 1 keeps its decimals)."""
    out = []
    for column in frame.columns:
        values = frame[column]
        numbers = values.dropna().to_numpy(float) if values.dtype.kind == "f" else np.empty(0)
        out.append(bool(len(numbers)) and bool((numbers == np.round(numbers)).all()) and np.abs(numbers).max() > 1)
    return out


def _html_table(frame: pd.DataFrame, caption: str = "") -> str:
    """A plain HTML table (numbers to 3 decimals, whole-number columns as integers, empty for
    undefined values); the caption above it, as wide as the page (not squeezed to the table)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    whole = _whole_columns(frame)
    body = "".join(
        "<tr>" + "".join(f"<td>{_fmt(v, w)}</td>" for v, w in zip(row, whole)) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    cap = f'<p class="caption">{html.escape(caption)}</p>' if caption else ""
    return f'{cap}<table class="data"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
    "table.data{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
    "table.data td,table.data th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "table.data th{background:#eee}p.caption{font-weight:bold;margin:1.2em 0 0.2em}"
    "figure{margin:1em 0}figcaption{font-size:0.9em;color:#444}"
    "table.matrix td{text-align:center}td.flag{color:#888;font-style:italic}"
)


def _page(title: str, body: str, lang: str = "en", footer: str = "") -> str:
    """A whole HTML page; ``lang``: the language of its words (a dataset's, so that a browser and a
    screen reader treat its words as that language), ``footer``: what made it (``run_footer``)."""
    foot = f"<footer><p>{html.escape(footer)}</p></footer>" if footer else ""
    return (
        f'<!DOCTYPE html><html lang="{html.escape(lang)}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}{foot}</body></html>\n"
    )


def run_footer(config: dict, version: str) -> str:
    """What made a page: the run's date (``archive.date``: a page never carries the wall clock, so
    that it rebuilds byte for byte), the simgold version and the digest of the resolved config.

    Parameters
    ----------
    config : dict
        The resolved config (``archive.name`` and ``archive.date``; all of it is digested).
    version : str
        simgold's version.

    Returns
    -------
    str
        One line: version, run name and date, first 12 hex digits of the config's SHA-256.

    Examples
    --------
    >>> run_footer({"archive": {"name": "demo", "date": "2026-11-21"}}, "0.1.0")
    'simgold 0.1.0, run demo of 2026-11-21, config sha256 0b984517250f'
    """
    digest = sha256_bytes(json.dumps(config, sort_keys=True, default=str).encode("utf-8"))[:12]
    arch = config["archive"]
    return f"simgold {version}, run {arch['name']} of {arch['date']}, config sha256 {digest}"


def _figure_html(path, caption: str) -> str:
    """A figure embedded in the page as a data URI: the page shows it wherever it is opened (as a
    file, inside ``snakemake --report``, in the archive), with no path to resolve."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    alt = html.escape(caption)
    return f'<figure><img src="data:image/png;base64,{data}" alt="{alt}"><figcaption>{alt}</figcaption></figure>'


# --------------------------------------------------------------------------------------------
# pages


CLEAN_COLUMNS = (
    "n_items",
    "n_raters",
    "n_ratings",
    "n_rankings",
    "n_means",
    "n_rejects",
    "raw_cells",
    "ledger_balanced",
)
CONTEXT_COLUMNS = ["word1", "word2", "n1", "n2", "mean1", "mean2", "sd1", "sd2", "statistic", "p", "q", "test"]


def _agreement_section_columns() -> list[str]:
    """The columns of the agreement table that a dataset page shows: stage and subset, the
    statistics of the registry marked ``report``, the note."""
    return ["stage", "subset", *(name for name, s in AGREEMENT_STATISTICS.items() if s.report), "note"]


def dataset_page(
    name: str,
    *,
    clean: pd.DataFrame | None,
    agreement: pd.DataFrame | None,
    scores: pd.DataFrame | None,
    context: pd.DataFrame | None,
    figures: list[tuple[str, str]],
    statistics: dict | None = None,
    release: dict | None = None,
    rejects: pd.DataFrame | None = None,
    footer: str = "",
) -> str:
    """A dataset's page. ``statistics``: the tables of docs/methods.md section 11 the dataset has
    (``agreement_ci``, ``alpha``, ``reliability``, ``differences``, ``msd``, ``audit``);
    ``release``: its release's ``files`` and ``meta`` (the config's release block), linked at the top;
    ``rejects``: its ledger (the rejected values by reason, with examples).

    Parameters
    ----------
    name : str
        The dataset's name (the page's title).
    clean, agreement, scores, context : pd.DataFrame | None
        The dataset's cleaning, agreement, score summary and context-effect tables (None or empty: no section).
    figures : list[tuple[str, str]]
        (image path relative to the page, caption) of each figure, in order.
    statistics : dict | None, optional
        Table name -> table (``agreement_ci``, ``alpha``, ``msd``, ``audit``, ...); None: none.
    release : dict | None, optional
        The release's ``files`` and ``meta`` (None: no release link).
    rejects : pd.DataFrame | None, optional
        The rejects ledger (``reason``, ``file``, ``row``, ``column``, ``value``); None: no ledger section.
    footer : str, optional
        The page's footer line (:func:`run_footer`).

    Returns
    -------
    str
        The page's HTML document.
    """
    statistics = statistics or {}
    if scores is not None and "msd" in statistics:
        scores = with_msd(scores, statistics["msd"])
    parts = ['<p><a href="../index.html">all datasets</a></p>']
    if release is not None:
        parts.append(_release_html(name, release["files"], release["meta"], "../../release"))
    for src, caption in figures:
        parts.append(_figure_html(src, caption))
    if clean is not None and len(clean):
        cols = [c for c in CLEAN_COLUMNS if c in clean]
        parts.append(_html_table(clean[cols], "Cleaning: what was read and what went to the rejects ledger"))
    if rejects is not None and clean is not None and len(clean):
        parts.append(_ledger_section(clean.iloc[0], rejects))
    if agreement is not None and len(agreement):
        parts.append(_agreement_table(agreement, statistics.get("agreement_ci")))
    parts += _agreement_sections(statistics)
    if "gold" in statistics and len(statistics["gold"]):
        parts.append(_gold_precision_section(statistics["gold"]))
    if scores is not None and len(scores):
        parts.append(_scores_table(scores))
    parts += [_html_table(view, caption) for view, caption in page_tables(statistics, scores)]  # BWS: empty else
    parts += _model_sections(statistics)
    if context is not None and len(context):
        caption = "Context effects: pairs whose similarity differs between the two contexts"
        parts.append(_html_table(context[CONTEXT_COLUMNS], caption))
    if "audit" in statistics:
        parts += _audit_sections(statistics["audit"])
    lang = str(clean["language"].iloc[0]) if clean is not None and len(clean) and "language" in clean else "en"
    return _page(f"simgold: {name}", "".join(parts), lang=lang, footer=footer)


def _agreement_table(agreement: pd.DataFrame, ci: pd.DataFrame | None) -> str:
    """A dataset page's agreement table, by stage and subset, with the bootstrap intervals where
    the run has them (``ci``)."""
    caption = "Inter-rater agreement by stage and subset (Spearman; Krippendorff's alpha, interval)"
    shown = [c for c in _agreement_section_columns() if c in agreement]  # a table of an older run may lack one
    view = agreement[shown]
    if ci is not None and len(ci):
        view = with_intervals(view, ci)
        caption += (
            f", each with its {confidence_labels(ci['confidence'])} bootstrap interval resampling items and raters "
            "together (the widest; both one-way intervals are in the table below)"
        )
    return _html_table(view, caption)


def _scores_table(scores: pd.DataFrame) -> str:
    """A dataset page's table of model scores, flagged, with their CIs and the MSD."""
    cols = ["model", "metric", "subset", "value", "ci_low", "ci_high", "n_used", "n_total", "msd", "flag", "note"]
    return _html_table(
        flag_scores(scores)[[c for c in cols if c in scores or c == "flag"]],
        f"Model scores with {confidence_labels(scores.get('confidence', []))} bootstrap CIs; OOV shares as "
        "fractions; the human ceiling; msd: the smallest "
        "difference between two models' Spearman on this dataset that is significant at p < 0.05 "
        "(Williams' test; see the table below): a smaller gap is no evidence that one model is better; "
        "note: why a value is missing",
    )


def _ledger_section(summary: pd.Series, rejects: pd.DataFrame) -> str:
    """The rejected values of a dataset by reason, up to 5 examples each (file, row, column, value),
    and the cells set aside that are not rejected values, counted apart."""
    line = rejection_line(summary)
    apart = counted_apart_text(rejects["reason"].value_counts(), summary.get("n_words_normalised", 0))
    if not line:
        return f"<p>No value was rejected (results/clean/{html.escape(str(summary['dataset']))}/rejects.parquet).{apart}</p>"
    return _html_table(rejected_examples(rejects), (
        f"Rejected values: {line}. Up to 5 examples per reason; every one, with its detail, is in "
        f"results/clean/{summary['dataset']}/rejects.parquet and `simgold rejects {summary['dataset']}`.{apart}"))  # fmt: skip


def _release_html(name: str, files: list[str], meta: dict, base: str) -> str:
    """A paragraph that links a dataset's release (``base``: the release directory as seen from the
    page) and says its licence and version: the card's first facts."""
    where = f"{base}/{name}"
    links = ", ".join(f'<a href="{html.escape(where)}/{html.escape(f)}">{html.escape(f)}</a>' for f in files)
    license_ = meta.get("license")
    terms = f"licence {html.escape(license_)}" if license_ else "<strong>no licence given</strong>"
    return (
        f'<p>Released in <a href="{html.escape(where)}/README.md">results/release/{html.escape(name)}/</a> '
        f"(version {html.escape(str(meta.get('version', '')))}, {terms}): {links}. The dataset card (README.md) "
        "describes the study; the Parquet file loads in pandas, Hugging Face datasets and Croissant.</p>"
    )


def with_intervals(agreement: pd.DataFrame, ci: pd.DataFrame) -> pd.DataFrame:
    """The agreement table with a CI column after each statistic that has one: the two-way
    (``both``) interval, else the items-resampled one (a run before the two-way scheme).

    Parameters
    ----------
    agreement : pd.DataFrame
        The agreement table (``stage``, ``subset``, a column per statistic, ...).
    ci : pd.DataFrame
        The agreement_ci table (``stage``, ``subset``, ``statistic``, ``scheme``, ``ci_low``, ``ci_high``).

    Returns
    -------
    pd.DataFrame
        A copy with a str ``<statistic> CI`` column after each statistic ("" without an interval).

    Examples
    --------
    >>> agreement = pd.DataFrame({"stage": ["raw"], "subset": ["all"], "pairwise": [0.6], "note": [""]})
    >>> ci = pd.DataFrame({"stage": "raw", "subset": "all", "statistic": "pairwise", "scheme": ["items", "both"],
    ...                    "ci_low": [0.5, 0.4], "ci_high": [0.7, 0.75]})
    >>> with_intervals(agreement, ci).columns.tolist(), with_intervals(agreement, ci)["pairwise CI"].iloc[0]
    (['stage', 'subset', 'pairwise', 'pairwise CI', 'note'], '[0.400, 0.750]')
    """
    preferred = ci.assign(rank=(ci["scheme"] != "both").astype(int)).sort_values("rank", kind="stable")
    first = preferred.drop_duplicates(["stage", "subset", "statistic"]).set_index(["stage", "subset", "statistic"])
    columns = []
    out = agreement.copy()
    for column in agreement.columns:
        columns.append(column)
        if column in set(ci["statistic"]):
            out[f"{column} CI"] = [
                interval_text(*first.loc[(st, sub, column), ["ci_low", "ci_high"]])
                if (st, sub, column) in first.index else ""
                for st, sub in zip(agreement["stage"], agreement["subset"])
            ]  # fmt: skip
            columns.append(f"{column} CI")
    return out[columns]


def interval_text(low, high) -> str:
    """An interval as the tables say it, ``[low, high]`` to 3 decimals; empty where an end is missing.

    Parameters
    ----------
    low, high : float
        The interval's ends (NaN or None: no interval).

    Returns
    -------
    str
        The interval's text.
    """
    return "" if pd.isna(low) or pd.isna(high) else f"[{low:.3f}, {high:.3f}]"


def _agreement_ci_view(ci: pd.DataFrame) -> pd.DataFrame:
    """One row per stage, subset and statistic: the value and its CI with items, and with raters,
    resampled (the resamples used), and the notes."""
    rows = []
    schemes = [s for s in SCHEMES if s != "both" or (ci["scheme"] == s).any()]  # a run before the two-way scheme
    for (stage, subset, statistic), group in ci.groupby(["stage", "subset", "statistic"], sort=False):
        row = {"stage": stage, "subset": subset, "statistic": statistic, "value": group["value"].iloc[0]}
        for scheme in schemes:
            hit = group[group["scheme"] == scheme]
            row[f"CI, {scheme} resampled"] = (
                interval_text(hit["ci_low"].iloc[0], hit["ci_high"].iloc[0]) if len(hit) else ""
            )
            row[f"resamples ({scheme})"] = int(hit["resamples"].iloc[0]) if len(hit) else 0
        row["note"] = _schemes_note(group)
        rows.append(row)
    return pd.DataFrame(rows)


def _schemes_note(group: pd.DataFrame) -> str:
    """The notes of one statistic's schemes, each named; why the statistic has no value (the same
    for every scheme: ``agreement_ci.undefined_reason``) once, before them.

    Examples
    --------
    >>> group = pd.DataFrame({"scheme": ["items", "raters"], "note": ["no value: 1 rater; 9 of 9 resamples without "
    ...                       "a value", "no value: 1 rater"]})
    >>> _schemes_note(group)
    'no value: 1 rater (items: 9 of 9 resamples without a value)'
    """
    notes = [(scheme, note) for scheme, note in zip(group["scheme"], group["note"]) if note]
    first = notes[0][1].split("; ")[0] if notes else ""
    shared = all(note == first or note.startswith(f"{first}; ") for _, note in notes)
    if not first.startswith("no value: ") or len(notes) < len(group) or not shared:
        return "; ".join(f"{scheme}: {note}" for scheme, note in notes)
    rest = "; ".join(f"{scheme}: {note[len(first) + 2 :]}" for scheme, note in notes if len(note) > len(first))
    return f"{first} ({rest})" if rest else first


def _agreement_sections(statistics: dict) -> list[str]:
    """The CIs on agreement, alpha at every level and the split-half reliability of a dataset."""
    parts = []
    if "agreement_ci" in statistics and len(statistics["agreement_ci"]):
        ci = statistics["agreement_ci"]
        level = confidence_labels(ci["confidence"])
        parts.append(_html_table(_agreement_ci_view(ci), (
            f"Uncertainty of the agreement: {level} percentile bootstrap intervals, resampling the items (every "
            "rater kept), separately the raters (every item kept), and both together (both: other "
            "pairs and other raters at once, the widest). Items resampled: would other word pairs give "
            "the same agreement? Raters resampled: would other raters? An interval narrower with items than with "
            "raters says the raters, not the pairs, are the main source of uncertainty (docs/methods.md 11.2)")))  # fmt: skip
    if "icc" in statistics and len(statistics["icc"]):
        icc = statistics["icc"]
        view = icc.assign(
            interval=[interval_text(a, b) for a, b in zip(icc["ci_low"], icc["ci_high"])]
        )[["stage", "subset", "form", "value", "interval", "n_items", "n_raters", "note"]]
        parts.append(_html_table(view, (
            f"Intraclass correlations (Shrout & Fleiss 1979) with their {confidence_labels(icc['confidence'])} F-based "
            "intervals: ICC(2,1), the absolute agreement of one rater, and ICC(2,k), of the mean of the k raters (the "
            "gold standard is such a mean), two-way random effects on the raters who rated every item; for rating "
            "slots, the one-way ICC(1,1) and ICC(1,k)")))  # fmt: skip
    if "retest" in statistics and len(statistics["retest"]) and statistics["retest"]["n_pairs"].iloc[0] > 0:
        view, shown = _retest_view(statistics["retest"])
        parts.append(_html_table(view, (
            "Test-retest (intra-rater) reliability: the raters' repeated answers to the same pair, before the "
            "duplicates rule keeps one. Each later answer is paired with the one before; mean |difference| on the "
            "dataset's scale, the share answered the same, Spearman and Pearson between the two answers and ICC(2,1) "
            f"(absolute agreement of the two occasions) with its {confidence_labels(statistics['retest']['confidence'])} "
            f"F-based interval; all raters pooled, then {shown}")))  # fmt: skip
    if "alpha" in statistics and len(statistics["alpha"]):
        alpha = statistics["alpha"]
        wide = alpha.pivot_table(index=["stage", "subset"], columns="level", values="alpha", sort=False, dropna=False)
        wide = wide.reindex(columns=[c for c in ("nominal", "ordinal", "interval", "ratio") if c in wide]).reset_index()
        notes = alpha[alpha["note"] != ""].groupby(["stage", "subset"], sort=False)["note"].first()
        wide["note"] = [notes.get((a, b), "") for a, b in zip(wide["stage"], wide["subset"])]
        parts.append(_html_table(wide.rename_axis(columns=None), (
            "Krippendorff's alpha at each level of measurement: nominal (any two different scores disagree equally), "
            "ordinal (by how many ratings lie between them), interval (by their squared difference, the agreement "
            "table's alpha), ratio (by their relative difference). 1 is perfect agreement, 0 what chance gives; "
            "nominal and ordinal say little about calibrated, continuous scores")))  # fmt: skip
    if "reliability" in statistics and len(statistics["reliability"]):
        parts.append(_html_table(reliability_view(statistics["reliability"]), (
            "How many raters are enough (split halves of the raters, Spearman-Brown): r_half, the Spearman between "
            "two random halves' item means; R_full, the reliability of the whole panel's means; r1, of one rater; "
            "raters per item needed for a reliability of 0.8 and 0.9 (range: from r1's 95% band over the splits)")))  # fmt: skip
    return parts


def _retest_view(retest: pd.DataFrame, max_raters: int = 30) -> tuple[pd.DataFrame, str]:
    """The test-retest table as shown (all raters, then each rater; beyond ``max_raters`` raters
    only those whose answers moved most) and what the rows after the first are."""
    pooled, raters = retest.iloc[:1], retest.iloc[1:]
    shown = "each rater"
    if len(raters) > max_raters:
        raters = raters.sort_values(["mean_abs_diff", "rater"], ascending=[False, True], kind="stable").head(max_raters)
        shown = f"the {max_raters} of {len(retest) - 1} raters whose answers moved most"
    view = pd.concat([pooled.assign(rater="all raters"), raters], ignore_index=True)
    view["interval"] = [interval_text(a, b) for a, b in zip(view["ci_low"], view["ci_high"])]
    columns = ["rater", "n_pairs", "mean_abs_diff", "share_equal", "spearman", "pearson", "icc", "interval", "note"]
    return view[columns].rename(columns={"n_pairs": "pairs", "mean_abs_diff": "mean |difference|"}), shown


def _needed(row, target: str) -> str:
    m, low, high = (row[f"m_{target}{end}"] for end in ("", "_low", "_high"))
    if pd.isna(m):
        return "not reached"
    return f"{m:.0f}" if low == high or pd.isna(low) or pd.isna(high) else f"{m:.0f} ({low:.0f}-{high:.0f})"


def reliability_view(summary: pd.DataFrame) -> pd.DataFrame:
    """The split-half summary as a reader wants it: values with their 95% ranges over the splits.

    Parameters
    ----------
    summary : pd.DataFrame
        The reliability summaries (one row per dataset and stage).

    Returns
    -------
    pd.DataFrame
        One row per summary row: the values, ``R_full 95%`` as text, raters for 0.8 and 0.9, note.
    """
    return pd.DataFrame(
        {
            "dataset": summary["dataset"],
            "ratings": summary["stage"],
            "raters per item": summary["observed_raters"],
            "splits": summary["n_splits"],
            "r_half": summary["r_half"],
            "R_full": summary["r_full"],
            "R_full 95%": [interval_text(a, b) for a, b in zip(summary["r_full_low"], summary["r_full_high"])],
            "r1": summary["r1"],
            "raters for 0.8": [_needed(row, "0.8") for _, row in summary.iterrows()],
            "raters for 0.9": [_needed(row, "0.9") for _, row in summary.iterrows()],
            # why splits have no value (a table of an older run has no note)
            "note": summary["note"] if "note" in summary else "",
        }
    )


def _model_sections(statistics: dict) -> list[str]:
    """Every two models compared (paired bootstrap and Williams' test) and the minimum significant
    differences of the dataset."""
    parts = []
    diffs = statistics.get("differences")
    if diffs is not None and len(diffs):
        cols = ["model_a", "model_b", "metric", "n_used", "value_a", "value_b", "difference", "ci_low", "ci_high"]
        cols += ["p", "p_holm", "r_ab", "williams_t", "williams_p", "williams_p_holm", "zou_low", "zou_high", "note"]
        level = confidence_labels(diffs.get("confidence", []))
        parts.append(_html_table(diffs[[c for c in cols if c in diffs]], (
            f"Two models on the same gold, by Spearman and by Pearson: each model's correlation, their difference "
            f"with its {level} paired-bootstrap CI and p, Williams' test of the two dependent correlations (r_ab: the "
            f"correlation between the models' predictions) and Zou's (2007) {level} CI of the difference; p_holm "
            "and williams_p_holm: Holm-adjusted over this dataset's model pairs, the p values to read when looking "
            "for any pair that differs. Below the configured number of shared items no test is run (note). The two "
            "tests usually agree; where they do not, the difference is near the edge")))  # fmt: skip
    msd = statistics.get("msd")
    if msd is not None and len(msd):
        parts.append(_html_table(msd.drop(columns=["dataset"]), (
            "Minimum significant difference (after Rastogi et al. 2015): for the best Spearman r_best among the "
            "models that score nearly all items (model, on n of the dataset's n_items; scoring.msd_min_coverage), "
            "the smallest drop d below r_best that Williams' test finds significant (p < alpha), for two models "
            "whose predictions correlate r_jk (fixed levels; observed: with model_k, the next best such model). "
            "The more alike two models, the smaller the difference that counts; note: why there is none. "
            "items_d02, items_d05, items_d10: the items a dataset needs for Williams' test to detect a Spearman "
            "difference of 0.02, 0.05, 0.10 below r_best with 80% power (normal approximation): the items "
            "counterpart of the raters needed")))  # fmt: skip
    return parts


AUDIT_SHOWN = 20  # findings shown per check on a page (the table has them all)


def _gold_precision_section(gold: pd.DataFrame) -> str:
    """How precisely the answers fix the gold: item intervals, the share of item pairs they resolve (section 5, 13)."""
    with_ci = gold["ci_low"].notna() if "ci_low" in gold else pd.Series(False, index=gold.index)
    half = ((gold["ci_high"] - gold["ci_low"]) / 2)[with_ci] if with_ci.any() else pd.Series(dtype=float)
    level = confidence_labels(gold.get("confidence", []))
    view = pd.DataFrame(
        {
            "items": [len(gold)],
            "with an interval": [int(with_ci.sum())],
            "median half-width": [float(half.median()) if len(half) else np.nan],
            "largest half-width": [float(half.max()) if len(half) else np.nan],
            "pairs resolved": [float(gold["resolved_share"].mean()) if "resolved_share" in gold else np.nan],
        }
    )
    bws = "basis" in gold and len(gold) and str(gold["basis"].iloc[0]).startswith("bws")  # intervals not t
    return _html_table(view, bws_precision_text(level) if bws else (
        f"How precise the gold standard is: each item's mean has a {level} Student's t interval from its ratings "
        "(half-widths on the dataset's scale; an item needs two ratings), and of every two items, the share whose "
        f"order Welch's test resolves at that level. Models are ranked on the order of the items: where most pairs "
        "are unresolved, a model's Spearman rests on differences the raters did not make"))  # fmt: skip


#: each audit check as a reader names it, and what a finding of it means
AUDIT_CHECK_TEXT = {
    "released_mean": ("released mean differs", "the mean released with the data is not the mean of the ratings"),
    "spreadsheet_date": ("score turned into a date", "a spreadsheet stored a score as a date (3-4 became 3 April)"),
    "text_number": ("number stored as text", "a score stored as text (surrounding spaces, a decimal comma)"),
    "duplicate_pair": ("pair listed twice", "the same pair appears in two rows"),
    "reversed_pair": ("pair in both orders", "a/b and b/a both appear (the same item when pairs are symmetric)"),
    "shifted_row": (
        "row repeats the next row's scores",
        "a row's scores equal the next row's: rows shifted by a sort or a paste, or spelling variants given the "
        "same ratings",
    ),
    "single_rating": ("item with one rating", "an item only one rater rated: its mean is one opinion"),
    "rater_mean": ("rater's mean far off", "a rater whose mean is more than the calibration threshold from the others'"),
}


def _audit_sections(audit: pd.DataFrame) -> list[str]:
    """The dataset audit: findings per check (named as a reader would, with what each means), then
    the first findings of each check, one row per item (a pair listed twice is one finding however
    many raters' cells show it; ``cells`` counts them)."""
    counts = audit["check"].value_counts()
    items = audit.groupby("check")["item_id"].nunique() if len(audit) else pd.Series(dtype=int)
    overview = pd.DataFrame(
        {
            "check": [AUDIT_CHECK_TEXT[c][0] for c in CHECKS],
            "what it means": [AUDIT_CHECK_TEXT[c][1] for c in CHECKS],
            "items": [int(items.get(c, 0)) for c in CHECKS],
            "findings": [int(counts.get(c, 0)) for c in CHECKS],
        }
    )
    parts = [_html_table(overview, (
        "Dataset audit: what the data say against what was released with them. A finding is something to check in "
        "the source, not necessarily an error"))]  # fmt: skip
    if len(audit):
        # the unit of a finding: its item, or its rater for a rater's finding (no item)
        unit = audit["item_id"].where(audit["item_id"].notna(), "rater " + audit["rater"].astype(str))
        audit = audit.assign(unit=unit)
        cells = audit.groupby(["check", "unit"], sort=False)["check"].transform("size")
        per_item = audit.assign(cells=cells).drop_duplicates(["check", "unit"])
        shown = per_item.groupby("check", sort=False).head(AUDIT_SHOWN)
        more = f" (the first {AUDIT_SHOWN} items of each check; every finding in results/audit/)"
        shown = shown.assign(check=[AUDIT_CHECK_TEXT[c][0] for c in shown["check"]])
        cols = ["check", "item_id", "cells", "rater", "source_file", "source_row", "column", "raw_value", "detail"]
        parts.append(_html_table(shown[cols], f"Dataset audit: the findings, one row per item{more}"))
    return parts


def write_json(path, data: dict) -> None:
    """Write ``data`` as sorted, indented JSON (no NaN), its directory made where missing.

    Parameters
    ----------
    path : str or Path
        The file.
    data : dict
        What it holds.
    """
    write(path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def _cell(row) -> str:
    if pd.isna(row["value"]):
        return f'<td class="flag">{html.escape(row["note"] or "no value")}</td>'
    ci = f"[{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]"
    oov = "" if pd.isna(row["oov_pairs"]) else f"<br><small>OOV pairs {row['oov_pairs']:.1%}</small>"
    return f"<td><b>{_fmt(row['value'])}</b><br><small>{ci}</small>{oov}</td>"


def _headline_matrix(head: pd.DataFrame) -> str:
    """Datasets x models: the headline value, its CI and the share of pairs with an OOV word."""
    models = sorted(head["model"].unique())
    cells = {(r["dataset"], r["model"]): _cell(r) for _, r in head.iterrows()}
    metric = head.groupby("dataset")["metric"].first()
    msd = head.groupby("dataset")["msd"].first()
    names = {"spearman": "Spearman", "ag_score": "A&amp;G score"}
    header = "<th>dataset</th>" + "".join(f"<th>{html.escape(m)}</th>" for m in models) + "<th>msd</th>"
    body = "".join(
        f"<tr><th>{html.escape(d)} <small>({names[metric[d]]})</small></th>"
        + "".join(cells.get((d, m), "<td></td>") for m in models)
        + f"<td>{_fmt(msd[d])}</td></tr>"
        for d in sorted(metric.index)
    )
    caption = (
        "Every dataset and model: Spearman's rho (A&amp;G score where a dataset has only comparisons), "
        f"{confidence_labels(head.get('confidence', []))} bootstrap CI, share of pairs with an OOV word; msd: the smallest Spearman difference between two models on the "
        "dataset that is significant at p &lt; 0.05 (Williams' test, Rastogi et al. 2015): a smaller gap between "
        "two cells of a row is no evidence that one model is better"
    )
    return f'<p class="caption">{caption}</p><table class="data matrix"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def _leaderboard_links() -> str:
    """Where the leaderboard files are, linked from the front page (relative: the links hold in the
    archive and wherever the results directory is copied)."""
    here = posixpath.dirname(RESULTS["report_index"])
    links = ", ".join(
        f'<a href="{html.escape(posixpath.relpath(RESULTS[key], here))}">{key.split("_")[1]}</a>'
        for key in ("leaderboard_md", "leaderboard_tex", "leaderboard_tsv")
    )
    return (
        f"<p>The same scores for a paper, the best model of each dataset marked, with its minimum significant "
        f"difference (Markdown and TSV: models as rows; LaTeX: a table* float, models as columns): {links}.</p>"
    )


def index_page(
    datasets: list[str],
    summary: pd.DataFrame,
    clean: pd.DataFrame,
    crosslingual: pd.DataFrame | None,
    agreement: pd.DataFrame | None = None,
    reliability: pd.DataFrame | None = None,
    audit: dict[str, pd.DataFrame] | None = None,
    differences: pd.DataFrame | None = None,
    releases: dict[str, dict] | None = None,
    footer: str = "",
) -> str:
    """The front page: the answer first (models x datasets, agreement across datasets), then the
    dataset pages and every table; ``reliability`` (the split-half summaries) and ``audit`` (every
    dataset's findings) give a table across datasets each; ``releases`` (dataset -> its release's
    ``files`` and ``meta``) a list of the releases.

    Parameters
    ----------
    datasets : list[str]
        The datasets whose pages are linked, in order.
    summary : pd.DataFrame
        The score summary of every dataset and model (empty: no score tables).
    clean : pd.DataFrame
        Every dataset's cleaning row (empty: no cleaning table).
    crosslingual : pd.DataFrame | None
        The cross-lingual correlations, with their CIs (None or empty: no table).
    agreement : pd.DataFrame | None, optional
        The agreement overview across datasets (None or empty: no table).
    reliability : pd.DataFrame | None, optional
        The datasets' reliability summaries (None or empty: no table).
    audit : dict[str, pd.DataFrame] | None, optional
        Dataset -> its audit findings (None or empty: no table).
    differences : pd.DataFrame | None, optional
        The model differences across datasets (None or empty: no table).
    releases : dict[str, dict] | None, optional
        Dataset -> its release's ``files`` and ``meta`` (None or empty: no list).
    footer : str, optional
        The page's footer line (:func:`run_footer`).

    Returns
    -------
    str
        The front page's HTML document.
    """
    parts = []
    if len(summary):
        parts.append(_headline_matrix(headline(summary)))
        parts.append(_leaderboard_links())
    # the dataset pages right under the answer, not below every table
    parts.append("<p>Per dataset: figures and tables.</p><ul>")
    parts += [f'<li><a href="{html.escape(d)}/index.html">{html.escape(d)}</a></li>' for d in datasets]
    parts.append("</ul>")
    if agreement is not None and len(agreement):
        parts.append(
            _html_table(
                agreement,
                "Agreement of the raters of each dataset: raters before filtering, excluded as outliers, items; "
                "mean pairwise Spearman, Spearman with the other raters' means (vs_rest) and Krippendorff's alpha "
                "(interval) of the raters kept, and ICC(k), the intraclass correlation of their mean (ICC(2,k); "
                "ICC(1,k) for rating slots): where raters were excluded, optimistic, since the same ratings "
                "chose who was kept; retest ICC, the test-retest ICC(2,1) of the raters' repeated answers to the "
                "same pair (blank where no rater answered a pair twice)",
            )
        )
    if reliability is not None and len(reliability):
        parts.append(_html_table(reliability_view(reliability), (
            "How many raters are enough, per dataset (split halves of the raters, Spearman-Brown): the reliability "
            "of the item means with the raters each item has (R_full) and of one rater (r1), and the raters per "
            "item a new dataset like it would need for 0.8 and 0.9")))  # fmt: skip
    if audit:
        parts.append(_html_table(_audit_overview(audit), (
            "Dataset audit: findings per dataset and check (the dataset pages list them; "
            f"{RESULTS['audit']} has every one)")))  # fmt: skip
    if releases:
        parts += _releases_list(releases)
    if len(summary):
        parts.append(_every_score_table(summary))
    if len(clean):
        parts.append(_cleaning_table(clean))
    if differences is not None and len(differences):
        parts.append(_differences_table(differences))
    if crosslingual is not None and len(crosslingual):
        parts.append(
            _html_table(
                crosslingual,
                "Translations: Spearman between the gold standards of two languages over shared items, with its "
                f"{confidence_labels(crosslingual.get('confidence', []))} bootstrap CI over those items",
            )
        )
    return _page("simgold report", "".join(parts), footer=footer)


def _releases_list(releases: dict[str, dict]) -> list[str]:
    """The front page's list of the releases, each with its files."""
    parts = []
    parts.append("<p>The releases: each gold standard with its dataset card, for publishing beside a paper.</p><ul>")
    parts += [
        f"<li><strong>{html.escape(d)}</strong>{_release_html(d, r['files'], r['meta'], '../release')}</li>"
        for d, r in releases.items()
    ]
    parts.append("</ul>")
    return parts


def _every_score_table(summary: pd.DataFrame) -> str:
    """The front page's table of every dataset and model: the main metrics with their CIs."""
    main = flag_scores(summary)
    main = main[(main["subset"] == "all") & main["metric"].isin(MAIN_METRICS + ("pearson", "kendall"))]
    cols = ["dataset", "model", "metric", "value", "ci_low", "ci_high", "n_used", "n_total"]
    cols += ["oov_pairs", "oov_words", "human_ceiling", "raters_below", "flag", "note"]
    level = confidence_labels(main.get("confidence", []))
    return _html_table(main[[c for c in cols if c in main]], (
        f"Every dataset and model: scores with {level} CIs, OOV shares, the human ceiling (the raters' mean "
        "leave-one-out Spearman) and raters_below: the share of the raters kept whose leave-one-out Spearman "
        "is below the model's Spearman (where the model would rank among them)"))  # fmt: skip


def _cleaning_table(clean: pd.DataFrame) -> str:
    """The front page's table of the datasets after cleaning, with the share of values rejected."""
    cols = ["dataset", "language", "kind", "n_items", "n_raters", "n_ratings", "n_rejects", "ledger_balanced"]
    view = clean[cols]
    if "n_values_rejected" in clean:  # a run before the count: no column
        share = clean["n_values_rejected"] / clean["n_values_held"].where(clean["n_values_held"] > 0)
        view = view.assign(values_rejected=clean["n_values_rejected"], share_rejected=share)
    return _html_table(view, (
        "Datasets after cleaning: n_rejects counts every ledger row (headers and blanks too); values_rejected, "
        "the cells that held a value and were rejected, and their share of such cells (the dataset pages "
        "show them by reason, with examples)"))  # fmt: skip


def _differences_table(differences: pd.DataFrame) -> str:
    """The front page's table of every two models on every dataset (Spearman), with Williams' test."""
    spearman = differences[differences["metric"] == "spearman"]
    cols = ["dataset", "model_a", "model_b", "n_used", "difference", "williams_p", "williams_p_holm",
            "williams_q_bh", "note"]  # fmt: skip
    return _html_table(spearman[[c for c in cols if c in spearman]], (
        "Every two models on every dataset (Spearman; the dataset pages have Pearson, the bootstrap and Zou's "
        "interval): Williams' p, Holm-adjusted over the dataset's model pairs, and williams_q_bh, the "
        "Benjamini-Hochberg q value over every dataset: report a difference as found where q is below the "
        "false discovery rate you accept"))  # fmt: skip


def _audit_overview(audits: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Datasets x checks (as a reader names them): the number of findings of each audited dataset
    (also where none)."""
    names = [AUDIT_CHECK_TEXT[c][0] for c in CHECKS]
    rows = [
        {"dataset": name, **{n: int((found["check"] == c).sum()) for c, n in zip(CHECKS, names)}}
        for name, found in audits.items()
    ]
    return pd.DataFrame(rows, columns=["dataset", *names])


def write(path, text: str) -> None:
    """Write ``text`` as UTF-8, the file's directory made where missing.

    Parameters
    ----------
    path : str or Path
        The file.
    text : str
        What it holds.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")
