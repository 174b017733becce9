"""The release, card, Croissant metadata and report page of a Best-Worst Scaling dataset, made from
small tables written here in the shapes the BWS stages write (answers, bws_scores, bws_reliability,
the raters table): every file there, the card's numbers those of the tables, the answers file
giving back the same scores, and the other kinds' files untouched."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
import yaml

from simgold.io.tables import TABLES
from simgold.report.bws_sections import ANSWER_COLUMNS, BWS_COLUMNS, bws_overview, page_tables
from simgold.report.pages import dataset_page
from simgold.report.release import release

WORDS = [("cup", "mug"), ("car", "bus"), ("sea", "ocean"), ("sun", "pen"), ("tree", "leaf"), ("NA", "null")]
TRUTH = [5, 3, 6, 0, 2, 1]  # the items' similarity: best and worst follow it, but for rater r3's two answers
TUPLES = {"t1": [0, 1, 2, 3], "t2": [2, 3, 4, 5], "t3": [0, 1, 4, 5], "t4": [1, 2, 3, 5]}
RATERS = ["r1", "r2", "r3"]
SETTINGS = {"score": "counting", "penalty": 0.01, "split_half_trials": 100, "resamples": 200, "target": 0.9}


def _answers() -> pd.DataFrame:
    """Every rater answers every tuple once; r3 swaps best and worst in two answers."""
    rows, answer = [], 0
    for rater in RATERS:
        for t, members in TUPLES.items():
            order = sorted(members, key=lambda i: -TRUTH[i])
            best, worst = order[0], order[-1]
            if rater == "r3" and t in ("t1", "t2"):
                best, worst = worst, best
            for position, i in enumerate(members, start=1):
                choice = "best" if i == best else "worst" if i == worst else ""
                rows.append(("bd", answer, t, rater, position, f"bd:{i + 1}", choice, "bws.csv", answer + 2))
            answer += 1
    return pd.DataFrame(rows, columns=["dataset", "answer", "tuple", "rater", "position", "item_id", "choice",
                                       "source_file", "source_row"])  # fmt: skip


def _counted(answers: pd.DataFrame) -> pd.DataFrame:
    """Counting scores written plainly: shown, best and worst per item."""
    shown = answers.groupby("item_id").size()
    best = answers[answers["choice"] == "best"].groupby("item_id").size().reindex(shown.index, fill_value=0)
    worst = answers[answers["choice"] == "worst"].groupby("item_id").size().reindex(shown.index, fill_value=0)
    return pd.DataFrame({"n_shown": shown, "n_best": best, "n_worst": worst}).reset_index()


def _tables() -> dict:
    answers = _answers()
    items = pd.DataFrame({"dataset": "bd", "item_id": [f"bd:{i + 1}" for i in range(6)],
                          "word1": [w for w, _ in WORDS], "word2": [w for _, w in WORDS], "source_file": "bws.csv",
                          "source_row": [2, 2, 2, 2, 3, 3]})  # fmt: skip
    kept = answers[answers["rater"] != "r3"].reset_index(drop=True)  # the outlier rule excludes r3
    counts = _counted(kept)  # the scores are those of the answers kept, as the gold stage computes them
    counting = (counts["n_best"] - counts["n_worst"]) / counts["n_shown"]
    scores = counts.assign(
        dataset="bd", counting=counting, counting_low=counting - 0.2, counting_high=counting + 0.2,
        counting_resampled="raters", answers_low=counting - 0.25, answers_high=counting + 0.25, n_tuples=2,
        note="", logit=counting * 3, logit_se=0.5, logit_low=counting * 3 - 1,
        logit_high=counting * 3 + 1, confidence=0.95,
    )[list(TABLES["bws_scores"].names)]  # fmt: skip
    gold = pd.DataFrame({"dataset": "bd", "item_id": scores["item_id"], "n": scores["n_shown"], "mean": counting,
                         "sd": np.nan, "median": np.nan, "rsd": np.nan, "mean_unit": (counting + 1) / 2,
                         "mean_minmax": np.nan, "rank": (-counting).rank(), "ci_low": scores["counting_low"],
                         "ci_high": scores["counting_high"], "confidence": 0.95, "resolved_share": 0.25,
                         "basis": "bws counting (share best - share worst)", "released_mean": np.nan})  # fmt: skip
    reliability = pd.DataFrame(
        [("bd", "raw", 12, 4, 6, 3, 4, 4, 3.0, 100, 0.61, 0.64, 0.757, 0.78, 0.52, 0.88, 0.95, 0.9, 8.7, ""),
         ("bd", "filtered", 8, 4, 6, 2, 4, 4, 2.0, 100, 0.83, 0.85, 0.907, 0.919, 0.7, 0.97, 0.95, 0.9, 1.9, "")],
        columns=list(TABLES["bws_reliability"].names),
    )  # fmt: skip
    raters = pd.DataFrame({"dataset": "bd", "stage": "raw", "rater": RATERS, "n_items": [4, 4, 4],
                           "mean_score": np.nan, "calib_diff": np.nan, "calib_shift": np.nan, "avg_pairwise": np.nan,
                           "vs_mean": np.nan, "vs_rest": [0.875, 0.875, 0.25], "excluded": [False, False, True],
                           "exclusion_reason": ["", "", "vs_rest_min: bws agreement 0.250 < 0.5"]})  # fmt: skip
    clean = pd.DataFrame({"dataset": ["bd"], "language": "en", "n_items": 6, "n_values_held": 12,
                          "n_values_rejected": 0})  # fmt: skip
    return {"items": items, "gold": gold, "bws_scores": scores, "bws_reliability": reliability, "raters": raters,
            "answers": kept, "clean": clean}  # fmt: skip


def _ds() -> dict:
    return {"kind": "bws", "language": "en", "scale": [-1.0, 1.0], "bws": SETTINGS, "persistent_raters": True,
            "outliers": {"method": "vs_rest_min", "k": 2.0, "threshold": 0.5}, "sources": [],
            "release": {"version": "1.0.0", "license": "CC-BY-4.0"}}  # fmt: skip


def _release(tmp_path, tables=None):
    made = release("bd", _ds(), tables or _tables(), [{"path": "bws.csv", "sha256": "0" * 64, "size": 10}],
                   confidence=0.95, made_with="simgold test", date="2026-11-28")  # fmt: skip
    for name, data in made.files.items():
        (tmp_path / name).write_bytes(data)
    return made


def test_a_bws_release_has_its_files_with_both_scores_and_the_answers(tmp_path):
    made = _release(tmp_path)
    assert sorted(made.files) == ["README.md", "bd.answers.parquet", "bd.answers.tsv", "bd.parquet", "bd.tsv",
                                  "bd.txt", "croissant.json"]  # fmt: skip
    gold = pd.read_parquet(tmp_path / "bd.parquet")
    assert list(gold.columns) == ["item_id", "word1", "word2", "score", "n", "ci_low", "ci_high", "rank", *BWS_COLUMNS]
    tables = _tables()
    counted = _counted(tables["answers"]).set_index("item_id")
    assert gold.set_index("item_id")[["n", "n_best", "n_worst"]].values.tolist() == counted[
        ["n_shown", "n_best", "n_worst"]].values.tolist()  # fmt: skip
    np.testing.assert_allclose(gold["score"], (counted["n_best"] - counted["n_worst"]) / counted["n_shown"])
    assert (gold["logit"] == tables["bws_scores"]["logit"]).all()
    answers = pd.read_parquet(tmp_path / "bd.answers.parquet")
    assert list(answers.columns) == ["answer", "tuple", "rater", "position", "item_id", "word1", "word2", "choice"]
    assert set(ANSWER_COLUMNS) <= set(answers.columns)
    assert len(answers) == 8 * 4 and answers["answer"].nunique() == 8 and set(answers["rater"]) == {"r1", "r2"}
    assert answers.loc[answers["item_id"] == "bd:6", ["word1", "word2"]].iloc[0].tolist() == ["NA", "null"]
    assert (answers.groupby("answer")["choice"].apply(sorted).map(tuple) == ("", "", "best", "worst")).all()
    tsv = pd.read_csv(tmp_path / "bd.answers.tsv", sep="\t", keep_default_na=False, na_values=[""])
    assert tsv.drop(columns="choice").equals(answers.drop(columns="choice"))
    assert tsv["choice"].fillna("").tolist() == answers["choice"].tolist()
    txt = (tmp_path / "bd.txt").read_text(encoding="utf-8").splitlines()
    assert "word1<TAB>word2<TAB>score (the BWS counting score, -1 to 1)" in txt[2]
    assert txt[3:] == [f"{w1}\t{w2}\t{s!r}" for w1, w2, s in zip(gold["word1"], gold["word2"], gold["score"])]


def test_the_released_answers_give_back_the_scores(tmp_path):
    pytest.importorskip("simgold.stats.bws")  # the stats of BWS are another branch's until the merge
    from simgold.stages.bws_gold import scores_from_answers

    _release(tmp_path)
    released = scores_from_answers(pd.read_parquet(tmp_path / "bd.answers.parquet"))
    kept = _tables()["answers"]
    original = scores_from_answers(kept)
    pd.testing.assert_frame_equal(released, original)
    counted = _counted(kept)
    assert released["n_shown"].tolist() == counted["n_shown"].tolist()
    np.testing.assert_allclose(released["counting"], (counted["n_best"] - counted["n_worst"]) / counted["n_shown"])


def test_the_card_gives_the_design_reliability_and_raters(tmp_path):
    card = _release(tmp_path).files["README.md"].decode()
    front = yaml.safe_load(card.split("---\n")[1])
    assert [c["config_name"] for c in front["configs"]] == ["default", "answers"]
    assert front["dataset_info"][1]["splits"][0]["num_examples"] == 32
    assert "## Best-Worst Scaling" in card
    assert "12 answers by 3 raters to 4 tuples of 4 pairs (3.00 answers per tuple on average), over 6 pairs" in card
    assert "`simgold.stages.bws_gold.scores_from_answers`" in card and "`simgold.stats.bws.maxdiff_accuracy`" in card
    assert "The gold standard's `score` is the counting score" in card and "L2 penalty (0.01)" in card
    # the split-half table: each stage's figures from the bws_reliability table
    assert (
        "| raw | 12 | 4 | 3 | 3.000 | 100 | 0.610 | 0.640 | 0.757 | 0.780 | [0.520, 0.880] | 8.7 for 0.9 |  |" in card
    )
    assert (
        "| filtered | 8 | 4 | 2 | 2.000 | 100 | 0.830 | 0.850 | 0.907 | 0.919 | [0.700, 0.970] | 1.9 for 0.9 |" in card
    )
    assert "Outlier filtering (vs_rest_min, on that agreement) excluded 1 of 3 raters:" in card
    assert "| r3 | 4 | 0.250 | vs_rest_min: bws agreement 0.250 &lt; 0.5 |" in card
    assert "(from 0.250 to 0.875, median 0.875)" in card
    assert "percentile bootstrap interval (raters resampled; median half-width 0.200 on -1..1)" in card
    assert "Of every two pairs, 25% have intervals that do not overlap." in card
    assert 'answers = pd.read_parquet("bd.answers.parquet")' in card and "evaluate_word_pairs" in card
    assert "Student's t" not in card and "mean of the item's ratings" not in card
    assert "| bd.answers.parquet (answers) | answer | Integer | the answer's number in the dataset" in card
    assert "|  | choice | Text | best (chosen as the most similar pair of the tuple), worst" in card


def test_croissant_validates_and_reads_the_answers(tmp_path):
    mlc = pytest.importorskip("mlcroissant")
    _release(tmp_path)
    dataset = mlc.Dataset(jsonld=str(tmp_path / "croissant.json"))  # validates: raises on an error
    meta = json.loads((tmp_path / "croissant.json").read_text(encoding="utf-8"))
    assert [r["@id"] for r in meta["recordSet"]] == ["gold", "answers"]
    assert [d["name"] for d in meta["distribution"]] == ["bd.parquet", "bd.answers.parquet"]
    records = [{k.split("/")[1]: v.decode() if isinstance(v, bytes) else v for k, v in r.items()}
               for r in dataset.records(record_set="answers")]  # fmt: skip
    with (tmp_path / "bd.answers.tsv").open(encoding="utf-8", newline="") as f:
        tsv = list(csv.DictReader(f, delimiter="\t"))
    assert len(records) == len(tsv) == 32
    for record, row in zip(records, tsv):
        assert {k: str(record[k]) for k in ("answer", "tuple", "rater", "position", "item_id", "choice")} == {
            k: row[k] for k in ("answer", "tuple", "rater", "position", "item_id", "choice")}  # fmt: skip
    gold = list(dataset.records(record_set="gold"))
    assert [float(r["gold/counting"]) for r in gold] == pytest.approx(_tables()["bws_scores"]["counting"].tolist())


def test_a_bws_release_without_raters_or_answers_files_is_still_whole(tmp_path):
    tables = _tables()
    tables["answers"] = tables["answers"].assign(rater=None)
    made = _release(tmp_path, {k: v for k, v in tables.items() if k != "raters"})
    answers = pd.read_parquet(io.BytesIO(made.files["bd.answers.parquet"]))
    assert answers["rater"].isna().all() and "rater" in answers.columns
    assert "The answers name no rater" in made.files["README.md"].decode()


def test_the_page_shows_reliability_raters_extremes_and_maxdiff():
    tables = _tables()
    scores = pd.DataFrame({"dataset": "bd", "model": "m", "subset": "all",
                           "metric": ["spearman", "maxdiff_best", "maxdiff_worst", "maxdiff_accuracy"],
                           "value": [0.71, 0.75, 0.5, 0.625], "ci_low": [0.5, 0.5, 0.25, 0.4],
                           "ci_high": [0.9, 1.0, 0.75, 0.8], "confidence": 0.95, "n_used": [6, 4, 4, 4],
                           "n_total": [6, 4, 4, 4], "note": ""})  # fmt: skip
    statistics = {"bws_reliability": tables["bws_reliability"], "raters": tables["raters"],
                  "bws_scores": tables["bws_scores"], "gold": tables["gold"], "item_table": tables["items"]}  # fmt: skip
    shown = page_tables(statistics, scores, k=2)
    assert [len(t) for t, _ in shown] == [2, 3, 4, 1]
    extremes = shown[2][0]
    assert extremes["pair"].tolist()[:2] == ["sea / ocean", "cup / mug"] and extremes[""].tolist()[2:] == ["worst"] * 2
    models = shown[3][0].iloc[0]
    assert (models["Spearman"], models["MaxDiff both"], models["MaxDiff both CI"]) == (0.71, 0.625, "[0.400, 0.800]")
    page = dataset_page("bd", clean=tables["clean"], agreement=None, scores=scores, context=None, figures=[],
                        statistics=statistics)  # fmt: skip
    for text in ("0.757", "[0.520, 0.880]", "0.907", "8.7 for 0.9", "vs_rest_min: bws agreement 0.250 &lt; 0.5",
                 "sea / ocean", "MaxDiff both", "Split-half reliability"):  # fmt: skip
        assert text in page, text
    assert page_tables({}, scores) == []  # another kind: no BWS table


def test_simgold_agreement_rows_of_bws_datasets():
    tables = _tables()
    table = bws_overview([tables["bws_reliability"]], [tables["raters"]])
    assert table.iloc[0].tolist() == ["bd", 12, 4, 3, 1, 0.907, "[0.700, 0.970]", "2.0", "1.9 for 0.9", ""]


def test_simgold_agreement_prints_the_bws_datasets(tmp_path, capsys):
    from simgold.cli import main
    from simgold.io.paths import result
    from simgold.io.tables import write_parquet

    tables = _tables()
    for name, table in (("bws_reliability", tables["bws_reliability"]), ("agreement_raters", tables["raters"])):
        path = tmp_path / result(name, dataset="bd")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_parquet(table, path)
    assert main(["agreement", "--results", str(tmp_path / "results")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Best-Worst Scaling: split-half reliability")
    assert lines[1].split() == ["dataset", "answers", "tuples", "raters", "excluded", "SHR", "SHR", "interval", "per",
                                "tuple", "needed", "note"]  # fmt: skip
    assert lines[2].split() == ["bd", "12", "4", "3", "1", "0.907", "[0.700,", "0.970]", "2.0", "1.9", "for", "0.9"]


def test_the_bws_figure_is_drawn_for_bws_datasets_only(tmp_path):
    from types import SimpleNamespace

    from simgold.report.figures import FIGURES, draw_dataset_figures

    routing = SimpleNamespace(scored_by={}, noised=[], context=[], rated=[], ranked=[], cleaned=["bd", "r"], bws=["bd"])
    assert [n for n, f in FIGURES.items() if f.shown_if(routing, "bd")] == ["bws", "distribution"]
    assert "bws" not in [n for n, f in FIGURES.items() if f.shown_if(routing, "r")]
    tables = _tables()
    png = tmp_path / "bws.png"
    draw_dataset_figures("bd", [(str(png), "")], {"bws_scores": tables["bws_scores"], "raters": tables["raters"]},
                         {"method": "vs_rest_min", "k": 2.0, "threshold": 0.5})  # fmt: skip
    assert png.read_bytes()[:4] == b"\x89PNG"
    draw_dataset_figures("bd", [(str(png), "")], {"bws_scores": tables["bws_scores"]}, None)  # no raters named


def test_the_card_counts_answers_set_aside_by_bws_reason():
    from simgold.report.card import answers_text

    assert answers_text({"bws_best_is_worst": 2, "bws_not_in_tuple": 5}) == (
        "5 answers whose best or worst is not in its tuple; 2 answers whose best is also its worst"
    )


def test_the_cards_recompute_snippet_runs_in_the_release_folder(tmp_path):
    """The card's block from the answers, run as written with a vectors file of the pairs' words."""
    pytest.importorskip("simgold.stats.bws")  # the stats of BWS are another branch's until the merge
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    card = _release(tmp_path).files["README.md"].decode()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", card, flags=re.S) if "maxdiff_accuracy(" in b]
    assert len(blocks) == 1
    words = sorted({w for pair in WORDS for w in pair})
    vectors = np.random.default_rng(7).normal(size=(len(words), 8))
    lines = [f"{len(words)} 8"] + [w + " " + " ".join(f"{x:.6f}" for x in v) for w, v in zip(words, vectors)]
    (tmp_path / "vectors.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = blocks[0] + "print('N', len(scores), accuracy.n_tuples)\n"
    src = str(Path(__file__).resolve().parents[2] / "src")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": src})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "N 6 4" in done.stdout


def test_the_scores_file_gives_maxdiff_accuracy_beside_spearman():
    from simgold.report.release import scores_card

    scores = pd.DataFrame({"dataset": "bd", "model": "m", "subset": "all",
                           "metric": ["spearman", "maxdiff_best", "maxdiff_worst", "maxdiff_accuracy"],
                           "value": [0.71, 0.75, 0.5, 0.625], "ci_low": [0.5, 0.5, 0.25, 0.4],
                           "ci_high": [0.9, 1.0, 0.75, 0.8], "confidence": 0.95, "n_used": [6, 4, 4, 4],
                           "n_total": [6, 4, 4, 5], "note": ""})  # fmt: skip
    text = scores_card("bd", scores, pd.DataFrame(), {"m": {"description": "a model"}})
    assert "## MaxDiff accuracy" in text
    assert (
        "| m | 0.710 | [0.500, 0.900] | 0.750 | [0.500, 1.000] | 0.500 | [0.250, 0.750] | 0.625 | [0.400, 0.800] | 4 of 5 |"
        in text
    )
