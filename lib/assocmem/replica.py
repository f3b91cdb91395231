"""Replica (Gardner) theory of the decoupled linear associative memory.

Everything here follows the reconstruction in the paper digest (Giorlandino, Goldt & Maillard,
arXiv:2605.10795, digest sections 4.1-4.3); only the asymptotic value alpha_c = 1/2 is read from
the paper itself. See chapter 2 of the book and appendix A1 for the derivation.

Conventions: the quenched fields of one association are ``t = (t_0, t_1, ..., t_{p-1})``, with
``t_0`` the target field and ``t_1..t_{p-1}`` its private competitors (decoupled problem), all
i.i.d. N(0, 1). ``margin`` is the margin kappa_0 of the constraints ``h_0 - h_nu >= kappa_0`` in
units of the field standard deviation (never the rank ratio kappa).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = [
    "CostSolution",
    "cost",
    "cost_solution",
    "expected_cost",
    "expected_cost_expansion",
    "predicted_transition",
    "finite_size_table",
    "measured_transition",
    "transition_comparison",
    "finite_size_capacity",
    "finite_size_capacity_estimate",
    "finite_size_capacity_curve",
    "finite_size_capacity_expansion",
    "critical_load",
    "critical_load_quadrature",
    "hebbian_critical_load",
    "optimal_mechanism",
    "margin_for_load",
    "gardner_capacity",
    "shortcut_capacity",
    "rs_saddle_curve",
    "plot_cost_solution",
    "rs_energetic_term",
    "rs_free_entropy",
    "rs_saddle",
    "plot_finite_size_capacity",
    "plot_free_entropy",
]

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


# --------------------------------------------------------------------------------------------
# q -> 1 cost C(t)
# --------------------------------------------------------------------------------------------


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


def cost_solution(t: ArrayLike, margin: float = 0.0) -> CostSolution:
    """Exact q -> 1 cost with its minimising level and number of active competitors.

    Solves ``C(t) = min_T [(T - t_0)_+^2 + sum_nu (t_nu + margin - T)_+^2]`` exactly: the
    objective is a convex piecewise quadratic whose minimiser is ``T = (t_0 + sum of the k
    largest shifted competitors) / (k + 1)`` for the unique consistent k, found with one sort
    and one cumulative sum per draw, ``O(p log p)``.

    Parameters
    ----------
    t : array_like, shape (n, p) or (p,), float
        Quenched fields; column 0 is the target field ``t_0``, columns 1..p-1 the competitors.
    margin : float
        Margin kappa_0 >= 0 (units of the field standard deviation).

    Returns
    -------
    CostSolution
        ``cost``, ``level`` (T*), ``n_active`` (k), each of shape (n,) (or scalars' shape (1,)
        for 1-d input).

    Raises
    ------
    ValueError
        If ``t`` is not 1- or 2-dimensional, has fewer than 2 columns or non-finite entries,
        or ``margin < 0``.

    Notes
    -----
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``).
    """
    arr = np.asarray(t, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"t must have shape (n, p) with p >= 2, got shape {np.shape(t)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("t must be finite")
    m = _check_margin(margin)
    c = -np.sort(-arr[:, 1:], axis=1) + m
    return _solve_sorted(arr[:, 0], c)


def cost(t: ArrayLike, margin: float = 0.0) -> NDArray[np.float64]:
    """The q -> 1 cost ``C(t) = min_T [(T - t_0)_+^2 + sum_nu (t_nu + margin - T)_+^2]``.

    Exact and vectorised over draws; see :func:`cost_solution` for the algorithm.

    Parameters
    ----------
    t : array_like, shape (n, p) or (p,), float
        Quenched fields; column 0 is the target, columns 1..p-1 the competitors.
    margin : float
        Margin kappa_0 >= 0.

    Returns
    -------
    numpy.ndarray, shape (n,), float64
        The cost of each draw; 0 when ``t_0 >= max_nu t_nu + margin``.

    Raises
    ------
    ValueError
        See :func:`cost_solution`.

    Notes
    -----
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``).
    """
    return cost_solution(t, margin).cost


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


def expected_cost(
    p: int,
    *,
    n_samples: int = 4000,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
    method: str = "order_statistics",
) -> tuple[float, float]:
    """Monte Carlo estimate of ``E[C_p]`` over ``t ~ N(0, I_p)``.

    Parameters
    ----------
    p : int
        Number of associations (one target + ``p - 1`` competitors), ``p >= 2``.
    n_samples : int
        Number of draws of ``t``, ``>= 2``.
    seed : int or numpy.random.Generator
        Seed (same seed -> same numbers).
    margin : float
        Margin kappa_0 >= 0.
    method : {"order_statistics", "full"}
        ``"order_statistics"`` (default) samples only the top competitors exactly (cost
        independent of p; see :func:`_sample_solutions`); ``"full"`` samples all p fields and
        calls :func:`cost` (``O(n_samples p log p)``; a check of the former).

    Returns
    -------
    (mean, stderr) : tuple of float
        Sample mean of ``C_p`` and its standard error ``std / sqrt(n_samples)``.

    Raises
    ------
    ValueError
        If ``p < 2``, ``n_samples < 2``, ``margin < 0`` or ``method`` is unknown.
    """
    p = _check_p(p)
    n_samples = _check_samples(n_samples)
    margin = _check_margin(margin)
    rng = np.random.default_rng(seed)
    if method == "order_statistics":
        values = _sample_solutions(p, n_samples, margin, rng).cost
    elif method == "full":
        values = cost(rng.standard_normal((n_samples, p)), margin)
    else:
        raise ValueError(f"method must be 'order_statistics' or 'full', got {method!r}")
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(n_samples))


def finite_size_capacity_estimate(
    p: int,
    *,
    n_samples: int | None = None,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
    rel_error: float = 0.005,
) -> tuple[float, float]:
    """Finite-size capacity ``alpha_c(p) = log p / E[C_p]`` with its standard error.

    Parameters
    ----------
    p : int
        Number of associations, ``p >= 2``.
    n_samples : int, optional
        Monte Carlo draws. Default (None): adaptive, a pilot of 2000 draws sets the number of
        further draws needed for a relative standard error ``rel_error`` (capped at 10^6 draws
        in all; about 2000-60000 draws, < 1 s, for any p since the cost does not grow with p).
    seed : int or numpy.random.Generator
        Seed (same seed -> same numbers).
    margin : float
        Margin kappa_0 >= 0.
    rel_error : float
        Target relative standard error of the adaptive default, in (0, 1).

    Returns
    -------
    (alpha, stderr) : tuple of float
        ``alpha_c(p)`` and its Monte Carlo standard error (delta method,
        ``alpha * stderr(C) / mean(C)``).

    Raises
    ------
    ValueError
        As :func:`expected_cost`, or ``rel_error`` outside (0, 1).

    Notes
    -----
    Reconstruction (digest section 4.3; chapter 2, eq. ``eq-alpha-p``): the RS volume
    vanishes when ``(p / d^2) E[C_p] = 1``.
    """
    p = _check_p(p)
    margin = _check_margin(margin)
    if not 0 < rel_error < 1:
        raise ValueError(f"rel_error must lie in (0, 1), got {rel_error}")
    rng = np.random.default_rng(seed)
    if n_samples is not None:
        values = _sample_solutions(p, _check_samples(n_samples), margin, rng).cost
    else:
        values = _sample_solutions(p, 2000, margin, rng).cost
        cv = values.std(ddof=1) / values.mean()
        needed = min(int(math.ceil((cv / rel_error) ** 2)), 10**6)
        if needed > values.size:
            more = _sample_solutions(p, needed - values.size, margin, rng).cost
            values = np.concatenate([values, more])
    mean = float(values.mean())
    err = float(values.std(ddof=1) / math.sqrt(values.size))
    alpha = math.log(p) / mean
    return alpha, alpha * err / mean


def finite_size_capacity(
    p: int,
    *,
    n_samples: int | None = None,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
) -> float:
    """Finite-size capacity ``alpha_c(p) = log p / E[C_p]`` of the decoupled problem.

    The default (adaptive) sample size gives a relative standard error of 0.5 % for every p;
    run time does not grow with p (~0.1-1 s; see :func:`finite_size_capacity_estimate` and
    ``benchmarks/replica_speed.py``).

    Parameters
    ----------
    p : int
        Number of associations, ``p >= 2``.
    n_samples : int, optional
        Monte Carlo draws (default: adaptive, 0.5 % relative standard error).
    seed : int or numpy.random.Generator
        Seed.
    margin : float
        Margin kappa_0 >= 0.

    Returns
    -------
    float
        ``alpha_c(p)`` in units of the load ``alpha = p log p / d^2``.

    Raises
    ------
    ValueError
        If ``p < 2`` or another argument is out of range.

    Notes
    -----
    Reconstruction (digest section 4.3; chapter 2, eq. ``eq-alpha-p``).
    """
    return finite_size_capacity_estimate(p, n_samples=n_samples, seed=seed, margin=margin)[0]


def finite_size_capacity_curve(
    p_values: ArrayLike, *, n_samples: int | None = None, seed: int = 0, margin: float = 0.0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``alpha_c(p)`` and its standard error on a grid of p.

    The same seed is used for every p (common random numbers), so the curve is smooth in p;
    the errors of neighbouring points are correlated.

    Parameters
    ----------
    p_values : array_like of int, shape (m,)
        Values of p, each >= 2 (non-integers are rounded).
    n_samples, seed, margin
        As in :func:`finite_size_capacity`.

    Returns
    -------
    (alpha, stderr) : tuple of ndarray, shape (m,), float64
    """
    ps = np.rint(np.asarray(p_values, dtype=np.float64)).astype(np.int64)
    out = [
        finite_size_capacity_estimate(int(p), n_samples=n_samples, seed=seed, margin=margin)
        for p in ps
    ]
    arr = np.array(out, dtype=np.float64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


def predicted_transition(
    d: int, *, seed: int = 0, margin: float = 0.0, rel_error: float = 0.005
) -> tuple[float, int, float]:
    """RS prediction of the perfect-storage transition at embedding dimension d.

    Solves the self-consistency ``alpha = alpha_c(p)`` with ``p log p = alpha d^2`` by fixed-point
    iteration (``alpha_c(p)`` varies slowly with p, so a few iterations converge).

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    seed, margin, rel_error
        As in :func:`finite_size_capacity_estimate`.

    Returns
    -------
    (alpha, p, stderr) : tuple of (float, int, float)
        Predicted transition load, the corresponding number of associations and the Monte
        Carlo standard error of alpha.

    Raises
    ------
    ValueError
        If ``d < 2``.

    Notes
    -----
    Reconstruction (chapter 2): the replica result is a large-d statement; at small d the
    measured transition may differ by finite-d effects the formula does not contain.
    """
    from scipy.special import lambertw

    if isinstance(d, bool) or int(d) != d or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d}")
    alpha, err, p = 1.0, 0.0, 2
    for _ in range(6):
        x = alpha * float(d) ** 2
        p_new = max(2, int(round(float(np.real(x / lambertw(x))))))
        if p_new == p:
            break
        p = p_new
        alpha, err = finite_size_capacity_estimate(p, seed=seed, margin=margin, rel_error=rel_error)
    return alpha, p, err


def finite_size_table(
    p_values: ArrayLike, *, seed: int = 1, n_samples: int = 20_000
) -> dict[str, NDArray[np.float64]]:
    """Monte Carlo ``E[C_p]`` and ``alpha_c(p)`` next to their expansions and the shortcut.

    Parameters
    ----------
    p_values : array_like of int, shape (m,)
        Values of p, each >= 3.
    seed : int
        Seed (draws for the i-th p use ``seed + i``).
    n_samples : int
        Draws for ``E[C_p]``; ``alpha_c(p)`` uses the adaptive default (0.5 % error).

    Returns
    -------
    dict of str -> ndarray, shape (m,)
        Columns ``p``, ``E[C_p]``, ``E[C_p] stderr``, ``E[C_p] expansion``, ``alpha_c(p)``,
        ``alpha_c stderr``, ``alpha_c expansion`` (resummed), ``alpha_c first order``,
        ``shortcut``; ready for ``pandas.DataFrame``.
    """
    ps = np.rint(np.asarray(p_values, dtype=np.float64)).astype(np.int64)
    rows = []
    for i, p in enumerate(ps):
        mean, err = expected_cost(int(p), n_samples=n_samples, seed=seed + i)
        alpha, a_err = finite_size_capacity_estimate(int(p), seed=seed + i)
        rows.append((p, mean, err, alpha, a_err))
    arr = np.array(rows, dtype=np.float64).reshape(-1, 5)
    return {
        "p": arr[:, 0],
        "E[C_p]": arr[:, 1],
        "E[C_p] stderr": arr[:, 2],
        "E[C_p] expansion": expected_cost_expansion(arr[:, 0]),
        "alpha_c(p)": arr[:, 3],
        "alpha_c stderr": arr[:, 4],
        "alpha_c expansion": finite_size_capacity_expansion(arr[:, 0]),
        "alpha_c first order": finite_size_capacity_expansion(arr[:, 0], order="first"),
        "shortcut": shortcut_capacity(arr[:, 0]),
    }


def expected_cost_expansion(p: ArrayLike) -> NDArray[np.float64]:
    """Large-p expansion ``E[C_p] ~ a_p^2 - 2 log a_p^2 + 3`` (margin 0).

    ``a_p^2 = 2 log p - log(4 pi log p)`` is the squared Gumbel location of the competitor
    maximum. Derived from the Poisson limit of the top competitors: with ``c = a + x / a`` and
    ``T = a + y / a``, the optimal ``y`` solves ``sum_nu (x_nu - y)_+ = a^2``, i.e.
    ``y ~ -log a^2`` (about ``a^2`` competitors are pushed down), giving
    ``a^2 + 2y + 2 + E[t_0^2]``. Neglected terms are ``O((log log p)^2 / log p)``.

    Parameters
    ----------
    p : array_like, float
        Values of p, each >= 3.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``p``.

    Raises
    ------
    ValueError
        If any ``p < 3``.

    Notes
    -----
    Reconstruction (digest section 4.3, re-derived in appendix A1).
    """
    arr = np.asarray(p, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 3):
        raise ValueError("p must be finite and >= 3 for the expansion")
    log_p = np.log(arr)
    a2 = 2.0 * log_p - np.log(4.0 * math.pi * log_p)
    return a2 - 2.0 * np.log(a2) + 3.0


def finite_size_capacity_expansion(p: ArrayLike, *, order: str = "resummed") -> NDArray[np.float64]:
    """Large-p expansion of the finite-size capacity ``alpha_c(p)`` (margin 0).

    ``order="resummed"`` (default): ``log p / (a_p^2 - 2 log a_p^2 + 3)`` with
    :func:`expected_cost_expansion`; its relative error is ``O((log log p / log p)^2)`` (about
    2 % at p = 1e6, 1.5 % at p = 1e8, above the Monte Carlo value).
    ``order="first"``: the strict first-order expansion
    ``1/2 + (3 log log p + log(16 pi) - 3) / (4 log p)`` (digest section 4.3), whose error is
    also ``O((log log p / log p)^2)`` but with a larger constant (about 6 % at p = 1e6).
    Either way the correction to 1/2 is ``O(log log p / log p)``: very slow.

    Parameters
    ----------
    p : array_like, float
        Values of p, each >= 3.
    order : {"resummed", "first"}
        Which form of the expansion.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``p``.

    Raises
    ------
    ValueError
        If any ``p < 3`` or ``order`` is unknown.

    Notes
    -----
    Reconstruction (digest section 4.3; re-derived in appendix A1).
    """
    arr = np.asarray(p, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 3):
        raise ValueError("p must be finite and >= 3 for the expansion")
    log_p = np.log(arr)
    if order == "resummed":
        return log_p / expected_cost_expansion(arr)
    if order == "first":
        return 0.5 + (3.0 * np.log(log_p) + math.log(16.0 * math.pi) - 3.0) / (4.0 * log_p)
    raise ValueError(f"order must be 'resummed' or 'first', got {order!r}")


def critical_load(kappa: float = 1.0) -> float:
    """Asymptotic storage capacity alpha_c(kappa) of a rank-constrained linear memory.

    Parameters
    ----------
    kappa : float
        Rank ratio m/d, in (0, inf); values >= 1 mean no rank constraint.

    Returns
    -------
    float
        alpha_c = lim p log p / d^2 at which perfect storage stops being possible; 1/2 for
        ``kappa >= 1`` (the paper's result).

    Raises
    ------
    ValueError
        If kappa <= 0 or is not finite.
    TypeError
        If kappa is not a real number.

    Notes
    -----
    ``kappa >= 1``: Giorlandino, Goldt & Maillard (arXiv:2605.10795), abstract. ``0 < kappa < 1``:
    truncated quarter-circle formula (reconstruction; see chapter 4), delegated to
    :func:`assocmem.spectra.critical_load_closed_form`.
    """
    if isinstance(kappa, bool) or not isinstance(kappa, (int, float, np.integer, np.floating)):
        raise TypeError(f"kappa must be a real number, got {type(kappa).__name__}")
    if not math.isfinite(float(kappa)) or kappa <= 0:
        raise ValueError(f"kappa (rank ratio m/d) must be finite and > 0, got {kappa}")
    if kappa >= 1:
        return 0.5
    from assocmem.spectra import critical_load_closed_form

    return float(critical_load_closed_form(float(kappa)))


def critical_load_quadrature(kappa: float = 1.0) -> float:
    """alpha_c(kappa) by quadrature of the quarter-circle density (independent of the closed form).

    Thin wrapper of :func:`assocmem.spectra.critical_load_quadrature` (same arguments, errors and
    value as :func:`critical_load` to ~1e-14; reconstruction, see chapter 4).
    """
    from assocmem.spectra import critical_load_quadrature as _quadrature

    return _quadrature(kappa)


def hebbian_critical_load(kappa: float = 1.0) -> float:
    """Perfect-recall threshold of the (rank-truncated) Hebbian memory, ``critical_load(kappa)/4``.

    1/8 for ``kappa >= 1`` (chapter 3); ``alpha_c(kappa)/4`` for ``0 < kappa < 1``
    (reconstruction, see chapter 4). Same errors as :func:`critical_load`.
    """
    return critical_load(kappa) / 4.0


def gardner_capacity(margin: ArrayLike) -> NDArray[np.float64]:
    """Gardner's capacity of the spherical perceptron with margin K (patterns per weight).

    ``alpha_G(K) = 1 / int_{-K}^inf Dt (t + K)^2 = 1 / [(1 + K^2) Phi(K) + K phi(K)]``;
    ``alpha_G(0) = 2`` and ``alpha_G(K) ~ 1 / (K^2 + 1)`` for large K.

    Parameters
    ----------
    margin : array_like, float
        Margin K (any real; finite).

    Returns
    -------
    numpy.ndarray, float64, same shape as ``margin``.

    Raises
    ------
    ValueError
        If a margin is not finite.

    Notes
    -----
    Source: Gardner (1988), eq. (23) for the spherical perceptron.
    """
    k = np.asarray(margin, dtype=np.float64)
    if np.any(~np.isfinite(k)):
        raise ValueError("margin must be finite")
    moment = (1.0 + k**2) * special.ndtr(k) + k * np.exp(-0.5 * k**2 - _LOG_SQRT_2PI)
    return 1.0 / moment


def shortcut_capacity(p: ArrayLike) -> NDArray[np.float64]:
    """Shortcut estimate of ``alpha_c(p)``: a spherical perceptron with an extreme-value margin.

    The decoupled problem is treated as Gardner's perceptron with ``N = d^2`` weights and ``P = p``
    patterns whose margin is the expected competitor maximum ``K = E[max of p - 1 Gaussians]``:
    ``p / d^2 = alpha_G(K)``, i.e. ``alpha = log p * alpha_G(K)``. Tends to 1/2 as p -> inf like
    the exact ``log p / E[C_p]``, but ignores the fluctuations of the maximum and the competitors
    pushed down below it.

    Parameters
    ----------
    p : array_like, float
        Values of p, each >= 2.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``p``.

    Raises
    ------
    ValueError
        If any ``p < 2``.

    Notes
    -----
    Reconstruction (digest section 4.2, "quick route"; chapter 2).
    """
    from assocmem.extremes import expected_max

    arr = np.asarray(p, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 2):
        raise ValueError("p must be finite and >= 2")
    k = np.vectorize(lambda x: expected_max(x - 1.0))(arr)
    return np.log(arr) * gardner_capacity(k)


# --------------------------------------------------------------------------------------------
# Replica-symmetric free entropy
# --------------------------------------------------------------------------------------------


def _inv_mills(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """phi(x) / Phi(x), stable for all x."""
    return np.exp(-0.5 * x**2 - _LOG_SQRT_2PI - special.log_ndtr(x))


# trapezoid nodes, in units of the Laplace scale around the mode, then a coarse right tail
_X_CORE = np.linspace(-10.0, 10.0, 81)


def _log_z(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log int Dz prod_nu Phi(a_nu + z)`` for each row of ``a`` (shape (n, m)).

    The log-integrand ``g(z) = -z^2/2 + sum log Phi(a_nu + z)`` is concave with ``g'' <= -1``;
    its mode is found by Newton's method from a point left of it (``g'`` is convex and
    decreasing, so the iterates increase monotonically to the root), then the integral is a
    trapezoid rule on a grid of step ``s/4`` over ``[z* - 10 s, z* + 10 s]`` (``s`` the Laplace
    width; curvature only grows to the left) plus step 1/4 over a further 12 units to the right
    (where ``g'' <= -1`` bounds the tail).
    """
    n = a.shape[0]
    z = np.minimum(0.0, -a.min(axis=1) / 2.0) - 1.0
    for _ in range(100):
        x = a + z[:, None]
        lam = _inv_mills(x)
        grad = -z + lam.sum(axis=1)
        hess = -1.0 - np.sum(lam * (x + lam), axis=1)
        step = -grad / hess
        z = z + step
        if np.max(np.abs(step)) < 1e-10:
            break
    x = a + z[:, None]
    lam = _inv_mills(x)
    s = 1.0 / np.sqrt(1.0 + np.sum(lam * (x + lam), axis=1))
    tail = 10.0 * s[:, None] + np.linspace(0.25, 12.0, 48)[None, :]
    nodes = np.concatenate([z[:, None] + s[:, None] * _X_CORE[None, :], z[:, None] + tail], axis=1)
    out = np.empty(n)
    chunk = max(1, 200_000 // (a.shape[1] * nodes.shape[1]))
    for i in range(0, n, chunk):
        zi = nodes[i : i + chunk]  # (c, nodes)
        g = -0.5 * zi**2 + special.log_ndtr(a[i : i + chunk, :, None] + zi[:, None, :]).sum(axis=1)
        gmax = g.max(axis=1, keepdims=True)
        integral = np.trapezoid(np.exp(g - gmax), zi, axis=1)
        out[i : i + chunk] = gmax[:, 0] + np.log(integral) - _LOG_SQRT_2PI
    return out


def rs_energetic_term(
    q: ArrayLike,
    p: int,
    *,
    n_samples: int = 200,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Quenched average ``G(q) = E_t log Z(t; q)`` of one association's RS partition function.

    ``Z(t; q) = int Dz_0 prod_{nu=1}^{p-1} Phi((sqrt(q)(t_0 - t_nu) + sqrt(1-q) z_0 - margin)
    / sqrt(1-q))``: the probability, over the thermal parts of the fields, that the target
    field beats every competitor. The same draws of ``t`` (common random numbers) are used for
    every q, so ``G`` is a smooth function of q.

    Parameters
    ----------
    q : array_like, shape (m,), float
        Overlaps, each in [0, 1).
    p : int
        Number of associations, ``p >= 2``.
    n_samples : int
        Monte Carlo draws of the quenched fields t.
    seed : int or numpy.random.Generator
        Seed.
    margin : float
        Margin kappa_0 >= 0.

    Returns
    -------
    (G, stderr) : tuple of ndarray, shape (m,), float64
        ``G(q)`` and its standard error. Exact values: ``G(0) = -log p`` at zero margin;
        ``2 (1 - q) G(q) -> -E[C_p]`` as ``q -> 1``.

    Raises
    ------
    ValueError
        If any q is outside [0, 1) or other arguments are out of range.

    Notes
    -----
    Reconstruction (digest section 4.1; chapter 2, eq. ``eq-phi-rs``). Cost
    ``O(n_samples * p * 150)`` per q.
    """
    qs = np.atleast_1d(np.asarray(q, dtype=np.float64))
    if np.any(~np.isfinite(qs)) or np.any(qs < 0) or np.any(qs >= 1):
        raise ValueError("q must lie in [0, 1)")
    p = _check_p(p)
    n_samples = _check_samples(n_samples)
    margin = _check_margin(margin)
    rng = np.random.default_rng(seed)
    t = rng.standard_normal((n_samples, p))
    diff = t[:, :1] - t[:, 1:]
    mean = np.empty(qs.size)
    err = np.empty(qs.size)
    for j, qj in enumerate(qs):
        a = (math.sqrt(qj) * diff - margin) / math.sqrt(1.0 - qj)
        vals = _log_z(a)
        mean[j] = vals.mean()
        err[j] = vals.std(ddof=1) / math.sqrt(n_samples)
    return mean, err


def _entropic(q: NDArray[np.float64]) -> NDArray[np.float64]:
    return 0.5 * np.log1p(-q) + q / (2.0 * (1.0 - q))


def rs_free_entropy(
    q: ArrayLike,
    alpha: float,
    p: int,
    *,
    n_samples: int = 200,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
    energetic: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Replica-symmetric free entropy ``Phi_RS(q; alpha, p)`` of the decoupled problem.

    ``Phi_RS(q) = 1/2 log(1 - q) + q / (2 (1 - q)) + (alpha / log p) G(q)`` with
    ``G = E_t log Z(t; q)`` (:func:`rs_energetic_term`) and ``p / d^2 = alpha / log p``; the
    Gardner volume per weight, ``lim (1/d^2) E log V``, is its value at the saddle
    :func:`rs_saddle` (a minimum over q, as usual for n -> 0 replica saddles).

    Parameters
    ----------
    q : array_like, shape (m,)
        Overlaps in [0, 1).
    alpha : float
        Load ``p log p / d^2``, > 0.
    p : int
        Number of associations, >= 2.
    n_samples, seed, margin
        As in :func:`rs_energetic_term`.
    energetic : array_like, shape (m,), optional
        Precomputed ``G(q)`` on the same q (to scan alpha without recomputing).

    Returns
    -------
    numpy.ndarray, shape (m,), float64

    Raises
    ------
    ValueError
        If ``alpha <= 0`` or other arguments are out of range.

    Notes
    -----
    Reconstruction (digest section 4.1; chapter 2, eq. ``eq-phi-rs``).
    """
    if not math.isfinite(float(alpha)) or alpha <= 0:
        raise ValueError(f"alpha must be finite and > 0, got {alpha}")
    p = _check_p(p)
    qs = np.atleast_1d(np.asarray(q, dtype=np.float64))
    if energetic is None:
        g = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed, margin=margin)[0]
    else:
        g = np.asarray(energetic, dtype=np.float64)
        if g.shape != qs.shape:
            raise ValueError(f"energetic must have the shape of q {qs.shape}, got {g.shape}")
    return _entropic(qs) + alpha / math.log(p) * g


def rs_saddle(
    alpha: float,
    p: int,
    *,
    n_samples: int = 200,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
    n_grid: int = 40,
) -> tuple[float, float]:
    """Saddle point ``q*(alpha)`` of :func:`rs_free_entropy` and the free entropy there.

    ``G(q)`` is computed on a grid uniform in ``log(1 - q)`` (down to ``1 - q = 1e-4``), the
    smooth bounded function ``2 (1 - q) G(q)`` is interpolated by a cubic spline, and
    ``Phi_RS`` is minimised on a fine grid and refined with a bounded scalar minimiser.

    Parameters
    ----------
    alpha : float
        Load, > 0.
    p : int
        Number of associations, >= 2.
    n_samples, seed, margin
        As in :func:`rs_energetic_term`.
    n_grid : int
        Number of q values at which G is computed.

    Returns
    -------
    (q_star, phi) : tuple of float
        The overlap between two typical solutions and the log-volume per weight. Above the RS
        capacity ``log p / E[C_p]`` the minimiser runs to the grid edge ``q -> 1`` and ``phi``
        is very negative (the volume has vanished).

    Raises
    ------
    ValueError
        If ``alpha <= 0`` or other arguments are out of range.

    Notes
    -----
    Reconstruction (digest section 4.1).
    """
    fn = _saddle_function(p, n_samples=n_samples, seed=seed, margin=margin, n_grid=n_grid)
    return fn(alpha)


def _q_grid(n_grid: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Grid uniform in ``u = -log(1 - q)`` from q = 0 to ``1 - q = 1e-4``."""
    if int(n_grid) != n_grid or n_grid < 8:
        raise ValueError(f"n_grid must be an integer >= 8, got {n_grid}")
    u = np.linspace(0.0, math.log(1e4), int(n_grid))
    return u, -np.expm1(-u)


def _rs_interpolants(
    u: NDArray[np.float64], g: NDArray[np.float64], p: int
) -> tuple[
    Callable[[NDArray[np.float64] | float, float], NDArray[np.float64]],
    Callable[[float], tuple[float, float]],
]:
    """``(phi(u, alpha), solve(alpha) -> (q*, Phi(q*)))`` from ``G`` tabulated on the grid ``u``."""
    from scipy.interpolate import CubicSpline
    from scipy.optimize import minimize_scalar

    qs = -np.expm1(-u)
    spline = CubicSpline(u, 2.0 * (1.0 - qs) * g)
    log_p = math.log(p)
    fine = np.linspace(0.0, float(u[-1]), 2000)

    def phi_u(uu: NDArray[np.float64] | float, alpha: float) -> NDArray[np.float64]:
        q = -np.expm1(-np.asarray(uu, dtype=np.float64))
        return _entropic(q) + alpha / log_p * spline(uu) / (2.0 * (1.0 - q))

    def solve(alpha: float) -> tuple[float, float]:
        if not math.isfinite(float(alpha)) or alpha <= 0:
            raise ValueError(f"alpha must be finite and > 0, got {alpha}")
        vals = phi_u(fine, alpha)
        i = int(np.argmin(vals))
        lo, hi = fine[max(i - 1, 0)], fine[min(i + 1, fine.size - 1)]
        res = minimize_scalar(lambda x: float(phi_u(x, alpha)), bounds=(lo, hi), method="bounded")
        u_star = float(res.x) if res.fun <= vals[i] else float(fine[i])
        return float(-np.expm1(-u_star)), float(phi_u(u_star, alpha))

    return phi_u, solve


def _saddle_from_energetic(
    u: NDArray[np.float64], g: NDArray[np.float64], p: int
) -> Callable[[float], tuple[float, float]]:
    """Saddle solver ``alpha -> (q*, Phi(q*))`` from ``G`` tabulated on the grid ``u``."""
    return _rs_interpolants(u, g, p)[1]


def _saddle_function(
    p: int, *, n_samples: int, seed: int | np.random.Generator, margin: float, n_grid: int
) -> Callable[[float], tuple[float, float]]:
    u, qs = _q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed, margin=margin)
    return _saddle_from_energetic(u, g, p)


def rs_saddle_curve(
    alphas: ArrayLike,
    p: int,
    *,
    n_samples: int = 200,
    seed: int | np.random.Generator = 0,
    margin: float = 0.0,
    n_grid: int = 40,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`rs_saddle` for many loads, computing ``G(q)`` once.

    Returns
    -------
    (q_star, phi) : tuple of ndarray, shape (m,), float64
    """
    fn = _saddle_function(p, n_samples=n_samples, seed=seed, margin=margin, n_grid=n_grid)
    out = np.array([fn(float(a)) for a in np.atleast_1d(alphas)], dtype=np.float64)
    return out[:, 0], out[:, 1]


# --------------------------------------------------------------------------------------------
# Theory vs simulation
# --------------------------------------------------------------------------------------------


def _crossing(load: NDArray[np.float64], f: NDArray[np.float64]) -> float:
    """First downward crossing of 1/2, linear interpolation (as capacity.estimate_capacity)."""
    for i in range(len(f) - 1):
        if f[i] >= 0.5 > f[i + 1]:
            return float(load[i] + (f[i] - 0.5) / (f[i] - f[i + 1]) * (load[i + 1] - load[i]))
    return math.nan


def measured_transition(table: Any, *, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Crossing load of the success probability and its uncertainty, from a capacity sweep.

    The crossing is :func:`assocmem.capacity.estimate_capacity` (first load where the fraction of
    perfectly stored problems drops below 1/2, linear interpolation in the actual load). Its
    standard error is the spread of the same crossing when the success probability at each load
    is redrawn from its Beta(k + 1/2, n - k + 1/2) posterior (Jeffreys prior; k of n seeds
    perfect), which keeps a finite error when the observed fractions are exactly 0 or 1.

    Parameters
    ----------
    table : assocmem.capacity.CapacityTable
        One (method, decoupled, d) group.
    n_boot : int
        Number of posterior draws, >= 10.
    seed : int
        Seed of the draws.

    Returns
    -------
    (alpha, stderr) : tuple of float
        NaN alpha when the sweep does not cross 1/2.

    Raises
    ------
    ValueError
        If ``n_boot < 10`` or the table is empty or mixes groups.
    """
    from assocmem.capacity import estimate_capacity, success_curve

    if int(n_boot) != n_boot or n_boot < 10:
        raise ValueError(f"n_boot must be an integer >= 10, got {n_boot}")
    curve = success_curve(table)
    alpha = float(estimate_capacity(table))
    k = np.rint(curve["success"] * curve["n"])
    rng = np.random.default_rng(seed)
    draws = rng.beta(k + 0.5, curve["n"] - k + 0.5, size=(int(n_boot), k.size))
    boot = np.array([_crossing(curve["load"], f) for f in draws])
    boot = boot[np.isfinite(boot)]
    err = float(boot.std(ddof=1)) if boot.size > 1 else math.nan
    return alpha, err


def transition_comparison(sweeps: dict[str, Any], *, seed: int = 0) -> dict[str, list[Any]]:
    """Measured perfect-storage transitions against the RS prediction, one row per sweep.

    Parameters
    ----------
    sweeps : dict of str -> assocmem.capacity.CapacityTable
        Label -> one (method, decoupled, d) sweep from :func:`assocmem.capacity.capacity_sweep`.
    seed : int
        Seed of the Monte Carlo prediction and of the error bootstrap.

    Returns
    -------
    dict of str -> list, one entry per sweep
        ``sweep``, ``d``, ``seeds per load``, ``measured alpha_c`` and ``measured +-``
        (:func:`measured_transition`), ``p at measured`` (``p log p = alpha d^2``, real),
        ``predicted alpha_c`` and ``predicted +-`` (:func:`predicted_transition`),
        ``p at predicted``, ``difference`` (measured - predicted) and ``difference / error``;
        ready for ``pandas.DataFrame`` and :func:`plot_finite_size_capacity`.
    """
    from scipy.special import lambertw

    out: dict[str, list[Any]] = {
        k: []
        for k in (
            "sweep",
            "d",
            "seeds per load",
            "measured alpha_c",
            "measured +-",
            "p at measured",
            "predicted alpha_c",
            "predicted +-",
            "p at predicted",
            "difference",
            "difference / error",
        )
    }
    for label, table in sweeps.items():
        groups = table.groups()
        if len(groups) != 1:
            raise ValueError(f"sweep {label!r} mixes groups {groups}")
        d = int(groups[0][2])
        alpha, err = measured_transition(table, seed=seed)
        pred, p_pred, pred_err = predicted_transition(d, seed=seed)
        x = alpha * d**2
        p_meas = float(np.real(x / lambertw(x))) if math.isfinite(alpha) else math.nan
        diff = alpha - pred
        out["sweep"].append(label)
        out["d"].append(d)
        out["seeds per load"].append(int(len(table) / len(set(table.column("alpha")))))
        out["measured alpha_c"].append(alpha)
        out["measured +-"].append(err)
        out["p at measured"].append(p_meas)
        out["predicted alpha_c"].append(pred)
        out["predicted +-"].append(pred_err)
        out["p at predicted"].append(p_pred)
        out["difference"].append(diff)
        out["difference / error"].append(diff / math.hypot(err, pred_err))
    return out


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def plot_finite_size_capacity(
    p_values: ArrayLike | None = None,
    *,
    n_samples: int | None = None,
    seed: int = 0,
    measured: dict[str, list[Any]] | None = None,
):
    """``alpha_c(p)`` (Monte Carlo of the RS formula) with its expansion and the limit 1/2.

    Parameters
    ----------
    p_values : array_like, optional
        Grid of p (default: 15 values log-spaced from 10 to 1e8).
    n_samples, seed
        Monte Carlo settings, as in :func:`finite_size_capacity`.
    measured : dict, optional
        Output of :func:`transition_comparison`: measured transitions drawn as markers with
        error bars at ``(p at measured, measured alpha_c)``, and a second panel zoomed on them
        (there the markers are shifted by a few per cent in p so that coinciding points stay
        visible).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import finish, new_figure

    ps = np.logspace(1, 8, 15) if p_values is None else np.asarray(p_values, dtype=np.float64)
    alpha, err = finite_size_capacity_curve(ps, n_samples=n_samples, seed=seed)
    if not measured:
        fig, ax = new_figure()
        _draw_capacity_curves(ax, ps, alpha, err, None)
        ax.legend()
        return finish(fig)
    # right panel: zoom on the measured points, with a denser theory curve
    pm = np.asarray(measured["p at measured"], dtype=np.float64)
    lo, hi = max(3.0, 0.4 * np.nanmin(pm)), 2.5 * np.nanmax(pm)
    pz = np.unique(np.rint(np.geomspace(lo, hi, 12)))
    az, ez = finite_size_capacity_curve(pz, n_samples=n_samples, seed=seed + 100)
    fig, axes = new_figure(1, 2, width=11, height=4.2)
    _draw_capacity_curves(axes[0], ps, alpha, err, measured)
    _draw_capacity_curves(axes[1], pz, az, ez, measured, zoom=True)
    axes[0].legend(fontsize=8)
    axes[1].set_title("zoom on the simulated sizes")
    return finish(fig)


def _draw_capacity_curves(
    ax: Any,
    ps: NDArray[np.float64],
    alpha: NDArray[np.float64],
    err: NDArray[np.float64],
    measured: dict[str, list[Any]] | None,
    zoom: bool = False,
) -> None:
    from assocmem.plotting import color, sim_points, theory_line

    theory_line(
        ax,
        ps,
        alpha,
        label=r"RS theory $\log p/\mathbb{E}[C_p]$ (MC, band $\pm 2$ s.e.)",
        color=color(0),
    )
    ax.fill_between(ps, alpha - 2 * err, alpha + 2 * err, alpha=0.2, lw=0, color=color(0))
    if not zoom:
        big = ps[ps >= 300]
        theory_line(
            ax,
            big,
            finite_size_capacity_expansion(big),
            label="large-$p$ expansion",
            linestyle="--",
            color=color(1),
        )
        theory_line(
            ax,
            ps,
            shortcut_capacity(ps),
            label=r"shortcut: perceptron, margin $\mathbb{E}\max$",
            linestyle=":",
            color=color(5),
        )
        ax.axhline(0.5, color="k", lw=0.8, linestyle=":", label=r"$\alpha_c = 1/2$ ($p\to\infty$)")
    if measured:
        markers = "osD^v<>"
        n_meas = len(measured["sweep"])
        for j, lab in enumerate(measured["sweep"]):
            shift = 1.0 + (0.03 * (j - (n_meas - 1) / 2) if zoom else 0.0)
            sim_points(
                ax,
                [measured["p at measured"][j] * shift],
                [measured["measured alpha_c"][j]],
                yerr=[measured["measured +-"][j]],
                label=f"{lab}, d = {measured['d'][j]} (simulation)",
                color=color(j + 2),
                marker=markers[j % len(markers)],
                markerfacecolor="none" if j % 2 else color(j + 2),
            )
    ax.set_xscale("log")
    ax.set_xlabel("number of associations $p$")
    ax.set_ylabel(r"capacity $\alpha_c(p) = p_c \log p_c / d^2$")


def plot_free_entropy(
    p: int = 100,
    alphas: ArrayLike = (0.2, 0.4, 0.6, 0.8),
    *,
    n_samples: int = 200,
    seed: int = 0,
    n_grid: int = 24,
):
    """``Phi_RS(q)`` at fixed p for several loads, and the saddle ``q*(alpha)``.

    Left: ``Phi_RS`` against ``-log(1 - q)`` with the saddle of each load marked. Right:
    ``q*(alpha)`` and ``Phi_RS(q*)`` (log-volume per weight) against alpha, with the RS capacity
    ``log p / E[C]`` computed on the same quenched draws; the volume vanishes there.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    alphas : sequence of float
        Loads whose curves are drawn on the left panel, each > 0.
    n_samples, seed, n_grid
        As in :func:`rs_saddle`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import color, finish, new_figure, theory_line

    p = _check_p(p)
    u, qs = _q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed)
    phi_u, solve = _rs_interpolants(u, g, p)
    u_fine = np.linspace(0.0, float(u[-1]), 600)
    q_fine = -np.expm1(-u_fine)
    t = np.random.default_rng(seed).standard_normal((n_samples, p))  # same draws as G
    alpha_c = math.log(p) / float(cost(t).mean())
    fig, axes = new_figure(1, 2, width=10)
    ax = axes[0]
    stars = []
    for i, a in enumerate(np.atleast_1d(np.asarray(alphas, dtype=np.float64))):
        theory_line(ax, q_fine, phi_u(u_fine, float(a)), label=rf"$\alpha = {a:g}$", color=color(i))
        qstar, phistar = solve(float(a))
        stars.append(phistar)
        ax.plot(qstar, phistar, "o", color=color(i))
    low, high = min(stars), max(0.0, -min(stars))
    ax.set_ylim(low - 0.3 * (high - low), high)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(r"overlap $q$")
    ax.set_ylabel(r"$\Phi_{\rm RS}(q;\alpha,p)$")
    ax.set_title(f"p = {p}; dots: saddle $q^*$ (minimum)")
    ax.legend()
    ax = axes[1]
    grid = np.linspace(0.02, 0.995, 60) * alpha_c
    sad = np.array([solve(float(a)) for a in grid])
    theory_line(ax, grid, sad[:, 0], label=r"overlap $q^*(\alpha)$", color=color(0))
    theory_line(
        ax,
        grid,
        np.exp(sad[:, 1]),
        label=r"$e^{\Phi_{\rm RS}(q^*)}$ (volume$^{1/d^2}$)",
        color=color(1),
    )
    ax.axvline(alpha_c, color="k", linestyle=":", lw=1, label=r"$\log p/\overline{C}$ (same draws)")
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("saddle quantities")
    ax.legend()
    return finish(fig)


def plot_cost_solution(p: int = 200, margin: float = 0.0, seed: int = 0):
    """One draw of the quenched fields and the q -> 1 solution: who is moved, and where to.

    Shows the target field ``t_0`` and the largest competitors ``t_nu + margin`` (sorted), the
    level ``T*`` to which the target is lifted and the active competitors pushed down, and the
    resulting cost ``C(t)``.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    margin : float
        Margin kappa_0 >= 0.
    seed : int
        Seed of the draw.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import color, finish, new_figure

    p = _check_p(p)
    t = np.random.default_rng(seed).standard_normal(p)
    sol = cost_solution(t, margin)
    level, k = float(sol.level[0]), int(sol.n_active[0])
    c = np.sort(t[1:])[::-1] + margin
    shown = min(c.size, max(3 * k + 10, 25))
    fig, ax = new_figure()
    idx = np.arange(1, shown + 1)
    ax.plot(idx, c[:shown], "o", color=color(0), label=r"competitors $t_{(\nu)}+\kappa_0$ (sorted)")
    moved = idx <= k
    for i in idx[moved]:
        ax.annotate(
            "",
            xy=(i, level),
            xytext=(i, c[i - 1]),
            arrowprops={"arrowstyle": "->", "color": color(0), "lw": 0.8},
        )
    ax.plot([0], [t[0]], "s", color=color(1), ms=8, label=r"target $t_0$")
    ax.annotate(
        "", xy=(0, level), xytext=(0, t[0]), arrowprops={"arrowstyle": "->", "color": color(1)}
    )
    ax.axhline(level, color="k", lw=1, linestyle="--", label=rf"level $T^*$ = {level:.2f}")
    ax.set_xlabel(r"rank of the competitor ($0$ = target)")
    ax.set_ylabel("quenched field (units of its std)")
    ax.set_title(f"p = {p}: C(t) = {float(sol.cost[0]):.2f}, k = {k} competitors pushed down")
    ax.legend(loc="upper right")
    return finish(fig)


# --- optimal storage mechanism (chapter 3) ---
# Appended by the chapter-3 engineer: the RS picture of *how* the optimal memory stores an
# association (digest section 6), built on cost_solution / _solve_sorted above.


def optimal_mechanism(
    p: int,
    *,
    margin: float = 0.0,
    n_samples: int = 20_000,
    seed: int | np.random.Generator = 0,
) -> dict[str, NDArray[np.float64]]:
    """Monte Carlo of the RS optimal storage mechanism: target level T* and pushed competitors.

    For each draw of the quenched fields ``t_0`` (target) and ``t_1..t_{p-1}`` (competitors), all
    i.i.d. N(0, 1) in units of ``sigma_W = ||W||_F / d``, the q -> 1 solution lifts the target to
    ``T*`` and pushes the ``k`` competitors with ``t_nu + margin > T*`` down to ``T* - margin``
    (:func:`cost_solution`). Only the top competitors are drawn (exact order statistics,
    :func:`assocmem.extremes.sample_top_order_statistics`); the draw is widened until fewer
    competitors are active than were drawn, which makes it exact.

    Parameters
    ----------
    p : int
        Number of associations (one target + ``p - 1`` competitors), ``p >= 2``.
    margin : float
        Margin kappa_0 >= 0 in units of sigma_W (0: the solution at capacity; see
        :func:`margin_for_load` for the max-margin solution below capacity).
    n_samples : int
        Number of draws, ``>= 2``.
    seed : int or numpy.random.Generator
        Seed (same seed -> same numbers).

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
    from assocmem.extremes import sample_top_order_statistics

    p = _check_p(p)
    margin = _check_margin(margin)
    n_samples = _check_samples(n_samples)
    rng = np.random.default_rng(seed)
    t0 = rng.standard_normal(n_samples)
    n = p - 1
    k = min(64, n)
    while True:
        top = sample_top_order_statistics(n, k, n_samples, seed=rng)
        sol = _solve_sorted(t0, top + margin)
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
    ValueError
        If ``alpha <= 0`` or is not finite, or ``p``/``n_samples`` is out of range.

    Notes
    -----
    Reconstruction (digest sections 3.4 and 4.2; chapter 3).
    """
    from scipy.optimize import brentq

    p = _check_p(p)
    n_samples = _check_samples(n_samples)
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a finite load > 0, got {alpha!r}")
    target = math.log(p) / float(alpha)

    def excess(m: float) -> float:
        rng = np.random.default_rng(seed)
        return float(_sample_solutions(p, n_samples, m, rng).cost.mean()) - target

    if excess(0.0) >= 0.0:
        return 0.0
    hi = 1.0
    while excess(hi) < 0.0:
        hi *= 2.0
        if hi > 1e3:
            raise ValueError(f"alpha={alpha} is too small for a finite margin at p={p}")
    return float(brentq(excess, 0.0, hi, xtol=1e-4))
