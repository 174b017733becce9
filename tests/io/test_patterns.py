"""A config's regular expressions (rater header patterns, a word_forms table's strip) run with a time
limit: a pattern that backtracks without end is a one-line error naming the key, the pattern and
the value, where with ``re`` the job hung; ordinary patterns read as ``re`` reads them."""

from __future__ import annotations

import re

import pytest

from simgold.errors import ConfigError, InputError
from simgold.io import patterns
from simgold.io.config import check_dataset
from simgold.io.patterns import PatternTimeout, compile_pattern, search, sub
from simgold.stages.clean import clean_dataset

SLOW = "(a|aa)+$"  # on many a's and a b: exponential backtracking
LONG = "a" * 40 + "b"


@pytest.fixture(autouse=True)
def _short_limit(monkeypatch):
    monkeypatch.setattr(patterns, "PATTERN_SECONDS", 0.2)


def _dataset(tmp_path, header: str, raters: str) -> dict:
    (tmp_path / "r.csv").write_text(f"{header}\ncat,dog,1,2\n", encoding="utf-8")
    return {"language": "en", "kind": "ratings", "scale": [0, 6], "sources": [{"path": "r.csv", "words": [1, 2],
            "raters": raters}]}  # fmt: skip


@pytest.mark.parametrize(
    ("pattern", "values"),
    [
        ("^r(\\d+)$", ["r1", "r12", "x1", "r", "r1\n"]),
        ("(?<=rater_)\\w+", ["rater_anna", "anna", "rater_"]),  # look-behind
        ("^(\\w)\\1", ["aab", "abb", ""]),  # back-reference
        ("(?i)^deltager (\\d+)$", ["Deltager 01", "DELTAGER 2", "deltager"]),
        ("-[a-z]$", ["cat-n", "cat", "a-b-c"]),
    ],
)
def test_ordinary_patterns_match_and_strip_as_re_does(pattern, values):
    compiled = compile_pattern(pattern, "k")
    assert compiled.groups == re.compile(pattern).groups
    for value in values:
        ours, theirs = search(compiled, value, "k"), re.search(pattern, value)
        assert (ours and (ours.span(), ours.groups())) == (theirs and (theirs.span(), theirs.groups())), value
        assert sub(compiled, value, "k") == re.sub(pattern, "", value), value


def test_a_slow_pattern_is_a_one_line_error_naming_key_pattern_and_value():
    compiled = compile_pattern(SLOW, "datasets.x.sources[0].word_forms.strip")
    for run in (search, sub):
        with pytest.raises(PatternTimeout) as err:
            run(compiled, LONG, "datasets.x.sources[0].word_forms.strip")
        assert str(err.value) == (
            f"config datasets.x.sources[0].word_forms.strip: the pattern '(a|aa)+$' did not finish within 0.2 s on "
            f"'{LONG}' (a nested repetition such as (a|aa)+ can take exponential time): simplify the pattern"
        )
    assert search(compiled, "a" * 40, "k").span() == (0, 40)  # the same pattern on a value it matches: fine


def test_a_rater_pattern_that_hangs_on_a_header_name_stops_the_clean_job(tmp_path):
    spec = _dataset(tmp_path, f"w1,w2,r1,{LONG}", SLOW)
    with pytest.raises(InputError) as err:
        clean_dataset("t", spec, base_dir=str(tmp_path))
    assert str(err.value) == (
        f"r.csv, column '{LONG}': raters: the pattern '(a|aa)+$' did not finish within 0.2 s on '{LONG}' (a nested "
        "repetition such as (a|aa)+ can take exponential time): simplify the pattern"
    )


def test_a_rater_pattern_that_hangs_on_a_word_columns_name_stops_the_config_check(tmp_path):
    """The config check matches the rater pattern against the columns the source names."""
    spec = _dataset(tmp_path, f"{LONG},w2,r1,r2", SLOW)
    spec["sources"][0]["words"] = [LONG, "w2"]
    with pytest.raises(PatternTimeout, match=r"^config datasets\.t\.sources\[0\]\.raters: the pattern '\(a\|aa\)\+\$'"):
        check_dataset("t", spec, str(tmp_path))


def test_a_pattern_that_does_not_compile_is_a_config_error_naming_the_key(tmp_path):
    spec = _dataset(tmp_path, "w1,w2,r1,r2", "^r(\\d+")
    with pytest.raises(ConfigError, match=r"sources\[0\]\.raters: '\^r\(\\\\d\+' is not a valid regular expression"):
        check_dataset("t", spec, str(tmp_path))
