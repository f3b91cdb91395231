"""Figures of chapter 5 (all return a matplotlib Figure; none calls plt.show()).

A figure receives results and draws them: it computes no model quantity and draws no random
numbers (the experiments and :mod:`~assocmem.context_gated.theory` do; ``tests/book/test_layout.py``
checks it). Theory curves are drawn by calling the theory's functions.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from assocmem.context_gated.experiments import SeparationResult
from assocmem.context_gated.fixed_point import FixedPointTrial
from assocmem.context_gated.model import Trajectory
from assocmem.context_gated.theory import retrieval_bound, retrieval_threshold
from assocmem.context_gated.transitions import GateTransitionResult
from assocmem.plotting import (
    color,
    finish,
    interval_yerr,
    legend_below,
    new_figure,
    sim_points,
    theory_line,
)

__all__ = [
    "plot_architecture",
    "plot_trajectory",
    "plot_separation",
    "plot_gap_scatter",
    "plot_gate_transition",
    "plot_fixed_point_terms",
    "plot_fixed_point_trial",
    "even_subsample",
]


def plot_architecture() -> Figure:
    """Schematic of the four layers and four hypersynapses (paper Fig. 1, redrawn).

    Returns
    -------
    Figure
    """
    fig, ax = new_figure(width=6.4, height=3.4)
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 5.4)
    boxes = {
        "c": (
            0.3,
            3.4,
            "context  $\\mathbf{c}\\in\\mathbb{R}^{d_c}$\n$\\hat{\\mathbf{c}}=\\mathbf{c}$",
        ),
        "s": (
            5.6,
            3.4,
            "gates  $\\mathbf{s}\\in\\mathbb{R}^{N}$\n$\\hat{\\mathbf{s}}=\\mathbf{s}$",
        ),
        "q": (
            0.3,
            0.5,
            "query  $\\mathbf{q}\\in\\mathbb{R}^{d}$\n$\\hat{\\mathbf{q}}=\\mathbf{q}$",
        ),
        "r": (
            5.6,
            0.5,
            "retrieval  $\\mathbf{r}\\in\\mathbb{R}^{N}$\n"
            "$\\hat{\\mathbf{r}}=\\mathrm{softmax}(\\beta\\mathbf{r})$",
        ),
    }
    w, h = 3.3, 1.3
    for i, (x, y, text) in enumerate(boxes.values()):
        ax.add_patch(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle="round,pad=0.08",
                facecolor=color(i),
                alpha=0.18,
                edgecolor=color(i),
                linewidth=1.5,
            )
        )
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9.5)

    def link(p0: tuple[float, float], p1: tuple[float, float], label: str) -> None:
        ax.add_patch(
            FancyArrowPatch(p0, p1, arrowstyle="<->", mutation_scale=12, color="0.25", lw=1.4)
        )
        ax.text((p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2 + 0.18, label, ha="center", fontsize=9)

    link((3.7, 4.05), (5.5, 4.05), "$h_1$: $-\\hat{\\mathbf{s}}^\\top W_{h_1}\\hat{\\mathbf{c}}$")
    link((3.7, 1.15), (5.5, 1.15), "$h_4$: $-\\hat{\\mathbf{q}}^\\top Z^\\top\\hat{\\mathbf{r}}$")
    ax.add_patch(
        FancyArrowPatch(
            (7.25, 3.3), (7.25, 1.9), arrowstyle="<->", mutation_scale=12, color="0.25", lw=1.4
        )
    )
    ax.text(
        7.4, 2.55, "$h_3$: $-\\lambda\\,\\hat{\\mathbf{s}}^\\top\\hat{\\mathbf{r}}$", fontsize=9
    )
    ax.add_patch(
        FancyArrowPatch(
            (8.95, 4.35),
            (8.95, 3.75),
            connectionstyle="arc3,rad=-1.6",
            arrowstyle="-|>",
            mutation_scale=10,
            color="0.25",
            lw=1.2,
        )
    )
    ax.text(
        9.3,
        5.05,
        "$h_2$: $\\frac{\\alpha}{2}\\hat{\\mathbf{s}}^\\top W_{h_2}\\hat{\\mathbf{s}}$",
        fontsize=9,
        ha="center",
    )
    ax.text(
        2.0,
        2.55,
        "stage 1: context → gates\nstage 2: query → retrieval",
        fontsize=8.5,
        ha="center",
        color="0.35",
    )
    alt = (
        "Diagram of the context-gated memory: four layers, context c, gates s, query q and "
        "retrieval r, joined by four energy terms: h1 couples the context to the gates, h2 makes "
        "the gates compete, h3 couples each gate to its retrieval unit with strength lambda, h4 "
        "is the modern-Hopfield read-out between query and retrieval. Stage 1: context to gates; "
        "stage 2: query to retrieval."
    )
    return finish(fig, alt=alt)


def plot_trajectory(traj: Trajectory, *, target: int | None = None) -> Figure:
    """Energy along integrated trajectories, and the retrieval distribution.

    Parameters
    ----------
    traj : Trajectory
        From :meth:`ContextGatedMemory.integrate`; the second panel (r̂(t) = softmax(β r(t)) of
        trial 0, ``traj.retrieval``) needs ``record_states=True``.
    target : int, optional
        Memory index whose probability r̂_μ(t) is drawn in the second panel.

    Returns
    -------
    Figure
    """
    fig, axes = new_figure(1, 2)
    E = traj.energy.detach().cpu().numpy()
    for b in range(E.shape[1]):
        theory_line(
            axes[0],
            traj.t,
            E[:, b],
            label="trajectory" if b == 0 else "_",
            color=color(b % 6),
            linewidth=1.2,
        )
    axes[0].set_xlabel("time $t$ / $\\tau$")
    axes[0].set_ylabel("total energy $E$")
    axes[0].set_title("energy descends to a fixed point")
    if traj.retrieval is not None:
        p = traj.retrieval[:, 0].detach().cpu().numpy()
        for mu in range(p.shape[1]):
            lw = 2.2 if mu == target else 0.6
            c = color(1) if mu == target else "0.6"
            axes[1].plot(
                traj.t,
                p[:, mu],
                color=c,
                linewidth=lw,
                label="target $\\hat r_\\mu$" if mu == target else "_",
            )
        axes[1].set_xlabel("time $t$ / $\\tau$")
        axes[1].set_ylabel("retrieval probability $\\hat r_\\nu$ (trial 0)")
        if target is not None:
            axes[1].legend()
    return finish(fig)


def plot_separation(
    results: Mapping[str, SeparationResult] | SeparationResult,
    *,
    ncols: int | None = None,
    sharey: bool = True,
    row_height: float = 2.6,
) -> Figure:
    """Accuracy vs query noise σ_q, one curve per λ; one panel per result (paper Fig. 2a).

    Parameters
    ----------
    results : SeparationResult or mapping title -> SeparationResult
    ncols : int, optional
        Panels per row (default 2).
    sharey : bool
    row_height : float
        Height of one row of panels, inches.

    Returns
    -------
    Figure
        Markers with 95 % Wilson intervals (n = trials per cell).
    """
    res = {"": results} if isinstance(results, SeparationResult) else dict(results)
    nc = min(len(res), 2) if ncols is None else ncols
    nr = -(-len(res) // nc)
    fig, axes = new_figure(nr, nc, sharey=sharey, sharex=True, height=row_height * nr + 0.5)
    axes_list = [axes] if len(res) == 1 else list(np.ravel(axes))
    for ax in axes_list[len(res) :]:
        ax.set_axis_off()
    for ax, (title, r) in zip(axes_list, res.items(), strict=True):
        for li, lam in enumerate(r.lambdas):
            err = (
                interval_yerr(r.accuracy[li], r.ci_low[li], r.ci_high[li])
                if r.ci_low.size
                else r.accuracy_se[li]
            )
            sim_points(
                ax,
                r.sigma_q,
                r.accuracy[li],
                err,
                color=color(li),
                label=f"λ = {lam:g}",
                linestyle="-",
                linewidth=1.0,
                markersize=3,
            )
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, 1.03)
    for ax in axes_list[-nc:]:
        ax.set_xlabel("query noise $\\sigma_q$")
    for ax in axes_list[::nc]:
        ax.set_ylabel("accuracy (simulation)")
    fig.legend(
        *axes_list[0].get_legend_handles_labels(),
        loc="lower center",
        ncol=len(next(iter(res.values())).lambdas),
        fontsize=8.5,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def even_subsample(n: int, k: int) -> np.ndarray:
    """At most ``k`` indices spread evenly over range(n), for scatter plots of many trials.

    Deterministic: the trials are independent draws already, so every k-th one is as fair a
    sample as a random one, and a figure draws no random numbers.
    """
    return np.unique(np.linspace(0, n - 1, num=min(k, n)).round().astype(np.int64))


def plot_gap_scatter(
    result: SeparationResult,
    *,
    eps: float = 0.05,
    max_points: int = 4000,
    xlim: tuple[float, float] = (-3.0, 6.0),
) -> Figure:
    """Target probability vs score gap Δ with the bound and the threshold (paper Fig. 2c).

    Parameters
    ----------
    result : SeparationResult
    eps : float
        Error level of the threshold line (paper: 0.05 → 1.95 for N = 50, β = 3.5).
    max_points : int
        Points drawn per λ: every k-th trial, evenly over the σ_q levels (the trials are
        independent draws already, so no random subsample is needed).
    xlim : tuple of float
        Range of Δ shown (gaps with strong feedback reach hundreds; they sit at p = 0 or 1).

    Returns
    -------
    Figure
    """
    N, beta = int(result.params["N"]), float(result.params["beta"])
    fig, ax = new_figure()
    for li, lam in enumerate(result.lambdas):
        d = result.delta[li].ravel()
        p = result.target_prob[li].ravel()
        k = even_subsample(d.size, max_points)
        ax.scatter(
            d[k],
            p[k],
            s=3,
            alpha=0.25,
            color=color(li),
            label=f"simulation λ = {lam:g}",
            rasterized=True,
        )
    x = np.linspace(xlim[0], xlim[1], 400)
    theory_line(
        ax, x, retrieval_bound(x, N, beta), color="k", label="bound $1/(1+(N-1)e^{-\\beta\\Delta})$"
    )
    th = retrieval_threshold(N, beta, eps)
    ax.axvline(
        th, color="k", linestyle="--", linewidth=1.0, label=f"threshold (ε = {eps:g}): {th:.2f}"
    )
    ax.set_xlabel("score gap $\\Delta = r_\\mu - \\max_{\\nu\\neq\\mu} r_\\nu$")
    ax.set_ylabel("target probability $\\hat r_\\mu$")
    ax.set_xlim(*xlim)
    ax.legend(fontsize=7.5, markerscale=3, loc="lower right")
    return finish(fig)


def plot_gate_transition(
    result: GateTransitionResult, *, show_alphas: tuple[float, ...] = (0.5, 1.0, 1.1, 1.3)
) -> Figure:
    """Peak gate probability vs α (paper Fig. 3a) and example gate distributions (Fig. 3c).

    Parameters
    ----------
    result : GateTransitionResult
        From :func:`assocmem.context_gated.transitions.gate_transition`.
    show_alphas : tuple of float
        α values whose sorted gate distribution (trial 0) is drawn in the right panel (nearest
        grid point).

    Returns
    -------
    Figure
    """
    N = int(result.params["N"])
    fig, axes = new_figure(1, 2)
    m = result.peak.mean(1)
    ci = (  # 95 % normal interval of the mean over the trials' memory sets
        1.96 * result.peak.std(1, ddof=1) / np.sqrt(result.peak.shape[1])
        if result.peak.shape[1] > 1
        else None
    )
    sim_points(
        axes[0],
        result.alphas,
        m,
        ci,
        label="simulation (mean, 95 % CI)",
        color=color(0),
        markersize=3,
    )
    ac = float(np.median(result.alpha_crit))
    axes[0].axvline(
        ac, color="k", linestyle="--", linewidth=1.0, label=f"theory $\\alpha_{{crit}}$ = {ac:.2f}"
    )
    axes[0].axhline(1 / N, color="0.5", linestyle=":", linewidth=1.0, label="$1/N$")
    axes[0].set_xlabel("gate competition $\\alpha$")
    axes[0].set_ylabel("peak gate probability $\\max_i p_i$")
    axes[0].legend(fontsize=8, loc="lower right")  # empty above the 1/N floor
    for k, a in enumerate(show_alphas):
        i = int(np.argmin(np.abs(result.alphas - a)))
        axes[1].plot(
            np.arange(N),
            np.sort(result.example[i])[::-1],
            marker="o",
            markersize=2.5,
            color=color(k),
            label=f"α = {result.alphas[i]:.2f}",
        )
    axes[1].set_yscale("log")
    axes[1].set_ylim(1e-6, 1.5)
    axes[1].set_xlabel("gate rank (sorted)")
    axes[1].set_ylabel("gate probability $p_i$ (trial 0)")
    axes[1].legend(fontsize=8)
    return finish(fig)


def plot_fixed_point_terms(
    terms: Mapping[str, torch.Tensor], p: torch.Tensor, *, target: int | None = None, top: int = 12
) -> Figure:
    """Bar chart of the three terms of r* (query, context, feedback) and p* for one trial.

    Parameters
    ----------
    terms : mapping with keys "query", "context", "feedback", each of shape (N,)
    p : torch.Tensor, shape (N,)
        p* = softmax(β r*).
    target : int, optional
        Index of the target memory (marked with a star).
    top : int
        Show the ``top`` memories with the largest r*.

    Returns
    -------
    Figure
    """
    q = terms["query"].detach().cpu().numpy()
    c = terms["context"].detach().cpu().numpy()
    f = terms["feedback"].detach().cpu().numpy()
    r = q + c + f
    order = np.argsort(-r)[:top]
    x = np.arange(order.size)
    fig, axes = new_figure(1, 2)
    w = 0.27
    for k, (name, v) in enumerate(
        (
            ("query evidence $b$", q),
            ("context $\\lambda A^{-1}u$", c),
            ("feedback $\\lambda^2 A^{-1}p^*$", f),
        )
    ):
        axes[0].bar(x + (k - 1) * w, v[order], width=w, color=color(k), label=name)
    axes[0].plot(x, r[order], "k_", markersize=14, label="$r^*$ (sum)")
    labels = [f"{i}{'*' if i == target else ''}" for i in order]
    axes[0].set_xticks(x, labels, fontsize=7.5)
    axes[0].set_xlabel("memory ν (sorted by $r^*_\\nu$; * = target)")
    axes[0].set_ylabel("contribution to $r^*_\\nu$")
    legend_below(fig, axes[0], ncol=4)  # the bars and r* marks fill the panel
    axes[1].bar(x, p.detach().cpu().numpy()[order], color=color(4))
    axes[1].set_xticks(x, labels, fontsize=7.5)
    axes[1].set_xlabel("memory ν")
    axes[1].set_ylabel("retrieval probability $p^*_\\nu$")
    return finish(fig)


def plot_fixed_point_trial(trial: FixedPointTrial) -> Figure:
    """Explorer view: the three terms of r* and p* of one trial, with the uniqueness verdict.

    Parameters
    ----------
    trial : FixedPointTrial
        From :func:`~assocmem.context_gated.fixed_point.fixed_point_trial`.

    Returns
    -------
    Figure
        The bars of :func:`plot_fixed_point_terms` under a title with α, λ, β, σ_q, the
        contraction constant (eq. ``eq-cg-contraction``) and whether the iteration converged;
        a message instead when α >= α_crit.
    """
    pr = trial.params
    if trial.terms is None or trial.p is None:
        fig, ax = new_figure()
        ax.text(
            0.5,
            0.5,
            rf"$\alpha$ = {pr['alpha']:g} $\geq \alpha_{{crit}}$: $A(\alpha)$ is not positive "
            "definite,\nthe gate subsystem has no stable fixed point",
            ha="center",
            va="center",
        )
        ax.set_axis_off()
        return finish(fig)
    fig = plot_fixed_point_terms(trial.terms, trial.p, target=trial.target)
    state = "unique (contraction)" if trial.unique else "uniqueness not guaranteed"
    return finish(
        fig,
        title=rf"$\alpha$={pr['alpha']:g}, $\lambda$={pr['lam']:g}, $\beta$={pr['beta']:g}, "
        rf"$\sigma_q$={pr['noise']:g}"
        "\n"
        rf"$\beta\lambda^2/(2\eta_{{\min}})$ = {trial.contraction:.2f}: "
        f"{state}; iteration {'converged' if trial.converged else 'NOT converged'}",
    )
