"""The design loop as a user runs it: ``simgold design ratings`` writes the questionnaires and the
config, a simulated crowd fills in the very files written (through openpyxl), they go into ``raw/``,
and ``snakemake`` runs with the config written, nothing written by hand. Five seeds, one run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from scipy.stats import spearmanr

from simgold.cli import main
from simgold.stages.reliability import reliability_projection

from ..userpath import fresh_copy, snakemake
from .crowd import fill_sheets, label_studio_export, true_values

pytestmark = pytest.mark.workflow

SEEDS = (1, 2, 3, 4, 5)
SCALE = (0, 6)
ITEM_SD = (SCALE[1] - SCALE[0]) * (10 / 12) / math.sqrt(12)  # the SD of true_values' uniform draw
NOISE_SD = 1.0
BIAS_SD = 0.3  # each simulated rater's own shift (tests/design/crowd.py)
#: the SD of a rating around its pair's true value the design is told: noise, a rater's bias and the
#: rounding to a whole number (a uniform error of width 1: variance 1/12)
RATING_SD = math.sqrt(NOISE_SD**2 + BIAS_SD**2 + 1 / 12)
#: the careless raters of every seed's crowd (the rest are good)
BEHAVIOUR = {"r03": "inattentive", "r06": "stops", "r09": "random"}


def _pairs_file(path):
    words = [(f"word{i:03d}", f"other{i:03d}") for i in range(80)]
    lines = ["word1,word2,role,expect"]
    lines += [f"{a},{b},{'repeat' if i < 4 else ''}," for i, (a, b) in enumerate(words)]
    lines += ["anchorA,anchorB,anchor,", "anchorC,anchorD,anchor,"]
    lines += ["sun,sun,attention,6", "please answer zero,here,attention,0"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return words


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    """Five designs (one per seed) filled in by their crowds and run through the pipeline at once."""
    project = fresh_copy(tmp_path_factory.mktemp("loop") / "project")
    words = _pairs_file(project / "pairs.csv")
    runs = {}
    for seed in SEEDS:
        name = f"study-s{seed}"
        args = ["design", "ratings", "pairs.csv", "--name", name, "--language", "en", "--scale", "0", "6"]
        args += ["--raters", "12", "--reliability", "0.9", "--item-sd", f"{ITEM_SD}", "--noise-sd", f"{RATING_SD}"]
        args += ["--seed", str(seed), "--tolerance", "1", "--out", f"design/{name}"]
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(project)
            assert main(args) == 0
            assert main([*args[:-1], f"design/{name}-again"]) == 0  # the same seed, written a second time
        truth = true_values(words + [("anchorA", "anchorB"), ("anchorC", "anchorD")], SCALE, seed)
        expect = {frozenset(("sun",)): 6, frozenset(("please answer zero", "here")): 0}
        behaviour = {f"r{j:02d}": BEHAVIOUR.get(f"r{j:02d}", "good") for j in range(1, 13)}
        filled = fill_sheets(
            project / "design" / name / "sheets",
            project / "raw" / name,
            truth,
            expect,
            behaviour,
            SCALE,
            NOISE_SD,
            seed,
        )
        runs[name] = (seed, truth, filled)
        runs[f"bws-s{seed}"] = _bws(project, words, seed)
    configs = [f"design/{name}/config.yaml" for name in runs]
    targets = [
        f"results/{stage}/{name}/{table}.parquet"
        for name in runs
        if name.startswith("study")
        for stage, table in _TABLES
    ]
    targets += [
        f"results/{stage}/{name}/{table}.parquet"
        for name in runs
        if name.startswith("bws")
        for stage, table in _BWS_TABLES
    ]
    snakemake(project, "--cores", "2", "--configfile", *configs, "--replace-workflow-config", "--", *targets)
    return project, runs


def _bws(project, words, seed):
    """A BWS design of the same pairs answered on Label Studio by a crowd with one random clicker (r05)."""
    name = f"bws-s{seed}"
    (project / "bws-pairs.csv").write_text("word1,word2\n" + "".join(f"{a},{b}\n" for a, b in words), encoding="utf-8")
    args = ["design", "bws", "bws-pairs.csv", "--name", name, "--language", "en", "--raters", "8", "--per-tuple", "3"]
    args += ["--seed", str(seed), "--formats", "label_studio", "xlsx", "--out", f"design/{name}"]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project)
        assert main(args) == 0
    truth = true_values(words, SCALE, seed)
    table = pd.read_parquet(project / "design" / name / "design.parquet")
    export = label_studio_export(table, truth, {"r05"}, NOISE_SD, seed)
    (project / "raw" / name).mkdir(parents=True)
    (project / "raw" / name / "export.json").write_text(json.dumps(export, indent=1), encoding="utf-8")
    return seed, truth, len(export)


_BWS_TABLES = [("gold", "bws_scores"), ("agreement", "raters"), ("agreement", "bws_reliability"), ("clean", "items")]
_TABLES = [("gold", "gold"), ("agreement", "raters"), ("agreement", "retest"), ("reliability", "summary")]
_TABLES += [("clean", "rejects"), ("clean", "items")]


def _table(project, stage, name, table):
    return pd.read_parquet(project / "results" / stage / name / f"{table}.parquet")


def test_the_same_seed_writes_the_same_files_byte_for_byte(loop):
    project, runs = loop
    for name in (n for n in runs if n.startswith("study")):
        first, again = project / "design" / name, project / "design" / f"{name}-again"
        files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
        assert len(files) == 12 + 2  # 12 questionnaires, design.parquet, config.yaml
        for rel in files:
            if rel.name == "config.yaml":  # it names its own folder in the run command
                continue
            assert (first / rel).read_bytes() == (again / rel).read_bytes(), rel
    one, two = (project / "design" / n / "sheets" / "r01.xlsx" for n in ("study-s1", "study-s2"))
    assert one.read_bytes() != two.read_bytes()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_careless_raters_are_the_ones_excluded(loop, seed):
    project, runs = loop
    name = f"study-s{seed}"
    rejects = _table(project, "clean", name, "rejects")
    failed = {Path(f).stem for f in rejects.loc[rejects["reason"] == "attention_failed", "source_file"]}  # r03.xlsx
    raters = _table(project, "agreement", name, "raters")
    excluded = set(raters.loc[raters["excluded"], "rater"])
    assert failed == {"r03"}
    assert excluded - failed == {"r09"}, raters[["rater", "avg_pairwise", "excluded"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_gold_standard_keeps_the_designs_promise(loop, seed):
    project, runs = loop
    name = f"study-s{seed}"
    _, truth, _ = runs[name]
    config = yaml.safe_load((project / "design" / name / "config.yaml").read_text(encoding="utf-8"))
    card = config["datasets"][name]["release"]["card"]["pairs"]
    low, high = (float(x) for x in card.split("95% interval [")[1].split("]")[0].split(", "))
    # the split-half reliability of the ratings the gold standard is made of (the careless raters out),
    # by the reliability stage's own function; the raw ratings' (the random rater in) is lower
    kept = _table(project, "agreement", name, "ratings")
    observed = reliability_projection(name, kept, seed=0, stage="filtered")["summary"]["r_full"].iloc[0]
    raw = _table(project, "reliability", name, "summary")["r_full"].iloc[0]
    assert low <= observed <= high and raw < observed, (observed, raw, low, high)
    items = _table(project, "clean", name, "items").set_index("item_id")
    gold = _table(project, "gold", name, "gold")
    true = [truth[frozenset((items.at[i, "word1"], items.at[i, "word2"]))] for i in gold["item_id"]]
    assert len(gold) == 80  # the anchors are not in the gold standard, the attention checks not items
    assert spearmanr(gold["mean"], true).statistic >= math.sqrt(0.9) - 0.05


@pytest.mark.parametrize("seed", SEEDS)
def test_the_ledger_counts_the_unanswered_cells_and_the_repeats_give_test_retest(loop, seed):
    project, runs = loop
    name = f"study-s{seed}"
    _, _, filled = runs[name]
    rejects = _table(project, "clean", name, "rejects")
    # an empty cell at the end of a row is a short row to the reader (openpyxl writes no empty cell)
    missing = (
        rejects[rejects["reason"].isin(["missing", "short_row"])]["source_file"]
        .map(lambda f: Path(f).stem)
        .value_counts()
    )
    assert missing.to_dict() == {r: n for r, n in filled.blanks.items() if n}
    assert filled.blanks["r06"] > 0 and sum(filled.blanks.values()) == filled.blanks["r06"]
    retest = _table(project, "agreement", name, "retest")
    pooled = retest[retest["rater"].isna() | (retest["rater"] == "")].iloc[0]
    # test-retest is of the cleaned answers: every rater's but those the attention checks excluded
    kept = {r: n for r, n in filled.repeats_answered.items() if r != "r03"}
    assert pooled["n_pairs"] == sum(kept.values()) > 0
    assert 0 < pooled["icc"] <= 1  # the good raters answer a repeat close to their first answer


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bws_design_answered_on_label_studio_comes_back_as_its_gold_standard(loop, seed):
    project, runs = loop
    name = f"bws-s{seed}"
    _, truth, n_answers = runs[name]
    raters = _table(project, "agreement", name, "raters")
    assert set(raters.loc[raters["excluded"], "rater"]) == {"5"}, raters  # r05, Label Studio's annotator 5
    reliability = _table(project, "agreement", name, "bws_reliability").set_index("stage")
    assert reliability.loc["raw", "n_answers"] == n_answers == 80 * 2 * 3  # 160 tuples, 3 answers each
    items = _table(project, "clean", name, "items").set_index("item_id")
    scores = _table(project, "gold", name, "bws_scores")
    true = [truth[frozenset((items.at[i, "word1"], items.at[i, "word2"]))] for i in scores["item_id"]]
    # a score correlates with the truth as the square root of its reliability (minus the 0.05 the design allows)
    shr = reliability.loc["filtered", "shr_spearman_sb"]
    assert spearmanr(scores["counting"], true).statistic >= math.sqrt(shr) - 0.05 > 0.9
