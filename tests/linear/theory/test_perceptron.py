"""Tests of assocmem.linear.theory.perceptron: Cover's counting function."""

from __future__ import annotations

from math import comb

import pytest
from assocmem.linear.theory.finite_size import gardner_capacity
from assocmem.linear.theory.perceptron import cover_fraction


def test_small_counts_by_hand() -> None:
    assert cover_fraction(3, 2) == 6 / 8  # three points in the plane: 6 of 8 labellings
    assert cover_fraction(1, 1) == 1.0 and cover_fraction(2, 1) == 0.5
    assert cover_fraction(4, 2) == 2 * (comb(3, 0) + comb(3, 1)) / 16


@pytest.mark.parametrize("N", [1, 2, 5, 20, 60])
def test_half_at_two_n_and_all_below_n(N: int) -> None:
    assert cover_fraction(2 * N, N) == 0.5
    assert all(cover_fraction(P, N) == 1.0 for P in range(1, N + 1))
    assert cover_fraction(N + 1, N) == 1 - 2.0**-N  # one labelling in 2^N is lost


def test_cover_s_recursion() -> None:
    # C(P + 1, N) = C(P, N) + C(P, N - 1), in fractions: f(P+1, N) = (f(P, N) + f(P, N-1)) / 2
    for P in range(1, 30):
        for N in range(2, 12):
            assert cover_fraction(P + 1, N) == pytest.approx(
                (cover_fraction(P, N) + cover_fraction(P, N - 1)) / 2, rel=1e-14
            )


def test_the_fraction_sharpens_into_gardner_s_step_at_two() -> None:
    assert gardner_capacity(0.0) == pytest.approx(2.0)
    assert cover_fraction(180, 100) > 0.8 > 0.2 > cover_fraction(220, 100)
    assert cover_fraction(1800, 1000) > 0.99 and cover_fraction(2200, 1000) < 0.01


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="P must be an integer >= 1, got 0"):
        cover_fraction(0, 3)
    with pytest.raises(TypeError, match="P must be an integer, got float"):
        cover_fraction(3.0, 2)
