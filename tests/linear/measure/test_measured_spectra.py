"""Tests of assocmem.linear.measure.measured_spectra."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from assocmem.linear.instances.problems import all_recalled, normalised_margins
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.measured_spectra import (
    causes_summary,
    compare_fourth_moments,
    singular_values,
    spectrum_fit_summary,
    spectrum_fits,
    spectrum_ks_distance,
    spectrum_summary,
    stored_spectra,
)
from assocmem.linear.measure.sweeps import capacity_sweep
from assocmem.linear.measure.tables import (
    success_by_load,
)
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.load import pairs_for_load


def test_spectrum_summary_fields() -> None:
    b = sample_problems(40, 16, 2)
    W = hebbian_memory(b)
    row = spectrum_summary("Hebbian", W, b, 16)
    assert row["values"] == 32 and row["memories"] == 2
    assert row["KS 5 % level"] == pytest.approx(1.36 / math.sqrt(32))
    assert 0 <= row["KS"] <= 1 and row["stored"] == int(
        np.sum(normalised_margins(W, b, norm="gardner") > 0)
    )


def test_spectrum_fits_and_their_labels() -> None:
    s = np.full(100, 1.0)
    spectra = pd.DataFrame({"kappa": [0.25, 1.0, 0.5], "load": [0.4, 0.9, 0.6],
                            "singular_values": [s, s, np.array([])]})  # fmt: skip
    fits = spectrum_fits(spectra)
    assert fits["κ"].tolist() == [0.25, 1.0]  # the empty group is left out
    assert fits["5 % level"].tolist() == pytest.approx([0.136, 0.136])  # 1.36 / sqrt(100)
    assert np.all((fits["KS (truncated) law"] > 0) & (fits["KS (truncated) law"] <= 1))
    out = spectrum_fit_summary(fits, {"full": 1.0})
    assert out == {"ks_full": fits["KS (truncated) law"].iloc[1], "ks_full_level": 0.136}
    with pytest.raises(ValueError, match=r"0 rows of fits have κ = 0\.5; need one"):
        spectrum_fit_summary(fits, {"half": 0.5})


def test_causes_summary_finds_rows_by_label() -> None:
    def row(memory, d, ks, memories=6):
        return {"memory": memory, "d": d, "memories": memories, "KS": ks, "KS 5 % level": 0.1,
                "margin": -ks}  # fmt: skip

    causes = pd.DataFrame([
        row("trained QR^T, first perfect step", 48, 0.3),
        row("trained QR^T, 2000 steps", 48, 0.31),
        row("max-margin, from trained QR^T", 48, 0.2),
        row("truncated Hebbian", 48, 0.05),
        row("trained QR^T, first perfect step", 128, 0.25, memories=4),
    ])  # fmt: skip
    out = causes_summary(causes)
    assert (out["ks_first"], out["ks_long"], out["ks_margin"]) == (0.3, 0.31, 0.2)
    assert (out["ks_hebb"], out["marg_large"], out["spec_n"], out["large_n"]) == (0.05, -0.25, 6, 4)
    assert "large_n" not in causes_summary(causes.iloc[:4])
    with pytest.raises(ValueError, match=r"causes must hold one 'first' row, found 0"):
        causes_summary(causes.iloc[1:])


def test_singular_values_of_gaussian_matrix_follow_quarter_circle():
    rng = np.random.default_rng(0)
    W = rng.standard_normal((3, 200, 200))
    s = singular_values(W)
    assert s.shape == (3, 200)
    np.testing.assert_allclose(np.mean(s**2, axis=-1), 1.0, rtol=1e-12)
    assert np.all(np.diff(s, axis=-1) <= 0)
    assert spectrum_ks_distance(s, 1.0) < 0.03
    # a clearly different law is rejected: uniform singular values
    assert spectrum_ks_distance(np.sqrt(3) * rng.uniform(size=600), 1.0) > 0.05
    # torch input, unnormalised
    Wt = torch.from_numpy(W[0]).float()
    s_t = singular_values(Wt, normalize=False)
    np.testing.assert_allclose(s_t, np.linalg.svd(W[0], compute_uv=False), rtol=1e-4)


def test_truncated_gaussian_matrix_follows_truncated_quarter_circle():
    # rank-m SVD truncation of a Gaussian matrix: its top m singular values follow the
    # truncated quarter circle (the exact statement behind the rank-constrained spectrum)
    rng = np.random.default_rng(1)
    d, kappa = 240, 0.25
    m = int(kappa * d)
    G = rng.standard_normal((2, d, d))
    U, S, Vt = np.linalg.svd(G)
    Wm = (U[..., :m] * S[..., None, :m]) @ Vt[..., :m, :]
    s = singular_values(Wm, rank=m)
    assert s.shape == (2, m)
    assert spectrum_ks_distance(s, kappa) < 0.06
    assert spectrum_ks_distance(s, 1.0) > 0.3  # not the full quarter circle
    # the d - m remaining singular values are numerical zeros
    assert singular_values(Wm, normalize=False)[..., m:].max() < 1e-8


def test_singular_values_errors():
    with pytest.raises(ValueError, match="shape"):
        singular_values(np.ones(5))
    with pytest.raises(ValueError, match="rank"):
        singular_values(np.eye(4), rank=5)
    with pytest.raises(ValueError, match="zero"):
        singular_values(np.zeros((3, 3)))
    with pytest.raises(TypeError, match=r"rank must be an integer, got float"):
        singular_values(np.eye(3), rank=1.5)


def test_train_memory_rank_stores_small_problem():
    d, m = 16, 6
    p = pairs_for_load(0.25, d)
    problems = sample_problems(p, d, [0, 1])
    res = train_memory(problems, rank=m, steps=3000, lr=0.02, check_every=50, seed=0)
    assert np.all(res.perfect)
    assert np.all(all_recalled(res.weights, problems))
    s = singular_values(res.weights, normalize=False)
    assert np.all(s[:, m:] <= 1e-5 * s[:, :1])  # rank <= m
    assert np.all(s[:, m - 1] > 1e-3 * s[:, 0])  # and the rank is used
    Q, R = res.factors
    assert Q.shape == (2, d, m) and R.shape == (2, d, m)
    torch.testing.assert_close(res.weights, Q @ R.transpose(-1, -2))


def test_compare_fourth_moments_by_label() -> None:
    groups = {"trained OP": [2.0, 2.2], "trained DP": [2.1, 2.3], "i.i.d. Gaussian": [1.9, 2.0]}
    c = compare_fourth_moments(groups, {
        "op_dp": ("trained OP", "trained DP"),
        "tr_iid": (("trained OP", "trained DP"), "i.i.d. Gaussian")})  # fmt: skip
    s = c.summary()
    assert set(s) == {"m4_op", "m4_dp", "m4_gaussian", "perm_op_dp", "diff_op_dp",
                      "perm_tr_iid", "diff_tr_iid"}  # fmt: skip
    assert s["m4_op"].value == pytest.approx(2.1) and s["m4_gaussian"].n == 2
    # OP {2.0, 2.2} vs DP {2.1, 2.3}: mean difference -0.1; of the 6 relabellings, those with
    # |difference| >= 0.1 are {2.0,2.2}|{2.1,2.3}, its mirror, {2.0,2.1}|{2.2,2.3} and its mirror
    assert s["diff_op_dp"] == pytest.approx(-0.1)
    assert s["perm_op_dp"] == pytest.approx(4 / 6)
    # pooled {2.0, 2.2, 2.1, 2.3} (mean 2.15) vs {1.9, 2.0} (mean 1.95); of the C(6, 4) = 15
    # relabellings, |difference| >= 0.2 for the observed one, the same with the two 2.0 swapped,
    # and {2.2, 2.3} against the rest (|difference| 0.25): p = 3 / 15
    assert s["diff_tr_iid"] == pytest.approx(0.2)
    assert s["perm_tr_iid"] == pytest.approx(3 / 15)
    assert list(c.tests["groups"]) == [
        "trained OP vs trained DP",
        "trained OP + trained DP vs i.i.d. Gaussian",
    ]
    np.testing.assert_array_equal(c.groups["trained DP"], [2.1, 2.3])


def test_compare_fourth_moments_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown groups"):
        compare_fourth_moments({"a": [1.0]}, {"t": ("a", "b")})
    with pytest.raises(ValueError, match="distinct"):
        compare_fourth_moments({"trained OP": [1.0], "Hebbian OP": [2.0]}, {})
    with pytest.raises(ValueError, match="finite"):
        compare_fourth_moments({"a": [np.nan]}, {})
    with pytest.raises(TypeError, match=r"groups and tests must be mappings"):
        compare_fourth_moments([1.0], {})


def test_rank_sweep_and_stored_spectra() -> None:
    t = capacity_sweep(12, [0.2, 4.0], rank=6, seeds=3, steps=600, lr=0.2, patience=200,
                       keep_weights=True, progress=False)  # fmt: skip
    assert (t["rank"] == 6).all() and (t["kappa"] == 0.5).all()
    c = success_by_load(t)
    assert c["fraction"].tolist() == [1.0, 0.0]
    spec = stored_spectra(t)
    assert len(spec) == 1 and spec["load"].item() == pytest.approx(c["load"].iloc[0])
    s = spec["singular_values"].item()
    assert spec["n_memories"].item() == 3 and s.shape == (3 * 6,)
    # the top-m singular values of each W = Q R^T, normalised per matrix to mean square 1
    W0 = t["weights"].iloc[0]
    np.testing.assert_allclose(s[:6], singular_values(W0, rank=6)[:6], rtol=1e-10)
    assert np.linalg.matrix_rank(W0, tol=1e-4 * np.abs(W0).max()) == 6
    with pytest.raises(ValueError, match="keep_weights"):
        stored_spectra(t.drop(columns="weights"))
