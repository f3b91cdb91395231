"""Tests of assocmem.linear.figures.plots_rank."""

from __future__ import annotations

import matplotlib
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _sweep_tables import errorbars, plot_table
from assocmem.linear.figures.plots_capacity import (  # noqa: E402
    plot_cost_solution,
    plot_free_entropy,
)
from assocmem.linear.figures.plots_hebbian import (  # noqa: E402
    plot_recall_vs_load,
    plot_score_histograms,
    plot_thresholds,
)
from assocmem.linear.figures.plots_rank import (  # noqa: E402
    plot_critical_load,
    plot_rank_success,
    plot_rank_truncation,
    plot_singular_values,
)
from assocmem.linear.measure.measured_spectra import singular_values  # noqa: E402
from assocmem.linear.measure.scores import (  # noqa: E402
    simulate_scores,
)
from assocmem.linear.theory.hebbian import score_moments  # noqa: E402
from assocmem.linear.theory.replica import cost_example, rs_profile  # noqa: E402
from assocmem.linear.theory.spectra import hebbian_critical_load  # noqa: E402

matplotlib.use("Agg")


def test_plot_recall_vs_load_and_rank_success() -> None:
    t = plot_table({("hebbian", "op", 32, 32): {0.05: [True] * 3, 0.5: [False] * 3},
                ("train", "op", 32, 32): {0.5: [True] * 2}})  # fmt: skip
    fig = plot_recall_vs_load(t, transitions={32: 0.9})
    assert len(fig.axes) == 2 and all(len(errorbars(ax)) == 2 for ax in fig.axes)
    assert "typical" in fig.axes[0].get_ylabel() and "all" in fig.axes[1].get_ylabel()
    r = plot_table({("train", "op", 12, 6): {0.3: [True] * 2, 0.8: [False] * 2},
                ("train", "op", 12, 12): {0.5: [True] * 2, 1.2: [False] * 2}})  # fmt: skip
    fig = plot_rank_success(r, predicted={0.5: 0.5, 1.0: 0.9})
    ax = fig.axes[0]
    assert len(errorbars(ax)) == 2
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("kappa=0.5" in s for s in labels) and any("finite-size" in s for s in labels)


def test_theory_figures_label_their_axes() -> None:
    fig = plot_score_histograms(simulate_scores(50, 16, n_instances=2), score_moments(50, 16), 16)
    assert "score" in fig.axes[0].get_xlabel() and len(fig.axes[0].lines) >= 2
    fig = plot_thresholds(np.geomspace(1e2, 1e4, 3), embeddings=("gaussian",))
    assert fig.axes and all(ax.get_xlabel() for ax in fig.axes)
    fig = plot_free_entropy(rs_profile(50, n_samples=50, n_grid=10), alphas=(0.3,))
    assert "overlap" in fig.axes[0].get_xlabel() and "load" in fig.axes[1].get_xlabel()
    assert plot_cost_solution(*cost_example(50)).axes
    fig = plot_critical_load(measured={0.5: (0.7, 0.05), 1.0: (0.9, 0.05)})
    assert len(errorbars(fig.axes[0])) == 1 and "kappa" in fig.axes[0].get_xlabel()
    rng = np.random.default_rng(0)
    fig = plot_singular_values({1.0: singular_values(rng.standard_normal((60, 60)))})
    assert fig.axes
    assert plot_rank_truncation(0.3).axes


def _legend_below_axes(ax) -> bool:  # type: ignore[no-untyped-def]
    fig = ax.figure
    fig.canvas.draw()
    leg = ax.get_legend()
    lb = leg.get_window_extent()
    return bool(lb.y1 <= ax.get_window_extent().y0 + 1)


def test_rank_success_legend_off_the_data_and_hebbian_lines() -> None:
    t = plot_table({("hebbian", "op", 8, 2): {0.02: [True] * 3, 0.2: [False] * 3},
                ("hebbian", "op", 8, 8): {0.05: [True] * 3, 0.3: [False] * 3}})  # fmt: skip
    fig = plot_rank_success(t, theory="hebbian")
    ax = fig.axes[0]
    xs = sorted(
        {
            round(float(ln.get_xdata()[0]), 12)
            for ln in ax.lines
            if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]
        }
    )
    assert xs == sorted(round(float(hebbian_critical_load(k)), 12) for k in (0.25, 1.0))
    assert _legend_below_axes(ax)
    assert fig.get_size_inches()[0] <= 7.0
    with pytest.raises(ValueError, match=r"theory must be 'optimal' or 'hebbian', got 'other'"):
        plot_rank_success(t, theory="other")


def test_critical_load_figure_takes_intervals_and_keeps_its_legend_below() -> None:
    fig = plot_critical_load(measured={0.5: (0.7, 0.6, 0.8), 1.0: (0.9, 0.05)},
                             hebbian={0.25: (0.05, 0.04, 0.06)})  # fmt: skip
    ax = fig.axes[0]
    assert _legend_below_axes(ax)
    with pytest.raises(ValueError, match=r"every value must lie inside its interval"):
        plot_critical_load(measured={0.5: (0.7, 0.8, 0.9)})  # value outside its interval


def test_singular_value_figure_is_one_row_per_kappa_at_page_width() -> None:
    rng = np.random.default_rng(0)
    spectra = {k: np.abs(rng.standard_normal(40)) + 0.5 for k in (0.25, 0.5, 1.0)}
    fig = plot_singular_values(spectra, references={"Hebbian": {0.25: spectra[0.25]}})
    assert len(fig.axes) == 6 and fig.get_size_inches()[0] <= 7.0
    fig.canvas.draw()
    for ax in fig.axes:  # two panels per row: each at least 3 in wide
        assert ax.get_position().width * fig.get_size_inches()[0] >= 2.5
        for t in ax.get_xticklabels() + ax.get_yticklabels():
            assert t.get_fontsize() >= 9
    assert "KS" in fig.axes[1].get_title()
    assert len(fig.legends) == 1
