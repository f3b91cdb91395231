"""The replica-symmetric optimal storage mechanism (chapter 3).

How the optimal memory stores an association (digest section 6): the q -> 1 solution lifts the
target field to a level ``T*`` and pushes the competitors above ``T* - margin`` down to it; and
the max-margin memory below capacity. Built on the exact q -> 1 solver of
:mod:`assocmem.linear.theory.replica`. Reconstruction (Giorlandino, Goldt & Maillard,
arXiv:2605.10795, digest sections 3.4, 4.2 and 6); see chapter 3 of the book.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from assocmem._validate import check_p, check_positive, check_real, check_samples, check_seed
from assocmem.linear.theory.extremes import sample_top_order_statistics
from assocmem.linear.theory.replica import sample_cost_solutions, solve_sorted_fields
from assocmem.streams import Seed


def optimal_mechanism(
    p: int,
    *,
    margin: float = 0.0,
    n_samples: int = 20_000,
    seed: Seed | np.random.Generator = 0,
) -> dict[str, NDArray[np.float64]]:
    """Monte Carlo of the RS optimal storage mechanism: target level T* and pushed competitors.

    For each draw of the quenched fields ``t_0`` (target) and ``t_1..t_{p-1}`` (competitors), all
    i.i.d. N(0, 1) in units of ``sigma_W = ||W||_F / d``, the q -> 1 solution lifts the target to
    ``T*`` and pushes the ``k`` competitors with ``t_nu + margin > T*`` down to ``T* - margin``
    (:func:`assocmem.linear.theory.replica.solve_sorted_fields`). Only the top competitors are drawn
    (exact order statistics, :func:`assocmem.linear.theory.extremes.sample_top_order_statistics`);
    the draw is widened (64, 256, ... competitors, each time a fresh draw) until fewer competitors
    are active than were drawn in every row, which makes it exact.

    Parameters
    ----------
    p : int
        Number of associations (one target + ``p - 1`` competitors), ``p >= 2``.
    margin : float
        Margin kappa_0 >= 0 in units of sigma_W (0: the solution at capacity; see
        :func:`margin_for_load` for the max-margin solution below capacity).
    n_samples : int
        Number of draws, ``>= 2``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (the same seed gives the same numbers).

    Returns
    -------
    dict of ndarray, each of shape (n_samples,)
        ``level`` (T*, float64), ``n_active`` (k, int64), ``raw_max`` (the competitor maximum
        before the push, float64), ``max_competitor`` (after the push: ``T* - margin`` if
        ``k >= 1``, else ``raw_max``), ``target_field`` (``t_0``) and ``cost`` (``C(t)``).

    Raises
    ------
    ValueError
        If ``p < 2``, ``margin < 0`` or ``n_samples < 2``.

    Notes
    -----
    Reconstruction (digest sections 4.2 and 6; chapter 3, eq. ``eq-tstar``). At capacity the
    mean of ``T*`` sits just below the competitor maximum ``~ sqrt(2 log p)``, with spread
    O(1/sqrt(log p)); E[C] = E[k] (statistical-dimension identity, digest section 4.2).
    """
    p = check_p(p)
    margin = check_real("margin", margin, low=0.0)
    n_samples = check_samples(n_samples)
    rng = np.random.default_rng(check_seed("seed", seed))
    t0 = rng.standard_normal(n_samples)
    n = p - 1
    k = min(64, n)
    while True:
        top = sample_top_order_statistics(n, k, n_samples, seed=rng)
        sol = solve_sorted_fields(t0, top + margin)
        if k == n or int(sol.n_active.max()) < k:
            break
        k = min(4 * k, n)
    raw_max = top[:, 0]
    pushed = np.where(sol.n_active > 0, sol.level - margin, raw_max)
    return {
        "level": sol.level,
        "n_active": sol.n_active,
        "raw_max": raw_max,
        "max_competitor": pushed,
        "target_field": t0,
        "cost": sol.cost,
    }


def margin_for_load(alpha: float, p: int, *, n_samples: int = 20_000, seed: int = 0) -> float:
    """RS margin kappa_0 of the max-margin memory at load alpha (units of sigma_W).

    Below capacity the Gardner volume at margin kappa_0 vanishes when
    ``(p / d^2) E[C_p(kappa_0)] = 1``, i.e. ``E[C_p(kappa_0)] = log p / alpha``; ``E[C_p]``
    grows with the margin, so the largest storable margin is the root. Common random numbers
    (one seed) make the Monte Carlo estimate a smooth function of the margin.

    Parameters
    ----------
    alpha : float
        Load p log p / d^2, in (0, alpha_c(p)].
    p : int
        Number of associations, >= 2.
    n_samples : int
        Monte Carlo draws per evaluation (>= 2).
    seed : int
        Seed of the draws.

    Returns
    -------
    float
        kappa_0 >= 0; 0.0 when ``alpha`` is at or above the finite-size capacity alpha_c(p).

    Raises
    ------
    TypeError
        If ``alpha`` is not a real number.
    ValueError
        If ``alpha <= 0`` or is not finite, ``p``/``n_samples`` is out of range, or ``alpha`` is
        so small that no margin up to 1e3 reaches it.

    Notes
    -----
    Reconstruction (digest sections 3.4 and 4.2; chapter 3): the margin ``kappa_0`` of eq.
    ``eq-tstar``, from the volume condition of chapter 2, eq. ``eq-alpha-p``, with this margin.
    """
    p = check_p(p)
    n_samples = check_samples(n_samples)
    alpha = check_positive("alpha", alpha)
    check_seed("seed", seed)
    target = math.log(p) / alpha

    def excess(m: float) -> float:
        rng = np.random.default_rng(check_seed("seed", seed))
        return float(sample_cost_solutions(p, n_samples, m, rng).cost.mean()) - target

    if excess(0.0) >= 0.0:
        return 0.0
    hi = 1.0
    while excess(hi) < 0.0:
        hi *= 2.0
        if hi > 1e3:
            raise ValueError(f"alpha={alpha} is too small for a finite margin at p={p}")
    return float(brentq(excess, 0.0, hi, xtol=1e-4))
