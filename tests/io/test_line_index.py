"""The line index of text embedding files (src/simgold/io/lineindex.py): a second read of an unchanged
file parses only the needed lines, with the same result as a full scan; anything changed, damaged
or unverifiable falls back to the full scan."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest

import simgold.io.lineindex
import simgold.io.textvectors
from simgold.errors import InputError
from simgold.io.embeddings import load_model, write_embeddings

# words sharing their first 8 bytes, multibyte UTF-8, duplicates (in another order than their keys'),
# a line that begins with a blank
WORDS = [
    "internat", "international", "internationale", "internationally", "naïveté", "日本語の単語", "cat", "dog",
    "Tiger", "tiger", "København", "international", "dog", "river", "bank", " lion", "cat", "zzzzzzzzzzz",
]  # fmt: skip
NEED = ["internat", "international", "internationally", "naïveté", "日本語の単語", "cat", "dog", "tiger", "lion",
        "København", "bank", "absent", "internatio"]  # fmt: skip


def vector_lines(words=WORDS, dim=4, seed=0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"{w} " + " ".join(f"{v:+.5f}" for v in rng.normal(size=dim)) for w in words]


def write(path, lines, *, header=True, dim=4, end="\n", bom=False):
    head = [f"{len(lines)} {dim}"] if header else []
    text = end.join(head + lines) + end
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def read(path, need=NEED, store=None, monkeypatch=None, **model):
    """(table, report, log lines) of ``path`` read with the vector store at ``store`` (None: off)."""
    monkeypatch.setenv("SIMGOLD_CACHE", str(store) if store else "off")
    said: list[str] = []
    table, report = load_model({"path": str(path), **model}, list(need), log=said.append)
    return table, report, said


def assert_same(a, b):
    """Tables and load reports equal to the bit (vectors, lines, duplicates, mean, counts, notes)."""
    (ta, ra, _), (tb, rb, _) = a, b
    assert ta["word"].tolist() == tb["word"].tolist()
    assert ta["line"].tolist() == tb["line"].tolist() and ta["source"].tolist() == tb["source"].tolist()
    for u, v in zip(ta["vector"], tb["vector"]):
        assert u.dtype == v.dtype == np.float32 and u.tobytes() == v.tobytes()
    for name in ("file", "format", "dim", "lines", "kept", "duplicates", "notes"):
        assert getattr(ra, name) == getattr(rb, name), name
    assert (ra.mean is None) == (rb.mean is None)
    if ra.mean is not None:
        assert ra.mean.tobytes() == rb.mean.tobytes()


def table_bytes(result, path) -> bytes:
    """The embeddings table as the workflow's job writes it (with the duplicates and mean in its provenance)."""
    table, report, _ = result
    write_embeddings(table, report, path, {})
    return path.read_bytes()


def scans_forbidden(monkeypatch):
    def no_scan(*args, **kwargs):
        raise AssertionError("the whole file was scanned")

    monkeypatch.setattr(simgold.io.textvectors, "_read_body", no_scan)


def index_files(store):
    return sorted((store / "line-index").glob("*.lines"))


@pytest.mark.parametrize(
    "variant",
    [
        {"header": True},
        {"header": False},
        {"header": True, "end": "\r\n", "bom": True},
        {"header": False, "bom": True},
    ],
)
def test_a_second_read_goes_through_the_index_with_the_same_result(tmp_path, monkeypatch, variant):
    path = write(tmp_path / "v.txt", vector_lines(), **variant)
    plain = read(path, store=None, monkeypatch=monkeypatch, oov="mean")
    first = read(path, store=tmp_path / "store", monkeypatch=monkeypatch, oov="mean")
    assert len(index_files(tmp_path / "store")) == 1 and "line index written" in first[2][-1]
    scans_forbidden(monkeypatch)
    second = read(path, store=tmp_path / "store", monkeypatch=monkeypatch, oov="mean")
    assert_same(plain, first)
    assert_same(plain, second)
    assert table_bytes(plain, tmp_path / "plain.parquet") == table_bytes(second, tmp_path / "indexed.parquet")
    assert "scan" not in second[1].timings and "index" in second[1].timings
    assert any("read through its line index" in m for m in second[2])
    # what a full scan must find, from the lines written (a plain loop): the first of a repeated word
    # kept, the others reported in file order; "lion" (after a leading blank) found; "internatio" is
    # no word of the file
    rows, duplicates = {}, []
    for k, w in enumerate(WORDS):
        row = k + 1 + variant["header"]
        if w.strip() in rows:
            duplicates.append((w, rows[w], row))
        rows.setdefault(w.strip(), row)
    table, report = second[0], second[1]
    assert dict(zip(table["word"], table["line"])) == {w: rows[w] for w in NEED if w in rows}
    assert report.duplicates == duplicates and len(duplicates) == 3
    values = np.array([[float(x) for x in line.split()[1:]] for line in vector_lines()])
    np.testing.assert_array_equal(report.mean, values.mean(axis=0).astype(np.float32))


def test_the_last_line_without_a_line_end(tmp_path, monkeypatch):
    path = tmp_path / "v.txt"
    path.write_text("\n".join(vector_lines()), encoding="utf-8")
    plain = read(path, store=None, monkeypatch=monkeypatch, need=NEED + ["zzzzzzzzzzz"])
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    scans_forbidden(monkeypatch)
    indexed = read(path, store=tmp_path / "s", monkeypatch=monkeypatch, need=NEED + ["zzzzzzzzzzz"])
    assert_same(plain, indexed)
    assert "zzzzzzzzzzz" in set(indexed[0]["word"])


@pytest.mark.shared
def test_shared_files_read_the_same_through_the_index(shared, tmp_path, monkeypatch):
    files = sorted(p for p in (shared / "embeddings").rglob("*.txt") if p.name != "SOURCE.txt")
    assert len(files) >= 4
    for path in files:
        with open(path, encoding="utf-8") as fh:
            words = [line.split(" ", 1)[0] for line in fh]
        need = words[1::7] + ["not-a-word-of-it"]
        plain = read(path, need=need, store=None, monkeypatch=monkeypatch, oov="mean")
        first = read(path, need=need, store=tmp_path / "s", monkeypatch=monkeypatch, oov="mean")
        second = read(path, need=need, store=tmp_path / "s", monkeypatch=monkeypatch, oov="mean")
        assert "index" in second[1].timings and "scan" not in second[1].timings, path.name
        assert_same(plain, first)
        assert_same(plain, second)
        assert table_bytes(plain, tmp_path / "a.parquet") == table_bytes(second, tmp_path / "b.parquet")
        assert plain[1].kept >= len(need) // 2, path.name


def test_more_words_later_come_from_the_index(tmp_path, monkeypatch):
    """A dataset added: the index written while reading a few words serves a read of more."""
    path = write(tmp_path / "v.txt", vector_lines())
    read(path, need=["cat"], store=tmp_path / "s", monkeypatch=monkeypatch)
    plain = read(path, store=None, monkeypatch=monkeypatch)
    scans_forbidden(monkeypatch)
    assert_same(plain, read(path, store=tmp_path / "s", monkeypatch=monkeypatch))


def test_oov_mean_needs_an_index_with_the_sum(tmp_path, monkeypatch):
    path = write(tmp_path / "v.txt", vector_lines())
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)  # without oov: mean, no sum
    plain = read(path, store=None, monkeypatch=monkeypatch, oov="mean")
    again = read(path, store=tmp_path / "s", monkeypatch=monkeypatch, oov="mean")
    assert "scan" in again[1].timings and any("holds no sum" in m for m in again[2])
    assert_same(plain, again)
    scans_forbidden(monkeypatch)
    assert_same(plain, read(path, store=tmp_path / "s", monkeypatch=monkeypatch, oov="mean"))


# -------------------------------------------------------------------------------- changed files


def indexed_then(tmp_path, monkeypatch, change, **model):
    """(read after ``change(path)`` with the index written before it, a read without the store)."""
    path = write(tmp_path / "v.txt", vector_lines(), header=False)
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch, **model)
    change(path)
    return read(path, store=tmp_path / "s", monkeypatch=monkeypatch, **model), read(
        path, store=None, monkeypatch=monkeypatch, **model
    )


def test_a_line_appended_after_indexing(tmp_path, monkeypatch):
    def append(path):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("absent 1 2 3 4\n")

    after, plain = indexed_then(tmp_path, monkeypatch, append, oov="mean")
    assert_same(plain, after)
    assert "absent" in set(after[0]["word"]) and after[1].lines == len(WORDS) + 1
    assert any("changed since it was indexed (size" in m for m in after[2])


def test_an_edit_with_a_new_mtime(tmp_path, monkeypatch):
    cat = next(line for line in vector_lines() if line.startswith("cat "))
    new = "cat " + " ".join(f"{k}.00000" for k in range(len(cat.split()) - 2)) + " 4.5"
    new += "0" * (len(cat) - len(new))
    after, plain = indexed_then(tmp_path, monkeypatch, same_length_edit(cat.encode(), new.encode(), later=10**9))
    assert_same(plain, after)
    np.testing.assert_array_equal(after[0].set_index("word").loc["cat", "vector"], np.float32([0, 1, 2, 4.5]))
    assert any("mtime_ns" in m for m in after[2])


def swap_cat_and_dog(path):
    """``cat`` and the first ``dog`` change places (lines of the same length); size and mtime restored."""
    st = os.stat(path)
    lines = path.read_bytes().split(b"\n")
    cat, dog = (next(i for i, line in enumerate(lines) if line.startswith(w)) for w in (b"cat ", b"dog "))
    assert len(lines[cat]) == len(lines[dog])
    lines[cat], lines[dog] = lines[dog], lines[cat]
    path.write_bytes(b"\n".join(lines))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns


def test_an_edit_with_size_and_mtime_restored_is_seen(tmp_path, monkeypatch):
    """os.utime sets the mtime back, but not the status-change time: the edit is seen."""
    after, plain = indexed_then(tmp_path, monkeypatch, swap_cat_and_dog)
    assert_same(plain, after)
    assert after[0].set_index("word").loc["cat", "line"] == WORDS.index("dog") + 1
    assert any("ctime_ns differ" in m for m in after[2])


def same_length_edit(old: bytes, new: bytes, later: int = 0):
    """An edit of the same size; the mtime set back (or ``later`` ns after what it was)."""

    def edit(path):
        st = os.stat(path)
        content = path.read_bytes()
        assert len(old) == len(new) and content.count(old) == 1
        path.write_bytes(content.replace(old, new))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + later))
        assert os.stat(path).st_size == st.st_size

    return edit


def outcome(path, store, monkeypatch):
    """What a read of ``cat`` gives: its (table, report, log), or the error it raises."""
    try:
        return read(path, need=["cat"], store=store, monkeypatch=monkeypatch)
    except InputError as err:
        return str(err)


def edit_cat_and_dog(path, case: str) -> None:
    """The first ``cat`` line and the ``dog`` line after it changed, the size and mtime kept."""
    lines = path.read_bytes().split(b"\n")
    cat, dog = (next(i for i, line in enumerate(lines) if line.startswith(w)) for w in (b"cat ", b"dog "))
    if case == "swapped":  # lines of the same length
        lines[cat], lines[dog] = lines[dog], lines[cat]
    elif case == "prefixed":  # the line before one byte shorter, cat's line now the word "xcat"
        lines[cat - 1], lines[cat] = lines[cat - 1][:-1], b"x" + lines[cat]
    elif case == "longer":  # cat's last value two digits longer: what was its line end is now a digit
        lines[cat], lines[dog] = lines[cat] + b"12", lines[dog][:-2]
    else:  # cat's line shorter, and a line of blanks (an error) up to where its line end was
        short = b"cat +0.9 +0.1 -0.7 -0.9"
        lines[cat] = short + b"\n" + b" " * (len(lines[cat]) - len(short) - 1)
    same_length_edit(path.read_bytes(), b"\n".join(lines))(path)


@pytest.mark.parametrize("case", ["swapped", "prefixed", "longer", "split"])
def test_lines_not_where_they_were_indexed_are_seen_line_by_line(tmp_path, monkeypatch, case):
    """On a file system whose identity cannot see an edit (here: without the status-change time),
    each line read through the index is checked: a needed line that moved falls back to a scan."""
    monkeypatch.setattr(simgold.io.lineindex, "FILE_FIELDS", ("path", "size", "mtime_ns", "ino"))
    path = write(tmp_path / "v.txt", vector_lines(), header=False)
    read(path, need=["cat"], store=tmp_path / "s", monkeypatch=monkeypatch)
    edit_cat_and_dog(path, case)
    said = []
    monkeypatch.setattr(simgold.io.lineindex.LineStore, "say", lambda self, message: said.append(message))
    after, plain = outcome(path, tmp_path / "s", monkeypatch), outcome(path, None, monkeypatch)
    if case == "split":
        assert after == plain and f"row {WORDS.index('cat') + 2}: an empty line" in plain
    else:
        assert_same(plain, after)
        cats = [k + 1 for k, w in enumerate(WORDS) if w == "cat"]
        rows = {"swapped": WORDS.index("dog") + 1, "prefixed": cats[1], "longer": cats[0]}
        assert plain[0]["line"].tolist() == [rows[case]]  # the full scan's, from the lines written
    assert any("is not where it was indexed; the whole file is scanned" in m for m in said), said


def test_a_bad_needed_line_written_in_place_is_reported_with_its_row(tmp_path, monkeypatch):
    monkeypatch.setattr(simgold.io.lineindex, "FILE_FIELDS", ("path", "size", "mtime_ns", "ino"))
    path = write(tmp_path / "v.txt", vector_lines(), header=False)
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    cat = next(line for line in vector_lines() if line.startswith("cat "))
    broken = cat[:-4] + "zero"
    same_length_edit(cat.encode(), broken.encode())(path)
    with pytest.raises(InputError, match=rf"v.txt, row {WORDS.index('cat') + 1}: non-numeric value"):
        read(path, store=tmp_path / "s", monkeypatch=monkeypatch)


def test_a_bad_line_appended_after_indexing_is_reported_with_its_row(tmp_path, monkeypatch):
    path = write(tmp_path / "v.txt", vector_lines(), header=False)
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("unneeded 1 2 3\n")
    with pytest.raises(InputError, match=rf"row {len(WORDS) + 1}: 'unneeded' has 3 values"):
        read(path, store=tmp_path / "s", monkeypatch=monkeypatch)


def test_no_index_after_a_scan_that_failed(tmp_path, monkeypatch):
    path = write(tmp_path / "v.txt", vector_lines() + ["short 1 2"], header=False)
    with pytest.raises(InputError, match="'short' has 2 values"):
        read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    assert not (tmp_path / "s").exists() or not index_files(tmp_path / "s")


# -------------------------------------------------------------------------------- damaged index, no index


@pytest.mark.parametrize(
    "damage",
    [
        lambda body: body[:-5],
        lambda body: body[:-9] + bytes([body[-9] ^ 1]) + body[-8:],
        lambda body: b"not json\n" + body,
        lambda body: body.replace(b'"words": ', b'"words": 1', 1),
        lambda body: b"",
    ],
)
def test_a_damaged_index_is_said_and_the_file_scanned_and_indexed_again(tmp_path, monkeypatch, damage):
    path = write(tmp_path / "v.txt", vector_lines())
    plain = read(path, store=None, monkeypatch=monkeypatch)
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    (index,) = index_files(tmp_path / "s")
    index.write_bytes(damage(index.read_bytes()))
    again = read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    assert_same(plain, again)
    assert any("not used: it does not read back as written" in m for m in again[2]), again[2]
    assert "scan" in again[1].timings
    scans_forbidden(monkeypatch)  # written again
    assert_same(plain, read(path, store=tmp_path / "s", monkeypatch=monkeypatch))


def test_no_index_for_gzip_nor_without_a_store(tmp_path, monkeypatch):
    text = write(tmp_path / "v.txt", vector_lines()).read_bytes()
    (tmp_path / "v.txt.gz").write_bytes(gzip.compress(text))
    for _ in range(2):
        table, report, said = read(tmp_path / "v.txt.gz", store=tmp_path / "s", monkeypatch=monkeypatch)
        assert "scan" in report.timings and any("gzip, so no line index" in m for m in said)
    assert not (tmp_path / "s").exists()
    for setting in ("off", None):
        if setting is None:
            monkeypatch.delenv("SIMGOLD_CACHE")
        else:
            monkeypatch.setenv("SIMGOLD_CACHE", setting)
        for _ in range(2):
            _, report = load_model({"path": str(tmp_path / "v.txt")}, NEED)
            assert "scan" in report.timings
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.txt", "v.txt.gz"]


def test_a_code_change_makes_the_index_stale(tmp_path, monkeypatch):
    path = write(tmp_path / "v.txt", vector_lines())
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    monkeypatch.setattr(simgold.io.lineindex, "code_version", lambda: "another")
    again = read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    assert "scan" in again[1].timings and any("another version of the reader" in m for m in again[2])


def test_a_line_read_short_is_not_used(tmp_path, monkeypatch):
    """A file cut short while it is read (after its size was checked): a line read whole is checked."""
    path = write(tmp_path / "v.txt", vector_lines())
    plain = read(path, store=None, monkeypatch=monkeypatch)
    read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    read_at = simgold.io.textvectors._read_at

    def cut_short(fd, start, end):  # " lion ...": all but the line end before it (its key is 0, as an empty line's)
        piece = read_at(fd, start, end)
        return piece[:1] if piece.startswith(b"\n lion ") else piece

    monkeypatch.setattr(simgold.io.textvectors, "_read_at", cut_short)
    again = read(path, store=tmp_path / "s", monkeypatch=monkeypatch)
    assert_same(plain, again)
    assert any("is not where it was indexed" in m for m in again[2])


@pytest.mark.parametrize("n, distinct", [(0, 1), (1, 1), (2, 1), (1000, 3), (5000, 4000), (3000, 2**40)])
def test_line_order_is_numpys_stable_argsort(n, distinct):
    """The index's order of the lines (by key, then by line) is numpy's stable argsort, ties included."""
    rng = np.random.default_rng(n)
    keys = rng.integers(0, distinct, size=n).astype(np.uint64) * np.uint64(2**23 + 1)
    assert simgold.io.lineindex._stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()
