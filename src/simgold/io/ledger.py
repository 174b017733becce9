"""The rejects ledger's vocabulary and how a rejection is said (docs/methods.md section 1): the
reasons a cell goes to the ledger, which of them reject a value, the line a run prints for a
dataset with rejected values, and the examples a page and ``simgold rejects`` show.

A light module (pandas only): the end of a run, the report and the command line read it without
the readers and the config checker that cleaning needs.
"""

from __future__ import annotations

import pandas as pd

__all__ = [
    "REASONS",
    "BWS_REASONS",
    "ATTENTION_REASONS",
    "DESIGN_REASONS",
    "BLANK",
    "CHECKS",
    "EXCLUDED_RATER",
    "RESOLVED",
    "NOT_A_REJECTED_VALUE",
    "NOT_DATA",
    "REJECTION_HINTS",
    "rejected_text",
    "rejection_line",
    "rejected_examples",
    "set_aside",
    "set_aside_text",
    "normalised_text",
    "counted_apart_text",
]

REASONS = (
    "missing",  # a missing marker or an empty cell
    "short_row",  # the row ends before this rating column
    "unnamed_column",  # a value in a column without a header name
    "non_numeric",
    "non_finite",
    "out_of_scale",
    "bad_item",  # the row's words (or context, category) are unusable
    "bad_rater",  # long layout: the rater id is empty
    "duplicate",
    "duplicate_superseded",
    "duplicate_merged",
    "invalid_ranking",
    "rater_incomplete",
    "attention_check",  # an answer to an attention check (datasets' attention key): not an item, not a rejection
    "attention_failed",  # a rating of a rater who failed more attention checks than attention.max_failures
    "design_unassigned",  # a rating of a pair the dataset's design did not ask its rater
    "design_unanswered",  # a pair the design asked a rater, with no row in the returned file (a deleted row)
    "empty_rater",  # a rater with no value at all in a source: an empty column, not a few gaps
    "extra_fields",  # a row with more fields than the header: rejected whole, never shifted
    "ignored_row",  # not data: the header, a title row, a comment line, the header repeated
    "ignored_column",  # a column the config does not name
    # a Best-Worst Scaling answer (kind bws), rejected whole: one ledger row per answer
    "bws_malformed_item",  # an item without its separator, or with an empty word
    "bws_wrong_size",  # k outside 3..8, or not the k of the answer's tuple elsewhere
    "bws_repeated_item",  # an item twice in one tuple
    "bws_unknown_item",  # an item the dataset's item_list does not hold
    "bws_blank_choice",  # no best or no worst
    "bws_not_in_tuple",  # the best or the worst is not one of the tuple's items
    "bws_position_out_of_range",  # the best or the worst is not a position 1..k
    "bws_best_is_worst",
    "bws_repeated_answer",  # the same rater answered the same tuple again: the later answer
)

#: the reasons of a rejected BWS answer (kind bws only: a summary of another kind has no column for them)
BWS_REASONS = tuple(r for r in REASONS if r.startswith("bws_"))


#: the reasons of the attention checks (a dataset with an ``attention`` key only: a summary of another
#: dataset has no column for them)
ATTENTION_REASONS = ("attention_check", "attention_failed")
#: the reasons of a dataset's design (a dataset with a ``design`` key only)
DESIGN_REASONS = ("design_unassigned", "design_unanswered")

#: ledger reasons of a value cell that held no value: a blank, a missing marker
BLANK = ("missing", "short_row", "empty_rater", "design_unanswered")
#: ledger reasons of answers the duplicates rule resolved as configured
RESOLVED = ("duplicate_superseded", "duplicate_merged")
#: ledger reasons of an answer to an attention check: the answer is kept in the ledger, not rejected
CHECKS = ("attention_check",)
#: ledger reasons of the answers of a rater the attention checks excluded: the rater is set aside,
#: not the values (several careless raters must not stop a study's cleaning at max_rejected)
EXCLUDED_RATER = ("attention_failed",)
#: none of these is a rejected value
NOT_A_REJECTED_VALUE = BLANK + RESOLVED + CHECKS + EXCLUDED_RATER


def rejected_text(rejected: dict[str, int]) -> str:
    """``out_of_scale 10,325, non_numeric 4``: the rejected values by reason, most first.

    Parameters
    ----------
    rejected : dict of str to int
        Rejected values by reason.

    Returns
    -------
    str
        The phrase.
    """
    ordered = sorted(rejected.items(), key=lambda kv: (-kv[1], REASONS.index(kv[0])))
    return ", ".join(f"{reason} {count:,}" for reason, count in ordered)


#: what to check in the config when most rejected values have this reason
REJECTION_HINTS = {
    "out_of_scale": "check 'scale'",
    "non_numeric": "check 'missing' (the missing markers), 'decimal' and the value columns",
    "non_finite": "check the value columns",
    "bad_item": "check 'words' and 'unicode'",
    "bad_rater": "check 'rater'",
    "unnamed_column": "check the header row ('skip_rows', 'header')",
    "extra_fields": "check 'sep' and the quoting",
    "duplicate": "check 'duplicates'",
    "invalid_ranking": "check the rank columns",
    "rater_incomplete": "check 'min_answered'",
    "attention_failed": "check 'attention' (the expected answers, tolerance, max_failures)",
    "design_unassigned": "check 'design' (the design the files answer) and that each file went to its rater",
    "bws_not_in_tuple": "check 'best', 'worst', 'choice' and 'casefold'",
    "bws_position_out_of_range": "check 'choice' (item, position or letter)",
    "bws_malformed_item": "check 'items' and 'separator'",
    "bws_unknown_item": "check 'item_list'",
}


def rejection_line(summary: pd.Series) -> str | None:
    """One line on a dataset's rejected values (None when none was rejected), e.g.
    ``ja-noun: 10,325 of 10,559 value cells rejected (97.8%): out_of_scale 10,325 - check 'scale'``.

    Parameters
    ----------
    summary : pandas.Series
        A dataset's cleaning summary.

    Returns
    -------
    str or None
        The line.

    Examples
    --------
    >>> row = pd.Series({"dataset": "d", "n_values_held": 400, "n_values_rejected": 300,
    ...                  "values_rejected": "out_of_scale 296, non_numeric 4"})
    >>> rejection_line(row)
    "d: 300 of 400 value cells rejected (75.0%): out_of_scale 296, non_numeric 4 - check 'scale'"
    """
    rejected, held = int(summary.get("n_values_rejected", 0) or 0), int(summary.get("n_values_held", 0) or 0)
    if not rejected:
        return None
    reasons = str(summary["values_rejected"])
    top = reasons.split(" ", 1)[0]
    hint = f" - {REJECTION_HINTS[top]}" if top in REJECTION_HINTS else ""
    return (
        f"{summary['dataset']}: {rejected:,} of {held:,} value cells rejected ({rejected / held:.1%}): {reasons}{hint}"
    )


NOT_DATA = ("ignored_row", "ignored_column")  # header, title and comment cells; columns the config does not name


def rejected_examples(rejects: pd.DataFrame, per_reason: int = 5) -> pd.DataFrame:
    """The ledger's rejected values by reason (most first), with ``count`` and up to ``per_reason``
    examples each (file, row, column, value, detail): what a dataset page and ``simgold rejects``
    show. Blanks, missing markers, answers the duplicates rule resolved and cells that are not
    data are left out (``set_aside`` counts them).

    Parameters
    ----------
    rejects : pandas.DataFrame
        The ledger.
    per_reason : int
        Examples kept per reason.

    Returns
    -------
    pandas.DataFrame
        One row per example.

    Examples
    --------
    >>> ledger = pd.DataFrame({"source_file": "s.csv", "source_row": [2, 3, 4, 1],
    ...     "column": ["r1", "r1", "r2", "r1"], "raw_value": ["12", "13", "", "r1"],
    ...     "reason": ["out_of_scale", "out_of_scale", "missing", "ignored_row"], "detail": ""})
    >>> rejected_examples(ledger, 1)[["reason", "count", "source_row", "raw_value"]]
             reason  count  source_row raw_value
    0  out_of_scale      2           2        12
    """
    data = rejects[~rejects["reason"].isin([*NOT_A_REJECTED_VALUE, *NOT_DATA])]
    counts = data["reason"].value_counts()
    order = sorted(counts.index, key=lambda r: (-counts[r], REASONS.index(r) if r in REASONS else 99))
    shown = data.groupby("reason", sort=False).head(per_reason)
    shown = shown.assign(
        count=shown["reason"].map(counts), order=shown["reason"].map({r: i for i, r in enumerate(order)})
    )
    columns = ["reason", "count", "source_file", "source_row", "column", "raw_value", "detail"]
    return shown.sort_values(["order"], kind="stable")[columns].reset_index(drop=True)


def set_aside(counts) -> dict[str, int]:
    """The ledger rows that are not rejected values, counted apart: blanks and missing markers,
    answers the duplicates rule resolved, answers to attention checks and of the raters they excluded,
    and cells that are not data
    (header, title, comment, columns not named). ``counts``: ledger rows by reason (a mapping, e.g. a ``value_counts``).

    Parameters
    ----------
    counts : mapping of str to int
        Ledger rows by reason.

    Returns
    -------
    dict of str to int
        The rows counted apart, by what they are.
    """
    n = lambda reasons: int(sum(counts.get(r, 0) for r in reasons))  # noqa: E731
    return {
        "blank or missing": n(BLANK),
        "resolved by the duplicates rule": n(RESOLVED),
        "answers to attention checks": n(CHECKS),
        "answers of raters the attention checks excluded": n(EXCLUDED_RATER),
        "header, title or comment cells": n(("ignored_row",)),
        "cells of columns the config does not name": n(("ignored_column",)),
    }


def set_aside_text(counts) -> str:
    """``set_aside`` as a phrase, "" when nothing was set aside.

    Parameters
    ----------
    counts : mapping of str to int
        Ledger rows by reason.

    Returns
    -------
    str
        The phrase.

    Examples
    --------
    >>> set_aside_text({"missing": 5, "duplicate_superseded": 109, "ignored_row": 26})
    '5 blank or missing; 109 resolved by the duplicates rule; 26 header, title or comment cells'
    """
    return "; ".join(f"{n:,} {what}" for what, n in set_aside(counts).items() if n)


def normalised_text(count: int) -> str:
    """What the word normalisation changed (``count`` word cells; a cleaning summary's
    ``n_words_normalised``), as the log, a dataset page, the card and ``simgold rejects`` say it;
    "" when nothing.

    >>> normalised_text(3)
    '3 word cell(s) normalised (Unicode form, invisible characters removed, Unicode spaces or tabs made one space); twins merged as the duplicates rule says'

    Parameters
    ----------
    count : int
        The word cells normalisation changed.

    Returns
    -------
    str
        The sentence ("" for none).
    """
    if not count or count != count:  # none, or a summary of a run before the count (NaN)
        return ""
    return (
        f"{int(count):,} word cell(s) normalised (Unicode form, invisible characters removed, Unicode spaces or"
        " tabs made one space); twins merged as the duplicates rule says"
    )


def counted_apart_text(counts, normalised: int = 0) -> str:
    """The sentences after a dataset's rejection line: the ledger rows that are not rejected values
    (``counts``: ledger rows by reason) and the word cells the normalisation changed; "" when
    neither.

    >>> counted_apart_text({"missing": 5, "ignored_row": 26}, normalised=2)
    ' Counted apart, not rejected values: 5 blank or missing; 26 header, title or comment cells. 2 word cell(s) normalised (Unicode form, invisible characters removed, Unicode spaces or tabs made one space); twins merged as the duplicates rule says.'

    Parameters
    ----------
    counts : mapping of str to int
        Ledger rows by reason.
    normalised : int
        The word cells normalisation changed.

    Returns
    -------
    str
        The sentences ("" for none).
    """
    apart = set_aside_text(counts)
    text = f" Counted apart, not rejected values: {apart}." if apart else ""
    words = normalised_text(normalised)
    return text + (f" {words[0].upper()}{words[1:]}." if words else "")
