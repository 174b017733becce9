"""A simulated Best-Worst Scaling crowd for the tests: known item values, raters who perceive them
with their own noise and a fixed idiosyncratic bias per item, and random clickers.

Tuples are random shuffles of the items cut into k-tuples (one shuffle per round, so each item is
in ``rounds`` tuples); each tuple is answered by ``answers_per_tuple`` distinct raters drawn at
random. A rater chooses the best and the worst of the tuple by their perceived values
``value + bias[rater, item] + noise``; a random clicker picks two distinct items at random.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simgold.stats.bws import CodedAnswers

__all__ = ["Crowd", "simulate"]

#: (noise SD, bias SD) of the default panel's raters, on item values of SD 1
PANEL = ((0.3, 0.1), (0.4, 0.2), (0.5, 0.1), (0.5, 0.3), (0.6, 0.2), (0.7, 0.1), (0.8, 0.3), (1.0, 0.2))


@dataclass(frozen=True)
class Crowd:
    """The truth and the answers.

    Attributes
    ----------
    value : numpy.ndarray
        Each item's true value.
    answers : CodedAnswers
        The answers (rater codes: the panel's raters first, then the clickers).
    perceived : numpy.ndarray
        n_answers x k perceived values (NaN for a clicker's answers).
    clickers : numpy.ndarray
        The random clickers' rater codes.
    """

    value: np.ndarray
    answers: CodedAnswers
    perceived: np.ndarray
    clickers: np.ndarray


def simulate(seed: int, n_items=240, k=4, rounds=3, answers_per_tuple=4, panel=PANEL, n_clickers=1) -> Crowd:
    """One crowd's answers.

    Parameters
    ----------
    seed : int
        The simulation's seed.
    n_items, k, rounds, answers_per_tuple : int
        The design (n_items a multiple of k).
    panel : sequence of (float, float)
        Each noisy rater's noise SD and bias SD.
    n_clickers : int
        Random clickers added after the panel.

    Returns
    -------
    Crowd
        The truth and the answers.
    """
    rng = np.random.default_rng(seed)
    value = rng.normal(size=n_items)
    n_raters = len(panel) + n_clickers
    noise = np.array([p[0] for p in panel] + [0.0] * n_clickers)
    bias = rng.normal(size=(n_raters, n_items)) * np.array([p[1] for p in panel] + [0.0] * n_clickers)[:, None]
    tuples = np.concatenate([rng.permutation(n_items).reshape(-1, k) for _ in range(rounds)])
    n_tuples = len(tuples)
    raters = np.argsort(rng.random((n_tuples, n_raters)), axis=1)[:, :answers_per_tuple].ravel()
    shown = np.repeat(tuples, answers_per_tuple, axis=0)
    perceived = value[shown] + bias[raters[:, None], shown] + noise[raters][:, None] * rng.normal(size=shown.shape)
    clicker = raters >= len(panel)
    perceived[clicker] = np.nan
    pick = np.where(clicker[:, None], rng.random(shown.shape), perceived)  # a clicker's random order
    rows = np.arange(len(shown))
    best, worst = shown[rows, np.argmax(pick, axis=1)], shown[rows, np.argmin(pick, axis=1)]
    answers = CodedAnswers(shown, best, worst, n_items, np.repeat(np.arange(n_tuples), answers_per_tuple), raters)
    return Crowd(value, answers, perceived, np.arange(len(panel), n_raters))
