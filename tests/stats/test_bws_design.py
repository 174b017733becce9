"""Best-Worst Scaling tuple designs: appearances and pair co-occurrence recounted by plain loops over
the tuples (never from the result's own attributes), the issue's sizes with no repeated pair,
small designs at the least spread possible, determinism by seed, the arguments refused."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from simgold.stats.bws_design import TupleDesign, bws_tuples


def recount(tuples: np.ndarray, n_items: int) -> tuple[Counter, float, int]:
    """Appearances, the pair SD (ddof 1) over all n(n-1)/2 pairs and the repeated pairs, by loops."""
    shown, pairs = Counter(), Counter()
    for row in tuples.tolist():
        assert len(set(row)) == len(row), row  # no item twice in a tuple
        shown.update(row)
        pairs.update(combinations(sorted(row), 2))
    every_pair = [pairs.get(pair, 0) for pair in combinations(range(n_items), 2)]
    sd = float(np.std(np.array(every_pair, dtype=float), ddof=1))
    return shown, sd, sum(1 for c in pairs.values() if c > 1)


def assert_balanced(d: TupleDesign, n_items: int, k: int, n_tuples: int) -> tuple[float, int]:
    assert d.tuples.shape == (n_tuples, k) and d.tuples.dtype == np.int64
    assert d.tuples.min() >= 0 and d.tuples.max() < n_items
    shown, sd, repeated = recount(d.tuples, n_items)
    mean = n_tuples * k / n_items
    assert all(abs(shown.get(item, 0) - mean) < 1 for item in range(n_items))
    assert [shown.get(item, 0) for item in range(n_items)] == d.appearances.tolist()
    assert d.pair_sd == pytest.approx(sd, rel=1e-12, abs=1e-15)
    assert d.repeated_pairs == repeated
    assert d.pair_sd >= d.pair_sd_floor * (1 - 1e-12)
    return sd, repeated


@pytest.mark.parametrize("n_items, expected_sd", [(100, 0.42859286), (1000, 0.15312386)])
def test_issue_sizes_have_no_repeated_pair_and_the_least_sd(n_items, expected_sd):
    d = bws_tuples(n_items, k=4, factor=2, seed=3)
    sd, repeated = assert_balanced(d, n_items, 4, 2 * n_items)
    assert repeated == 0 and d.max_pair_count == 1 and d.at_floor
    # no pair repeats: 8 * n_items pair showings of count 1, the rest 0
    showings, n_pairs = 2 * n_items * 6, n_items * (n_items - 1) // 2
    floor = math.sqrt((showings - showings**2 / n_pairs) / (n_pairs - 1))
    assert sd == pytest.approx(floor, rel=1e-12) and sd == pytest.approx(expected_sd, abs=1e-8)
    assert (d.appearances == 8).all() and d.max_appearance_deviation == 0.0


def test_ten_thousand_items_no_repeat():
    d = bws_tuples(10000, k=4, factor=2, seed=0)
    assert d.n_tuples == 20000 and d.repeated_pairs == 0 and d.max_pair_count == 1
    assert (np.bincount(d.tuples.ravel(), minlength=10000) == 8).all()
    assert (np.diff(np.sort(d.tuples, 1), axis=1) > 0).all()


def test_same_seed_same_tuples_byte_for_byte():
    a, b = bws_tuples(300, k=5, factor=1.5, seed=11), bws_tuples(300, k=5, factor=1.5, seed=11)
    assert a.tuples.tobytes() == b.tuples.tobytes() and a.pair_sd == b.pair_sd
    assert bws_tuples(300, k=5, factor=1.5, seed=12).tuples.tobytes() != a.tuples.tobytes()


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7, 8])
def test_k_from_3_to_8(k):
    n_items = 300
    d = bws_tuples(n_items, k=k, factor=2, seed=k)
    assert d.k == k and d.n_tuples == 600
    _, repeated = assert_balanced(d, n_items, k, 600)
    # 600 * k(k-1)/2 pair showings (k = 8: 16,800) over 44,850 pairs: no pair needs to repeat, and none does
    assert not d.repeats_unavoidable and repeated == 0 and d.at_floor


def test_eight_items_k4_factor6_repeats_unavoidable_spread_even():
    d = bws_tuples(8, k=4, factor=6, seed=0)
    sd, repeated = assert_balanced(d, 8, 4, 48)
    # 48 * 6 = 288 pair showings over 28 pairs: 8 pairs 11 times, 20 pairs 10 times is the least spread
    counts = Counter()
    for row in d.tuples.tolist():
        counts.update(combinations(sorted(row), 2))
    assert sorted(Counter(counts.values()).items()) == [(10, 20), (11, 8)]
    assert repeated == 28 and d.repeats_unavoidable and d.at_floor
    assert sd == pytest.approx(math.sqrt((20 * 100 + 8 * 121 - 288**2 / 28) / 27), rel=1e-12)
    assert (d.appearances == 24).all()


@pytest.mark.parametrize(
    "n_items, k, factor, n_tuples",
    [(10, 3, 2, 20), (7, 3, 1.5, 11), (8, 8, 2, 16), (9, 8, 3, 27), (13, 5, 1, 13)],
)
def test_small_designs_balanced_and_at_the_floor(n_items, k, factor, n_tuples):
    d = bws_tuples(n_items, k=k, factor=factor, seed=5)
    assert d.n_tuples == n_tuples
    assert_balanced(d, n_items, k, n_tuples)
    assert d.at_floor and d.repeats_unavoidable


def test_floor_out_of_reach_said():
    # 3 tuples of 4 from 5 items: each tuple leaves one item out, so balanced appearances leave
    # three distinct items out and the pair counts are 1 (3 pairs), 2 (6 pairs) and 3 (1 pair)
    d = bws_tuples(5, k=4, factor=0.5, seed=5)
    sd, repeated = assert_balanced(d, 5, 4, 3)
    counts = Counter()
    for row in d.tuples.tolist():
        counts.update(combinations(sorted(row), 2))
    assert sorted(Counter(counts.values()).items()) == [(1, 3), (2, 6), (3, 1)]
    assert repeated == 7 and not d.at_floor and sd == pytest.approx(math.sqrt((36 - 18**2 / 10) / 9), rel=1e-12)


def test_uneven_appearances_stay_within_one():
    # 11 tuples of 3 over 7 items: 33 showings, 5 items 5 times and 2 items 4 times
    d = bws_tuples(7, k=3, factor=1.5, seed=2)
    assert sorted(Counter(d.appearances.tolist()).items()) == [(4, 2), (5, 5)]
    assert d.max_appearance_deviation == pytest.approx(33 / 7 - 4)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_items": 10, "k": 2}, "k must be 3 to 8"),
        ({"n_items": 10, "k": 9}, "k must be 3 to 8"),
        ({"n_items": 3, "k": 4}, "n_items must be at least k = 4"),
        ({"n_items": 10, "factor": 0}, "factor .* must be above 0"),
        ({"n_items": 10, "factor": -1.5}, "factor .* must be above 0"),
        ({"n_items": 10, "factor": 0.01}, "gives no tuple"),
    ],
)
def test_invalid_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bws_tuples(**kwargs)
