"""Exact storage decisions for a perceptron, chapter 2's warm-up, and the stored fraction.

A perceptron through the origin with ``N`` weights stores ``P`` patterns ``xi_mu`` with labels
``sigma_mu = +-1`` when some ``w`` has every margin ``sigma_mu w . xi_mu > 0``. As for the
memories of :mod:`.lp`, the decision is an LP with two certificates and one rule:
:func:`perceptron_decide` maximises ``t`` subject to ``sigma_mu w . xi_mu >= t`` and
``|w_i| <= 1`` (each pattern scaled to unit norm first), and reads

* a lower bound on the best margin ``t*`` from the LP's ``w``, checked in float64 on every
  pattern, and
* an upper bound from its multipliers ``y >= 0`` (weak duality and Holder:
  ``min_mu sigma_mu w . xi_mu <= ||sum_mu y_mu sigma_mu xi_mu||_1 / sum(y)`` for every ``w`` in
  the box),

then decides by :func:`.constraints.storage_outcome`, the rule of every exact decision in the
book. :func:`stored_fraction` draws random patterns and labels and returns the fraction stored,
with its Wilson interval: the numerical check of Cover's count
(:func:`assocmem.linear.theory.perceptron.cover_fraction`).

Source: the perceptron's storage problem (Gardner 1988; Cover 1965); LP duality as in
:mod:`.constraints`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog

from assocmem._validate import check_finite_array, check_int
from assocmem.estimate import Estimate
from assocmem.linear.storage.constraints import (
    FEASIBLE_FLOOR,
    INFEASIBLE_TOL,
    LPOutcome,
    storage_outcome,
)
from assocmem.stats import rate
from assocmem.streams import Seed, numpy_rng

__all__ = ["PerceptronDecision", "perceptron_decide", "stored_fraction"]


@dataclass(frozen=True)
class PerceptronDecision:
    """The answer of :func:`perceptron_decide`.

    Attributes
    ----------
    outcome : LPOutcome
        Stored, not stored, or undecided at tolerance (:func:`.constraints.storage_outcome`).
    lower, upper : float
        Certified bounds on the best margin ``t*`` of the unit-norm patterns over
        ``|w_i| <= 1``: the smallest margin of ``weights``, and the dual bound.
    weights : numpy.ndarray, float64, shape (N,)
        The LP's ``w`` (whose margins give ``lower``).
    """

    outcome: LPOutcome
    lower: float
    upper: float
    weights: NDArray[np.float64]

    @property
    def stored(self) -> bool:
        """True when the patterns are stored (some ``w`` has every margin > the tolerance)."""
        return self.outcome is LPOutcome.STORED


def perceptron_decide(patterns: ArrayLike, labels: ArrayLike) -> PerceptronDecision:
    """Decide exactly whether a perceptron through the origin stores labelled patterns.

    Parameters
    ----------
    patterns : array_like, shape (P, N)
        The patterns ``xi_mu`` (rows), finite, none zero.
    labels : array_like, shape (P,)
        The labels, each +1 or -1.

    Returns
    -------
    PerceptronDecision

    Raises
    ------
    ValueError
        If the shapes disagree, a pattern is zero or not finite, a label is not +-1.
    RuntimeError
        If the LP solver fails.
    """
    xi = check_finite_array("patterns", patterns, ndim=2)
    sigma = check_finite_array("labels", labels, ndim=1)
    n_pat, n_w = xi.shape
    if n_pat < 1 or n_w < 1:
        raise ValueError(f"patterns must have shape (P, N) with P, N >= 1, got {xi.shape}")
    if sigma.shape != (n_pat,):
        raise ValueError(f"labels must have shape ({n_pat},), got {sigma.shape}")
    if not np.all(np.abs(sigma) == 1):
        raise ValueError("labels must be +1 or -1")
    norms = np.linalg.norm(xi, axis=1)
    if np.any(norms == 0):
        raise ValueError("patterns must not contain a zero row")
    rows = sigma[:, None] * xi / norms[:, None]  # margins: rows @ w
    # max t  s.t.  rows @ w >= t, |w_i| <= 1, t <= 1   (variables w, t; minimise -t)
    cost = np.zeros(n_w + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-rows, np.ones((n_pat, 1))])
    bounds = [(-1.0, 1.0)] * n_w + [(None, 1.0)]
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n_pat), bounds=bounds, method="highs-ds")
    if res.status != 0:
        raise RuntimeError(f"the perceptron LP failed: {res.message}")
    w = np.clip(np.asarray(res.x[:n_w], dtype=np.float64), -1.0, 1.0)
    lower = float((rows @ w).min())
    y = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    upper = float(np.abs(y @ rows).sum() / y.sum()) if y.sum() > 0 else float("inf")
    outcome = storage_outcome(lower, upper, INFEASIBLE_TOL, FEASIBLE_FLOOR)
    if outcome is None:  # the simplex's optimum decides within its 1e-9 tolerance: rare
        outcome = LPOutcome.UNDECIDED
    return PerceptronDecision(outcome, lower, upper, w)


def stored_fraction(P: int, N: int, n: int, *, seed: Seed = 0) -> Estimate:
    """Fraction of random labelled pattern sets a perceptron stores, with its Wilson interval.

    Each of the ``n`` sets holds ``P`` patterns with i.i.d. standard Gaussian entries in
    ``R^N`` (in general position with probability 1) and i.i.d. uniform labels +-1; each is
    decided exactly by :func:`perceptron_decide`. An undecided set (a best margin within the
    tolerance of 0) counts as not stored, as in the memory sweeps.

    Parameters
    ----------
    P, N : int
        Patterns and weights, each >= 1.
    n : int
        Random sets, >= 1.
    seed : int or numpy.random.SeedSequence
        Root of the draws.

    Returns
    -------
    Estimate
        The stored fraction, its 95 % Wilson interval, ``n`` sets. Cover's count predicts
        :func:`assocmem.linear.theory.perceptron.cover_fraction` ``(P, N)``.

    Raises
    ------
    TypeError, ValueError
        If a size is not an integer >= 1.
    """
    P = check_int("P", P, 1)
    N = check_int("N", N, 1)
    n = check_int("n", n, 1)
    rng = numpy_rng(seed)
    stored = np.empty(n, dtype=bool)
    for i in range(n):
        xi = rng.standard_normal((P, N))
        sigma = rng.choice(np.array([-1.0, 1.0]), size=P)
        stored[i] = perceptron_decide(xi, sigma).stored
    return rate(stored)
