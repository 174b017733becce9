"""The MaxDiff model of Best-Worst Scaling answers (docs/methods.md section 13): best i and worst j of
a tuple chosen jointly, ``P(i, j)`` proportional to ``exp(u_i - u_j)``; sum-to-zero utilities, an L2
penalty (``PENALTY``), observed-information standard errors.

The fit is scipy's L-BFGS-B with the analytic gradient, then Newton's method on the sparse Hessian
to the optimum's last bits: L-BFGS-B stops within its tolerance at a point that depends on the BLAS
kernel's rounding (another CPU stops elsewhere), while Newton's steps converge to the one point
where the gradient, computed without BLAS (sums and ``bincount``), vanishes, so another machine
finds the same utilities to rounding.

Examples
--------
>>> from simgold.stats.bws import CodedAnswers
>>> a = CodedAnswers(np.array([[0, 1, 2]] * 3), np.array([0, 0, 1]), np.array([2, 1, 2]), 3,
...                  np.zeros(3, int), np.arange(3))
>>> maxdiff_fit(a).utility.round(3).tolist()
[0.898, 0.0, -0.898]
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from simgold.stats.bws import CodedAnswers

__all__ = ["MAX_SE_ITEMS", "PENALTY", "MaxDiffFit", "maxdiff_fit"]

#: The MaxDiff fit's default L2 penalty: ``penalty / 2 * sum(u ** 2)`` added to the negative
#: log-likelihood (MAP under a normal prior of SD ``1 / sqrt(penalty)``). An item chosen best in every
#: answer showing it has no maximum-likelihood utility (the likelihood rises without bound); the
#: quadratic penalty makes it finite, about ``log(n / penalty) / 2`` above its tuple-mates after n
#: such answers, while an answer's information (of order 0.1 to 1 per item) dwarfs it.
PENALTY = 0.01

#: Newton's steps after L-BFGS-B at most (two or three reach rounding from its point)
_NEWTON_STEPS = 20

#: The SEs invert the dense observed information; above this many shown items they are NaN (with a
#: note): a random design's inverse is dense; counting's bootstrap intervals are the ones to use there.
MAX_SE_ITEMS = 4000


# -------------------------------------------------------------------------------- the MaxDiff model


@dataclass(frozen=True)
class MaxDiffFit:
    """The MaxDiff model's fit, item by item (NaN for items never shown).

    Attributes
    ----------
    utility : numpy.ndarray
        The utilities, summing to zero over the shown items.
    se : numpy.ndarray
        Standard errors: the observed information's inverse (the penalised objective's Hessian,
        in the sum-to-zero subspace); NaN above ``MAX_SE_ITEMS`` shown items.
    log_likelihood : float
        The (unpenalised) log-likelihood at the fit.
    n_iterations : int
        L-BFGS-B's iterations and Newton's steps after them.
    converged : bool
        Whether Newton's steps reached rounding (or L-BFGS-B reported convergence).
    penalty : float
        The L2 penalty used.
    ci_low, ci_high : numpy.ndarray or None
        Wald intervals ``utility -+ z se`` when a confidence was asked.
    note : str
        Why the standard errors are missing, or "".
    """

    utility: np.ndarray
    se: np.ndarray
    log_likelihood: float
    n_iterations: int
    converged: bool
    penalty: float
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    note: str = ""


@dataclass(frozen=True)
class _Design:
    """The answers on the shown items' codes: padded tuple matrix, its mask, tuple sizes, best, worst."""

    items: np.ndarray
    mask: np.ndarray
    size: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    n: int


def _design(a: CodedAnswers) -> tuple[_Design, np.ndarray]:
    """The answers re-coded on the shown items only, and those items' codes."""
    shown = np.unique(a.tuples[a.tuples >= 0])
    recode = np.full(a.n_items, -1, dtype=np.int64)
    recode[shown] = np.arange(len(shown))
    mask = a.tuples >= 0
    items = np.where(mask, recode[np.where(mask, a.tuples, 0)], 0)
    return _Design(items, mask, mask.sum(axis=1), recode[a.best], recode[a.worst], len(shown)), shown


def _pair_terms(u: np.ndarray, d: _Design):
    """Per answer: log Z (Z = sum over ordered pairs a != b of exp(u_a - u_b)), and per slot
    d log Z / d u and the scaled exponentials behind them.

    ``Z = S+ S- - k`` with ``S+ = sum exp(u)``, ``S- = sum exp(-u)``; scaled by the row's largest
    (m) and smallest (n) utility so that nothing overflows: ``Z = e^(m-n) (A B - k e^(n-m))``."""
    U = u[d.items]
    m = np.where(d.mask, U, -np.inf).max(axis=1)
    n = np.where(d.mask, U, np.inf).min(axis=1)
    up = np.where(d.mask, np.exp(U - m[:, None]), 0.0)
    down = np.where(d.mask, np.exp(n[:, None] - U), 0.0)
    A, B = up.sum(axis=1), down.sum(axis=1)
    rest = A * B - d.size * np.exp(n - m)
    log_z = (m - n) + np.log(rest)
    dlog = (up * B[:, None] - down * A[:, None]) / rest[:, None]
    return log_z, dlog, up, down, rest


def _objective(u: np.ndarray, d: _Design, penalty: float):
    """The penalised negative log-likelihood and its gradient (scatter adds over the answers)."""
    log_z, dlog, _, _, _ = _pair_terms(u, d)
    value = float(np.sum(log_z) - np.sum(u[d.best] - u[d.worst]) + 0.5 * penalty * u @ u)
    grad = np.bincount(d.items[d.mask], dlog[d.mask], d.n)
    grad -= np.bincount(d.best, minlength=d.n) - np.bincount(d.worst, minlength=d.n)
    return value, grad + penalty * u


def _hessian_entries(u: np.ndarray, d: _Design):
    """(row, column, value) of the unpenalised Hessian's entries, answer by answer: the covariance
    of ``e_a - e_b`` under the pair probabilities (``diag(P 1 + P' 1) - P - P' - g g'``)."""
    _, g, up, down, rest = _pair_terms(u, d)
    P = up[:, :, None] * down[:, None, :] / rest[:, None, None]  # p_ab, scaled as in _pair_terms
    k = d.items.shape[1]
    P[:, np.arange(k), np.arange(k)] = 0.0
    M = -(P + P.transpose(0, 2, 1)) - g[:, :, None] * g[:, None, :]
    M[:, np.arange(k), np.arange(k)] += P.sum(axis=2) + P.sum(axis=1)
    both = d.mask[:, :, None] & d.mask[:, None, :]
    rows = np.broadcast_to(d.items[:, :, None], both.shape)[both]
    return rows, np.broadcast_to(d.items[:, None, :], both.shape)[both], M[both]


def _hessian(u: np.ndarray, d: _Design, penalty: float) -> np.ndarray:
    """The penalised objective's dense Hessian (for the standard errors)."""
    rows, cols, values = _hessian_entries(u, d)
    H = np.bincount(rows * d.n + cols, values, d.n * d.n).reshape(d.n, d.n)
    return H + penalty * np.eye(d.n)


def _newton(u: np.ndarray, d: _Design, penalty: float) -> tuple[np.ndarray, int]:
    """Newton's steps from L-BFGS-B's point, each solved by conjugate gradients on the sparse
    Hessian, until a step is below rounding: the optimum to its last bits, whatever path led there."""
    from scipy.sparse import csr_matrix, identity  # heavy: only the logit score's jobs fit the model
    from scipy.sparse.linalg import cg  # heavy: as above

    for step_count in range(1, _NEWTON_STEPS + 1):
        grad = _objective(u, d, penalty)[1]
        rows, cols, values = _hessian_entries(u, d)
        H = csr_matrix((values, (rows, cols)), shape=(d.n, d.n)) + penalty * identity(d.n, format="csr")
        step = cg(H, grad, rtol=1e-15, atol=0.0, maxiter=max(100, 10 * d.n))[0]
        u = u - step
        if np.max(np.abs(step), initial=0.0) <= 8 * np.finfo(float).eps * max(1.0, np.max(np.abs(u), initial=0.0)):
            break
    return u, step_count


def _standard_errors(u: np.ndarray, d: _Design, penalty: float) -> np.ndarray:
    """sqrt of the diagonal of the inverse Hessian in the sum-to-zero subspace: with J = 11'/n the
    projection on the constant direction, ``inv(H - penalty J + J) - J`` (the Hessian restricted to
    the subspace, inverted there; defined without a penalty too when the design is connected)."""
    J = np.full((d.n, d.n), 1.0 / d.n)
    cov = np.linalg.inv(_hessian(u, d, penalty) - penalty * J + J) - J
    return np.sqrt(np.clip(np.diag(cov), 0.0, None))


def maxdiff_fit(a: CodedAnswers, penalty: float = PENALTY, confidence: float | None = None) -> MaxDiffFit:
    """Fit the MaxDiff model: ``P(best i, worst j | tuple) = exp(u_i - u_j) / sum_{a != b} exp(u_a - u_b)``.

    Minimises ``-loglik(u) + penalty / 2 * sum(u ** 2)`` (``PENALTY``: why) over the shown items with
    scipy's L-BFGS-B and the analytic gradient (scatter adds over the answers' items); the penalised
    optimum of the shift-invariant likelihood sums to zero (centred exactly). SEs: the observed
    information (the penalised objective's inverse Hessian in the sum-to-zero subspace), up to
    ``MAX_SE_ITEMS`` items. Tuples of 2 items are Bradley-Terry with ``theta = 2 u``.

    Parameters
    ----------
    a : CodedAnswers
        The answers.
    penalty : float
        The L2 penalty (>= 0).
    confidence : float, optional
        When given, Wald intervals ``utility -+ z se`` at this coverage.

    Returns
    -------
    MaxDiffFit
        Utilities, standard errors and the fit's diagnostics.

    Examples
    --------
    >>> a = CodedAnswers(np.array([[0, 1, 2]] * 3), np.array([0, 0, 1]), np.array([2, 1, 2]), 3,
    ...                  np.zeros(3, int), np.arange(3))
    >>> fit = maxdiff_fit(a)
    >>> fit.utility.round(3).tolist(), bool(fit.converged), round(float(fit.utility.sum()), 12)
    ([0.898, 0.0, -0.898], True, 0.0)
    """
    from scipy.optimize import minimize  # heavy: only the logit score's jobs fit the model

    d, shown = _design(a)
    res = minimize(_objective, np.zeros(d.n), args=(d, penalty), jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-10, "maxcor": 20})  # fmt: skip
    u, newton_steps = _newton(res.x, d, penalty) if d.n else (res.x, 0)
    u = u - u.mean()
    utility, se = np.full(a.n_items, np.nan), np.full(a.n_items, np.nan)
    utility[shown] = u
    note = "" if d.n <= MAX_SE_ITEMS else f"{d.n} items: no standard errors above MAX_SE_ITEMS ({MAX_SE_ITEMS})"
    if not note:
        se[shown] = _standard_errors(u, d, penalty)
    log_lik = -float(_objective(u, d, 0.0)[0])
    z = None if confidence is None else NormalDist().inv_cdf(0.5 + confidence / 2.0)
    low, high = (None, None) if z is None else (utility - z * se, utility + z * se)
    converged = bool(res.success) or newton_steps < _NEWTON_STEPS
    return MaxDiffFit(utility, se, log_lik, int(res.nit) + newton_steps, converged, float(penalty), low, high, note)
