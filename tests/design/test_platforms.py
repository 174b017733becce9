"""The Label Studio and Potato files of a BWS design: checked by Label Studio's own library, and
the platforms' real exports (tests/design/fixtures/README.md: made once by running each platform
on loopback with the files ``design_seed1/`` holds) read back through the cleaning with the config
entry the design writes."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ..conftest import peer
import yaml

from simgold.design.bws import design_bws
from simgold.design.platforms import label_studio_config, label_studio_tasks, potato_config, potato_instances
from simgold.stages.clean import clean_dataset

FIXTURES = Path(__file__).parent / "fixtures"
PAIRS = [
    ("cat", "dog"),
    ("car", "bus"),
    ("sun", "moon"),
    ("cup", "tea"),
    ("king", "queen"),
    ("tool", "chisel"),
    ("bread", "butter"),
    ("sea", "ocean"),
]


def fixture_design(raw_dir: str = "raw"):
    """The design whose files the fixtures' platforms were given (fixtures/README.md)."""
    return design_bws(PAIRS, name="fixture", n_raters=3, answers_per_tuple=2, seed=1, raw_dir=raw_dir)


def answer_rows(tables) -> list:
    """(tuple, rater, best item, worst item) per answer, items as word1:word2."""
    words = tables["items"].set_index("item_id")
    out = []
    for _, rows in tables["answers"].groupby("answer", sort=True):
        chosen = {c: rows.loc[rows["choice"] == c, "item_id"].item() for c in ("best", "worst")}
        pair = {c: f"{words.at[i, 'word1']}:{words.at[i, 'word2']}" for c, i in chosen.items()}
        out.append((rows["tuple"].iloc[0], str(rows["rater"].iloc[0]), pair["best"], pair["worst"]))
    return out


def test_the_design_still_writes_the_files_the_platforms_were_given():
    design = fixture_design()
    for path in (
        "label_studio/tasks.json",
        "label_studio/labeling_config.xml",
        "potato/data.jsonl",
        "potato/config.yaml",
    ):
        assert design.files[path] == (FIXTURES / "design_seed1" / path).read_bytes(), path


# -------------------------------------------------------------------------------- Label Studio


def test_the_labeling_config_names_the_items_and_two_required_choices_over_the_positions():
    root = ET.fromstring(label_studio_config(5))
    assert root.tag == "View" and root.get("title") == "simgold-bws"
    assert [(t.get("name"), t.get("value")) for t in root.iter("Text")] == [
        (f"item{j}", f"$item{j}") for j in range(1, 6)
    ]
    choices = {c.get("name"): c for c in root.iter("Choices")}
    assert sorted(choices) == ["best", "worst"]
    for tag in choices.values():
        assert (tag.get("toName"), tag.get("required"), tag.get("choice")) == ("item1", "true", "single-radio")
        assert [c.get("value") for c in tag.iter("Choice")] == ["1", "2", "3", "4", "5"]


def test_tasks_hold_the_items_and_the_tuple():
    tasks = json.loads(label_studio_tasks(["t0001", "t0002"], [["a:b", "c:d", "e:f"], ["g:h", "a:b", "i:j"]]))
    assert tasks == [
        {"data": {"item1": "a:b", "item2": "c:d", "item3": "e:f", "tuple": "t0001"}},
        {"data": {"item1": "g:h", "item2": "a:b", "item3": "i:j", "tuple": "t0002"}},
    ]


def test_label_studio_sdk_parses_the_config_and_every_task_holds_its_data_keys():
    """label-studio-sdk, Label Studio's own parser of labeling configs (the test extra pins it below
    2.0, whose opencv-python-headless pins numpy below the project's)."""
    sdk = peer("label_studio_sdk.label_interface")
    design = fixture_design()
    config = design.files["label_studio/labeling_config.xml"].decode()
    interface = sdk.LabelInterface(config)
    interface.validate()
    for name in ("best", "worst"):
        control = interface.get_control(name)
        assert (control.tag, control.to_name, control.labels) == ("Choices", ["item1"], ["1", "2", "3", "4"])
    keys = {obj.value.lstrip("$") for obj in interface.objects}
    assert keys == {"item1", "item2", "item3", "item4"}
    tasks = json.loads(design.files["label_studio/tasks.json"])
    assert len(tasks) == design.tuples.n_tuples
    for task in tasks:
        assert keys <= set(task["data"]) and interface.validate_task(task)

    def answer(best, worst):
        return {"result": [{"from_name": n, "to_name": "item1", "type": "choices", "value": {"choices": [v]}}
                           for n, v in (("best", best), ("worst", worst))]}  # fmt: skip

    assert interface.validate_annotation(answer("2", "4")) and not interface.validate_annotation(answer("5", "4"))
    broken = config.replace('toName="item1" choice', 'toName="item9" choice', 1)
    with pytest.raises(Exception, match="item9"):
        sdk.LabelInterface(broken).validate()


# (tuple, Label Studio's user id, best, worst): what fixtures/README.md's script submitted
LABEL_STUDIO_ANSWERS = [
    ("t0001", "2", "car:bus", "king:queen"),
    ("t0001", "1", "cat:dog", "king:queen"),
    ("t0002", "2", "bread:butter", "cup:tea"),
    ("t0002", "1", "car:bus", "cup:tea"),
    ("t0003", "1", "sun:moon", "car:bus"),
    ("t0004", "1", "bread:butter", "cat:dog"),
    ("t0005", "2", "king:queen", "car:bus"),
]


@pytest.mark.parametrize("export", ["label_studio_export.json", "label_studio_export.csv"])
def test_label_studios_export_reads_back_with_the_written_config(tmp_path, monkeypatch, export):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "raw").mkdir()
    shutil.copy(FIXTURES / export, tmp_path / "raw" / "export.json")
    entry = fixture_design().datasets["label_studio"]
    if export.endswith(".csv"):  # the same entry reads the CSV export saved under its own name
        shutil.move(tmp_path / "raw" / "export.json", tmp_path / "raw" / "export.csv")
        entry["sources"][0]["path"] = "raw/export.csv"
    tables = clean_dataset("ls", entry)
    assert answer_rows(tables) == LABEL_STUDIO_ANSWERS
    assert tables["answers"].drop_duplicates("answer")["task"].tolist() == [1, 1, 2, 2, 3, 4, 5]
    ledger = tables["rejects"]["reason"].value_counts().to_dict()
    # annotation_id, created_at, updated_at of 7 answers (lead_time is blank); the CSV's header line too
    assert ledger == ({"ignored_column": 21} if export.endswith(".json") else {"ignored_column": 21, "ignored_row": 13})
    assert bool(tables["summary"]["ledger_balanced"].iloc[0])


# -------------------------------------------------------------------------------- Potato


def test_potato_files_show_each_tuple_once_with_a_bws_scheme_of_two_boxes():
    design = fixture_design()
    lines = design.files["potato/data.jsonl"].decode().splitlines()
    once = design.table.drop_duplicates("tuple").sort_values("tuple")
    assert [json.loads(line) for line in lines] == [
        {"id": t, "text": " | ".join(items)}
        for t, items in zip(once["tuple"], once[["item1", "item2", "item3", "item4"]].values.tolist())
    ]
    config = yaml.safe_load(design.files["potato/config.yaml"])
    (scheme,) = config["annotation_schemes"]
    assert (scheme["annotation_type"], scheme["name"], scheme["labels"]) == ("text", "bws", ["best", "worst"])
    assert config["output_annotation_format"] == "tsv" and config["data_files"] == ["data.jsonl"]
    # 16 tuples x 2 answers over 3 raters: the largest load is 11
    assert config["automatic_assignment"]["labels_per_instance"] == 2
    assert config["automatic_assignment"]["instance_per_annotator"] == 11
    assert potato_instances(["t9"], [["a:b", "c:d", "e:f"]]) == '{"id": "t9", "text": "a:b | c:d | e:f"}\n'
    assert "A to C" in yaml.safe_load(potato_config("x", 3, 1, 1))["annotation_schemes"][0]["description"]


def test_potatos_export_reads_back_with_the_written_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "raw").mkdir()
    shutil.copy(FIXTURES / "potato_annotated_instances.tsv", tmp_path / "raw" / "annotated_instances.tsv")
    tables = clean_dataset("po", fixture_design().datasets["potato"])
    assert answer_rows(tables) == [
        ("t0016", "ann@example.org", "tool:chisel", "cup:tea"),
        ("t0013", "ann@example.org", "car:bus", "cat:dog"),
        ("t0007", "ann@example.org", "sun:moon", "king:queen"),
        ("t0010", "bob@example.org", "bread:butter", "tool:chisel"),
        ("t0002", "bob@example.org", "car:bus", "sea:ocean"),
    ]
    # the export's tuples are the design's, item for item
    design = fixture_design().table.drop_duplicates("tuple").set_index("tuple")
    items = tables["items"].set_index("item_id")
    for tuple_id, rows in tables["answers"].groupby("tuple"):
        shown = [f"{items.at[i, 'word1']}:{items.at[i, 'word2']}" for i in rows.sort_values("position")["item_id"][:4]]
        assert shown == design.loc[tuple_id, ["item1", "item2", "item3", "item4"]].tolist()
    assert tables["rejects"]["reason"].value_counts().to_dict() == {"ignored_row": 5}  # the header's 5 cells
