"""Spectra of exact max-margin memories, OP against DP
(assocmem.linear.measure.max_margin_spectra)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.implicit_bias import l2_max_margin
from assocmem.linear.measure.max_margin_spectra import max_margin_spectra, spectrum_permutation_test
from assocmem.linear.measure.measured_spectra import fourth_moment_ratio
from assocmem.linear.storage.lp import max_margin_linf
from assocmem.streams import child
from scipy.stats import ks_2samp


def test_ks_statistic_is_scipys_two_sample_distance_of_the_pooled_values() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 7)), rng.normal(0.3, 1.2, size=(6, 7))
    ks, pv = spectrum_permutation_test(a, b, n_perm=500, seed=1)
    assert ks == pytest.approx(ks_2samp(a.ravel(), b.ravel()).statistic, abs=1e-12)
    assert 1 / 501 <= pv <= 1


def test_exact_p_value_counts_relabellings_of_whole_matrices() -> None:
    # two matrices per group, every value of a below every value of b: KS = 1, and of the
    # C(4, 2) = 6 relabellings exactly the observed one and its mirror reach it
    a = np.array([[0.1, 0.2], [0.3, 0.4]])
    b = np.array([[1.1, 1.2], [1.3, 1.4]])
    ks, pv = spectrum_permutation_test(a, b)
    assert ks == 1.0 and pv == pytest.approx(2 / 6)
    # identical groups: distance 0, every relabelling at least as extreme
    assert spectrum_permutation_test(a, a.copy()) == (0.0, 1.0)


def test_same_law_is_not_rejected_and_a_shift_is() -> None:
    rng = np.random.default_rng(3)
    same = spectrum_permutation_test(rng.normal(size=(20, 8)), rng.normal(size=(20, 8)),
                                     n_perm=2000, seed=0)  # fmt: skip
    shifted = spectrum_permutation_test(rng.normal(size=(20, 8)), rng.normal(1, 1, (20, 8)),
                                        n_perm=2000, seed=0)  # fmt: skip
    assert same[1] > 0.01
    assert shifted[1] == pytest.approx(1 / 2001)


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match=r"a and b must have the same number of columns, got 3"):
        spectrum_permutation_test(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"a must be a finite 2-D array"):
        spectrum_permutation_test(np.array([[np.nan, 1.0]]), np.ones((1, 2)))
    with pytest.raises(ValueError, match="repeat"):
        max_margin_spectra(10, 6, seeds=[0, 1, 1])


def test_max_margin_spectra_matches_the_solvers_instance_by_instance() -> None:
    res = max_margin_spectra(10, 6, seeds=3, n_perm=100)
    s = res.summary()
    assert s["n_op"] + s["skipped_op"] == 3 and s["n_dp"] + s["skipped_dp"] == 3
    assert s["n_tests"] == 4 and 0 < s["min_p"] <= 1
    inst = sample_problems(10, 6, [0], seed=child(0, 0))[0]  # OP instance 0 under root 0
    t_star, _ = max_margin_linf(inst)
    assert t_star > 0  # instance 0 is storable at this small load, so it is the first OP memory
    W2 = l2_max_margin(inst).weights
    np.testing.assert_allclose(res.weights["l2", "op"][0], W2, atol=1e-9)
    assert res.m4["l2", "op"][0] == pytest.approx(fourth_moment_ratio(W2))
    # the Frobenius memory is the unique SVM optimum: every margin >= 1, some equal to 1
    assert s["m4_l2_op"].n == s["n_op"] and s["m4_linf_dp"].n == s["n_dp"]
    for key in ("ks_l2", "ks_linf"):
        assert 0 <= s[key] <= 1


def test_one_norm_alone_gives_the_same_memories_and_skips_what_cannot_be_stored() -> None:
    both = max_margin_spectra(10, 6, seeds=3, n_perm=100)
    l2 = max_margin_spectra(10, 6, seeds=3, norms=("l2",), n_perm=100)
    np.testing.assert_allclose(l2.weights["l2", "dp"], both.weights["l2", "dp"], atol=1e-9)
    # the tests of one norm draw from that norm's own streams: the same p-values alone
    only_l2 = both.tests[both.tests["norm"] == "l2"].reset_index(drop=True)
    pd.testing.assert_frame_equal(l2.tests.reset_index(drop=True), only_l2)
    s = l2.summary()
    assert s["n_tests"] == 2 and "m4_linf_op" not in s and s["skipped_op"] == 0
    # near capacity (d = 4, p = 8) some instances cannot be stored: the SVM skips exactly
    # those that the exact LP refuses
    kw = {"seeds": range(8), "n_perm": 10}
    by_lp = max_margin_spectra(8, 4, **kw)
    by_svm = max_margin_spectra(8, 4, norms=("l2",), **kw)
    assert by_lp.skipped == by_svm.skipped and sum(by_lp.skipped.values()) > 0
    with pytest.raises(ValueError, match=r"norms must be a non-empty subset of .*, got \('l1',\)"):
        max_margin_spectra(10, 6, seeds=[0, 1], norms=("l1",))
