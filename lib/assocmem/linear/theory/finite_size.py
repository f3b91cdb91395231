"""Finite-size storage capacity of the decoupled linear memory.

The replica-symmetric volume vanishes when ``(p / d^2) E[C_p] = 1``, which gives the finite-size
capacity ``alpha_c(p) = log p / E[C_p]`` (Monte Carlo of the q -> 1 cost of
:mod:`assocmem.linear.theory.replica`), its large-p expansions, the shortcut estimate (a spherical
perceptron with an extreme-value margin), the predicted transition at embedding dimension d, and
the heuristic finite-size capacity of a rank-constrained memory. Monte Carlo numbers are
:class:`~assocmem.estimate.Estimate` objects (method "Monte Carlo").

Reconstruction following the paper digest (Giorlandino, Goldt & Maillard, arXiv:2605.10795,
digest sections 4.2-4.3 and 7.2); see chapters 2 and 4. Conventions (fields ``t``, ``margin``)
as in :mod:`assocmem.linear.theory.replica`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from assocmem._validate import (
    as_float_array,
    check_finite_array,
    check_int,
    check_p,
    check_real,
    check_samples,
    check_scalar_kappa,
    check_seed,
)
from assocmem.estimate import Estimate, monte_carlo
from assocmem.linear.theory.extremes import LOG_SQRT_2PI, expected_max
from assocmem.linear.theory.load import pairs_for_load
from assocmem.linear.theory.replica import expected_cost, sample_cost_solutions
from assocmem.linear.theory.spectra import critical_load
from assocmem.streams import Seed, as_seed_sequence, child

#: Smallest p of the large-p expansion of ``E[C_p]`` (:func:`expected_cost_expansion`): its
#: ``a_p^2 = 2 log p - log(4 pi log p)`` is negative below p = 4.2715 (its log undefined).
_EXPANSION_MIN_P = 4.28


@dataclass(frozen=True)
class PredictedLoad:
    """A predicted transition: the load ``alpha`` (Monte Carlo) and the number of pairs ``p`` there.

    Attributes
    ----------
    alpha : Estimate
        The load, with its Monte Carlo interval (method "Monte Carlo").
    p : int
        The number of associations at which ``alpha_c(p)`` was evaluated last.
    """

    alpha: Estimate
    p: int


def finite_size_capacity_estimate(
    p: int,
    *,
    n_samples: int | None = None,
    seed: Seed | np.random.Generator = 0,
    margin: float = 0.0,
    rel_error: float = 0.005,
) -> Estimate:
    """Finite-size capacity ``alpha_c(p) = log p / E[C_p]`` with its Monte Carlo interval.

    Parameters
    ----------
    p : int
        Number of associations, ``p >= 2``.
    n_samples : int, optional
        Monte Carlo draws. Default (None): adaptive, a pilot of 2000 draws sets the number of
        further draws needed for a relative standard error ``rel_error`` (capped at 10^6 draws
        in all; about 2000-60000 draws, < 1 s, for any p since the cost does not grow with p).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (the same seed gives the same numbers).
    margin : float
        Margin kappa_0 >= 0.
    rel_error : float
        Target relative standard error of the adaptive default, in (0, 1).

    Returns
    -------
    Estimate
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
    p = check_p(p)
    margin = check_real("margin", margin, low=0.0)
    rel_error = check_real("rel_error", rel_error, low=0.0, strict=True)
    if rel_error >= 1:
        raise ValueError(f"rel_error must lie in (0, 1), got {rel_error}")
    rng = np.random.default_rng(check_seed("seed", seed))
    if n_samples is not None:
        values = sample_cost_solutions(p, check_samples(n_samples), margin, rng).cost
    else:
        values = sample_cost_solutions(p, 2000, margin, rng).cost
        cv = values.std(ddof=1) / values.mean()
        needed = int(math.ceil(min((cv / rel_error) ** 2, 1e6)))  # no int(inf) at tiny rel_error
        if needed > values.size:
            more = sample_cost_solutions(p, needed - values.size, margin, rng).cost
            values = np.concatenate([values, more])
    mean = float(values.mean())
    err = float(values.std(ddof=1) / math.sqrt(values.size))
    alpha = math.log(p) / mean
    return monte_carlo(alpha, alpha * err / mean, values.size)


def finite_size_capacity(
    p: int,
    *,
    n_samples: int | None = None,
    seed: Seed | np.random.Generator = 0,
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
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
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
    return finite_size_capacity_estimate(p, n_samples=n_samples, seed=seed, margin=margin).value


def finite_size_capacity_curve(
    p_values: ArrayLike, *, n_samples: int | None = None, seed: Seed = 0, margin: float = 0.0
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

    Raises
    ------
    ValueError
        As :func:`finite_size_capacity_estimate`, for any p.

    Notes
    -----
    Reconstruction (digest section 4.3; chapter 2, eq. ``eq-alpha-p``).
    """
    raw = check_finite_array("p_values", p_values)
    check_seed("seed", seed)
    check_real("margin", margin, low=0.0)
    ps = np.rint(raw).astype(np.int64)
    out = [
        (e.value, e.stderr)
        for e in (
            finite_size_capacity_estimate(int(p), n_samples=n_samples, seed=seed, margin=margin)
            for p in ps
        )
    ]
    arr = np.array(out, dtype=np.float64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


def predicted_transition(
    d: int, *, seed: Seed = 0, margin: float = 0.0, rel_error: float = 0.005
) -> PredictedLoad:
    """RS prediction of the perfect-storage transition at embedding dimension d.

    Solves the self-consistency ``alpha = alpha_c(p)`` with ``p = pairs_for_load(alpha, d)``
    (:func:`assocmem.linear.theory.load.pairs_for_load`, ``p log p ~ alpha d^2``) by fixed-point
    iteration from ``alpha = 1`` (``alpha_c(p)`` varies slowly with p, so a few iterations
    converge; at most 6 are made).

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    seed, margin, rel_error
        As in :func:`finite_size_capacity_estimate`.

    Returns
    -------
    PredictedLoad
        ``alpha``: the predicted transition load ``alpha_c(p)`` with its Monte Carlo interval
        (:func:`finite_size_capacity_estimate` at ``p`` with this seed); ``p``: the number of
        associations of the last iteration (``pairs_for_load(alpha, d) == p`` once converged).

    Raises
    ------
    TypeError
        If ``d`` is not an integer.
    ValueError
        If ``d < 2``.

    Notes
    -----
    Reconstruction (chapter 2, ``alpha = alpha_c(p)`` with eq. ``eq-alpha-p``): the replica result
    is a large-d statement; at small d the measured transition may differ by finite-d effects the
    formula does not contain.
    """
    d = check_int("d", d, 2)
    check_seed("seed", seed)
    check_real("margin", margin, low=0.0)
    alpha, p = monte_carlo(1.0, 0.0, 1), 2
    for _ in range(6):
        p_new = pairs_for_load(alpha.value, d)
        if p_new == p:
            break
        p = p_new
        alpha = finite_size_capacity_estimate(p, seed=seed, margin=margin, rel_error=rel_error)
    return PredictedLoad(alpha, p)


def finite_size_table(
    p_values: ArrayLike, *, seed: Seed = 1, n_samples: int = 20_000
) -> dict[str, NDArray[np.float64]]:
    """Monte Carlo ``E[C_p]`` and ``alpha_c(p)`` next to their expansions and the shortcut.

    Parameters
    ----------
    p_values : array_like of int, shape (m,)
        Values of p, each an integer >= 5 (the expansion's domain, see
        :func:`expected_cost_expansion`).
    seed : int or numpy.random.SeedSequence
        Root; the draws for a ``p`` come from its own stream ``child(seed, p)``
        (:func:`assocmem.streams.child`), so a row does not depend on the other ``p`` or their
        order.
    n_samples : int
        Draws for ``E[C_p]``; ``alpha_c(p)`` uses the adaptive default (0.5 % error).

    Returns
    -------
    dict of str -> ndarray, shape (m,)
        Columns ``p``, ``E[C_p]``, ``E[C_p] stderr``, ``E[C_p] expansion``, ``alpha_c(p)``,
        ``alpha_c stderr``, ``alpha_c expansion`` (resummed), ``alpha_c first order``,
        ``shortcut``; ready for ``pandas.DataFrame``.

    Raises
    ------
    ValueError
        If a p is not an integer >= 5 or ``n_samples < 2``.

    Notes
    -----
    Reconstruction (digest section 4.3; chapter 2, eqs. ``eq-alpha-p``, ``eq-alpha-expansion``
    and, for the shortcut, ``eq-gardner-margin``; appendix A1).
    """
    raw = as_float_array(p_values, "p_values")
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"p_values must be a non-empty 1-D array of integers, got {p_values!r}")
    if not np.all(np.isfinite(raw)) or np.any(raw != np.rint(raw)) or np.any(raw < 5):
        raise ValueError(
            f"p_values must be integers >= 5 (the expansion needs p >= {_EXPANSION_MIN_P}), "
            f"got {p_values!r}"
        )
    ps = raw.astype(np.int64)
    as_seed_sequence(seed)
    check_samples(n_samples)
    rows = []
    for p in ps:
        stream = child(seed, int(p))
        cost = expected_cost(int(p), n_samples=n_samples, seed=stream)
        alpha = finite_size_capacity_estimate(int(p), seed=stream)
        rows.append((p, cost.value, cost.stderr, alpha.value, alpha.stderr))
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
        Values of p, each >= 4.28 (below p = 4.2715, ``a_p^2 < 0``).

    Returns
    -------
    numpy.ndarray, float64, same shape as ``p``.

    Raises
    ------
    ValueError
        If any ``p`` is not finite or below 4.28.

    Notes
    -----
    Reconstruction (digest section 4.3, re-derived in appendix A1; chapter 2, eq.
    ``eq-alpha-expansion``).
    """
    arr = as_float_array(p, "p")
    if np.any(~np.isfinite(arr)) or np.any(arr < _EXPANSION_MIN_P):
        raise ValueError(
            f"p must be finite and >= {_EXPANSION_MIN_P} for the expansion "
            f"(a_p^2 = 2 log p - log(4 pi log p) > 0 there), got {p!r}"
        )
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
        Values of p, each >= 3 (>= 4.28 for ``"resummed"``, see
        :func:`expected_cost_expansion`).
    order : {"resummed", "first"}
        Which form of the expansion.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``p``.

    Raises
    ------
    ValueError
        If any ``p < 3`` (``< 4.28`` for ``"resummed"``) or ``order`` is unknown.

    Notes
    -----
    Reconstruction (digest section 4.3; re-derived in appendix A1; chapter 2, eq.
    ``eq-alpha-expansion``).
    """
    arr = as_float_array(p, "p")
    if np.any(~np.isfinite(arr)) or np.any(arr < 3):
        raise ValueError(f"p must be finite and >= 3 for the expansion, got {p!r}")
    log_p = np.log(arr)
    if order == "resummed":
        return log_p / expected_cost_expansion(arr)
    if order == "first":
        return 0.5 + (3.0 * np.log(log_p) + math.log(16.0 * math.pi) - 3.0) / (4.0 * log_p)
    raise ValueError(f"order must be 'resummed' or 'first', got {order!r}")


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
    Source: Gardner (1988), eq. (23) for the spherical perceptron; chapter 2, eq.
    ``eq-gardner-margin``.
    """
    k = as_float_array(margin, "margin")
    if np.any(~np.isfinite(k)):
        raise ValueError(f"margin must be finite, got {margin!r}")
    moment = (1.0 + k**2) * special.ndtr(k) + k * np.exp(-0.5 * k**2 - LOG_SQRT_2PI)
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
    Reconstruction (digest section 4.2, "quick route"; chapter 2, eq. ``eq-gardner-margin``
    with this ``K``).
    """
    arr = as_float_array(p, "p")
    if np.any(~np.isfinite(arr)) or np.any(arr < 2):
        raise ValueError(f"p must be finite and >= 2, got {p!r}")
    k = np.vectorize(lambda x: expected_max(x - 1.0))(arr)
    return np.log(arr) * gardner_capacity(k)


def finite_size_critical_load(
    kappa: float, d: int, *, seed: int = 0, rel_error: float = 0.01
) -> PredictedLoad:
    """Heuristic finite-size capacity of a rank-``kappa d`` memory at embedding dimension ``d``.

    Solves ``alpha = 2 alpha_c(kappa) * alpha_c(p)`` with ``p log p = alpha d^2`` by fixed-point
    iteration, where ``alpha_c(p) = log p / E[C_p]`` is the finite-size capacity of the full-rank
    decoupled problem (:func:`finite_size_capacity_estimate`, Monte Carlo) and
    ``2 alpha_c(kappa)`` the fraction of the quarter circle's second moment a rank-``kappa d``
    memory keeps.

    Parameters
    ----------
    kappa : float
        Rank ratio in (0, inf).
    d : int
        Embedding dimension, >= 2.
    seed : int
        Seed of the Monte Carlo estimate of ``E[C_p]``.
    rel_error : float
        Relative standard error of that estimate, in (0, 1).

    Returns
    -------
    PredictedLoad
        The predicted transition load (Monte Carlo interval of ``alpha_c(p)``, scaled) and the
        number of associations there.

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar or ``d`` not an integer.
    ValueError
        If ``kappa <= 0`` or not finite, or ``d < 2``.

    Notes
    -----
    A heuristic (digest section 7.2, "by analogy with section 4.3"): neither this product form nor
    the value of ``alpha_c(kappa)`` is read from the paper. Reconstruction, see chapter 4, eq.
    ``eq-rank-finite-size``.
    """
    k = check_scalar_kappa(kappa)
    d = check_int("d", d, 2)
    check_seed("seed", seed)
    factor = 2.0 * float(critical_load(k))
    alpha, p = monte_carlo(factor, 0.0, 1), 0
    for _ in range(8):
        p_new = pairs_for_load(alpha.value, d)
        if p_new == p:
            break
        p = p_new
        e = finite_size_capacity_estimate(p, seed=seed, rel_error=rel_error)
        alpha = monte_carlo(factor * e.value, factor * e.stderr, e.n)
    return PredictedLoad(alpha, p)
