"""Tests of assocmem.linear.lp: exact perfect-storage decisions and their certificates."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch
from assocmem.linear.load import pairs_for_load
from assocmem.linear.lp import (
    FEASIBLE_FLOOR,
    INFEASIBLE_TOL,
    LP_MAX_ENTRIES,
    constraint_margins,
    lp_decide,
    lp_feasible,
    lp_size,
)
from assocmem.linear.problems import (
    MemoryProblem,
    all_recalled,
    sample_problem,
    sample_problems,
    score_matrix,
)
from assocmem.linear.training import train_memory


def _by_hand(e: list[float], u: list[float]) -> MemoryProblem:
    t = torch.tensor
    return MemoryProblem(t(e, dtype=torch.float32)[:, None], t(u, dtype=torch.float32)[:, None])


def test_one_dimensional_instances_by_hand() -> None:
    # d = 1, p = 2: the constraints are 2 W e_0 (u_0 - u_1) / 2 > 0 and the same for input 1.
    # e = (1, 1), u = (1, -1): W > 0 and -W > 0, infeasible; e = (1, -1): W > 0 twice, feasible
    bad = _by_hand([1.0, 1.0], [1.0, -1.0])
    good = _by_hand([1.0, -1.0], [1.0, -1.0])
    r_bad, r_good = lp_decide(bad), lp_decide(good)
    assert r_bad.feasible is False and r_bad.margin <= INFEASIBLE_TOL
    assert r_good.feasible is True and r_good.weights is not None
    assert r_good.weights[0, 0] > 0
    # the best margin at |W| <= 1 is 2 W = 2; the certificate's margin is a true margin
    assert 0 < r_good.margin <= 2.0 + 1e-12
    for prob in (bad, good):
        assert lp_feasible(prob, method="dense") is lp_feasible(prob)


@pytest.mark.parametrize("decoupled", [False, True])
def test_constraint_margins_match_score_matrix(decoupled: bool) -> None:
    prob = sample_problem(9, 5, decoupled=decoupled, seed=3)
    W = np.random.default_rng(0).standard_normal((5, 5))
    M = constraint_margins(W, prob)
    S = score_matrix(torch.tensor(W, dtype=torch.float32), prob).double().numpy()
    p = prob.p
    for mu in range(p):
        others = [nu for nu in range(p) if nu != mu]
        np.testing.assert_allclose(M[mu], S[mu, mu] - S[mu, others], atol=1e-5)


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
            if r.feasible:
                W = r.weights
                assert W is not None and np.abs(W).max() <= 1 + 1e-9
                assert constraint_margins(W, prob).min() == pytest.approx(r.margin, rel=1e-12)
                assert r.margin > FEASIBLE_FLOOR
                assert bool(all_recalled(torch.tensor(W, dtype=torch.float32), prob))
            else:
                assert r.weights is None and 0 <= r.margin <= INFEASIBLE_TOL
                # weak duality: no W in the box beats the bound, e.g. random sign matrices
                rng = np.random.default_rng(seed)
                for _ in range(20):
                    Wr = rng.choice([-1.0, 1.0], size=(d, d))
                    assert constraint_margins(Wr, prob).min() <= r.margin
            assert r.constraints <= prob.p * (prob.p - 1)


def test_feasible_certificate_in_exact_arithmetic() -> None:
    # near capacity: the smallest margins of the certifying W, recomputed with fractions
    prob = sample_problem(pairs_for_load(1.1, 10), 10, decoupled=True, seed=2)
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
    with pytest.raises(TypeError):
        lp_feasible(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="method"):
        lp_decide(sample_problem(4, 8, seed=0), method="simplex")
    with pytest.raises(ValueError, match="per_round"):
        lp_decide(sample_problem(4, 8, seed=0), per_round=0)
    with pytest.raises(ValueError, match="tol"):
        lp_decide(sample_problem(4, 8, seed=0), tol=0.0)
    with pytest.raises(ValueError, match="shape"):
        constraint_margins(np.zeros((3, 3)), sample_problem(4, 8, seed=0))
    # one round is not enough near capacity: the method says so instead of guessing
    prob = sample_problem(pairs_for_load(1.0, 12), 12, seed=0)
    with pytest.raises(RuntimeError, match="undecided"):
        lp_decide(prob, max_rounds=1)
    assert lp_size(10, 4) == 90 * 16
    assert lp_size(4, 8) <= LP_MAX_ENTRIES
