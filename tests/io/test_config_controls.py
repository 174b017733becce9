"""The dataset keys of a questionnaire's control pairs, ``attention`` and ``anchors``: the schema
and the config checks refuse a bad value with the key path; without them nothing is added."""

from __future__ import annotations

import pytest

from .test_config import _dataset, check, fails

CHECKS = {"items": [{"words": ["sun", "sun"], "expect": 6}, {"words": ["please answer", "zero"], "expect": 0}]}


def test_defaults_and_no_block_without_the_key(base):
    ds = check(base, lambda c: None)["datasets"]["dsd-da"]
    assert "attention" not in ds and "anchors" not in ds  # a block with a required key is not filled in
    ds = check(base, _dataset(attention=CHECKS, anchors={"items": [["cat", "dog"]]}))["datasets"]["dsd-da"]
    assert (ds["attention"]["tolerance"], ds["attention"]["max_failures"]) == (0, 0)
    assert (ds["anchors"]["in_gold"], ds["anchors"]["calibration"]) == (False, False)


@pytest.mark.parametrize(
    "keys, where, text",
    [
        (  # expect off the scale [0, 6]
            {"attention": {"items": [{"words": ["sun", "sun"], "expect": 7}]}},
            "datasets.dsd-da.attention.items[0].expect",
            "7 is not on the scale [0, 6]",
        ),
        (
            {"attention": {**CHECKS, "tolerance": -1}},
            "datasets.dsd-da.attention.tolerance",
            "-1 is less than the minimum of 0",
        ),
        (
            {"attention": {**CHECKS, "max_failures": 0.5}},
            "datasets.dsd-da.attention.max_failures",
            "0.5 is not of type 'integer'",
        ),
        (  # words not a pair
            {"attention": {"items": [{"words": ["sun"], "expect": 6}]}},
            "datasets.dsd-da.attention.items[0].words",
            "['sun'] is too short",
        ),
        (
            {"anchors": {"items": [["cat", "dog", "cow"]]}},
            "datasets.dsd-da.anchors.items[0]",
            "is too long",
        ),
        (
            {"attention": {"items": [{"words": ["sun", "sun"]}]}},
            "datasets.dsd-da.attention.items[0]",
            "'expect' is required",
        ),
        ({"anchors": {"in_gold": True}}, "datasets.dsd-da.anchors", "'items' is required"),
        (  # the same pair (symmetric: either order) as a check and an anchor
            {"attention": CHECKS, "anchors": {"items": [["zero", "please answer"]]}},
            "datasets.dsd-da.anchors.items[0]",
            "the pair zero / please answer is already at datasets.dsd-da.attention.items[1]",
        ),
    ],
)
def test_bad_values_are_refused(base, keys, where, text):
    fails(base, _dataset(**keys), where, text)


def test_only_a_ratings_dataset_has_them(base):
    def bws(c):
        c["datasets"]["dsd-da"].update(kind="bws", anchors={"items": [["cat", "dog"]]})
        c["datasets"]["dsd-da"].pop("scale")
        c["datasets"]["dsd-da"]["sources"] = [{"path": "raw/da.tsv", "items": ["word1", "word2", "r1"]}]

    fails(base, bws, "datasets.dsd-da.anchors", "is only for kind 'ratings' (not 'bws')")
    means = _dataset(kind="means", attention=CHECKS)
    fails(base, means, "datasets.dsd-da.attention", "is only for kind 'ratings' (not 'means')")
