"""Figures of chapter 4 (rank-constrained memories).

The capacity alpha_c(kappa), the truncated quarter circle, singular values of trained factored
memories and perfect storage against the load per kappa.

Plot functions take computed results and draw them in the book's style (:mod:`assocmem.plotting`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from numpy.typing import NDArray

from assocmem._validate import check_scalar_kappa
from assocmem.linear.plots_capacity import wilson_yerr
from assocmem.linear.spectra import (
    critical_load,
    hebbian_critical_load,
    quarter_circle_pdf,
    spectrum_ks_distance,
    truncated_quarter_circle_pdf,
    truncated_quarter_circle_quantile,
    truncated_second_moment,
    truncation_point,
)
from assocmem.linear.sweeps import success_by_load
from assocmem.plotting import color, finish, new_figure, sim_points, theory_line


def plot_critical_load(
    *,
    measured: dict[float, tuple[float, float]] | None = None,
    finite_size: dict[float, float] | None = None,
    kappa_max: float = 1.25,
) -> Figure:
    """Draw the capacity alpha_c(kappa), its small-kappa asymptote, the Hebbian curve and data.

    Parameters
    ----------
    measured : dict, optional
        ``{kappa: (alpha_hat, stderr)}``: capacities estimated from training (simulation
        markers with error bars).
    finite_size : dict, optional
        ``{kappa: alpha}``: a finite-size theory estimate at the simulated size (open markers).
    kappa_max : float, default 1.25
        Right end of the kappa axis (> 0).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``kappa_max <= 0``.
    """
    if not (np.isfinite(kappa_max) and kappa_max > 0):
        raise ValueError(f"kappa_max must be > 0, got {kappa_max}")
    fig, ax = new_figure()
    k = np.linspace(1e-3, kappa_max, 400)
    theory_line(ax, k, critical_load(k), label=r"theory $\alpha_c(\kappa)$ (optimal)",
                color=color(0))  # fmt: skip
    ks = k[k <= 0.35]
    theory_line(ax, ks, 2 * ks, label=r"small-$\kappa$ asymptote $2\kappa$", color=color(6),
                linestyle="--")  # fmt: skip
    theory_line(ax, k, hebbian_critical_load(k), label=r"Hebbian $\alpha_c(\kappa)/4$",
                color=color(1), linestyle=":")  # fmt: skip
    if finite_size:
        kk = np.array(sorted(finite_size))
        ax.plot(kk, [finite_size[x] for x in kk], marker="s", linestyle="none", mfc="none",
                color=color(2), label="finite-size estimate (heuristic)")  # fmt: skip
    if measured:
        kk = np.array(sorted(measured))
        sim_points(ax, kk, [measured[x][0] for x in kk], [measured[x][1] for x in kk],
                   label=r"simulation: trained $W=QR^{T}$", color=color(2))  # fmt: skip
    ax.set_xlabel(r"rank ratio $\kappa = m/d$")
    ax.set_ylabel(r"load $\alpha = p\log p/d^2$")
    ax.set_xlim(0, kappa_max)
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right", fontsize=8)
    return finish(fig)


def plot_singular_values(
    spectra: dict[float, NDArray[np.float64]],
    *,
    bins: int = 24,
) -> Figure:
    """Histograms and quantile–quantile plot of trained singular values against theory.

    Parameters
    ----------
    spectra : dict
        ``{kappa: s}`` with ``s`` the non-zero singular values (pooled over seeds), normalised to
        mean square 1 (``singular_values(W, rank=m)``); empty entries are skipped.
    bins : int, default 24
        Largest number of histogram bins per panel (>= 2); a panel with ``n`` values uses
        ``min(bins, max(6, n // 6))``.

    Returns
    -------
    matplotlib.figure.Figure
        Top row: one histogram per kappa with the theory density (quarter circle for
        ``kappa >= 1``, truncated quarter circle otherwise, both rescaled to mean square 1).
        Bottom row: empirical vs theoretical quantiles, one panel per kappa.

    Raises
    ------
    ValueError
        If ``spectra`` holds no singular values or ``bins < 2``.
    """
    if not spectra:
        raise ValueError("spectra must contain at least one {kappa: singular values} entry")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")
    kappas = sorted(k for k in spectra if np.asarray(spectra[k]).size > 0)
    if not kappas:
        raise ValueError("spectra holds no singular values (every entry is empty)")
    n = len(kappas)
    fig, axes = new_figure(2, n, width=max(6.4, 2.6 * n), height=5.6)
    axes = np.asarray(axes).reshape(2, n)
    for j, k in enumerate(kappas):
        s = np.sort(np.asarray(spectra[k], dtype=np.float64).ravel())
        ax = axes[0, j]
        nb = int(min(bins, max(6, s.size // 6)))
        hist, edges = np.histogram(s, bins=nb, density=True)
        centres = 0.5 * (edges[1:] + edges[:-1])
        err = np.sqrt(hist / (s.size * np.diff(edges)))
        sim_points(ax, centres, hist, err, label="trained $W$", color=color(j), markersize=3)
        grid = np.linspace(0, 2.0 / math.sqrt(float(truncated_second_moment(k))) * 1.001, 400)
        lab = "quarter circle" if k >= 1 else "truncated q.c."
        theory_line(ax, grid, truncated_quarter_circle_pdf(grid, k, unit_rms=True),
                    label=f"theory: {lab}", color="k", linewidth=1.2)  # fmt: skip
        ax.set_title(rf"$\kappa = {k:g}$")
        ax.set_xlabel(r"singular value $s$ / rms")
        if j == 0:
            ax.set_ylabel("density")
        ax.legend(loc="upper left", fontsize=7)
        ax = axes[1, j]
        q = (np.arange(1, s.size + 1) - 0.5) / s.size
        th = np.asarray(truncated_quarter_circle_quantile(q, k, unit_rms=True))
        ax.plot(th, s, marker=".", linestyle="none", markersize=3, color=color(j),
                label="trained $W$")  # fmt: skip
        lim = [0, max(th.max(), s.max()) * 1.05]
        theory_line(ax, lim, lim, label="theory (y = x)", color="k", linewidth=1.0)
        ax.set_xlabel("theoretical quantile")
        if j == 0:
            ax.set_ylabel("empirical quantile")
        ax.text(0.95, 0.05, f"KS = {spectrum_ks_distance(s, k):.3f}", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=8)  # fmt: skip
        ax.legend(loc="upper left", fontsize=7)
    return finish(fig)


def plot_rank_truncation(kappa: float = 0.5) -> Figure:
    """Explorer view: which part of the quarter circle a rank-``kappa d`` memory keeps.

    Parameters
    ----------
    kappa : float, default 0.5
        Rank ratio in (0, inf).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the quarter circle with the kept top-``kappa`` fraction shaded and the edge
        ``s_kappa``. Right: ``alpha_c(kappa)`` and its Hebbian analogue with the current point.

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or is not finite.
    """
    k = check_scalar_kappa(kappa)
    s_k = float(truncation_point(k))
    a_k = float(critical_load(k))
    fig, (ax0, ax1) = new_figure(1, 2)
    s = np.linspace(0, 2, 400)
    theory_line(ax0, s, quarter_circle_pdf(s), label=r"$\rho_{QC}(s)$", color=color(0))
    kept = s >= s_k
    ax0.fill_between(s[kept], 0, quarter_circle_pdf(s[kept]), color=color(0), alpha=0.3,
                     label=rf"kept: mass $\kappa={min(k, 1):.2f}$")  # fmt: skip
    ax0.fill_between(s[kept], 0, s[kept] ** 2 * quarter_circle_pdf(s[kept]), color=color(1),
                     alpha=0.25, label=rf"$s^2\rho$: area $2\alpha_c={2 * a_k:.3f}$")  # fmt: skip
    ax0.plot(s, s**2 * quarter_circle_pdf(s), color=color(1), linewidth=1.0, linestyle="--",
             label=r"$s^2\rho_{QC}(s)$: area 1")  # fmt: skip
    ax0.axvline(s_k, color="k", linewidth=0.8, linestyle="--")
    ax0.set_xlabel(r"singular value $s$ (full-rank rms = 1)")
    ax0.set_ylabel("density")
    ax0.set_title(rf"$s_\kappa = {s_k:.3f}$")
    ax0.legend(loc="upper left", fontsize=8)
    ax0.set_ylim(0, 1.35)
    kk = np.linspace(1e-3, 1.25, 300)
    theory_line(ax1, kk, critical_load(kk), label=r"$\alpha_c(\kappa)$",
                color=color(0))  # fmt: skip
    theory_line(ax1, kk, hebbian_critical_load(kk), label=r"Hebbian $\alpha_c/4$",
                color=color(1), linestyle=":")  # fmt: skip
    ax1.plot([k], [a_k], marker="o", color="k", linestyle="none",
             label=rf"$\alpha_c({k:.2f}) = {a_k:.4f}$")  # fmt: skip
    ax1.set_xlabel(r"rank ratio $\kappa = m/d$")
    ax1.set_ylabel(r"critical load $\alpha_c$")
    ax1.set_xlim(0, 1.25)
    ax1.set_ylim(0, 0.55)
    ax1.legend(loc="lower right", fontsize=8)
    return finish(fig, title="Rank constraint: truncated quarter circle (reconstruction)")


def plot_rank_success(
    table: pd.DataFrame, *, predicted: dict[float, float] | None = None
) -> Figure:
    """Probability of perfect storage against the load for each rank ratio, with theory lines.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.sweeps.capacity_sweep` output with ``rank`` set (one group per
        kappa, one d), joined with ``pandas.concat``.
    predicted : dict of float -> float, optional
        ``{kappa: alpha}``: heuristic finite-size estimate
        (:func:`assocmem.linear.finite_size.finite_size_critical_load`), drawn dashed.

    Returns
    -------
    matplotlib.figure.Figure
        Simulation markers with 95 % Wilson intervals (one colour per kappa), the asymptotic
        ``alpha_c(kappa)`` (solid vertical line) and the finite-size estimate (dashed).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty sweep table.
    """
    curves = success_by_load(table)
    fig, ax = new_figure(width=7.2, height=4.4)
    ds = sorted(curves["d"].unique())
    for j, (rank, c) in enumerate(curves.groupby("rank", sort=True)):
        k = float(rank) / float(c["d"].iloc[0])
        lab = rf"simulation $\kappa={k:.3g}$"
        sim_points(ax, c["load"], c["fraction"], wilson_yerr(c), label=lab, color=color(j),
                   linestyle=":")  # fmt: skip
        ax.axvline(float(critical_load(k)), color=color(j), linewidth=1.2)
        if predicted is not None:
            pred = [v for kk, v in predicted.items() if math.isclose(kk, k, rel_tol=1e-9)]
            if pred:
                ax.axvline(pred[0], color=color(j), linewidth=1.2, linestyle="--")
    ax.plot([], [], color="k", linewidth=1.2, label=r"theory $\alpha_c(\kappa)$, $d\to\infty$")
    if predicted is not None:
        lab = f"finite-size estimate, $d={', '.join(map(str, ds))}$ (heuristic)"
        ax.plot([], [], color="k", linewidth=1.2, linestyle="--", label=lab)
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("P(all associations stored)")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="lower left", fontsize=8)
    return finish(fig)
