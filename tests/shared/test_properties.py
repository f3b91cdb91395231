"""Property-based input checks of :mod:`assocmem.stats`, :mod:`assocmem.estimate` and
:mod:`assocmem.permutation` (issue 29, item 3; harness: _properties).

Each case is a valid call; hypothesis replaces one domain argument at a time by arbitrary values
and the function must return a finite result or raise ValueError/TypeError (tests/_properties.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _properties import (
    KINDS,
    PROPERTY_SETTINGS,
    Case,
    Kind,
    _junk,
    property_tests,
)
from assocmem import estimate, permutation, stats
from hypothesis import given
from hypothesis import strategies as st

_OUTCOMES = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0]], float)
_X = np.array([0.5, 0.8, 1.1, 1.4])

CASES: list[Case] = [
    Case(stats.rate, lambda: (([1, 0, 1, 1],), {}), {"level": "open_unit"}),
    Case(stats.rate, lambda: ((3, 10), {}), {"successes": "count0", "n": "size"}),
    Case(
        stats.crossing,
        lambda: ((_X.copy(), _OUTCOMES.copy()), {"n_boot": 200}),
        {
            "x": "array",
            "outcomes": "array",
            "level": "real",
            "ci": "open_unit",
            "n_boot": "size",
            "seed": "count0",
        },
        nan_ok="NaN value and interval when the mean curve does not cross inside the grid",
    ),  # fmt: skip
    Case(
        stats.wilson_interval,
        lambda: ((np.array([0, 3, 10]), np.array([10, 10, 10])), {}),
        {"k": "array", "n": "array", "level": "open_unit"},
        check=lambda out: (out[0].shape == (3,)) or pytest.fail("shape"),
    ),
    Case(
        stats.bootstrap_interval,
        lambda: ((np.array([0.2, 0.5, 0.9, 0.4]),), {"n_boot": 200}),
        {"values": "array", "level": "open_unit", "n_boot": "size", "seed": "count0"},
    ),
    Case(stats.concordant_difference, lambda: ((60,), {}), {"n": "size", "level": "open_unit"}),
    Case(
        stats.mean_interval,
        lambda: ((np.array([0.2, 0.5, 0.9, 0.4]),), {}),
        {"values": "array_missing", "level": "open_unit"},
    ),
    Case(
        permutation.permutation_test,
        lambda: ((np.array([1.0, 2.0, 3.5]), np.array([2.0, 4.0, 5.0, 6.0])), {"n_perm": 100}),
        {"x": "array", "y": "array", "n_perm": "size", "seed": "count0"},
    ),
    Case(
        estimate.verdict, lambda: ((stats.rate(3, 10),), {"reference": 0.1}), {"reference": "real"}
    ),
    Case(estimate.render, lambda: ((stats.rate(3, 10),), {})),
    Case(
        stats.t_interval,
        lambda: ((np.array([0.5, 0.6]), np.array([0.1, 0.2]), np.array([4, 5])), {}),
        {"level": "open_unit"},
    ),
    Case(
        permutation.permutation_pvalue,
        lambda: ((np.array([1.0, 2.0, 3.5, 2.0, 4.0]), 2, lambda u, lab: lab @ u), {"n_perm": 5}),
        {"n_x": "size", "n_perm": "size", "seed": "count0"},
    ),
    Case(
        estimate.from_draws,
        lambda: ((0.5, np.array([0.4, 0.45, 0.5, 0.6, 0.55]), 4, "bootstrap"), {}),
        {"value": "real", "draws": "array_missing", "n": "p", "level": "open_unit"},
    ),
    Case(stats.rate, lambda: ((np.array([1, 0, 1, 1]),), {}), {"successes": "outcomes"}),
    Case(
        stats.constant_difference,
        lambda: ((40, 1), {}),
        {"n": "size", "sign": "sign", "level": "open_unit"},
        check=lambda e: (e.value == 1.0 and e.high == 1.0) or pytest.fail("bound"),
    ),
    Case(
        estimate.monte_carlo,
        lambda: ((0.8, 0.01, 2000), {}),
        {"value": "real", "stderr": "nonnegative", "n": "count0", "level": "open_unit"},
    ),
    Case(
        estimate.difference,
        lambda: ((stats.rate(3, 10), 0.2), {}),
        {"predicted": "real", "seed": "count0"},
    ),
    Case(
        estimate.resample_id,
        lambda: ((np.array([[0, 1, 1], [2, 0, 1]]),), {}),
        {"units": "array"},
        check=lambda r: (isinstance(r, str) and len(r) == 32) or pytest.fail("digest"),
    ),
]

# a difference's sign: -1, 0 or +1 (constant_difference)
KINDS.setdefault(
    "sign",
    Kind(
        st.one_of(st.integers(-3, 3), st.floats(-1, 1), st.booleans(), _junk),
        lambda v: isinstance(v, bool) or v not in (-1, 0, 1),
    ),
)

EXEMPT: dict[str, str] = {
    "assocmem.estimate.Estimate": "a record that checks its fields (test_estimate_fields_hold_"
    "their_order below); its producers are the cases above",
    "assocmem.estimate.Verdict": "an enum (above / below / not resolved), made by verdict",
    "assocmem.estimate.Result": "a typing protocol (no call; test_capacity_comparison.py and "
    "test_llm_results.py check the result types that follow it)",
    "assocmem.stats.ratio": "takes two Estimates with bootstrap draws (tested in test_stats.py)",
}


(
    test_valid_call_gives_a_finite_result,
    test_any_value_gives_a_finite_result_or_a_clear_error,
    test_every_public_function_is_covered,
) = property_tests(CASES, EXEMPT, ["assocmem.stats", "assocmem.estimate", "assocmem.permutation"])


_NUMBER = st.one_of(st.floats(-2, 2), st.sampled_from([math.nan, 0.0, 1.0]))


@PROPERTY_SETTINGS
@given(
    value=_NUMBER,
    low=_NUMBER,
    high=_NUMBER,
    n=st.one_of(st.integers(-3, 50), st.sampled_from([np.int64(4), 2.0, True, "3"])),
    method=st.sampled_from(["Wilson", "Student t", "percentile bootstrap over seeds"]),
)
def test_estimate_fields_hold_their_order(
    value: float, low: float, high: float, n: Any, method: str
) -> None:
    """An Estimate exists only with low <= high, n >= 0 an integer and, unless its interval is
    a percentile interval of resamples, low <= value <= high (issue 42, item 4)."""
    try:
        e = estimate.Estimate(value, low, high, n, method)
    except (TypeError, ValueError):
        return
    assert isinstance(e.n, int) and not isinstance(e.n, bool) and e.n >= 0
    assert not (e.low > e.high)
    if "bootstrap" not in method and not math.isnan(e.value + e.low + e.high):
        tol = 1e-12 * max(abs(e.value), abs(e.low), abs(e.high))
        assert e.low - tol <= e.value <= e.high + tol
