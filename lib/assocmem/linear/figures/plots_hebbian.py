"""Figures of chapter 3 (Hebbian rule vs optimal storage).

Hebbian score statistics and thresholds, recall against the load under the two criteria, and
the storage mechanism of the optimal memory.

Plot functions take computed results and draw them in the book's style (:mod:`assocmem.plotting`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from assocmem.linear.measure.scores import spread_summary
from assocmem.linear.measure.tables import success_by_load
from assocmem.linear.theory.hebbian import (
    CRITERIA,
    recall_probability,
    score_densities,
    threshold,
)
from assocmem.linear.theory.load import load_for_pairs
from assocmem.plotting import (
    clipped_yerr,
    color,
    finish,
    interval_yerr,
    legend_below,
    new_figure,
    sim_points,
    theory_line,
    wilson_yerr,
)
from assocmem.stats import t_interval


def _gauss_pdf(x: np.ndarray, mean: float, var: float) -> np.ndarray:
    return np.exp(-0.5 * (x - mean) ** 2 / var) / math.sqrt(2.0 * math.pi * var)


def plot_score_histograms(
    sim: Mapping[str, torch.Tensor],
    moments: Mapping[str, float],
    d: int,
    *,
    embedding: str = "gaussian",
    bins: int = 60,
) -> Figure:
    """Histograms of simulated Hebbian target and non-target scores with the Gaussian theory.

    Parameters
    ----------
    sim : mapping
        :func:`assocmem.linear.measure.scores.simulate_scores` (``target`` of shape (n, p),
        ``nontarget``).
    moments : mapping
        :func:`assocmem.linear.theory.hebbian.score_moments` at the same ``p`` and ``d``.
    d : int
        Embedding dimension (for the title).
    embedding : str
        The embeddings simulated (for the title).
    bins : int
        Number of histogram bins.

    Returns
    -------
    Figure
        One panel; simulation as step histograms (density), theory N(mean, var) of
        :func:`score_moments` as lines.

    """
    mom, p = moments, int(sim["target"].shape[-1])
    t = sim["target"].numpy().ravel()
    nt = sim["nontarget"].numpy().ravel()
    fig, ax = new_figure()
    lo = min(nt.min(), t.min())
    hi = max(nt.max(), t.max())
    edges = np.linspace(lo, hi, bins + 1)
    ax.hist(nt, bins=edges, density=True, histtype="step", color=color(0), linewidth=1.2)
    ax.hist(t, bins=edges, density=True, histtype="step", color=color(1), linewidth=1.2)
    x = np.linspace(lo, hi, 400)
    theory_line(
        ax, x, _gauss_pdf(x, 0.0, mom["nontarget_var"]), label="theory, non-target", color=color(0)
    )
    theory_line(
        ax, x, _gauss_pdf(x, 1.0, mom["target_var"]), label="theory, target", color=color(1)
    )
    ax.plot([], [], color=color(0), linewidth=1.2, label="simulation, non-target (histogram)")
    ax.plot([], [], color=color(1), linewidth=1.2, label="simulation, target (histogram)")
    ax.set_xlabel(r"Hebbian score $s_{\mu\nu}=u_\nu^\top W e_\mu$")
    ax.set_ylabel("density")
    alpha = load_for_pairs(p, d)
    ax.set_title(f"$d$ = {d}, $p$ = {p} ($\\alpha$ = {alpha:.2f}), {embedding} embeddings")
    legend_below(fig, ax, ncol=2)
    return finish(fig)


def plot_thresholds(
    p_values: np.ndarray, *, embeddings: tuple[str, ...] = ("gaussian", "spherical", "leading")
) -> Figure:
    """Finite-size Hebbian thresholds under both criteria against log p, with the asymptotes.

    Parameters
    ----------
    p_values : ndarray
        Numbers of associations (each >= 3).
    embeddings : tuple of str
        Which embedding laws to draw (see :func:`score_moments`).

    Returns
    -------
    Figure
        Two panels: criterion "all" (asymptote 1/8) and "typical" (asymptote 1/2).

    Raises
    ------
    ValueError
        If a ``p`` is < 2 or an embedding is unknown.
    """
    p_arr = np.asarray(p_values, dtype=float)
    fig, axes = new_figure(1, 2)
    styles = {"gaussian": "-", "spherical": "--", "leading": ":"}
    for ax, crit, asym in zip(axes, CRITERIA, (1 / 8, 1 / 2), strict=True):
        for i, emb in enumerate(embeddings):
            th = [threshold(float(q), criterion=crit, embedding=emb) for q in p_arr]
            theory_line(
                ax, p_arr, th, label=f"theory, {emb}", color=color(i), linestyle=styles.get(emb)
            )
        ax.axhline(asym, color="k", linewidth=0.8, label=f"asymptote {asym:g}")
        ax.set_xscale("log")
        ax.set_xlabel("number of associations $p$")
        ax.set_ylabel(r"threshold load $\alpha = p\log p/d^2$")
        name = "all $p$ recalled" if crit == "all" else "one association recalled"
        ax.set_title(f'criterion "{crit}":\nP({name}) = 1/2', fontsize=10)
        ax.legend()
    return finish(fig)


def plot_recall_vs_load(
    table: pd.DataFrame,
    *,
    transitions: dict[int, float] | None = None,
) -> Figure:
    """Accuracy (criterion "typical") and P(all recalled) (criterion "all") against the load.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.measure.sweeps.capacity_sweep` output for ``method="hebbian"`` and/or
        ``"train"`` at one or more d (one problem kind), joined with ``pandas.concat``.
    transitions : dict, optional
        ``{d: alpha}``: predicted perfect-storage transition of the optimal memory at that d
        (e.g. :func:`assocmem.linear.theory.finite_size.predicted_transition`), drawn as a vertical
        line.

    Returns
    -------
    Figure
        Left: mean accuracy (fraction recalled, 95 % Student-t interval over instances); right:
        fraction of instances with every association recalled (95 % Wilson interval). Hebbian theory
        (:func:`assocmem.linear.theory.hebbian.recall_probability`, Gaussian embeddings) as lines.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty sweep table.
    """
    curves = success_by_load(table)
    fig, axes = new_figure(1, 2, width=10.0, height=4.2)
    markers = {"hebbian": "o", "train": "s"}
    names = {"hebbian": "Hebbian", "train": "trained"}
    for j, d in enumerate(sorted(curves["d"].unique())):
        c = color(j)
        at_d = curves[curves["d"] == d]
        a_lo, a_hi = float(at_d["load"].min()), float(at_d["load"].max())
        p_lo = max(2, int(at_d["p"].min()) - 1)
        p_hi = int(at_d["p"].max()) + 1
        p_grid = np.unique(np.geomspace(p_lo, p_hi, 80).astype(int))
        a_grid = np.array([load_for_pairs(int(q), int(d)) for q in p_grid])
        keep = (a_grid >= 0.8 * a_lo) & (a_grid <= 1.05 * a_hi)
        for ax, crit in zip(axes, ("typical", "all"), strict=True):
            th = recall_probability(p_grid[keep], d, criterion=crit)
            theory_line(ax, a_grid[keep], th, label=f"Hebbian theory, $d$ = {d}", color=c)
        for rule, tab in at_d.groupby("method", sort=True):
            fill = "full" if rule == "train" else "none"
            kw = {"marker": markers.get(str(rule), "D"), "fillstyle": fill, "color": c}
            lab = f"{names.get(str(rule), rule)} W, $d$ = {d} ($n$ = {int(tab['n'].min())})"
            _, high = t_interval(tab["accuracy"], tab["accuracy_sem"].fillna(0.0), tab["n"])
            half = np.nan_to_num(high - tab["accuracy"].to_numpy(), nan=0.0)  # n = 1: no bar
            acc_err = clipped_yerr(tab["accuracy"], half)
            sim_points(axes[0], tab["load"], tab["accuracy"], acc_err, label=lab, **kw)
            sim_points(axes[1], tab["load"], tab["fraction"], wilson_yerr(tab), label=lab, **kw)
        if transitions and d in transitions:
            axes[1].axvline(
                transitions[d], color=c, linestyle="--", lw=1, label=rf"RS $\alpha_c(p)$, $d$ = {d}"
            )
    for ax in axes:
        ax.axvline(1 / 8, color="k", lw=0.8, linestyle=":", label=r"$\alpha = 1/8$")
        ax.axvline(1 / 2, color="k", lw=0.8, linestyle="-.", label=r"$\alpha = 1/2$")
        ax.set_xscale("log")
        ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
        ax.set_ylim(-0.03, 1.03)
    axes[0].set_ylabel('accuracy (criterion "typical")')
    axes[1].set_ylabel('P(all p recalled) (criterion "all")')
    axes[0].set_title("fraction of associations recalled")
    axes[1].set_title("probability of perfect recall")
    legend_below(fig, axes, ncol=3)
    return finish(fig)


def plot_mechanism(
    stats: dict[str, dict[str, Any]],
    *,
    rs: dict[str, np.ndarray] | None = None,
    bins: int = 40,
) -> Figure:
    """Histograms of target and maximum-competitor scores (units sigma_W), Hebbian vs trained.

    Parameters
    ----------
    stats : dict
        ``{"hebbian": stats, "trained": stats}`` as from
        :func:`assocmem.linear.measure.scores.mechanism_scores`.
    rs : dict, optional
        Output of :func:`assocmem.linear.theory.mechanism.optimal_mechanism` (draws of the RS target
        level ``level`` and of the pushed-down competitor maximum ``max_competitor``), drawn as
        theory densities on the trained panel.
    bins : int
        Number of histogram bins.

    Returns
    -------
    Figure
        Two panels sharing the x axis, with the extreme-value line sqrt(2 log p). The Hebbian
        panel carries the conditional Gaussian theory of
        :func:`assocmem.linear.theory.hebbian.score_densities` (Gaussian embeddings), rescaled by
        the measured sigma_W.

    Raises
    ------
    KeyError
        If ``stats`` lacks the ``"hebbian"`` or ``"trained"`` entry.
    """
    fig, axes = new_figure(1, 2, width=10.0, height=4.0, sharex=True)
    p = int(stats["hebbian"]["p"])
    d = int(stats["hebbian"]["d"])
    ev = math.sqrt(2.0 * math.log(p))
    allv = np.concatenate(
        [np.ravel(stats[r][k]) for r in stats for k in ("target", "max_competitor")]
    )
    extra = [] if rs is None else [np.ravel(rs["level"]), np.ravel(rs["max_competitor"])]
    lo, hi = np.percentile(np.concatenate([allv, *extra]), [0.2, 99.8])
    edges = np.linspace(lo - 0.3, hi + 0.3, bins + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    x = np.linspace(edges[0], edges[-1], 400)
    sw = float(np.mean(stats["hebbian"]["sigma_w"]))
    for ax, rule in zip(axes, ("hebbian", "trained"), strict=True):
        st = stats[rule]
        s = spread_summary(st)
        ax.hist(
            np.ravel(st["max_competitor"]), bins=edges, density=True, alpha=0.45,
            color=color(0), label="simulation: max competitor",
        )  # fmt: skip
        ax.hist(
            np.ravel(st["target"]), bins=edges, density=True, alpha=0.45, color=color(1),
            label="simulation: target",
        )  # fmt: skip
        if rule == "hebbian":
            dens = score_densities(x * sw, p, d)
            theory_line(ax, x, sw * dens["max_competitor"], label="theory: max competitor",
                        color=color(0))  # fmt: skip
            theory_line(ax, x, sw * dens["target"], label="theory: target", color=color(1))
        elif rs is not None:
            h, _ = np.histogram(rs["max_competitor"], bins=edges, density=True)
            theory_line(ax, centres, h, label="RS: pushed max competitor", color=color(0))
            h, _ = np.histogram(rs["level"], bins=edges, density=True)
            theory_line(ax, centres, h, label=r"RS: target level $T^*$", color=color(1))
        ax.axvline(ev, color="k", lw=1, linestyle="--", label=r"$\sqrt{2\log p}$")
        ax.set_xlabel(r"score / $\sigma_W$,  $\sigma_W=\|W\|_F/d$")
        ax.set_title(
            f"{rule} W: target std {s['target_std']:.2f}, recalled {100 * s['recalled']:.0f}%"
        )
    legend_below(fig, axes, ncol=3)
    axes[0].set_ylabel("density")
    return finish(fig, title=rf"$d$ = {d}, $p$ = {p}, $\alpha$ = {load_for_pairs(p, d):.2f}")


def plot_partial_storage(
    accuracy: pd.DataFrame,
    theory: dict[str, Any],
) -> Figure:
    """Accuracy above alpha = 1/2: measured memories against the Hebbian theory and cost curves.

    Parameters
    ----------
    accuracy : pandas.DataFrame
        :func:`assocmem.linear.measure.partial_storage.accuracy_by_load` output (columns ``method``
        in {"hebbian", "train", "subset"}, ``d``, ``load``, ``n``, ``accuracy``, ``ci_low``,
        ``ci_high``).
    theory : dict
        ``"load"`` (m,) grid of loads; ``"hebbian"``: ``{d: (m,) P_1}`` (criterion "typical",
        :func:`assocmem.linear.theory.hebbian.recall_probability`); ``"d_cost"``: the d of the cost
        curves; ``"random"``, ``"give_up"``, ``"small"``: (m,) storable fractions of
        :mod:`assocmem.linear.measure.partial_storage` at ``d_cost``.

    Returns
    -------
    Figure
        One panel, accuracy against the load (log scale), 95 % intervals as error bars,
        ``1/(2 alpha)`` as a thin grey line.

    Raises
    ------
    KeyError
        If ``theory`` lacks an entry.
    """
    fig, ax = new_figure(width=7.0, height=4.4)
    grid = np.asarray(theory["load"], dtype=float)
    ds = sorted({int(d) for d in accuracy["d"]} | {int(d) for d in theory["hebbian"]})
    cols = {d: color(j) for j, d in enumerate(ds)}
    dc = int(theory["d_cost"])
    ax.plot(grid, np.minimum(1.0, 0.5 / grid), color="0.6", lw=1,
            label=r"$\min(1, 1/(2\alpha))$ (asymptotic)")  # fmt: skip
    for key, style, name in (
        ("give_up", "-.", "give up the costliest (RS estimate)"),
        ("small", ":", r"$f p\log(fp)/d^2=\alpha_c(fp)$ (drops competitors)"),
        ("random", "--", r"random subset, $\alpha_c(p)/\alpha$"),
    ):
        theory_line(ax, grid, theory[key], label=f"cost: {name}, $d$ = {dc}",
                    color="k", linestyle=style)  # fmt: skip
    for d, p1 in sorted(theory["hebbian"].items()):
        theory_line(ax, grid, p1, label=f"Hebbian theory $P_1$, $d$ = {d}", color=cols[int(d)])
    markers = {"hebbian": ("o", "none", "Hebbian W"), "train": ("s", "full", "trained W"),
               "subset": ("D", "full", "subset-trained W")}  # fmt: skip
    for (method, d), tab in accuracy.groupby(["method", "d"], sort=True):
        mk, fill, name = markers.get(str(method), ("^", "full", str(method)))
        n = int(tab["n"].min())
        err = interval_yerr(tab["accuracy"], tab["ci_low"], tab["ci_high"])
        sim_points(ax, tab["load"], tab["accuracy"], err, marker=mk, fillstyle=fill,
                   color=cols[int(d)], label=f"{name}, $d$ = {d} ($n$ = {n})")  # fmt: skip
    ax.set_xscale("log")
    ticks = [t for t in (0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0) if grid.min() <= t <= grid.max()]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xticks([], minor=True)
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel('accuracy (criterion "typical")')
    ax.set_ylim(0.0, 1.03)
    legend_below(fig, ax, ncol=2)
    return finish(fig)
