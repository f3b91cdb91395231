"""Small statistics shared by both parts: crossings of measured curves and 95 % intervals.

One home for the transition point of a sampled curve (Part I: the fraction of perfectly stored
instances against the load; chapter 5: the gate's winner probability against the competition),
for the Wilson score interval of a measured rate, the percentile bootstrap interval of a
statistic of independent samples, the Student-t interval of a mean over instances and the
permutation test of two groups of instances.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import norm
from scipy.stats import t as student_t

from assocmem._validate import check_int, check_real

__all__ = [
    "first_crossing",
    "wilson_interval",
    "bootstrap_interval",
    "mean_interval",
    "permutation_test",
]


def first_crossing(
    x: ArrayLike, y: ArrayLike, level: float = 0.5, *, direction: str = "down"
) -> float:
    """Abscissa where ``y`` first crosses ``level``, by linear interpolation between samples.

    Scans consecutive pairs ``(x[i], y[i]), (x[i+1], y[i+1])`` in order and interpolates in the
    first pair that straddles the level in the given direction.

    Parameters
    ----------
    x : array_like, shape (n,)
        Abscissae, in the order the curve is traversed (usually increasing).
    y : array_like, shape (n,)
        Sampled values of the curve.
    level : float
        The level to cross (default 1/2: a success probability).
    direction : {"down", "up"}
        ``"down"``: first ``i`` with ``y[i] >= level > y[i+1]``; ``"up"``: first ``i`` with
        ``y[i] < level <= y[i+1]``.

    Returns
    -------
    float
        The interpolated abscissa; NaN when no pair straddles the level (the curve stays on one
        side within the sampled range, or is shorter than two points).

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not numeric, or ``level`` is not a real number.
    ValueError
        If ``x`` and ``y`` differ in shape, are not 1-d or not finite (a NaN could hide a
        crossing), ``level`` is not finite, or ``direction`` is unknown.

    Examples
    --------
    >>> first_crossing([0.5, 0.8, 1.1], [1.0, 0.75, 0.0])
    0.9
    """
    try:
        xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("x and y must be sequences of real numbers") from exc
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-d of one length, got {xa.shape} and {ya.shape}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("x and y must be finite (a NaN could hide a crossing)")
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)):
        raise TypeError(f"level must be a real number, got {type(level).__name__}")
    if not math.isfinite(level):
        raise ValueError(f"level must be finite, got {level}")
    if direction not in ("down", "up"):
        raise ValueError(f"direction must be 'down' or 'up', got {direction!r}")
    for i in range(len(ya) - 1):
        y0, y1 = ya[i], ya[i + 1]
        if (y0 >= level > y1) if direction == "down" else (y0 < level <= y1):
            return float(xa[i] + (y0 - level) / (y0 - y1) * (xa[i + 1] - xa[i]))
    return math.nan


def wilson_interval(
    k: ArrayLike, n: ArrayLike, *, level: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilson score interval of a binomial proportion k/n, elementwise.

    Parameters
    ----------
    k : array_like of int
        Successes, 0 <= k <= n.
    n : array_like of int
        Trials, >= 1; broadcast against ``k``.
    level : float
        Coverage in (0, 1) (default 0.95).

    Returns
    -------
    low, high : numpy.ndarray, float64, the broadcast shape of k and n
        Interval ends in [0, 1].

    Raises
    ------
    ValueError
        If a count is negative, k > n, n < 1, or ``level`` is outside (0, 1).

    Notes
    -----
    E. B. Wilson (1927): centre (k + z²/2)/(n + z²), half-width
    z sqrt(k(n − k)/n + z²/4)/(n + z²) with z the (1 + level)/2 normal quantile; the same
    interval as ``scipy.stats.binomtest(k, n).proportion_ci(level, "wilson")``.

    Examples
    --------
    No success in 10 trials: the interval is ``[0, z^2 / (n + z^2)]`` with ``z = 1.96``:

    >>> low, high = wilson_interval(0, 10)
    >>> float(low), round(float(high), 4)
    (0.0, 0.2775)
    """
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    ka = np.asarray(k, dtype=np.float64)
    na = np.asarray(n, dtype=np.float64)
    if np.any(na < 1) or np.any(ka < 0) or np.any(ka > na):
        raise ValueError("counts must satisfy 0 <= k <= n and n >= 1")
    z = float(norm.ppf(0.5 + lv / 2))
    den = na + z**2
    centre = (ka + z**2 / 2) / den
    half = z * np.sqrt(ka * (na - ka) / na + z**2 / 4) / den
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def bootstrap_interval(
    values: ArrayLike,
    *,
    stat: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Percentile bootstrap interval of a statistic of independent samples.

    Parameters
    ----------
    values : array_like, shape (n, ...)
        Independent samples along axis 0 (e.g. one value per memory set), finite.
    stat : callable, optional
        Maps an array of shape (B, n, ...) of resamples to B values (shape (B,)); default the
        mean over axis 1 (for 1-D ``values``).
    n_boot : int
        Bootstrap resamples (>= 100).
    level : float
        Coverage in (0, 1).
    seed : int
        Seed of the resampling.

    Returns
    -------
    estimate, low, high : float
        The statistic of ``values`` and the percentile interval.

    Raises
    ------
    ValueError
        If ``values`` is empty or not finite, or ``n_boot``/``level`` is out of range.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim < 1 or x.shape[0] < 1 or not np.all(np.isfinite(x)):
        raise ValueError("values must be a non-empty finite array of samples along axis 0")
    nb = check_int("n_boot", n_boot, 100)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    f = stat if stat is not None else (lambda a: a.mean(axis=1))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.shape[0], size=(nb, x.shape[0]))
    boots = np.asarray(f(x[idx]), dtype=np.float64)
    est = float(np.asarray(f(x[None]), dtype=np.float64).reshape(-1)[0])
    lo, hi = np.quantile(boots, [0.5 - lv / 2, 0.5 + lv / 2])
    return est, float(lo), float(hi)


def mean_interval(values: Any, level: float = 0.95) -> tuple[Any, Any, Any]:
    """Mean over instances (axis 0) with its Student-t interval, NaN rows left out.

    Parameters
    ----------
    values : array_like, float, shape (n, ...)
        One row per independent instance (e.g. seed); NaN entries are ignored.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    mean, low, high : float or numpy.ndarray of shape (...)
        ``mean +- t_{(1+level)/2, k-1} sd / sqrt(k)`` with ``k`` the non-NaN count (NaN
        interval where ``k < 2``).

    Raises
    ------
    ValueError
        If ``level`` is not in (0, 1) or ``values`` has no axis 0.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.asarray(values, dtype=np.float64)
    if x.ndim < 1:
        raise ValueError("values must have an instance axis 0")
    k = np.sum(np.isfinite(x), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=0) if x.shape[0] else np.full(x.shape[1:], np.nan)
        sd = np.nanstd(x, axis=0, ddof=1) if x.shape[0] > 1 else np.full(x.shape[1:], np.nan)
        half = student_t.ppf(0.5 + level / 2, np.maximum(k - 1, 1)) * sd / np.sqrt(k)
    half = np.where(k >= 2, half, np.nan)
    if np.ndim(mean) == 0:
        return float(mean), float(mean - half), float(mean + half)
    return mean, mean - half, mean + half


def permutation_test(
    x: ArrayLike, y: ArrayLike, *, n_perm: int = 20000, seed: int = 0
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
    seed : int
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
    a = np.asarray(x, dtype=np.float64).ravel()
    b = np.asarray(y, dtype=np.float64).ravel()
    if a.size < 1 or b.size < 1 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("x and y must be non-empty arrays of finite values")
    if isinstance(n_perm, bool) or not isinstance(n_perm, (int, np.integer)) or n_perm < 1:
        raise ValueError(f"n_perm must be an integer >= 1, got {n_perm!r}")
    z = np.concatenate([a, b])
    n, k = z.size, a.size
    obs = abs(a.mean() - b.mean())
    tol = 1e-12 * max(1.0, obs)
    if math.comb(n, k) <= n_perm:
        groups = np.array(list(itertools.combinations(range(n), k)), dtype=np.intp)
        mask = np.zeros((len(groups), n), dtype=bool)
        mask[np.arange(len(groups))[:, None], groups] = True
        sx = (mask * z).sum(1)
        diffs = np.abs(sx / k - (z.sum() - sx) / (n - k))
        return float(a.mean() - b.mean()), float(np.mean(diffs >= obs - tol))
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((int(n_perm), n)), axis=1)[:, :k]
    sx = z[perm].sum(1)
    diffs = np.abs(sx / k - (z.sum() - sx) / (n - k))
    count = int(np.sum(diffs >= obs - tol))
    return float(a.mean() - b.mean()), (count + 1) / (int(n_perm) + 1)
