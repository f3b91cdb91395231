"""Tests of assocmem.linear.theory.replica (q -> 1 cost, RS free entropy),
assocmem.linear.theory.finite_size (finite-size capacity, predicted transition) and the load inverse
of assocmem.linear.theory.load."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _fixtures import value_and_stderr
from assocmem.linear.theory.finite_size import (
    expected_cost_expansion,
    finite_size_capacity,
    finite_size_capacity_estimate,
    finite_size_capacity_expansion,
    predicted_transition,
)
from assocmem.linear.theory.load import pairs_at_load
from assocmem.linear.theory.replica import (
    cost,
    cost_solution,
    expected_cost,
    quenched_fields,
    rs_draws_capacity,
    rs_energetic_term,
    rs_free_entropy,
    rs_saddle,
    sample_cost_solutions,
)
from scipy.optimize import minimize_scalar


def _brute_cost(row: np.ndarray, margin: float) -> float:
    def f(T: float) -> float:
        return max(T - row[0], 0.0) ** 2 + float(np.sum(np.maximum(row[1:] + margin - T, 0.0) ** 2))

    lo, hi = row.min() - 1.0, row.max() + margin + 1.0
    grid = np.linspace(lo, hi, 2001)
    vals = np.maximum(grid - row[0], 0) ** 2 + np.sum(
        np.maximum(row[1:, None] + margin - grid[None, :], 0) ** 2, axis=0
    )
    T0 = grid[np.argmin(vals)]
    res = minimize_scalar(
        f, bounds=(T0 - 0.01, T0 + 0.01), method="bounded", options={"xatol": 1e-12}
    )
    return float(min(res.fun, f(T0)))


@pytest.mark.parametrize("margin", [0.0, 0.7])
@pytest.mark.parametrize("p", [2, 3, 9, 40])
def test_cost_equals_brute_force(p, margin):
    rng = np.random.default_rng(p)
    t = rng.standard_normal((60, p)) * 1.3
    t[:5, 0] -= 3.0  # target far below: many active competitors
    exact = cost(t, margin)
    brute = np.array([_brute_cost(r, margin) for r in t])
    np.testing.assert_allclose(exact, brute, rtol=1e-9, atol=1e-10)


def test_cost_solution_is_consistent():
    rng = np.random.default_rng(0)
    t = rng.standard_normal((500, 30))
    sol = cost_solution(t, 0.2)
    c = t[:, 1:] + 0.2
    # exactly the competitors above T* are active, and the cost is recomputed from T*
    assert np.array_equal(sol.n_active, np.sum(c > sol.level[:, None], axis=1))
    recomputed = (sol.level - t[:, 0]).clip(0) ** 2 + np.sum(
        np.maximum(c - sol.level[:, None], 0) ** 2, axis=1
    )
    np.testing.assert_allclose(sol.cost, recomputed, rtol=1e-12)
    # stationarity: T* - t0 = sum of pushes
    active = sol.n_active > 0
    np.testing.assert_allclose(
        (sol.level - t[:, 0])[active],
        np.sum(np.maximum(c - sol.level[:, None], 0), axis=1)[active],
        rtol=1e-10,
    )


def test_cost_zero_when_target_wins_by_margin():
    t = np.array([[3.0, 1.0, 2.0, 2.4], [0.0, -1.0, -0.5, -0.5]])
    np.testing.assert_array_equal(cost(t, 0.5), [0.0, 0.0])
    assert cost([1.0, 0.0])[0] == 0.0
    # one active competitor: C = (gap + margin)^2 / 2
    assert cost([0.0, 1.0], margin=0.5)[0] == pytest.approx(1.5**2 / 2)
    # p = 2 closed form and a tie of many competitors: all pushed to (t0 + k c) / (k + 1)
    assert cost([0.0, 1.0, 1.0, 1.0])[0] == pytest.approx(0.75)


def test_expected_cost_methods_agree_and_statistical_dimension():
    m1, e1 = value_and_stderr(expected_cost(60, n_samples=20_000, seed=1))
    m2, e2 = value_and_stderr(expected_cost(60, n_samples=20_000, seed=2, method="full"))
    assert abs(m1 - m2) < 4 * math.hypot(e1, e2)
    # E[C] = E[# active] (Stein identity for the squared distance to a convex cone, margin 0)
    sol = cost_solution(np.random.default_rng(3).standard_normal((20_000, 60)))
    diff = sol.cost - sol.n_active
    assert abs(diff.mean()) < 4 * diff.std() / math.sqrt(diff.size)


def test_expected_cost_p2_closed_form():
    # p = 2: C = (t1 - t0)_+^2 / 2, E = E[(sqrt(2) z)_+^2] / 2 = 1/2
    m, e = value_and_stderr(expected_cost(2, n_samples=50_000, seed=0))
    assert abs(m - 0.5) < 4 * e


def test_stderr_shrinks_as_inverse_sqrt_n():
    _, e1 = value_and_stderr(expected_cost(1000, n_samples=2_000, seed=0))
    _, e2 = value_and_stderr(expected_cost(1000, n_samples=32_000, seed=0))
    assert e1 / e2 == pytest.approx(4.0, rel=0.1)


def test_same_seed_same_numbers():
    assert expected_cost(500, n_samples=100, seed=4) == expected_cost(500, n_samples=100, seed=4)
    assert expected_cost(500, n_samples=100, seed=4) != expected_cost(500, n_samples=100, seed=5)


def test_order_statistics_sampler_extension_is_exact():
    # k0 = 2 forces the exact Gamma-Dirichlet extension (several doublings) on most draws
    p, n = 300, 20_000
    ext = sample_cost_solutions(p, n, 0.5, np.random.default_rng(1), k0=2)
    assert np.mean(ext.n_active >= 2) > 0.5
    full = cost_solution(np.random.default_rng(2).standard_normal((n, p)), 0.5)
    for a, b in ((ext.cost, full.cost), (ext.n_active, full.n_active), (ext.level, full.level)):
        err = math.hypot(a.std(), b.std()) / math.sqrt(n)
        assert abs(a.mean() - b.mean()) < 4 * err
    # and the default path agrees with full sampling with a margin
    m1, e1 = value_and_stderr(expected_cost(400, n_samples=4_000, seed=1, margin=3.0))
    m2, e2 = value_and_stderr(
        expected_cost(400, n_samples=4_000, seed=2, margin=3.0, method="full")
    )
    assert abs(m1 - m2) < 4 * math.hypot(e1, e2)


@pytest.mark.parametrize("p", [10**6, 10**8])
def test_expansion_agrees_with_monte_carlo_within_stated_error(p):
    mean, err = value_and_stderr(expected_cost(p, n_samples=8000, seed=p % 97))
    log_p = math.log(p)
    # E[C_p] expansion: neglected terms O((log log p)^2 / log p)
    assert abs(expected_cost_expansion(p) - mean) < math.log(log_p) ** 2 / log_p + 3 * err
    alpha, a_err = value_and_stderr(finite_size_capacity_estimate(p, n_samples=8000, seed=p % 97))
    stated = (math.log(log_p) / log_p) ** 2
    assert abs(finite_size_capacity_expansion(p) - alpha) < stated * alpha + 3 * a_err
    assert abs(finite_size_capacity_expansion(p, order="first") - alpha) < 2 * stated + 3 * a_err


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: expected_cost(1, n_samples=10), r"p must be an integer >= 2 .*, got 1"),
        (lambda: expected_cost(0, n_samples=10), r"p must be an integer >= 2 .*, got 0"),
        (lambda: finite_size_capacity(1), r"p must be an integer >= 2 .*, got 1"),
        (lambda: finite_size_capacity(2.5), r"p must be an integer >= 2 .*, got 2\.5"),
        (lambda: expected_cost(10, n_samples=10, margin=-1.0),
         r"margin must be finite and >= 0\.0, got -1\.0"),
        (lambda: expected_cost(10, n_samples=10, method="grid"),
         r"method must be 'order_statistics' or 'full', got 'grid'"),
        (lambda: cost(np.zeros((3, 1))), r"t must have shape \(n, p\) .*got shape \(3, 1\)"),
        (lambda: cost([0.0, np.nan]), r"t must be finite"),
        (lambda: finite_size_capacity_expansion(2), r"p must be .* >= 3 for the expansion, got 2"),
        (lambda: rs_energetic_term([1.0], 10), r"q must lie in \[0, 1\), got \[1\.0\]"),
        (lambda: rs_free_entropy([0.5], -1.0, 10), r"alpha must be a finite number > 0, got -1\.0"),
        (lambda: rs_saddle(float("nan"), 10, n_samples=4, n_grid=8),
         r"alpha must be a finite number > 0, got nan"),
        (lambda: predicted_transition(1), r"d must be an integer >= 2, got 1"),
        (lambda: pairs_at_load(0.0, 8), r"alpha must be a finite number > 0, got 0\.0"),
        (lambda: pairs_at_load(1.0, 1), r"d must be an integer >= 2, got 1"),
    ],
)  # fmt: skip
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: predicted_transition(16.0), r"d must be an integer, got float"),
        (lambda: rs_free_entropy([0.5], "0.5", 10), r"alpha must be a real number, got str"),
        (lambda: pairs_at_load("1", 8), r"alpha must be a real number, got str"),
        (lambda: pairs_at_load(1.0, 8.0), r"d must be an integer, got float"),
    ],
)
def test_bad_type_raises(call, match):
    with pytest.raises(TypeError, match=match):
        call()


def test_rs_energetic_term_limits():
    p = 50
    g, e = rs_energetic_term([0.0, 0.5, 0.99, 0.9999], p, n_samples=40, seed=0)
    # q = 0: the target beats p - 1 exchangeable fields with probability 1/p
    assert g[0] == pytest.approx(-math.log(p), abs=1e-7)
    assert np.all(np.diff(g) < 0)
    # q -> 1: 2 (1 - q) log Z -> -C(t), on the same quenched draws
    t = np.random.default_rng(0).standard_normal((40, p))
    assert 2 * (1 - 0.9999) * g[-1] == pytest.approx(-cost(t).mean(), rel=0.01)


def test_rs_saddle_behaviour():
    p = 30
    alpha_c = math.log(p) / cost(np.random.default_rng(0).standard_normal((60, p))).mean()
    q_small, phi_small = rs_saddle(0.05 * alpha_c, p, n_samples=60, seed=0, n_grid=24)
    q_mid, phi_mid = rs_saddle(0.5 * alpha_c, p, n_samples=60, seed=0, n_grid=24)
    q_big, phi_big = rs_saddle(0.97 * alpha_c, p, n_samples=60, seed=0, n_grid=24)
    assert 0 <= q_small < q_mid < q_big < 1
    assert q_small < 0.15 and q_big > 0.9
    assert 0 > phi_small > phi_mid > phi_big  # volume shrinks with the load
    # the saddle is a minimum of Phi_RS over q (n -> 0 replica limit)
    qs = np.array([0.3, 0.6, 0.9])
    phis = rs_free_entropy(qs, 0.5 * alpha_c, p, n_samples=60, seed=0)
    assert np.all(phis >= phi_mid - 1e-6)


def test_rs_draws_capacity_is_where_the_saddle_reaches_one():
    # the saddle of the same draws stays below q = 1 just below the draws' own log p / mean C
    # and runs to the grid edge (1 - q = 1e-4) just above it
    p, n, seed = 20, 60, 3
    own = rs_draws_capacity(p, n_samples=n, seed=seed)
    t = quenched_fields(p, n, seed)
    assert own.value == pytest.approx(math.log(p) / cost(t).mean(), rel=1e-12)
    assert own.low < own.value < own.high and own.n == n
    q_below = rs_saddle(0.97 * own.value, p, n_samples=n, seed=seed, n_grid=24)[0]
    q_above = rs_saddle(1.03 * own.value, p, n_samples=n, seed=seed, n_grid=24)[0]
    assert q_below < 0.995 and q_above == pytest.approx(1 - 1e-4, abs=1e-9)
    # and rs_energetic_term sees those draws: 2 (1 - q) G(q) -> -mean C as q -> 1
    g = rs_energetic_term([0.9999], p, n_samples=n, seed=seed)[0][0]
    assert -2e-4 * g == pytest.approx(math.log(p) / own.value, rel=0.01)


def test_rs_draws_capacity_p2_closed_form_and_population():
    # p = 2: C = (t_1 - t_0)_+^2 / 2, E[C_2] = 1/2, alpha_c(2) = 2 log 2
    t = quenched_fields(2, 20_000, 5)
    by_hand = math.log(2) / np.mean(np.maximum(t[:, 1] - t[:, 0], 0) ** 2 / 2)
    big = rs_draws_capacity(2, n_samples=20_000, seed=5)
    assert big.value == pytest.approx(by_hand, rel=1e-12)
    assert big.contains(2 * math.log(2)) and big.width < 0.1
    # p = 100: the interval of 200 draws is wide; of 20000 draws it meets the population value
    pop, pop_err = value_and_stderr(finite_size_capacity_estimate(100, seed=1))
    many = rs_draws_capacity(100, n_samples=20_000, seed=2)
    assert many.low - 3 * pop_err < pop < many.high + 3 * pop_err
    few = rs_draws_capacity(100, n_samples=200, seed=0)
    assert few.width > 5 * many.width


def test_rs_draws_capacity_refuses_zero_cost():
    # two draws at p = 2 whose target beats its competitor: no finite capacity
    seed = next(s for s in range(1000) if np.all(np.diff(quenched_fields(2, 2, s)[:, ::-1]) > 0))
    with pytest.raises(ValueError, match="zero cost"):
        rs_draws_capacity(2, n_samples=2, seed=seed)
