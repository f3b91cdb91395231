"""The measured number: :class:`Estimate`, its verdict and its one rendering.

One currency: every measured number of the book is an :class:`Estimate` (value, 95 % interval,
the independent units it rests on and how the interval was made), returned by the estimators of
:mod:`assocmem.stats` and by the library's experiments, and glued into the prose in one call
(:func:`assocmem.pages.glue_all`). :func:`verdict` is the one rule that turns an interval into
words (:class:`Verdict`, strict inequalities on the interval); a measured-versus-predicted
statement is the verdict of an estimate of the difference against 0. :func:`render` writes an
estimate as prose and tables show it. :func:`from_draws` and :func:`resample_id` make an
estimate from resampled values and name the resampling behind them; :func:`monte_carlo` makes one
of a Monte Carlo average, and :func:`difference` the difference a measured-versus-predicted
verdict reads.
"""

from __future__ import annotations

import enum
import hashlib
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import norm

from assocmem._validate import as_float_array, check_int, check_real
from assocmem.streams import Seed, numpy_rng

__all__ = [
    "Estimate",
    "Result",
    "Verdict",
    "verdict",
    "render",
    "from_draws",
    "monte_carlo",
    "difference",
    "resample_id",
]


@dataclass(frozen=True)
class Estimate:
    """A measured number: its value, 95 % interval, units and the method of the interval.

    The one type the library's estimators return and the pages glue (:func:`assocmem.pages.glue_all`
    writes ``name``, ``name_lo``, ``name_hi`` and ``name_n``). It unpacks as
    ``value, low, high = estimate`` and formats as its value (``f"{e:.3f}"``), like the triples it
    replaces.

    Attributes
    ----------
    value : float
        The estimate (NaN: not measured, e.g. no crossing inside the grid).
    low, high : float
        Ends of the ``level`` interval (NaN when it cannot be formed).
    n : int
        Independent units the interval rests on (trials, instances, memory sets, queries).
    method : str
        How the interval was made, e.g. ``"Wilson"``, ``"Student t"``,
        ``"percentile bootstrap over seeds"``, ``"Jeffreys posterior"``.
    level : float
        Coverage of the interval (0.95 throughout the book).
    stderr : float
        Standard deviation of the resampled values where the method has one (else NaN).
    used : float
        Fraction of resamples that produced a value (a crossing inside the grid); well below 1
        means the interval is conditional on the grid bracketing the crossing.
    draws : numpy.ndarray or None
        The resampled values (NaN where none), kept so that two estimates drawn with the same
        resampled units can be combined (:func:`assocmem.stats.ratio`); not compared, not shown.
    resample : str or None
        Identity of the resampling behind ``draws`` (a digest of which units each draw took):
        equal for two estimates whose draw ``i`` used the same resampled units, the condition
        :func:`assocmem.stats.ratio` checks; None where the draws do not come from resampled units
        (a posterior, a hand-made estimate). Not compared, not shown.

    Raises
    ------
    TypeError
        If ``value``, ``low`` or ``high`` is not a real number, ``n`` not an integer or
        ``method`` not a string.
    ValueError
        If ``low > high``, the value lies outside ``[low, high]`` (see Notes), ``n < 0``,
        ``level`` is outside (0, 1), ``used`` outside [0, 1] or ``stderr`` negative.

    Notes
    -----
    NaN is allowed for the value and for either end (not measured, no interval); the order
    ``low <= value <= high`` is checked where all three are numbers (to a relative 1e-12 for
    rounding), except for a *percentile interval of resampled values*: an estimate that carries
    its ``draws``, or whose ``method`` names a bootstrap or a posterior. The percentile method
    does not centre the interval on the estimate made on the full data, which can fall outside
    it (a crossing, a ratio, a median).
    """

    value: float
    low: float
    high: float
    n: int
    method: str
    level: float = 0.95
    stderr: float = math.nan
    used: float = 1.0
    draws: NDArray[np.float64] | None = field(default=None, repr=False, compare=False)
    resample: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the fields (see Raises); store the numbers as float and ``n`` as int."""
        for name in ("value", "low", "high"):
            x = getattr(self, name)
            if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
                raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
            object.__setattr__(self, name, float(x))
        object.__setattr__(self, "n", check_int("n", self.n, 0))
        if not isinstance(self.method, str):
            raise TypeError(f"method must be a string, got {type(self.method).__name__}")
        v, lo, hi = self.value, self.low, self.high
        if lo > hi:  # False when either is NaN
            raise ValueError(f"low must be <= high, got low = {lo!r} > high = {hi!r}")
        tol = 1e-12 * max(abs(v), abs(lo), abs(hi)) if math.isfinite(v + lo + hi) else 0.0
        percentile = self.draws is not None or any(
            w in self.method.lower() for w in ("bootstrap", "posterior")
        )
        if not percentile and (v < lo - tol or v > hi + tol):
            raise ValueError(
                f"value must lie in [low, high], got {v!r} outside [{lo!r}, {hi!r}] ({self.method})"
            )
        if not 0 < self.level < 1:
            raise ValueError(f"level must lie in (0, 1), got {self.level!r}")
        if not 0 <= self.used <= 1:
            raise ValueError(f"used must lie in [0, 1], got {self.used!r}")
        if self.stderr < 0:
            raise ValueError(f"stderr must be >= 0 (or NaN), got {self.stderr!r}")

    def __iter__(self) -> Iterator[float]:
        """Unpack as ``value, low, high``."""
        return iter((self.value, self.low, self.high))

    def __float__(self) -> float:
        """Return the value."""
        return float(self.value)

    def __format__(self, spec: str) -> str:
        """Format the value (``f"{e:.3f}"``)."""
        return format(self.value, spec)

    def __str__(self) -> str:
        """``0.812 [0.771, 0.847] (n = 400, Wilson)`` (:func:`render`)."""
        return render(self, ".3g", n=True, method=True)

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def contains(self, x: float) -> bool:
        """Whether ``x`` lies inside the interval (False when the interval is NaN)."""
        return bool(self.low <= x <= self.high)

    def glue_values(self) -> dict[str, float | int]:
        """Return the numbers the prose quotes: keys ``""`` (value), ``_lo``, ``_hi``, ``_n``."""
        return {"": float(self.value), "_lo": float(self.low), "_hi": float(self.high),
                "_n": int(self.n)}  # fmt: skip


@runtime_checkable
class Result(Protocol):
    """What a result type answers: the page's numbers, its verdicts and its table.

    ``summary()`` maps the labels a page glues to Estimates, Verdicts, numbers and text;
    ``findings()`` maps each claim (or unit) to its Verdict; ``table()`` is the result as the
    page shows it (Estimate cells, rendered by :func:`assocmem.pages.table`). The settings that
    made the result travel with it.
    """

    def summary(self) -> Mapping[str, Any]:
        """Return the numbers a page quotes, by label."""
        ...

    def findings(self) -> Mapping[Any, Any]:
        """Return each claim's verdict."""
        ...

    def table(self) -> Any:
        """Return the result as a table."""
        ...


class Verdict(str, enum.Enum):
    """What an interval says about a reference value: the book's one verdict vocabulary.

    The members are strings (``Verdict.ABOVE == "above"``), so a page glues them as words.
    """

    ABOVE = "above"
    BELOW = "below"
    UNRESOLVED = "not resolved"
    #: A derived verdict whose premise failed (e.g. a share of a gain that is not above 0);
    #: :func:`verdict` never returns it.
    NOT_TESTABLE = "not testable"

    def __str__(self) -> str:
        """Return the words (``"not resolved"``)."""
        return self.value


def verdict(estimate: Estimate, reference: float = 0.0) -> Verdict:
    """Return the verdict of an interval against a reference: the book's one rule.

    Strict inequalities: ``ABOVE`` when ``low > reference``, ``BELOW`` when
    ``high < reference``, otherwise ``UNRESOLVED`` -- an end exactly on the reference, or an
    interval that cannot be formed (NaN), resolves nothing. Every verdict the book prints (a
    difference against 0, a share against 0 or 1, a measured capacity against a prediction) comes
    from this function, so one interval can never be called two ways.

    Parameters
    ----------
    estimate : Estimate
        The measurement and its interval.
    reference : float
        The value compared against (finite).

    Raises
    ------
    TypeError
        If ``estimate`` is not an :class:`Estimate`.
    ValueError
        If ``reference`` is not a finite number.

    Examples
    --------
    >>> e = Estimate(0.125, 0.0, 0.281, 32, "percentile bootstrap")
    >>> verdict(e), verdict(e, -0.1), verdict(e, 0.3)
    (<Verdict.UNRESOLVED: 'not resolved'>, <Verdict.ABOVE: 'above'>, <Verdict.BELOW: 'below'>)
    """
    if not isinstance(estimate, Estimate):
        raise TypeError(f"estimate must be an Estimate, got {type(estimate).__name__}")
    ref = check_real("reference", reference)
    if estimate.low > ref:
        return Verdict.ABOVE
    if estimate.high < ref:
        return Verdict.BELOW
    return Verdict.UNRESOLVED


def render(estimate: Estimate, spec: str = ".3f", *, n: bool = False, method: bool = False) -> str:
    """Write an estimate as prose and tables show it: ``0.812 [0.771, 0.847]``; the one renderer.

    Parameters
    ----------
    estimate : Estimate
        The measurement.
    spec : str
        Format spec of the value and both ends (``".3f"``, ``"+.3f"``, ``".2g"``).
    n, method : bool
        Append ``(n = 400)``, ``(Wilson)`` or ``(n = 400, Wilson)``.

    Returns
    -------
    str
        ``value [low, high]``; an end that cannot be formed (NaN) is written ``–``, and a value
        that was not measured (NaN) is ``not measured``.

    Raises
    ------
    TypeError
        If ``estimate`` is not an :class:`Estimate` or ``spec`` not a string.
    ValueError
        If ``spec`` is not a valid format spec for a float.

    Examples
    --------
    >>> e = Estimate(0.8, 0.4902, 0.9433, 10, "Wilson")  # stats.rate(8, 10)
    >>> render(e), render(e, ".2f", n=True, method=True)
    ('0.800 [0.490, 0.943]', '0.80 [0.49, 0.94] (n = 10, Wilson)')
    """
    if not isinstance(estimate, Estimate):
        raise TypeError(f"estimate must be an Estimate, got {type(estimate).__name__}")
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a format spec string, got {type(spec).__name__}")
    try:
        format(0.5, spec)
    except ValueError as err:
        raise ValueError(f"spec must be a format spec for a float, got {spec!r} ({err})") from err

    def one(x: float) -> str:
        return "–" if math.isnan(x) else format(x, spec)

    text = (
        "not measured"
        if math.isnan(estimate.value)
        else f"{one(estimate.value)} [{one(estimate.low)}, {one(estimate.high)}]"
    )
    extra = ([f"n = {estimate.n}"] if n else []) + ([estimate.method] if method else [])
    return f"{text} ({', '.join(extra)})" if extra else text


def from_draws(
    value: float,
    draws: ArrayLike,
    n: int,
    method: str,
    *,
    level: float = 0.95,
    n_total: int = 0,
    resample: str | None = None,
) -> Estimate:
    """Return an Estimate with the percentile interval of resampled values computed elsewhere.

    For estimators whose resampling is their own (e.g. a fit redone on every joint bootstrap draw
    of :func:`assocmem.stats.crossing` estimates): the one place besides that function and
    :func:`assocmem.stats.bootstrap_interval` where percentile quantiles are taken.

    Parameters
    ----------
    value : float
        The estimate on the original data.
    draws : array_like, shape (B,)
        The estimate on each resample; NaN draws (a resample without a value) are left out and
        counted in ``used``.
    n : int
        Independent units behind the estimate (>= 2).
    method : str
        How the draws were made, for :attr:`Estimate.method`.
    level : float
        Coverage in (0, 1).
    n_total : int
        Resamples attempted (``used`` = finite draws / ``n_total``); 0: ``len(draws)``.
    resample : str or None
        :func:`resample_id` of the resampled units behind the draws, if they are resampled units
        (:attr:`Estimate.resample`).

    Returns
    -------
    Estimate
        ``value``, the percentile interval and standard deviation of the finite draws.

    Raises
    ------
    ValueError
        If ``n < 2``, fewer than 2 draws are finite, a draw is inf, ``value`` is not finite or
        ``level`` is outside (0, 1).
    """
    v = check_real("value", value)
    units = check_int("n", n, 2)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    bs = as_float_array(draws, "draws").reshape(-1)
    if np.any(np.isinf(bs)):
        raise ValueError("draws must not hold inf (NaN marks a resample without a value)")
    ok = bs[np.isfinite(bs)]
    if ok.size < 2:
        raise ValueError(f"draws must hold at least 2 finite values, got {ok.size}")
    lo, hi = np.quantile(ok, [0.5 - lv / 2, 0.5 + lv / 2])
    total = n_total or bs.size
    if resample is not None and not isinstance(resample, str):
        raise TypeError(f"resample must be a resample_id string or None, got {resample!r}")
    return Estimate(v, float(lo), float(hi), units, method, lv, float(ok.std(ddof=1)),
                    ok.size / total, bs, resample)  # fmt: skip


def monte_carlo(value: float, stderr: float, n: int, *, level: float = 0.95) -> Estimate:
    """Return a Monte Carlo average as an Estimate: ``value +- z stderr``, method "Monte Carlo".

    For the theory's numbers that are averages over sampled fields (``E[C_p]``, ``alpha_c(p)``):
    the normal interval of the mean of ``n`` samples with standard error ``stderr``, ``z`` the
    ``(1 + level) / 2`` normal quantile.

    Raises
    ------
    ValueError
        If ``value`` or ``stderr`` is not finite, ``stderr`` negative, ``n < 0`` or ``level``
        outside (0, 1).

    Examples
    --------
    >>> e = monte_carlo(0.8, 0.01, 2000)
    >>> round(e.low, 4), round(e.high, 4), e.method
    (0.7804, 0.8196, 'Monte Carlo')
    """
    v, se = check_real("value", value), check_real("stderr", stderr, low=0.0)
    half = float(norm.ppf(0.5 + check_real("level", level, low=0.0, strict=True) / 2)) * se
    return Estimate(v, v - half, v + half, n, "Monte Carlo", level, se)


def difference(measured: Estimate, predicted: Estimate | float, *, seed: Seed = 0) -> Estimate:
    """Return ``measured - predicted`` with its 95 % interval: what a verdict against theory reads.

    The book's one rule for a measured-versus-predicted statement is
    ``verdict(difference(measured, predicted), 0)``; a z score stays an effect size for tables.

    - ``predicted`` a number (an exact formula): the measured interval, shifted.
    - Otherwise the percentile interval of draw-by-draw differences: each side's ``draws``
      (posterior or bootstrap draws, independent of the other side's or resampled together:
      two posteriors drawn from one seed are neither, so draw each from its own stream), or,
      for a side without draws (a Monte Carlo prediction), normal draws around its value with
      its ``stderr``, drawn from ``seed``.

    Parameters
    ----------
    measured : Estimate
        The measurement.
    predicted : Estimate or float
        The prediction.
    seed : int or numpy.random.SeedSequence
        Seed of the normal draws of a side without draws.

    Returns
    -------
    Estimate
        NaN (not measured) where either value is NaN.

    Raises
    ------
    TypeError
        If ``measured`` is not an Estimate or ``predicted`` not an Estimate or a real number.
    ValueError
        If a side has neither draws nor a finite ``stderr``.

    Examples
    --------
    >>> m = Estimate(0.62, 0.58, 0.66, 16, "Wilson")
    >>> render(difference(m, 0.5)), verdict(difference(m, 0.5))
    ('0.120 [0.080, 0.160]', <Verdict.ABOVE: 'above'>)
    """
    if not isinstance(measured, Estimate):
        raise TypeError(f"measured must be an Estimate, got {type(measured).__name__}")
    rng = numpy_rng(seed)  # checked even where no side needs draws
    if not isinstance(predicted, Estimate):
        p = check_real("predicted", predicted)
        shifted = None if measured.draws is None else measured.draws - p
        return replace(measured, value=measured.value - p, low=measured.low - p,
                       high=measured.high - p, draws=shifted)  # fmt: skip
    method = f"{measured.method} minus {predicted.method}"
    if math.isnan(measured.value) or math.isnan(predicted.value):
        return Estimate(math.nan, math.nan, math.nan, measured.n, method)
    b = next((e.draws.size for e in (measured, predicted) if e.draws is not None), 4000)

    def draws(e: Estimate, side: str) -> NDArray[np.float64]:
        if e.draws is not None and e.draws.size == b:
            return e.draws
        if not math.isfinite(e.stderr):
            raise ValueError(f"{side} has neither draws nor a standard error: {e}")
        return e.value + e.stderr * rng.standard_normal(b)

    diff = draws(measured, "measured") - draws(predicted, "predicted")
    return from_draws(measured.value - predicted.value, diff, max(measured.n, 2), method)


def resample_id(units: ArrayLike) -> str:
    """Return the identity of a resampling: a digest of which units every draw took.

    Two estimates whose draws carry the same identity were computed on the same resampled units,
    draw by draw, so their draws can be combined (:func:`assocmem.stats.ratio`); estimates resampled
    with another seed, another number of draws or other units get another identity.

    Parameters
    ----------
    units : array_like of int, shape (B, ...)
        The resampled unit indices (or the count of each unit) of each of the B draws.

    Returns
    -------
    str
        32 hex digits (BLAKE2b of the shape and the integer values).

    Raises
    ------
    TypeError
        If ``units`` is not an array of integers (whole numbers as floats are accepted).
    ValueError
        If it is empty.
    """
    arr = np.asarray(units)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu" or arr.ndim < 1:
        raise TypeError(
            f"units must be an array of integer unit indices or counts, got {arr.dtype}"
        )
    if arr.size == 0:
        raise ValueError(f"units must hold at least one draw, got shape {arr.shape}")
    digest = hashlib.blake2b(repr(arr.shape).encode(), digest_size=16)
    digest.update(np.ascontiguousarray(arr, dtype=np.int64).tobytes())
    return digest.hexdigest()
