"""Extreme-value statistics of maxima of i.i.d. standard Gaussians.

The competitor maximum of an association sits at the extreme-value level
``sqrt(2 log p)``; this module provides the exact expected maximum (quadrature),
its classical asymptotic expansion, the Gumbel scale, and an exact sampler of the
top order statistics of ``n`` Gaussians that never draws all ``n`` of them.

Source: standard extreme-value theory (e.g. Leadbetter, Lindgren & Rootzen 1983,
Thm 1.5.3); used in the digest of Giorlandino, Goldt & Maillard (arXiv:2605.10795),
sections 4.2-4.3 and 6.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import integrate, special

from assocmem._validate import check_finite_array, check_int, check_real, check_seed
from assocmem.streams import Seed

EULER_GAMMA = 0.5772156649015329

#: log sqrt(2 pi), the log-normalisation of the standard Gaussian density.
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def expected_max(n: float) -> float:
    """Exact expected maximum of ``n`` i.i.d. standard Gaussians, by quadrature.

    Computes ``E[max] = int_0^inf (1 - Phi(x)^n) dx - int_-inf^0 Phi(x)^n dx`` with
    ``Phi(x)^n = exp(n log Phi(x))`` evaluated in log space, so ``n`` may be huge
    (1e12 is fine) and need not be an integer (the formula is the mean of the
    distribution with CDF ``Phi^n``).

    Parameters
    ----------
    n : float
        Number of Gaussians, ``n >= 1``.

    Returns
    -------
    float
        ``E[max(g_1, ..., g_n)]`` (float64, accurate to ~1e-10). ``expected_max(1) == 0``,
        ``expected_max(2) == 1/sqrt(pi)``.

    Raises
    ------
    TypeError
        If ``n`` is not a real number.
    ValueError
        If ``n < 1`` or is not finite.

    Notes
    -----
    Source: the mean of a distribution with CDF ``Phi^n`` (exact; no approximation beyond the
    quadrature tolerance).

    Examples
    --------
    The known closed forms ``E[max of 2] = 1/sqrt(pi)`` and ``E[max of 3] = 3 / (2 sqrt(pi))``:

    >>> expected_max(1)
    0.0
    >>> round(expected_max(2), 10), round(1 / math.sqrt(math.pi), 10)
    (0.5641895835, 0.5641895835)
    >>> round(expected_max(3), 10), round(3 / (2 * math.sqrt(math.pi)), 10)
    (0.8462843753, 0.8462843753)
    """
    n = check_real("n", n, low=1.0)
    loc = gumbel_location(n) if n >= 3 else 0.0

    def upper(x: float) -> float:  # 1 - Phi(x)^n
        return float(-np.expm1(n * special.log_ndtr(x)))

    def lower(x: float) -> float:  # Phi(x)^n
        return float(np.exp(n * special.log_ndtr(x)))

    hi = max(loc, 0.0) + 12.0
    pts = [loc] if 0.0 < loc < hi else None
    pos, _ = integrate.quad(upper, 0.0, hi, points=pts, limit=200, epsabs=1e-13, epsrel=1e-12)
    neg, _ = integrate.quad(lower, -40.0, 0.0, limit=200, epsabs=1e-13, epsrel=1e-12)
    return float(pos - neg)


def gumbel_location(n: float) -> float:
    """Gumbel location ``a_n`` of the maximum of ``n`` standard Gaussians.

    ``a_n = sqrt(2 log n) - (log log n + log 4 pi) / (2 sqrt(2 log n))``: the maximum is
    ``a_n + b_n G`` with ``G`` standard Gumbel and ``b_n = gumbel_scale(n)``.

    Parameters
    ----------
    n : float
        Number of Gaussians, ``n >= 3`` (so that ``log log n > 0``).

    Returns
    -------
    float
        ``a_n``.

    Raises
    ------
    TypeError
        If ``n`` is not a real number.
    ValueError
        If ``n < 3`` or is not finite.

    Notes
    -----
    Source: standard extreme-value theory (Leadbetter, Lindgren & Rootzen 1983, Thm 1.5.3).
    """
    n = check_real("n", n, low=3.0)
    r = math.sqrt(2.0 * math.log(n))
    return r - (math.log(math.log(n)) + math.log(4.0 * math.pi)) / (2.0 * r)


def gumbel_scale(n: float) -> float:
    """Gumbel scale ``b_n = 1 / sqrt(2 log n)`` of the maximum of ``n`` standard Gaussians.

    The standard deviation of the maximum is asymptotically ``pi b_n / sqrt(6)``.

    Parameters
    ----------
    n : float
        Number of Gaussians, ``n >= 2``.

    Returns
    -------
    float
        ``b_n``.

    Raises
    ------
    TypeError
        If ``n`` is not a real number.
    ValueError
        If ``n < 2`` or is not finite.

    Notes
    -----
    Source: standard extreme-value theory (Leadbetter, Lindgren & Rootzen 1983, Thm 1.5.3).
    """
    n = check_real("n", n, low=2.0)
    return 1.0 / math.sqrt(2.0 * math.log(n))


def expected_max_expansion(n: float) -> float:
    """Large-``n`` expansion of the expected Gaussian maximum.

    ``E[max] ~ sqrt(2 log n) - (log log n + log 4 pi) / (2 sqrt(2 log n)) + gamma / sqrt(2 log n)``
    with ``gamma`` the Euler-Mascheroni constant (mean of a standard Gumbel). The relative error
    is ``O((log log n)^2 / (log n)^2)``; at ``n = 1e6`` it is below 1 %.

    Parameters
    ----------
    n : float
        Number of Gaussians, ``n >= 3``.

    Returns
    -------
    float
        ``a_n + gamma b_n`` (:func:`gumbel_location`, :func:`gumbel_scale`).

    Raises
    ------
    TypeError
        If ``n`` is not a real number.
    ValueError
        If ``n < 3`` or is not finite.

    Notes
    -----
    Source: standard extreme-value theory (Leadbetter, Lindgren & Rootzen 1983, Thm 1.5.3).
    """
    return gumbel_location(n) + EULER_GAMMA * gumbel_scale(n)


class UniformSpacings(NamedTuple):
    """The ``k`` smallest of ``n`` i.i.d. uniforms in the exponential-spacings form.

    The uniforms are ``partial_sums / total[:, None]``. Arrays have ``n_samples`` rows.

    Attributes
    ----------
    partial_sums : ndarray, shape (n_samples, k), float64
        ``Gamma_1 < ... < Gamma_k``, partial sums of i.i.d. Exp(1) spacings.
    remainder : ndarray, shape (n_samples,), float64
        ``Gamma_{n+1} - Gamma_k``, a Gamma(n + 1 - k) variable independent of the partial sums.
    total : ndarray, shape (n_samples,), float64
        ``Gamma_{n+1} = Gamma_k + remainder``.
    """

    partial_sums: NDArray[np.float64]
    remainder: NDArray[np.float64]
    total: NDArray[np.float64]


def sample_top_uniform_spacings(
    n: int, k: int, n_samples: int, rng: np.random.Generator
) -> UniformSpacings:
    """Exact sample of the ``k`` smallest of ``n`` i.i.d. uniforms, without drawing all ``n``.

    Renyi's representation: the ``k`` smallest of ``n`` uniforms are
    ``(Gamma_1, ..., Gamma_k) / Gamma_{n+1}`` where ``Gamma_j`` are partial sums of i.i.d. Exp(1)
    variables and ``Gamma_{n+1} = Gamma_k + Gamma(n + 1 - k)``. The upper-tail quantiles
    ``-ndtri(U_(i))`` of these uniforms are the top ``k`` order statistics of ``n`` standard
    Gaussians (:func:`sample_top_order_statistics`). Draws, in this order,
    ``rng.standard_exponential((n_samples, k))`` and ``rng.standard_gamma(n + 1 - k, n_samples)``.
    Cost ``O(n_samples * k)``, independent of ``n``.

    Parameters
    ----------
    n : int
        Number of uniforms, ``n >= 1``.
    k : int
        Number of smallest order statistics, ``1 <= k <= n``.
    n_samples : int
        Number of independent draws, ``>= 1``.
    rng : numpy.random.Generator
        Source of the random numbers (advanced by the two calls above).

    Returns
    -------
    UniformSpacings
        ``partial_sums`` (shape (n_samples, k)), ``remainder`` and ``total`` (shape
        (n_samples,)), all float64.

    Raises
    ------
    TypeError
        If ``n``, ``k`` or ``n_samples`` is not an integer.
    ValueError
        If ``n < 1``, ``k`` not in ``[1, n]`` or ``n_samples < 1``.

    Notes
    -----
    Source: Renyi (1953) representation of uniform order statistics (e.g. David & Nagaraja,
    *Order Statistics*, 3rd ed., sec. 2.5).
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1)
    if k > n:
        raise ValueError(f"k must be an integer in [1, n={n}], got {k}")
    n_samples = check_int("n_samples", n_samples, 1)
    partial = np.cumsum(rng.standard_exponential((n_samples, k)), axis=1)
    remainder = rng.standard_gamma(float(n + 1 - k), size=n_samples)
    return UniformSpacings(partial, remainder, partial[:, -1] + remainder)


def gaussians_from_spacings(
    partial_sums: NDArray[np.float64], total: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Map the smallest uniforms of :func:`sample_top_uniform_spacings` to the largest Gaussians.

    ``-ndtri(partial_sums / total[:, None])``: the Gaussian upper-tail quantile of each uniform
    ``U_(i)``, accurate for tiny ``U`` (no ``1 - U`` cancellation).

    Parameters
    ----------
    partial_sums : ndarray, shape (n_samples, k), float64
        ``Gamma_1 < ... < Gamma_k`` of each row.
    total : ndarray, shape (n_samples,), float64
        ``Gamma_{n+1}`` of each row.

    Returns
    -------
    numpy.ndarray, shape (n_samples, k), float64
        The top ``k`` of ``n`` standard Gaussians, each row in decreasing order.

    Notes
    -----
    Source: the probability integral transform applied to Renyi's representation (see
    :func:`sample_top_uniform_spacings`). Checked here; the samplers call the unchecked core.

    Raises
    ------
    TypeError
        If an argument is not an array of real numbers.
    ValueError
        Unless ``partial_sums`` is 2-D and ``total`` 1-D with one entry per row, both finite,
        with ``0 < partial_sums <= total`` (uniforms in (0, 1]).
    """
    ps = check_finite_array("partial_sums", partial_sums, ndim=2)
    tot = check_finite_array("total", total, ndim=1)
    if tot.shape[0] != ps.shape[0]:
        raise ValueError(
            f"total must have one entry per row of partial_sums ({ps.shape[0]}), got {tot.shape}"
        )
    if np.any(ps <= 0) or np.any(ps > tot[:, None]):
        raise ValueError("partial_sums must lie in (0, total] (row-wise uniforms in (0, 1])")
    return _gaussians_from_spacings(ps, tot)


def _gaussians_from_spacings(
    partial_sums: NDArray[np.float64], total: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Unchecked core of :func:`gaussians_from_spacings` (the samplers' hot path)."""
    return -special.ndtri(partial_sums / total[:, None])


def sample_top_order_statistics(
    n: int, k: int, n_samples: int, *, seed: Seed | np.random.Generator = 0
) -> NDArray[np.float64]:
    """Exact sample of the ``k`` largest of ``n`` i.i.d. standard Gaussians.

    The ``k`` smallest of ``n`` uniforms (:func:`sample_top_uniform_spacings`) mapped through
    the Gaussian upper-tail quantile ``-ndtri(U_(i))`` (accurate for tiny U). Cost
    ``O(n_samples * k)``, independent of ``n``.

    Parameters
    ----------
    n : int
        Number of Gaussians, ``n >= 1``.
    k : int
        Number of top order statistics, ``1 <= k <= n``.
    n_samples : int
        Number of independent draws, ``>= 1``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed (the same seed gives the same numbers).

    Returns
    -------
    numpy.ndarray, shape (n_samples, k), float64
        Each row sorted in decreasing order: ``out[:, 0]`` is the maximum.

    Raises
    ------
    TypeError
        If ``n``, ``k`` or ``n_samples`` is not an integer.
    ValueError
        If ``n < 1``, ``k`` not in ``[1, n]`` or ``n_samples < 1``.

    Notes
    -----
    Source: Renyi's representation (see :func:`sample_top_uniform_spacings`); standard
    extreme-value theory as in the module docstring.
    """
    rng = np.random.default_rng(check_seed("seed", seed))
    spacings = sample_top_uniform_spacings(n, k, n_samples, rng)
    return _gaussians_from_spacings(spacings.partial_sums, spacings.total)


def sample_max(
    n: int, n_samples: int, *, seed: Seed | np.random.Generator = 0
) -> NDArray[np.float64]:
    """Exact samples of the maximum of ``n`` i.i.d. standard Gaussians.

    Parameters
    ----------
    n : int
        Number of Gaussians, ``n >= 1``.
    n_samples : int
        Number of draws, ``>= 1``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed.

    Returns
    -------
    numpy.ndarray, shape (n_samples,), float64

    Raises
    ------
    TypeError, ValueError
        As :func:`sample_top_order_statistics` with ``k = 1``.

    Notes
    -----
    Source: as :func:`sample_top_order_statistics`.
    """
    return sample_top_order_statistics(n, 1, n_samples, seed=seed)[:, 0]
