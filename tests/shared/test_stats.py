"""Tests of assocmem.stats, the evidence helpers of both parts: first_crossing (the one
transition-point helper), wilson_interval, bootstrap_interval, mean_interval, permutation_test.

Every expected value is independent of the code under test: scipy, a closed form, normal theory
or an exhaustive enumeration.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.stats import (
    bootstrap_interval,
    first_crossing,
    mean_interval,
    permutation_test,
    wilson_interval,
)
from scipy.stats import binomtest
from scipy.stats import t as student_t


def test_linear_interpolation_in_the_first_straddling_pair() -> None:
    assert first_crossing([0.5, 0.8, 1.1], [1.0, 0.75, 0.0]) == pytest.approx(0.9, abs=1e-15)
    # a straight line y = 1 - x crosses 1/2 at x = 1/2 whatever the sampling
    assert first_crossing([0.0, 0.3, 0.9], [1.0, 0.7, 0.1]) == pytest.approx(0.5, abs=1e-15)
    assert first_crossing([0, 1, 2], [0.0, 0.2, 1.0], 0.6, direction="up") == pytest.approx(1.5)
    # the first of two crossings is reported
    assert first_crossing([0, 1, 2, 3, 4], [1, 0, 1, 1, 0]) == pytest.approx(0.5)


def test_no_crossing_in_range_is_nan() -> None:
    assert math.isnan(first_crossing([0, 1, 2], [1.0, 0.9, 0.6]))
    assert math.isnan(first_crossing([0, 1], [0.2, 0.1]))  # starts below: a down-crossing unseen
    assert math.isnan(first_crossing([0, 1], [0.2, 0.1], direction="up"))
    assert math.isnan(first_crossing([0.5], [1.0]))
    # touching the level from above is not a down-crossing; reaching it from below is an up one
    assert math.isnan(first_crossing([0, 1], [1.0, 0.5]))
    assert first_crossing([0, 1], [0.0, 0.5], direction="up") == 1.0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="direction"):
        first_crossing([0, 1], [1, 0], direction="left")
    with pytest.raises(ValueError, match="1-d"):
        first_crossing([0, 1, 2], [1, 0])


def test_bad_level_and_non_finite_values() -> None:
    with pytest.raises(ValueError, match="finite"):
        first_crossing([0, 1, 2], [1.0, float("nan"), 0.0])
    with pytest.raises(ValueError, match="level"):
        first_crossing([0, 1], [1, 0], float("nan"))
    with pytest.raises(TypeError, match="level"):
        first_crossing([0, 1], [1, 0], "0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="real"):
        first_crossing(["a", "b"], [1, 0])


# --------------------------------------------------------------------------- intervals
@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (517, 1000), (1, 6000)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    lo, hi = wilson_interval(k, n)
    ref = binomtest(k, n).proportion_ci(0.95, "wilson")
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


def test_wilson_refuses_bad_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
    with pytest.raises(ValueError):
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
    with pytest.raises(ValueError):
        mean_interval(x, level=1.5)


# --------------------------------------------------------------------------- tests
def test_permutation_test_exact_and_random() -> None:
    # all 6 splits of {1, 2, 3, 4} into two pairs; |mean diff| >= 2 for {1,2}|{3,4} and its swap
    diff, pv = permutation_test([1.0, 2.0], [3.0, 4.0])
    assert diff == pytest.approx(-2.0) and pv == pytest.approx(2 / 6)
    _, pv_same = permutation_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert pv_same == pytest.approx(1.0)
    # well separated groups of 8: exact minimum 2 / C(16, 8)
    _, pv_sep = permutation_test(np.arange(8.0), np.arange(8.0) + 100, n_perm=20000)
    assert pv_sep == pytest.approx(2 / math.comb(16, 8))
    # random relabellings: (k + 1) / (n + 1) with k = 0 for separated groups
    _, pv_rand = permutation_test(np.arange(12.0), np.arange(12.0) + 100, n_perm=999, seed=1)
    assert pv_rand == pytest.approx(1 / 1000)
    # null data: p-values of random relabellings are roughly uniform, not all tiny
    rng = np.random.default_rng(2)
    pvs = [permutation_test(rng.normal(size=10), rng.normal(size=10), n_perm=300, seed=s)[1]
           for s in range(40)]  # fmt: skip
    assert 0.3 < np.mean(pvs) < 0.7
    with pytest.raises(ValueError):
        permutation_test([], [1.0])
