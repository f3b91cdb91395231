"""Tests of assocmem.linear.figures.plots_capacity."""

from __future__ import annotations

import matplotlib
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from _sweep_tables import errorbars, plot_table
from assocmem.estimate import Estimate  # noqa: E402
from assocmem.linear.figures.plots_capacity import (  # noqa: E402
    plot_finite_size_capacity,
    plot_free_entropy,
    plot_success,
)
from assocmem.linear.measure.capacity_comparison import (  # noqa: E402
    TransitionComparison,
    TransitionEntry,
    capacity_curves,
    transition_comparison,
)
from assocmem.linear.measure.sweeps import COLUMNS  # noqa: E402
from assocmem.linear.theory.finite_size import PredictedLoad  # noqa: E402
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load  # noqa: E402
from assocmem.linear.theory.replica import rs_draws_capacity, rs_profile  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

matplotlib.use("Agg")


def test_plot_success_one_series_per_group_with_wilson_bars() -> None:
    t = plot_table({("train", "op", 16, 16): {0.5: [True] * 4, 1.0: [False] * 4},
                ("train", "dp", 16, 16): {0.5: [True] * 4, 1.0: [True, False, False, False]},
                ("lp", "op", 12, 12): {0.5: [True] * 2, 1.0: [False] * 2}})  # fmt: skip
    fig = plot_success(t, theory={"α = 1/2": 0.5})
    acc, suc = fig.axes[:2]
    assert "load" in suc.get_xlabel() and "recalled" in suc.get_ylabel()
    assert len(errorbars(suc)) == 3 and len(errorbars(acc)) == 2  # the LP has no accuracy
    (legend,) = fig.legends  # one legend, below the panels
    labels = [t.get_text() for t in legend.get_texts()]
    assert "LP (exact) OP, d=12" in labels and "α = 1/2" in labels
    assert "CE+Adam DP, d=16 (simulation)" in labels
    # Wilson bars stay inside [0, 1]: the lower bar of a fraction 1 ends above 0
    seg = errorbars(suc)[0].lines[2][0].get_segments()
    assert all(0.0 <= y <= 1.0 for s in seg for _, y in s)


def test_plot_success_draws_each_d_prediction_in_that_d_colour() -> None:
    t = plot_table({("train", "op", 16, 16): {0.5: [True] * 4, 1.0: [False] * 4},
                ("train", "op", 24, 24): {0.5: [True] * 4, 1.0: [False] * 4}})  # fmt: skip
    fig = plot_success(t, predictions={16: 0.71, 24: 0.66}, show_accuracy=False)
    (ax,) = fig.axes
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    for d, a in ((16, 0.71), (24, 0.66)):
        lab = f"α_c(p) at d={d} (finite-size theory)"
        assert lab in labels
        (line,) = [ln for ln in ax.get_lines() if ln.get_label() == lab]
        assert list(line.get_xdata()) == [a, a]
        (marks,) = [c for c in errorbars(ax) if c.get_label().endswith(f"d={d} (simulation)")]
        assert line.get_color() == marks.lines[0].get_color()


def test_plot_finite_size_capacity_draws_measured_points() -> None:
    p = pairs_for_load(1.0, 12)
    rows = [{"method": "lp", "problem": "dp", "d": 12, "rank": 12, "kappa": 1.0, "factored": False,
             "alpha": a,
             "load": load_for_pairs(pairs_for_load(a, 12), 12), "p": p, "seed": s,
             "recalled_all": s < k, "accuracy": np.nan, "steps": 0, "seconds": 0.0}
            for a, k in ((0.8, 4), (1.0, 2), (1.2, 0)) for s in range(4)]  # fmt: skip
    comp = transition_comparison({"DP, exact LP": pd.DataFrame(rows, columns=list(COLUMNS))})
    curves = capacity_curves(comp, p_values=np.logspace(1, 4, 5), n_samples=200)
    fig = plot_finite_size_capacity(curves, measured=comp)
    assert len(fig.axes) == 2
    assert all(len(errorbars(ax)) == 1 for ax in fig.axes)
    assert fig.axes[0].get_xscale() == "log" and "capacity" in fig.axes[0].get_ylabel()
    # the bar spans the 95 % interval of the posterior draws, not one standard error
    seg = errorbars(fig.axes[0])[0].lines[2][0].get_segments()[0]
    m = comp["DP, exact LP"].measured
    assert (seg[0][1], seg[1][1]) == pytest.approx((m.low, m.high), rel=1e-9)
    assert seg[1][1] - seg[0][1] > 3 * m.stderr


def test_plot_finite_size_capacity_gives_every_size_its_own_colour() -> None:
    # five sizes (chapter 2 measures d = 12, 16, 24, 32, 64): no two share a colour
    sizes = [12, 16, 24, 32, 64]
    m = Estimate(1.0, 0.96, 1.04, 8, "Jeffreys posterior", stderr=0.02)
    pred = PredictedLoad(Estimate(1.0, 0.99, 1.01, 2000, "Monte Carlo", stderr=0.005), 40)
    comp = TransitionComparison(tuple(
        TransitionEntry(f"OP, exact LP, d={d}", d, m, p, pred, Estimate(0, -0.1, 0.1, 8, "t"))
        for d, p in zip(sizes, [40, 60, 110, 170, 560], strict=True)))  # fmt: skip
    curves = capacity_curves(comp, p_values=np.logspace(1, 4, 5), n_samples=200)
    fig = plot_finite_size_capacity(curves, measured=comp)
    bars = errorbars(fig.axes[0])
    colours = {to_hex(b.lines[0].get_color()) for b in bars}
    assert len(bars) == len(sizes) and len(colours) == len(sizes)


def test_free_entropy_marks_the_draws_and_the_population_capacity() -> None:
    profile = rs_profile(50, n_samples=50, n_grid=10)
    fig = plot_free_entropy(profile, alphas=(0.3,), population=0.9)
    vlines = [ln.get_xdata()[0] for ln in fig.axes[1].lines if len(set(ln.get_xdata())) == 1]
    own = rs_draws_capacity(50, n_samples=50)  # the draws' own capacity, and the population's
    assert vlines == pytest.approx([own.value, 0.9])
    with pytest.raises(ValueError, match=r"population must be a finite number > 0, got -1\.0"):
        plot_free_entropy(profile, alphas=(0.3,), population=-1.0)
