"""What a release says of itself in machine-readable form: Hugging Face's YAML front matter of the
card (licence, pretty name, size, configs and features), each column's type as the card, Croissant
and Hugging Face name it (read from the Arrow schema the Parquet file is written with), and the
words for each kind of gold standard. Used by the card (``simgold.report.card``) and the Croissant
metadata (``simgold.report.croissant``).
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import yaml

from simgold.io.tables import to_arrow

__all__ = ["yaml_front_matter", "column_types", "license_link", "pretty_name", "KIND_TEXT", "HF_LICENSES"]


#: Hugging Face's licence ids that are SPDX ids in lower case (the Hub's list); others are "other"
HF_LICENSES = frozenset("""
    apache-2.0 mit afl-3.0 artistic-2.0 bsl-1.0 bsd-2-clause bsd-3-clause bsd-3-clause-clear cc0-1.0
    cc-by-2.0 cc-by-2.5 cc-by-3.0 cc-by-4.0 cc-by-sa-3.0 cc-by-sa-4.0 cc-by-nc-2.0 cc-by-nc-3.0
    cc-by-nc-4.0 cc-by-nd-4.0 cc-by-nc-nd-3.0 cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0
    cc-by-nc-sa-4.0 cdla-sharing-1.0 cdla-permissive-1.0 cdla-permissive-2.0 wtfpl ecl-2.0 epl-1.0
    epl-2.0 etalab-2.0 eupl-1.1 eupl-1.2 agpl-3.0 gpl-2.0 gpl-3.0 lgpl-2.1 lgpl-3.0 isc lppl-1.3c
    ms-pl mpl-2.0 odc-by odbl osl-3.0 postgresql ofl-1.1 ncsa unlicense zlib pddl
    """.split())


def column_types(table: pd.DataFrame) -> dict[str, tuple[str, str, str]]:
    """Each column's type as the card says it, as Croissant's ``dataType`` and as a Hugging Face
    ``Value`` dtype, all read from the Arrow schema the Parquet file is written with, so that they
    cannot disagree with the file.

    Parameters
    ----------
    table : pd.DataFrame
        A release table, converted to Arrow as its Parquet file is written.

    Returns
    -------
    dict[str, tuple[str, str, str]]
        Column -> (card type, Croissant ``dataType``, Hugging Face dtype), in column order.

    Examples
    --------
    >>> table = pd.DataFrame({"w": ["a"], "x": [0.5], "n": pd.array([3], "Int64"), "t": [True]})
    >>> column_types(table)
    {'w': ('Text', 'sc:Text', 'string'), 'x': ('Float', 'sc:Float', 'float64'), 'n': ('Integer', 'sc:Integer', 'int64'), 't': ('Boolean', 'sc:Boolean', 'bool')}
    """
    out = {}
    for f in to_arrow(table).schema:
        t = f.type
        if pa.types.is_floating(t):
            out[f.name] = ("Float", "sc:Float", {"double": "float64", "float": "float32"}.get(str(t), str(t)))
        elif pa.types.is_integer(t):
            out[f.name] = ("Integer", "sc:Integer", str(t))
        elif pa.types.is_boolean(t):
            out[f.name] = ("Boolean", "sc:Boolean", "bool")
        elif pa.types.is_string(t) or pa.types.is_large_string(t):
            out[f.name] = ("Text", "sc:Text", str(t))
        else:
            raise ValueError(f"release column {f.name!r}: no Croissant type for Arrow type {t}")
    return out


def _size_category(n: int) -> str:
    """The Hugging Face size category of n rows.

    Examples
    --------
    >>> _size_category(999), _size_category(1000), _size_category(3001)
    ('n<1K', '1K<n<10K', '1K<n<10K')
    """
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((label for bound, label in bounds if n < bound), "1M<n<10M")


#: what the gold standard of each kind is, for a card whose authors gave no summary
KIND_TEXT = {
    "ratings": "per-rater similarity ratings of word pairs, averaged into one score per pair",
    "means": "one similarity score per word pair, as the raw files give it",
    "contexts": "similarity ratings of word pairs, each pair in two contexts",
    "rankings": "candidates ranked by their similarity to a target word",
    "comparisons": "weighted comparisons of which of two candidates is more similar to a target word",
    "bws": "Best-Worst Scaling answers (the most and the least similar pair of each tuple of word pairs), scored "
    "into one score per pair",
}


def license_link(release: dict) -> str | None:
    """Where the release's licence is: ``license_url`` where given; else the SPDX page of a single
    SPDX id; none for an expression or a ``LicenseRef-`` id (the SPDX list has no page for it).

    Parameters
    ----------
    release : dict
        The dataset's ``release`` config block (``license``, ``license_url``).

    Returns
    -------
    str | None
        The licence's URL, or None where there is none to give.
    """
    license_ = release.get("license")
    if release.get("license_url"):
        return release["license_url"]
    if not license_ or " " in license_ or "LicenseRef-" in license_:
        return None
    return f"https://spdx.org/licenses/{license_}.html"


def pretty_name(name: str, ds: dict) -> str:
    """The card's title: the authors' (``release.card.pretty_name``), else the dataset and its language.

    Parameters
    ----------
    name : str
        The dataset's name.
    ds : dict
        The dataset's resolved config block (``language``, ``release``).

    Returns
    -------
    str
        The title.
    """
    return ds["release"].get("card", {}).get("pretty_name") or f"{name} (word similarity, {ds['language']})"


def yaml_front_matter(name: str, ds: dict, rows: int, configs: list[tuple[str, str, pd.DataFrame]]) -> str:
    """Hugging Face's YAML front matter, every value dumped by yaml.safe_dump (config text is data).

    Parameters
    ----------
    name : str
        The dataset's name.
    ds : dict
        The dataset's resolved config block (``language``, ``release`` with its licence and card).
    rows : int
        Rows of the main table, for the size category.
    configs : list[tuple[str, str, pd.DataFrame]]
        (config name, data file, its table) for each Hugging Face config.

    Returns
    -------
    str
        The YAML between ``---`` lines, ending in a newline.
    """
    meta: dict = {}
    license_, card = ds["release"].get("license"), ds["release"].get("card", {})
    if license_:
        if license_.lower() in HF_LICENSES:
            meta["license"] = license_.lower()
        else:
            meta["license"] = "other"
            meta["license_name"] = license_
            if link := license_link(ds["release"]):
                meta["license_link"] = link
    meta["language"] = [ds["language"]]
    meta["pretty_name"] = pretty_name(name, ds)
    meta["size_categories"] = [_size_category(rows)]
    if card.get("task_categories"):
        meta["task_categories"] = list(card["task_categories"])
    meta["tags"] = list(dict.fromkeys(["word-similarity", "simgold", *card.get("tags", [])]))
    meta["configs"] = [
        {"config_name": config, "data_files": [{"split": "test", "path": path}]} for config, path, _ in configs
    ]
    # each column's type as the Parquet file has it: the Hub's viewer and `datasets` read these
    meta["dataset_info"] = [
        {
            "config_name": config,
            "features": [{"name": column, "dtype": types[2]} for column, types in column_types(table).items()],
            "splits": [{"name": "test", "num_examples": len(table)}],
        }
        for config, _, table in configs
    ]
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000) + "---\n"
