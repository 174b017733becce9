"""A constant attribute per source: four part-of-speech files of one Japanese dataset, each file
tagged by config (`attributes: {pos: {value: noun}}`), make one dataset whose agreement is
reported per part of speech (the sheets are made here, UTF-8, with the raters across files)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simgold.io.config import check_dataset
from simgold.stages.agreement import agreement_report
from simgold.stages.clean import clean_dataset

POS_FILES = {
    "noun": [("犬", "猫"), ("車", "自転車"), ("山", "川"), ("本", "雑誌"), ("海", "湖"), ("家", "建物")],
    "verb": [("走る", "歩く"), ("食べる", "飲む"), ("見る", "聞く"), ("書く", "読む"), ("買う", "売る"), ("行く", "来る")],
    "adj": [("大きい", "小さい"), ("高い", "安い"), ("新しい", "古い"), ("早い", "速い"), ("赤い", "青い"), ("長い", "短い")],
    "adv": [("とても", "非常に"), ("すぐ", "直ちに"), ("よく", "しばしば"), ("もう", "既に"), ("まだ", "未だ"), ("少し", "ちょっと")],
}  # fmt: skip


def _dataset(tmp_path):
    rng = np.random.default_rng(7)
    sources = []
    for pos, pairs in POS_FILES.items():
        truth = rng.uniform(0, 10, len(pairs))
        lines = ["w1,w2," + ",".join(f"r{k}" for k in range(1, 6))]
        for (a, b), t in zip(pairs, truth):
            scores = np.clip(np.rint(t + rng.normal(0, 1.0, 5)), 0, 10).astype(int)
            lines.append(f"{a},{b}," + ",".join(map(str, scores)))
        (tmp_path / f"{pos}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        sources.append({"path": f"{pos}.csv", "words": ["w1", "w2"], "raters": "^r\\d$",
                        "attributes": {"pos": {"value": pos}}})  # fmt: skip
    spec = {"language": "ja", "kind": "ratings", "scale": [0, 10], "sources": sources,
            "agreement": {"subsets": ["pos"], "min_overlap": 5}}  # fmt: skip
    return check_dataset("ja-pos", spec, tmp_path)


def test_each_file_tags_its_items_and_agreement_is_per_part_of_speech(tmp_path):
    ds = _dataset(tmp_path)
    tables = clean_dataset("ja-pos", ds, base_dir=str(tmp_path))
    items = tables["items"]
    assert items.groupby("pos")["source_file"].unique().map(list).to_dict() == {
        pos: [f"{pos}.csv"] for pos in POS_FILES
    }
    assert tables["summary"]["ledger_balanced"].iloc[0] and len(items) == 24
    assert set(tables["ratings"]["rater"]) == {f"r{k}" for k in range(1, 6)}  # one panel across the files
    report = agreement_report(
        "ja-pos", items, tables["ratings"], tables["ratings"], pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]),
        min_overlap=5, subset_names=["pos"],
        outliers={"method": "none"}, persistent_raters=True,
    )  # fmt: skip
    subsets = set(report["agreement"]["subset"])
    assert {"all", "pos=adj", "pos=adv", "pos=noun", "pos=verb"} <= subsets
    per_pos = report["agreement"].query("stage == 'raw' and subset == 'pos=noun'").iloc[0]
    assert per_pos["n_items"] == 6 and per_pos["n_raters"] == 5


def test_a_constant_is_typed_and_a_column_attribute_still_reads_its_column(tmp_path):
    (tmp_path / "a.csv").write_text("w1,w2,rel,r1,r2\ncat,dog,coord,5,6\nsea,ocean,syn,7,8\n", encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 10], "sources": [{
        "path": "a.csv", "words": ["w1", "w2"], "raters": "^r\\d$",
        "attributes": {"relation": "rel", "batch": {"value": 2, "type": "int"}}}]}  # fmt: skip
    tables = clean_dataset("t", check_dataset("t", spec, tmp_path), base_dir=str(tmp_path))
    assert tables["items"][["relation", "batch"]].values.tolist() == [["coord", 2], ["syn", 2]]
    from simgold.errors import ConfigError
    from simgold.io.config import validate_schema

    bad = {**spec, "sources": [{**spec["sources"][0], "attributes": {"pos": {"value": None}}}]}
    with pytest.raises(ConfigError, match="attributes.pos"):
        validate_schema({"datasets": {"t": bad}})
