"""Figures of chapters 1 and 2 (perfect storage, trained memories, finite-size capacity).

Perfect storage against the load, spectra and scores of trained memories, the finite-size
capacity and the replica-symmetric free entropy.

Plot functions take computed results (sweep tables, weights, problems) and draw them in the book's
style (:mod:`assocmem.plotting`); the only computations here are theory curves for the axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_int, check_positive
from assocmem.linear.instances.problems import MemoryProblem, recalled, score_matrix
from assocmem.linear.measure.capacity_comparison import TransitionComparison, TransitionEntry
from assocmem.linear.measure.measured_spectra import singular_values
from assocmem.linear.measure.sweeps import GROUP_COLUMNS
from assocmem.linear.measure.tables import success_by_load
from assocmem.linear.theory.extremes import expected_max
from assocmem.linear.theory.finite_size import (
    finite_size_capacity_expansion,
    shortcut_capacity,
)
from assocmem.linear.theory.load import load_for_pairs
from assocmem.linear.theory.replica import (
    CostSolution,
    RSProfile,
)
from assocmem.linear.theory.spectra import quarter_circle_pdf
from assocmem.plotting import (
    clipped_yerr,
    color,
    finish,
    legend_below,
    new_figure,
    sim_points,
    theory_line,
    wilson_yerr,
)

_METHOD_NAMES = {"train": "CE+Adam", "hebbian": "Hebbian", "lp": "LP (exact)"}


def _label(method: str, problem: str, d: int, rank: int) -> str:
    """Legend entry of one sweep group."""
    m = "" if rank == d else f", m={rank}"
    kind = "" if method == "lp" else " (simulation)"  # the LP decides; it samples nothing
    return f"{_METHOD_NAMES.get(method, method)} {problem.upper()}, d={d}{m}{kind}"


def plot_success(
    table: pd.DataFrame,
    *,
    theory: dict[str, float] | None = None,
    predictions: dict[int, float] | None = None,
    show_accuracy: bool = True,
) -> Figure:
    """Probability of perfect storage (and mean recall accuracy) against the load, per sweep.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.measure.sweeps.capacity_sweep` output, any number of groups (e.g.
        several sweeps joined with ``pandas.concat``). OP groups are drawn with filled circles, DP
        groups with open squares; LP groups with dashed joins; one colour per d.
    theory : dict of str to float, optional
        Vertical theory lines ``{label: alpha}``, e.g. ``{"α_c = 1/2 (d → ∞)": 0.5}``.
    predictions : dict of int to float, optional
        ``{d: alpha}``: the finite-size prediction of the transition at that d (e.g.
        :func:`assocmem.linear.theory.finite_size.predicted_transition`), drawn as a vertical line
        in the colour of that d's markers; a d without markers in ``table`` gets one too.
    show_accuracy : bool
        Add a left panel with the mean fraction recalled (LP groups have none and are skipped).

    Returns
    -------
    Figure
        Simulation markers with 95 % Wilson intervals (fraction stored) or standard errors
        (accuracy).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty sweep table.
    """
    curves = success_by_load(table)
    ncols = 2 if show_accuracy else 1
    fig, axes = new_figure(1, ncols, sharex=True, width=10.0 if show_accuracy else 8.0)
    ax_list = list(np.atleast_1d(axes))
    ax_acc, ax_suc = (ax_list[0], ax_list[1]) if show_accuracy else (None, ax_list[0])
    dims = sorted(set(curves["d"].unique()) | set(predictions or {}))
    for (method, problem, d, rank, _), c in curves.groupby(GROUP_COLUMNS, sort=False):
        col = color(dims.index(d))
        dp = problem == "dp"
        kw: dict[str, Any] = {
            "marker": "s" if dp else "o",
            "markerfacecolor": "none" if dp else col,
            "linestyle": "--" if method == "lp" else ":",
            "linewidth": 1.0,
        }
        lab = _label(method, problem, d, rank)
        sim_points(ax_suc, c["load"], c["fraction"], wilson_yerr(c), label=lab, color=col, **kw)
        if ax_acc is not None and method != "lp":
            acc_err = clipped_yerr(c["accuracy"], c["accuracy_sem"].fillna(0.0))
            sim_points(ax_acc, c["load"], c["accuracy"], acc_err, label=lab, color=col, **kw)
    for k, (lab, a) in enumerate((theory or {}).items()):
        for ax in ax_list:
            theory_line(
                ax, [a, a], [0, 1], label=lab, color="k", linestyle=["-", "--", "-."][k % 3]
            )
    for d, a in sorted((predictions or {}).items()):
        for ax in ax_list:
            theory_line(ax, [a, a], [0, 1], label=f"α_c(p) at d={d} (finite-size theory)",
                        color=color(dims.index(d)), linestyle=(0, (4, 2)))  # fmt: skip
    ax_suc.set_xlabel("load α = p log p / d²")
    ax_suc.set_ylabel("P(all p recalled)")
    ax_suc.set_ylim(-0.05, 1.05)
    legend_below(fig, [ax_suc], ncol=2)
    if ax_acc is not None:
        ax_acc.set_xlabel("load α = p log p / d²")
        ax_acc.set_ylabel("fraction recalled")
        ax_acc.set_ylim(-0.05, 1.05)
    return finish(fig)


def plot_spectra(weights: dict[str, torch.Tensor | np.ndarray], *, bins: int = 15) -> Figure:
    """Histograms of normalised singular values of learnt memories beside the quarter circle.

    Parameters
    ----------
    weights : dict of str to tensor
        ``{label: W}`` with ``W`` of shape (d, d) or (B, d, d) (pooled), e.g. OP and DP.
    bins : int
        Histogram bins on [0, 2.4].

    Returns
    -------
    Figure

    Raises
    ------
    ValueError
        If ``weights`` is empty or a matrix is zero or not finite.
    """
    if not weights:
        raise ValueError("weights must contain at least one matrix")
    fig, ax = new_figure()
    edges = np.linspace(0, 2.4, check_int("bins", bins, 2) + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    for i, (lab, W) in enumerate(weights.items()):
        s = singular_values(W).ravel()
        h, _ = np.histogram(s, bins=edges, density=True)
        n = len(s)
        err = np.sqrt(h / (n * np.diff(edges)))  # Poisson error of a density histogram
        sim_points(ax, centres, h, err, label=f"{lab} (simulation)", color=color(i), linestyle=":")
    x = np.linspace(0, 2, 200)
    theory_line(ax, x, quarter_circle_pdf(x), label="quarter circle √(4−s²)/π (theory)", color="k")
    ax.set_xlabel("singular value s / rms(s)")
    ax.set_ylabel("density")
    ax.legend()
    return finish(fig)


def plot_score_distributions(memories: dict[str, Mapping[str, NDArray[np.float64]]]) -> Figure:
    """Target score against the largest competitor score of each input, in units of ``sigma_W``.

    Parameters
    ----------
    memories : dict of str to dict
        One panel per entry (e.g. "trained OP", "trained DP", "Hebbian OP"):
        :func:`assocmem.linear.measure.scores.score_statistics` of an unbatched memory.

    Returns
    -------
    Figure
        One point per input: x = largest competitor score, y = target score, both divided by
        ``sigma_W = ||W||_F / d`` (the standard deviation of a competitor score for a random
        input direction). Points above the diagonal are recalled. The dashed lines mark the mean
        maximum of ``p - 1`` standard Gaussians (theory for competitors independent of ``W``,
        ~ sqrt(2 log p), digest §6).

    Raises
    ------
    ValueError
        If ``memories`` is empty.
    """
    if not memories:
        raise ValueError("memories must not be empty")
    n = len(memories)
    fig, axes = new_figure(1, n, sharex=True, sharey=True)
    for k, (ax, (lab, st)) in enumerate(zip(np.atleast_1d(axes), memories.items(), strict=True)):
        x, y = st["max_competitor"], st["target"]
        ok = y > x
        ax.scatter(x[ok], y[ok], s=6, color=color(2), label="recalled (simulation)")
        ax.scatter(x[~ok], y[~ok], s=6, color=color(1), label="not recalled (simulation)")
        lo = float(min(x.min(), y.min())) - 0.2
        hi = float(max(x.max(), y.max())) + 0.2
        theory_line(
            ax, [lo, hi], [lo, hi], label="target = max competitor", color="k", linewidth=0.8
        )
        m = expected_max(len(y) - 1)
        ax.axvline(
            m,
            color="k",
            linestyle="--",
            linewidth=0.8,
            label=f"E max of p−1 Gaussians = {m:.2f} (theory)",
        )
        ax.axhline(m, color="k", linestyle="--", linewidth=0.8)
        ax.set_title(f"{lab}: target sd {np.std(y):.2f}")
        ax.set_xlabel(r"largest competitor score / $\sigma_W$")
        if k == 0:
            ax.set_ylabel(r"target score / $\sigma_W$")
            ax.legend(fontsize=7, loc="upper left")
    return finish(fig)


def plot_memory(
    W: torch.Tensor | np.ndarray,
    problem: MemoryProblem,
    *,
    perfect_step: int | None = None,
    max_show: int = 60,
) -> Figure:
    """Score matrix and per-input margins of one memory (chapter 1's explorer).

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d)
        The memory, e.g. ``train_memory(problem).weights``.
    problem : MemoryProblem
        The unbatched instance ``W`` stores.
    perfect_step : int or None
        First perfect step of the training run (shown in the title; ``None``: not stored).
    max_show : int
        Number of rows/columns of the score matrix shown (the top-left block), >= 1.

    Returns
    -------
    Figure
        Left: ``S[mu, nu]`` (target on the diagonal) for the first ``max_show`` inputs and
        candidates. Right: margin ``S[mu, mu] - max_{nu != mu} S[mu, nu]`` of every input, sorted,
        in units of ``sigma_W``; negative margins are recall errors.

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem.
    ValueError
        If ``problem`` is batched or ``max_show < 1``.
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if problem.batched:
        raise ValueError("plot_memory draws one (unbatched) problem")
    max_show = check_int("max_show", max_show, 1)
    p, d, decoupled = problem.p, problem.d, problem.decoupled
    W = torch.as_tensor(W)
    S = score_matrix(W, problem).double().cpu().numpy()
    sigma = float(torch.linalg.norm(W)) / d
    rec = recalled(W, problem).cpu().numpy()
    fig, (ax0, ax1) = new_figure(1, 2)
    k = min(max_show, p)
    vmax = float(np.abs(S[:k, :k]).max())
    im = ax0.imshow(S[:k, :k] / sigma, cmap="RdBu_r", vmin=-vmax / sigma, vmax=vmax / sigma)
    fig.colorbar(im, ax=ax0, fraction=0.046, label=r"score / $\sigma_W$")
    ax0.set_xlabel("candidate output ν")
    ax0.set_ylabel("input μ")
    ax0.set_title(f"S[μ, ν], first {k} of p = {p}")
    ax0.grid(False)
    margin = np.diagonal(S).copy()
    np.fill_diagonal(S, -np.inf)
    margin = (margin - S.max(1)) / sigma
    order = np.argsort(margin)
    ax1.bar(np.arange(p), margin[order], width=1.0, color=np.where(rec[order], color(2), color(1)))
    ax1.axhline(0, color="k", linewidth=0.8)
    ax1.set_xlabel("input (sorted by margin)")
    ax1.set_ylabel(r"margin / $\sigma_W$")
    state = f"stored at step {perfect_step}" if perfect_step is not None else "not stored"
    ax1.set_title(f"recalled {rec.mean():.1%} ({state})")
    kind = "DP" if decoupled else "OP"
    return finish(fig, title=f"{kind}, d = {d}, α = {load_for_pairs(p, d):.2f}")


def plot_finite_size_capacity(
    curves: Mapping[str, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]],
    *,
    measured: TransitionComparison | None = None,
) -> Figure:
    """``alpha_c(p)`` (Monte Carlo of the RS formula) with its expansion and the limit 1/2.

    Parameters
    ----------
    curves : mapping
        :func:`~assocmem.linear.measure.capacity_comparison.capacity_curves`: ``"full"`` and,
        with ``measured``, ``"zoom"``, each ``(p, alpha_c, stderr)``.
    measured : TransitionComparison, optional
        :func:`~assocmem.linear.measure.capacity_comparison.transition_comparison`: measured
        transitions drawn as markers with their 95 % error bars at ``(p at measured, measured
        alpha_c)``, one colour per ``d``, circles for labels without ``DP`` and squares for those
        with it, open markers for labels naming ``LP`` (labelled by the sweep, plus ``d`` unless
        the label names it), and a second panel below, zoomed on them (there the markers are
        shifted by a few per cent in p so that coinciding points stay visible).

    Returns
    -------
    matplotlib.figure.Figure
    """
    entries = () if measured is None else measured.entries
    if not entries:
        fig, ax = new_figure()
        _draw_capacity_curves(ax, *curves["full"], ())
        ax.legend()
        return finish(fig)
    # one column of panels at the page width; one legend below both, off the data
    fig, axes = new_figure(2, 1, width=7, height=8.5)
    _draw_capacity_curves(axes[0], *curves["full"], entries)
    _draw_capacity_curves(axes[1], *curves["zoom"], entries, zoom=True)
    axes[1].set_title("zoom on the simulated sizes")
    handles, labels = axes[0].get_legend_handles_labels()
    axes[1].legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                   fontsize=9, frameon=False)  # fmt: skip
    return finish(fig)


#: Colours of the measured sizes: the palette's entries not used by the theory lines (0, 1 and
#: 5), then black, wine and orange (Tol), so that up to seven sizes never share one.
_D_COLOURS = (color(2), color(3), color(4), color(6), "#000000", "#882255", "#EE7733")


def _draw_capacity_curves(
    ax: Any,
    ps: NDArray[np.float64],
    alpha: NDArray[np.float64],
    err: NDArray[np.float64],
    entries: Sequence[TransitionEntry],
    zoom: bool = False,
) -> None:

    theory_line(
        ax,
        ps,
        alpha,
        label=r"RS theory $\log p/\mathbb{E}[C_p]$ (MC, band $\pm 2$ s.e.)",
        color=color(0),
    )
    ax.fill_between(ps, alpha - 2 * err, alpha + 2 * err, alpha=0.2, lw=0, color=color(0))
    if not zoom:
        big = ps[ps >= 300]
        theory_line(
            ax,
            big,
            finite_size_capacity_expansion(big),
            label="large-$p$ expansion",
            linestyle="--",
            color=color(1),
        )
        theory_line(
            ax,
            ps,
            shortcut_capacity(ps),
            label=r"shortcut: perceptron, margin $\mathbb{E}\max$",
            linestyle=":",
            color=color(5),
        )
        ax.axhline(0.5, color="k", lw=0.8, linestyle=":", label=r"$\alpha_c = 1/2$ ($p\to\infty$)")
    # one colour per d; circle OP, square DP; filled trained, open exact LP
    d_colour = {d: _D_COLOURS[i % len(_D_COLOURS)]
                for i, d in enumerate(sorted({e.d for e in entries}))}  # fmt: skip
    for j, e in enumerate(entries):
        shift = 1.0 + (0.03 * (j - (len(entries) - 1) / 2) if zoom else 0.0)
        a, lab, col = e.measured.value, e.sweep, d_colour[e.d]
        lo, hi = min(e.measured.low, a), max(e.measured.high, a)
        sim_points(
            ax,
            [e.p_measured * shift],
            [a],
            yerr=np.array([[a - lo], [hi - a]]),
            label=lab if "d=" in lab.replace(" ", "") else f"{lab}, d = {e.d}",
            color=col,
            marker="s" if "DP" in lab else "o",
            markerfacecolor="none" if "LP" in lab else col,
        )
    ax.set_xscale("log")
    ax.set_xlabel("number of associations $p$")
    ax.set_ylabel(r"capacity $\alpha_c(p) = p_c \log p_c / d^2$")


def plot_free_entropy(
    profile: RSProfile,
    alphas: ArrayLike = (0.2, 0.4, 0.6, 0.8),
    *,
    population: float | None = None,
):
    """``Phi_RS(q)`` at fixed p for several loads, and the saddle ``q*(alpha)``.

    Left: ``Phi_RS`` against ``-log(1 - q)`` with the saddle of each load marked. Right:
    ``q*(alpha)`` and ``Phi_RS(q*)`` (log-volume per weight) against alpha, with the RS capacity
    ``log p / mean C`` of the same quenched draws (dotted, its 95 % bootstrap interval over the
    draws shaded; :func:`assocmem.linear.theory.replica.rs_draws_capacity`), where the volume
    vanishes, and, if given, the population capacity ``alpha_c(p)`` (dashed).

    Parameters
    ----------
    profile : RSProfile
        :func:`assocmem.linear.theory.replica.rs_profile` at the page's ``p``.
    alphas : sequence of float
        Loads whose curves are drawn on the left panel, each > 0.
    population : float, optional
        The population capacity ``alpha_c(p) = log p / E[C_p]`` (e.g.
        :func:`assocmem.linear.theory.finite_size.finite_size_capacity_estimate`), drawn as a dashed
        vertical line; None: not drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a load is <= 0 or ``population`` is not a finite number > 0.
    """
    p, phi_u, saddle, own = profile.p, profile.phi, profile.saddle, profile.capacity
    u_fine = np.linspace(0.0, float(profile.u[-1]), 600)
    q_fine = -np.expm1(-u_fine)
    if population is not None:
        population = check_positive("population", population)
    alpha_c = own.value
    fig, axes = new_figure(1, 2, width=10)
    ax = axes[0]
    stars = []
    for i, a in enumerate(np.atleast_1d(np.asarray(alphas, dtype=np.float64))):
        theory_line(ax, q_fine, phi_u(u_fine, float(a)), label=rf"$\alpha = {a:g}$", color=color(i))
        qstar, phistar = saddle(float(a))
        stars.append(phistar)
        ax.plot(qstar, phistar, "o", color=color(i))
    low, high = min(stars), max(0.0, -min(stars))
    ax.set_ylim(low - 0.3 * (high - low), high)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(r"overlap $q$")
    ax.set_ylabel(r"$\Phi_{\rm RS}(q;\alpha,p)$")
    ax.set_title(f"p = {p}; dots: saddle $q^*$ (minimum)")
    ax.legend()
    ax = axes[1]
    grid = np.linspace(0.02, 0.995, 60) * alpha_c
    sad = np.array([saddle(float(a)) for a in grid])
    theory_line(ax, grid, sad[:, 0], label=r"overlap $q^*(\alpha)$", color=color(0))
    theory_line(
        ax,
        grid,
        np.exp(sad[:, 1]),
        label=r"$e^{\Phi_{\rm RS}(q^*)}$ (volume$^{1/d^2}$)",
        color=color(1),
    )
    ax.axvline(alpha_c, color="k", linestyle=":", lw=1,
               label=rf"draws' $\log p/\overline{{C}} = {alpha_c:.3f}$")  # fmt: skip
    ax.axvspan(own.low, min(own.high, 2.0 * alpha_c), color="k", alpha=0.08, lw=0,
               label=f"its 95 % interval ({own.n} draws)")  # fmt: skip
    if population is not None:
        ax.axvline(population, color=color(2), linestyle="--", lw=1.2,
                   label=rf"population $\alpha_c(p) = {population:.3f}$")  # fmt: skip
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("saddle quantities")
    legend_below(fig, ax, ncol=3)  # the vertical lines run through the panel's height
    return finish(fig)


def plot_cost_solution(t: ArrayLike, sol: CostSolution, margin: float = 0.0):
    """One draw of the quenched fields and the q -> 1 solution: who is moved, and where to.

    Shows the target field ``t_0`` and the largest competitors ``t_nu + margin`` (sorted), the
    level ``T*`` to which the target is lifted and the active competitors pushed down, and the
    resulting cost ``C(t)``.

    Parameters
    ----------
    t : array_like, shape (p,)
        The fields, target first (:func:`assocmem.linear.theory.replica.cost_example`).
    sol : CostSolution
        :func:`assocmem.linear.theory.replica.cost_solution` of ``t`` at ``margin``.
    margin : float
        Margin kappa_0 >= 0.

    Returns
    -------
    matplotlib.figure.Figure
    """
    t = np.asarray(t, dtype=np.float64)
    p, level, k = t.size, float(sol.level[0]), int(sol.n_active[0])
    c = np.sort(t[1:])[::-1] + margin
    shown = min(c.size, max(3 * k + 10, 25))
    fig, ax = new_figure()
    idx = np.arange(1, shown + 1)
    ax.plot(idx, c[:shown], "o", color=color(0), label=r"competitors $t_{(\nu)}+\kappa_0$ (sorted)")
    moved = idx <= k
    for i in idx[moved]:
        ax.annotate(
            "",
            xy=(i, level),
            xytext=(i, c[i - 1]),
            arrowprops={"arrowstyle": "->", "color": color(0), "lw": 0.8},
        )
    ax.plot([0], [t[0]], "s", color=color(1), ms=8, label=r"target $t_0$")
    ax.annotate(
        "", xy=(0, level), xytext=(0, t[0]), arrowprops={"arrowstyle": "->", "color": color(1)}
    )
    ax.axhline(level, color="k", lw=1, linestyle="--", label=rf"level $T^*$ = {level:.2f}")
    ax.set_xlabel(r"rank of the competitor ($0$ = target)")
    ax.set_ylabel("quenched field (units of its std)")
    ax.set_title(f"p = {p}: C(t) = {float(sol.cost[0]):.2f}, k = {k} competitors pushed down")
    ax.legend(loc="upper right")
    return finish(fig)
