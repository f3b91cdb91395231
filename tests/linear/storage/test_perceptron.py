"""Tests of assocmem.linear.storage.perceptron: exact perceptron decisions and stored fractions."""

from __future__ import annotations

import numpy as np
import pytest
from assocmem.linear.storage.constraints import LPOutcome
from assocmem.linear.storage.perceptron import perceptron_decide, stored_fraction
from assocmem.linear.theory.perceptron import cover_fraction


def test_fewer_patterns_than_weights_are_always_stored() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        xi = rng.standard_normal((5, 8))
        sigma = rng.choice([-1.0, 1.0], size=5)
        dec = perceptron_decide(xi, sigma)
        assert dec.outcome is LPOutcome.STORED and dec.stored
        # the certificate: the returned w has every margin above the bound it reports
        rows = sigma[:, None] * xi / np.linalg.norm(xi, axis=1)[:, None]
        assert np.isclose((rows @ dec.weights).min(), dec.lower)
        assert 0 < dec.lower <= dec.upper + 1e-12 and np.abs(dec.weights).max() <= 1


def test_a_contradictory_pair_is_not_stored() -> None:
    xi = np.array([[1.0, 2.0, 0.5], [-1.0, -2.0, -0.5], [0.3, 0.1, 1.0]])
    dec = perceptron_decide(xi, np.array([1.0, 1.0, -1.0]))  # xi_2 = -xi_1, same label
    assert dec.outcome is LPOutcome.NOT_STORED and not dec.stored
    assert dec.upper <= 1e-10


def test_the_decision_does_not_depend_on_a_pattern_s_scale() -> None:
    rng = np.random.default_rng(1)
    xi, sigma = rng.standard_normal((12, 5)), rng.choice([-1.0, 1.0], size=12)
    a = perceptron_decide(xi, sigma)
    b = perceptron_decide(xi * rng.uniform(0.01, 100, size=(12, 1)), sigma)
    assert a.outcome is b.outcome and np.isclose(a.lower, b.lower, rtol=1e-6, atol=1e-9)


def test_bad_patterns_and_labels_are_refused() -> None:
    xi = np.ones((3, 2))
    with pytest.raises(ValueError, match="labels must be"):
        perceptron_decide(xi, np.array([1.0, 0.0, -1.0]))
    with pytest.raises(ValueError, match="shape"):
        perceptron_decide(xi, np.ones(2))
    with pytest.raises(ValueError, match="zero row"):
        perceptron_decide(np.zeros((3, 2)), np.ones(3))


@pytest.mark.parametrize(("P", "N"), [(4, 4), (8, 4), (12, 4), (20, 10)])
def test_stored_fraction_agrees_with_cover_s_count(P: int, N: int) -> None:
    est = stored_fraction(P, N, 400, seed=P * 100 + N)
    exact = cover_fraction(P, N)
    if exact == 1.0:
        assert est.value == 1.0
    else:
        assert est.low < exact < est.high, (est, exact)


def test_stored_fraction_is_reproducible() -> None:
    assert stored_fraction(9, 4, 50, seed=3) == stored_fraction(9, 4, 50, seed=3)
    with pytest.raises(ValueError, match="P must be an integer >= 1, got 0"):
        stored_fraction(0, 4, 10)
