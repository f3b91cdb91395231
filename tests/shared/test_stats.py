"""Tests of assocmem.stats.first_crossing (the one transition-point helper of both parts)."""

from __future__ import annotations

import math

import pytest
from assocmem.stats import first_crossing


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
