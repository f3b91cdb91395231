"""Permutation tests: p-values by relabelling independent instances between two groups.

:func:`permutation_pvalue` is the one relabelling engine (every relabelling when they are few,
random ones otherwise); :func:`permutation_test` is its difference of means. Used where a
statistic of a group of matrices has no interval of its own (spectral moments, KS distances).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import as_float_array, check_int
from assocmem.streams import Seed, numpy_rng

__all__ = ["permutation_test", "permutation_pvalue"]


def permutation_test(
    x: ArrayLike, y: ArrayLike, *, n_perm: int = 20000, seed: Seed = 0
) -> tuple[float, float]:
    """Two-sided permutation test of equal means for two groups of independent instances.

    Parameters
    ----------
    x, y : array_like, shape (n_x,), (n_y,)
        One value per instance (e.g. :func:`fourth_moment_ratio` of each matrix); finite, at
        least one each.
    n_perm : int
        If the number of distinct relabellings ``C(n_x + n_y, n_x)`` is at most this, all are
        enumerated (exact p-value); otherwise ``n_perm`` random relabellings are drawn.
    seed : int or numpy.random.SeedSequence
        Seed of the random relabellings.

    Returns
    -------
    diff : float
        ``mean(x) - mean(y)``.
    pvalue : float
        Fraction of relabellings whose ``|mean difference|`` is at least the observed one (up to
        1e-12 relative); with random relabellings ``(k + 1) / (n_perm + 1)``.

    Raises
    ------
    ValueError
        If a group is empty or not finite, or ``n_perm`` < 1.

    Notes
    -----
    Instance labels are permuted, not single singular values: the values of one matrix are
    dependent, its statistic is one exchangeable unit. The smallest attainable exact p-value is
    ``2 / C(n_x + n_y, n_x)`` for equal group sizes. Textbook (e.g. Good, *Permutation Tests*).
    """
    a = as_float_array(x, "x").ravel()
    b = as_float_array(y, "y").ravel()
    if a.size < 1 or b.size < 1 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("x and y must be non-empty arrays of finite values")
    if isinstance(n_perm, bool) or not isinstance(n_perm, (int, np.integer)) or n_perm < 1:
        raise ValueError(f"n_perm must be an integer >= 1, got {n_perm!r}")
    z = np.concatenate([a, b])
    n, k = z.size, a.size

    def mean_gap(values: NDArray[np.float64], labels: NDArray[np.bool_]) -> NDArray[np.float64]:
        sx = labels @ values
        return np.abs(sx / k - (values.sum() - sx) / (n - k))

    _, pvalue = permutation_pvalue(z, k, mean_gap, n_perm=n_perm, seed=seed)
    return float(a.mean() - b.mean()), pvalue


def permutation_pvalue(
    units: NDArray[np.float64],
    n_x: int,
    statistic: Callable[[NDArray[np.float64], NDArray[np.bool_]], NDArray[np.float64]],
    *,
    n_perm: int = 20000,
    seed: Seed = 0,
) -> tuple[float, float]:
    """Permutation p-value of a two-group statistic: the one relabelling engine.

    Parameters
    ----------
    units : numpy.ndarray, shape (n, ...)
        The pooled exchangeable units, the first ``n_x`` in group x, the others in group y.
    n_x : int
        Size of group x, in [1, n - 1].
    statistic : callable
        ``statistic(units, labels)`` with ``labels`` a boolean array (m, n) (True: in group x)
        returns the m statistics, larger meaning further from the null.
    n_perm : int
        If the distinct relabellings ``C(n, n_x)`` number at most this, all are enumerated
        (exact p-value); otherwise ``n_perm`` random relabellings are drawn (blocks of 2000), >= 1.
    seed : int or numpy.random.SeedSequence
        Seed of the random relabellings.

    Returns
    -------
    observed : float
        The statistic of the observed labelling.
    pvalue : float
        Fraction of relabellings whose statistic is at least the observed one (up to 1e-12
        relative); with random relabellings ``(count + 1) / (n_perm + 1)``.

    Raises
    ------
    ValueError
        If ``n_x`` is not in [1, n - 1] or ``n_perm``/``seed`` is out of range.

    Notes
    -----
    Textbook (e.g. Good, *Permutation Tests*). Used by :func:`permutation_test` (difference of
    means) and by the KS test over matrices of :mod:`assocmem.linear.measure.max_margin_spectra`.
    """
    n = len(units)
    k = check_int("n_x", n_x, 1)
    if k > n - 1:
        raise ValueError(f"n_x must lie in [1, {n - 1}], got {n_x!r}")
    n_perm = check_int("n_perm", n_perm, 1)
    rng = numpy_rng(seed)  # checked even when every relabelling is enumerated
    observed = np.zeros((1, n), dtype=bool)
    observed[0, :k] = True
    obs = float(np.asarray(statistic(units, observed))[0])
    tol = 1e-12 * max(1.0, abs(obs))
    if math.comb(n, k) <= n_perm:
        groups = np.array(list(itertools.combinations(range(n), k)), dtype=np.intp)
        labels = np.zeros((len(groups), n), dtype=bool)
        labels[np.arange(len(groups))[:, None], groups] = True
        return obs, float(np.mean(np.asarray(statistic(units, labels)) >= obs - tol))
    count = 0
    for start in range(0, n_perm, 2000):  # blocks of (2000, n) labels; one stream as one draw
        m = min(2000, n_perm - start)
        picks = np.argsort(rng.random((m, n)), axis=1)[:, :k]
        labels = np.zeros((m, n), dtype=bool)
        labels[np.arange(m)[:, None], picks] = True
        count += int(np.sum(np.asarray(statistic(units, labels)) >= obs - tol))
    return obs, (count + 1) / (n_perm + 1)
