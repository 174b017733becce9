"""Translation merges (docs/methods.md section 2): every linking mode, and the real translated datasets."""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from simgold.stages.gold import gold_from_means
from simgold.stats.seeds import seed_for
from simgold.stages.translate import adjudicate, crosslingual, link_to_root, translate_dataset


def items(name, pairs, **attrs):
    frame = pd.DataFrame(pairs, columns=["word1", "word2"])
    frame.insert(0, "item_id", [f"{name}:{k:06d}" for k in range(1, len(pairs) + 1)])
    for key, values in attrs.items():
        frame[key] = values
    return frame


SOURCE = items(
    "en",
    [
        ("money", "cash"),
        ("bank", "money"),
        ("money", "cash"),
        ("money", "bank"),
        ("tiger", "cat"),
        ("money", "property"),
        ("money", "possession"),
    ],
)


def ids(series) -> list:
    return [x if isinstance(x, str) else None for x in series]


def linked(result):
    frame, dropped = result
    return dict(zip(frame["item_id"], frame["source_item_id"])), dropped


def test_by_row_and_extra_rows():
    target = items("xx", [("a", "b"), ("c", "d")] + [("e", "f")] * 6)
    links, dropped = linked(translate_dataset("xx", target, SOURCE.iloc[:5], {"by": "row"}))
    assert links["xx:000001"] == "en:000001" and links["xx:000005"] == "en:000005"
    assert dropped["item_id"].tolist() == ["xx:000006", "xx:000007", "xx:000008"]
    assert dropped["reason"].iloc[0] == "row 6 has no counterpart: the source has 5 items"


def test_by_row_refuses_a_file_in_another_order():
    n = 40
    rng = np.random.default_rng(0)
    src = items("en", [(f"s{k}", f"t{k}") for k in range(n)])
    tgt = items("xx", [(f"u{k}", f"v{k}") for k in range(n)])
    scores = rng.uniform(0, 10, n)
    gold_src = pd.DataFrame({"item_id": src["item_id"], "mean": scores})
    aligned = pd.DataFrame({"item_id": tgt["item_id"], "mean": scores + rng.normal(0, 1, n)})
    shuffled = pd.DataFrame({"item_id": tgt["item_id"], "mean": rng.permutation(scores)})
    frame, dropped = translate_dataset(
        "xx", tgt, src, {"by": "row", "min_row_correlation": 0.3}, gold=(aligned, gold_src)
    )
    assert frame["source_item_id"].notna().all() and dropped.empty
    frame, dropped = translate_dataset(
        "xx", tgt, src, {"by": "row", "min_row_correlation": 0.3}, gold=(shuffled, gold_src)
    )
    assert frame["source_item_id"].isna().all() and len(dropped) == n
    assert "not in the source's order" in dropped["reason"].iloc[0]


def test_by_columns_links_repetitions_in_order_and_prefers_word_order():
    target = items(
        "da",
        [("penge", "kontanter"), ("bank", "penge"), ("penge", "kontanter"), ("penge", "bank"), ("x", "y")],
        en1=["money", "bank", "money", "money", ""],
        en2=["cash", "money", "cash", "bank", ""],
    )
    frame, dropped = translate_dataset("da", target, SOURCE, {"by": "columns", "source_words": ["en1", "en2"]})
    assert frame["source_item_id"].tolist()[:4] == ["en:000001", "en:000002", "en:000003", "en:000004"]
    notes = frame["link_note"].tolist()
    assert notes[0] == "the source lists money/cash 2 times; linked in order of appearance"
    assert notes[1] == "the source also lists bank/money in the other word order; linked to the same order"
    assert dropped["reason"].tolist() == ["the source words (en1, en2) are empty"]


def test_by_dictionary_ambiguity_is_reported_and_propagation_resolves():
    dictionary = (
        "en\tzh\nmoney\t钱\ncash\t现金\nproperty\t财产\npossession\t财产\npossession\t所有物\ntiger\t虎\ncat\t猫\n"
    )
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "d.tsv").write_text(dictionary, encoding="utf-8")
        spec = {"by": "dictionary", "dictionary": {"path": "d.tsv", "source": "en", "target": "zh"}}
        target = items("zh", [("钱", "财产"), ("虎", "猫"), ("钱", "现金"), ("狗", "猫")])
        frame, dropped = translate_dataset("zh", target, SOURCE, spec, base_dir=tmp)
        assert ids(frame["source_item_id"]) == [None, "en:000005", "en:000001", None]
        assert dropped["reason"].tolist() == [
            "ambiguous: several source items fit",
            "the dictionary has no entry for '狗'",
        ]
        assert dropped["candidates"].iloc[0] == "en:000006 money/property; en:000007 money/possession"
        # once 钱/所有物 takes money/possession, 钱/财产 has one candidate left
        target = items("zh", [("钱", "财产"), ("钱", "所有物")])
        frame, dropped = translate_dataset("zh", target, SOURCE, spec, base_dir=tmp)
        assert ids(frame["source_item_id"]) == ["en:000006", "en:000007"] and dropped.empty


def test_translators_agree_adjudicate_rules_or_drop():
    source = items(
        "en", [("football", "soccer"), ("money", "cash"), ("planet", "star"), ("tiger", "cat"), ("cup", "coffee")]
    )

    def table(rows):
        return pd.DataFrame(rows, columns=["source1", "source2", "target1", "target2"]).assign(file="t", row=0)

    a = table(
        [
            ("football", "soccer", "足球", "足球"),
            ("money", "cash", "钱", "现金"),
            ("planet", "star", "行星", "恒星"),
            ("tiger", "cat", "老虎", "猫"),
            ("cup", "coffee", "杯", "咖啡"),
        ]
    )
    b = table(
        [
            ("soccer", "football", "足球", "足球"),
            ("money", "cash", "金钱", "现金"),
            ("planet", "star", "行星", "星"),
            ("tiger", "cat", "虎", "猫科"),
        ]
    )
    adjudication = table([("money", "cash", "钱", "现金")])
    accepted, dropped = adjudicate(source, [a, b], adjudication, ["two_characters"], dataset="zh")
    got = {(r.source1, r.source2): ((r.target1, r.target2), r.file) for r in accepted.itertuples()}
    assert got[("football", "soccer")] == (("足球", "足球"), "translators agree")
    assert got[("money", "cash")] == (("钱", "现金"), "adjudication table")
    assert got[("planet", "star")] == (("行星", "恒星"), "rule two_characters")
    assert dropped[["word1", "reason"]].values.tolist() == [
        ["tiger", "the translators disagree and nothing decides"],
        ["cup", "the second translator has no translation"],
    ]
    # a frequency list decides tiger/cat: 老虎 and 猫 are both more common than 虎 or 猫科
    accepted, _ = adjudicate(source, [a, b], None, ["more_common"], {"老虎": 100, "猫": 80, "虎": 5, "猫科": 2})
    assert dict(zip(accepted["source1"], zip(accepted["target1"], accepted["target2"])))["tiger"] == ("老虎", "猫")


def test_chained_translations_reach_the_root():
    links = {
        "de": pd.DataFrame({"item_id": ["de:1", "de:2"], "source_item_id": ["en:1", "en:2"]}),
        "ch": pd.DataFrame({"item_id": ["ch:1", "ch:2"], "source_item_id": ["de:2", None]}),
    }
    out = link_to_root("ch", links, {"de": "en", "ch": "de"}, "en")
    assert ids(out["source_item_id"]) == ["en:2", None]


def test_crosslingual_table_and_correlations():
    root = items("en", [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")])
    gold = {
        "en": pd.DataFrame({"item_id": root["item_id"], "mean": [1.0, 2.0, 3.0, 4.0]}),
        "fi": pd.DataFrame({"item_id": ["fi:1", "fi:2", "fi:3"], "mean": [10.0, 30.0, 20.0]}),
    }
    links = {
        "fi": pd.DataFrame(
            {"item_id": ["fi:1", "fi:2", "fi:3"], "source_item_id": ["en:000001", "en:000003", "en:000002"]}
        )
    }
    table, corr = crosslingual({"en": {"items": root, "gold": gold, "links": links}}, {"en": "en", "fi": "fi"})
    assert table["fi"].tolist()[:3] == [10.0, 20.0, 30.0] and np.isnan(table["fi"].iloc[3])
    assert corr[["dataset_a", "dataset_b", "n", "spearman"]].values.tolist() == [["en", "fi", 3, 1.0]]


# -------------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def translated(cleaned, shared_specs, shared):
    """Each translated shared dataset linked as the pipeline does (gold from the shipped means)."""
    from ..conftest import ROOT

    def gold(name):
        t = cleaned(name)
        return gold_from_means(name, t["items"], t["means"], shared_specs[name]["scale"])

    out = {}
    for name, spec in shared_specs.items():
        if "translation_of" not in spec:
            continue
        from simgold.io.config import resolve_dataset

        tr = resolve_dataset(spec)["translation"]
        source = spec["translation_of"]
        pair = (gold(name), gold(source)) if tr["by"] == "row" else None
        out[name] = translate_dataset(
            name, cleaned(name)["items"], cleaned(source)["items"], tr, base_dir=str(ROOT), gold=pair
        )
    return out, gold


@pytest.mark.shared
@pytest.mark.parametrize("lang", ["de", "he", "it", "ru"])
def test_simlex_translations_link_every_row(translated, cleaned, lang):
    frame, dropped = translated[0][f"simlex-{lang}"]
    assert frame["source_item_id"].notna().sum() == 999 and dropped.empty
    source = cleaned("simlex999")["items"]["item_id"].tolist()
    assert frame["source_item_id"].tolist() == source


@pytest.mark.shared
def test_simlex_croatian_is_not_in_simlex_order_and_every_row_is_reported(translated, cleaned, shared):
    frame, dropped = translated[0]["simlex-hr"]
    assert frame["source_item_id"].isna().all() and len(dropped) == 999
    assert dropped["reason"].str.contains("not in the source's order").all()
    # independently: smart/intelligent is row 2 of SimLex-999, its translation is row 8 of the Croatian file
    hr = (shared / "data/simlex-translations/evaluation/simlex-croatian.txt").read_text(encoding="utf-8").split("\n")
    assert hr[8].split()[:2] == ["pametan", "inteligentan"]
    assert cleaned("simlex999")["items"][["word1", "word2"]].iloc[1].tolist() == ["smart", "intelligent"]


@pytest.mark.shared
def test_finnsim_links_its_300_pairs_through_the_authors_table(translated, cleaned, shared):
    for name in ("finnsim", "finnsim-simlex"):
        frame, dropped = translated[0][name]
        assert frame["source_item_id"].notna().sum() == 300 and dropped.empty
    # independently: the pairs the table gives, found in SimLex-999
    frame, _ = translated[0]["finnsim"]
    table = pd.read_csv(
        shared / "data/finnsim/FinSemEvl/FinnSim/SimLex_TranslationsScores.csv", sep=";", encoding="utf-8-sig"
    )
    en = dict(zip(zip(table["word1_fi"], table["word2_fi"]), zip(table["word1_en"], table["word2_en"])))
    simlex = cleaned("simlex999")["items"].set_index("item_id")
    for r in frame.itertuples():
        assert tuple(simlex.loc[r.source_item_id, ["word1", "word2"]]) == en[(r.word1, r.word2)]


@pytest.mark.shared
def test_wordsim353_danish_keeps_problem_flags_and_reports_duplicates(translated):
    frame, dropped = translated[0]["ws353-da"]
    assert frame["source_item_id"].notna().sum() == 353 and dropped.empty
    assert frame["problem"].sum() == 34
    notes = frame.loc[frame["link_note"] != "", "link_note"].tolist()
    assert "the source lists money/cash 2 times; linked in order of appearance" in notes
    assert "the source also lists bank/money in the other word order; linked to the same order" in notes


@pytest.mark.shared
def test_chinese_links_to_wordsim353_and_lists_what_it_cannot(translated, cleaned):
    frame, dropped = translated[0]["ws297-zh"]
    assert frame["source_item_id"].notna().sum() == 296
    assert dropped[["word1", "word2", "reason"]].values.tolist() == [
        ["钱", "财产", "ambiguous: several source items fit"]
    ]
    assert "money/property" in dropped["candidates"].iloc[0] and "money/possession" in dropped["candidates"].iloc[0]
    en = cleaned("ws353")["items"].set_index("item_id")
    pairs = {
        (r.word1, r.word2): tuple(en.loc[r.source_item_id, ["word1", "word2"]])
        for r in frame.dropna(subset=["source_item_id"]).itertuples()
    }
    # Table 2 of Jin & Wu (2012)
    assert pairs[("恒星", "恒星")] == ("planet", "star")
    assert pairs[("入场券", "门票")] == ("admission", "ticket")
    assert pairs[("手机", "电话")] == ("cell", "phone")
    assert pairs[("银行", "钱")] == ("bank", "money")
    assert pairs[("足球", "足球")] == ("football", "soccer")
    assert len(set(frame["source_item_id"].dropna())) == 296  # one-to-one


@pytest.mark.shared
def test_crosslingual_finnsim_and_simlex_translations(translated, cleaned, shared):
    links, gold = translated
    items = cleaned("simlex999")["items"]
    members = ["finnsim", "simlex-de", "simlex-he", "simlex-it", "simlex-ru", "simlex-hr"]
    group = {
        "items": items,
        "gold": {d: gold(d) for d in ["simlex999", *members]},
        "links": {d: links[d][0][["item_id", "source_item_id"]] for d in members},
    }
    languages = {
        "simlex999": "en",
        "finnsim": "fi",
        "simlex-de": "de",
        "simlex-he": "he",
        "simlex-it": "it",
        "simlex-ru": "ru",
        "simlex-hr": "hr",
    }
    _, corr = crosslingual({"simlex999": group}, languages)
    corr = corr.set_index(["dataset_a", "dataset_b"])
    # independently, from the raw files: FinnSim means (numeric ones) against SimLex-999 via the authors' table
    d = shared / "data"
    fi = pd.read_csv(d / "finnsim/FinSemEvl/FinnSim/FinnSim_judgment_scores.csv", sep=";", encoding="utf-8-sig")
    table = pd.read_csv(d / "finnsim/FinSemEvl/FinnSim/SimLex_TranslationsScores.csv", sep=";", encoding="utf-8-sig")
    sl = pd.read_csv(d / "simlex999/SimLex-999/SimLex-999.txt", sep="\t")
    m = fi.merge(
        table[["word1_fi", "word2_fi", "word1_en", "word2_en"]],
        left_on=["word1", "word2"],
        right_on=["word1_fi", "word2_fi"],
    )
    m = m[["sim_score", "word1_en", "word2_en"]].merge(
        sl, left_on=["word1_en", "word2_en"], right_on=["word1", "word2"]
    )
    score = pd.to_numeric(m["sim_score"], errors="coerce")
    ok = score.notna()
    expected = spearmanr(score[ok], m.loc[ok, "SimLex999"])[0]
    got = corr.loc[("simlex999", "finnsim")]
    assert got["n"] == 292 and got["spearman"] == pytest.approx(expected, abs=1e-12)
    assert round(got["spearman"], 3) == 0.745
    for lang, name in (("german", "simlex-de"), ("italian", "simlex-it")):
        raw = pd.read_csv(
            d / f"simlex-translations/evaluation/simlex-{lang}.txt",
            sep="\t",
            lineterminator="\r" if lang == "german" else None,
        )
        expected = spearmanr(raw.iloc[:, 2], sl["SimLex999"])[0]
        assert corr.loc[("simlex999", name), "spearman"] == pytest.approx(expected, abs=1e-12)
    assert corr.loc[("simlex999", "simlex-hr"), "n"] == 0
    assert corr[["ci_low", "ci_high", "confidence"]].isna().all().all()  # no resamples asked for: no CIs
    # with resamples: each correlation's percentile interval, as a scipy loop over the same draws gives it
    wide, with_ci = crosslingual({"simlex999": group}, languages, resamples=200, seed=5, confidence=0.9)
    with_ci = with_ci.set_index(["dataset_a", "dataset_b"])
    pd.testing.assert_series_equal(with_ci["spearman"], corr["spearman"])
    both = wide[["simlex999", "finnsim"]].dropna().to_numpy(float)
    rng = np.random.default_rng(seed_for(5, "simlex999", "simlex999", "finnsim", "crosslingual"))
    rhos = [spearmanr(both[i, 0], both[i, 1])[0] for i in rng.integers(0, len(both), size=(200, len(both)))]
    row = with_ci.loc[("simlex999", "finnsim")]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(np.quantile(rhos, [0.05, 0.95])), abs=1e-12)
    assert row["ci_low"] < row["spearman"] < row["ci_high"] and row["confidence"] == 0.9
    assert np.isnan(with_ci.loc[("simlex999", "simlex-hr"), "ci_low"])  # no shared item
    assert with_ci.loc[("simlex999", "simlex-hr"), "note"] == "0 shared items: no correlation"
    assert with_ci.loc[("simlex999", "finnsim"), "note"] == ""
    # 99% needs 200 resamples, one beyond each end: from 199 there is no interval, and a note says why
    _, few = crosslingual({"simlex999": group}, languages, resamples=199, seed=5, confidence=0.99)
    few = few.set_index(["dataset_a", "dataset_b"]).loc[("simlex999", "finnsim")]
    assert np.isnan(few["ci_low"]) and np.isnan(few["ci_high"]) and few["spearman"] == row["spearman"]
    assert few["note"] == "199 resamples with a value: no 99% interval (at least 200 needed)"


def test_dropped_rows_are_named_as_the_table_columns():
    from simgold.io.tables import TABLES
    from simgold.stages.translate import DroppedRow

    assert DroppedRow._fields == TABLES["dropped"].names
    source = items("en", [("tiger", "cat"), ("cup", "coffee")])
    a = pd.DataFrame(
        [("tiger", "cat", "老虎", "猫"), ("cup", "coffee", "杯", "咖啡")],
        columns=["source1", "source2", "target1", "target2"],
    )
    b = a.iloc[:1].assign(target1="虎")
    _, dropped = adjudicate(source, [a, b], dataset="zh")
    assert list(dropped.columns) == list(DroppedRow._fields)
    assert [DroppedRow(*r) for r in dropped.itertuples(index=False)] == [
        DroppedRow("zh", "source", "en:000001", "tiger", "cat", "the translators disagree and nothing decides",
                   candidates="老虎/猫 | 虎/猫"),
        DroppedRow("zh", "source", "en:000002", "cup", "coffee", "the second translator has no translation", ""),
    ]  # fmt: skip


def test_a_dictionary_reads_its_words_as_cleaning_reads_items(tmp_path):
    """A dictionary typed on another machine (a decomposed é, a no-break space, a zero-width space)
    still names the items: its words are normalised as cleaning normalises the items' words."""
    dictionary = "en\tfr\nmoney\targent\ncash\tesp\u00e8ces\nice cream\tcr\u00e8me\u00a0glac\u00e9e\ncat\tchat\u200b\n"
    (tmp_path / "d.tsv").write_text(unicodedata.normalize("NFD", dictionary), encoding="utf-8")
    source = items("en", [("money", "cash"), ("ice cream", "cat")])
    target = items("fr", [("argent", "esp\u00e8ces"), ("cr\u00e8me glac\u00e9e", "chat")])
    spec = {"by": "dictionary", "dictionary": {"path": "d.tsv", "source": "en", "target": "fr"}}
    frame, dropped = translate_dataset("fr", target, source, spec, base_dir=str(tmp_path))
    assert ids(frame["source_item_id"]) == ["en:000001", "en:000002"] and dropped.empty


def test_a_frequency_is_an_ascii_number(tmp_path):
    from simgold.errors import InputError
    from simgold.stages.translate import read_frequencies

    (tmp_path / "f.tsv").write_text("word\tcount\nmoney\t12\ncash\t1_000\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"f\.tsv, row 3: a frequency must be a number of 0 or more: not a number"):
        read_frequencies({"path": "f.tsv", "word": "word", "count": "count"}, base_dir=str(tmp_path))
    (tmp_path / "f.tsv").write_text("word\tcount\nmoney\t12\ncash\t٣\n", encoding="utf-8")
    with pytest.raises(InputError, match="ARABIC-INDIC DIGIT THREE"):
        read_frequencies({"path": "f.tsv", "word": "word", "count": "count"}, base_dir=str(tmp_path))
