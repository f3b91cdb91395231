"""Replica (Gardner) theory of the decoupled linear associative memory.

Everything here follows the reconstruction in the paper digest (Giorlandino, Goldt & Maillard,
arXiv:2605.10795, digest sections 4.1-4.3); only the asymptotic value alpha_c = 1/2 is read from
the paper itself. See chapter 2 of the book and appendix A1 for the derivation.

Conventions: the quenched fields of one association are ``t = (t_0, t_1, ..., t_{p-1})``, with
``t_0`` the target field and ``t_1..t_{p-1}`` its private competitors (decoupled problem), all
i.i.d. N(0, 1). ``margin`` is the margin kappa_0 of the constraints ``h_0 - h_nu >= kappa_0`` in
units of the field standard deviation (never the rank ratio kappa).

This module holds the exact q -> 1 cost and its expectation and the replica-symmetric free
entropy and saddle. The finite-size capacity is in :mod:`assocmem.linear.theory.finite_size`, the
optimal storage mechanism in :mod:`assocmem.linear.theory.mechanism`, the rank-constrained capacity
alpha_c(kappa) in :mod:`assocmem.linear.theory.spectra`.

One topic, though past 700 lines: the replica-symmetric calculation of one decoupled association,
whose free entropy at q -> 1 reduces to the cost ``C_p`` solved here exactly (sorted fields, its
Monte Carlo draws and expectation); splitting the cost from the free entropy would separate a
limit from the function it is the limit of.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.interpolate import CubicSpline
from scipy.optimize import minimize_scalar

from assocmem._validate import (
    as_float_array,
    check_finite_array,
    check_int,
    check_p,
    check_positive,
    check_real,
    check_samples,
    check_seed,
)
from assocmem.estimate import Estimate, monte_carlo
from assocmem.linear.theory.extremes import (
    LOG_SQRT_2PI,
    gaussians_from_spacings,
    sample_top_uniform_spacings,
)
from assocmem.stats import bootstrap_interval
from assocmem.streams import Seed


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


def solve_sorted_fields(t0: NDArray[np.float64], c: NDArray[np.float64]) -> CostSolution:
    """Solve the q -> 1 problem exactly for competitor values sorted decreasingly.

    With ``S_k`` the sum of the k largest, the candidate level with k active competitors is
    ``T_k = (t0 + S_k) / (k + 1)``; ``c_(k) > T_k`` holds exactly for a prefix ``k <= k*`` of
    the k's (``c_(k) > T_{k-1} <=> c_(k) > T_k``, and once it fails, ``c_(k+1) <= c_(k) <= T_k``),
    so ``k* = #{k : c_(k) > T_k}`` and ``T* = T_{k*}`` (``T_0 = t0``). Checked here (shapes,
    finite values); the samplers call the unchecked core.

    Parameters
    ----------
    t0 : ndarray, shape (n,), float64
        Target fields.
    c : ndarray, shape (n, k), float64
        Competitor fields plus the margin, each row sorted in decreasing order (``k >= 1``). Only
        the top ``k`` competitors need be given: if fewer than ``k`` come out active, the
        unseen smaller ones are inactive too (prefix property), so the solution is exact.

    Returns
    -------
    CostSolution
        ``cost``, ``level`` (float64) and ``n_active`` (int64), each of shape (n,).

    Raises
    ------
    TypeError
        If an argument is not an array of real numbers.
    ValueError
        Unless ``t0`` is 1-D and ``c`` 2-D with one row per entry of ``t0`` and ``k >= 1``
        columns, all finite (the row order is the caller's).

    Notes
    -----
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``; the level ``T*`` and ``k*``
    are chapter 3, eq. ``eq-tstar``).
    """
    t0 = check_finite_array("t0", t0, ndim=1)
    c = check_finite_array("c", c, ndim=2)
    if c.shape[0] != t0.shape[0] or c.shape[1] < 1:
        raise ValueError(
            f"c must have shape (n, k) = ({t0.shape[0]}, k >= 1) like t0, got {c.shape}"
        )
    return _solve_sorted_fields(t0, c)


def _solve_sorted_fields(t0: NDArray[np.float64], c: NDArray[np.float64]) -> CostSolution:
    """Unchecked core of :func:`solve_sorted_fields`."""
    k_max = c.shape[1]
    ks = np.arange(1, k_max + 1, dtype=np.float64)
    levels = (t0[:, None] + np.cumsum(c, axis=1)) / (ks + 1.0)  # T_k, k = 1..k_max
    k_star = np.count_nonzero(c > levels, axis=1)  # k* = #{k : c_(k) > T_k}
    last = levels[np.arange(len(t0)), np.maximum(k_star - 1, 0)]
    level = np.where(k_star > 0, last, t0)  # T* = T_{k*}, and T_0 = t0
    active = np.arange(k_max)[None, :] < k_star[:, None]  # the k* largest
    pushed = np.where(active, c - level[:, None], 0.0)  # pushed down to T*
    value = (level - t0) ** 2 + np.sum(pushed**2, axis=1)  # lift^2 + pushes^2
    return CostSolution(value, level, k_star.astype(np.int64))


def sample_cost_solutions(
    p: int, n_samples: int, margin: float, rng: np.random.Generator, k0: int = 128
) -> CostSolution:
    """Exact draws of the q -> 1 solution using only the top order statistics.

    Draws the target field, then the top ``k = min(k0, p - 1)`` competitors via exponential
    spacings (:func:`assocmem.linear.theory.extremes.sample_top_uniform_spacings`). If fewer than
    ``k`` of them are active, the prefix property of :func:`solve_sorted_fields` proves that none of
    the unseen (smaller) competitors can be active, so the solution is exact. Rows with all
    ``k`` active are extended exactly: conditional on the remaining Gamma mass ``G`` of the
    spacings, the next spacings and the new remainder are ``G * Dirichlet(1, ..., 1, n + 1 - k')``
    (``k'`` doubles each round).

    Parameters
    ----------
    p : int
        Number of associations (one target + ``p - 1`` competitors), ``p >= 2``.
    n_samples : int
        Number of draws, ``>= 1``.
    margin : float
        Margin kappa_0 >= 0.
    rng : numpy.random.Generator
        Source of the random numbers (advanced).
    k0 : int
        Number of competitors drawn at first, ``>= 1``; exactness does not depend on it.

    Returns
    -------
    CostSolution
        ``cost``, ``level`` (float64) and ``n_active`` (int64), each of shape (n_samples,).

    Raises
    ------
    TypeError, ValueError
        If ``p`` is not an integer >= 2, ``n_samples`` or ``k0`` not an integer >= 1,
        ``margin`` not a finite real >= 0, or ``rng`` not a numpy Generator.

    Notes
    -----
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``; ``level`` and ``n_active`` are
    ``T*`` and ``k`` of chapter 3, eq. ``eq-tstar``): the draws of ``t`` are exact, so this is an
    exact sampler of ``C(t)`` with ``t ~ N(0, I_p)``.
    """
    p = check_p(p)
    n_samples = check_int("n_samples", n_samples, 1)
    margin = check_real("margin", margin, low=0.0)
    k0 = check_int("k0", k0, 1)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n = p - 1
    t0 = rng.standard_normal(n_samples)
    k = min(k0, n)
    gam, rest, total = sample_top_uniform_spacings(n, k, n_samples, rng)
    c = gaussians_from_spacings(gam, total) + margin
    sol = _solve_sorted_fields(t0, c)
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
        c_t = gaussians_from_spacings(gam_t, total[todo]) + margin
        sub = _solve_sorted_fields(t0[todo], c_t)
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
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``; ``level`` and ``n_active``
    are ``T*`` and ``k`` of chapter 3, eq. ``eq-tstar``).
    """
    arr = as_float_array(t, "t")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"t must have shape (n, p) with p >= 2, got shape {np.shape(t)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("t must be finite")
    m = check_real("margin", margin, low=0.0)
    c = -np.sort(-arr[:, 1:], axis=1) + m
    return _solve_sorted_fields(arr[:, 0], c)


def cost(t: ArrayLike, margin: float = 0.0) -> NDArray[np.float64]:
    """Compute the q -> 1 cost ``C(t) = min_T [(T - t_0)_+^2 + sum_nu (t_nu + margin - T)_+^2]``.

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


def expected_cost(
    p: int,
    *,
    n_samples: int = 4000,
    seed: Seed | np.random.Generator = 0,
    margin: float = 0.0,
    method: str = "order_statistics",
) -> Estimate:
    """Monte Carlo estimate of ``E[C_p]`` over ``t ~ N(0, I_p)``.

    Parameters
    ----------
    p : int
        Number of associations (one target + ``p - 1`` competitors), ``p >= 2``.
    n_samples : int
        Number of draws of ``t``, ``>= 2``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (the same seed gives the same numbers).
    margin : float
        Margin kappa_0 >= 0.
    method : {"order_statistics", "full"}
        ``"order_statistics"`` (default) samples only the top competitors exactly (cost
        independent of p; see :func:`sample_cost_solutions`); ``"full"`` samples all p fields and
        calls :func:`cost` (``O(n_samples p log p)``; a check of the former).

    Returns
    -------
    Estimate
        Sample mean of ``C_p`` with its Monte Carlo interval (standard error
        ``std / sqrt(n_samples)``).

    Raises
    ------
    ValueError
        If ``p < 2``, ``n_samples < 2``, ``margin < 0`` or ``method`` is unknown.

    Notes
    -----
    Reconstruction (digest section 4.2; chapter 2, eq. ``eq-cost``).
    """
    p = check_p(p)
    n_samples = check_samples(n_samples)
    margin = check_real("margin", margin, low=0.0)
    rng = np.random.default_rng(check_seed("seed", seed))
    if method == "order_statistics":
        values = sample_cost_solutions(p, n_samples, margin, rng).cost
    elif method == "full":
        values = cost(rng.standard_normal((n_samples, p)), margin)
    else:
        raise ValueError(f"method must be 'order_statistics' or 'full', got {method!r}")
    return monte_carlo(
        float(values.mean()), float(values.std(ddof=1) / math.sqrt(n_samples)), n_samples
    )


#: Largest margin of the RS functions (:func:`rs_energetic_term`, :func:`rs_free_entropy`,
#: :func:`rs_saddle`): ``(1 - q) G(q) / margin^2`` keeps its large-margin limit to 1e-3 up to
#: margin 150 at q = 0.9999 and leaves it beyond (NaN from about 500); the chapters use <= 2.
RS_MARGIN_MAX = 100.0


def _inv_mills(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """phi(x) / Phi(x), stable for all x."""
    return np.exp(-0.5 * x**2 - LOG_SQRT_2PI - special.log_ndtr(x))


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
        out[i : i + chunk] = gmax[:, 0] + np.log(integral) - LOG_SQRT_2PI
    return out


def quenched_fields(
    p: int, n_samples: int, seed: Seed | np.random.Generator = 0
) -> NDArray[np.float64]:
    """Draw the quenched fields ``t`` of :func:`rs_energetic_term` (Monte Carlo, one function).

    One function draws them, so that :func:`rs_energetic_term`, :func:`rs_draws_capacity` and
    the free-entropy figure of chapter 2 see the same ``t`` for the same ``(p, n_samples, seed)``.

    Parameters
    ----------
    p : int
        Number of associations (target + ``p - 1`` competitors), ``p >= 2``.
    n_samples : int
        Draws, ``>= 2``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (a Generator is advanced).

    Returns
    -------
    numpy.ndarray, shape (n_samples, p), float64
        i.i.d. N(0, 1); column 0 the target field, columns 1..p-1 the competitors.

    Raises
    ------
    ValueError
        If ``p < 2``, ``n_samples < 2`` or the seed is invalid.
    """
    p = check_p(p)
    n_samples = check_samples(n_samples)
    rng = np.random.default_rng(check_seed("seed", seed))
    return rng.standard_normal((n_samples, p))


def rs_draws_capacity(
    p: int,
    *,
    n_samples: int = 200,
    seed: int = 0,
    margin: float = 0.0,
    n_boot: int = 2000,
    boot_seed: int = 0,
) -> Estimate:
    """Return the RS capacity ``log p / mean C`` of the draws of ``t`` of :func:`rs_energetic_term`.

    :func:`rs_saddle` evaluates ``G(q) = E_t log Z`` as a mean over ``n_samples`` draws of
    ``t``; as ``q -> 1``, ``2 (1 - q) G(q) -> -mean_t C(t)`` over the *same* draws, so its saddle
    reaches ``q* = 1`` at the draws' own capacity ``log p / mean C``, not at the population's
    ``log p / E[C_p]`` (:func:`assocmem.linear.theory.finite_size.finite_size_capacity_estimate`).
    The difference is the Monte Carlo error of the draws; the interval (a percentile bootstrap over
    the draws) says how large it can be.

    Parameters
    ----------
    p : int
        Number of associations, ``p >= 2``.
    n_samples : int
        Draws of ``t`` (``>= 2``), as in :func:`rs_energetic_term`.
    seed : int
        Seed of the draws, as in :func:`rs_energetic_term` (same seed, same draws).
    margin : float
        Margin kappa_0 >= 0.
    n_boot : int
        Bootstrap resamples of the draws, ``>= 100``.
    boot_seed : int
        Seed of the resampling.

    Returns
    -------
    assocmem.estimate.Estimate
        ``value = log p / mean C`` over the draws, its 95 % percentile-bootstrap interval
        (``high`` is inf if some resample has zero mean cost, possible for a handful of draws),
        ``n = n_samples``, ``stderr`` of the finite resampled values.

    Raises
    ------
    ValueError
        If an argument is out of range, or every draw has zero cost (no finite capacity).

    Notes
    -----
    Reconstruction (digest section 4.3; chapter 2, eq. ``eq-alpha-p``, evaluated on a finite
    sample).
    """
    margin = check_real("margin", margin, low=0.0)
    costs = cost(quenched_fields(p, n_samples, seed), margin)
    if not costs.mean() > 0:
        raise ValueError(
            f"every one of the {costs.size} draws has zero cost: no finite capacity (raise "
            "n_samples)"
        )
    mean_cost = bootstrap_interval(costs, n_boot=n_boot, seed=boot_seed, unit="draws of t")
    log_p = math.log(p)
    with np.errstate(divide="ignore"):
        draws = log_p / np.asarray(mean_cost.draws)
    finite = draws[np.isfinite(draws)]
    high = log_p / mean_cost.low if mean_cost.low > 0 else math.inf
    return Estimate(
        log_p / mean_cost.value, log_p / mean_cost.high, high, mean_cost.n, mean_cost.method,
        mean_cost.level, float(finite.std(ddof=1)) if finite.size > 1 else math.nan, 1.0, draws,
    )  # fmt: skip


def rs_energetic_term(
    q: ArrayLike,
    p: int,
    *,
    n_samples: int = 200,
    seed: Seed | np.random.Generator = 0,
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
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed.
    margin : float
        Margin kappa_0 in [0, :data:`RS_MARGIN_MAX`] (100; the quadrature of ``log Z`` loses
        accuracy beyond about 150 at the grid's largest q, 0.9999).

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
    Reconstruction (digest section 4.1; chapter 2, eqs. ``eq-log-z`` and ``eq-phi-rs``). Cost
    ``O(n_samples * p * 150)`` per q.
    """
    qs = np.atleast_1d(as_float_array(q, "q"))
    if np.any(~np.isfinite(qs)) or np.any(qs < 0) or np.any(qs >= 1):
        raise ValueError(f"q must lie in [0, 1), got {q!r}")
    p = check_p(p)
    n_samples = check_samples(n_samples)
    margin = check_real("margin", margin, low=0.0)
    if margin > RS_MARGIN_MAX:
        raise ValueError(
            f"margin must lie in [0, {RS_MARGIN_MAX:g}] for the RS quadrature (its log Z loses "
            f"accuracy beyond about 150 at q = 0.9999), got {margin!r}"
        )
    t = quenched_fields(p, n_samples, seed)
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
    seed: Seed | np.random.Generator = 0,
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
    TypeError
        If ``alpha`` is not a real number.
    ValueError
        If ``alpha <= 0`` (or not finite) or other arguments are out of range.

    Notes
    -----
    Reconstruction (digest section 4.1; chapter 2, eq. ``eq-phi-rs``).
    """
    alpha = check_positive("alpha", alpha)
    p = check_p(p)
    qs = np.atleast_1d(as_float_array(q, "q"))
    if energetic is None:
        g = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed, margin=margin)[0]
    else:
        g = check_finite_array("energetic", energetic)
        if g.shape != qs.shape:
            raise ValueError(f"energetic must have the shape of q {qs.shape}, got {g.shape}")
    return _entropic(qs) + alpha / math.log(p) * g


def rs_saddle(
    alpha: float,
    p: int,
    *,
    n_samples: int = 200,
    seed: Seed | np.random.Generator = 0,
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
    TypeError
        If ``alpha`` is not a real number.
    ValueError
        If ``alpha <= 0`` (or not finite) or other arguments are out of range.

    Notes
    -----
    Reconstruction (digest section 4.1; chapter 2, eq. ``eq-phi-rs``).
    """
    alpha = check_positive("alpha", alpha)
    u, qs = rs_q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed, margin=margin)
    return rs_interpolants(u, g, p)[1](alpha)


def rs_q_grid(n_grid: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Grid of overlaps uniform in ``u = -log(1 - q)``, from q = 0 to ``1 - q = 1e-4``.

    Parameters
    ----------
    n_grid : int
        Number of grid points, ``>= 8``.

    Returns
    -------
    (u, q) : tuple of ndarray, shape (n_grid,), float64
        ``u`` from 0 to ``log(1e4)`` and ``q = 1 - exp(-u)``.

    Raises
    ------
    ValueError
        If ``n_grid`` is not an integer >= 8.

    Notes
    -----
    The grid of :func:`rs_saddle` (reconstruction, chapter 2).
    """
    n_grid = check_int("n_grid", n_grid, 8)
    u = np.linspace(0.0, math.log(1e4), n_grid)
    return u, -np.expm1(-u)


def rs_interpolants(
    u: NDArray[np.float64], g: NDArray[np.float64], p: int
) -> tuple[
    Callable[[NDArray[np.float64] | float, float], NDArray[np.float64]],
    Callable[[float], tuple[float, float]],
]:
    """Interpolate ``Phi_RS`` from ``G(q)`` tabulated on a grid and return it with its minimiser.

    The smooth bounded function ``2 (1 - q) G(q)`` is interpolated by a cubic spline in ``u``;
    ``solve`` minimises ``Phi_RS`` on 2000 points of ``[0, u[-1]]`` and refines the minimum with a
    bounded scalar minimiser (as :func:`rs_saddle` does).

    Parameters
    ----------
    u : ndarray, shape (m,), float64
        Grid in ``u = -log(1 - q)``, increasing (e.g. from :func:`rs_q_grid`).
    g : ndarray, shape (m,), float64
        ``G(q)`` on that grid (:func:`rs_energetic_term`).
    p : int
        Number of associations, >= 2.

    Returns
    -------
    (phi_u, solve) : tuple of callables
        ``phi_u(u, alpha)``: ``Phi_RS`` at ``q = 1 - exp(-u)`` (ndarray of the shape of ``u``,
        float64); ``solve(alpha)``: ``(q*, Phi_RS(q*))`` as floats, raising ``TypeError`` /
        ``ValueError`` unless ``alpha`` is a finite real > 0.

    Raises
    ------
    ValueError
        From :class:`scipy.interpolate.CubicSpline` if ``u`` is not increasing or the shapes
        differ.

    Notes
    -----
    Reconstruction (digest section 4.1; chapter 2, eq. ``eq-phi-rs``).
    """
    u = check_finite_array("u", u, ndim=1)
    g = check_finite_array("g", g, ndim=1)
    log_p = math.log(check_p(p))
    if u.size < 2 or g.shape != u.shape or np.any(u < 0) or np.any(np.diff(u) <= 0):
        raise ValueError(
            f"u must be an increasing grid of >= 2 values >= 0 and g of its shape, got shapes "
            f"{u.shape} and {g.shape}"
        )
    qs = -np.expm1(-u)
    spline = CubicSpline(u, 2.0 * (1.0 - qs) * g)
    fine = np.linspace(0.0, float(u[-1]), 2000)

    def phi_u(uu: NDArray[np.float64] | float, alpha: float) -> NDArray[np.float64]:
        q = -np.expm1(-np.asarray(uu, dtype=np.float64))
        return _entropic(q) + alpha / log_p * spline(uu) / (2.0 * (1.0 - q))

    def solve(alpha: float) -> tuple[float, float]:
        alpha = check_positive("alpha", alpha)
        vals = phi_u(fine, alpha)
        i = int(np.argmin(vals))
        lo, hi = fine[max(i - 1, 0)], fine[min(i + 1, fine.size - 1)]
        res = minimize_scalar(lambda x: float(phi_u(x, alpha)), bounds=(lo, hi), method="bounded")
        u_star = float(res.x) if res.fun <= vals[i] else float(fine[i])
        return float(-np.expm1(-u_star)), float(phi_u(u_star, alpha))

    return phi_u, solve


class RSProfile(NamedTuple):
    """The RS free entropy at one ``p`` on one set of quenched draws (:func:`rs_profile`).

    Attributes
    ----------
    p : int
    u : numpy.ndarray
        The grid ``u = -log(1 - q)`` of :func:`rs_q_grid`.
    phi : callable
        ``phi(u, alpha)``: ``Phi_RS`` on that grid, interpolated (:func:`rs_interpolants`).
    saddle : callable
        ``saddle(alpha) -> (q*, Phi_RS(q*))``.
    capacity : Estimate
        :func:`rs_draws_capacity` of the same draws.
    """

    p: int
    u: NDArray[np.float64]
    phi: Callable[..., NDArray[np.float64]]
    saddle: Callable[[float], tuple[float, float]]
    capacity: Estimate


def rs_profile(p: int, *, n_samples: int = 200, seed: int = 0, n_grid: int = 24) -> RSProfile:
    """Return ``Phi_RS(q; alpha, p)`` on one set of quenched draws, its saddle and their capacity.

    ``n_samples``, ``seed`` and ``n_grid`` as in :func:`rs_saddle`; the capacity
    ``log p / mean C`` is that of the same draws (:func:`rs_draws_capacity`).

    Raises
    ------
    ValueError
        If ``p < 2`` or the Monte Carlo settings are out of range.
    """
    p = check_p(p)
    u, qs = rs_q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed)
    phi, saddle = rs_interpolants(u, g, p)
    return RSProfile(p, u, phi, saddle, rs_draws_capacity(p, n_samples=n_samples, seed=seed))


def cost_example(
    p: int, margin: float = 0.0, seed: int = 0
) -> tuple[NDArray[np.float64], CostSolution]:
    """Return one draw of the fields ``t ~ N(0, I_p)`` (target first) and its q -> 1 solution.

    Raises
    ------
    ValueError
        If ``p < 2`` or ``margin < 0``.
    """
    t = quenched_fields(check_p(p), 2, seed=seed)[0]  # the first row: standard_normal(p)
    return t, cost_solution(t, margin)
