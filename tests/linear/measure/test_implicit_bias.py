"""Tests of assocmem.linear.measure.implicit_bias: l2 / l-infinity max-margin memories and the
normalised margins of trained memories over training (chapter 1)."""

from __future__ import annotations

import highspy
import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import MemoryProblem, normalised_margins
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.measure.implicit_bias import (
    MarginTrajectories,
    l2_max_margin,
    least_distance,
    linf_max_margin,
    margin_ratios,
    margin_trajectories,
)
from assocmem.linear.storage.constraints import constraint_margins, constraint_matrix
from assocmem.linear.theory.load import pairs_for_load


def _toy() -> MemoryProblem:
    """p = d = 2, e_mu = u_mu = unit vectors: constraints W11 - W21 >= t, W22 - W12 >= t."""
    eye = torch.eye(2)
    return MemoryProblem(inputs=eye.clone(), targets=eye.clone())


def test_toy_instance_has_the_known_max_margins() -> None:
    prob = _toy()
    l2 = l2_max_margin(prob)
    # min ||W||_F with W11 - W21 >= 1, W22 - W12 >= 1: W = [[1/2, -1/2], [-1/2, 1/2]]
    np.testing.assert_allclose(l2.weights, [[0.5, -0.5], [-0.5, 0.5]], atol=1e-12)
    assert l2.margin == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(l2.multipliers, [0.5, 0.5], atol=1e-12)
    linf = linf_max_margin(prob)
    assert linf.margin == pytest.approx(2.0, abs=1e-9)  # W11 = W22 = 1, W21 = W12 = -1
    np.testing.assert_allclose(linf.weights, [[1, -1], [-1, 1]], atol=1e-9)


def test_least_distance_single_constraint_and_infeasible() -> None:
    a = np.array([[3.0, 4.0]])
    w, lam = least_distance(a)
    np.testing.assert_allclose(w, a[0] / 25.0, atol=1e-14)  # w = a / ||a||^2
    np.testing.assert_allclose(lam, [1 / 25.0], atol=1e-14)
    with pytest.raises(RuntimeError, match="not separable"):
        least_distance(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"A must be a finite 2-D array .*, got \(2,\)"):
        least_distance(np.array([1.0, 2.0]))


@pytest.mark.parametrize("decoupled", [False, True])
def test_l2_max_margin_satisfies_kkt_and_matches_slsqp(decoupled: bool) -> None:
    d = 6
    prob = sample_problem(pairs_for_load(0.5, d), d, decoupled=decoupled, seed=3)
    mm = l2_max_margin(prob)
    M = constraint_margins(mm.weights, prob)
    lam = mm.multipliers
    assert lam is not None
    assert M.min() == pytest.approx(1.0, abs=1e-9)  # the tightest constraint is active
    assert np.all(lam >= 0)
    active = lam.reshape(M.shape) > 1e-9
    np.testing.assert_allclose(M[active], 1.0, atol=1e-8)  # complementary slackness
    # stationarity: W = sum_k lam_k a_k (with the three above, KKT: the unique optimum)
    G = np.zeros_like(mm.weights)
    e, u = prob.inputs.double().numpy(), prob.targets.double().numpy()
    L = lam.reshape(M.shape)
    for mu in range(prob.p):
        comp = np.delete(u, mu, axis=0) if not decoupled else prob.competitors[mu].double().numpy()
        G += np.outer(L[mu].sum() * u[mu] - L[mu] @ comp, e[mu])
    np.testing.assert_allclose(G, mm.weights, atol=1e-9)
    # an independent solver on the primal QP (HiGHS's active-set QP): the same unique optimum
    A = constraint_matrix(prob)
    m, n = A.shape
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)  # as lp.py: HiGHS keeps one thread count per process
    h.addVars(n, np.full(n, -highspy.kHighsInf), np.full(n, highspy.kHighsInf))
    for k in range(m):
        h.addRow(1.0, highspy.kHighsInf, n, np.arange(n, dtype=np.int32), A[k])
    eye = np.arange(n + 1, dtype=np.int32)
    h.passHessian(n, n, highspy.HessianFormat.kTriangular, eye, eye[:n], np.ones(n))
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    np.testing.assert_allclose(np.asarray(h.getSolution().col_value), mm.weights.ravel(), atol=1e-7)


def test_ratios_are_at_most_one_and_one_at_the_optima() -> None:
    d = 8
    prob = sample_problem(pairs_for_load(0.6, d), d, seed=1)
    l2, linf = l2_max_margin(prob), linf_max_margin(prob)
    rng = np.random.default_rng(0)
    # random directions near each optimum, rescaled arbitrarily
    W = np.stack(
        [c * (l2.weights + 0.3 * rng.standard_normal((d, d)) * np.abs(l2.weights).mean())
         for c in (0.1, 1.0, 7.0)]
        + [c * (linf.weights + 0.1 * rng.standard_normal((d, d))) for c in (0.5, 3.0)]
        + [l2.weights * 4.0, linf.weights * 0.2]
    )  # fmt: skip
    r = margin_ratios(W, prob, l2=l2, linf=linf)
    assert np.all(r["ratio_l2"] <= 1 + 1e-9) and np.all(r["ratio_linf"] <= 1 + 1e-7)
    assert r["ratio_l2"][5] == pytest.approx(1.0, abs=1e-9)
    assert r["cos_l2"][5] == pytest.approx(1.0, abs=1e-12)
    assert r["ratio_linf"][6] == pytest.approx(1.0, abs=1e-7)
    assert r["cos_linf"][6] == pytest.approx(1.0, abs=1e-12)
    assert np.all(r["ratio_l2"][:5] < 1 - 1e-6)  # perturbed: strictly below the optimum
    # scale invariance of the normalised margins
    np.testing.assert_allclose(
        normalised_margins(W[1] * 9.0, prob, norm="max"),
        normalised_margins(W[1], prob, norm="max"),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="norm"):
        normalised_margins(W, prob, norm="l1")
    with pytest.raises(ValueError, match="zero"):
        normalised_margins(np.zeros((d, d)), prob)


def test_linf_max_margin_beats_every_box_matrix() -> None:
    d = 8
    prob = sample_problem(pairs_for_load(0.6, d), d, seed=2)
    linf = linf_max_margin(prob)
    assert np.abs(linf.weights).max() <= 1 + 1e-9
    rng = np.random.default_rng(1)
    cands = [np.sign(l2_max_margin(prob).weights)] + [rng.uniform(-1, 1, (d, d)) for _ in range(50)]
    assert max(constraint_margins(W, prob).min() for W in cands) <= linf.margin + 1e-9


def test_margin_trajectories_on_trained_memories() -> None:
    d = 8
    batch = sample_problems(pairs_for_load(0.6, d), d, seeds=[0, 1])
    tr = margin_trajectories(batch, steps=200, check_every=20)
    assert tr.step[0] == 20 and tr.step[-1] == 200
    assert tr.separable.all()
    for key in ("ratio_l2", "ratio_linf"):
        vals = getattr(tr, key)
        assert vals.shape == (2, 10)
        assert np.all(vals <= 1 + 1e-6)
        assert np.all(vals[:, -1] > 0)  # stored: positive margin at the end
    assert np.all(np.abs(tr.cos_l2) <= 1 + 1e-12)
    assert (tr.d, tr.p) == (d, batch.p)
    s = tr.summary(mid=100)
    assert s["t_mid"] == 100 and s["steps"] == 200 and s["n"] == 2
    assert s["ratio_l2_end"].value == pytest.approx(tr.ratio_l2[:, -1].mean())
    with pytest.raises(TypeError, match=r"problems must be a batched MemoryProblem"):
        margin_trajectories(batch[0], steps=10)


def _trajectories() -> MarginTrajectories:
    """Three instances, the third not storable; steps 10, 20, 30, 40."""
    nan = np.nan
    ratio = np.array([[0.1, 0.2, 0.3, 0.4], [0.3, 0.4, 0.5, 0.8], [nan] * 4])
    return MarginTrajectories(
        step=np.array([10, 20, 30, 40]),
        ratio_l2=ratio,
        ratio_linf=ratio / 2,
        cos_l2=ratio + 0.1,
        cos_linf=ratio + 0.2,
        separable=np.array([True, True, False]),
        perfect_step=[10, 31, None],
        margin_l2=np.array([1.0, 1.0, nan]),
        margin_linf=np.array([1.0, 1.0, nan]),
        d=6,
        p=9,
    )


def test_margin_trajectories_summary_by_label() -> None:
    s = _trajectories().summary(mid=15)  # first recorded step >= 15 is 20 (column 1)
    assert (s["d"], s["p"], s["steps"], s["n"], s["t_mid"]) == (6, 9, 40, 2, 20)
    assert s["first"] == 20  # median of 10 and 31 is 20.5, truncated
    end, mid = s["ratio_l2_end"], s["ratio_l2_mid"]
    assert end.value == pytest.approx(0.6) and mid.value == pytest.approx(0.3)
    # values 0.4 and 0.8: sd = 0.2 sqrt(2), half-width t_{0.975,1} sd / sqrt(2) = 12.706 * 0.2
    assert end.high - end.value == pytest.approx(12.7062047 * 0.2, rel=1e-6)
    assert end.n == 2 and end.method == "Student t"
    assert s["ratio_linf_end"].value == pytest.approx(0.3)
    assert s["cos_l2_mid"].value == pytest.approx(0.4)
    assert s["cos_linf_end"].value == pytest.approx(0.8)
    curves = {f"{c}_{t}" for c in MarginTrajectories.CURVES for t in ("end", "mid")}
    assert set(s) == curves | {"d", "p", "steps", "n", "first", "t_mid"}


def test_margin_trajectories_summary_rejects_bad_steps() -> None:
    tr = _trajectories()
    assert tr.column(1) == 0 and tr.column(40) == 3
    with pytest.raises(ValueError, match="last recorded step"):
        tr.summary(mid=41)
    with pytest.raises(ValueError, match=r"step must be an integer >= 1, got 0"):
        tr.column(0)
