"""Seeds derived from names: the value (a hand computation with hashlib), and that the module is
light (importing it loads none of numpy, pandas, scipy)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from simgold.stages import scores as scoring
from simgold.stats.seeds import seed_for


def test_seed_is_the_sha256_of_the_names_xor_the_base():
    digest = hashlib.sha256("ws353\x1fglove\x1fspearman".encode()).digest()
    assert seed_for(7, "ws353", "glove", "spearman") == (int.from_bytes(digest[:8], "little") ^ 7) % 2**63
    assert scoring.seed_for is seed_for  # the scoring streams keep their seeds


def test_importing_seeds_loads_no_numerical_library():
    code = "import sys, simgold.stats.seeds; print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
