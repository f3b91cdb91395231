"""Tests of assocmem.linear.theory.finite_size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _fixtures import value_and_stderr
from assocmem.linear.theory.finite_size import (
    finite_size_capacity,
    finite_size_capacity_estimate,
    finite_size_capacity_expansion,
    finite_size_table,
    gardner_capacity,
    predicted_transition,
    shortcut_capacity,
)
from assocmem.linear.theory.load import pairs_at_load, pairs_for_load


def test_finite_size_capacity_decreases_towards_half():
    ps = [10, 100, 10**4, 10**6, 10**8]
    est = [value_and_stderr(finite_size_capacity_estimate(p, seed=i)) for i, p in enumerate(ps)]
    alphas = [a for a, _ in est]
    assert all(a > 0.5 for a in alphas)
    for (a1, e1), (a2, e2) in zip(est, est[1:], strict=False):
        assert a1 - a2 > 2 * math.hypot(e1, e2)
    # default settings give <= 0.5 % relative standard error (adaptive sample size)
    assert all(e / a < 0.0051 for a, e in est)
    assert finite_size_capacity(10**6) == pytest.approx(est[3][0], rel=0.03)


def test_expansion_limits():
    assert finite_size_capacity_expansion(1e300) == pytest.approx(0.5, abs=0.01)
    assert float(finite_size_capacity_expansion(1e300, order="first")) == pytest.approx(
        0.5, abs=0.01
    )


@pytest.mark.parametrize("d", [12, 32])
def test_predicted_transition_is_a_fixed_point(d):
    pred = predicted_transition(d, seed=3)
    (alpha, err), p = value_and_stderr(pred.alpha), pred.p
    # p is the number of associations at load alpha ...
    assert pairs_for_load(alpha, d) == p
    assert abs(pairs_at_load(alpha, d) - p) <= 0.5
    # ... and alpha is the finite-size capacity at that p: exactly the estimate with the same
    # seed (the iteration stopped at a fixed point, not one step before it) ...
    assert finite_size_capacity_estimate(p, seed=3) == pred.alpha
    assert pred.alpha.method == "Monte Carlo" and pred.alpha.contains(alpha)
    # ... and, within the stated error, an independent estimate with other draws
    other, other_err = value_and_stderr(finite_size_capacity_estimate(p, seed=1234))
    assert abs(alpha - other) < 4 * math.hypot(err, other_err)
    assert 0 < err < 0.0051 * alpha  # default rel_error = 0.5 %
    # the finite-size capacity at these small d lies above its large-d limit 1/2
    assert 0.5 < alpha < 1.5


def test_predicted_transition_decreases_with_d():
    (a12, e12), p12 = value_and_stderr(predicted_transition(12).alpha), predicted_transition(12).p
    (a64, e64), p64 = value_and_stderr(predicted_transition(64).alpha), predicted_transition(64).p
    assert p64 > p12
    assert a12 - a64 > 4 * math.hypot(e12, e64)


def test_gardner_and_shortcut():
    assert float(gardner_capacity(0.0)) == pytest.approx(2.0, rel=1e-12)  # Gardner's alpha_c = 2
    k = 6.0
    assert float(gardner_capacity(k)) == pytest.approx(1 / (k**2 + 1), rel=1e-6)
    s = shortcut_capacity([1e2, 1e6, 1e30])
    assert np.all(np.diff(s) < 0) and s[-1] == pytest.approx(0.5, abs=0.02)
    with pytest.raises(ValueError, match=r"p must be finite and >= 2, got 1\.0"):
        shortcut_capacity(1.0)


def test_finite_size_table_columns():
    tab = finite_size_table([100, 10**6], n_samples=2000)
    assert tab["p"].tolist() == [100.0, 1e6]
    assert np.all(tab["alpha_c(p)"] > 0.5) and tab["alpha_c(p)"][0] > tab["alpha_c(p)"][1]
    np.testing.assert_allclose(tab["alpha_c(p)"], np.log(tab["p"]) / tab["E[C_p]"], rtol=0.03)
