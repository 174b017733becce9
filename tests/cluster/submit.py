#!/usr/bin/env python3
"""A stand-in batch scheduler for the cluster-generic executor test.

Snakemake calls this once per job, as it would call ``sbatch``: the resources the rule declares
come in as options, the job script last. The job is started as its own detached process (its own
session, no shared memory with Snakemake), the request is recorded in ``SPOOL/submissions.jsonl``,
and the job id is printed. ``status.py`` answers Snakemake's status queries from ``SPOOL``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import uuid
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spool", required=True)
    parser.add_argument("--rule", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--mem-mb", type=int, required=True)
    parser.add_argument("--runtime", type=int, required=True)
    parser.add_argument("jobscript")
    args = parser.parse_args()
    spool = Path(args.spool)
    spool.mkdir(parents=True, exist_ok=True)
    job_id = uuid.uuid4().hex[:12]
    record = {"job": job_id, "rule": args.rule, "threads": args.threads, "mem_mb": args.mem_mb}
    record["runtime"] = args.runtime
    with open(spool / "submissions.jsonl", "a", encoding="utf-8") as fh:  # one short line: an atomic append
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    # the exit code lands in <job>.exit only when the job has ended (written, then renamed)
    wrapper = 'sh "$1" > "$2.out" 2>&1; echo $? > "$2.exit.part" && mv "$2.exit.part" "$2.exit"'
    subprocess.Popen(
        ["/bin/sh", "-c", wrapper, "job", args.jobscript, str(spool / job_id)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "SIMGOLD_TEST_JOB": job_id},
    )
    print(job_id)


if __name__ == "__main__":
    main()
