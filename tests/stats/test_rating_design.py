"""The rating collection's design: assignments recounted by plain loops and compared with a random and a
cyclic assignment, questionnaire orders checked row by row, and the sizing checked by hand and by a
simulated crowd."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simgold.stats.rating_design import assign_raters, questionnaire_orders, size_rating_design

SIZES = [(300, 30, 5), (100, 20, 4), (1000, 50, 3), (120, 12, 4), (5, 4, 3), (60, 25, 6)]


def _overlap_by_loops(raters, n_raters):
    overlap = [[0] * n_raters for _ in range(n_raters)]
    for row in raters:
        for a in row:
            for b in row:
                overlap[a][b] += 1
    return np.array(overlap)


def _pair_sd(overlap):
    r = len(overlap)
    pairs = [overlap[a][b] for a in range(r) for b in range(a + 1, r)]
    return float(np.std(pairs)), min(pairs), max(pairs)


def _random_assignment(n, r, k, seed):
    rng = np.random.default_rng(seed)
    return [rng.choice(r, k, replace=False).tolist() for _ in range(n)]


def _cyclic_assignment(n, r, k):
    return [[(i * k + j) % r for j in range(k)] for i in range(n)]


@pytest.mark.parametrize("n, r, k", SIZES)
def test_counts_recomputed_by_loops(n, r, k):
    design = assign_raters(n, r, k, seed=3)
    loads = [0] * r
    for row in design.raters:
        assert len(set(row.tolist())) == k  # exactly K distinct raters
        for rater in row:
            loads[rater] += 1
    assert max(loads) - min(loads) <= 1
    assert min(loads) >= math.floor(n * k / r) and max(loads) <= math.ceil(n * k / r)
    assert design.loads.tolist() == loads
    overlap = _overlap_by_loops(design.raters.tolist(), r)
    assert (overlap == design.overlap).all()
    sd, low, high = _pair_sd(overlap)
    assert design.overlap_sd == pytest.approx(sd, abs=1e-12)
    assert (design.overlap_min, design.overlap_max) == (low, high)
    for rater in range(r):
        assert design.rater_items[rater].tolist() == [i for i in range(n) if rater in design.raters[i]]
    # every pair shares items where N K (K - 1) >= R (R - 1) allows it
    if n * k * (k - 1) >= r * (r - 1):
        assert low >= 1
    assert design.overlap_sd >= design.overlap_sd_bound - 1e-12


@pytest.mark.parametrize("n, r, k", SIZES + [(2000, 100, 8)])
def test_overlap_spread_no_worse_than_random_or_cyclic(n, r, k):
    ours = assign_raters(n, r, k, seed=0).overlap_sd
    randoms = [_pair_sd(_overlap_by_loops(_random_assignment(n, r, k, s), r))[0] for s in range(3)]
    cyclic = _pair_sd(_overlap_by_loops(_cyclic_assignment(n, r, k), r))[0]
    assert ours <= min(randoms) + 1e-12
    assert ours <= cyclic + 1e-12


def test_spread_reaches_the_bound_on_small_designs():
    # the mean overlap rounded down or up for every pair: no design can be more even
    for n, r, k in [(300, 30, 5), (100, 20, 4), (1000, 50, 3)]:
        design = assign_raters(n, r, k, seed=0)
        assert design.overlap_sd == pytest.approx(design.overlap_sd_bound, abs=1e-12)
        assert design.overlap_max - design.overlap_min == 1


def test_perfect_balance_when_a_design_exists():
    fano = assign_raters(7, 7, 3, seed=0)  # the Fano plane: every pair of raters shares exactly one item
    assert fano.balanced and fano.overlap_min == fano.overlap_max == 1
    assert fano.loads.tolist() == [3] * 7
    assert fano.balance_note.startswith("perfectly balanced")


def test_impossible_balance_is_said():
    design = assign_raters(5, 4, 3, seed=0)
    assert not design.balanced
    assert sorted(design.loads.tolist()) == [3, 4, 4, 4]
    assert "N*K = 15 answers do not split evenly over R = 4 raters: loads 3 to 4" in design.balance_note
    assert "2.500 items on average, not a whole number: at best 2 or 3" in design.balance_note
    assert "best reached: overlaps 2 to 3, SD 0.500" in design.balance_note
    assert design.overlap_sd == pytest.approx(0.5)


def test_deterministic_by_seed():
    a, b = assign_raters(200, 20, 5, seed=11), assign_raters(200, 20, 5, seed=11)
    assert (a.raters == b.raters).all() and a.balance_note == b.balance_note
    assert not (a.raters == assign_raters(200, 20, 5, seed=12).raters).all()


def test_large_design_is_balanced_and_quick():
    import time

    start = time.perf_counter()
    design = assign_raters(10_000, 200, 10, seed=0)
    elapsed = time.perf_counter() - start
    assert (np.bincount(design.raters.ravel(), minlength=200) == 500).all()
    assert all(len(set(row)) == 10 for row in design.raters.tolist())
    assert design.overlap_min >= 1
    assert elapsed < 20  # generous: the machine is shared (see the report for the measured time)


@pytest.mark.parametrize(
    "args, message",
    [
        ((5, 3, 4), "raters_per_item = 4 is more than n_raters = 3"),
        ((0, 3, 2), "n_items must be a whole number >= 1, not 0"),
        ((5, 2.5, 2), "n_raters must be a whole number >= 1, not 2.5"),
        ((5, 3, 0), "raters_per_item must be a whole number >= 1, not 0"),
    ],
)
def test_assignment_rejects_bad_counts(args, message):
    with pytest.raises(ValueError, match=message.replace("*", r"\*").replace(".", r"\.")):
        assign_raters(*args, seed=0)


def _rows(order, rater):
    keep = order.rater == rater
    return order.position[keep].tolist(), order.item[keep].tolist(), order.role[keep].tolist()


def test_orders_anchors_first_repeats_apart_items_once():
    design = assign_raters(120, 12, 4, seed=0)
    anchors, attention = [500, 501, 502], [900, 901, 902, 903]
    repeats = list(range(0, 120, 7)) + [501]
    order = questionnaire_orders(design.rater_items, seed=5, anchors=anchors, repeats=repeats, attention=attention)
    for rater, items in enumerate(design.rater_items):
        positions, asked, roles = _rows(order, rater)
        assert positions == list(range(len(asked)))
        assert sorted(asked[:3]) == anchors and roles[:3] == ["anchor"] * 3
        mine = items.tolist()
        again = [i for i in mine if i in repeats] + [501]
        assert len(asked) == 3 + len(mine) + len(again) + len(attention)
        for i in mine:
            assert asked.count(i) == (2 if i in repeats else 1)
        body = len(mine) + len(again)  # the questionnaire after the anchors, attention items left out
        gap = int(order.repeat_gap[rater])
        assert gap >= math.ceil(body / 2)
        for i in again:
            first, second = [p for p, x in enumerate(asked) if x == i]
            assert roles[second] == "repeat" and second - first >= gap
        checks = [p for p, role in enumerate(roles) if role == "attention"]
        assert sorted(asked[p] for p in checks) == attention
        after = len(asked) - 3  # one check in each quarter after the anchors
        for quarter, p in enumerate(checks):
            assert quarter * after // 4 <= p - 3 < (quarter + 1) * after // 4


def test_orders_deterministic_per_rater_and_swaps_balanced():
    items = [np.arange(0, 200), np.arange(100, 300)]
    one = questionnaire_orders(items, seed=1)
    again = questionnaire_orders(items, seed=1)
    assert (one.item == again.item).all() and (one.swapped == again.swapped).all()
    alone = questionnaire_orders(items[:1], seed=1)  # a rater's order does not depend on the others
    assert (alone.item == one.item[one.rater == 0]).all()
    assert 0.4 < one.swapped.mean() < 0.6
    assert sorted(one.item[one.rater == 1].tolist()) == list(range(100, 300))
    assert not (one.item[one.rater == 0] == np.arange(200)).all()


def test_orders_reach_a_requested_longer_gap_as_far_as_possible():
    order = questionnaire_orders([np.arange(10)], seed=0, repeats=[1, 2], min_repeat_gap=50)
    assert int(order.repeat_gap[0]) == 10  # 12 questions, 2 asked twice: 10 is the most
    positions, asked, _ = _rows(order, 0)
    for i in (1, 2):
        first, second = [p for p, x in enumerate(asked) if x == i]
        assert second - first == 10


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"anchors": [3]}, "anchors [3] are also assigned items"),
        ({"attention": [1]}, "attention [1] are also assigned items"),
        ({"repeats": [77]}, "repeats [77] are neither assigned items nor anchors"),
        ({"anchors": [9, 9]}, "anchors holds an item twice"),
        ({"min_repeat_gap": -1}, "min_repeat_gap must be a whole number >= 0, not -1"),
    ],
)
def test_orders_reject_bad_roles(kwargs, message):
    with pytest.raises(ValueError, match=re_escape(message)):
        questionnaire_orders([[0, 1, 2, 3]], seed=0, **kwargs)


def re_escape(text):
    import re

    return re.escape(text)


def test_sizing_by_hand():
    sizing = size_rating_design(1000, 0.9, r1=0.5, n_raters=40, n_anchors=4, n_repeats=20, n_attention=3)
    assert sizing.raters_per_item == 9  # 0.9 * 0.5 / (0.5 * 0.1) = 9
    assert sizing.expected_reliability == pytest.approx(9 * 0.5 / (1 + 8 * 0.5))
    half = math.sqrt((4 * 0.5 / (1 + 3 * 0.5)) * (5 * 0.5 / (1 + 4 * 0.5)))
    assert sizing.expected_half == pytest.approx(half)
    assert sizing.expected_split_half == pytest.approx(2 * half / (1 + half))
    assert sizing.answers_by_role == {"item": 9000, "anchor": 160, "repeat": 180, "attention": 120}
    assert sizing.answers == 9460
    z = math.atanh(half)
    low, high = (
        2 * math.tanh(z + s * 1.959964 / math.sqrt(997)) / (1 + math.tanh(z + s * 1.959964 / math.sqrt(997)))
        for s in (-1, 1)
    )
    assert sizing.interval == pytest.approx((low, high), abs=1e-6)
    assert "Fisher's z" in sizing.method


def test_sizing_from_assumed_sds():
    sizing = size_rating_design(400, 0.8, item_sd=1.0, noise_sd=1.5)
    r1 = 1 / (1 + 2.25)
    assert sizing.r1 == pytest.approx(r1)
    # var_item / (var_item + noise^2 / K) is Spearman-Brown of r1
    k = sizing.raters_per_item
    assert k == math.ceil(0.8 * (1 - r1) / (r1 * 0.2))  # 9.0 exactly: 9
    assert sizing.expected_reliability == pytest.approx(1.0 / (1.0 + 2.25 / k))
    assert size_rating_design(400, raters_per_item=4, item_sd=1.0, noise_sd=1.5).n_raters == 4


def test_sizing_interval_covers_a_simulated_crowd():
    n, item_sd, noise_sd = 300, 1.0, 1.2
    sizing = size_rating_design(n, 0.85, item_sd=item_sd, noise_sd=noise_sd)
    k = sizing.raters_per_item
    rng = np.random.default_rng(0)
    inside, observed = 0, []
    for _ in range(200):
        truth = rng.normal(0, item_sd, n)
        ratings = truth[:, None] + rng.normal(0, noise_sd, (n, k))
        halves = rng.permutation(k)
        a, b = ratings[:, halves[: k // 2]].mean(axis=1), ratings[:, halves[k // 2 :]].mean(axis=1)
        r = np.corrcoef(a, b)[0, 1]
        split_half = 2 * r / (1 + r)
        observed.append(split_half)
        inside += sizing.interval[0] <= split_half <= sizing.interval[1]
    assert 0.9 <= inside / 200 <= 0.99
    assert np.mean(observed) == pytest.approx(sizing.expected_split_half, abs=0.005)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"target": 1.2, "r1": 0.5}, "target must be a number between 0 and 1, not 1.2"),
        ({"target": 0.9, "r1": 0.0}, "r1 must be a number between 0 and 1, not 0.0"),
        ({"target": 0.9}, "item_sd must be a positive number (or give r1), not None"),
        (
            {"target": 0.9, "item_sd": 1.0, "noise_sd": -1.0},
            "noise_sd must be a positive number (or give r1), not -1.0",
        ),
        ({"target": 0.9, "r1": 0.5, "item_sd": 1.0}, "give r1 = 0.5 or item_sd and noise_sd, not both"),
        ({"r1": 0.5}, "give target or raters_per_item, not both nor neither: None, None"),
        ({"target": 0.9, "r1": 0.5, "n_raters": 5}, "n_raters = 5 is fewer than raters_per_item = 9"),
        ({"raters_per_item": 1, "r1": 0.5}, "raters_per_item must be a whole number >= 2, not 1"),
    ],
)
def test_sizing_rejects_bad_inputs(kwargs, message):
    with pytest.raises(ValueError, match=re_escape(message)):
        size_rating_design(100, **kwargs)
