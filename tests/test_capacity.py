"""Tests of assocmem.capacity: sweeps, tidy table, capacity estimate, figures."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")


from assocmem.linear.load import load_for_pairs, pairs_for_load
from assocmem.linear.problems import sample_problem
from assocmem.linear.training import train_memory


def _synthetic(successes: dict[float, list[bool]], d: int = 40) -> CapacityTable:
    rows = []
    for a, flags in successes.items():
        p = pairs_for_load(a, d)
        for s, f in enumerate(flags):
            rows.append(
                {
                    "method": "trained",
                    "decoupled": False,
                    "d": d,
                    "alpha": a,
                    "load": load_for_pairs(p, d),
                    "p": p,
                    "seed": s,
                    "accuracy": 1.0 if f else 0.9,
                    "perfect": f,
                    "steps": 10,
                    "seconds": 0.0,
                }
            )
    return CapacityTable(rows)


def test_estimate_capacity_interpolates_the_half_crossing() -> None:
    t = _synthetic({0.5: [True] * 4, 0.8: [True, True, True, False], 1.1: [False] * 4})
    c = success_curve(t)
    np.testing.assert_allclose(c["success"], [1.0, 0.75, 0.0])
    x0, x1 = c["load"][1], c["load"][2]
    expected = x0 + (0.75 - 0.5) / 0.75 * (x1 - x0)
    est = estimate_capacity(t)
    assert est == pytest.approx(expected) and est.alpha == pytest.approx(expected)
    assert 0 < est.stderr < 0.3  # bootstrap over the seeds
    # binomial standard error, floored at 1/(2n)
    np.testing.assert_allclose(c["success_err"], [0.125, math.sqrt(0.75 * 0.25 / 4), 0.125])
    assert math.isnan(estimate_capacity(_synthetic({0.5: [True] * 3, 0.9: [True] * 3})))


def test_table_columns_and_selection() -> None:
    t = _synthetic({0.5: [True, False]}) + _synthetic({0.5: [True]}, d=20)
    assert len(t) == 3
    assert t.column("d").tolist() == [40, 40, 20]
    assert set(t.to_dict()) >= {"alpha", "p", "seed", "accuracy", "perfect", "steps"}
    assert len(t.select(d=20)) == 1
    assert t.groups() == [("trained", False, 40), ("trained", False, 20)]
    with pytest.raises(ValueError, match="mixes"):
        estimate_capacity(t)
    with pytest.raises(KeyError):
        t.column("nope")
    with pytest.raises(ValueError):
        estimate_capacity(CapacityTable())


def test_trained_sweep_small() -> None:
    t = capacity_sweep(16, [0.4, 2.5], seeds=[0, 1], steps=1500, patience=300, progress=False)
    assert len(t) == 4
    c = success_curve(t)
    np.testing.assert_allclose(c["success"], [1.0, 0.0])
    assert c["accuracy"][0] == 1.0 and c["accuracy"][1] < 0.6
    assert 0.4 < estimate_capacity(t) < 2.5
    # same instances as sample_problem: seed 1 at alpha 0.4 matches a direct run
    p = pairs_for_load(0.4, 16)
    r = train_memory(sample_problem(p, 16, seed=1), steps=1500, patience=300)
    assert t.select(alpha=0.4, seed=1).rows[0]["steps"] == r.perfect_step


def test_hebbian_and_lp_sweeps() -> None:
    h = capacity_sweep(24, [0.02, 3.0], seeds=[0, 1], method="hebbian", progress=False)
    c = success_curve(h)
    assert c["success"][0] == 1.0 and c["success"][1] == 0.0
    lp = capacity_sweep(10, [0.5, 1.8], seeds=[0], method="lp", decoupled=True, progress=False)
    assert lp.column("perfect").tolist() == [True, False]
    assert np.isnan(lp.column("accuracy")).all()
    with pytest.raises(ValueError):
        capacity_sweep(10, [0.5], method="svm", progress=False)
    with pytest.raises(ValueError):
        capacity_sweep(10, [], progress=False)
    with pytest.raises(ValueError):
        capacity_sweep(10, [-0.5], progress=False)


def test_quarter_circle_and_singular_values() -> None:
    x = np.linspace(0, 2, 20001)
    rho = quarter_circle_density(x)
    assert np.trapezoid(rho, x) == pytest.approx(1.0, abs=1e-4)
    assert np.trapezoid(x**2 * rho, x) == pytest.approx(1.0, abs=1e-4)
    assert quarter_circle_density([-1.0, 3.0]).tolist() == [0.0, 0.0]
    G = torch.randn(400, 400, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    s = normalized_singular_values(G)
    assert np.mean(s**2) == pytest.approx(1.0)
    assert s.max() == pytest.approx(2.0, abs=0.08)  # edge of the quarter circle
    # quarter-circle mean (8 / 3 pi) for a Gaussian matrix
    assert np.mean(s) == pytest.approx(8 / (3 * np.pi), abs=0.01)
    with pytest.raises(ValueError):
        normalized_singular_values(torch.zeros(3, 3))


def test_expected_gaussian_max() -> None:
    assert expected_gaussian_max(1) == pytest.approx(0.0, abs=1e-6)
    assert expected_gaussian_max(2) == pytest.approx(1 / np.sqrt(np.pi), abs=1e-6)
    rng = np.random.default_rng(0)
    mc = rng.standard_normal((20000, 100)).max(1).mean()
    assert expected_gaussian_max(100) == pytest.approx(mc, abs=0.01)


def test_figures_build() -> None:
    import matplotlib.pyplot as plt

    t = _synthetic({0.5: [True] * 2, 1.0: [False] * 2})
    fig = plot_success(t, theory={"α = 1/2": 0.5})
    assert len(fig.axes) == 2 and "α" in fig.axes[1].get_xlabel()
    prob = sample_problem(60, 12, seed=0)
    W = train_memory(prob, steps=300).weights
    fig2 = plot_spectra({"OP": W})
    fig3 = plot_score_distributions({"OP": (W, prob)})
    fig4 = plot_memory(d=12, alpha=0.5, steps=300)
    for f in (fig, fig2, fig3, fig4):
        assert f.axes
        plt.close(f)


def test_rank_only_with_training_and_sequences_required() -> None:
    import pytest as _pytest
    from assocmem.linear.sweeps import capacity_sweep as _sweep

    with _pytest.raises(ValueError, match="rank"):
        _sweep(12, [0.5], decoupled=False, seeds=[0], method="lp", rank=1, progress=False)
    with _pytest.raises(TypeError, match="sequences"):
        _sweep(8, 0.3, decoupled=False, seeds=[0], method="hebbian", progress=False)
