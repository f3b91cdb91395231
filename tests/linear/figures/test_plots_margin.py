"""Tests of assocmem.linear.figures.plots_margin: the figures draw the numbers they are given."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from assocmem.linear.figures.plots_margin import (  # noqa: E402
    plot_margin_ratios,
    plot_moment_ratio,
)
from assocmem.linear.measure.implicit_bias import MarginTrajectories  # noqa: E402


def test_moment_ratio_draws_every_instance_and_the_theory_lines() -> None:
    groups = {"a": np.array([2.0, 2.1, 1.9]), "b": np.array([2.5, np.nan, 2.7])}
    fig = plot_moment_ratio(groups, {"quarter circle: 2 (theory)": 2.0})
    ax = fig.axes[0]
    points = [ln for ln in ax.lines if ln.get_marker() == "o" and len(ln.get_xdata())]
    assert [sorted(ln.get_ydata()) for ln in points] == [[1.9, 2.0, 2.1], [2.5, 2.7]]
    # the points sit in their group's column, spread evenly (no random jitter)
    assert np.allclose(points[0].get_xdata(), [-0.12, 0.0, 0.12])
    assert [ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() == "--"] == [2.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a\n(n = 3)", "b\n(n = 2)"]
    with pytest.raises(ValueError, match="group 'c' holds no finite value"):
        plot_moment_ratio({"c": np.array([np.nan])}, {})
    with pytest.raises(ValueError, match="groups must hold at least one group"):
        plot_moment_ratio({}, {})


def test_margin_ratios_leave_out_the_instances_that_cannot_be_stored() -> None:
    steps = np.array([10, 20, 30])
    ratio = np.array([[0.5, 0.8, 0.9], [np.nan, np.nan, np.nan]])
    traj = MarginTrajectories(steps, ratio, ratio * 0.9, ratio, ratio * 0.95,
                              np.array([True, False]), [10, None], np.array([1.0, np.nan]),
                              np.array([0.5, np.nan]), 8, 12)  # fmt: skip
    fig = plot_margin_ratios(traj)
    assert len(fig.axes) >= 2 and all(ax.get_xlabel() for ax in fig.axes[:2])
    drawn = np.concatenate([ln.get_ydata() for ax in fig.axes for ln in ax.lines])
    # the stored instance's ratios are drawn; the NaN row of the other leaves no trace
    assert np.isfinite(drawn).all() and {0.5, 0.8, 0.9} <= set(np.round(drawn, 9))
