"""Tests of assocmem.linear.figures.plots_examples: the worked examples draw what they are given."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from assocmem.estimate import Estimate  # noqa: E402
from assocmem.linear.figures.plots_examples import (  # noqa: E402
    plot_perceptron_fraction,
    plot_storing_cone,
)
from assocmem.linear.instances.problems import MemoryProblem  # noqa: E402
from assocmem.linear.instances.sampling import sample_problem  # noqa: E402
from assocmem.linear.storage.cone import plane_section, target_wedges  # noqa: E402
from assocmem.plotting import describe  # noqa: E402
from matplotlib.patches import Wedge  # noqa: E402


def _hand() -> MemoryProblem:
    e = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-0.6, -0.8]], dtype=torch.float64)
    u = torch.tensor([[0.6, 0.8], [-0.6, 0.8], [-0.8, -0.6]], dtype=torch.float64)
    return MemoryProblem(e, u)


def test_storing_cone_draws_three_wedges_six_lines_and_the_section() -> None:
    hand = _hand()
    W_a, W_b = np.eye(2), np.array([[0.8, -0.8], [0.4, 0.8]])
    section = plane_section(hand, W_a, W_b)
    fig = plot_storing_cone(hand, target_wedges(hand), {"first": W_a, "second": W_b}, section)
    left, right = fig.axes[:2]
    assert len([p for p in left.patches if isinstance(p, Wedge)]) == 3
    edges = [ln for ln in right.lines if len(ln.get_xdata()) == 2]
    assert len(edges) == 6  # one zero-margin line per constraint
    # each line is perpendicular to its constraint's normal in the plane
    for ln, n in zip(edges, section.normals.reshape(-1, 2), strict=True):
        direction = np.array([np.diff(ln.get_xdata())[0], np.diff(ln.get_ydata())[0]])
        assert abs(direction @ n) < 1e-9 * np.linalg.norm(direction) * np.linalg.norm(n)
    assert "wedge" in describe(fig)


def test_storing_cone_refuses_what_it_cannot_draw() -> None:
    hand = _hand()
    section = plane_section(hand, np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="exactly two"):
        plot_storing_cone(hand, target_wedges(hand), {"a": np.eye(2)}, section)
    with pytest.raises(ValueError, match="d = 2"):
        plot_storing_cone(sample_problem(3, 3, seed=0), [None] * 3, {}, section)


def test_perceptron_fraction_draws_the_measured_points_and_cover_s_lines() -> None:
    measured = {20: Estimate(1.0, 0.98, 1.0, 100, "Wilson"),
                40: Estimate(0.5, 0.4, 0.6, 100, "Wilson")}  # fmt: skip
    fig = plot_perceptron_fraction(measured, 20)
    ax = fig.axes[0]
    points = [ln for ln in ax.lines if ln.get_linestyle() == "None"]
    assert np.allclose(points[0].get_xdata(), [1.0, 2.0])
    assert np.allclose(points[0].get_ydata(), [1.0, 0.5])
    lines = [ln for ln in ax.lines if len(ln.get_xdata()) > 10]
    assert len(lines) == 2  # Cover's count at N and at 10 N
    x, y = lines[0].get_xdata(), lines[0].get_ydata()
    assert np.isclose(y[np.argmin(np.abs(x - 2.0))], 0.5)
    with pytest.raises(ValueError, match="at least one"):
        plot_perceptron_fraction({}, 20)
