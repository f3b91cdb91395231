"""Tests of assocmem.permutation: exact and random relabellings (expected values by enumeration)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.permutation import permutation_test


def test_permutation_test_exact_and_random() -> None:
    # all 6 splits of {1, 2, 3, 4} into two pairs; |mean diff| >= 2 for {1,2}|{3,4} and its swap
    diff, pv = permutation_test([1.0, 2.0], [3.0, 4.0])
    assert diff == pytest.approx(-2.0) and pv == pytest.approx(2 / 6)
    _, pv_same = permutation_test([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert pv_same == pytest.approx(1.0)
    # well separated groups of 8: exact minimum 2 / C(16, 8)
    _, pv_sep = permutation_test(np.arange(8.0), np.arange(8.0) + 100, n_perm=20000)
    assert pv_sep == pytest.approx(2 / math.comb(16, 8))
    # random relabellings: (k + 1) / (n + 1) with k = 0 for separated groups
    _, pv_rand = permutation_test(np.arange(12.0), np.arange(12.0) + 100, n_perm=999, seed=1)
    assert pv_rand == pytest.approx(1 / 1000)
    # null data: p-values of random relabellings are roughly uniform, not all tiny
    rng = np.random.default_rng(2)
    pvs = [permutation_test(rng.normal(size=10), rng.normal(size=10), n_perm=300, seed=s)[1]
           for s in range(40)]  # fmt: skip
    assert 0.3 < np.mean(pvs) < 0.7
    with pytest.raises(ValueError, match=r"x and y must be non-empty arrays of finite values"):
        permutation_test([], [1.0])


# --- the Estimate type and the one crossing estimator ----------------------------------------
