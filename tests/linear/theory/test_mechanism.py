"""Tests of the RS optimal storage mechanism (assocmem.linear.theory.mechanism)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _fixtures import value_and_stderr
from assocmem.linear.theory.mechanism import margin_for_load, optimal_mechanism
from assocmem.linear.theory.replica import cost_solution, expected_cost


def test_small_p_matches_full_solution() -> None:
    # p - 1 = 5 < 64 competitors: all are drawn; check against cost_solution on the same fields
    m = optimal_mechanism(6, n_samples=500, seed=1)
    assert np.all(m["level"] >= m["target_field"] - 1e-12)
    pushed = m["n_active"] > 0
    np.testing.assert_allclose(m["max_competitor"][pushed], m["level"][pushed])
    assert np.all(m["max_competitor"][~pushed] <= m["level"][~pushed])
    assert np.all(m["raw_max"] >= m["max_competitor"])


def test_statistical_dimension_identity_and_expected_cost() -> None:
    m = optimal_mechanism(1000, n_samples=40_000, seed=2)
    c, k = m["cost"], m["n_active"]
    se = math.sqrt(c.var() / c.size + k.var() / k.size)
    assert abs(c.mean() - k.mean()) < 4 * se  # E[C] = E[#active]
    ref, ref_se = value_and_stderr(expected_cost(1000, n_samples=40_000, seed=3))
    assert abs(c.mean() - ref) < 4 * math.hypot(ref_se, math.sqrt(c.var() / c.size))


def test_level_below_raw_max_and_narrowing_with_p() -> None:
    stds, gaps = [], []
    for p in (100, 10_000, 10**6):
        m = optimal_mechanism(p, n_samples=8000, seed=0)
        a = math.sqrt(2 * math.log(p))
        assert m["raw_max"].mean() < a  # Gumbel location a_p < sqrt(2 log p)
        assert m["level"].mean() < m["raw_max"].mean()  # competitors are pushed down to T*
        assert 0.4 * a < m["level"].mean() < a
        stds.append(m["level"].std())
        gaps.append(m["raw_max"].mean() - m["level"].mean())
    assert stds[0] > stds[1] > stds[2] and stds[2] < 0.12  # O(1/sqrt(log p)) spread
    assert np.all(np.array(gaps) > 0)


def test_margin_shifts_push_level() -> None:
    m0 = optimal_mechanism(500, n_samples=4000, seed=5)
    m1 = optimal_mechanism(500, margin=1.0, n_samples=4000, seed=5)
    assert m1["level"].mean() > m0["level"].mean()
    assert m1["n_active"].mean() > m0["n_active"].mean()
    gap = m1["level"] - m1["max_competitor"]
    assert np.all(gap >= 1.0 - 1e-9)


def test_margin_for_load() -> None:
    p = 500
    assert margin_for_load(5.0, p, n_samples=2000) == 0.0  # above capacity
    k1 = margin_for_load(0.3, p, n_samples=4000)
    k2 = margin_for_load(0.5, p, n_samples=4000)
    assert k1 > k2 > 0
    c, _ = value_and_stderr(expected_cost(p, n_samples=4000, seed=0, margin=k2))
    assert c == pytest.approx(math.log(p) / 0.5, rel=0.01)
    sol = cost_solution(np.array([0.0, 1.0, -1.0]))
    assert float(sol.level[0]) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: optimal_mechanism(1), ValueError, r"p must be an integer >= 2 .*, got 1"),
        (lambda: optimal_mechanism(100, margin=-0.1), ValueError,
         r"margin must be finite and >= 0\.0, got -0\.1"),
        (lambda: optimal_mechanism(100, n_samples=1), ValueError,
         r"n_samples must be an integer >= 2, got 1"),
        (lambda: margin_for_load(0.0, 100), ValueError,
         r"alpha must be a finite number > 0, got 0\.0"),
        (lambda: margin_for_load(float("inf"), 100), ValueError,
         r"alpha must be a finite number > 0, got inf"),
        (lambda: margin_for_load("0.5", 100), TypeError, r"alpha must be a real number, got str"),
        (lambda: margin_for_load(0.5, 1), ValueError, r"p must be an integer >= 2 .*, got 1"),
    ],
)  # fmt: skip
def test_bad_inputs_raise(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()
