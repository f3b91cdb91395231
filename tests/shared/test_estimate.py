"""Tests of assocmem.estimate: the Estimate type, the one verdict rule, the one renderer, and
estimates made from resampled draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.estimate import Estimate, Verdict, from_draws, render, verdict


def test_estimate_unpacks_formats_and_glues_as_the_triples_it_replaces() -> None:
    e = Estimate(0.5, 0.4, 0.6, 12, "Wilson")
    value, low, high = e
    assert (value, low, high) == (0.5, 0.4, 0.6)
    assert f"{e:.2f}" == "0.50" and float(e) == 0.5
    assert e.glue_values() == {"": 0.5, "_lo": 0.4, "_hi": 0.6, "_n": 12}
    assert e.contains(0.45) and not e.contains(0.61)
    assert "n = 12" in str(e) and "Wilson" in str(e)


def test_from_draws_is_the_percentile_interval_of_the_finite_draws() -> None:
    draws = np.r_[np.arange(1.0, 101.0), np.nan, np.nan]
    e = from_draws(50.0, draws, 10, "test")
    assert (e.low, e.high) == pytest.approx(
        tuple(np.quantile(np.arange(1.0, 101.0), [0.025, 0.975]))
    )
    assert e.used == pytest.approx(100 / 102) and e.n == 10
    with pytest.raises(ValueError, match="n must"):
        from_draws(1.0, [1.0, 2.0], 1, "test")
    with pytest.raises(ValueError, match="2 finite"):
        from_draws(1.0, [1.0, np.nan], 5, "test")


def test_verdict_is_one_strict_rule_and_render_the_one_renderer() -> None:
    on_zero = Estimate(0.125, 0.0, 0.281, 32, "bootstrap")
    assert verdict(on_zero) is Verdict.UNRESOLVED  # an end on the reference resolves nothing
    assert verdict(on_zero, -1e-12) is Verdict.ABOVE
    assert verdict(Estimate(1.53, 1.0, 4.01, 32, "bootstrap"), 1.0) is Verdict.UNRESOLVED
    assert verdict(Estimate(-0.2, -0.3, -0.1, 9, "t"), 0.0) is Verdict.BELOW
    assert verdict(Estimate(math.nan, math.nan, math.nan, 9, "t")) is Verdict.UNRESOLVED
    assert str(Verdict.UNRESOLVED) == "not resolved" and Verdict.ABOVE == "above"
    with pytest.raises(TypeError, match="estimate must be an Estimate, got tuple"):
        verdict((0.1, 0.0, 0.2))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reference"):
        verdict(on_zero, math.nan)
    assert render(on_zero, "+.3f") == "+0.125 [+0.000, +0.281]"
    assert render(on_zero, ".2f", n=True) == "0.12 [0.00, 0.28] (n = 32)"
    assert render(on_zero, method=True) == "0.125 [0.000, 0.281] (bootstrap)"
    assert render(Estimate(0.5, math.nan, math.nan, 1, "t")) == "0.500 [–, –]"
    assert render(Estimate(math.nan, math.nan, math.nan, 1, "t")) == "not measured"
    assert str(on_zero) == "0.125 [0, 0.281] (n = 32, bootstrap)"
    with pytest.raises(ValueError, match="spec must be a format spec for a float, got 'q'"):
        render(on_zero, "q")
    with pytest.raises(TypeError, match="spec must be a format spec string"):
        render(on_zero, 3)  # type: ignore[arg-type]


# --- issue 42: no silent wrong answers (items 1, 3, 4) ------------------------------------------


def test_estimate_refuses_disordered_fields() -> None:
    """Item 4: an interval with low > high, a value outside it or a negative n is no estimate."""
    with pytest.raises(ValueError, match="low must be <= high"):
        Estimate(0.5, 0.6, 0.4, 10, "x")
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        Estimate(0.5, 0.4, 0.6, -3, "x")
    with pytest.raises(ValueError, match="value must lie in \\[low, high\\]"):
        Estimate(0.7, 0.4, 0.6, 10, "Wilson")
    with pytest.raises(TypeError, match="n must be an integer"):
        Estimate(0.5, 0.4, 0.6, 10.0, "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="value must be a real number"):
        Estimate("0.5", 0.4, 0.6, 10, "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level must lie in"):
        Estimate(0.5, 0.4, 0.6, 10, "x", level=95)
    # documented exceptions: NaN ends (no interval) and percentile intervals of resamples,
    # which need not hold the full-sample value (here a crossing made on the mean curve)
    assert Estimate(0.5, math.nan, math.nan, 1, "t").n == 1
    assert Estimate(0.7, 0.4, 0.6, 10, "percentile bootstrap over seeds").value == 0.7
    assert Estimate(0.7, 0.4, 0.6, 10, "x", draws=np.array([0.4, 0.6])).value == 0.7
    e = Estimate(np.float64(0.5), np.float64(0.4), np.float64(0.6), np.int64(3), "Student t")
    assert type(e.n) is int and type(e.value) is float


def test_not_testable_is_a_verdict_word_the_rule_never_returns() -> None:
    assert Verdict.NOT_TESTABLE == "not testable" and str(Verdict.NOT_TESTABLE) == "not testable"
    for e in (Estimate(1.0, 0.5, 2.0, 4, "t"), Estimate(math.nan, math.nan, math.nan, 4, "t")):
        assert verdict(e) is not Verdict.NOT_TESTABLE
