"""Shared private helpers of the replica theory modules (argument checks, the exact q -> 1 solver).

Used by :mod:`assocmem.replica`, :mod:`assocmem.finite_size` and :mod:`assocmem.mechanism`, so
that those modules need not import each other at import time. Conventions as in
:mod:`assocmem.replica` (reconstruction, see chapter 2 and the paper digest, section 4.2).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import special

__all__ = ["CostSolution"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _check_p(p: float) -> int:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"p must be an integer >= 2, got {type(p).__name__}")
    if not math.isfinite(float(p)) or p < 2 or int(p) != p:
        raise ValueError(f"p must be an integer >= 2 (number of associations), got {p}")
    return int(p)


def _check_margin(margin: float) -> float:
    if not math.isfinite(float(margin)) or margin < 0:
        raise ValueError(f"margin must be finite and >= 0, got {margin}")
    return float(margin)


def _check_samples(n_samples: int) -> int:
    if isinstance(n_samples, bool) or int(n_samples) != n_samples or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples}")
    return int(n_samples)


class CostSolution(NamedTuple):
    """Solution of the q -> 1 problem for each draw (arrays of shape (n,)).

    Attributes
    ----------
    cost : ndarray, float64
        ``C(t)``, squared distance from the fields to the feasible set.
    level : ndarray, float64
        Minimising level ``T*``: the target field is lifted to ``T*`` and every competitor
        with ``t_nu + margin > T*`` is pushed down to ``T* - margin``.
    n_active : ndarray, int64
        Number ``k`` of competitors pushed down (active constraints).
    """

    cost: NDArray[np.float64]
    level: NDArray[np.float64]
    n_active: NDArray[np.int64]


def _solve_sorted(t0: NDArray[np.float64], c: NDArray[np.float64]) -> CostSolution:
    """Exact minimiser for competitor values ``c`` (margin included) sorted decreasingly.

    With ``S_k`` the sum of the k largest, the candidate level with k active competitors is
    ``T_k = (t0 + S_k) / (k + 1)``; ``c_(k) > T_k`` holds exactly for a prefix ``k <= k*`` of
    the k's (``c_(k) > T_{k-1} <=> c_(k) > T_k``, and once it fails, ``c_(k+1) <= c_(k) <= T_k``),
    so ``k* = #{k : c_(k) > T_k}`` and ``T* = T_{k*}`` (``T_0 = t0``).
    """
    k_max = c.shape[1]
    ks = np.arange(1, k_max + 1, dtype=np.float64)
    levels = (t0[:, None] + np.cumsum(c, axis=1)) / (ks + 1.0)
    k_star = np.count_nonzero(c > levels, axis=1)
    level = np.where(k_star > 0, levels[np.arange(len(t0)), np.maximum(k_star - 1, 0)], t0)
    active = np.arange(k_max)[None, :] < k_star[:, None]
    pushed = np.where(active, c - level[:, None], 0.0)
    value = (level - t0) ** 2 + np.sum(pushed**2, axis=1)
    return CostSolution(value, level, k_star.astype(np.int64))


def _sample_solutions(
    p: int, n_samples: int, margin: float, rng: np.random.Generator, k0: int = 128
) -> CostSolution:
    """Exact draws of the q -> 1 solution using only the top order statistics.

    Draws ``k`` top competitors via exponential spacings. If fewer than ``k`` of them are
    active, the prefix property of :func:`_solve_sorted` proves that none of the unseen (smaller)
    competitors can be active, so the solution is exact. Rows with all ``k`` active are extended
    exactly: conditional on the remaining Gamma mass ``G`` of the spacings, the next spacings and
    the new remainder are ``G * Dirichlet(1, ..., 1, n + 1 - k')``.
    """
    n = p - 1
    t0 = rng.standard_normal(n_samples)
    k = min(k0, n)
    gam = np.cumsum(rng.standard_exponential((n_samples, k)), axis=1)
    rest = rng.standard_gamma(float(n + 1 - k), size=n_samples)
    total = gam[:, -1] + rest
    c = -special.ndtri(gam / total[:, None]) + margin
    sol = _solve_sorted(t0, c)
    cost_v, level, n_act = sol.cost.copy(), sol.level.copy(), sol.n_active.copy()
    todo = np.flatnonzero(n_act >= k) if k < n else np.array([], dtype=np.int64)
    while todo.size:
        k_new = min(2 * k, n)
        m = todo.size
        extra = rng.standard_exponential((m, k_new - k))
        new_rest = rng.standard_gamma(float(n + 1 - k_new), size=m)
        scale = rest[todo] / (extra.sum(axis=1) + new_rest)
        gam_t = np.concatenate(
            [gam[todo], gam[todo, -1:] + np.cumsum(extra * scale[:, None], axis=1)], axis=1
        )
        c_t = -special.ndtri(gam_t / total[todo, None]) + margin
        sub = _solve_sorted(t0[todo], c_t)
        cost_v[todo], level[todo], n_act[todo] = sub.cost, sub.level, sub.n_active
        # grow the stored state for the rows that still need more
        still = sub.n_active >= k_new
        if k_new >= n or not np.any(still):
            break
        keep = todo[still]
        gam_full = np.zeros((n_samples, k_new))
        gam_full[keep] = gam_t[still]
        rest = rest.copy()
        rest[keep] = (new_rest * scale)[still]
        gam, todo, k = gam_full, keep, k_new
    return CostSolution(cost_v, level, n_act)
