"""Figures of chapter 5's one-step, winner-time and hysteresis measurements (return a Figure).

Like :mod:`~assocmem.context_gated.plots`, a figure receives results (and their bootstrap
summaries, made by the experiment modules) and draws them; it draws no random numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from assocmem.context_gated.hysteresis import HysteresisResult
from assocmem.context_gated.onestep import OneStepResult, OneStepSummary, one_step_error_bound
from assocmem.context_gated.plots import even_subsample
from assocmem.context_gated.winner import WinnerTimeResult
from assocmem.estimate import Estimate
from assocmem.plotting import (
    color,
    finish,
    interval_yerr,
    legend_below,
    new_figure,
    sim_points,
    theory_line,
)
from assocmem.stats import wilson_interval

__all__ = ["plot_one_step", "plot_winner_time", "plot_hysteresis"]


def _triples(estimates: Sequence[Estimate]) -> np.ndarray:
    """Stack estimates as rows (value, low, high): shape (len(estimates), 3)."""
    return np.array([tuple(e) for e in estimates], dtype=np.float64).reshape(-1, 3)


def plot_one_step(
    result: OneStepResult, summary: OneStepSummary, *, max_points: int = 3000
) -> Figure:
    """One-step error against βΔ with the bound (Cor. 3.2), and the two gaps against λ.

    Parameters
    ----------
    result : OneStepResult
        From :func:`~assocmem.context_gated.onestep.one_step_experiment`.
    summary : OneStepSummary
        Its intervals, from :func:`~assocmem.context_gated.onestep.summarize_one_step`: the binned
        medians (left) and the mean gaps at ``summary.sigma_index`` (right).
    max_points : int
        Trials drawn in the scatter (every k-th trial, evenly spread).

    Returns
    -------
    Figure
    """
    N = int(result.params["N"])
    beta = float(result.params["beta"])
    x = beta * result.delta_full.ravel()
    y = result.error.ravel()
    e = summary.edges
    fig, axes = new_figure(1, 2, height=3.4)
    ax = axes[0]
    k = even_subsample(x.size, max_points)
    ax.scatter(
        x[k],
        np.maximum(y[k], 1e-17),
        s=3,
        alpha=0.2,
        color="0.55",
        label="trials",
        rasterized=True,
    )
    b = summary.binned
    ok = np.isfinite(b["value"])
    sim_points(
        ax,
        b["centre"][ok],
        b["value"][ok],
        interval_yerr(b["value"][ok], b["low"][ok], b["high"][ok]),
        label="median per bin (95 % CI)",
        color=color(0),
        markersize=4,
    )
    grid = np.linspace(e[0], e[-1], 300)
    theory_line(
        ax,
        grid,
        one_step_error_bound(grid, N, tight=False),
        color="k",
        linestyle="--",
        label="bound $2(N-1)e^{-\\beta\\Delta}$",
    )
    theory_line(
        ax,
        grid,
        one_step_error_bound(grid, N),
        color="k",
        label="bound $2(1-p_\\mu)$",
    )
    ax.set_yscale("log")
    ax.set_ylim(1e-13, 5)
    ax.set_xlabel("$\\beta\\Delta$ (full score gap $\\times$ inverse temperature)")
    ax.set_ylabel("one-step error $\\|q'-\\zeta^\\mu\\|$")
    ax.legend(fontsize=8, loc="lower left", title="simulation: grey, blue", title_fontsize=8)
    ax = axes[1]
    lam = result.lambdas
    for gaps, name, c in (
        (summary.gap_full, "full gap $r_\\mu-\\max_\\nu r_\\nu$", 0),
        (summary.gap_paper, "paper's $\\Delta_{raw}+\\lambda\\Delta_{gate}$", 1),
    ):
        est = _triples(gaps)
        sim_points(
            ax,
            lam,
            est[:, 0],
            interval_yerr(est[:, 0], est[:, 1], est[:, 2]),
            label=f"simulation: {name}",
            color=color(c),
            markersize=4,
        )
    theory_line(
        ax,
        lam,
        summary.paper_mean,
        color=color(1),
        linestyle=":",
        label="$\\bar\\Delta_{raw}+\\lambda\\bar\\Delta_{gate}$ (linear in $\\lambda$)",
    )
    ax.set_xlabel("coupling $\\lambda$")
    ax.set_ylabel(f"mean gap at $\\sigma_q$ = {result.sigma_q[summary.sigma_index]:g}")
    ax.legend(fontsize=8, loc="upper left")
    return finish(fig)


def plot_winner_time(
    result: WinnerTimeResult,
    medians: Sequence[Estimate],
    *,
    horizons: Sequence[float] = (25.0, 50.0, 100.0),
) -> Figure:
    """t*(α) measured vs predicted (Thm 3.3 (ii)), and the λ = 0 transition by horizon.

    Parameters
    ----------
    result : WinnerTimeResult
        From :func:`~assocmem.context_gated.winner.winner_time_experiment`.
    medians : sequence of Estimate, length A
        Median t* per α with its bootstrap interval, from
        :meth:`~assocmem.context_gated.winner.WinnerTimeResult.median_times` (NaN values are not
        drawn).
    horizons : sequence of float
        Horizons t_h of the right panel: fraction of memory sets with t* <= t_h.

    Returns
    -------
    Figure
    """
    a = result.alphas
    T = result.t_measured.shape[1]
    fig, axes = new_figure(1, 2, height=3.4)
    ax = axes[0]
    med, lo, hi = _triples(medians).T
    done = np.isfinite(med)
    pred = np.median(result.t_predicted, axis=1)
    eq47 = np.median(result.t_eq47, axis=1)
    sel = np.isfinite(pred) & (a > 1)
    theory_line(ax, a[sel], pred[sel], color="k", label="theory: critical modes only")
    theory_line(
        ax,
        a[sel],
        eq47[sel],
        color="k",
        linestyle="--",
        label="paper's Eq. 47 ($\\kappa$ our choice)",
    )
    sim_points(
        ax,
        a[done],
        med[done],
        interval_yerr(med[done], lo[done], hi[done]),
        label=f"simulation: median over {T} sets (95 % CI)",
        color=color(0),
    )
    ax.axvline(1.0, color="0.5", linestyle=":", linewidth=1.0)
    ax.set_yscale("log")
    ax.set_ylim(top=8 * np.nanmax(np.where(sel, pred, np.nan)))
    ax.set_xlabel("gate competition $\\alpha$")
    ax.set_ylabel("time to winner-take-all $t^*/\\tau_s$")
    legend_below(fig, ax, ncol=2)  # the left panel's legend: under the panels, off the curve
    ax = axes[1]
    for j, th in enumerate(horizons):
        k = (result.t_measured <= th).sum(axis=1)
        frac = k / T
        low, high = wilson_interval(k, T)
        sim_points(
            ax,
            a,
            frac,
            interval_yerr(frac, low, high),
            color=color(j),
            label=f"simulation, $t_h$ = {th:g}",
            markersize=4,
        )
        theory_line(
            ax,
            a,
            (result.t_predicted <= th).mean(axis=1),
            color=color(j),
            linestyle="--",
            linewidth=1.0,
            label="_",
        )
    ax.axvline(1.0, color="0.5", linestyle=":", linewidth=1.0, label="$\\alpha_{crit}=1$")
    ax.set_xlabel("gate competition $\\alpha$")
    ax.set_ylabel("fraction of sets with $t^*\\leq t_h$")
    ax.legend(fontsize=8, loc="lower right", title="dashed: theory", title_fontsize=8)
    return finish(fig)


def plot_hysteresis(
    result: HysteresisResult, jumps: dict[str, list[Estimate]], *, level: float = 0.5
) -> Figure:
    """Winner fraction up and down in α, the uniform branch's gain, and the transition points.

    Parameters
    ----------
    result : HysteresisResult
        From :func:`~assocmem.context_gated.hysteresis.hysteresis_sweep`.
    jumps : dict of str to list of Estimate
        Mean jump points (one Estimate per λ) with intervals, from
        :meth:`~assocmem.context_gated.hysteresis.HysteresisResult.jump_intervals` at the same
        ``level``.
    level : float
        A memory set is in the winner state when max_μ p*_μ >= level.

    Returns
    -------
    Figure
    """
    a, lam = result.alphas, result.lambdas
    T = result.up.shape[2]
    fig, axes = new_figure(2, 2, height=6.4)
    ax = axes[0, 0]
    for li, la in enumerate(lam):
        for data, mk, name in ((result.up, "o", "up"), (result.down, "s", "down")):
            k = (data[li] >= level).sum(axis=1)
            low, high = wilson_interval(k, T)
            ax.fill_between(a, low, high, color=color(li), alpha=0.12, linewidth=0)
            kw: dict[str, Any] = {"markerfacecolor": "none"} if name == "down" else {}
            sim_points(
                ax,
                a,
                k / T,
                color=color(li),
                marker=mk,
                markersize=2.5,
                linestyle="-" if name == "up" else ":",
                linewidth=0.9,
                label=f"λ = {la:g}" if name == "up" else "_",
                **kw,
            )
    ax.set_xlabel("gate competition $\\alpha$")
    ax.set_ylabel(f"fraction of sets with $\\max p^* \\geq$ {level:g}")
    ax.set_title("filled/solid: up from uniform\nopen/dotted: down from winner", fontsize=9)
    ax = axes[0, 1]
    for li in range(lam.size):
        uni = result.up[li] < level
        rad = np.where(uni, result.radius_up[li], np.nan)
        keep = np.isfinite(rad).any(axis=1)
        m = np.nanmean(rad[keep], axis=1)
        sim_points(
            ax, a[keep], m, color=color(li), marker=".", linestyle="-", linewidth=1.0, label="_"
        )
        theory_line(
            ax,
            a,
            result.gain_formula[li],
            color=color(li),
            linestyle="--",
            linewidth=0.9,
            label="_",
        )
    ax.axhline(1.0, color="0.4", linewidth=0.8)
    ax.set_ylim(0, 1.6)
    ax.set_xlabel("gate competition $\\alpha$")
    ax.set_ylabel("spectral radius, uniform branch")
    ax.set_title(
        "markers: measured (mean over sets)\ndashed: $\\lambda^2\\beta/(N(1-\\alpha))$", fontsize=9
    )
    ax = axes[1, 0]
    theory_line(
        ax,
        lam,
        result.predicted,
        color="k",
        marker="s",
        label="paper: $\\alpha_{crit}(1-\\lambda^2\\beta/N)$",
    )
    for key, name, c in (
        ("up", "jump up (from uniform)", 0),
        ("down", "drop down (from winner)", 1),
    ):
        est = _triples(jumps[key])
        sim_points(
            ax,
            lam,
            est[:, 0],
            interval_yerr(est[:, 0], est[:, 1], est[:, 2]),
            color=color(c),
            label=f"simulation: {name}",
        )
    ax.set_xlabel("coupling $\\lambda$")
    ax.set_ylabel("transition point $\\alpha$ (mean, 95 % CI)")
    ax.legend(fontsize=8, loc="lower left")
    ax = axes[1, 1]
    for li in range(lam.size):
        k = (result.fresh[li] >= level).sum(axis=1)
        low, high = wilson_interval(k, T)
        ax.fill_between(a, low, high, color=color(li), alpha=0.12, linewidth=0)
        sim_points(
            ax, a, k / T, color=color(li), marker=".", linestyle="-", linewidth=0.9, label="_"
        )
    ax.set_xlabel("gate competition $\\alpha$")
    ax.set_ylabel("fraction of sets, winner state")
    ax.set_title("fresh $10^{-4}$-noise start at every $\\alpha$\n(paper's protocol)", fontsize=9)
    fig.legend(
        *axes[0, 0].get_legend_handles_labels(),
        loc="lower center",
        ncol=lam.size,
        fontsize=8.5,
        frameon=False,
        title=f"bands: 95 % Wilson intervals, n = {T} sets",
        title_fontsize=8.5,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
