"""Tests of assocmem.keys: one valid glue key per value, distinct values distinct keys."""

from __future__ import annotations

import re

import numpy as np
from assocmem.keys import glue_key
from hypothesis import given, settings
from hypothesis import strategies as st

# the values chapters key by: the λ, σ, α, levels and horizons of the pages and their neighbours
_GRID = sorted(
    {float(f"{s}{m}e{e}") for s in "+-" for m in (1, 1.1, 1.5, 2, 2.5, 3, 7.5, 9.5)
     for e in range(-4, 5)}
    | {0.0, 1.075, 0.95, 0.005, 1 / 3, 2 / 3, 0.1 + 0.2}
)  # fmt: skip


def test_glue_key_gives_the_grid_distinct_keys() -> None:
    keys = [glue_key("lam", x) for x in _GRID]
    assert len(set(keys)) == len(_GRID)
    assert glue_key("lam", 1.5) != glue_key("lam", 15)
    assert [glue_key(x) for x in (1.5, 15, 0.15, 150, -1.5, 1e-05)] == [
        "1p5", "15", "0p15", "150", "m1p5", "1em05"]  # fmt: skip
    assert glue_key(15) == glue_key(15.0) == glue_key(np.int64(15)) == "15"
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) for k in keys)  # valid glue names


_numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(),
    st.integers(-(10**6), 10**6).map(lambda i: i / 8),
)


@settings(max_examples=400, derandomize=True, deadline=None, database=None)
@given(_numbers, _numbers)
def test_glue_key_maps_distinct_values_to_distinct_keys(a: float, b: float) -> None:
    assert (glue_key("x", a) == glue_key("x", b)) == (a == b), (a, b)


def test_the_old_key_scheme_fails_the_injectivity_check() -> None:
    """The scheme glue_key replaced (``f"{x:g}"`` without its point) collides: 1.5 and 15.

    (Checked on the same grid as glue_key: the grid can catch a collision.)
    """

    def old(x: float) -> str:
        return f"{x:g}".replace(".", "").replace("-", "m")

    collisions = {(a, b) for a in _GRID for b in _GRID if a < b and old(a) == old(b)}
    assert {(1.5, 15.0), (-15.0, -1.5), (2.5, 25.0), (1.1, 11.0)} <= collisions
