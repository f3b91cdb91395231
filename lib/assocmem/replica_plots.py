"""Figures of the replica theory of the decoupled linear memory (chapter 2).

The finite-size capacity ``alpha_c(p)`` against its expansions and measured transitions, the RS
free entropy and its saddle, and one draw of the q -> 1 solution. Library plot functions return
the Figure and never call ``plt.show()``. All three are also importable from
:mod:`assocmem.replica`. Reconstruction, see chapter 2 and the paper digest, sections 4.1-4.3.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from assocmem._replica_core import _check_p
from assocmem.finite_size import (
    finite_size_capacity_curve,
    finite_size_capacity_expansion,
    shortcut_capacity,
)

__all__ = ["plot_finite_size_capacity", "plot_free_entropy", "plot_cost_solution"]


def plot_finite_size_capacity(
    p_values: ArrayLike | None = None,
    *,
    n_samples: int | None = None,
    seed: int = 0,
    measured: dict[str, list[Any]] | None = None,
):
    """``alpha_c(p)`` (Monte Carlo of the RS formula) with its expansion and the limit 1/2.

    Parameters
    ----------
    p_values : array_like, optional
        Grid of p (default: 15 values log-spaced from 10 to 1e8).
    n_samples, seed
        Monte Carlo settings, as in :func:`finite_size_capacity`.
    measured : dict, optional
        Output of :func:`transition_comparison`: measured transitions drawn as markers with
        error bars at ``(p at measured, measured alpha_c)``, and a second panel zoomed on them
        (there the markers are shifted by a few per cent in p so that coinciding points stay
        visible).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import finish, new_figure

    ps = np.logspace(1, 8, 15) if p_values is None else np.asarray(p_values, dtype=np.float64)
    alpha, err = finite_size_capacity_curve(ps, n_samples=n_samples, seed=seed)
    if not measured:
        fig, ax = new_figure()
        _draw_capacity_curves(ax, ps, alpha, err, None)
        ax.legend()
        return finish(fig)
    # right panel: zoom on the measured points, with a denser theory curve
    pm = np.asarray(measured["p at measured"], dtype=np.float64)
    lo, hi = max(3.0, 0.4 * np.nanmin(pm)), 2.5 * np.nanmax(pm)
    pz = np.unique(np.rint(np.geomspace(lo, hi, 12)))
    az, ez = finite_size_capacity_curve(pz, n_samples=n_samples, seed=seed + 100)
    fig, axes = new_figure(1, 2, width=11, height=4.2)
    _draw_capacity_curves(axes[0], ps, alpha, err, measured)
    _draw_capacity_curves(axes[1], pz, az, ez, measured, zoom=True)
    axes[0].legend(fontsize=8)
    axes[1].set_title("zoom on the simulated sizes")
    return finish(fig)


def _draw_capacity_curves(
    ax: Any,
    ps: NDArray[np.float64],
    alpha: NDArray[np.float64],
    err: NDArray[np.float64],
    measured: dict[str, list[Any]] | None,
    zoom: bool = False,
) -> None:
    from assocmem.plotting import color, sim_points, theory_line

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
    if measured:
        markers = "osD^v<>"
        n_meas = len(measured["sweep"])
        for j, lab in enumerate(measured["sweep"]):
            shift = 1.0 + (0.03 * (j - (n_meas - 1) / 2) if zoom else 0.0)
            sim_points(
                ax,
                [measured["p at measured"][j] * shift],
                [measured["measured alpha_c"][j]],
                yerr=[measured["measured +-"][j]],
                label=f"{lab}, d = {measured['d'][j]} (simulation)",
                color=color(j + 2),
                marker=markers[j % len(markers)],
                markerfacecolor="none" if j % 2 else color(j + 2),
            )
    ax.set_xscale("log")
    ax.set_xlabel("number of associations $p$")
    ax.set_ylabel(r"capacity $\alpha_c(p) = p_c \log p_c / d^2$")


def plot_free_entropy(
    p: int = 100,
    alphas: ArrayLike = (0.2, 0.4, 0.6, 0.8),
    *,
    n_samples: int = 200,
    seed: int = 0,
    n_grid: int = 24,
):
    """``Phi_RS(q)`` at fixed p for several loads, and the saddle ``q*(alpha)``.

    Left: ``Phi_RS`` against ``-log(1 - q)`` with the saddle of each load marked. Right:
    ``q*(alpha)`` and ``Phi_RS(q*)`` (log-volume per weight) against alpha, with the RS capacity
    ``log p / E[C]`` computed on the same quenched draws; the volume vanishes there.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    alphas : sequence of float
        Loads whose curves are drawn on the left panel, each > 0.
    n_samples, seed, n_grid
        As in :func:`rs_saddle`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import color, finish, new_figure, theory_line
    from assocmem.replica import _q_grid, _rs_interpolants, cost, rs_energetic_term

    p = _check_p(p)
    u, qs = _q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed)
    phi_u, solve = _rs_interpolants(u, g, p)
    u_fine = np.linspace(0.0, float(u[-1]), 600)
    q_fine = -np.expm1(-u_fine)
    t = np.random.default_rng(seed).standard_normal((n_samples, p))  # same draws as G
    alpha_c = math.log(p) / float(cost(t).mean())
    fig, axes = new_figure(1, 2, width=10)
    ax = axes[0]
    stars = []
    for i, a in enumerate(np.atleast_1d(np.asarray(alphas, dtype=np.float64))):
        theory_line(ax, q_fine, phi_u(u_fine, float(a)), label=rf"$\alpha = {a:g}$", color=color(i))
        qstar, phistar = solve(float(a))
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
    sad = np.array([solve(float(a)) for a in grid])
    theory_line(ax, grid, sad[:, 0], label=r"overlap $q^*(\alpha)$", color=color(0))
    theory_line(
        ax,
        grid,
        np.exp(sad[:, 1]),
        label=r"$e^{\Phi_{\rm RS}(q^*)}$ (volume$^{1/d^2}$)",
        color=color(1),
    )
    ax.axvline(alpha_c, color="k", linestyle=":", lw=1, label=r"$\log p/\overline{C}$ (same draws)")
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("saddle quantities")
    ax.legend()
    return finish(fig)


def plot_cost_solution(p: int = 200, margin: float = 0.0, seed: int = 0):
    """One draw of the quenched fields and the q -> 1 solution: who is moved, and where to.

    Shows the target field ``t_0`` and the largest competitors ``t_nu + margin`` (sorted), the
    level ``T*`` to which the target is lifted and the active competitors pushed down, and the
    resulting cost ``C(t)``.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    margin : float
        Margin kappa_0 >= 0.
    seed : int
        Seed of the draw.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from assocmem.plotting import color, finish, new_figure
    from assocmem.replica import cost_solution

    p = _check_p(p)
    t = np.random.default_rng(seed).standard_normal(p)
    sol = cost_solution(t, margin)
    level, k = float(sol.level[0]), int(sol.n_active[0])
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
