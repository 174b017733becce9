"""Text never becomes markup in a figure: rater names, words, model names and notes holding ``$``,
``\\``, ``_`` or ``^`` are printed as they are (matplotlib reads ``$...$`` as mathtext: a rater
column named ``r$\\foo$`` ended the report job with "Unknown symbol: \\foo")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

#: names a config or a raw file may hold: unknown and unbalanced mathtext, TeX sub/superscripts
HOSTILE = ["r$\\foo$", "a_b^c", "$x$", "p$q", "\\", "_lead"]


def _tables() -> dict:
    """Tables for every figure of the registry, with HOSTILE names as raters, words and models."""
    n = len(HOSTILE)
    models = [f"m{name}" for name in HOSTILE[:-1]] + ["_model"]  # a legend label starting with _ is usually hidden
    scores = pd.DataFrame({"subset": "all", "metric": "spearman", "model": models, "value": np.linspace(0.3, 0.8, n),
                           "ci_low": np.linspace(0.2, 0.7, n), "ci_high": np.linspace(0.4, 0.9, n), "n_used": 30})  # fmt: skip
    scores = pd.concat(
        [scores, pd.DataFrame([{"subset": "all", "metric": "human_ceiling", "model": "", "value": 0.85}])]
    )
    levels = np.round(np.arange(0, 1.2, 0.2), 10)
    noise = [pd.DataFrame({"model": model, "level": levels, "noise": levels, "mean": 0.6 - 0.1 * levels,
                           "p2_5": 0.55 - 0.1 * levels, "p97_5": 0.65 - 0.1 * levels, "trend_spearman": -0.9,
                           "monotonic_share": 0.85, "m": 20}) for model in models[:2] + models[-1:]]  # fmt: skip
    context = pd.DataFrame({"word1": HOSTILE, "word2": HOSTILE[::-1], "mean1": np.linspace(1, 4, n),
                            "mean2": np.linspace(4, 1, n), "q": [0.01, 0.2] * (n // 2)})  # fmt: skip
    raters = pd.DataFrame({"stage": "calibrated", "rater": HOSTILE, "avg_pairwise": np.linspace(0.4, 0.9, n),
                           "vs_mean": np.linspace(0.5, 0.95, n), "vs_rest": np.linspace(0.3, 0.8, n),
                           "excluded": [True] + [False] * (n - 1)})  # fmt: skip
    agreement = pd.DataFrame({"stage": ["calibrated"], "subset": ["all"], "pairwise": [0.6], "vs_mean": [0.7],
                              "note": [""]})  # fmt: skip
    reliability = pd.DataFrame([{"r1": 0.5, "m_0.8": 4.0, "m_0.9": 9.0, "observed_raters": 6.0, "r_full": 0.857,
                                 "note": ""}])  # fmt: skip
    m = np.arange(1, 13)
    r = m * 0.5 / (1 + (m - 1) * 0.5)
    curve = pd.DataFrame({"m": m, "reliability": r, "low": r - 0.05, "high": np.minimum(r + 0.05, 1.0)})
    counting = np.linspace(-0.5, 0.5, n)
    bws_scores = pd.DataFrame({"counting": counting, "counting_low": counting - 0.1, "counting_high": counting + 0.1,
                               "logit": 2 * counting, "logit_low": 2 * counting - 0.3, "logit_high": 2 * counting + 0.3})  # fmt: skip
    gold = pd.DataFrame({"word1": HOSTILE, "word2": HOSTILE[::-1], "mean": np.linspace(0, 6, n)})
    distribution = pd.DataFrame({"bin_low": [0.0, 3.0], "bin_high": [3.0, 6.0], "n_items": [3, 3],
                                 "mean_of_means": [1.2, 4.8], "mean_sd": [0.9, 1.1], "mean_rsd": [75.0, 23.0]})  # fmt: skip
    return {"scores": scores, "noise": noise, "context": context, "raters": raters, "agreement": agreement,
            "reliability": reliability, "curve": curve, "bws_scores": bws_scores, "gold": gold,
            "distribution": distribution}  # fmt: skip


def _texts(fig) -> list:
    """Every text of a drawn figure: titles, labels, tick labels, legends, notes."""
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_text()]


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    """name -> the figure each registry entry drew (saved as PNG, so that every text is rendered)."""
    from simgold.report import figures as figures_module

    save, out = figures_module._save, {}

    def keep(fig, path):
        save(fig, path)  # renders the figure: mathtext would raise here
        out[figures_module.Path(path).stem] = fig

    monkeypatch.setattr(figures_module, "_save", keep)
    return out


def test_every_figure_prints_names_with_dollars_backslashes_and_carets_as_they_are(drawn, tmp_path):
    import matplotlib

    from simgold.report.figures import FIGURES, draw_dataset_figures

    figures = [(str(tmp_path / f"{name}.png"), "") for name in FIGURES]
    draw_dataset_figures("hostile", figures, _tables(), {"method": "pairwise_sd", "k": 1.0})
    assert sorted(drawn) == sorted(FIGURES)
    for name in FIGURES:
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
        assert all(not t.get_parse_math() for t in _texts(drawn[name])), name  # none read as mathtext
    assert matplotlib.rcParams["text.parse_math"]  # the drawing's setting does not outlive it

    def ticks(fig) -> list[str]:
        return [t.get_text() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()]

    def legend(fig) -> list[str]:
        return [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]

    assert ticks(drawn["raters"])[: len(HOSTILE)] == HOSTILE  # sorted by vs_mean, which rises with the list
    assert sorted(t for t in ticks(drawn["bws"]) if t in HOSTILE) == sorted(HOSTILE)  # by vs_rest, rater ties
    # the context figure sorts by mean2 - mean1, which falls along the list: the last pair first
    assert [t for t in ticks(drawn["context"]) if "/" in t] == [f"{a}/{b}" for a, b in zip(HOSTILE, HOSTILE[::-1])][
        ::-1
    ]
    models = ["m" + name for name in HOSTILE[:-1]] + ["_model"]
    assert [t for t in ticks(drawn["scores"]) if t.startswith(("m", "_"))] == sorted(models)
    assert [label.split(": trend")[0] for label in legend(drawn["noise"])] == models[:2] + ["_model"]


def test_notes_in_place_of_a_plot_are_plain_text_too(drawn, tmp_path):
    """Where a figure has nothing to show it writes the reason, which may quote a word or a rater."""
    from simgold.report.figures import draw_dataset_figures

    tables = _tables()
    why = "the rater r$\\foo$ rated a_b^c only"
    tables["scores"] = tables["scores"].assign(value=np.nan, note=why)
    tables["raters"] = tables["raters"].assign(avg_pairwise=np.nan, vs_mean=np.nan)
    tables["agreement"] = tables["agreement"].assign(note=why)
    draw_dataset_figures("hostile", [(str(tmp_path / f"{n}.png"), "") for n in ("scores", "raters")], tables)
    assert [t.get_text() for t in drawn["scores"].axes[0].texts] == [f"No model has a value for Spearman's rho.\n{why}"]
    assert [t.get_text() for t in drawn["raters"].axes[0].texts] == [f"No rater has a value.\n{why}"]
    assert all(not t.get_parse_math() for fig in drawn.values() for t in _texts(fig))


def test_a_figure_function_called_alone_draws_plain_text(tmp_path):
    """Each figure function sets plain text itself, not only when the page's job calls it."""
    from simgold.report.figures import _context_figure

    _context_figure(_tables()["context"], tmp_path / "c.png", "r$\\foo$: context effects")
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
