"""Figures of chapter 7: capacity per parameter, the toy's layer profile, the override transition.

Each takes a result (a table or a dataclass) and draws it; nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from assocmem.bridge.facts import HEBBIAN_BITS_PER_PARAMETER, OPTIMAL_BITS_PER_PARAMETER
from assocmem.bridge.overrides import ToyControls, Transition
from assocmem.plotting import (
    color,
    finish,
    interval_yerr,
    legend_below,
    new_figure,
    sim_points,
    theory_line,
)

__all__ = ["plot_capacity", "plot_layer_profile", "plot_transition"]


def _errs(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    y = np.array([e.value for e in col])
    return y, interval_yerr(y, [e.low for e in col], [e.high for e in col])


def plot_capacity(summary: pd.DataFrame) -> Figure:
    """Facts stored and bits per parameter against trained parameters P, per memory.

    ``summary`` is :func:`~.capacity.capacity_summary`'s frame; error bars are its 95 % intervals
    over seeds. The right panel carries the linear memory's lines 1/(2 ln 2) and 1/(8 ln 2).
    """
    fig, (ax1, ax2) = new_figure(1, 2)
    for i, (memory, g) in enumerate(summary.groupby("memory", sort=False)):
        x = g["params"].to_numpy(float)
        y, err = _errs(g["capacity"])
        sim_points(ax1, x, y, err, label=memory, color=color(i), linestyle="-")
        y, err = _errs(g["bits_per_param"])
        sim_points(ax2, x, y, err, label=memory, color=color(i), linestyle="-")
    xs = np.array([summary["params"].min(), summary["params"].max()], float)
    theory_line(ax2, xs, [OPTIMAL_BITS_PER_PARAMETER] * 2, color="0.3",
                label="optimal linear, 1/(2 ln 2) (asymptotic)")  # fmt: skip
    theory_line(ax2, xs, [HEBBIAN_BITS_PER_PARAMETER] * 2, color="0.6", linestyle="--",
                label="Hebbian linear, 1/(8 ln 2) (asymptotic)")  # fmt: skip
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xlabel("trained parameters P")
    ax1.set_yscale("log")
    ax1.set_ylabel("facts stored at ≥ 99 % recall, N")
    ax2.set_ylabel("bits per parameter, N log₂ N / P")
    ax2.set_ylim(bottom=0)
    legend_below(fig, ncol=3)
    return finish(fig)


def plot_layer_profile(controls: Sequence[ToyControls]) -> Figure:
    """Label mass and N_eff per layer (logit lens), zero-shot and in context, per toy."""
    fig, (ax1, ax2) = new_figure(1, 2)
    for i, c in enumerate(controls):
        for kind, style in (("zero", "--"), ("icl", "-")):
            layers = np.arange(len(c.label_mass[kind]))
            lab = f"{c.name}, {'zero-shot' if kind == 'zero' else 'in context'}"
            ax1.plot(layers, c.label_mass[kind], style, marker="o", color=color(i), label=lab)
            ax2.plot(layers, c.neff[kind], style, marker="o", color=color(i), label=lab)
    for ax in (ax1, ax2):
        ax.set_xlabel("layer l (0 = embeddings)")
        ax.set_xticks(layers)
    ax1.set_ylabel("label mass (probability on the K attributes)")
    ax2.set_ylabel("N_eff = exp(entropy), whole vocabulary")
    ax2.set_yscale("log")
    legend_below(fig, ncol=2)
    return finish(fig)


def plot_transition(transitions: Sequence[Transition], names: Sequence[str]) -> Figure:
    """Fraction answering the context's attribute along h + lambda c-bar, per toy (Wilson bars)."""
    fig, ax = new_figure()
    for i, (t, name) in enumerate(zip(transitions, names, strict=True)):
        y = np.array([e.value for e in t.fraction])
        err = interval_yerr(y, [e.low for e in t.fraction], [e.high for e in t.fraction])
        sim_points(ax, t.lambdas, y, err, label=f"{name} (layer {t.layer})", color=color(i),
                   linestyle="-")  # fmt: skip
    ax.axhline(0.5, color="0.6", linewidth=0.8, linestyle=":")
    ax.set_xlabel("override strength λ (final state h + λ c̄ of the context layer)")
    ax.set_ylabel("fraction answering the context's attribute")
    legend_below(fig, ncol=2)
    return finish(fig)
