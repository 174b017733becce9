"""Provenance digests (simgold.tables): the SHA-256 of each input, computed while the job works or on demand,
is the file's own digest (checked against hashlib on the bytes read here)."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import simgold.tables as tables
from simgold.tables import hash_in_background, input_digest, provenance
from simgold import workflow
from simgold.workflow import run


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
    assert all(str(p) in tables._digests for p in paths)
    for p in paths:
        assert input_digest(p) == hashlib.sha256(p.read_bytes()).hexdigest()
    prov = provenance("r", {}, {}, {f"raw/{p.name}": str(p) for p in paths})
    assert prov["inputs"] == {f"raw/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def test_a_digest_not_started_is_computed_on_demand(tmp_path):
    (path,) = _files(tmp_path, [1000])
    assert str(path) not in tables._digests
    assert input_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def _job(tmp_path, threads):
    tmp_path.mkdir()
    paths = _files(tmp_path, [5000, 20])
    seen = {}

    def main(snakemake, log):
        seen["started"] = {str(p) for p in paths} <= set(tables._digests)
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
