"""A design written to its folder: the files raters fill in, ``design.parquet`` and ``config.yaml``
(the dataset entries that read the returned files), the same bytes for the same design.

Examples
--------
>>> print(config_text({"d": {"kind": "ratings", "scale": [0, 6], "words": ["word 1", "word 2"]}}, ["a note"]))
# a note
datasets:
  d:
    kind: ratings
    scale: [0, 6]
    words: [word 1, word 2]
<BLANKLINE>
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from simgold.design.sheets import write
from simgold.io.tables import write_parquet

__all__ = ["config_text", "write_design"]


class _Dumper(yaml.SafeDumper):
    """Lists of plain values on one line (``[word 1, word 2]``), text of several lines as a block,
    and every value written out where it stands (no ``&id001`` anchors for values used twice)."""

    def ignore_aliases(self, data):
        return True


def _list(dumper, values):
    flat = all(isinstance(v, (str, int, float, bool)) and "\n" not in str(v) for v in values)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", values, flow_style=flat and len(values) <= 8)


def _text(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(list, _list)
_Dumper.add_representer(str, _text)


def config_text(datasets: dict, comments: list[str]) -> str:
    """The config file that reads the returned files: ``datasets`` under comment lines.

    Parameters
    ----------
    datasets : dict
        The dataset entries, by name.
    comments : list of str
        Lines written above them as ``#`` comments.

    Returns
    -------
    str
    """
    body = yaml.dump({"datasets": datasets}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return "".join(f"# {line}\n" if line else "#\n" for line in comments) + body


def write_design(out_dir: str | Path, files: dict, table: pd.DataFrame, config: str, kind: str) -> list[Path]:
    """Write a design's files, its table (``design.parquet``) and its config (``config.yaml``).

    Parameters
    ----------
    out_dir : str or Path
        The folder (made if missing; files of an earlier design there are overwritten).
    files : dict
        Each file's path relative to ``out_dir`` and its bytes.
    table : pandas.DataFrame
        The design table, sorted.
    config : str
        The config's text (``config_text``).
    kind : str
        What was designed (``ratings``, ``bws``, ``rankings``, ``topup``), kept in the table's
        metadata.

    Returns
    -------
    list of Path
        Every file written, in order.
    """
    out = Path(out_dir)
    written = [write(out / rel, data) for rel, data in sorted(files.items())]
    write_parquet(table, out / "design.parquet", provenance={"design": kind})
    written.append(out / "design.parquet")
    written.append(write(out / "config.yaml", config))
    return written
