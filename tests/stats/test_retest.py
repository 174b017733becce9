"""Test-retest (intra-rater) reliability: the cleaner keeps a rater's repeated answers before the
duplicates rule decides (the ``repeats`` table), and ``retest_table`` pairs consecutive answers.

The pairs are taken here from the raw sheets themselves (openpyxl, csv), not from the cleaner; the
figures are checked against scipy and a plain two-way ANOVA loop."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from simgold.stages.agreement import retest_table
from simgold.stages.clean import clean_dataset
from simgold.stats.retest import consecutive_answers, retest_reliability

ROOT = Path(__file__).resolve().parents[2]


def icc_a1_loop(first, second) -> float:
    """ICC(2,1) (McGraw & Wong's ICC(A,1)) of n subjects x 2 occasions, sums of squares by loops."""
    rows = list(zip(first, second))
    n, k = len(rows), 2
    grand = sum(a + b for a, b in rows) / (n * k)
    ss_rows = sum(k * ((a + b) / k - grand) ** 2 for a, b in rows)
    col_means = [sum(r[j] for r in rows) / n for j in range(k)]
    ss_cols = sum(n * (m - grand) ** 2 for m in col_means)
    ss_total = sum((x - grand) ** 2 for r in rows for x in r)
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = (ss_total - ss_rows - ss_cols) / ((n - 1) * (k - 1))
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def test_hand_computed_example():
    # subjects (1,1) (2,3) (4,4) (5,4) (6,6): row means 1, 2.5, 4, 4.5, 6, grand mean 3.6;
    # SS rows = 2 x 14.7 = 29.4 (MSR 7.35), both occasions average 3.6 (MSC 0), SS total 30.4,
    # SS error 1.0 (MSE 0.25): ICC(2,1) = (7.35 - 0.25) / (7.35 + 0.25 - 2 x 0.25 / 5) = 7.1 / 7.5
    r = retest_reliability(np.array([1.0, 2, 4, 5, 6]), np.array([1.0, 3, 4, 4, 6]), confidence=0.95)
    assert r.icc == pytest.approx(7.1 / 7.5, abs=1e-12)
    assert (r.n_pairs, r.mean_abs_diff, r.share_equal) == (5, pytest.approx(0.4), pytest.approx(0.6))


@pytest.mark.parametrize("seed", range(5))
def test_figures_equal_scipy_and_an_anova_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    first = rng.integers(0, 7, n).astype(float)
    second = np.clip(first + rng.integers(-2, 3, n), 0, 6)
    if np.ptp(first) == 0 or np.ptp(second) == 0 or (first == second).all():
        pytest.skip("degenerate draw")
    r = retest_reliability(first, second, confidence=0.95)
    assert r.spearman == pytest.approx(scipy_stats.spearmanr(first, second)[0], abs=1e-12)
    assert r.pearson == pytest.approx(scipy_stats.pearsonr(first, second)[0], abs=1e-12)
    assert r.icc == pytest.approx(icc_a1_loop(first, second), abs=1e-12)
    assert r.ci_low < r.icc < r.ci_high
    assert r.mean_abs_diff == pytest.approx(np.mean(np.abs(first - second)))
    assert r.share_equal == pytest.approx(np.mean(first == second))


def test_edges_say_why():
    few = retest_reliability(np.array([1.0, 2]), np.array([1.0, 3]), confidence=0.95)
    assert few.n_pairs == 2 and few.mean_abs_diff == 0.5 and np.isnan(few.spearman) and "below 3" in few.note
    flat = retest_reliability(np.array([2.0, 2, 2]), np.array([1.0, 2, 3]), confidence=0.95)
    assert np.isnan(flat.icc) and "do not vary" in flat.note
    same = retest_reliability(np.array([1.0, 2, 3]), np.array([1.0, 2, 3]), confidence=0.95)
    assert same.icc == 1.0 and np.isnan(same.ci_low) and "no interval" in same.note  # never a zero-width interval
    none = retest_reliability(np.array([]), np.array([]), confidence=0.95)
    assert none.n_pairs == 0 and "no rater" in none.note


def test_consecutive_answers_pair_each_answer_with_the_one_before():
    group, first, second = consecutive_answers(
        np.array([5, 5, 5, 2, 2, 9]), np.array([3, 1, 2, 2, 1, 1]), np.array([30.0, 10, 20, 2, 1, 9])
    )
    assert group.tolist() == [2, 5, 5] and first.tolist() == [1, 10, 20] and second.tolist() == [2, 20, 30]


# -------------------------------------------------------------------------------- the cleaner keeps the pair

SHEET = "w1,w2,r1,r2\nmoney,cash,9,8\nbank,money,8,7\nmoney,cash,10,nan\nmoney,bank,6,5\n"


def _clean(tmp_path, policy, text=SHEET, **kw):
    (tmp_path / "d.csv").write_text(text, encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 10], "duplicates": policy}
    spec["sources"] = [{"path": "d.csv", "words": ["w1", "w2"], "raters": "^r", **kw.pop("source", {})}]
    return clean_dataset("t", {**spec, **kw}, base_dir=str(tmp_path))


def _answers(t) -> list[tuple]:
    words = t["items"].set_index("item_id")
    return [
        (words.loc[r.item_id, "word1"], words.loc[r.item_id, "word2"], r.rater, r.answer, r.score, r.source_row)
        for r in t["repeats"].itertuples()
    ]


# money/cash: r1 answered rows 2 and 4 (r2's second answer is missing); bank/money: rows 3 and 5 (reversed)
EXPECTED = [
    ("bank", "money", "r1", 1, 8.0, 3),
    ("bank", "money", "r1", 2, 6.0, 5),
    ("bank", "money", "r2", 1, 7.0, 3),
    ("bank", "money", "r2", 2, 5.0, 5),
    ("money", "cash", "r1", 1, 9.0, 2),
    ("money", "cash", "r1", 2, 10.0, 4),
]


@pytest.mark.parametrize("policy", ["reject", "first", "last", "mean", "all"])
def test_repeats_are_kept_whatever_the_duplicates_rule(tmp_path, policy):
    t = _clean(tmp_path, policy)
    got = sorted(_answers(t), key=lambda a: (a[0], a[2], a[3]))
    assert got == EXPECTED
    if policy == "all":  # the repetitions are items of their own; the repeats name the first occurrence
        assert set(t["repeats"]["item_id"]) == set(t["items"].query("occurrence == 1")["item_id"])
    retest = retest_table("t", t["repeats"], confidence=0.95)
    assert retest["n_pairs"].tolist() == [3, 2, 1]  # pooled, r1, r2
    assert retest["mean_abs_diff"].iloc[0] == pytest.approx((1 + 2 + 2) / 3)  # |9-10|, |8-6|, |7-5|
    assert t["summary"]["ledger_balanced"].iloc[0]


def test_no_repeats_for_ordered_pairs_slots_or_ragged_positions(tmp_path):
    assert _answers(_clean(tmp_path, "reject", symmetric=False)) == EXPECTED[-2:]  # money/bank is another item
    assert _clean(tmp_path, "last", persistent_raters=False)["repeats"].empty  # slots are not people
    ragged = "money\tcash\t9\t8\nmoney\tcash\t10\t7\n"
    source = {"layout": "ragged", "header": False, "words": [1, 2], "raters": {"from": 3}}
    (tmp_path / "r.txt").write_text(ragged, encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 10], "duplicates": "mean"}
    t = clean_dataset("t", {**spec, "sources": [{"path": "r.txt", **source}]}, base_dir=str(tmp_path))
    assert t["repeats"].empty and len(t["ratings"]) == 2


def test_long_layout_repeats(tmp_path):
    text = "rater;w1;w2;s\nA;hund;kat;2\nA;sol;måne;4\nA;sol;måne;3\nB;hund;kat;1\nB;sol;måne;5\nA;sol;måne;6\n"
    (tmp_path / "l.csv").write_text(text, encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 6], "duplicates": "last"}
    spec["sources"] = [{"path": "l.csv", "layout": "long", "words": ["w1", "w2"], "rater": "rater", "score": "s"}]
    t = clean_dataset("t", spec, base_dir=str(tmp_path))
    assert [(r.rater, r.answer, r.score, r.source_row) for r in t["repeats"].itertuples()] == [
        ("A", 1, 4.0, 3), ("A", 2, 3.0, 4), ("A", 3, 6.0, 7)
    ]  # fmt: skip
    retest = retest_table("t", t["repeats"], confidence=0.95)
    assert retest["n_pairs"].tolist() == [2, 2] and retest["mean_abs_diff"].iloc[0] == pytest.approx(2.0)


# -------------------------------------------------------------------------------- the demo questionnaire


def _sheet_pairs(path: Path, sheet: str, words: tuple[int, int], raters_from: int, header_row: int):
    """(rater, first, second) for every rater who answered a pair in two rows of the sheet, read
    with openpyxl (consecutive repetitions paired), each pair unordered."""
    rows = list(openpyxl.load_workbook(path, read_only=True)[sheet].iter_rows(values_only=True))
    header, data = rows[header_row], rows[header_row + 1 :]
    by_pair: dict = {}
    for row in data:
        key = tuple(sorted(str(row[j]).strip() for j in words))
        by_pair.setdefault(key, []).append(row)
    out = []
    for repeated in (rows for rows in by_pair.values() if len(rows) > 1):
        for j in range(raters_from, len(header)):
            answers = [r[j] for r in repeated if isinstance(r[j], (int, float))]
            out += [(header[j], a, b) for a, b in itertools.pairwise(answers)]
    return out


def test_demo_questionnaire_pairs_counted_from_the_sheet():
    import simgold

    expected = _sheet_pairs(ROOT / "raw/demo/da/sporgeskema.xlsx", "Svar", (0, 1), 3, header_row=1)
    assert len(expected) > 100  # every rater meets the repeated calibration questions
    retest = retest_table("demo-da", simgold.clean("demo-da", base_dir=ROOT, config=ROOT / "config/config.yaml")["repeats"], confidence=0.95)
    pooled = retest.iloc[0]
    first, second = (np.array([p[k] for p in expected], dtype=float) for k in (1, 2))
    assert pooled["n_pairs"] == len(expected) and pooled["n_raters"] == len({p[0] for p in expected})
    assert pooled["mean_abs_diff"] == pytest.approx(np.abs(first - second).mean(), abs=1e-12)
    assert pooled["spearman"] == pytest.approx(scipy_stats.spearmanr(first, second)[0], abs=1e-12)
    assert pooled["icc"] == pytest.approx(icc_a1_loop(first, second), abs=1e-12)
    for rater, row in retest.iloc[1:].set_index("rater").iterrows():
        mine = [(a, b) for r, a, b in expected if r == rater]
        assert row["n_pairs"] == len(mine)
        assert row["mean_abs_diff"] == pytest.approx(np.mean([abs(a - b) for a, b in mine]), abs=1e-12)


def test_wordsim_set1_repeated_pairs(shared, cleaned):
    """WordSim-353 set 1 lists money/cash twice and bank/money in both orders: 13 raters answered
    each twice, read from the .tab file with csv (first 26 answer pairs of the real data)."""
    path = shared / "data/wordsim353/set1.tab"
    with path.open(encoding="utf-8", newline="") as f:
        rows = [[c.strip() for c in r] for r in csv.reader(f, delimiter="\t")]
    header, data = rows[0], rows[1:]
    raters = [j for j, name in enumerate(header) if name.isdigit()]
    by_pair: dict = {}
    for row in data:
        by_pair.setdefault(tuple(sorted(w.lower() for w in row[:2])), []).append(row)
    repeated = {k: v for k, v in by_pair.items() if len(v) > 1}
    assert sorted(repeated) == [("bank", "money"), ("cash", "money")]
    pairs = [(header[j], float(rs[0][j]), float(rs[1][j])) for rs in repeated.values() for j in raters]
    retest = retest_table("ws353-set1", cleaned("ws353-set1")["repeats"], confidence=0.95)  # config/examples/shared-data.yaml
    first, second = (np.array([p[k] for p in pairs]) for k in (1, 2))
    pooled = retest.iloc[0]
    assert (pooled["n_pairs"], pooled["n_items"], pooled["n_raters"]) == (26, 2, 13)
    assert pooled["mean_abs_diff"] == pytest.approx(np.abs(first - second).mean(), abs=1e-12)
    assert pooled["pearson"] == pytest.approx(scipy_stats.pearsonr(first, second)[0], abs=1e-12)
    assert pooled["icc"] == pytest.approx(icc_a1_loop(first, second), abs=1e-12)
    assert pd.isna(pooled["rater"]) and "not independent" in pooled["note"]


def test_interval_at_90_percent_follows_the_configured_level():
    """Issue 41: every other test asks for 0.95, so a slip that ignored the level would pass. The
    hand example (MSR 7.35, MSC 0, MSE 0.25, n = 5, k = 2, ICC 7.1/7.5) with McGraw & Wong's (1996)
    case 2A interval written out here, scipy.stats.f's quantiles at 0.95 (a 90% interval):
    Satterthwaite's v = (a MSC + b MSE)^2 / ((a MSC)^2 / (k - 1) + (b MSE)^2 / ((n - 1)(k - 1)))."""
    first, second = np.array([1.0, 2, 4, 5, 6]), np.array([1.0, 3, 4, 4, 6])
    n, k, msr, msc, mse = 5, 2, 7.35, 0.0, 0.25
    icc = 7.1 / 7.5
    a = k * icc / (n * (1 - icc))
    b = 1 + k * icc * (n - 1) / (n * (1 - icc))
    v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
    f_low, f_high = scipy_stats.f.ppf(0.95, n - 1, v), scipy_stats.f.ppf(0.95, v, n - 1)
    low = n * (msr - f_low * mse) / (f_low * (k * msc + (k * n - k - n) * mse) + n * msr)
    high = n * (f_high * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_high * msr)
    r90 = retest_reliability(first, second, confidence=0.90)
    assert (r90.ci_low, r90.ci_high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    r95 = retest_reliability(first, second, confidence=0.95)
    assert r95.ci_low < r90.ci_low < r90.icc < r90.ci_high < r95.ci_high  # narrower, around the same value
    # and through the stage: the table's level is the one asked for
    repeats = pd.DataFrame({"dataset": "d", "rater": "r", "item_id": [f"i{j}" for j in range(5)] * 2,
                            "answer": [1] * 5 + [2] * 5, "score": np.r_[first, second]})  # fmt: skip
    row = retest_table("d", repeats, 0.90).iloc[0]
    assert (row["ci_low"], row["ci_high"], row["confidence"]) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9), 0.90)
