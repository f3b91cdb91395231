"""Tests of assocmem.stats, the estimators of both parts: rate, the one crossing estimator
(crossing, on its kernel _crossings) and ratio, wilson_interval, bootstrap_interval,
mean_interval, the exact bounds of paired differences.

Every expected value is independent of the code under test: scipy, a closed form, normal theory
or an exhaustive enumeration.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.estimate import Estimate
from assocmem.stats import (
    _crossings,
    bootstrap_interval,
    concordant_difference,
    constant_difference,
    crossing,
    mean_interval,
    rate,
    ratio,
    wilson_interval,
)
from scipy.stats import binomtest
from scipy.stats import t as student_t


def _first(x: list[float], y: list[float], level: float = 0.5, direction: str = "down") -> float:
    """The crossing of one sampled curve: crossing's kernel on a single column."""
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)[:, None]
    return float(_crossings(xa, ya, level, direction, "nan")[0])


def test_linear_interpolation_in_the_first_straddling_pair() -> None:
    assert _first([0.5, 0.8, 1.1], [1.0, 0.75, 0.0]) == pytest.approx(0.9, abs=1e-15)
    # a straight line y = 1 - x crosses 1/2 at x = 1/2 whatever the sampling
    assert _first([0.0, 0.3, 0.9], [1.0, 0.7, 0.1]) == pytest.approx(0.5, abs=1e-15)
    assert _first([0, 1, 2], [0.0, 0.2, 1.0], 0.6, direction="up") == pytest.approx(1.5)
    # the first of two crossings is reported
    assert _first([0, 1, 2, 3, 4], [1, 0, 1, 1, 0]) == pytest.approx(0.5)


def test_no_crossing_in_range_is_nan() -> None:
    assert math.isnan(_first([0, 1, 2], [1.0, 0.9, 0.6]))
    assert math.isnan(_first([0, 1], [0.2, 0.1]))  # starts below: a down-crossing unseen
    assert math.isnan(_first([0, 1], [0.2, 0.1], direction="up"))
    # touching the level from above is not a down-crossing; reaching it from below is an up one
    assert math.isnan(_first([0, 1], [1.0, 0.5]))
    assert _first([0, 1], [0.0, 0.5], direction="up") == 1.0
    # the estimator reports the crossing of the mean curve, NaN with its interval
    e = crossing([0, 1, 2], [[1.0, 0.9, 0.6], [1.0, 1.0, 0.8]], n_boot=50)
    assert math.isnan(e.value) and math.isnan(e.low) and e.used == 0.0


def test_crossing_refuses_bad_input() -> None:
    two = [[1.0, 0.0], [1.0, 0.0]]
    with pytest.raises(ValueError, match="direction"):
        crossing([0, 1], two, direction="left")
    with pytest.raises(ValueError, match=r"outcomes must have shape \(n_units, 3\)"):
        crossing([0, 1, 2], two)
    with pytest.raises(ValueError, match="at least 2 grid points"):
        crossing([0.5], [[1.0], [1.0]])
    with pytest.raises(ValueError, match="finite"):
        crossing([0, 1, 2], [[1.0, float("nan"), 0.0], [1.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="level"):
        crossing([0, 1], two, float("nan"))
    with pytest.raises(TypeError, match="level"):
        crossing([0, 1], two, "0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="real"):
        crossing(["a", "b"], two)


def _loop_crossing(x: np.ndarray, y: np.ndarray, direction: str = "down") -> float:
    """The first crossing of 1/2 by a loop over consecutive pairs: the reference of the kernel."""
    for i in range(len(y) - 1):
        y0, y1 = y[i], y[i + 1]
        if (y0 >= 0.5 > y1) if direction == "down" else (y0 < 0.5 <= y1):
            return float(x[i] + (y0 - 0.5) / (y0 - y1) * (x[i + 1] - x[i]))
    return math.nan


def test_bootstrap_draws_are_crossings_of_the_resampled_mean_curves() -> None:
    # the bootstrap draws are the crossings of resampled mean curves, each found by a loop
    rng = np.random.default_rng(3)
    load = np.sort(rng.uniform(0.1, 2.0, 7))
    outcomes = rng.choice([0.0, 1.0], size=(5, 7), p=[0.4, 0.6])
    outcomes[:, 0], outcomes[:, -1] = 1.0, 0.0
    for direction, y in (("down", outcomes), ("up", 1 - outcomes)):
        e = crossing(load, y, direction=direction, n_boot=300, seed=4)
        idx = np.random.default_rng(4).integers(0, 5, size=(300, 5))
        ref = np.array([_loop_crossing(load, y[i].mean(axis=0), direction=direction)
                        for i in idx])  # fmt: skip
        assert np.array_equal(np.isnan(e.draws), np.isnan(ref))
        fin = ~np.isnan(ref)
        assert np.allclose(e.draws[fin], ref[fin], rtol=0, atol=1e-12)
        assert e.value == pytest.approx(_loop_crossing(load, y.mean(0), direction=direction))
        assert (e.low, e.high) == pytest.approx(tuple(np.quantile(ref[fin], [0.025, 0.975])))
        assert e.used == pytest.approx(fin.mean()) and e.n == 5


# --------------------------------------------------------------------------- intervals
@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (517, 1000), (1, 6000)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    lo, hi = wilson_interval(k, n)
    ref = binomtest(k, n).proportion_ci(0.95, "wilson")
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


def test_wilson_refuses_bad_counts() -> None:
    with pytest.raises(ValueError, match=r"counts must satisfy 0 <= k <= n and n >= 1"):
        wilson_interval(5, 4)
    with pytest.raises(ValueError, match=r"level must lie in \(0, 1\), got 1\.0"):
        wilson_interval(1, 10, level=1.0)


def test_bootstrap_mean_interval_matches_normal_theory() -> None:
    x = np.random.default_rng(1).normal(2.0, 3.0, size=4000)
    est, lo, hi = bootstrap_interval(x, n_boot=2000)
    half = 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert est == pytest.approx(x.mean())
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.1)
    assert lo < est < hi


def test_mean_interval_is_the_student_t_interval() -> None:
    x = np.array([1.0, 2.0, 4.0, np.nan])
    m, lo, hi = mean_interval(x)
    half = student_t.ppf(0.975, 2) * np.std([1, 2, 4], ddof=1) / np.sqrt(3)
    assert m == pytest.approx(7 / 3)
    assert (lo, hi) == pytest.approx((7 / 3 - half, 7 / 3 + half))
    m2, lo2, _ = mean_interval(np.array([[1.0, 5.0], [3.0, 5.0]]))
    np.testing.assert_allclose(m2, [2.0, 5.0])
    assert lo2[1] == pytest.approx(5.0)
    with pytest.raises(ValueError, match=r"level must lie in \(0, 1\), got 1\.5"):
        mean_interval(x, level=1.5)


def test_rate_is_the_wilson_interval_of_scipy() -> None:
    e = rate([True] * 37 + [False] * 63)
    ci = binomtest(37, 100).proportion_ci(0.95, "wilson")
    assert e.value == 0.37 and e.n == 100 and e.method == "Wilson"
    assert (e.low, e.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert rate(37, 100) == e
    with pytest.raises(ValueError, match="non-empty"):
        rate([])
    with pytest.raises(ValueError, match="<= n"):
        rate(5, 4)


def test_crossing_start_rule_and_refusals() -> None:
    x = [1.0, 2.0, 3.0]
    up = [[0.6, 0.8, 1.0], [0.7, 0.9, 1.0]]  # already above 1/2 at the first point
    assert math.isnan(crossing(x, up, direction="up").value)
    e = crossing(x, up, direction="up", start="first")
    assert e.value == 1.0 and e.low == 1.0 and e.high == 1.0
    with pytest.raises(ValueError, match="at least 2 units"):
        crossing(x, [[1, 1, 0]])
    with pytest.raises(ValueError, match="finite"):
        crossing(x, [[1, np.nan, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="0/1"):
        crossing(x, [[1, 0.5, 0], [1, 1, 0]], interval="jeffreys")
    with pytest.raises(ValueError, match="shape"):
        crossing(x, [[1, 0], [1, 0]])


def test_jeffreys_draws_are_the_beta_posterior_per_point() -> None:
    # with 1000 of 1000 units stored at the first load and none at the last, the posterior is
    # so narrow that every draw crosses in the same pair, near the data's own crossing
    x = [0.5, 1.0, 1.5]
    y = np.zeros((1000, 3))
    y[:, 0] = 1
    y[:600, 1] = 1
    e = crossing(x, y, interval="jeffreys", n_boot=500)
    assert e.value == pytest.approx(1.0 + (0.6 - 0.5) / 0.6 * 0.5)
    assert e.method == "Jeffreys posterior" and e.n == 1000 and e.used == 1.0
    # sd of the fraction at the middle point ~ sqrt(0.24/1000) = 0.0155, times dx/dy = 0.5/0.6
    assert e.stderr == pytest.approx(0.0155 * 0.5 / 0.6, rel=0.15)


def test_ratio_keeps_the_shared_resampling() -> None:
    # the denominator is the numerator's curve stretched by 2 in x: every draw's ratio is 1/2
    rng = np.random.default_rng(0)
    y = (rng.random((6, 5)) < np.linspace(0.95, 0.05, 5)).astype(float)
    a = crossing(np.arange(5.0), y, seed=7)
    b = crossing(2 * np.arange(5.0), y, seed=7)
    r = ratio(a, b)
    assert r.value == pytest.approx(0.5) and r.low == pytest.approx(0.5)
    assert r.high == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same units"):
        ratio(a, crossing(np.arange(5.0), y[:5], seed=7))
    with pytest.raises(ValueError, match="no draws"):
        ratio(a, Estimate(1.0, 0.9, 1.1, 6, "Wilson"))


def test_intervals_refuse_one_unit() -> None:
    with pytest.raises(ValueError, match="at least 2 samples"):
        bootstrap_interval([0.7])
    with pytest.raises(ValueError, match="finite"):
        bootstrap_interval([0.7, np.nan])
    # issue 29, item 2: on d8f35f4 these gave a NaN or zero-width "95 % interval" in silence
    with pytest.raises(ValueError, match="at least 2 non-NaN"):
        mean_interval([0.7])
    with pytest.raises(ValueError, match="at least 2 non-NaN"):
        mean_interval([0.7, np.nan])
    with pytest.raises(ValueError, match="inf"):
        mean_interval([0.7, 0.2, np.inf])
    lo, hi = mean_interval(np.array([[0.7, 0.1], [np.nan, 0.3]]))[1:]
    assert math.isnan(lo[0]) and math.isnan(hi[0]) and lo[1] < hi[1]  # columns: flagged as NaN
    with pytest.raises(ValueError, match="finite"):
        wilson_interval(np.nan, 10)
    with pytest.raises(ValueError, match="whole"):
        wilson_interval(2.5, 10)


@pytest.mark.parametrize("n", [1, 10, 60, 1000])
def test_concordant_difference_is_the_exact_zero_of_n_bound(n: int) -> None:
    """0 discordant of n: u = 1 - 0.025 ** (1 / n) (Clopper-Pearson at 0 successes), which the
    rule of three approximates as 3.69 / n for large n; symmetric around 0."""
    e = concordant_difference(n)
    u = 1 - 0.025 ** (1 / n)
    assert (e.value, e.low, e.high, e.n) == pytest.approx((0.0, -u, u, n))
    if n >= 1000:
        assert e.high == pytest.approx(-math.log(0.025) / n, rel=0.01)
    assert concordant_difference(n, level=0.99).high > e.high
    with pytest.raises(ValueError, match=r"n must be an integer >= 1, got 0"):
        concordant_difference(0)
    with pytest.raises(ValueError, match=r"level must lie in \(0, 1\), got 1\.0"):
        concordant_difference(n, level=1.0)


def test_a_degenerate_rate_gets_an_interval_that_reflects_n() -> None:
    """Item 1 (stats part): 40 of 40 right is not certain; the interval is Wilson's, by n."""
    for n in (5, 40, 400):
        e = bootstrap_interval(np.ones(n, dtype=bool), n_boot=500)
        lo, hi = wilson_interval(n, n)  # closed form: [n / (n + z^2), 1]
        z2 = 1.959963984540054**2
        assert e.low == pytest.approx(n / (n + z2)) == pytest.approx(float(lo))
        assert e.high == 1.0 and e.value == 1.0 and "Wilson" in e.method
    zero = bootstrap_interval(np.zeros(40, dtype=bool), n_boot=500)
    assert zero.low == 0.0 and zero.high == pytest.approx(z2 / (40 + z2))
    # a non-degenerate rate keeps an interval at least as wide as Wilson's
    x = np.r_[np.ones(38), np.zeros(2)].astype(bool)
    e, (w_lo, w_hi) = bootstrap_interval(x, n_boot=500), wilson_interval(38, 40)
    assert e.low <= w_lo and e.high >= w_hi
    # numbers are not touched, even 0.0 and 1.0 (grid points, not outcomes): the percentile
    # interval of the means
    y = np.array([0.2, 0.5, 0.9, 0.4])
    assert "Wilson" not in bootstrap_interval(y, n_boot=200).method
    ones = bootstrap_interval(np.ones(40), n_boot=200)
    assert (ones.low, ones.high) == (1.0, 1.0) and "Wilson" not in ones.method


def test_constant_difference_against_a_hand_computation() -> None:
    u = 1 - 0.025 ** (1 / 40)  # exact upper end of 0 of 40 at 95 %: 0.0881
    assert u == pytest.approx(float(binomtest(0, 40).proportion_ci(0.95, "exact").high))
    up, down, zero = (constant_difference(40, s) for s in (1, -1, 0))
    assert (up.value, up.low, up.high) == (1.0, pytest.approx(1 - 2 * u), 1.0)
    assert (down.value, down.low, down.high) == (-1.0, -1.0, pytest.approx(2 * u - 1))
    assert zero == concordant_difference(40)
    with pytest.raises(ValueError, match="sign must be -1, 0 or 1"):
        constant_difference(40, 2)


def test_ratio_refuses_estimates_not_resampled_together() -> None:
    """Item 3: seeds 0 and 1 resample other units; the ratio's interval would be invalid."""
    rng = np.random.default_rng(3)
    x = np.linspace(0.5, 1.5, 6)
    rows = (rng.random((8, 6)) < np.linspace(0.95, 0.05, 6)).astype(float)
    a, b = crossing(x, rows, seed=0), crossing(x, rows, seed=1)
    assert a.resample is not None and a.resample != b.resample
    with pytest.raises(ValueError, match="denominator were not resampled together"):
        ratio(a, b)
    same = ratio(a, crossing(x, rows, seed=0))  # identical data, one resampling: exactly 1
    assert (same.value, same.low, same.high) == (1.0, 1.0, 1.0)
    assert same.resample == a.resample
    jeff = crossing(x, rows, interval="jeffreys", n_boot=200)
    with pytest.raises(ValueError, match="numerator carries no resample identity"):
        ratio(jeff, jeff)
    # bootstrap_interval carries the identity of its draws too: same seed, same units
    v = rng.random(12)
    assert bootstrap_interval(v, seed=4).resample == bootstrap_interval(2 * v, seed=4).resample
    assert bootstrap_interval(v, seed=4).resample != bootstrap_interval(v, seed=5).resample


def test_wilson_interval_holds_the_observed_rate() -> None:
    k = np.arange(0, 2001)
    lo, hi = wilson_interval(k, 2000)
    assert np.all(lo <= k / 2000) and np.all(k / 2000 <= hi)
    for n in range(1, 300):  # the rates 0 and 1 exactly, as rate() reports them
        assert rate(n, n).contains(1.0) and rate(0, n).contains(0.0)
