"""Tests of assocmem.linear.figures.plots_hebbian."""

from __future__ import annotations

import matplotlib
import pytest  # noqa: E402
from assocmem.linear.figures.plots_capacity import (  # noqa: E402
    plot_memory,
    plot_score_distributions,
    plot_spectra,
)
from assocmem.linear.figures.plots_hebbian import (  # noqa: E402
    plot_mechanism,
)
from assocmem.linear.instances.sampling import sample_problem, sample_problems  # noqa: E402
from assocmem.linear.measure.scores import (  # noqa: E402
    mechanism_scores,
    score_statistics,
)
from assocmem.linear.storage.training import hebbian_memory, train_memory  # noqa: E402

matplotlib.use("Agg")


def test_memory_figures_take_trained_weights() -> None:
    prob = sample_problem(60, 12, seed=0)
    res = train_memory(prob, steps=300)
    fig = plot_memory(res.weights, prob, perfect_step=res.perfect_step)
    assert len(fig.axes) == 3  # score matrix, margins, the colour bar
    assert "margin" in fig.axes[1].get_ylabel() and len(fig.axes[1].patches) == prob.p
    with pytest.raises(ValueError, match="unbatched"):
        plot_memory(res.weights, sample_problems(60, 12, 2))
    fig = plot_spectra({"OP": res.weights})
    assert "singular value" in fig.axes[0].get_xlabel()
    fig = plot_score_distributions(
        {"OP": score_statistics(res.weights, prob),
         "Hebb": score_statistics(hebbian_memory(prob), prob)}
    )  # fmt: skip
    assert len(fig.axes) == 2 and "competitor" in fig.axes[0].get_xlabel()
    stats = mechanism_scores(40, 12, seeds=1, steps=50)
    assert plot_mechanism(stats).axes
