#!/usr/bin/env python3
"""Status queries for submit.py's jobs: prints running, success or failed, as Snakemake expects."""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    spool, job_id = Path(sys.argv[1]), sys.argv[2]
    done = spool / f"{job_id}.exit"
    if not done.exists():
        print("running")
    else:
        print("success" if done.read_text().strip() == "0" else "failed")


if __name__ == "__main__":
    main()
