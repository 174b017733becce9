"""benchmarks/run_all.py runs every benchmark and writes the page docs/benchmarks.md is made of.

A smoke run (``--quick``: small sizes, one repeat): every script still runs against the library as
it is, and the page has the machine, the date and one section per script. Timings are never
asserted (they depend on the machine and on who else is using it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_run_all_quick_writes_machine_date_and_a_section_per_benchmark(tmp_path):
    output = tmp_path / "benchmarks.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick", "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    page = output.read_text(encoding="utf-8")
    failed = re.findall(r"^## (\S+)\n(?:(?!^## ).)*?\*\*Failed\*\*", page, flags=re.M | re.S)
    assert proc.returncode == 0, f"benchmarks failed: {failed}\n{proc.stdout[-2000:]}\n{page[-4000:]}"
    head = page.split("\n## ")[0]
    for what in ("CPU", "cores", "memory", "OS", "Python", "packages"):
        assert re.search(rf"^- {what}: \S", head, re.M), what
    assert "numpy " in head and "scipy " in head
    date = re.search(r"^- date: (\d{4}-\d{2}-\d{2}) ", head, re.M)
    assert date, head
    today = datetime.now(timezone.utc).date()
    assert abs((datetime.strptime(date.group(1), "%Y-%m-%d").date() - today).days) <= 1
    # one section per benchmark script of the folder (found here, not taken from run_all's own list)
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")} - {"run_all"}
    sections = re.findall(r"^## (\S+)$", page, flags=re.M)
    again = {"first_read": "embeddings", "agreement_dense": "agreement", "agreement_sparse": "agreement"}
    assert sorted(sections) == sorted(scripts | set(again))  # and scripts run again at other sizes
    for name, script in [(name, name) for name in scripts] + list(again.items()):
        body = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"`python benchmarks/{script}.py" in body
        assert "**What is compared.**" in body and "**Everything it printed.**" in body
