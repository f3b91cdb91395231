"""Tests for assocmem.linear.theory.extremes: Gaussian maxima (exact, expansion, sampling)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from assocmem.linear.theory.extremes import (
    EULER_GAMMA,
    UniformSpacings,
    expected_max,
    expected_max_expansion,
    gaussians_from_spacings,
    gumbel_location,
    gumbel_scale,
    sample_max,
    sample_top_order_statistics,
    sample_top_uniform_spacings,
)
from scipy.special import ndtri


def test_expected_max_small_n_closed_forms():
    assert expected_max(1) == pytest.approx(0.0, abs=1e-10)
    assert expected_max(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-10)
    assert expected_max(3) == pytest.approx(1.5 / math.sqrt(math.pi), rel=1e-10)
    # E max of 5 Gaussians (classical table value 1.16296)
    assert expected_max(5) == pytest.approx(1.1629644736, rel=1e-8)


@pytest.mark.parametrize("n", [10, 100, 1000])
def test_expected_max_agrees_with_brute_sampling(n):
    rng = np.random.default_rng(n)
    m = rng.standard_normal((200_000 // n * 10, n)).max(axis=1)
    err = m.std() / math.sqrt(m.size)
    assert abs(m.mean() - expected_max(n)) < 4 * err


def test_sample_max_agrees_with_quadrature_at_large_n():
    n = 10**7
    x = sample_max(n, 100_000, seed=3)
    err = x.std() / math.sqrt(x.size)
    assert abs(x.mean() - expected_max(n)) < 4 * err
    # Gumbel spread: std -> pi b_n / sqrt(6), within 15 % at this n
    assert x.std() == pytest.approx(math.pi * gumbel_scale(n) / math.sqrt(6), rel=0.15)


def test_top_order_statistics_match_sorted_samples():
    n, k = 50, 4
    top = sample_top_order_statistics(n, k, 100_000, seed=1)
    assert top.shape == (100_000, k)
    assert np.all(np.diff(top, axis=1) <= 0)
    ref = -np.sort(-np.random.default_rng(2).standard_normal((100_000, n)), axis=1)[:, :k]
    err = np.sqrt(top.var(0) / 1e5 + ref.var(0) / 1e5)
    assert np.all(np.abs(top.mean(0) - ref.mean(0)) < 4 * err)
    # k = n: the whole sample, whose mean is 0
    full = sample_top_order_statistics(5, 5, 50_000, seed=0)
    assert abs(full.mean()) < 0.01


def test_top_uniform_spacings_are_the_smallest_uniforms():
    n, k, m = 40, 3, 100_000
    sp = sample_top_uniform_spacings(n, k, m, np.random.default_rng(0))
    assert isinstance(sp, UniformSpacings)
    assert sp.partial_sums.shape == (m, k) and sp.remainder.shape == (m,)
    assert np.all(np.diff(sp.partial_sums, axis=1) > 0)
    np.testing.assert_array_equal(sp.total, sp.partial_sums[:, -1] + sp.remainder)
    # the remainder is Gamma(n + 1 - k): mean and variance n + 1 - k
    shape = n + 1 - k
    assert abs(sp.remainder.mean() - shape) < 4 * math.sqrt(shape / m)
    # U_(i) of n uniforms is Beta(i, n + 1 - i): mean i / (n + 1), compared with sorted uniforms
    u = sp.partial_sums / sp.total[:, None]
    i = np.arange(1, k + 1)
    var = i * (n + 1 - i) / ((n + 1) ** 2 * (n + 2))
    assert np.all(np.abs(u.mean(0) - i / (n + 1)) < 4 * np.sqrt(var / m))
    ref = np.sort(np.random.default_rng(1).uniform(size=(m, n)), axis=1)[:, :k]
    assert np.all(np.abs(u.mean(0) - ref.mean(0)) < 4 * np.sqrt(2 * var / m))
    assert np.all(np.abs(u.std(0) - ref.std(0)) < 0.02 * ref.std(0))


def test_top_order_statistics_are_mapped_spacings():
    # sample_top_order_statistics = spacings drawn from the same generator, mapped by -ndtri
    sp = sample_top_uniform_spacings(1000, 5, 200, np.random.default_rng(7))
    top = gaussians_from_spacings(sp.partial_sums, sp.total)
    np.testing.assert_array_equal(top, sample_top_order_statistics(1000, 5, 200, seed=7))
    assert np.all(np.diff(top, axis=1) < 0)
    # upper tail: P(max of n > x) = 1 - Phi(x)^n at the median of the maximum
    n = 10**6
    x_med = float(-ndtri(-math.expm1(math.log(0.5) / n)))
    mx = sample_max(n, 20_000, seed=5)
    assert abs(np.mean(mx > x_med) - 0.5) < 4 * math.sqrt(0.25 / mx.size)


def test_expansion_converges_to_quadrature():
    errs = [
        abs(expected_max_expansion(n) - expected_max(n)) / expected_max(n) for n in (1e4, 1e8, 1e16)
    ]
    assert errs[0] < 0.01 and errs[1] < 0.002 and errs[2] < 0.0005
    assert errs[0] > errs[1] > errs[2]
    # leading order sqrt(2 log n), location + gamma * scale
    n = 1e12
    assert expected_max_expansion(n) == pytest.approx(
        gumbel_location(n) + EULER_GAMMA / math.sqrt(2 * math.log(n)), rel=1e-14
    )


def test_same_seed_same_numbers():
    assert np.array_equal(sample_max(100, 10, seed=7), sample_max(100, 10, seed=7))


@pytest.mark.parametrize("bad", [0, 0.5, -3, float("nan"), float("inf")])
def test_bad_n_raises(bad):
    with pytest.raises(ValueError, match=rf"n must be finite.*, got {re.escape(str(bad))}$"):
        expected_max(bad)


def test_bad_arguments_raise():
    with pytest.raises(TypeError, match=r"n must be a real number, got str"):
        expected_max("10")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"n must be finite and >= 3\.0, got 2"):
        gumbel_location(2)
    with pytest.raises(ValueError, match=r"n must be finite and >= 2\.0, got 1"):
        gumbel_scale(1)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, n=10\], got 11"):
        sample_top_order_statistics(10, 11, 5)
    with pytest.raises(ValueError, match=r"k must be an integer >= 1, got 0"):
        sample_top_order_statistics(10, 0, 5)
    with pytest.raises(ValueError, match=r"n_samples must be an integer >= 1, got 0"):
        sample_top_order_statistics(10, 2, 0)
    with pytest.raises(TypeError, match=r"k must be an integer, got float"):
        sample_top_order_statistics(10, 2.5, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"n must be an integer >= 1, got 0"):
        sample_top_uniform_spacings(0, 1, 5, np.random.default_rng(0))
