"""Branch energies of the coupled gate-retrieval map and the Maxwell point (hysteresis.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from assocmem.context_gated.hysteresis import (
    HysteresisResult,
    fixed_point_energy,
    hysteresis_sweep,
)
from assocmem.context_gated.model import ContextGatedMemory, State


@pytest.mark.parametrize("lam", [0.3, 1.5])
def test_fixed_point_energy_is_the_models_energy_at_a_fixed_point(lam: float) -> None:
    g = torch.Generator().manual_seed(1)
    N, d, beta = 12, 5, 2.0
    model = ContextGatedMemory(torch.randn(N, d, generator=g, dtype=torch.float64), alpha=0.3,
                               lam=lam, beta=beta)  # fmt: skip
    c = torch.randn(1, d, generator=g, dtype=torch.float64)
    q = torch.randn(1, d, generator=g, dtype=torch.float64)
    u, b = c @ model.W_h1.T, q @ model.Z.T
    M = torch.linalg.inv(model.A)
    r = b.clone()
    for _ in range(5000):  # the coupled map r = b + λ M (u + λ p); damped for λ = 1.5
        p = torch.softmax(beta * r, dim=-1)
        r = 0.5 * r + 0.5 * (b + lam * (u + lam * p) @ M)
    p = torch.softmax(beta * r, dim=-1)
    s = (u + lam * p) @ M
    assert torch.allclose(r, b + lam * s, atol=1e-10)  # a fixed point of the full dynamics
    state = State(c=c, s=s, q=q, r=r)
    assert torch.allclose(model.rhs(state, clamp_context=True, clamp_query=True).s,
                          torch.zeros_like(s), atol=1e-9)  # fmt: skip
    full = model.energy(state) - 0.5 * (c * c).sum(-1) - 0.5 * (q * q).sum(-1)
    mine = fixed_point_energy(M, u[0], r, lam=lam, beta=beta, b=b)
    assert torch.allclose(mine, full, atol=1e-10)


def _toy(up: list[float], down: list[float], de: list[float]) -> HysteresisResult:
    a = np.array([0.0, 0.1, 0.2, 0.3])
    z = np.zeros((1, 4, 1))
    e_up = np.zeros((1, 4, 1))
    e_down = np.array(de, dtype=float).reshape(1, 4, 1)
    return HysteresisResult(a, np.array([1.0]), np.array(up).reshape(1, 4, 1),
                            np.array(down).reshape(1, 4, 1), z, z, np.zeros((1, 4)),
                            np.ones((1, 4)), {}, np.array([0.5]), e_up, e_down)  # fmt: skip


def test_maxwell_point_is_the_interpolated_sign_change_inside_the_window() -> None:
    # coexistence at α = 0, 0.1, 0.2 (up near-uniform, down winner); energy difference + then -
    h = _toy([0.1, 0.1, 0.1, 0.9], [0.9, 0.9, 0.9, 0.9], [0.2, -0.2, -0.4, -1.0])
    alpha_m, lower = h.maxwell_points()
    assert alpha_m[0, 0] == pytest.approx(0.05) and not lower[0, 0]
    # winner lower everywhere down to the grid's end: no crossing, flagged
    h = _toy([0.1, 0.1, 0.1, 0.9], [0.9, 0.9, 0.9, 0.9], [-0.1, -0.2, -0.4, -1.0])
    alpha_m, lower = h.maxwell_points()
    assert math.isnan(alpha_m[0, 0]) and lower[0, 0]
    # window starting above the grid's end, winner lower throughout: neither
    h = _toy([0.1, 0.1, 0.1, 0.9], [0.1, 0.9, 0.9, 0.9], [1.0, -0.2, -0.4, -1.0])
    alpha_m, lower = h.maxwell_points()
    assert math.isnan(alpha_m[0, 0]) and not lower[0, 0]
    s = h.summary()
    assert s["maxwell_sets_1"] == 0 and s["winner_lower_1"] == 0 and "maxwell_1" not in s


def test_sweep_energies_order_the_branches_and_bracket_the_jumps() -> None:
    a = np.round(np.arange(0.0, 0.99, 0.04), 2)
    h = hysteresis_sweep(a, (1.0,), trials=3, seed=0)
    assert h.energy_up.shape == h.up.shape == h.energy_down.shape
    # where the two sweeps end in the same state the energies agree
    same = (h.up >= 0.5) == (h.down >= 0.5)
    close = np.isclose(h.energy_up, h.energy_down, atol=1e-6)
    assert np.all(close[same & (h.up >= 0.5)])
    alpha_m, _ = h.maxwell_points()
    jumps_up, jumps_down = h.jump_up()[0], h.jump_down()[0]
    ok = np.isfinite(alpha_m[0])
    assert ok.any()
    # a Maxwell point lies inside the coexistence window: above the downward drop, below the jump
    assert np.all(alpha_m[0, ok] >= jumps_down[ok]) and np.all(alpha_m[0, ok] < jumps_up[ok])
    with pytest.raises(ValueError, match=r"carries no branch energies \(energy_up, energy_down\)"):
        HysteresisResult(h.alphas, h.lambdas, h.up, h.down, h.fresh, h.radius_up,
                         h.gain_formula, h.converged).maxwell_points()  # fmt: skip
