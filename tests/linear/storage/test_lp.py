"""Tests of assocmem.linear.storage.lp: exact perfect-storage decisions and their certificates."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import torch
from _properties import PROPERTY_SETTINGS
from _sweep_tables import margins_by_hand
from assocmem.linear.instances.problems import MemoryProblem, all_recalled
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.storage.constraints import (
    constraint_arrays,
    constraint_margins,
    constraint_matrix,
    constraint_rows,
    dual_bound,
    lp_size,
    normalise_rows,
)
from assocmem.linear.storage.interior_point import (
    DenseConstraints,
    StructuredConstraints,
    max_margin_ipm,
)
from assocmem.linear.storage.lp import (
    FEASIBLE_FLOOR,
    INFEASIBLE_TOL,
    LP_MAX_ENTRIES,
    LPDecision,
    LPOutcome,
    constraint_generation,
    lp_decide,
    lp_feasible,
    max_margin_linf,
)
from assocmem.linear.storage.training import train_memory
from assocmem.linear.theory.finite_size import predicted_transition
from assocmem.linear.theory.load import pairs_for_load
from hypothesis import given, settings
from hypothesis import strategies as st


def test_one_dimensional_instances_by_hand() -> None:
    # d = 1, p = 2: the constraints are 2 W e_0 (u_0 - u_1) / 2 > 0 and the same for input 1.
    # e = (1, 1), u = (1, -1): W > 0 and -W > 0, infeasible; e = (1, -1): W > 0 twice, feasible
    bad = margins_by_hand([1.0, 1.0], [1.0, -1.0])
    good = margins_by_hand([1.0, -1.0], [1.0, -1.0])
    r_bad, r_good = lp_decide(bad), lp_decide(good)
    assert r_bad.feasible is False and r_bad.margin <= INFEASIBLE_TOL
    assert r_good.feasible is True and r_good.weights is not None
    assert r_good.weights[0, 0] > 0
    # the best margin at |W| <= 1 is 2 W = 2; the certificate's margin is a true margin
    assert 0 < r_good.margin <= 2.0 + 1e-12
    for prob in (bad, good):
        assert lp_feasible(prob, method="dense") is lp_feasible(prob)


@pytest.mark.parametrize("decoupled", [False, True])
def test_cg_agrees_with_dense_lp_far_from_capacity(decoupled: bool) -> None:
    # both answers: alpha = 0.6 is stored, alpha = 1.6 is not (alpha_c ~ 1 at d = 12)
    d = 12
    for alpha, want in [(0.6, True), (1.6, False)]:
        for seed in range(2):
            prob = sample_problem(pairs_for_load(alpha, d), d, decoupled=decoupled, seed=seed)
            r = lp_decide(prob)
            assert r.feasible is want
            assert lp_feasible(prob, method="dense") is want


@pytest.mark.parametrize("decoupled", [False, True])
def test_certificates_are_checked_on_every_constraint(decoupled: bool) -> None:
    d = 10
    for alpha in (0.9, 1.1):
        for seed in range(3):
            prob = sample_problem(pairs_for_load(alpha, d), d, decoupled=decoupled, seed=seed)
            r = lp_decide(prob)
            norm, scales = normalise_rows(prob)  # the certificates' units
            assert r.scales is not None and np.array_equal(r.scales, scales)
            if r.feasible:
                W = r.weights
                assert W is not None and np.abs(W).max() <= 1 + 1e-9
                assert constraint_margins(W, norm).min() == pytest.approx(r.margin, rel=1e-12)
                assert r.margin > INFEASIBLE_TOL
                # the margins as given are the normalised ones times each row's scale
                np.testing.assert_allclose(constraint_margins(W, prob),
                                           scales[:, None] * constraint_margins(W, norm),
                                           rtol=1e-6, atol=1e-12)  # fmt: skip
                assert bool(all_recalled(torch.tensor(W, dtype=torch.float32), prob))
            else:
                assert r.feasible is False and r.outcome is LPOutcome.NOT_STORED
                assert r.weights is None and 0 <= r.margin <= FEASIBLE_FLOOR
                assert r.multipliers is not None and r.multipliers.min() >= 0
                assert dual_bound(r.multipliers, norm) == pytest.approx(r.margin, rel=1e-9)
                # weak duality: no W in the box beats the bound, e.g. random sign matrices
                rng = np.random.default_rng(seed)
                for _ in range(20):
                    Wr = rng.choice([-1.0, 1.0], size=(d, d))
                    assert constraint_margins(Wr, norm).min() <= r.margin
            assert r.constraints <= prob.p * (prob.p - 1)


def test_feasible_certificate_in_exact_arithmetic() -> None:
    # near capacity: the smallest margins of the certifying W, recomputed with fractions
    prob = sample_problem(pairs_for_load(1.1, 10), 10, decoupled=True, seed=0)  # a feasible one
    r = lp_decide(prob)
    assert r.feasible and r.weights is not None
    e = prob.inputs.double().numpy()
    u = prob.targets.double().numpy()
    c = prob.competitors.double().numpy()
    M = constraint_margins(r.weights, prob)
    for flat in np.argsort(M.ravel())[:5]:
        mu, j = divmod(int(flat), prob.p - 1)
        We = [sum(Fraction(r.weights[i, k]) * Fraction(e[mu, k]) for k in range(10))
              for i in range(10)]  # fmt: skip
        exact = sum((Fraction(u[mu, i]) - Fraction(c[mu, j, i])) * We[i] for i in range(10))
        assert exact > 0
        assert float(exact) == pytest.approx(M[mu, j], rel=1e-9)


def test_trained_memory_is_a_certificate_the_lp_agrees_with() -> None:
    prob = sample_problem(pairs_for_load(0.7, 10), 10, seed=0)
    r = train_memory(prob, steps=2000)
    assert r.perfect_step is not None and all_recalled(r.weights, prob)
    assert lp_feasible(prob) is True


def test_lp_errors() -> None:
    with pytest.raises(ValueError, match="LP too large"):
        lp_feasible(sample_problem(400, 16, seed=0), method="dense")
    with pytest.raises(ValueError, match="LP too large"):
        lp_feasible(sample_problem(4, 8, seed=0), method="dense", max_entries=lp_size(4, 8) - 1)
    with pytest.raises(ValueError, match="unbatched"):
        lp_feasible(sample_problems(10, 4, [0, 1]))
    with pytest.raises(TypeError, match=r"problem must be a MemoryProblem, got NoneType"):
        lp_feasible(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="method"):
        lp_decide(sample_problem(4, 8, seed=0), method="simplex")
    with pytest.raises(ValueError, match="per_round"):
        lp_decide(sample_problem(4, 8, seed=0), per_round=0)
    with pytest.raises(ValueError, match="tol"):
        lp_decide(sample_problem(4, 8, seed=0), tol=0.0)
    with pytest.raises(ValueError, match="tol must exceed the zero level"):
        lp_decide(sample_problem(4, 8, seed=0), tol=FEASIBLE_FLOOR)
    with pytest.raises(ValueError, match="shape"):
        constraint_margins(np.zeros((3, 3)), sample_problem(4, 8, seed=0))
    # one round is not enough near capacity: the method says so instead of guessing
    prob = sample_problem(pairs_for_load(1.0, 12), 12, seed=0)
    with pytest.raises(RuntimeError, match="undecided"):
        lp_decide(prob, method="cg", max_rounds=1)
    assert lp_size(10, 4) == 90 * 16
    assert lp_size(4, 8) <= LP_MAX_ENTRIES


def _brute_force_margins(W: np.ndarray, prob: MemoryProblem) -> np.ndarray:
    """Every constraint margin by explicit loops (independent of constraint_margins)."""
    e = prob.inputs.double().numpy()
    u = prob.targets.double().numpy()
    c = None if prob.competitors is None else prob.competitors.double().numpy()
    out = []
    for mu in range(prob.p):
        We = W @ e[mu]
        comps = [u[nu] for nu in range(prob.p) if nu != mu] if c is None else list(c[mu])
        out += [float((u[mu] - v) @ We) for v in comps]
    return np.array(out)


def _loop_bound(Y: np.ndarray, prob: MemoryProblem) -> float:
    """The dual bound ||sum y_k a_k||_1 / sum(y) by explicit loops (not dual_bound)."""
    e = prob.inputs.double().numpy()
    u = prob.targets.double().numpy()
    c = None if prob.competitors is None else prob.competitors.double().numpy()
    G = np.zeros((prob.d, prob.d))
    for mu in range(prob.p):
        comps = [u[nu] for nu in range(prob.p) if nu != mu] if c is None else list(c[mu])
        for j, v in enumerate(comps):
            if Y[mu, j] > 0:
                G += Y[mu, j] * np.outer(u[mu] - v, e[mu])
    return float(np.abs(G).sum() / Y.sum())


@pytest.mark.parametrize("decoupled", [False, True])
def test_cg_agrees_with_dense_lp_across_seeds_near_capacity(decoupled: bool) -> None:
    # d = 6 around the transition (alpha_c ~ 1.05 here): 48 instances of each problem, both
    # answers occur; every cg answer comes with its certificate, checked independently
    d, n_feasible, n = 6, 0, 0
    for alpha in (0.8, 0.95, 1.1, 1.3):
        for seed in range(12):
            prob = sample_problem(pairs_for_load(alpha, d), d, decoupled=decoupled, seed=seed)
            r = lp_decide(prob)
            dense = lp_decide(prob, method="dense")
            norm = normalise_rows(prob)[0]
            assert r.feasible is dense.feasible, (alpha, seed, r.margin, dense.margin)
            if r.feasible:
                assert r.weights is not None
                assert _brute_force_margins(r.weights, norm).min() > INFEASIBLE_TOL
                assert _brute_force_margins(r.weights, prob).min() > 0
                # the certified margin never beats the LP optimum (to the solver's tolerance)
                assert r.margin <= dense.margin + 1e-8
            else:
                assert r.multipliers is not None
                assert _loop_bound(r.multipliers, norm) <= FEASIBLE_FLOOR
                assert dense.margin <= FEASIBLE_FLOOR
            n_feasible += r.feasible
            n += 1
    assert 10 <= n_feasible <= n - 10


def test_dense_reference_on_a_badly_scaled_feasible_instance() -> None:
    # the best margin at |W_ij| <= 1 is ~3e-4: the unbounded LP "A w >= 1" then needs |W| ~ 4e3
    # and HiGHS's interior-point method called it infeasible; the bounded dense LP and cg agree
    # (root 228: the first of 400 instances at this size with a dense margin below 3e-4)
    prob = sample_problem(pairs_for_load(1.1, 6), 6, seed=228)
    r, dense = lp_decide(prob), lp_decide(prob, method="dense")
    assert r.feasible and dense.feasible and 1e-5 < dense.margin < 1e-3
    assert r.weights is not None and _brute_force_margins(r.weights, prob).min() > 0


@pytest.mark.parametrize("decoupled", [False, True])
def test_duplicated_input_with_two_targets_is_infeasible(decoupled: bool) -> None:
    # e_1 = e_0 with u_1 != u_0: (u_0 - u_1)^T W e_0 > 0 and (u_1 - u_0)^T W e_0 > 0 contradict,
    # at a load (0.3) where the instance is otherwise easily stored; y = 1 on the two rows is a
    # certificate with bound exactly 0
    d = 10
    prob = sample_problem(pairs_for_load(0.3, d), d, decoupled=decoupled, seed=1)
    e = prob.inputs.clone()
    e[1] = e[0]
    comp = None
    if decoupled:
        assert prob.competitors is not None
        comp = prob.competitors.clone()
        comp[0, 0], comp[1, 0] = prob.targets[1], prob.targets[0]
    bad = MemoryProblem(e, prob.targets, comp)
    assert lp_decide(prob).feasible is True
    r = lp_decide(bad)
    assert r.feasible is False and r.weights is None and r.multipliers is not None
    assert _loop_bound(r.multipliers, normalise_rows(bad)[0]) <= FEASIBLE_FLOOR
    assert lp_decide(bad, method="dense").feasible is False
    Y = np.zeros((bad.p, bad.p - 1))
    Y[0, 0] = Y[1, 0] = 1.0  # OP: competitor j = 0 of input 1 is u_0, of input 0 is u_1
    assert dual_bound(Y, bad) == pytest.approx(0.0, abs=1e-15)


def test_far_above_capacity_is_infeasible_with_a_certificate() -> None:
    # alpha = 3 at d = 8 (p = 52 > 2 d^2 / log p): no W, for both problems and both solvers
    for decoupled in (False, True):
        prob = sample_problem(pairs_for_load(3.0, 8), 8, decoupled=decoupled, seed=0)
        for method in ("cg", "highs"):
            r = lp_decide(prob, method=method)
            assert r.feasible is False and r.multipliers is not None
            assert _loop_bound(r.multipliers, normalise_rows(prob)[0]) <= FEASIBLE_FLOOR
        assert lp_decide(prob, method="dense").feasible is False


def test_highs_method_agrees_with_cg() -> None:
    d = 8
    for alpha, decoupled, seed in [(0.9, False, 0), (1.1, True, 1), (1.0, False, 2)]:
        prob = sample_problem(pairs_for_load(alpha, d), d, decoupled=decoupled, seed=seed)
        assert lp_decide(prob, method="highs").feasible is lp_decide(prob).feasible


@pytest.mark.parametrize("decoupled", [False, True])
def test_constraint_generation_is_lp_decides_cg_method(decoupled: bool) -> None:
    # the public loop is what lp_decide(method="cg") runs, field for field
    for alpha, seed in [(0.8, 0), (1.3, 0)]:
        prob = sample_problem(pairs_for_load(alpha, 10), 10, decoupled=decoupled, seed=seed)
        a, b = constraint_generation(prob, per_round=5), lp_decide(prob, method="cg", per_round=5)
        fields = ("feasible", "margin", "rounds", "constraints")
        assert [getattr(a, k) for k in fields] == [getattr(b, k) for k in fields]
        for x, y in ((a.weights, b.weights), (a.multipliers, b.multipliers)):
            assert (x is None and y is None) or np.array_equal(x, y)
    with pytest.raises(ValueError, match="per_round"):
        constraint_generation(sample_problem(4, 8, seed=0), per_round=0)
    with pytest.raises(ValueError, match="tol"):
        constraint_generation(sample_problem(4, 8, seed=0), tol=-1.0)
    with pytest.raises(ValueError, match="max_rounds"):
        constraint_generation(sample_problem(4, 8, seed=0), max_rounds=0)
    with pytest.raises(ValueError, match="unbatched"):
        constraint_generation(sample_problems(10, 4, [0, 1]))
    with pytest.raises(TypeError, match=r"problem must be a MemoryProblem, got NoneType"):
        constraint_generation(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("decoupled", [False, True])
def test_max_margin_linf_agrees_with_the_decision(decoupled: bool) -> None:
    d = 8
    for alpha, seed in ((0.6, 0), (2.5, 1)):
        prob = sample_problem(pairs_for_load(alpha, d), d, decoupled=decoupled, seed=seed)
        t, W = max_margin_linf(prob)
        dec = lp_decide(prob)
        assert (t > INFEASIBLE_TOL) == dec.feasible
        assert np.abs(W).max() <= 1 + 1e-9
        assert t == pytest.approx(constraint_margins(W, prob).min(), abs=1e-12)
        if dec.feasible:  # the certifying W of the decision is in the box: its margin <= t*
            t_norm = max_margin_linf(normalise_rows(prob)[0])[0]  # t* in the decision's units
            assert dec.margin <= t_norm + 1e-9
            # the capped dense LP (t <= 1) has the same optimum when t* < 1
            capped = lp_decide(prob, method="dense").margin
            assert capped == pytest.approx(min(t_norm, 1.0), abs=1e-7)


def test_lp_decision_prints_its_certificate() -> None:
    W, Y = np.eye(2), np.ones((3, 2))
    assert str(LPDecision(True, 0.01234, 3, 245, W)) == (
        "stored after 3 rounds, 245 constraints; its W has margin 0.0123"
    )
    assert str(LPDecision(False, 1e-7, 5, 400, None, Y)) == (
        "not stored after 5 rounds, 400 constraints; no |W_ij| <= 1 has margin > 1.0e-07"
    )
    assert str(LPDecision(True, 0.5, 1, 12)) == (
        "stored after 1 round, 12 constraints; max margin t* = 0.5 (no certificate)"
    )
    assert str(LPDecision(None, 3e-10, 1, 30, W, Y, bound=1.1e-9)) == (
        "undecided at tolerance after 1 round, 30 constraints; best margin in [3.0e-10, "
        "1.1e-09], within tol = 1e-07 of 0"
    )
    assert LPDecision(None, 3e-10, 1, 30).outcome is LPOutcome.UNDECIDED
    assert LPDecision(False, 0.0, 1, 30).outcome == "not stored"


@pytest.mark.parametrize("alpha", [0.3, 1.2])
def test_one_interior_point_method_on_dense_and_structured_constraints(alpha: float) -> None:
    # the same algorithm on the same LP through either operator: same answer, same path
    d = 5
    prob = sample_problem(pairs_for_load(alpha, d), d, seed=4)
    e, u, c = constraint_arrays(prob)
    p = prob.p
    mu, j = np.repeat(np.arange(p), p - 1), np.tile(np.arange(p - 1), p)
    A = constraint_rows(e, u, c, mu, j)
    np.testing.assert_array_equal(A, constraint_matrix(prob))
    dense, structured = DenseConstraints(A), StructuredConstraints(e, u, c)
    never = lambda w: -np.inf  # noqa: E731  (no lower bound: run to the optimum or the bound)
    a = max_margin_ipm(dense, 1e-7, never, rel=1e-6)
    b = max_margin_ipm(structured, 1e-7, never, rel=1e-6)
    assert a.status == b.status and a.status in ("optimal", "not stored")
    assert a.iterations == b.iterations and a.witness is None and a.lower == -np.inf
    np.testing.assert_allclose(a.w, b.w, atol=1e-6)
    assert a.bound == pytest.approx(b.bound, rel=1e-6, abs=1e-12)
    # the status agrees with the exact decision, and the bound is a true upper bound on t*
    assert (a.status == "optimal") == lp_feasible(prob, method="dense")
    if a.status == "optimal":
        assert float(np.min(A @ a.w)) <= a.bound + 1e-9 and float(np.min(A @ a.w)) > 0
    assert dense.flops > 0 and structured.flops > 0


def _check_certificate(r: LPDecision, prob: MemoryProblem) -> None:
    """The answer's certificates, recomputed by explicit loops on the row-normalised instance."""
    norm = normalise_rows(prob)[0]
    if r.feasible is not False:
        assert r.weights is not None and np.abs(r.weights).max() <= 1
        low = _brute_force_margins(r.weights, norm).min()
        assert low > (INFEASIBLE_TOL if r.feasible else FEASIBLE_FLOOR)
        assert _brute_force_margins(r.weights, prob).min() > 0  # it stores the data as given
    if r.feasible is not True:
        assert r.multipliers is not None and r.multipliers.min() >= 0
        high = _loop_bound(r.multipliers, norm)
        assert high <= (FEASIBLE_FLOOR if r.feasible is False else INFEASIBLE_TOL)


@pytest.mark.slow
def test_ipm_agrees_with_cg_and_highs_on_hundreds_of_instances() -> None:
    # 204 instances at d = 8, 12, 16 on loads 0.8-1.2 x the predicted transition, OP and DP, all
    # three solvers; 24 more at d = 24 against cg (HiGHS takes ~15 s per instance there), 2 of
    # them also against HiGHS. Every ipm answer is certified, both answers occur at every d.
    # CPU: about 2-3 minutes.
    plan = {8: (8, 24), 12: (6, 24), 16: (3, 24), 24: (2, 2)}  # d: (seeds per load, highs up to)
    total = 0
    for d, (n_seeds, n_highs) in plan.items():
        loads = predicted_transition(d).alpha.value * np.linspace(0.8, 1.2, 6)
        answers, k = [], 0
        for decoupled in (False, True):
            for alpha in loads:
                for seed in range(n_seeds):
                    prob = sample_problem(pairs_for_load(float(alpha), d), d,
                                          decoupled=decoupled, seed=seed)  # fmt: skip
                    r = lp_decide(prob)
                    _check_certificate(r, prob)
                    assert r.rounds == 1 and r.iterations > 0
                    assert lp_decide(prob, method="cg").feasible is r.feasible, (d, alpha, seed)
                    if k % (2 * len(loads) * n_seeds // n_highs) == 0 or d < 24:
                        assert lp_decide(prob, method="highs").feasible is r.feasible
                    answers.append(r.feasible)
                    k += 1
        assert 0 < sum(answers) < len(answers)
        total += len(answers)
    assert total >= 200


def _scaled(prob: MemoryProblem, s_e: float, s_u: float) -> MemoryProblem:
    c = None if prob.competitors is None else prob.competitors * s_u
    return MemoryProblem(prob.inputs * s_e, prob.targets * s_u, c)


def test_decisions_do_not_depend_on_the_scale_of_tiny_embeddings() -> None:
    # p = 2, d = 1, u = e = (1e-4, -1e-4): W = 1 stores both (margins 2e-8 > 0); the absolute
    # floors of old called it infeasible
    prob = margins_by_hand([1e-4, -1e-4], [1e-4, -1e-4])
    for method in ("ipm", "cg", "highs", "dense"):
        r = lp_decide(prob, method=method)
        assert r.feasible is True, method
    r = lp_decide(prob)
    assert r.weights is not None and r.weights[0, 0] > 0
    assert _brute_force_margins(r.weights, prob).min() > 0
    # and the infeasible twin (e = (1, 1) pattern) stays infeasible at any scale
    bad = margins_by_hand([1e-4, 1e-4], [1e-4, -1e-4])
    assert lp_decide(bad).feasible is False


@pytest.mark.parametrize("decoupled", [False, True])
def test_a_feasible_instance_stays_feasible_at_1e_minus_4(decoupled: bool) -> None:
    # p = 12, d = 6: stored at unit scale, so stored at every scale (W is the same certificate)
    prob = sample_problem(12, 6, decoupled=decoupled, seed=0)
    assert lp_decide(prob).feasible is True
    small = _scaled(prob, 1e-4, 1e-4)
    for method in ("ipm", "cg", "highs", "dense"):
        r = lp_decide(small, method=method)
        assert r.feasible is True, method
    r = lp_decide(small)
    assert r.weights is not None and _brute_force_margins(r.weights, small).min() > 0


@pytest.mark.parametrize("decoupled", [False, True])
def test_decisions_are_invariant_to_rescaling_inputs_and_targets(decoupled: bool) -> None:
    # property: rescaling e and u by positive factors (1e-6 .. 1e6, separately) never changes a
    # decision; with powers of two the float32 data rescale exactly and so do the margins
    d = 8
    factors = [1e-6, 3e-3, 1.0, 7.0, 1e6]
    pow2 = [2.0**-20, 2.0**-7, 2.0**9, 2.0**20]
    for alpha, seed in [(0.9, 0), (1.0, 1), (1.1, 2), (1.2, 3)]:
        alpha_c = predicted_transition(d).alpha.value
        prob = sample_problem(pairs_for_load(alpha * alpha_c, d), d, decoupled=decoupled,
                              seed=seed)  # fmt: skip
        ref = lp_decide(prob)
        for s_e in factors:
            for s_u in factors:
                scaled = _scaled(prob, s_e, s_u)
                r = lp_decide(scaled)
                assert r.feasible is ref.feasible, (alpha, seed, s_e, s_u)
                _check_certificate(r, scaled)
        for s_e, s_u in zip(pow2, pow2[::-1], strict=True):
            r = lp_decide(_scaled(prob, s_e, s_u))
            assert r.feasible is ref.feasible
            # powers of two: the normalised instance is the same, bit for bit, and so the answer
            assert r.margin == ref.margin
            assert r.scales is not None and ref.scales is not None
            np.testing.assert_allclose(r.scales, ref.scales * s_e * s_u, rtol=1e-15)


@PROPERTY_SETTINGS
@given(
    d=st.integers(2, 6),
    rel=st.floats(0.6, 1.6),
    decoupled=st.booleans(),
    seed=st.integers(0, 10**6),
    order=st.randoms(use_true_random=False),
)
def test_decision_follows_a_relabelling_of_the_associations(
    d: int, rel: float, decoupled: bool, seed: int, order: Any
) -> None:
    """Issue 29, item 4: the same associations in another order get the same decision."""
    p = max(2, pairs_for_load(rel * 0.9, d))
    prob = sample_problem(p, d, decoupled=decoupled, seed=seed)
    perm_list = list(range(p))
    order.shuffle(perm_list)
    perm = torch.tensor(perm_list)
    c = None if prob.competitors is None else prob.competitors[perm]
    moved = MemoryProblem(prob.inputs[perm], prob.targets[perm], c)
    assert lp_decide(moved).feasible == lp_decide(prob).feasible


def test_an_embedding_edited_in_place_is_refused() -> None:
    """Issue 29, item 3: on d8f35f4 a NaN gave 'need at least one array to concatenate'."""
    prob = sample_problem(12, 6, seed=0)
    prob.inputs[2, 1] = float("nan")
    for method in ("ipm", "cg", "dense"):
        with pytest.raises(ValueError, match="inputs must be finite"):
            lp_decide(prob, method=method)


def _rank_one_targets(seed: int, decoupled: bool) -> MemoryProblem:
    """Issue 42, item 5: p = 6, d = 5, targets (and DP competitors) a_mu v in float32.

    In exact arithmetic ``(a_mu - a_nu) v^T W e_mu > 0`` for all pairs is impossible for the
    middle values of ``a``; the float32 rounding of ``a_mu v`` leaves a best margin of order
    1e-9 of unit-norm inputs: within the tolerance of zero.
    """
    prob = sample_problem(6, 5, seed=seed, decoupled=decoupled)
    rng = np.random.default_rng(seed)
    a, v = rng.standard_normal(6), rng.standard_normal(5) / np.sqrt(5)
    u = torch.tensor(np.outer(a, v), dtype=torch.float32)
    c = None
    if decoupled:
        c = torch.tensor(rng.standard_normal((6, 5))[..., None] * v, dtype=torch.float32)
    return MemoryProblem(prob.inputs, u, c)


@pytest.mark.parametrize(("seed", "decoupled"), [(8, False), (6, True), (0, False)])
def test_rank_one_targets_are_undecided_by_every_method(seed: int, decoupled: bool) -> None:
    """Issue 42, item 5: on 7d44cde "ipm" and "highs" said "not stored" and "cg" said "stored"
    (seed 8 OP: dual bounds 1.1e-7 and 1.5e-7 against a W of margin 3.0e-10; seed 6 DP alike);
    every method now answers "undecided at tolerance" with both certificates."""
    prob = _rank_one_targets(seed, decoupled)
    for method in ("ipm", "cg", "highs", "dense"):
        r = lp_decide(prob, method=method)
        assert r.outcome is LPOutcome.UNDECIDED and r.feasible is None, (method, str(r))
        assert FEASIBLE_FLOOR < r.margin <= r.bound <= INFEASIBLE_TOL, method
        assert r.tol == INFEASIBLE_TOL and r.floor == FEASIBLE_FLOOR
        _check_certificate(r, prob)
    assert lp_feasible(prob) is None
    assert str(lp_decide(prob)).startswith("undecided at tolerance after 1 round, 30 constraints")
    # a tolerance below the best margin makes it a stored instance, for every method
    low = lp_decide(prob).margin * 0.9
    for method in ("ipm", "cg", "highs"):
        assert lp_decide(prob, method=method, tol=low).outcome is LPOutcome.STORED, method


@pytest.mark.parametrize("factor", [1e-9, 1e-12, 1e9, 2.0**-40])
@pytest.mark.parametrize("decoupled", [False, True])
def test_one_rescaled_input_changes_no_decision(factor: float, decoupled: bool) -> None:
    """Issue 42, item 6: a storable instance (p = 14, d = 6) flipped to "not stored" for every
    method on 7d44cde once one input was multiplied by 1e-9 or 1e-12 (and by 1e9); each input
    is now scaled to unit norm first, so every method answers as on the instance as drawn."""
    for seed in range(2):
        prob = sample_problem(14, 6, decoupled=decoupled, seed=seed)
        e = prob.inputs.clone()
        e[seed] = e[seed] * factor
        moved = MemoryProblem(e, prob.targets, prob.competitors)
        for method in ("ipm", "cg", "highs", "dense"):
            ref, r = lp_decide(prob, method=method), lp_decide(moved, method=method)
            assert ref.outcome is r.outcome is LPOutcome.STORED, (seed, method, str(r))
            _check_certificate(r, moved)
            assert r.scales is not None and ref.scales is not None
            assert r.scales[seed] == pytest.approx(ref.scales[seed] * factor, rel=1e-6)


@settings(max_examples=20, derandomize=True, deadline=None, database=None)
@given(
    d=st.integers(3, 6),
    rel=st.floats(0.7, 1.4),
    decoupled=st.booleans(),
    seed=st.integers(0, 10**6),
    exponents=st.lists(st.floats(-12, 12), min_size=40, max_size=40),
    target_exponent=st.floats(-12, 12),
)
def test_row_scales_never_change_a_decided_answer(
    d: int, rel: float, decoupled: bool, seed: int, exponents: list[float],
    target_exponent: float,
) -> None:  # fmt: skip
    """Issue 42: every input times its own factor in [1e-12, 1e12], the targets times another:
    a decided answer ("stored" or "not stored") stays the same, for two methods."""
    p = max(2, pairs_for_load(rel * predicted_transition(d).alpha.value, d))
    prob = sample_problem(p, d, decoupled=decoupled, seed=seed)
    ref = lp_decide(prob)
    s_e = torch.tensor([10.0**x for x in exponents[:p]], dtype=torch.float64)
    s_u = 10.0**target_exponent
    c = None if prob.competitors is None else (prob.competitors.double() * s_u).float()
    scaled = MemoryProblem((prob.inputs.double() * s_e[:, None]).float(),
                           (prob.targets.double() * s_u).float(), c)  # fmt: skip
    for method in ("ipm", "dense"):
        r = lp_decide(scaled, method=method)
        if ref.outcome is not LPOutcome.UNDECIDED:
            assert r.outcome is ref.outcome, (method, str(ref), str(r))
        _check_certificate(r, scaled)
