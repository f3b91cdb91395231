"""Figures of chapter 4 (rank-constrained memories).

The capacity alpha_c(kappa), the truncated quarter circle, singular values of trained factored
memories and perfect storage against the load per kappa.

Plot functions take computed results and draw them in the book's style (:mod:`assocmem.plotting`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from numpy.typing import NDArray

from assocmem._validate import check_scalar_kappa
from assocmem.linear.measure.measured_spectra import spectrum_ks_distance
from assocmem.linear.measure.tables import success_by_load
from assocmem.linear.theory.spectra import (
    critical_load,
    hebbian_critical_load,
    quarter_circle_pdf,
    truncated_quarter_circle_pdf,
    truncated_quarter_circle_quantile,
    truncated_second_moment,
    truncation_point,
)
from assocmem.plotting import color, finish, new_figure, sim_points, theory_line, wilson_yerr


def _yerr(values: list[tuple[float, ...]]) -> np.ndarray:
    """Error bars ``(2, n)`` from ``(value, err)`` or ``(value, low, high)`` tuples."""
    out = np.empty((2, len(values)))
    for i, v in enumerate(values):
        if len(v) == 2:
            out[:, i] = v[1]
        elif len(v) == 3:
            out[:, i] = (v[0] - v[1], v[2] - v[0])
        else:
            raise ValueError(f"expected (value, err) or (value, low, high), got {v!r}")
    if np.any(out < 0):
        raise ValueError("every value must lie inside its interval")
    return out


def _legend_below(ax: Any, ncol: int = 2, offset: float = -0.2) -> None:
    """One legend below the axes, off the data (9 pt, the book's legend size)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, offset), ncol=ncol, frameon=False)


def plot_critical_load(
    *,
    measured: dict[float, tuple[float, ...]] | None = None,
    finite_size: dict[float, float] | None = None,
    hebbian: dict[float, tuple[float, ...]] | None = None,
    kappa_max: float = 1.25,
) -> Figure:
    """Draw the capacity alpha_c(kappa), its small-kappa asymptote, the Hebbian curve and data.

    Parameters
    ----------
    measured : dict, optional
        ``{kappa: (alpha_hat, err)}`` or ``{kappa: (alpha_hat, low, high)}``: capacities of
        trained memories (simulation markers with error bars, e.g. a 95 % interval).
    finite_size : dict, optional
        ``{kappa: alpha}``: a finite-size theory estimate at the simulated size (open markers).
    hebbian : dict, optional
        ``{kappa: (alpha_hat, low, high)}`` (or ``(alpha_hat, err)``): perfect-recall
        transitions of rank-truncated Hebbian memories (simulation, open circles).
    kappa_max : float, default 1.25
        Right end of the kappa axis (> 0).

    Returns
    -------
    matplotlib.figure.Figure
        One panel at the page width, the legend below it.

    Raises
    ------
    ValueError
        If ``kappa_max <= 0`` or an interval does not hold its value.
    """
    if not (np.isfinite(kappa_max) and kappa_max > 0):
        raise ValueError(f"kappa_max must be > 0, got {kappa_max}")
    fig, ax = new_figure(height=4.8)
    k = np.linspace(1e-3, kappa_max, 400)
    theory_line(ax, k, critical_load(k), label=r"theory $\alpha_c(\kappa)$ (optimal)",
                color=color(0))  # fmt: skip
    ks = k[k <= 0.35]
    theory_line(ax, ks, 2 * ks, label=r"small-$\kappa$ asymptote $2\kappa$", color=color(6),
                linestyle="--")  # fmt: skip
    theory_line(ax, k, hebbian_critical_load(k), label=r"theory, Hebbian $\alpha_c(\kappa)/4$",
                color=color(1), linestyle=":")  # fmt: skip
    if finite_size:
        kk = np.array(sorted(finite_size))
        ax.plot(kk, [finite_size[x] for x in kk], marker="s", linestyle="none", mfc="none",
                color=color(2), label="finite-size estimate (heuristic)")  # fmt: skip
    if measured:
        kk = np.array(sorted(measured))
        vals = [tuple(measured[x]) for x in kk]
        sim_points(ax, kk, [v[0] for v in vals], _yerr(vals),
                   label=r"simulation: trained $W=QR^{\top}$", color=color(2))  # fmt: skip
    if hebbian:
        kk = np.array(sorted(hebbian))
        vals = [tuple(hebbian[x]) for x in kk]
        sim_points(ax, kk, [v[0] for v in vals], _yerr(vals), mfc="none",
                   label="simulation: truncated Hebbian", color=color(1))  # fmt: skip
    ax.set_xlabel(r"rank ratio $\kappa = m/d$")
    ax.set_ylabel(r"load $\alpha = p\log p/d^2$")
    ax.set_xlim(0, kappa_max)
    ax.set_ylim(bottom=0)
    _legend_below(ax, offset=-0.16)
    return finish(fig)


def plot_singular_values(
    spectra: dict[float, NDArray[np.float64]],
    *,
    references: dict[str, dict[float, NDArray[np.float64]]] | None = None,
    bins: int = 24,
) -> Figure:
    """Histograms and quantile–quantile plots of trained singular values against theory.

    Parameters
    ----------
    spectra : dict
        ``{kappa: s}`` with ``s`` the non-zero singular values (pooled over seeds), normalised to
        mean square 1 (``singular_values(W, rank=m)``); empty entries are skipped.
    references : dict, optional
        ``{label: {kappa: s}}``: other memories' singular values in the same units (e.g. the
        truncated Hebbian memory), drawn as step histograms and grey Q–Q points.
    bins : int, default 24
        Largest number of histogram bins per panel (>= 2); a panel with ``n`` values uses
        ``min(bins, max(6, n // 6))``.

    Returns
    -------
    matplotlib.figure.Figure
        One row per kappa, 7 in wide: left, the histogram of the trained values with the theory
        density (quarter circle for ``kappa >= 1``, truncated quarter circle otherwise, both
        rescaled to mean square 1); right, empirical against theoretical quantiles. The
        Kolmogorov–Smirnov distance and its 5 % level ``1.36 / sqrt(n)`` are in the titles;
        one legend below the panels.

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
    refs = references or {}
    n = len(kappas)
    fig, axes = new_figure(n, 2, height=2.5 * n + 0.6)
    axes = np.asarray(axes).reshape(n, 2)
    for j, k in enumerate(kappas):
        s = np.sort(np.asarray(spectra[k], dtype=np.float64).ravel())
        ax, axq = axes[j]
        nb = int(min(bins, max(6, s.size // 6)))
        hist, edges = np.histogram(s, bins=nb, density=True)
        centres = 0.5 * (edges[1:] + edges[:-1])
        err = np.sqrt(hist / (s.size * np.diff(edges)))
        sim_points(ax, centres, hist, err, label="simulation: trained $W$", color=color(0),
                   markersize=3)  # fmt: skip
        top = 2.0 / math.sqrt(float(truncated_second_moment(k)))
        grid = np.linspace(0, top * 1.001, 400)
        lab = "quarter circle" if k >= 1 else "truncated quarter circle"
        theory_line(ax, grid, truncated_quarter_circle_pdf(grid, k, unit_rms=True),
                    label=f"theory: {lab}", color="k", linewidth=1.2)  # fmt: skip
        q = (np.arange(1, s.size + 1) - 0.5) / s.size
        th = np.asarray(truncated_quarter_circle_quantile(q, k, unit_rms=True))
        axq.plot(th, s, marker=".", linestyle="none", markersize=3, color=color(0))
        hi = max(th.max(), s.max())
        for i, (name, ref) in enumerate(refs.items()):
            r = np.sort(np.asarray(ref.get(k, []), dtype=np.float64).ravel())
            if r.size == 0:
                continue
            ax.hist(r, bins=edges, density=True, histtype="step", color=color(i + 1),
                    linewidth=1.2, label=f"simulation: {name}")  # fmt: skip
            qr = (np.arange(1, r.size + 1) - 0.5) / r.size
            tr = np.asarray(truncated_quarter_circle_quantile(qr, k, unit_rms=True))
            axq.plot(tr, r, marker=".", linestyle="none", markersize=2, color=color(i + 1))
            hi = max(hi, r.max())
        lim = [0, hi * 1.05]
        theory_line(axq, lim, lim, label="_nolegend_", color="k", linewidth=1.0)
        level = 1.36 / math.sqrt(s.size)
        ax.set_title(rf"$\kappa = {k:g}$: $n = {s.size}$ values")
        axq.set_title(rf"KS $= {spectrum_ks_distance(s, k):.3f}$ (5 % level ${level:.3f}$)")
        ax.set_ylabel("density")
        axq.set_ylabel("empirical quantile")
        if j == n - 1:
            ax.set_xlabel(r"singular value $s$ / rms")
            axq.set_xlabel("theoretical quantile")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False)
    fig.tight_layout(rect=(0, 0.6 / (2.5 * n + 0.6), 1, 1))
    return fig


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
    fig, (ax0, ax1) = new_figure(1, 2, height=5.0)
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
    _legend_below(ax0, ncol=1, offset=-0.22)
    ax0.set_ylim(0, 1.0)
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
    _legend_below(ax1, ncol=1, offset=-0.22)
    return finish(fig, title="Rank constraint: truncated quarter circle (reconstruction)")


def plot_rank_success(
    table: pd.DataFrame,
    *,
    predicted: dict[float, float] | None = None,
    theory: str = "optimal",
) -> Figure:
    """Probability of perfect storage against the load for each rank ratio, with theory lines.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.measure.sweeps.capacity_sweep` output with ``rank`` set (one group
        per kappa, one d), joined with ``pandas.concat``, or
        :func:`assocmem.linear.measure.sweeps.truncated_hebbian_sweep` output.
    predicted : dict of float -> float, optional
        ``{kappa: alpha}``: heuristic finite-size estimate
        (:func:`assocmem.linear.theory.finite_size.finite_size_critical_load`), drawn dashed.
    theory : {"optimal", "hebbian"}
        Which asymptotic line to draw per kappa: ``alpha_c(kappa)`` or ``alpha_c(kappa) / 4``.

    Returns
    -------
    matplotlib.figure.Figure
        Simulation markers with 95 % Wilson intervals (one colour per kappa), the asymptotic
        line (solid vertical) and the finite-size estimate (dashed); the legend below the axes.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty sweep table or ``theory`` is unknown.
    """
    if theory not in ("optimal", "hebbian"):
        raise ValueError(f"theory must be 'optimal' or 'hebbian', got {theory!r}")
    line = critical_load if theory == "optimal" else hebbian_critical_load
    curves = success_by_load(table)
    fig, ax = new_figure(height=4.6)
    ds = sorted(curves["d"].unique())
    for j, (rank, c) in enumerate(curves.groupby("rank", sort=True)):
        k = float(rank) / float(c["d"].iloc[0])
        lab = rf"simulation $\kappa={k:.3g}$"
        sim_points(ax, c["load"], c["fraction"], wilson_yerr(c), label=lab, color=color(j),
                   linestyle=":")  # fmt: skip
        ax.axvline(float(line(k)), color=color(j), linewidth=1.2)
        if predicted is not None:
            pred = [v for kk, v in predicted.items() if math.isclose(kk, k, rel_tol=1e-9)]
            if pred:
                ax.axvline(pred[0], color=color(j), linewidth=1.2, linestyle="--")
    name = r"$\alpha_c(\kappa)$" if theory == "optimal" else r"$\alpha_c(\kappa)/4$"
    ax.plot([], [], color="k", linewidth=1.2, label=rf"theory {name}, $d\to\infty$")
    if predicted is not None:
        lab = f"finite-size estimate, $d={', '.join(map(str, ds))}$ (heuristic)"
        ax.plot([], [], color="k", linewidth=1.2, linestyle="--", label=lab)
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("P(all associations stored)")
    ax.set_ylim(-0.02, 1.02)
    _legend_below(ax, ncol=2, offset=-0.16)
    return finish(fig)
