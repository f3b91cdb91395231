"""Tests for chapter 5's one-step retrieval, winner-time and hysteresis functions.

Every expected value is independent of the code under test: a closed form, a limit, a brute-force
loop, scipy, or an ODE solver.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from assocmem.context_gated.hysteresis import (
    HysteresisResult,
    hysteresis_sweep,
    map_jacobian_radius,
)
from assocmem.context_gated.instances import sample_clustered_memories, sample_memories
from assocmem.context_gated.onestep import (
    binned_quantile,
    gap_decomposition,
    one_step_error_bound,
    one_step_experiment,
    one_step_update,
    summarize_one_step,
    tail_slope,
    top_gap,
)
from assocmem.context_gated.plots_dynamics import (
    plot_hysteresis,
    plot_one_step,
    plot_winner_time,
)
from assocmem.context_gated.theory import gate_matrix
from assocmem.context_gated.winner import (
    WinnerTimeResult,
    critical_projector,
    predicted_winner_time,
    scale_for_winner,
    winner_fraction_crossing,
    winner_time_experiment,
)
from assocmem.stats import bootstrap_interval
from assocmem.streams import child
from matplotlib import pyplot as plt
from scipy.integrate import solve_ivp


# --------------------------------------------------------------------------- one step
def test_gap_decomposition_brute_force() -> None:
    g = torch.Generator().manual_seed(0)
    b = torch.randn(40, 7, generator=g, dtype=torch.float64)
    s = torch.randn(40, 7, generator=g, dtype=torch.float64)
    tgt = torch.randint(0, 7, (40,), generator=g)
    lam = 1.7
    out = gap_decomposition(b, s, lam, tgt)
    for i in range(40):
        m = int(tgt[i])
        others = [j for j in range(7) if j != m]
        raw = float(b[i, m]) - max(float(b[i, j]) for j in others)
        gate = float(s[i, m]) - max(float(s[i, j]) for j in others)
        full = float(b[i, m] + lam * s[i, m]) - max(float(b[i, j] + lam * s[i, j]) for j in others)
        assert float(out["raw"][i]) == pytest.approx(raw)
        assert float(out["gate"][i]) == pytest.approx(gate)
        assert float(out["paper"][i]) == pytest.approx(raw + lam * gate)
        assert float(out["full"][i]) == pytest.approx(full)
        assert full >= raw + lam * gate - 1e-12


def test_one_step_update_brute_force_and_zero_temperature_limit() -> None:
    Z = sample_memories(6, 4, seed=2)
    r = torch.randn(3, 6, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    beta = 1.3
    q1 = one_step_update(Z, r, beta)
    for i in range(3):
        w = np.exp(beta * r[i].numpy())
        w /= w.sum()
        ref = sum(w[k] * Z[k].numpy() for k in range(6))
        np.testing.assert_allclose(q1[i].numpy(), ref, atol=1e-12)
    # β → ∞: the update returns the memory with the largest score
    q_inf = one_step_update(Z, r, 1e4)
    np.testing.assert_allclose(q_inf.numpy(), Z[r.argmax(1)].numpy(), atol=1e-10)


def test_one_step_bound_is_attained_by_antipodal_tied_competitors() -> None:
    # all competitors equal to -ζ^μ and tied: ‖q' - ζ^μ‖ = 2(1 - p_μ) exactly, and
    # 1 - p_μ = (N-1)e^{-βΔ}/(1 + (N-1)e^{-βΔ})
    N, beta = 9, 2.0
    zeta = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
    Z = torch.stack([zeta] + [-zeta] * (N - 1))
    for delta in (-1.0, 0.0, 0.7, 3.0):
        r = torch.zeros(1, N, dtype=torch.float64)
        r[0, 0] = delta
        err = float((one_step_update(Z, r, beta)[0] - zeta).norm())
        assert err == pytest.approx(float(one_step_error_bound(beta * delta, N)), rel=1e-12)


def test_one_step_bound_holds_on_random_instances() -> None:
    g = torch.Generator().manual_seed(4)
    Z = 1.7 * sample_memories(20, 5, seed=5)  # norm M = 1.7
    r = 2 * torch.randn(500, 20, generator=g, dtype=torch.float64)
    tgt = torch.randint(0, 20, (500,), generator=g)
    beta = 2.5
    err = (one_step_update(Z, r, beta) - Z[tgt]).norm(dim=1).numpy()
    bd = beta * top_gap(r, tgt).numpy()
    assert np.all(err <= one_step_error_bound(bd, 20, M=1.7) + 1e-12)
    assert np.all(
        one_step_error_bound(bd, 20, M=1.7) <= one_step_error_bound(bd, 20, M=1.7, tight=False)
    )


def test_one_step_experiment_invariants() -> None:
    res = one_step_experiment(sigma_q=(0.5, 2.0), lambdas=(0.0, 2.0), trials=300, seed=1)
    assert res.error.shape == (2, 2, 300)
    assert np.all(res.delta_full >= res.delta_paper - 1e-12)
    np.testing.assert_allclose(res.delta_full[0], res.delta_raw[0], atol=1e-12)  # λ = 0
    bd = res.params["beta"] * res.delta_full
    assert np.all(res.error <= one_step_error_bound(bd, 50) + 1e-12)


def test_tail_slope_of_exact_exponential() -> None:
    x = np.linspace(0, 20, 200)
    slope, lo, hi = tail_slope(x, 3.0 * np.exp(-0.8 * x), x_min=2.0)
    assert slope == pytest.approx(-0.8, abs=1e-10)
    assert lo == pytest.approx(-0.8, abs=1e-8) and hi == pytest.approx(-0.8, abs=1e-8)


def test_binned_quantile_medians() -> None:
    x = np.repeat([0.5, 1.5, 2.5], 101)
    y = np.concatenate([np.arange(101.0), 10 + np.arange(101.0), np.zeros(101)])
    out = binned_quantile(x, y, [0, 1, 2, 3], min_count=10)
    np.testing.assert_allclose(out["value"], [50.0, 60.0, 0.0])
    np.testing.assert_allclose(out["centre"], [0.5, 1.5, 2.5])
    assert np.all(out["low"] <= out["value"]) and np.all(out["value"] <= out["high"])


# --------------------------------------------------------------------------- winner time
def test_scale_for_winner_closed_form() -> None:
    N, beta, delta = 30, 3.5, 0.05
    v = torch.zeros(2, N, dtype=torch.float64)
    v[0, 4] = 1.0
    v[1, :] = 0.2
    v[1, 7] = 0.7  # gap 0.5
    x = scale_for_winner(v, beta, delta)
    exact = math.log((1 - delta) * (N - 1) / delta) / beta
    assert float(x[0]) == pytest.approx(exact, rel=1e-10)
    assert float(x[1]) == pytest.approx(exact / 0.5, rel=1e-10)


def test_critical_projector_is_kernel_projector_for_n_above_d() -> None:
    Z = sample_memories(12, 4, seed=6)
    P = critical_projector(Z)
    ref = torch.eye(12, dtype=torch.float64) - Z @ torch.linalg.solve(Z.T @ Z, Z.T)
    np.testing.assert_allclose(P.numpy(), ref.numpy(), atol=1e-10)


def test_predicted_winner_time_closed_form_and_limit() -> None:
    Z = sample_clustered_memories(20, 5, seed=7)
    u = torch.full((20,), 1 / 20, dtype=torch.float64)
    beta, delta = 3.5, 0.05
    out = predicted_winner_time(Z, u, [1.5, 1.0, 1.0 + 1e-9, 1.0 - 1e-9], beta=beta, delta=delta)
    xi = critical_projector(Z) @ u
    x = float(scale_for_winner(xi[None], beta, delta)[0])
    assert out["t_kernel"][0] == pytest.approx(math.log(1 + 0.5 * x) / 0.5, rel=1e-10)
    assert out["t_kernel"][1] == pytest.approx(x, rel=1e-10)  # γ = 0: linear growth
    assert out["t_kernel"][2] == pytest.approx(x, rel=1e-5)  # continuous at α_crit
    assert out["t_kernel"][3] == pytest.approx(x, rel=1e-5)
    # the kernel state reaches p_max = 1 - δ at t_kernel
    t = out["t_kernel"][0]
    state = xi * (math.exp(0.5 * t) - 1) / 0.5
    assert float(torch.softmax(beta * state, 0).max()) == pytest.approx(1 - delta, abs=1e-8)


def test_predicted_winner_time_scales_with_tau_s_and_matches_the_kernel_ode() -> None:
    # t* is proportional to τ_s exactly, and at τ_s = 2 it is the time at which the integrated
    # critical-mode dynamics τ_s ẋ = c + γ x (x(0) = 0, c = P_min u) put p_max at 1 − δ.
    Z = sample_clustered_memories(20, 5, seed=7)
    u = torch.full((20,), 1 / 20, dtype=torch.float64)
    beta, delta, alphas = 3.5, 0.05, [0.0, 1.0, 1.2, 1.5, 2.0]
    one = predicted_winner_time(Z, u, alphas, beta=beta, delta=delta, tau_s=1.0)
    for tau in (0.5, 2.0, 7.0):
        out = predicted_winner_time(Z, u, alphas, beta=beta, delta=delta, tau_s=tau)
        np.testing.assert_allclose(out["t_kernel"], tau * one["t_kernel"], rtol=1e-12)
        np.testing.assert_allclose(out["t_eq47"], tau * one["t_eq47"], rtol=1e-12)
    tau, alpha = 2.0, 1.5
    out = predicted_winner_time(Z, u, [alpha], beta=beta, delta=delta, tau_s=tau)
    t_star, gamma = float(out["t_kernel"][0]), float(out["gamma"][0])
    xi = (critical_projector(Z) @ u).numpy()

    def rhs(_t: float, x: np.ndarray) -> np.ndarray:
        return (xi + gamma * x) / tau

    def hit(_t: float, x: np.ndarray) -> float:
        return float(torch.softmax(beta * torch.from_numpy(x), 0).max()) - (1 - delta)

    hit.terminal = True  # type: ignore[attr-defined]
    sol = solve_ivp(rhs, (0.0, 10 * t_star), np.zeros_like(xi), events=hit, rtol=1e-11,
                    atol=1e-14)  # fmt: skip
    assert sol.t_events[0].size == 1
    assert float(sol.t_events[0][0]) == pytest.approx(t_star, rel=1e-6)
    # the formula that divides γx* by τ_s is off by far more than the tolerance here
    x = float(scale_for_winner(torch.from_numpy(xi)[None], beta, delta)[0])
    wrong = tau / gamma * math.log(1 + gamma * x / tau)
    assert abs(wrong - t_star) / t_star > 0.05


def test_winner_time_matches_ode_solver() -> None:
    N, d, beta, delta, alpha = 12, 4, 3.5, 0.05, 1.6
    res = winner_time_experiment([alpha], N=N, d=d, beta=beta, delta=delta, trials=2,
                                 t_max=80.0, dt=0.05, seed=3)  # fmt: skip
    Z = sample_clustered_memories(N, d, trials=2, seed=3)
    for t in range(2):
        A = gate_matrix(Z[t], alpha).numpy()
        u = np.full(N, 1 / N)

        def rhs(_t: float, s: np.ndarray, A: np.ndarray = A, u: np.ndarray = u) -> np.ndarray:
            return u - A @ s

        def event(_t: float, s: np.ndarray) -> float:
            z = beta * s
            p = np.exp(z - z.max())
            return float(p.max() / p.sum() - (1 - delta))

        event.terminal = True  # type: ignore[attr-defined]
        sol = solve_ivp(rhs, (0, 80), np.zeros(N), method="LSODA",
                        events=event, rtol=1e-10, atol=1e-12)  # fmt: skip
        assert res.t_measured[0, t] == pytest.approx(sol.t_events[0][0], rel=2e-3)


def test_winner_time_large_alpha_follows_critical_modes() -> None:
    res = winner_time_experiment([2.0, 0.5], trials=8, t_max=60.0, seed=1)
    # measured over 64 memory sets (roots 0-7): median relative error 6e-4, largest 0.021 (one
    # set here, whose two largest entries of P_min u nearly tie)
    rel = np.abs(res.t_measured[0] / res.t_predicted[0] - 1)
    assert np.median(rel) < 0.005 and rel.max() < 0.03
    assert np.all(res.winner_match[0])
    assert np.all(np.isinf(res.t_measured[1])) and np.all(np.isinf(res.t_predicted[1]))


# --------------------------------------------------------------------------- hysteresis
def test_map_jacobian_radius_brute_force_and_uniform_limit() -> None:
    g = torch.Generator().manual_seed(8)
    Z = sample_memories(10, 4, seed=9)
    M = torch.linalg.inv(gate_matrix(Z, 0.4))
    p = torch.softmax(torch.randn(10, generator=g, dtype=torch.float64), 0)
    lam, beta = 1.3, 4.0
    J = lam**2 * beta * M.numpy() @ (np.diag(p.numpy()) - np.outer(p.numpy(), p.numpy()))
    ref = np.abs(np.linalg.eigvals(J)).max()
    assert float(map_jacobian_radius(M, p, lam=lam, beta=beta)) == pytest.approx(ref, rel=1e-9)
    # M = c I, uniform p: λ²β c / N (the gain of Thm C.2)
    uni = torch.full((10,), 0.1, dtype=torch.float64)
    val = map_jacobian_radius(2.5 * torch.eye(10, dtype=torch.float64), uni, lam=lam, beta=beta)
    assert float(val) == pytest.approx(lam**2 * beta * 2.5 / 10, rel=1e-12)


def test_hysteresis_sweep_invariants() -> None:
    alphas = np.linspace(0.0, 0.9, 10)
    h = hysteresis_sweep(alphas, (0.3, 2.0), trials=3, seed=2)
    # weak coupling: λ²β/(N η_min) < 1 on the whole grid, one uniform state, no winner
    assert np.all(h.up[0] < 0.1) and np.all(h.down[0] < 0.1)
    # strong coupling: the winner state, once reached, is kept downwards (down >= up)
    assert np.all(h.down[1] >= h.up[1] - 1e-9)
    assert np.all(h.up[1, -1] > 0.9)
    np.testing.assert_allclose(h.gain_formula[1], 4 * 5 / (50 * (1 - alphas)))
    # the uniform branch is linearly stable where the sweep stays on it
    uni = h.up[1] < 0.5
    assert np.all(h.radius_up[1][uni] < 1.0)


def test_jump_helpers_on_a_hand_made_result() -> None:
    a = np.array([0.0, 0.1, 0.2, 0.3])
    up = np.array([[[0.02], [0.02], [0.9], [1.0]]])
    down = np.array([[[0.02], [0.8], [0.9], [1.0]]])
    h = HysteresisResult(a, np.array([1.0]), up, down, up, up, np.zeros((1, 4)), np.ones((1, 4)))
    assert h.jump_up()[0, 0] == pytest.approx(0.2)
    assert h.jump_down()[0, 0] == pytest.approx(0.1)


def test_winner_fraction_crossing_on_a_hand_made_result() -> None:
    a = np.array([1.0, 1.1, 1.2, 1.3])
    # sets reach WTA by t_h = 10 from alpha index 1, 2, 2, 3: fraction 0, 1/4, 3/4, 1
    t = np.full((4, 4), np.inf)
    for s_, first in enumerate([1, 2, 2, 3]):
        t[first:, s_] = 5.0
    res = WinnerTimeResult(a, t, t, t, np.ones((4, 4), dtype=bool))
    est, lo, hi = winner_fraction_crossing(res, 10.0, n_boot=200)
    assert est == pytest.approx(1.1 + (0.5 - 0.25) / 0.5 * 0.1)
    assert lo <= est <= hi


def test_summaries_are_the_bootstrap_intervals_of_the_results() -> None:
    one = one_step_experiment(sigma_q=(0.5, 1.0), lambdas=(0.0, 2.0), trials=200, seed=1)
    sm = summarize_one_step(one, sigma_index=1, seed=4)
    for li in range(2):
        # each interval on its own child of the root 4 (no two share resamples)
        full = bootstrap_interval(one.delta_full[li, 1], seed=child(4, 1, 0, li))
        paper = bootstrap_interval(one.delta_paper[li, 1], seed=child(4, 1, 1, li))
        assert tuple(sm.gap_full[li]) == tuple(full) and tuple(sm.gap_paper[li]) == tuple(paper)
    # the paper's gap is linear in λ: its mean is Δ̄_raw + λ Δ̄_gate
    np.testing.assert_allclose(
        sm.paper_mean, one.delta_raw[0, 1].mean() + one.lambdas * one.delta_gate[0, 1].mean()
    )
    x = 3.5 * one.delta_full.ravel()
    ref = binned_quantile(x, one.error.ravel(), sm.edges, seed=child(4, 0))
    for key, val in sm.binned.items():
        np.testing.assert_array_equal(val, ref[key])
    assert sm.edges[0] == -4.0 and sm.edges[-1] >= x.max()
    with pytest.raises(ValueError, match="sigma_index"):
        summarize_one_step(one, sigma_index=2)
    wt = winner_time_experiment([0.9, 2.0], trials=6, t_max=40.0, seed=1)
    med = wt.median_times(seed=2)
    assert np.all(np.isnan(tuple(med[0])))  # α < α_crit: no set reaches winner-take-all
    assert tuple(med[1]) == tuple(
        bootstrap_interval(wt.t_measured[1], stat=lambda v: np.median(v, axis=1), seed=child(2, 1))
    )
    assert med[1].n == 6 and "memory sets" in med[1].method
    h = hysteresis_sweep(np.linspace(0.0, 0.9, 6), (0.3, 2.0), trials=3, seed=2)
    jumps = h.jump_intervals(seed=1)
    no_jump = jumps["up"][0]  # no jump at λ = 0.3
    assert np.all(np.isnan(tuple(no_jump))) and no_jump.n == 0
    up = h.jump_up()[1]
    ok = np.isfinite(up)
    assert jumps["up"][1].n == ok.sum() > 0
    assert tuple(jumps["up"][1]) == tuple(bootstrap_interval(up[ok], seed=child(1, 0, 1)))
    np.testing.assert_array_equal(h.predicted, [1 - 0.09 * 5 / 50, 1 - 4 * 5 / 50])


def test_dynamics_plots_draw() -> None:
    one = one_step_experiment(sigma_q=(0.5, 1.0), lambdas=(0.0, 2.0), trials=200, seed=1)
    fig = plot_one_step(one, summarize_one_step(one, sigma_index=1))
    assert fig.axes[0].get_yscale() == "log"
    assert fig.axes[1].get_xlabel() == "coupling $\\lambda$"
    plt.close(fig)
    wt = winner_time_experiment([0.9, 1.5, 2.0], trials=5, t_max=40.0, seed=1)
    fig = plot_winner_time(wt, wt.median_times(), horizons=(20.0, 40.0))
    assert len(fig.axes) == 2
    plt.close(fig)
    h = hysteresis_sweep(np.linspace(0.0, 0.9, 6), (1.0, 2.0), trials=3, seed=2)
    fig = plot_hysteresis(h, h.jump_intervals())
    assert len(fig.axes) == 4
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["λ = 1", "λ = 2"]
    plt.close(fig)
