"""The statistics of human ratings are the same bits under every BLAS kernel (docs/methods.md
section 10).

OpenBLAS picks a kernel for the CPU (an AVX-512 Intel runs SkylakeX, an AMD or older Intel
Haswell), and each kernel adds a matrix product's terms in its own order. Each side below runs in a
process of its own under ``OPENBLAS_CORETYPE`` (Haswell and Sandybridge both run on any AVX2
machine; the second side also without numpy's AVX-512 loops, as on a CPU without AVX-512) on
demo-da's ratings, shift-calibrated as configured and z-scored (scores that are not whole numbers);
it prints a digest of every value it computed. The two sides must agree bit for bit, while a
reference float32 product must differ between them: otherwise the kernels were not switched
(another BLAS, or a CPU without AVX2) and the test would prove nothing, so it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from ..conftest import ROOT

#: each side's environment: the BLAS kernel, and for the second numpy's loops of an AVX2 machine
SIDES = (
    {"OPENBLAS_CORETYPE": "Haswell"},
    {"OPENBLAS_CORETYPE": "Sandybridge", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"},
)
KERNELS = " and ".join(side["OPENBLAS_CORETYPE"] for side in SIDES)

PROBE = r"""
import hashlib, json, sys
import numpy as np, pandas as pd, yaml
from simgold.io.config import check_config
from simgold.io.embeddings import cosine
from simgold.stages.agreement import agreement_report, alpha_levels
from simgold.stages.calibrate import calibrate
from simgold.stages.clean import clean_dataset
from simgold.stages.reliability import split_half
from simgold.stats.dependent_correlations import compare_predictions, zou_interval

root = sys.argv[1]
rng = np.random.default_rng(0)
a, b = rng.standard_normal((300, 384), dtype=np.float32), rng.standard_normal((384, 1536), dtype=np.float32)
digests = {"reference float32 product": hashlib.sha256((a @ b).tobytes()).hexdigest()}
triples = rng.uniform(-0.95, 0.95, (2000, 3))  # correlations r_jg, r_kg, r_jk
digests["reference numpy arctanh"] = hashlib.sha256(np.arctanh(triples).tobytes()).hexdigest()


def digest(name, table):
    table = pd.DataFrame(table)
    numbers = table.select_dtypes("number").to_numpy(float)
    text = "\t".join(table.select_dtypes(exclude="number").astype(str).to_numpy().ravel()).encode()
    digests[name] = hashlib.sha256(np.ascontiguousarray(numbers).tobytes() + text).hexdigest()


config = check_config(yaml.safe_load(open(f"{root}/config/config.yaml", encoding="utf-8")), base_dir=root)
spec = config["datasets"]["demo-da"]
tables = clean_dataset("demo-da", spec, base_dir=root)
items, raw = tables["items"], tables["ratings"]
ci = {"resamples": 200, "seed": 7, "confidence": 0.95, "max_work": 15_000_000}
for method, settings in (("shift", spec["calibration"]), ("zscore", {"threshold": 1.0, "step": 1.0})):
    calibrated, calibration = calibrate(raw, spec["scale"], **{**settings, "method": method})
    report = agreement_report(
        "demo-da", items, raw, calibrated, calibration, min_overlap=5, subset_names=["pos"],
        outliers=spec["outliers"], ci=ci,
    )
    for name in ("agreement", "raters", "agreement_ci"):
        digest(f"{method}: {name}", report[name])
    stages = {"raw": raw, "calibrated": calibrated, "filtered": report["ratings"]}
    digest(f"{method}: alpha", alpha_levels("demo-da", items, stages, ["pos"]))
    digest(f"{method}: split halves", split_half("demo-da", calibrated, seed=7, stage="calibrated"))
    wide = calibrated.pivot_table(index="item_id", columns="rater", values="score").dropna(axis=1)
    gold = wide.mean(axis=1).to_numpy()
    for test in ("spearman", "pearson"):  # two raters standing in for two models' predictions
        row = compare_predictions(gold, wide.iloc[:, 0].to_numpy(), wide.iloc[:, 1].to_numpy(), test, confidence=0.95)
        digest(f"{method}: compare_predictions {test}", [row])
digest("zou intervals", [zou_interval(*t, 353, 0.95) for t in triples.tolist()])
vectors = np.random.default_rng(1).standard_normal((2, 50, 384))  # float64, as in-context vectors are
digest("cosine", {"cosine": cosine(vectors[0], vectors[1])})
print(json.dumps(digests))
"""


def _probe(side: dict) -> dict:
    env = {**os.environ, **side, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT)], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"{side}: {done.stderr[-2000:]}"
    return json.loads(done.stdout.splitlines()[-1])


def _has_avx512() -> bool:
    from simgold.io.machine import cpu_record

    return "avx512f" in cpu_record()["flags"]


def test_rating_statistics_are_the_same_bits_under_two_blas_kernels():
    with ThreadPoolExecutor(len(SIDES)) as pool:
        first, second = pool.map(_probe, SIDES)
    reference = "reference float32 product"
    assert first.pop(reference) != second.pop(reference), (
        f"the reference product has the same bits under {KERNELS}: OPENBLAS_CORETYPE did not "
        "switch kernels (numpy not on OpenBLAS, or a CPU without AVX2), so this test cannot show anything"
    )
    # numpy's own loops (arctanh, exp) differ between a CPU with AVX-512 and one without: where this CPU has
    # it, the second side must have run the AVX2 loops; a CPU without it runs the same loops on both sides
    numpy_loops = first.pop("reference numpy arctanh") != second.pop("reference numpy arctanh")
    assert numpy_loops or not _has_avx512(), "numpy's AVX-512 loops were not turned off on the second side"
    assert len(first) == 16 and first.keys() == second.keys()
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"different bits under {KERNELS}: {', '.join(differ)}"
