"""Tests for assocmem.context_gated (chapter 5): energy, dynamics, closed forms, drivers."""

from __future__ import annotations

import importlib
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from assocmem.context_gated.experiments import (  # noqa: E402
    relax_gate_retrieval,
    separation_experiment,
)
from assocmem.context_gated.fixed_point import fixed_point_trial  # noqa: E402
from assocmem.context_gated.hysteresis import hysteresis_sweep  # noqa: E402
from assocmem.context_gated.instances import (  # noqa: E402
    noisy_cue,
    sample_clustered_memories,
    sample_memories,
)
from assocmem.context_gated.model import ContextGatedMemory, State  # noqa: E402
from assocmem.context_gated.plots import (  # noqa: E402
    plot_architecture,
    plot_fixed_point_trial,
    plot_separation,
    plot_trajectory,
)
from assocmem.context_gated.theory import (  # noqa: E402
    alpha_crit,
    alpha_crit_of_spectrum,
    competition_matrix,
    competition_spectrum,
    contraction_constant,
    coupled_alpha_crit,
    coupled_gain,
    decompose_fixed_point,
    eta_min,
    first_order_scores,
    gate_eigenvalues,
    gate_fixed_point,
    gate_inverse,
    gate_matrix,
    gram,
    retrieval_bound,
    retrieval_threshold,
    self_consistent_fixed_point,
)
from assocmem.context_gated.transitions import gate_state, gate_transition  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def _model(
    N: int = 12,
    d: int = 6,
    *,
    alpha: float = 0.3,
    lam: float = 0.7,
    beta: float = 2.0,
    taus: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0),
) -> ContextGatedMemory:
    return ContextGatedMemory(
        sample_memories(N, d, seed=1), alpha=alpha, lam=lam, beta=beta, taus=taus, device="cpu"
    )


def _random_state(m: ContextGatedMemory, B: int = 5, seed: int = 0) -> State:
    g = torch.Generator().manual_seed(seed)

    def rn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    return State(c=rn(B, m.d_c), s=rn(B, m.N), q=rn(B, m.d), r=rn(B, m.N))


# --------------------------------------------------------------------------- energy and ODE
def test_rhs_equals_minus_energy_gradient_wrt_activations() -> None:
    taus = (0.5, 1.0, 2.0, 3.0)
    m = _model(taus=taus)
    st = _random_state(m)
    act = m.activations(st)
    act_leaf = State(*(a.clone().requires_grad_(True) for a in act))
    E = m.energy(st, act_leaf).sum()
    grads = torch.autograd.grad(E, list(act_leaf))
    rhs = m.rhs(st)
    for g, f, tau in zip(grads, rhs, taus, strict=True):
        torch.testing.assert_close(-g / tau, f, rtol=1e-10, atol=1e-10)


def test_energy_gradient_wrt_states_is_hessian_times_rhs() -> None:
    # dE/dx_l = Hess L_l (dE/dx̂_l) = -Hess L_l τ_l ẋ_l (identity Hessian except softmax layer)
    m = _model()
    st = State(*(x.clone().requires_grad_(True) for x in _random_state(m, seed=3)))
    grads = torch.autograd.grad(m.energy(st).sum(), list(st))
    rhs = m.rhs(State(*(x.detach() for x in st)))
    for k in range(3):
        torch.testing.assert_close(grads[k], -rhs[k], rtol=1e-10, atol=1e-10)
    p = torch.softmax(m.beta * st.r.detach(), -1)
    H = m.beta * (torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2))
    expected = -(H @ rhs.r.unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(grads[3], expected, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("clamp_query", [True, False])
def test_energy_non_increasing_subcritical(clamp_query: bool) -> None:
    m = _model(N=20, d=8, alpha=0.6, lam=1.5, beta=3.0)
    assert 0.6 < alpha_crit(m.Z)
    st = _random_state(m, B=6, seed=4)
    traj = m.integrate(
        st,
        t_end=6.0,
        dt=0.02,
        clamp_context=True,
        clamp_query=clamp_query,
        record_every=2,
        record_states=False,
    )
    dE = torch.diff(traj.energy, dim=0)
    assert float(dE.max()) <= 1e-10
    assert float((traj.energy[0] - traj.energy[-1]).min()) > 1e-3  # it really moved downhill


def test_clamping_holds_layers_fixed() -> None:
    m = _model()
    st = _random_state(m, B=2)
    traj = m.integrate(st, t_end=1.0, dt=0.1, clamp_context=True, clamp_query=True)
    torch.testing.assert_close(traj.final.c, st.c)
    torch.testing.assert_close(traj.final.q, st.q)
    assert not torch.allclose(traj.final.s, st.s)


# --------------------------------------------------------------------------- alpha_crit
def test_alpha_crit_is_one_when_N_exceeds_d() -> None:
    Z = sample_memories(50, 10, seed=0)
    assert alpha_crit(Z) == 1.0
    assert abs(eta_min(Z, 1.0)) < 1e-10
    assert eta_min(Z, 0.5) == pytest.approx(0.5, abs=1e-10)


def test_alpha_crit_matches_eigendecomposition_when_N_below_d() -> None:
    Z = sample_memories(6, 20, seed=2)
    mu_min = float(torch.linalg.eigvalsh(Z @ Z.T)[0])
    ac = alpha_crit(Z)
    assert ac == pytest.approx(1.0 / (1.0 - mu_min), rel=1e-10)
    assert ac > 1.0
    assert abs(eta_min(Z, ac)) < 1e-9
    A = gate_matrix(Z, 0.5)
    torch.testing.assert_close(A, 0.5 * torch.eye(6, dtype=A.dtype) + 0.5 * (Z @ Z.T))


def test_alpha_crit_infinite_for_orthonormal_memories() -> None:
    assert alpha_crit(torch.eye(4, dtype=torch.float64)) == math.inf


def test_coupled_alpha_crit_values() -> None:
    lams = (0.5, 1.0, 1.5, 2.0, 2.5, 4.0)
    got = [coupled_alpha_crit(1.0, lam, 5.0, 50) for lam in lams]
    np.testing.assert_allclose(got, [0.975, 0.9, 0.775, 0.6, 0.375, 0.0])
    assert isinstance(got[0], float)
    batch = coupled_alpha_crit(1.0, lams, 5.0, 50)  # a grid of λ at once, the same numbers
    assert isinstance(batch, np.ndarray) and batch.shape == (6,)
    np.testing.assert_array_equal(batch, got)
    # the gain λ²β/(Nη) reaches 1 exactly at the predicted point (η_min = 1 − α, α_crit = 1)
    for lam, a in zip(lams[:5], got[:5], strict=True):
        assert float(coupled_gain(lam, 5.0, 50, 1.0 - a)) == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="lam"):
        coupled_alpha_crit(1.0, [0.5, -1.0], 5.0, 50)
    with pytest.raises(ValueError, match="eta"):
        coupled_gain(1.0, 5.0, 50, 0.0)


# --------------------------------------------------------------------------- batched theory
def test_theory_takes_batches_of_memory_sets() -> None:
    """Every matrix function maps (..., N, d) to (..., N, N), set by set, dtype/device as asked."""
    Z = sample_clustered_memories(9, 4, trials=3, seed=1)  # (3, 9, 4)
    for t in range(3):
        z = Z[t]
        G = z @ z.T
        torch.testing.assert_close(gram(Z)[t], G, rtol=0, atol=1e-14)
        W = G - torch.diag(torch.diag(G))
        torch.testing.assert_close(competition_matrix(Z)[t], W, rtol=0, atol=1e-14)
        assert bool((torch.diagonal(competition_matrix(Z), dim1=-2, dim2=-1) == 0).all())
        A = torch.eye(9, dtype=torch.float64) + 0.4 * W
        torch.testing.assert_close(gate_matrix(Z, 0.4)[t], A, rtol=0, atol=1e-14)
    assert gate_matrix(Z, 0.4, dtype=torch.float32).dtype == torch.float32
    assert gram(Z.numpy()[0]).shape == (9, 9)  # numpy input, one set
    # spectrum, A(α)⁻¹ and its square root on an α grid, α_crit per set
    om, V = competition_spectrum(Z)
    assert om.shape == (3, 9) and V.shape == (3, 9, 9)
    alphas = [0.0, 0.3, 0.6]
    M = gate_inverse(om, V, alphas)
    assert M.shape == (3, 3, 9, 9)
    for i, a in enumerate(alphas):
        torch.testing.assert_close(M[i], torch.linalg.inv(gate_matrix(Z, a)))
        Mh = gate_inverse(om, V, a, sqrt=True)
        torch.testing.assert_close(Mh @ Mh, M[i])
        torch.testing.assert_close(
            gate_eigenvalues(om, a), torch.linalg.eigvalsh(gate_matrix(Z, a)), rtol=0, atol=1e-12
        )
    np.testing.assert_allclose(alpha_crit_of_spectrum(om).numpy(), 1.0, rtol=1e-8)  # N > d
    assert float(alpha_crit_of_spectrum(torch.tensor([[0.0, 1.0]]))[0]) == math.inf
    # gate fixed point and first-order scores, one A for all trials or one per trial
    g = torch.Generator().manual_seed(0)
    u = torch.randn(3, 9, generator=g, dtype=torch.float64)
    b = torch.randn(3, 9, generator=g, dtype=torch.float64)
    A = gate_matrix(Z, 0.3)
    s = gate_fixed_point(u, A)
    torch.testing.assert_close((A @ s.unsqueeze(-1)).squeeze(-1), u)
    torch.testing.assert_close(first_order_scores(b, u, A, 0.7), b + 0.7 * s)
    s0 = gate_fixed_point(u, A[0])
    torch.testing.assert_close(s0 @ A[0], u)
    s32 = gate_fixed_point(u.float(), A[0])  # float64 inverse, float32 result
    assert s32.dtype == torch.float32
    torch.testing.assert_close(s32, s0.float())
    with pytest.raises(ValueError, match="one memory set"):
        alpha_crit(Z)
    with pytest.raises(ValueError, match="shape"):
        gate_fixed_point(u[:, :5], A)


# --------------------------------------------------------------------------- fixed points
def test_closed_form_fixed_point_matches_long_integration() -> None:
    m = _model(N=15, d=6, alpha=0.3, lam=0.6, beta=2.0)
    assert contraction_constant(m.Z, 0.3, 0.6, 2.0) < 1
    g = torch.Generator().manual_seed(5)
    q = torch.randn(3, m.d, generator=g, dtype=torch.float64)
    c = torch.randn(3, m.d_c, generator=g, dtype=torch.float64)
    traj = m.integrate(m.initial_state(q, c), t_end=100.0, dt=0.2, record_states=False)
    b, u = m.query_similarities(q), m.context_input(c)
    fp = self_consistent_fixed_point(b, u, m.A, lam=0.6, beta=2.0, tol=1e-13)
    assert bool(fp.converged.all())
    torch.testing.assert_close(traj.final.r, fp.r, rtol=0, atol=1e-8)
    torch.testing.assert_close(traj.final.s, fp.s, rtol=0, atol=1e-8)
    terms = decompose_fixed_point(b, u, m.A, fp.p, lam=0.6)
    torch.testing.assert_close(sum(terms.values()), fp.r, rtol=0, atol=1e-10)
    # first-order scores are the first two terms
    torch.testing.assert_close(
        first_order_scores(b, u, m.A, 0.6), terms["query"] + terms["context"], rtol=0, atol=1e-10
    )


def test_contraction_bound_holds() -> None:
    Z = sample_memories(30, 8, seed=7)
    alpha, lam, beta = 0.5, 0.9, 2.5
    A = gate_matrix(Z, alpha)
    L = contraction_constant(Z, alpha, lam, beta)
    assert L == pytest.approx(beta * lam**2 / (2 * 0.5), rel=1e-9)  # η_min = 1 − α for N > d
    M = torch.linalg.inv(A)
    g = torch.Generator().manual_seed(0)
    bias = torch.randn(30, generator=g, dtype=torch.float64)

    def phi(p: torch.Tensor) -> torch.Tensor:
        return torch.softmax(beta * (bias + lam**2 * p @ M), dim=-1)

    p1 = torch.softmax(3 * torch.randn(200, 30, generator=g, dtype=torch.float64), -1)
    p2 = torch.softmax(3 * torch.randn(200, 30, generator=g, dtype=torch.float64), -1)
    lhs = (phi(p1) - phi(p2)).norm(dim=-1)
    rhs = L * (p1 - p2).norm(dim=-1)
    assert bool((lhs <= rhs + 1e-12).all())


def test_unique_fixed_point_when_contracting_and_not_otherwise() -> None:
    Z = sample_memories(20, 6, seed=3)
    N = 20
    b = torch.zeros(2, N, dtype=torch.float64)
    u = torch.full((2, N), 1.0 / N, dtype=torch.float64)
    starts = torch.zeros(2, N, dtype=torch.float64)
    starts[0, 0], starts[1, 1] = 5.0, 5.0
    # contracting: both starts reach the same point
    A = gate_matrix(Z, 0.2)
    assert contraction_constant(Z, 0.2, 0.5, 2.0) < 1
    fp = self_consistent_fixed_point(b, u, A, lam=0.5, beta=2.0, r0=starts, tol=1e-13)
    torch.testing.assert_close(fp.r[0], fp.r[1], rtol=0, atol=1e-10)
    # far beyond the bound (λ²β > N): two different winner-take-all fixed points
    assert contraction_constant(Z, 0.2, 4.0, 5.0) > 1
    fp2 = self_consistent_fixed_point(b, u, A, lam=4.0, beta=5.0, r0=starts, tol=1e-12)
    assert bool(fp2.converged.all())
    assert fp2.p[0].argmax() == 0 and fp2.p[1].argmax() == 1
    assert float(fp2.p.amax(-1).min()) > 0.99


def test_relaxation_reaches_self_consistent_fixed_point() -> None:
    Z = sample_memories(20, 6, seed=4)
    A = gate_matrix(Z, 0.1)
    g = torch.Generator().manual_seed(1)
    b = torch.randn(8, 20, generator=g, dtype=torch.float64)
    u = torch.randn(8, 20, generator=g, dtype=torch.float64)
    r, res = relax_gate_retrieval(b, u, A, 0.5, 2.0, t_end=20.0, tol=1e-12)
    fp = self_consistent_fixed_point(b, u, A, lam=0.5, beta=2.0, tol=1e-13)
    torch.testing.assert_close(r, fp.r, rtol=0, atol=1e-9)


def test_gate_state_transient_matches_integration() -> None:
    # λ = 0, gates only: the closed-form transient of τ_s ṡ = u − A s equals the integrated ODE
    Z = sample_memories(12, 4, seed=8)
    for alpha in (0.5, 1.3):  # sub- and supercritical
        m = ContextGatedMemory(Z, alpha=alpha, lam=0.0, beta=1.0, device="cpu")
        c = torch.randn(1, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
        s0 = 0.1 * torch.ones(1, 12, dtype=torch.float64)
        st = m.initial_state(torch.zeros(1, 4, dtype=torch.float64), c, s=s0)
        traj = m.integrate(st, t_end=3.0, dt=0.01, record_states=False)
        ev, V = torch.linalg.eigh(m.W_h2)
        s = gate_state(ev, V, m.context_input(c), alpha, s0=s0, t_end=3.0, eta_floor=10.0)
        torch.testing.assert_close(s, traj.final.s, rtol=1e-8, atol=1e-9)
    # subcritical with the fixed-point branch: s* = A⁻¹u
    u = torch.rand(12, dtype=torch.float64)
    ev, V = torch.linalg.eigh(gate_matrix(Z, 0.5) - torch.eye(12, dtype=torch.float64))
    torch.testing.assert_close(
        gate_state(ev / 0.5, V, u, 0.5), torch.linalg.solve(gate_matrix(Z, 0.5), u)
    )


def test_gate_transition_jumps_at_alpha_crit() -> None:
    res = gate_transition([0.5, 0.9, 1.4], trials=40, progress=False)
    m = res.peak.mean(1)
    assert m[0] < 0.05 and m[1] < 0.05  # ≈ 1/N = 0.02 below α_crit
    assert m[2] > 0.95  # winner-take-all above α_crit = 1
    assert np.all(res.alpha_crit == 1.0)


# --------------------------------------------------------------------------- retrieval theory
def test_retrieval_threshold_formula() -> None:
    th = retrieval_threshold(50, 3.5, 0.05)
    assert th == pytest.approx(math.log(0.95 * 49 / 0.05) / 3.5, rel=1e-12)
    assert round(th, 2) == 1.95
    assert float(retrieval_bound(th, 50, 3.5)) == pytest.approx(0.95, rel=1e-12)
    assert float(retrieval_bound(0.0, 50, 3.5)) == pytest.approx(1 / 50)


def test_bound_below_softmax_target_probability() -> None:
    g = torch.Generator().manual_seed(0)
    r = 2 * torch.randn(1000, 50, generator=g, dtype=torch.float64)
    others = r[:, 1:].amax(-1)
    gap = (r[:, 0] - others).numpy()
    p = torch.softmax(3.5 * r, -1)[:, 0].numpy()
    assert np.all(p >= retrieval_bound(gap, 50, 3.5) - 1e-12)


def test_separation_experiment_small() -> None:
    kw = dict(sigma_q=[0.0, 1.0], lambdas=(0.0, 2.0), trials=300, noise="unit", progress=False)
    r1 = separation_experiment(**kw, seed=3)
    r2 = separation_experiment(**kw, seed=3)
    np.testing.assert_array_equal(r1.accuracy, r2.accuracy)
    assert r1.accuracy[0, 0] == 1.0  # noiseless query, no context: always right
    assert r1.accuracy[1, 1] > r1.accuracy[0, 1] + 0.1  # context helps at σ_q = 1
    bound = retrieval_bound(r1.delta.astype(np.float64), 50, 3.5)
    assert np.all(r1.target_prob >= bound - 1e-4)
    np.testing.assert_array_equal(r1.accuracy, (r1.delta > 0).mean(-1))
    rf = separation_experiment(**kw, seed=3, feedback=True)
    assert rf.accuracy.shape == (2, 2) and rf.accuracy[0, 0] == 1.0


# --------------------------------------------------------------------------- bad inputs
def test_bad_inputs_raise() -> None:
    Z = sample_memories(10, 4, seed=0)
    bad = Z.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        ContextGatedMemory(bad, alpha=0.1, lam=1.0, beta=1.0)
    with pytest.raises(ValueError, match="beta"):
        ContextGatedMemory(Z, alpha=0.1, lam=1.0, beta=0.0)
    with pytest.raises(ValueError, match="beta"):
        ContextGatedMemory(Z, alpha=0.1, lam=1.0, beta=-2.0)
    with pytest.raises(ValueError, match="alpha"):
        ContextGatedMemory(Z, alpha=-0.1, lam=1.0, beta=1.0)
    with pytest.raises(ValueError, match="lam"):
        ContextGatedMemory(Z, alpha=0.1, lam=-1.0, beta=1.0)
    with pytest.raises(ValueError, match="W_h1"):
        ContextGatedMemory(Z, alpha=0.1, lam=1.0, beta=1.0, W_h1=torch.ones(9, 3))
    with pytest.raises(TypeError, match=r"memories must be a numpy array or torch tensor"):
        ContextGatedMemory([[1.0, 0.0]], alpha=0.1, lam=1.0, beta=1.0)  # type: ignore[arg-type]
    m = ContextGatedMemory(Z, alpha=0.1, lam=1.0, beta=1.0, device="cpu")
    with pytest.raises(ValueError, match="q must have shape"):
        m.initial_state(torch.zeros(2, 5), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="same batch size"):
        m.initial_state(torch.zeros(2, 4), torch.zeros(3, 4))
    with pytest.raises(ValueError, match="shape"):
        ContextGatedMemory(torch.ones(5), alpha=0.1, lam=1.0, beta=1.0)
    with pytest.raises(ValueError, match="beta"):
        retrieval_threshold(50, 0.0, 0.05)
    with pytest.raises(ValueError, match="eps"):
        retrieval_threshold(50, 3.5, 1.0)
    with pytest.raises(ValueError, match="N"):
        retrieval_threshold(1, 3.5, 0.05)
    with pytest.raises(ValueError, match="alpha"):
        gate_matrix(Z, float("nan"))
    with pytest.raises(ValueError, match="positive definite"):
        self_consistent_fixed_point(
            torch.zeros(10), torch.zeros(10), gate_matrix(Z, 1.5), lam=1.0, beta=1.0
        )
    with pytest.raises(ValueError, match="shapes"):
        self_consistent_fixed_point(
            torch.zeros(9), torch.zeros(9), gate_matrix(Z, 0.1), lam=1.0, beta=1.0
        )
    with pytest.raises(ValueError, match="noise"):
        separation_experiment(trials=2, noise="bogus", progress=False)
    with pytest.raises(ValueError, match="alpha"):
        separation_experiment(trials=2, alpha=1.5, progress=False)
    with pytest.raises(ValueError, match="method"):
        m.integrate(m.initial_state(torch.zeros(4), torch.zeros(4)), t_end=1.0, method="rk2")


# --------------------------------------------------------------------------- noisy cue
def test_noisy_cue_is_the_formula_with_the_same_draws() -> None:
    Z = sample_memories(8, 10, seed=0)
    g = torch.Generator().manual_seed(3)
    q = noisy_cue(Z[0], 0.8, seed=g, n=4)
    c = noisy_cue(Z[0], 0.3, seed=g)
    # the same generator calls, in the same order, as the formula written out
    g2 = torch.Generator().manual_seed(3)
    q_ref = Z[0] + 0.8 * torch.randn(4, 10, generator=g2, dtype=torch.float64) / 10**0.5
    c_ref = Z[0] + 0.3 * torch.randn(10, generator=g2, dtype=torch.float64) / 10**0.5
    assert torch.equal(q, q_ref) and torch.equal(c, c_ref)
    assert q.shape == (4, 10) and c.shape == (10,) and q.dtype == torch.float64
    # per-component noise has norm ~ sigma sqrt(d); unit noise ~ sigma
    big = noisy_cue(torch.zeros(10, dtype=torch.float64), 1.0, n=4000, seed=1)
    per = noisy_cue(
        torch.zeros(10, dtype=torch.float64), 1.0, n=4000, seed=1, noise="per_component"
    )
    assert float(big.norm(dim=1).pow(2).mean()) == pytest.approx(1.0, rel=0.05)
    torch.testing.assert_close(per, big * 10**0.5)
    # a grid of levels shares one draw (common random numbers)
    grid = noisy_cue(Z[:3], [0.0, 1.0, 2.0], seed=5)
    assert grid.shape == (3, 3, 10)
    torch.testing.assert_close(grid[0], Z[:3])
    torch.testing.assert_close(grid[2] - Z[:3], 2 * (grid[1] - Z[:3]))
    assert torch.equal(grid[1], noisy_cue(Z[:3], 1.0, seed=5))
    with pytest.raises(ValueError, match="sigma"):
        noisy_cue(Z[0], -1.0)
    with pytest.raises(ValueError, match="noise"):
        noisy_cue(Z[0], 1.0, noise="bogus")
    with pytest.raises(ValueError, match="n is only allowed"):
        noisy_cue(Z, 1.0, n=3)
    with pytest.raises(TypeError, match="memory"):
        noisy_cue(np.zeros(3), 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        noisy_cue(Z[0], 1.0, seed=1.5)  # type: ignore[arg-type]


def test_lambdas_is_the_grid_name_of_both_drivers() -> None:
    sep = separation_experiment(
        N=10, d=4, sigma_q=[0.5], lambdas=(0.0, 1.0), trials=20, progress=False
    )
    np.testing.assert_array_equal(sep.lambdas, [0.0, 1.0])
    hy = hysteresis_sweep([0.1, 0.5], lambdas=(0.5, 1.0), N=10, d=4, trials=2)
    np.testing.assert_array_equal(hy.lambdas, [0.5, 1.0])
    assert hy.up.shape == (2, 2, 2)
    with pytest.raises(ValueError, match="lambdas"):
        separation_experiment(lambdas=(-1.0,), trials=2, progress=False)
    with pytest.raises(ValueError, match="lambdas"):
        hysteresis_sweep([0.1, 0.5], lambdas=(), trials=2)


# --------------------------------------------------------------------------- figures
def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text)]


def test_architecture_figure_names_layers_and_hypersynapses() -> None:
    fig = plot_architecture()
    texts = " ".join(_texts(fig))
    for word in ("context", "gates", "query", "retrieval", "$h_1$", "$h_2$", "$h_3$", "$h_4$"):
        assert word in texts
    assert len(fig.axes[0].patches) == 4 + 4  # four layer boxes, four hypersynapse arrows
    matplotlib.pyplot.close(fig)


def test_fixed_point_trial_figure_draws_three_terms_and_reports_uniqueness() -> None:
    trial = fixed_point_trial(lam=0.5, noise=1.0)
    assert trial.unique and trial.converged and trial.terms is not None and trial.p is not None
    r = sum(trial.terms.values())
    torch.testing.assert_close(trial.p, torch.softmax(3.5 * r, dim=-1))  # r* is a fixed point
    fig = plot_fixed_point_trial(trial)
    left, right = fig.axes
    assert left.get_ylabel() == "contribution to $r^*_\\nu$"
    assert right.get_ylabel() == "retrieval probability $p^*_\\nu$"
    assert len(left.containers) == 3  # query, context, feedback bars
    assert len(left.containers[0]) == 12  # the top 12 memories
    title = fig._suptitle.get_text()
    assert "unique (contraction)" in title and "converged" in title and "NOT" not in title
    matplotlib.pyplot.close(fig)
    fig = plot_fixed_point_trial(fixed_point_trial(alpha=0.9, lam=1.0))  # beyond the bound
    assert "uniqueness not guaranteed" in fig._suptitle.get_text()
    matplotlib.pyplot.close(fig)
    above = fixed_point_trial(alpha=1.2)  # A(α) indefinite: nothing to decompose
    assert above.terms is None and math.isinf(above.contraction)
    fig = plot_fixed_point_trial(above)
    assert "not positive definite" in " ".join(_texts(fig))
    matplotlib.pyplot.close(fig)


def test_trajectory_records_the_retrieval_activation_the_figure_draws() -> None:
    m = _model()
    g = torch.Generator().manual_seed(3)
    q = torch.randn(2, m.d, generator=g, dtype=torch.float64)
    traj = m.integrate(m.initial_state(q, q), t_end=1.0, dt=0.1)
    assert traj.states is not None and traj.retrieval is not None
    torch.testing.assert_close(traj.retrieval, torch.softmax(m.beta * traj.states.r, dim=-1))
    fig = plot_trajectory(traj, target=0)
    assert len(fig.axes[1].get_lines()) == m.N
    matplotlib.pyplot.close(fig)
    assert m.integrate(m.initial_state(q, q), t_end=0.5, record_states=False).retrieval is None


def test_separation_and_coupled_plots_draw_one_curve_per_lambda() -> None:
    sep = separation_experiment(
        N=10, d=4, sigma_q=[0.0, 1.0, 2.0], lambdas=(0.0, 1.0, 4.0), trials=30, progress=False
    )
    fig = plot_separation({"a": sep, "b": sep})
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert ax.get_xlabel() == "query noise $\\sigma_q$"
        assert len(ax.containers) == 3  # one error-bar curve per lambda
    assert fig.axes[0].get_ylabel() == "accuracy (simulation)"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]  # one legend below
    assert labels == ["λ = 0", "λ = 1", "λ = 4"]
    lo, hi = sep.ci_low, sep.ci_high  # 95 % Wilson intervals around every accuracy
    assert np.all(lo <= sep.accuracy + 1e-12) and np.all(sep.accuracy <= hi + 1e-12)
    matplotlib.pyplot.close(fig)


# --------------------------------------------------------------------------- docstrings
#: The labelled equation of chapter 5 that each public function of context_gated implements.
EQUATION_OF = {
    "theory.competition_matrix": "eq-cg-energy",
    "theory.gate_matrix": "eq-cg-A",
    "theory.competition_spectrum": "eq-cg-A",
    "theory.gate_eigenvalues": "eq-cg-A",
    "theory.gate_fixed_point": "eq-cg-A",
    "theory.gate_inverse": "eq-cg-fixed-point",
    "theory.first_order_scores": "eq-cg-fixed-point",
    "theory.self_consistent_fixed_point": "eq-cg-fixed-point",
    "theory.decompose_fixed_point": "eq-cg-fixed-point",
    "theory.contraction_constant": "eq-cg-contraction",
    "theory.retrieval_threshold": "eq-cg-threshold",
    "theory.retrieval_bound": "eq-cg-threshold",
    "theory.eta_min": "eq-cg-alpha-crit",
    "theory.alpha_crit": "eq-cg-alpha-crit",
    "theory.alpha_crit_of_spectrum": "eq-cg-alpha-crit",
    "theory.coupled_alpha_crit": "eq-cg-coupled-crit",
    "theory.coupled_gain": "eq-cg-coupled-crit",
    "model.ContextGatedMemory": "eq-cg-dynamics",
    "model.ContextGatedMemory.energy_terms": "eq-cg-energy",
    "model.ContextGatedMemory.energy": "eq-cg-energy",
    "model.ContextGatedMemory.currents": "eq-cg-dynamics",
    "model.ContextGatedMemory.rhs": "eq-cg-dynamics",
    "model.ContextGatedMemory.integrate": "eq-cg-dynamics",
    "experiments.relax_gate_retrieval": "eq-cg-dynamics",
    "experiments.separation_experiment": "eq-cg-gaps",
    "onestep.top_gap": "eq-cg-gaps",
    "onestep.gap_decomposition": "eq-cg-gaps",
    "onestep.one_step_update": "eq-cg-mhn",
    "onestep.one_step_error_bound": "eq-cg-one-step",
    "transitions.gate_state": "eq-cg-A",
    "transitions.gate_transition": "eq-cg-alpha-crit",
    "winner.scale_for_winner": "eq-cg-tstar",
    "winner.predicted_winner_time": "eq-cg-tstar",
    "winner.winner_time_experiment": "eq-cg-tstar",
    "hysteresis.map_jacobian_radius": "eq-cg-fixed-point",
    "hysteresis.hysteresis_sweep": "eq-cg-fixed-point",
    "fixed_point.fixed_point_trial": "eq-cg-fixed-point",
}


def test_docstrings_name_the_equation_they_implement() -> None:
    """A function that implements a labelled equation of chapter 5 names its label."""
    page = (Path(__file__).resolve().parents[2] / "book" / "05_context_gated_memory.md").read_text()
    labels = set(re.findall(r"\$\$ \((eq-[\w-]+)\)", page))
    assert labels == set(EQUATION_OF.values()), "every labelled equation has a home, and only those"
    missing = []
    for name, label in EQUATION_OF.items():
        module, *attrs = name.split(".")
        obj = importlib.import_module(f"assocmem.context_gated.{module}")
        for a in attrs:
            obj = getattr(obj, a)
        if label not in (obj.__doc__ or ""):
            missing.append(f"{name}: {label}")
    assert not missing, "docstrings that do not name their equation:\n" + "\n".join(missing)
