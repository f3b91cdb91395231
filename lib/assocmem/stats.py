"""Estimators shared by both parts: a measured number with its 95 % interval.

Each returns an :class:`assocmem.estimate.Estimate`: a rate with its Wilson interval
(:func:`rate`, :func:`wilson_interval`), a mean with its Student-t interval
(:func:`mean_interval`, :func:`t_interval`), a percentile bootstrap (:func:`bootstrap_interval`),
a ratio of two estimates resampled together (:func:`ratio`), the exact bound on a paired
difference of two methods that agree on every unit (:func:`concordant_difference`,
:func:`constant_difference`), and the one crossing estimator, :func:`crossing`: the point where
a sampled curve (Part I: the fraction of perfectly stored instances against the load; chapter 5:
the gate's winner fraction against the competition) crosses a level, with its interval by a
bootstrap over units or a Jeffreys posterior per grid point.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binomtest, norm
from scipy.stats import t as student_t

from assocmem._validate import as_float_array, check_int, check_real
from assocmem.estimate import Estimate, resample_id
from assocmem.streams import Seed, numpy_rng

__all__ = [
    "rate",
    "crossing",
    "ratio",
    "wilson_interval",
    "bootstrap_interval",
    "concordant_difference",
    "constant_difference",
    "mean_interval",
    "t_interval",
]


def rate(successes: ArrayLike, n: int | None = None, *, level: float = 0.95) -> Estimate:
    """Return a rate with its Wilson interval, from boolean outcomes or from a count.

    Parameters
    ----------
    successes : array_like of bool, shape (n,), or int
        The outcomes (one per independent unit), or the number of successes when ``n`` is given.
    n : int, optional
        Number of units, >= 1, when ``successes`` is a count.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    Estimate
        ``value = k / n``, the Wilson interval (:func:`wilson_interval`), ``method = "Wilson"``.

    Raises
    ------
    ValueError
        If there are no outcomes, a count is out of range, or ``level`` is outside (0, 1).

    Examples
    --------
    >>> e = rate([True, True, False, True])
    >>> e.value, e.n, round(e.low, 3), round(e.high, 3)
    (0.75, 4, 0.301, 0.954)
    """
    if n is None:
        c = np.asarray(successes)
        if c.ndim != 1 or c.size < 1:
            raise ValueError(f"successes must be a non-empty 1-d array of outcomes, got {c.shape}")
        if c.dtype != bool and not np.all((c == 0) | (c == 1)):
            raise ValueError("successes must hold booleans (or 0/1)")
        k, m = int(c.sum()), int(c.size)
    else:
        m = check_int("n", n, 1)
        k = check_int("successes", successes, 0)
        if k > m:
            raise ValueError(f"successes must be <= n = {m}, got {k}")
    lo, hi = wilson_interval(k, m, level=level)
    return Estimate(k / m, float(lo), float(hi), m, "Wilson", float(level))


def _crossings(
    x: NDArray[np.float64], y: NDArray[np.float64], level: float, direction: str, start: str
) -> NDArray[np.float64]:
    """First crossing of ``level`` by every column of ``y`` (n_x, B), linearly interpolated.

    ``"down"``: the first ``i`` with ``y[i] >= level > y[i+1]``; ``"up"``: the first ``i`` with
    ``y[i] < level <= y[i+1]``. NaN where no pair straddles the level (``start="nan"``).
    """
    y0, y1 = y[:-1], y[1:]
    hit = (y0 >= level) & (y1 < level) if direction == "down" else (y0 < level) & (y1 >= level)
    first = np.argmax(hit, axis=0)
    cols = np.arange(y.shape[1])
    a0, a1 = y0[first, cols], y1[first, cols]
    x0, x1 = x[first], x[first + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x0 + (a0 - level) / (a0 - a1) * (x1 - x0)
    out = np.where(hit.any(axis=0), out, np.nan)
    if start == "first":  # already past the level at the first grid point: the grid's start
        past = (y[0] < level) if direction == "down" else (y[0] >= level)
        out = np.where(past, x[0], out)
    return out


def crossing(
    x: ArrayLike,
    outcomes: ArrayLike,
    level: float = 0.5,
    *,
    direction: str = "down",
    interval: str = "bootstrap",
    unit: str = "units",
    start: str = "nan",
    n_boot: int = 2000,
    ci: float = 0.95,
    seed: Seed = 0,
) -> Estimate:
    """Where the mean of sampled curves first crosses ``level``, with a 95 % interval.

    The one crossing estimator of the book (Part I: the load where the fraction stored drops
    through 1/2, or the mean accuracy below a level; chapter 5: the competition where the
    winner fraction rises through 1/2). The estimate is the first crossing of the mean curve
    over units (linear interpolation between grid points). Its interval is a percentile interval of
    the crossing recomputed on resampled curves:

    - ``interval="bootstrap"``: the units (rows of ``outcomes``: seeds, memory sets) are resampled
      with replacement, each keeping its values at every grid point. With the same ``seed``,
      ``n_boot`` and number of units, two calls resample the same units (the same
      :attr:`Estimate.resample`), so their ``draws`` can be combined (:func:`ratio`).
    - ``interval="jeffreys"``: for 0/1 outcomes, the success probability at each grid point is
      drawn from its Jeffreys posterior ``Beta(k + 1/2, m - k + 1/2)`` (``k`` of ``m`` units;
      NaN entries are missing units), independently per point; this keeps a spread where the
      observed fractions are 0 or 1.

    Parameters
    ----------
    x : array_like, shape (n_x,)
        The grid, in the order the curve is traversed, finite.
    outcomes : array_like, shape (n_units, n_x)
        One row per independent unit (at least 2 to bootstrap; the Jeffreys posterior is formed
        from one); finite, except NaN for a missing unit with ``interval="jeffreys"``.
    level : float
        The level to cross, finite.
    direction : {"down", "up"}
        ``"down"``: the first ``i`` with ``y[i] >= level > y[i+1]``; ``"up"``: the first ``i``
        with ``y[i] < level <= y[i+1]``.
    interval : {"bootstrap", "jeffreys"}
        How the resampled curves are drawn (above).
    unit : str
        Name of the units, for :attr:`Estimate.method` (e.g. ``"seeds"``).
    start : {"nan", "first"}
        A curve already past ``level`` at the first grid point: no crossing (NaN) or ``x[0]``.
    n_boot : int
        Resamples, >= 10.
    ci : float
        Coverage of the interval, in (0, 1).
    seed : int or numpy.random.SeedSequence
        Seed of the resampling.

    Returns
    -------
    Estimate
        ``value`` (NaN when the mean curve does not cross inside the grid; then the interval is
        NaN too), the percentile interval over the resamples that cross (``used``: their
        fraction), ``stderr`` (their standard deviation), ``n`` = units, ``draws`` (shape
        (n_boot,), NaN where a resample does not cross).

    Raises
    ------
    TypeError
        If ``x`` or ``outcomes`` is not numeric.
    ValueError
        If shapes disagree, fewer than 2 grid points or (to bootstrap) 2 units are given, a
        value is not finite (NaN allowed only as a missing unit under ``"jeffreys"``), outcomes
        are not 0/1 under ``"jeffreys"``, or an option is unknown or out of range.

    Examples
    --------
    Four seeds stored at the two lowest loads, none at the highest; two of four in between:

    >>> e = crossing([0.5, 0.8, 1.1], [[1, 1, 0], [1, 1, 0], [1, 0, 0], [1, 0, 0]])
    >>> round(e.value, 3), e.n
    (0.8, 4)
    """
    try:
        xa = np.asarray(x, dtype=np.float64)
        ya = np.asarray(outcomes, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("x and outcomes must be arrays of real numbers") from exc
    if xa.ndim != 1 or xa.size < 2:
        raise ValueError(f"x must be 1-d with at least 2 grid points, got shape {xa.shape}")
    if ya.ndim != 2 or ya.shape[1] != xa.size:
        raise ValueError(f"outcomes must have shape (n_units, {xa.size}), got {ya.shape}")
    if ya.shape[0] < (2 if interval == "bootstrap" else 1):
        raise ValueError(
            f"outcomes must hold at least 2 units (rows) to resample, got {ya.shape[0]}"
        )
    if not np.all(np.isfinite(xa)):
        raise ValueError("x must be finite")
    lv = check_real("level", level)
    if direction not in ("down", "up"):
        raise ValueError(f"direction must be 'down' or 'up', got {direction!r}")
    if start not in ("nan", "first"):
        raise ValueError(f"start must be 'nan' or 'first', got {start!r}")
    nb = check_int("n_boot", n_boot, 10)
    cv = check_real("ci", ci, low=0.0, strict=True)
    if cv >= 1:
        raise ValueError(f"ci must lie in (0, 1), got {ci!r}")
    rng = numpy_rng(seed)
    n_units = ya.shape[0]
    if interval == "bootstrap":
        if not np.all(np.isfinite(ya)):
            raise ValueError("outcomes must be finite (a NaN could hide a crossing)")
        mean = ya.mean(axis=0)
        idx = rng.integers(0, n_units, size=(nb, n_units))
        # resample b's mean curve = (times each unit is drawn) @ outcomes / n: (nb, n_units)
        # counts instead of the (nb, n_units, n_x) array of resampled rows
        counts = np.zeros((nb, n_units))
        np.add.at(counts, (np.arange(nb)[:, None], idx), 1.0)
        curves = (counts @ ya).T / n_units  # (n_x, nb)
        method = f"percentile bootstrap over {unit}"
        token: str | None = resample_id(idx)
    elif interval == "jeffreys":
        miss = np.isnan(ya)
        if np.any(np.isinf(ya)) or not np.all((ya[~miss] == 0) | (ya[~miss] == 1)):
            raise ValueError("outcomes must be 0/1 (NaN: missing unit) for interval='jeffreys'")
        k = np.nansum(ya, axis=0)
        m = np.sum(~miss, axis=0).astype(np.float64)
        if np.any(m < 1):
            raise ValueError("every grid point needs at least one unit")
        mean = k / m
        curves = rng.beta(k + 0.5, m - k + 0.5, size=(nb, k.size)).T
        method = "Jeffreys posterior"
        n_units = int(m.min())
        token = None  # posterior draws per grid point: no resampled units to pair
    else:
        raise ValueError(f"interval must be 'bootstrap' or 'jeffreys', got {interval!r}")
    value = float(_crossings(xa, mean[:, None], lv, direction, start)[0])
    draws = _crossings(xa, curves, lv, direction, start)
    ok = draws[np.isfinite(draws)]
    used = ok.size / nb
    if math.isnan(value) or ok.size < 2:
        return Estimate(value, math.nan, math.nan, n_units, method, cv, math.nan, used, draws,
                        token)  # fmt: skip
    lo, hi = np.quantile(ok, [0.5 - cv / 2, 0.5 + cv / 2])
    return Estimate(value, float(lo), float(hi), n_units, method, cv, float(ok.std(ddof=1)),
                    used, draws, token)  # fmt: skip


def ratio(numerator: Estimate, denominator: Estimate) -> Estimate:
    """Ratio of two estimates whose draws resampled the same units, with its interval.

    Parameters
    ----------
    numerator, denominator : Estimate
        Bootstrap estimates (:func:`crossing` with ``interval="bootstrap"``,
        :func:`bootstrap_interval`) made with the same ``seed``, ``n_boot`` and units, so that
        draw ``i`` of both used the same resampled units and the ratio's interval keeps their
        correlation. Checked: both must carry the same :attr:`Estimate.resample`.

    Returns
    -------
    Estimate
        ``value = numerator.value / denominator.value``; the percentile interval of the ratio
        over the draws in which both are finite (``used``: their fraction).

    Raises
    ------
    TypeError
        If an argument is not an :class:`Estimate`.
    ValueError
        If an estimate has no draws or no resample identity (e.g. a Jeffreys posterior, whose
        draws resample no units), the two were not resampled together (different identities:
        another seed, ``n_boot`` or units), or a value is not finite.
    """
    for name, e in (("numerator", numerator), ("denominator", denominator)):
        if not isinstance(e, Estimate):
            raise TypeError(f"{name} must be an Estimate, got {type(e).__name__}")
        if e.draws is None:
            raise ValueError(f"{name} has no draws (make it with crossing(..., 'bootstrap'))")
        if not math.isfinite(e.value):
            raise ValueError(f"{name} has no value ({e.value}): nothing to divide")
    a, b = numerator.draws, denominator.draws
    assert a is not None and b is not None  # checked above
    if a.shape != b.shape or numerator.n != denominator.n or numerator.method != denominator.method:
        raise ValueError("numerator and denominator must resample the same units the same way")
    for name, e in (("numerator", numerator), ("denominator", denominator)):
        if e.resample is None:
            raise ValueError(
                f"{name} carries no resample identity ({e.method}): its draws are not known to "
                "come from resampled units, so they cannot be paired with the other's"
            )
    if numerator.resample != denominator.resample:
        raise ValueError(
            "numerator and denominator were not resampled together (their resample identities "
            "differ: another seed, n_boot or units): a ratio of unpaired draws has no valid "
            "interval; make both with the same seed on the same units"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    fin = r[np.isfinite(r)]
    lv = numerator.level
    lo, hi = (np.quantile(fin, [0.5 - lv / 2, 0.5 + lv / 2]) if fin.size >= 2
              else (math.nan, math.nan))  # fmt: skip
    return Estimate(numerator.value / denominator.value, float(lo), float(hi), numerator.n,
                    numerator.method, lv, float(fin.std(ddof=1)) if fin.size >= 2 else math.nan,
                    fin.size / r.size, r, numerator.resample)  # fmt: skip


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
        If a count is not a finite whole number, is negative, k > n, n < 1, or ``level`` is
        outside (0, 1).

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
    ka = as_float_array(k, "k")
    na = as_float_array(n, "n")
    if not (np.all(np.isfinite(ka)) and np.all(np.isfinite(na))):
        raise ValueError("counts k and n must be finite (NaN or inf found)")
    if np.any(ka != np.round(ka)) or np.any(na != np.round(na)):
        raise ValueError("counts k and n must be whole numbers")
    if np.any(na < 1) or np.any(ka < 0) or np.any(ka > na):
        raise ValueError("counts must satisfy 0 <= k <= n and n >= 1")
    z = float(norm.ppf(0.5 + lv / 2))
    den = na + z**2
    centre = (ka + z**2 / 2) / den
    half = z * np.sqrt(ka * (na - ka) / na + z**2 / 4) / den
    p_hat = ka / na  # inside the interval in exact arithmetic; kept inside under rounding
    low = np.clip(np.minimum(centre - half, p_hat), 0.0, 1.0)
    return low, np.clip(np.maximum(centre + half, p_hat), 0.0, 1.0)


def bootstrap_interval(
    values: ArrayLike,
    *,
    stat: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: Seed = 0,
    unit: str = "samples",
) -> Estimate:
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
    seed : int or numpy.random.SeedSequence
        Seed of the resampling.
    unit : str
        Name of the samples, for :attr:`Estimate.method` (e.g. ``"memory sets"``).

    Returns
    -------
    Estimate
        The statistic of ``values`` (``value``), the percentile interval, ``n`` = samples,
        ``stderr``, ``draws`` of the resampled statistic and their :attr:`Estimate.resample`;
        unpacks as ``estimate, low, high``. For outcomes given as booleans and the default
        statistic (the mean, a rate) the interval is widened to the Wilson interval where that
        is wider (see Notes).

    Raises
    ------
    ValueError
        If ``values`` holds fewer than 2 samples (no interval can be formed from one) or is not
        finite, or ``n_boot``/``level`` is out of range.

    Notes
    -----
    Efron & Tibshirani (1993), percentile interval. A sample whose values are all equal gives
    the same statistic on every resample, so the percentile interval is the point ``[v, v]``
    whatever n: it says that the n samples agree, not that the statistic is known. For a rate
    that point would read as certainty (40 of 40 right: ``[1, 1]``), and near 0 or 1 the
    percentile interval is too narrow in general, so for boolean ``values`` (right/wrong
    outcomes; the type says they are outcomes, where float values 0.0 and 1.0 may be anything,
    e.g. grid points) and the default statistic the interval returned is never narrower than
    the Wilson interval of the same outcomes (:func:`wilson_interval`):
    ``[min(low, wilson low), max(high, wilson high)]``, and the method says so. A rate is best
    made with :func:`rate` (Wilson) in the first place.
    """
    x = as_float_array(values, "values")
    if x.ndim < 1 or x.shape[0] < 2:
        raise ValueError(
            "values must hold at least 2 samples along axis 0 to form an interval, got shape "
            f"{x.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite (NaN or inf found)")
    nb = check_int("n_boot", n_boot, 100)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    f = stat if stat is not None else (lambda a: a.mean(axis=1))
    rng = numpy_rng(seed)
    idx = rng.integers(0, x.shape[0], size=(nb, x.shape[0]))
    boots = np.asarray(f(x[idx]), dtype=np.float64)
    est = float(np.asarray(f(x[None]), dtype=np.float64).reshape(-1)[0])
    lo, hi = np.quantile(boots, [0.5 - lv / 2, 0.5 + lv / 2])
    method = f"percentile bootstrap over {unit}"
    if stat is None and np.asarray(values).dtype == bool and x.ndim == 1:  # a rate: see Notes
        w_lo, w_hi = wilson_interval(int(x.sum()), x.size, level=lv)
        lo, hi = min(lo, float(w_lo)), max(hi, float(w_hi))
        method += ", widened to the Wilson interval where narrower"
    return Estimate(est, float(lo), float(hi), int(x.shape[0]), method, lv,
                    float(boots.std(ddof=1)), 1.0, boots, resample_id(idx))  # fmt: skip


def concordant_difference(n: int, *, level: float = 0.95) -> Estimate:
    """Difference of two paired success rates when the two methods agree on every unit.

    Two methods scored right/wrong on the same n units (queries) differ in accuracy by
    ``(b - c) / n``, with ``b`` and ``c`` the discordant units (only the first right, only the
    second right), so ``|difference| <= (b + c) / n``, and the same holds for the population
    rates and the rate of discordant units. With no discordant unit among n a resampling
    interval of the difference collapses to the point [0, 0], which would claim that the two
    methods are known to be equally accurate. The interval returned here bounds the difference by
    the exact (Clopper-Pearson) upper end of the discordance rate, 0 of n:
    ``u = 1 - ((1 - level) / 2) ** (1 / n)`` (about 3.7 / n at 95 %), giving ``[-u, +u]``, which
    covers the difference at least as often as that bound covers the discordance rate.

    Parameters
    ----------
    n : int
        Units (queries) on which both methods were scored and agreed, >= 1.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    Estimate
        ``value = 0``, ``low = -u``, ``high = u``, ``n``, method ``"exact bound: no discordant
        pair"``.

    Raises
    ------
    ValueError
        If ``n`` < 1 or ``level`` is outside (0, 1).

    Notes
    -----
    The upper end is ``scipy.stats.binomtest(0, n).proportion_ci(level, method="exact")``.
    Units are treated as independent.

    Examples
    --------
    >>> e = concordant_difference(60)
    >>> e.value, round(e.low, 4), round(e.high, 4)
    (0.0, -0.0596, 0.0596)
    """
    m = check_int("n", n, 1)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    u = float(binomtest(0, m).proportion_ci(confidence_level=lv, method="exact").high)
    return Estimate(0.0, -u, u, m, "exact bound: no discordant pair", lv)


def constant_difference(n: int, sign: int, *, level: float = 0.95) -> Estimate:
    """Difference of two paired success rates when every unit gives the same difference.

    Scored right/wrong on the same n units, two methods give each unit a difference of -1, 0
    or +1. When all n differences are equal, every resample of the units gives the same mean
    difference and a resampling interval is a point, whatever n. This returns an exact bound
    instead: for ``sign = 0`` (the methods agree on every unit) that of
    :func:`concordant_difference`, ``[-u, u]``; for ``sign = +1`` (the first method right and
    the second wrong on every unit) ``[1 - 2u, 1]``, and ``[-1, 2u - 1]`` for ``sign = -1``,
    where ``u = 1 - ((1 - level) / 2) ** (1 / n)`` is the exact (Clopper-Pearson) upper end of
    the rate of the units that are not of that kind (0 of n observed): the difference of the
    rates is at least ``(1 - u) - u`` when at most a share ``u`` of units differs otherwise.

    Parameters
    ----------
    n : int
        Units (queries), >= 1.
    sign : {-1, 0, 1}
        The difference every unit gave.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    Estimate
        ``value = sign``, the bound above, ``n``; method ``"exact bound: no discordant pair"``
        (sign 0) or ``"exact bound: every pair discordant one way"``.

    Raises
    ------
    ValueError
        If ``n`` < 1, ``sign`` is not -1, 0 or 1, or ``level`` is outside (0, 1).

    Examples
    --------
    >>> e = constant_difference(40, 1)
    >>> e.value, round(e.low, 4), e.high
    (1.0, 0.8238, 1.0)
    """
    if isinstance(sign, bool) or sign not in (-1, 0, 1):
        raise ValueError(f"sign must be -1, 0 or 1 (the difference of every unit), got {sign!r}")
    zero = concordant_difference(n, level=level)
    if sign == 0:
        return zero
    u = zero.high
    lo, hi = (1.0 - 2 * u, 1.0) if sign > 0 else (-1.0, 2 * u - 1.0)
    return Estimate(float(sign), lo, hi, zero.n, "exact bound: every pair discordant one way",
                    zero.level)  # fmt: skip


def mean_interval(values: Any, level: float = 0.95) -> Estimate | tuple[Any, Any, Any]:
    """Mean over instances (axis 0) with its Student-t interval, NaN rows left out.

    Parameters
    ----------
    values : array_like, float, shape (n, ...)
        One row per independent instance (e.g. seed); NaN entries are ignored.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    Estimate or (mean, low, high)
        ``mean +- t_{(1+level)/2, k-1} sd / sqrt(k)`` with ``k`` the non-NaN count: an
        :class:`Estimate` (``n = k``, ``method = "Student t"``, unpacking as ``mean, low,
        high``) for 1-d ``values``; for ``values`` of shape (n, ...) the three arrays of shape
        (...), NaN (flagged: no interval) where a column has ``k < 2``.

    Raises
    ------
    ValueError
        If ``level`` is not in (0, 1), ``values`` has no axis 0 or holds an infinite value, or
        1-d ``values`` hold fewer than 2 non-NaN values (no interval can be formed from one).
    """
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = as_float_array(values, "values")
    if x.ndim < 1:
        raise ValueError("values must have an instance axis 0")
    if np.any(np.isinf(x)):
        raise ValueError("values must not hold inf (NaN marks a missing instance)")
    if x.ndim == 1 and np.sum(np.isfinite(x)) < 2:
        raise ValueError(
            f"values must hold at least 2 non-NaN instances to form an interval, got {x.tolist()}"
        )
    k = np.sum(np.isfinite(x), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(x, axis=0) if x.shape[0] else np.full(x.shape[1:], np.nan)
        sd = np.nanstd(x, axis=0, ddof=1) if x.shape[0] > 1 else np.full(x.shape[1:], np.nan)
        low, high = t_interval(mean, sd / np.sqrt(k), k, level=lv)
    if np.ndim(mean) == 0:
        return Estimate(float(mean), float(low), float(high), int(k), "Student t",
                        float(level), float(sd / np.sqrt(k)) if k >= 2 else math.nan)  # fmt: skip
    return mean, low, high


def t_interval(
    mean: ArrayLike, sem: ArrayLike, n: ArrayLike, *, level: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Student-t interval ``mean +- t_{(1+level)/2, n-1} sem``, elementwise: the one t quantile.

    Parameters
    ----------
    mean, sem : array_like, float
        Means and their standard errors ``sd / sqrt(n)`` (e.g. columns of a grouped table).
    n : array_like of int
        Number of independent instances behind each mean; broadcast against ``mean``.
    level : float
        Coverage in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray, float64, the broadcast shape
        NaN where ``n < 2`` (no interval from one instance) or ``sem`` is NaN.

    Raises
    ------
    ValueError
        If ``level`` is outside (0, 1).

    Notes
    -----
    Textbook (Student 1908). :func:`mean_interval` computes ``mean`` and ``sem`` from the
    instances and calls this.

    Examples
    --------
    >>> low, high = t_interval(1.0, 0.5, 2)  # t_{0.975, 1} = 12.706
    >>> round(float(high - 1.0), 3)
    6.353
    """
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    m = np.asarray(mean, dtype=np.float64)
    k = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        half = student_t.ppf(0.5 + lv / 2, np.maximum(k - 1, 1)) * np.asarray(sem, dtype=np.float64)
    half = np.where(k >= 2, half, np.nan)
    return m - half, m + half
