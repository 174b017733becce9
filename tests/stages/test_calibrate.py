"""Rater calibration (docs/methods.md section 3), checked by hand-computed shifts and z-scores."""

from __future__ import annotations

import numpy as np

from simgold.stages.calibrate import calibrate

from ..conftest import ratings_frame

# -------------------------------------------------------------------------------- calibration


def test_shift_moves_biased_raters_except_at_the_scale_ends():
    rows = []
    for i in range(6):
        rows += [
            ("d", f"i{i}", "a", float(i)),
            ("d", f"i{i}", "b", float(min(6, i + 2))),
            ("d", f"i{i}", "c", float(i)),
        ]
    cal, table = calibrate(ratings_frame(rows), (0, 6), "shift", threshold=1.0, step=1.0)
    # means: a 2.5, b 4.333, c 2.5; overall 3.111; b differs by +1.22 -> shifted down, except 6
    assert table.set_index("rater")["calib_shift"].to_dict() == {"a": 0.0, "b": -1.0, "c": 0.0}
    b = cal[cal["rater"] == "b"].sort_values("item_id")
    assert b["raw_score"].tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 6.0]
    assert b["score"].tolist() == [1.0, 2.0, 3.0, 4.0, 6.0, 6.0]
    assert (cal.loc[cal["rater"] != "b", "score"] == cal.loc[cal["rater"] != "b", "raw_score"]).all()
    assert table.set_index("rater").loc["b", "n_changed"] == 4


def test_shift_never_leaves_the_scale_on_fine_scales():
    rows = [("d", f"i{i}", "a", v) for i, v in enumerate([0.5, 0.25, 1.0, 2.0])]
    rows += [("d", f"i{i}", "b", v) for i, v in enumerate([5.0, 5.5, 6.0, 5.75])]
    cal, _ = calibrate(ratings_frame(rows), (0, 6), "shift", threshold=1.0, step=1.0)
    assert cal["score"].between(0, 6).all()
    a = cal[cal["rater"] == "a"]["score"].tolist()
    assert a == [1.5, 1.25, 2.0, 3.0]  # a is low: moved up by 1
    b = cal[cal["rater"] == "b"]["score"].tolist()
    assert b == [4.0, 4.5, 6.0, 4.75]  # 6 is the maximum and stays


def test_zscore_maps_onto_the_pooled_mean_and_sd():
    rows = [("d", f"i{i}", "a", v) for i, v in enumerate([1.0, 2.0, 3.0])]
    rows += [("d", f"i{i}", "b", v) for i, v in enumerate([4.0, 6.0, 5.0])]
    cal, _ = calibrate(ratings_frame(rows), (0, 6), "zscore", threshold=1.0, step=1.0)
    pooled_mean, pooled_sd = 3.5, np.std([1, 2, 3, 4, 6, 5], ddof=1)
    np.testing.assert_allclose(
        cal[cal["rater"] == "a"]["score"], [pooled_mean - pooled_sd, pooled_mean, pooled_mean + pooled_sd]
    )
    np.testing.assert_allclose(
        cal[cal["rater"] == "b"]["score"], [pooled_mean - pooled_sd, pooled_mean + pooled_sd, pooled_mean]
    )


def test_zscore_on_an_unbalanced_panel_uses_the_mean_and_sd_of_all_scores():
    """Issue 41: on a balanced panel the mean of all scores equals the mean of the raters' means.
    Here a rates 3 items (1, 2, 3: mean 2, SD 1) and b rates 5 (4, 6, 5, 7, 8: mean 6, SD sqrt(2.5)):
    all 8 scores have mean 36 / 8 = 4.5 (the raters' means average 4) and SD sqrt(42 / 7) = sqrt(6).
    Each score maps to 4.5 + z sqrt(6); the table's calib_diff is each rater's mean minus 4.5 and
    calib_shift the move of its mean (to 4.5)."""
    rows = [("d", f"i{i}", "a", v) for i, v in enumerate([1.0, 2.0, 3.0])]
    rows += [("d", f"i{i}", "b", v) for i, v in enumerate([4.0, 6.0, 5.0, 7.0, 8.0])]
    cal, table = calibrate(ratings_frame(rows), (0, 10), "zscore", threshold=1.0, step=1.0)
    sd = np.sqrt(6.0)
    np.testing.assert_allclose(cal[cal["rater"] == "a"]["score"], [4.5 - sd, 4.5, 4.5 + sd], atol=1e-12)
    z_b = (np.array([4.0, 6.0, 5.0, 7.0, 8.0]) - 6.0) / np.sqrt(2.5)
    np.testing.assert_allclose(cal[cal["rater"] == "b"]["score"], 4.5 + z_b * sd, atol=1e-12)
    assert table["rater"].tolist() == ["a", "b"]
    np.testing.assert_allclose(table["calib_diff"], [-2.5, 1.5], atol=1e-12)
    np.testing.assert_allclose(table["calib_shift"], [2.5, -1.5], atol=1e-12)
