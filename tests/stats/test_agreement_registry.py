"""The registry of agreement statistics (``simgold.stats.agreement_statistics.AGREEMENT_STATISTICS``): a
statistic added as one entry reaches the agreement table, its canonical schema, the agreement_ci
table, the dataset page and ``simgold agreement``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from simgold import cli
from simgold.io.tables import TABLES, read_parquet, write_parquet
from simgold.report.pages import dataset_page
from simgold.stages.agreement import agreement_report
from simgold.stats import agreement_ci, agreement_statistics
from simgold.stats.agreement_statistics import AGREEMENT_STATISTICS, AgreementStatistic
from simgold.stats.resampling import draws
from simgold.stats.rank_correlation import RatingMatrix, pairwise_spearman, reference_values
from simgold.stats.seeds import seed_for

from ..test_cli import cells


def _deviations(m: RatingMatrix):
    """Per item: the summed |score - item mean| and the number of ratings (numpy, on the matrix)."""
    mean = reference_values(m)[0]  # each rating's item mean
    n = m.shape[0]
    return np.bincount(m.item, np.abs(m.score - mean), n), np.bincount(m.item, minlength=n)


MAD = AgreementStatistic(
    "mean absolute deviation of a rating from its item's mean",
    value=lambda stats: float(np.divide(*(x.sum() for x in _deviations(stats.matrix)))),
    replicates={"items": lambda data, w: np.divide(*(w @ x for x in _deviations(data.matrix)))},
    overview="mad",
)


def mad_by_pandas(ratings: pd.DataFrame) -> float:
    """The same statistic from the long table: each rating's distance to its item's mean, averaged."""
    return float((ratings["score"] - ratings.groupby("item_id")["score"].transform("mean")).abs().mean())


def synthetic(seed: int = 4, n_items: int = 24, n_raters: int = 6):
    rng = np.random.default_rng(seed)
    latent = rng.uniform(0, 6, n_items)
    X = np.clip(np.rint(latent[:, None] + rng.normal(0, 1.2, (n_items, n_raters))), 0, 6)
    X[rng.random(X.shape) < 0.15] = np.nan
    item, rater = np.nonzero(~np.isnan(X))
    ratings = pd.DataFrame({"item_id": [f"i{k:02d}" for k in item], "rater": [f"r{j}" for j in rater],
                            "score": X[item, rater]})  # fmt: skip
    items = pd.DataFrame({"item_id": [f"i{k:02d}" for k in range(n_items)],
                          "pos": np.where(np.arange(n_items) % 3, "N", "V")})  # fmt: skip
    return items, ratings


CI = {"resamples": 60, "seed": 7, "confidence": 0.9, "max_work": 15_000_000}


def _report(items, ratings):
    calibration = pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"])
    return agreement_report("syn", items, ratings, ratings, calibration, min_overlap=3, subset_names=["pos"],
                            outliers={"method": "none"}, ci=CI)  # fmt: skip


def test_the_canonical_agreement_columns_are_unchanged():
    """The registry's built-in statistics give the agreement table the schema it had when tables.py
    listed the columns (the Parquet files of earlier runs)."""
    S, F, I = pa.string(), pa.float64(), pa.int64()  # noqa: E741
    listed = {"dataset": S, "stage": S, "subset": S, "n_raters": I, "n_items": I, "n_ratings": I, "mean_score": F,
              "n_pairs": I, "n_pairs_few_items": I, "n_pairs_constant": I, "pairwise": F, "pairwise_min": F,
              "pairwise_max": F, "consistency": F, "vs_mean": F, "vs_mean_min": F, "vs_mean_max": F, "vs_rest": F,
              "vs_rest_min": F, "vs_rest_max": F, "alpha_interval": F, "note": S}  # fmt: skip
    assert TABLES["agreement"].columns == listed and TABLES["agreement"].key is None
    assert agreement_statistics.ci_statistics() == ("pairwise", "vs_mean", "vs_rest", "alpha_interval")
    assert agreement_statistics.slot_ci_statistics() == ("alpha_interval",)


def test_a_statistic_added_to_the_registry_reaches_every_table_page_and_command(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(AGREEMENT_STATISTICS, "mad", MAD)
    items, ratings = synthetic()
    report = _report(items, ratings)

    # the agreement table and its canonical schema: a float column before the note
    table = report["agreement"]
    assert TABLES["agreement"].names[-2:] == ("mad", "note") and TABLES["agreement"].columns["mad"] == pa.float64()
    assert list(table.columns) == list(TABLES["agreement"].names)
    for row in table.itertuples():
        kept = items["item_id"] if row.subset == "all" else items.loc[items["pos"] == row.subset[4:], "item_id"]
        assert row.mad == pytest.approx(mad_by_pandas(ratings[ratings["item_id"].isin(kept)]), abs=1e-12), row
    path = tmp_path / "agreement.parquet"
    write_parquet(table, path, table="agreement")
    assert read_parquet(path).equals(table)

    # the agreement_ci table: a row per stage and subset, for the one scheme it has a replicate for
    ci = report["agreement_ci"]
    mine = ci[ci["statistic"] == "mad"]
    assert len(mine) == 3 * 3 and set(mine["scheme"]) == {"items"} and (mine["resamples"] == 60).all()
    merged = mine.merge(table, on=["dataset", "stage", "subset"])
    assert (merged["value"] == merged["mad"]).all()  # the agreement table's numbers, to the bit
    # its interval: the percentiles of the statistic on each resampled dataset (an item drawn twice
    # is two items), computed from the long table with pandas, on the stage's own draws
    ids = np.sort(ratings["item_id"].unique())
    rng = np.random.default_rng(seed_for(CI["seed"], "syn", "calibrated", "all", "items"))
    by_item = {k: g for k, g in ratings.groupby("item_id")}
    loop = []
    for drawn in draws(len(ids), CI["resamples"], rng):
        resampled = pd.concat([by_item[ids[k]].assign(item_id=f"{n}") for n, k in enumerate(drawn)])
        loop.append(mad_by_pandas(resampled))
    row = mine[(mine["stage"] == "calibrated") & (mine["subset"] == "all")].iloc[0]
    low, high = np.quantile(loop, [0.05, 0.95])
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    m = RatingMatrix.from_ratings(ratings)
    once = np.ones((3, len(ids)))  # resamples that draw every item once are the data
    ones = agreement_ci.replicates(m, pairwise_spearman(m, 3), once, np.ones((3, 6)), 3, {("mad", "items"): 3})
    assert ones["mad", "items"] == pytest.approx([mad_by_pandas(ratings)] * 3, abs=1e-12)

    # the dataset page: a column of the agreement table and rows of the CI table
    page = dataset_page("syn", clean=None, agreement=table, scores=None, context=None, figures=[],
                        statistics={"agreement_ci": ci})  # fmt: skip
    agreement_html = page[page.index("Inter-rater agreement by stage") :]
    assert "<th>alpha_interval</th><th>alpha_interval CI</th><th>mad</th><th>mad CI</th><th>note</th>" in agreement_html
    assert "<td>mad</td>" in page[page.index("Uncertainty of the agreement") :]

    # simgold agreement: the value of the raters kept, with the statistic's description as its legend
    base = tmp_path / "results" / "agreement" / "syn"
    base.mkdir(parents=True)
    write_parquet(table, base / "agreement.parquet", table="agreement")
    write_parquet(report["raters"], base / "raters.parquet", table="raters")
    capsys.readouterr()
    assert cli.main(["agreement", "--results", str(tmp_path / "results")]) == 0
    out = capsys.readouterr().out
    assert "mad: mean absolute deviation of a rating from its item's mean" in out.splitlines()[0]
    header, values = cells(out)[1:]
    assert header == ["dataset", "raters", "excluded", "items", "pairwise", "vs_rest", "alpha", "mad"]
    assert values[0] == "syn" and values[-1] == f"{mad_by_pandas(ratings):.3f}"


def test_without_the_entry_the_statistic_is_nowhere():
    items, ratings = synthetic()
    report = _report(items, ratings)
    assert "mad" not in AGREEMENT_STATISTICS and "mad" not in TABLES["agreement"].names
    assert "mad" not in report["agreement"] and "mad" not in set(report["agreement_ci"]["statistic"])
