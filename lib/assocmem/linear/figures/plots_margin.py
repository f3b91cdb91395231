"""Figures of chapter 1's implicit-bias and spectral-moment measurements.

* :func:`plot_margin_ratios` — normalised margin of trained memories over training time, relative
  to the l2 and l-infinity max-margin optima, and the cosines to the two optima.
* :func:`plot_moment_ratio` — the normalised fourth singular-value moment of trained, Hebbian and
  i.i.d. Gaussian memories, one point per instance, beside its theory values.

Plot functions take computed results and draw them in the book's style (:mod:`assocmem.plotting`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from assocmem.linear.measure.implicit_bias import MarginTrajectories
from assocmem.plotting import color, finish, legend_below, new_figure, theory_line
from assocmem.stats import mean_interval


def plot_margin_ratios(traj: MarginTrajectories) -> Figure:
    """Normalised margin / its maximum, and cosine to the max-margin memory, against the step.

    Parameters
    ----------
    traj : MarginTrajectories
        From :func:`assocmem.linear.measure.implicit_bias.margin_trajectories`; instances that
        cannot be stored (NaN rows) are left out.

    Returns
    -------
    Figure
        Two panels (log step axis): left, ``gamma(W_t) / gamma*`` for the Frobenius and the
        entrywise-max norms, mean over instances with its 95 % Student-t band and one thin line
        per instance; right, the Frobenius cosines between ``W_t`` and the two optima. A dotted
        vertical line marks the median first perfect step.

    Raises
    ------
    ValueError
        If no instance is separable.
    """
    keep = traj.separable
    if not keep.any():
        raise ValueError("no separable instance to draw")
    n = int(keep.sum())
    fig, axes = new_figure(1, 2, height=3.4)
    series = (
        ("ratio_l2", "cos_l2", r"Frobenius ($\ell_2$)", 0),
        ("ratio_linf", "cos_linf", r"entrywise max ($\ell_\infty$)", 1),
    )
    x = traj.step
    for ratio_key, cos_key, lab, c in series:
        for ax, key in ((axes[0], ratio_key), (axes[1], cos_key)):
            vals = getattr(traj, key)[keep]
            for row in vals:
                ax.plot(x, row, color=color(c), lw=0.6, alpha=0.35)
            m, lo, hi = mean_interval(vals)
            ax.fill_between(x, lo, hi, color=color(c), alpha=0.25, lw=0)
            ax.plot(x, m, color=color(c), lw=2, label=f"{lab}: mean of {n} instances, 95 % band")
    perf = [s for s, k in zip(traj.perfect_step, keep, strict=True) if k and s is not None]
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("Adam step t")
        if perf:
            ax.axvline(float(np.median(perf)), color="0.4", ls=":", lw=1)
    theory_line(axes[0], [x[0], x[-1]], [1.0, 1.0], label="max-margin optimum (= 1)", color="k",
                lw=0.8, linestyle="--")  # fmt: skip
    axes[0].set_ylim(0.0, 1.05)
    axes[0].set_ylabel(r"normalised margin / maximum $\gamma(W_t)/\gamma^*$")
    axes[1].set_ylabel(r"cosine$(W_t, W^*)$")
    axes[1].plot([], [], color="0.4", ls=":", lw=1, label="median first perfect step")
    legend_below(fig, ncol=2)
    return finish(fig)


def plot_moment_ratio(
    groups: dict[str, np.ndarray],
    theory: dict[str, float],
) -> Figure:
    """One point per instance of the normalised fourth singular-value moment, per group.

    Parameters
    ----------
    groups : dict of str to numpy.ndarray
        ``{label: values (n,)}``, e.g. trained OP, trained DP, Hebbian, i.i.d. Gaussian, from
        :func:`assocmem.linear.measure.measured_spectra.fourth_moment_ratio`.
    theory : dict of str to float
        ``{label: value}`` drawn as horizontal lines (e.g. the quarter circle's 2).

    Returns
    -------
    Figure
        Points (spread evenly across a small width) with each group's mean and 95 % Student-t
        interval.

    Raises
    ------
    ValueError
        If ``groups`` is empty or a group holds no finite value.
    """
    if not groups:
        raise ValueError("groups must hold at least one group")
    fig, ax = new_figure(height=3.6)
    for i, (lab, vals) in enumerate(groups.items()):
        v = np.asarray(vals, dtype=np.float64)
        v = v[np.isfinite(v)]
        if v.size == 0:
            raise ValueError(f"group {lab!r} holds no finite value")
        jit = i + np.linspace(-0.12, 0.12, v.size)  # spread, in order of the instances
        ax.plot(jit, v, "o", ms=4, color=color(i), alpha=0.6, label="_")
        if v.size >= 2:
            m, lo, hi = mean_interval(v)
            ax.errorbar([i + 0.3], [m], yerr=[[m - lo], [hi - m]], fmt="s", color=color(i),
                        capsize=3, label="_")  # fmt: skip
    ax.errorbar([], [], yerr=[], fmt="s", color="0.3", capsize=3,
                label="mean, 95 % interval (simulation)")  # fmt: skip
    ax.plot([], [], "o", color="0.3", alpha=0.6, label="one instance (simulation)")
    styles = ("--", ":", "-.", (0, (5, 1)))
    for j, (lab, val) in enumerate(theory.items()):
        ax.axhline(val, color="k", ls=styles[j % len(styles)], lw=1, label=lab)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(
        [f"{k}\n(n = {np.isfinite(np.asarray(v)).sum()})" for k, v in groups.items()]
    )
    ax.set_xlim(-0.5, len(groups) - 0.3)
    ax.set_ylabel(r"$m_4=\overline{s^4}\,/\,(\overline{s^2})^2$")
    legend_below(fig, ncol=2)
    return finish(fig)
