"""Tests of assocmem.linear.theory.load."""

from __future__ import annotations

import math

import pytest
from assocmem.linear.theory.load import (
    dimension_for_load,
    load_for_pairs,
    pairs_at_load,
    pairs_for_load,
)


@pytest.mark.parametrize("d", [2, 8, 64])
def test_pairs_for_load_inverts_load_for_pairs(d: int) -> None:
    for p in range(2, 3000):
        assert pairs_for_load(load_for_pairs(p, d), d) == p


def test_dimension_for_load_inverts_the_load_in_d() -> None:
    for p, d in [(2, 2), (109, 32), (5000, 300)]:
        assert dimension_for_load(load_for_pairs(p, d), float(p)) == pytest.approx(d, rel=1e-12)
    # real p far beyond any integer sweep (the Hebbian threshold's quadrature range)
    assert dimension_for_load(0.125, 1e30) == pytest.approx(math.sqrt(8e30 * math.log(1e30)))
    with pytest.raises(ValueError, match="p must be > 1"):
        dimension_for_load(0.5, 1.0)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        dimension_for_load(0.0, 10.0)
    with pytest.raises(ValueError, match="no finite dimension"):
        dimension_for_load(5e-324, 1e308)


def test_pairs_for_load_known_values() -> None:
    # p log p = alpha d^2: 109 log 109 = 511.4 ~ 0.5 * 32^2 = 512
    assert pairs_for_load(0.5, 32) == 109
    assert load_for_pairs(109, 32) == pytest.approx(109 * math.log(109) / 1024)
    # tiny loads clip to 2
    assert pairs_for_load(1e-6, 4) == 2
    for alpha, d in [(0.3, 20), (1.7, 48), (0.5, 128)]:
        p = pairs_for_load(alpha, d)
        x = alpha * d * d
        # nearest integer: |p log p - x| at most half the slope of p log p
        assert abs(p * math.log(p) - x) <= 0.5 * (math.log(p) + 1) + 1e-9


def test_pairs_at_load_inverts_the_load():
    for d in (2, 12, 64, 1000):
        for p in (2, 3, 17, 350, 10**5):
            alpha = load_for_pairs(p, d)
            assert pairs_at_load(alpha, d) == pytest.approx(p, rel=1e-12)
            assert pairs_for_load(alpha, d) == p
    # real-valued between integers: p* log p* = alpha d^2 holds for every alpha
    for alpha in (1e-3, 0.37, 1.0, 25.0):
        p_star = pairs_at_load(alpha, 40)
        assert p_star > 1
        assert p_star * math.log(p_star) == pytest.approx(alpha * 1600, rel=1e-12)
        assert abs(pairs_for_load(alpha, 40) - max(p_star, 2)) <= 0.5
