"""Provenance digests (simgold.io.digests): the SHA-256 of each input, computed while the job works or on demand,
is the file's own digest (checked against hashlib on the bytes read here)."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import simgold.io.digests as digests
from simgold.io.digests import hash_in_background, input_digest, provenance
from simgold.workflow import job as workflow
from simgold.workflow.job import run


def _files(tmp_path, sizes):
    paths = []
    for k, size in enumerate(sizes):
        path = tmp_path / f"input{k}.bin"
        path.write_bytes(bytes((k * 7 + i) % 251 for i in range(size)))
        paths.append(path)
    return paths


def test_background_digests_are_the_files_sha256(tmp_path):
    paths = _files(tmp_path, [3 << 20, 10, 0])  # larger than one read block, tiny, empty
    hash_in_background(paths)
    assert all(str(p) in digests._digests for p in paths)
    for p in paths:
        assert input_digest(p) == hashlib.sha256(p.read_bytes()).hexdigest()
    prov = provenance("r", {}, {}, {f"raw/{p.name}": str(p) for p in paths})
    assert prov["inputs"] == {f"raw/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def test_a_digest_not_started_is_computed_on_demand(tmp_path):
    (path,) = _files(tmp_path, [1000])
    assert str(path) not in digests._digests
    assert input_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_big_input_is_read_for_its_digest_once_and_then_remembered(tmp_path, monkeypatch):
    """The first job hashing a big input reads it in full on its background thread (and says so:
    ``reads_large_input``); a later job's background hashing takes the digest the store noted and
    reads nothing, and the digest is still the file's own (hashlib on the bytes)."""
    monkeypatch.setenv("SIMGOLD_CACHE", str(tmp_path / "store"))
    big, small = tmp_path / "vectors.txt", tmp_path / "words.parquet"
    with big.open("wb") as out:
        out.write(b"2 3\n")
        out.truncate(digests.BIG_INPUT)
    small.write_bytes(b"small")
    read = []
    sha256_file = digests.sha256_file
    monkeypatch.setattr(digests, "sha256_file", lambda path: (read.append(str(path)), sha256_file(path))[1])
    for job in ("first", "later"):
        monkeypatch.setattr(digests, "_digests", {})  # each job's process starts with none
        monkeypatch.setattr(digests, "_reading", set())
        read.clear()
        hash_in_background([big, small])
        assert input_digest(big) == hashlib.sha256(big.read_bytes()).hexdigest()
        assert input_digest(small) == hashlib.sha256(b"small").hexdigest()
        assert digests.reads_large_input() == (job == "first")
        assert sorted(read) == sorted([str(big), str(small)] if job == "first" else [str(small)])


def _job(tmp_path, threads):
    tmp_path.mkdir()
    paths = _files(tmp_path, [5000, 20])
    seen = {}

    def main(snakemake, log):
        seen["started"] = {str(p) for p in paths} <= set(digests._digests)
        seen["prov"] = provenance("r", {}, {}, {p.name: str(p) for p in paths})["inputs"]

    job = SimpleNamespace(threads=threads, input=[str(p) for p in paths], log=[], rule="r")
    run(job, main)
    assert seen["prov"] == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}
    return seen["started"]


def test_a_job_with_a_spare_thread_hashes_its_inputs_while_it_works(tmp_path, monkeypatch):
    # the job's process-wide settings (thread pools, the vector store) stay out of the test process
    monkeypatch.setattr(workflow, "limit_threads", lambda threads: threads)
    monkeypatch.setenv("SIMGOLD_CACHE", "off")
    assert _job(tmp_path / "two", threads=2)
    assert not _job(tmp_path / "one", threads=1)  # one thread: digests when provenance asks


def _big(tmp_path, monkeypatch):
    """A file counted as big (``BIG_INPUT`` lowered), and a vector store in ``tmp_path``."""
    monkeypatch.setattr(digests, "BIG_INPUT", 1000)
    monkeypatch.setenv("SIMGOLD_CACHE", str(tmp_path / "store"))
    (path,) = _files(tmp_path, [4000])
    return path


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_big_inputs_digest_is_remembered_while_the_file_is_unchanged(tmp_path, monkeypatch):
    path = _big(tmp_path, monkeypatch)
    assert digests.input_sha256(path) == _sha256(path)
    notes = list((tmp_path / "store" / digests.DIGESTS).iterdir())
    assert len(notes) == 1
    monkeypatch.setattr(digests, "sha256_file", lambda p: "not read again")
    assert digests.input_sha256(path) == _sha256(path)  # from the note: the file is not read again


def test_a_changed_big_input_is_hashed_again(tmp_path, monkeypatch):
    import os

    path = _big(tmp_path, monkeypatch)
    digests.input_sha256(path)
    before = path.stat()
    data = bytearray(path.read_bytes())
    data[5] ^= 1  # same size; mtime set back below: only the status-change time tells
    path.write_bytes(bytes(data))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert digests.input_sha256(path) == _sha256(path)
    with path.open("ab") as fh:
        fh.write(b"more")
    assert digests.input_sha256(path) == _sha256(path)


def test_a_damaged_note_or_no_store_means_the_digest_is_computed(tmp_path, monkeypatch):
    path = _big(tmp_path, monkeypatch)
    digests.input_sha256(path)
    (note,) = (tmp_path / "store" / digests.DIGESTS).iterdir()
    for damage in (b"{not json", b'{"file": {}, "sha256": "x"}', b"[]"):
        note.write_bytes(damage)
        assert digests.input_sha256(path) == _sha256(path)
    monkeypatch.setenv("SIMGOLD_CACHE", "off")
    other = tmp_path / "other.bin"
    other.write_bytes(path.read_bytes() + b"!")
    assert digests.input_sha256(other) == _sha256(other)
    assert len(list((tmp_path / "store" / digests.DIGESTS).iterdir())) == 1  # nothing noted without a store


def test_a_jobs_background_digest_of_a_big_input_is_remembered_in_its_store(tmp_path, monkeypatch):
    """A workflow job (two threads, no $SIMGOLD_CACHE given: the default store under .snakemake/) hashes
    its big input in the background through the store, so that its rerun does not read it again."""
    monkeypatch.setattr(workflow, "limit_threads", lambda threads: threads)
    monkeypatch.setattr(digests, "BIG_INPUT", 1000)
    # recorded first, so that the default the job sets is taken back after the test (other tests
    # in this process would otherwise write a vector store and log about it)
    monkeypatch.setenv("SIMGOLD_CACHE", "off")
    monkeypatch.delenv("SIMGOLD_CACHE")
    monkeypatch.chdir(tmp_path)
    (path,) = _files(tmp_path, [4000])
    seen = {}

    def main(snakemake, log):
        seen["prov"] = provenance("r", {}, {}, {"big": str(path)})["inputs"]

    run(SimpleNamespace(threads=2, input=[str(path)], log=[], rule="r"), main)
    assert seen["prov"] == {"big": _sha256(path)}
    notes = list((tmp_path / ".snakemake" / "simgold-cache" / digests.DIGESTS).iterdir())
    assert len(notes) == 1 and _sha256(path) in notes[0].read_text()


def test_a_finished_job_ends_without_teardown_and_loses_nothing(tmp_path):
    """A job's script (the process whose __main__ holds the `snakemake` object) ends right after its
    main returns, without Python's teardown, once its log is complete, its background digests are
    done and noted in the store and stdout is flushed; the exit status is 0. Those are flushed
    explicitly: the atexit handlers are not run (no private CPython call). Called in any other
    process (a notebook, these tests), run returns as usual."""
    import subprocess
    import sys

    big = tmp_path / "big.bin"
    big.write_bytes(bytes(i % 251 for i in range(5000)))
    script = tmp_path / "job.py"
    script.write_text(
        "import atexit, pathlib, sys, time\n"
        "from types import SimpleNamespace\n"
        "import simgold.io.digests as digests\n"
        "from simgold.workflow.job import run\n"
        "digests.BIG_INPUT = 1000\n"
        "digest = digests.input_sha256\n"
        "digests.input_sha256 = lambda path: (time.sleep(0.5), digest(path))[1]  # still hashing as main ends\n"
        "atexit.register(lambda: pathlib.Path('atexit-ran').write_text('yes'))\n"
        f"snakemake = SimpleNamespace(threads=2, input=[{str(big)!r}], log=['job.log'], rule='r')\n"
        "def main(snakemake, log):\n"
        "    for i in range(2000):\n"
        "        log.info('line %d', i)\n"
        "    sys.stdout.write('unflushed')\n"
        "run(snakemake, main)\n"
        "pathlib.Path('after-run').write_text('the process went on')\n",
        encoding="utf-8",
    )
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "unflushed"
    lines = (tmp_path / "job.log").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2000 and lines[-1] == "INFO line 1999"
    assert not (tmp_path / "atexit-ran").exists()
    assert not (tmp_path / "after-run").exists()  # it ended in run
    notes = list((tmp_path / ".snakemake" / "simgold-cache" / digests.DIGESTS).iterdir())
    assert len(notes) == 1 and _sha256(big) in notes[0].read_text()


def test_tsv_reads_back_exactly_whatever_a_cell_holds():
    """A rejected cell may hold a CR, a line feed, a tab, a quote or a NUL: the TSV (the ledger a
    stopped job leaves, a release's table) reads back the same with pandas and with the csv module."""
    import csv
    import io

    import pandas as pd

    from simgold.io.tables import tsv_bytes

    values = ["ca\rt", "x\ny", "ice\tcream", 'say "hi"', "cat\x00", "plain", ""]
    frame = pd.DataFrame({"source_row": range(2, 2 + len(values)), "raw_value": values})
    data = tsv_bytes(frame)
    back = pd.read_csv(io.BytesIO(data), sep="\t", keep_default_na=False, dtype={"raw_value": str})
    assert back["raw_value"].tolist() == values and back["source_row"].tolist() == list(range(2, 9))
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter="\t"))
    assert [row[1] for row in rows[1:]] == values
