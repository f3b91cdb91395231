"""Every figure of Part I (chapters 1-4), drawn in the book's style (:mod:`assocmem.plotting`).

Plot functions take computed results (tables, arrays, weights) and draw them; the only
computations here are cheap theory curves evaluated for the axes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_int, check_p, check_scalar_kappa
from assocmem.linear.extremes import expected_max
from assocmem.linear.finite_size import (
    finite_size_capacity_curve,
    finite_size_capacity_expansion,
    shortcut_capacity,
)
from assocmem.linear.hebbian import (
    CRITERIA,
    recall_probability,
    score_densities,
    score_moments,
    threshold,
)
from assocmem.linear.load import load_for_pairs
from assocmem.linear.problems import (
    MemoryProblem,
    recalled,
    score_matrix,
    score_statistics,
    simulate_scores,
    spread_summary,
)
from assocmem.linear.replica import (
    cost,
    cost_solution,
    rs_energetic_term,
    rs_interpolants,
    rs_q_grid,
)
from assocmem.linear.spectra import (
    critical_load,
    hebbian_critical_load,
    quarter_circle_pdf,
    singular_values,
    spectrum_ks_distance,
    truncated_quarter_circle_pdf,
    truncated_quarter_circle_quantile,
    truncated_second_moment,
    truncation_point,
)
from assocmem.linear.sweeps import GROUP_COLUMNS, success_by_load
from assocmem.plotting import color, finish, new_figure, sim_points, theory_line

_METHOD_NAMES = {"train": "CE+Adam", "hebbian": "Hebbian", "lp": "LP (exact)"}


def _label(method: str, problem: str, d: int, rank: int) -> str:
    """Legend entry of one sweep group."""
    m = "" if rank == d else f", m={rank}"
    return f"{_METHOD_NAMES.get(method, method)} {problem.upper()}, d={d}{m} (simulation)"


def _wilson_err(curve: pd.DataFrame) -> np.ndarray:
    """Asymmetric error bars (2, n) of the fraction stored from its 95 % Wilson interval."""
    f = curve["fraction"].to_numpy(float)
    return np.vstack([f - curve["ci_low"].to_numpy(float), curve["ci_high"].to_numpy(float) - f])


def plot_success(
    table: pd.DataFrame,
    *,
    theory: dict[str, float] | None = None,
    show_accuracy: bool = True,
) -> Figure:
    """Probability of perfect storage (and mean recall accuracy) against the load, per sweep.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.sweeps.capacity_sweep` output, any number of groups (e.g. several
        sweeps joined with ``pandas.concat``). OP groups are drawn with filled circles, DP groups
        with open squares; LP groups with dashed joins; one colour per d.
    theory : dict of str to float, optional
        Vertical theory lines ``{label: alpha}``, e.g. ``{"α_c = 1/2 (d → ∞)": 0.5}``.
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
    dims = sorted(curves["d"].unique())
    for (method, problem, d, rank), c in curves.groupby(GROUP_COLUMNS, sort=False):
        col = color(dims.index(d))
        dp = problem == "dp"
        kw: dict[str, Any] = {
            "marker": "s" if dp else "o",
            "markerfacecolor": "none" if dp else col,
            "linestyle": "--" if method == "lp" else ":",
            "linewidth": 1.0,
        }
        lab = _label(method, problem, d, rank)
        sim_points(ax_suc, c["load"], c["fraction"], _wilson_err(c), label=lab, color=col, **kw)
        if ax_acc is not None and method != "lp":
            sim_points(ax_acc, c["load"], c["accuracy"], c["accuracy_sem"].fillna(0.0),
                       label=lab, color=col, **kw)  # fmt: skip
    for k, (lab, a) in enumerate((theory or {}).items()):
        for ax in ax_list:
            theory_line(
                ax, [a, a], [0, 1], label=lab, color="k", linestyle=["-", "--", "-."][k % 3]
            )
    ax_suc.set_xlabel("load α = p log p / d²")
    ax_suc.set_ylabel("P(all p recalled)")
    ax_suc.set_ylim(-0.05, 1.05)
    ax_suc.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
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
        sim_points(ax, centres, h, err, label=f"{lab} (sim.)", color=color(i), linestyle=":")
    x = np.linspace(0, 2, 200)
    theory_line(ax, x, quarter_circle_pdf(x), label="quarter circle √(4−s²)/π (theory)", color="k")
    ax.set_xlabel("singular value s / rms(s)")
    ax.set_ylabel("density")
    ax.legend()
    return finish(fig)


def plot_score_distributions(
    memories: dict[str, tuple[torch.Tensor | np.ndarray, MemoryProblem]],
) -> Figure:
    """Target score against the largest competitor score of each input, in units of ``sigma_W``.

    Parameters
    ----------
    memories : dict of str to (W, problem)
        One panel per entry (e.g. "trained OP", "trained DP", "Hebbian OP"); unbatched.

    Returns
    -------
    Figure
        One point per input: x = largest competitor score, y = target score, both divided by
        ``sigma_W = ||W||_F / d`` (the standard deviation of a competitor score for a random
        input direction). Points above the diagonal are recalled. The dashed lines mark the mean
        maximum of ``p - 1`` standard Gaussians (theory for competitors independent of ``W``,
        ~ sqrt(2 log p), digest §6).
    """
    if not memories:
        raise ValueError("memories must not be empty")
    n = len(memories)
    fig, axes = new_figure(1, n, sharex=True, sharey=True)
    for k, (ax, (lab, (W, prob))) in enumerate(
        zip(np.atleast_1d(axes), memories.items(), strict=True)
    ):
        st = score_statistics(W, prob)
        x, y = st["max_competitor"], st["target"]
        ok = y > x
        ax.scatter(x[ok], y[ok], s=6, color=color(2), label="recalled (sim.)")
        ax.scatter(x[~ok], y[~ok], s=6, color=color(1), label="not recalled (sim.)")
        lo = float(min(x.min(), y.min())) - 0.2
        hi = float(max(x.max(), y.max())) + 0.2
        theory_line(
            ax, [lo, hi], [lo, hi], label="target = max competitor", color="k", linewidth=0.8
        )
        m = expected_max(prob.p - 1)
        ax.axvline(
            m,
            color="k",
            linestyle="--",
            linewidth=0.8,
            label=f"E max of p−1 Gaussians = {m:.2f} (theory)",
        )
        ax.axhline(m, color="k", linestyle="--", linewidth=0.8)
        ax.set_title(f"{lab}: target sd {np.std(y):.2f}")
        ax.set_xlabel("largest competitor score / σ_W")
        if k == 0:
            ax.set_ylabel("target score / σ_W")
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
    fig.colorbar(im, ax=ax0, fraction=0.046, label="score / σ_W")
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
    ax1.set_ylabel("margin / σ_W")
    state = f"stored at step {perfect_step}" if perfect_step is not None else "not stored"
    ax1.set_title(f"recalled {rec.mean():.1%} ({state})")
    kind = "DP" if decoupled else "OP"
    return finish(fig, title=f"{kind}, d = {d}, α = {p * math.log(p) / d**2:.2f}")


def _gauss_pdf(x: np.ndarray, mean: float, var: float) -> np.ndarray:
    return np.exp(-0.5 * (x - mean) ** 2 / var) / math.sqrt(2.0 * math.pi * var)


def plot_score_histograms(
    p: int,
    d: int,
    *,
    embedding: str = "gaussian",
    n_instances: int = 20,
    seed: int = 0,
    bins: int = 60,
) -> Figure:
    """Histograms of simulated Hebbian target and non-target scores with the Gaussian theory.

    Parameters
    ----------
    p, d, embedding, n_instances, seed
        As for :func:`simulate_scores`.
    bins : int
        Number of histogram bins.

    Returns
    -------
    Figure
        One panel; simulation as step histograms (density), theory N(mean, var) of
        :func:`score_moments` as lines.
    """
    sim = simulate_scores(p, d, embedding=embedding, n_instances=n_instances, seed=seed)
    mom = score_moments(p, d, embedding=embedding)
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
    alpha = p * math.log(p) / d**2
    ax.set_title(f"d = {d}, p = {p} (α = {alpha:.2f}), {embedding} embeddings")
    ax.legend(loc="upper right")
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
        ax.set_xlabel("number of associations p")
        ax.set_ylabel("threshold load α = p log p / d²")
        name = "all p recalled" if crit == "all" else "one association recalled"
        ax.set_title(f'criterion "{crit}": P({name}) = 1/2')
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
        :func:`assocmem.linear.sweeps.capacity_sweep` output for ``method="hebbian"`` and/or
        ``"train"`` at one or more d (one problem kind), joined with ``pandas.concat``.
    transitions : dict, optional
        ``{d: alpha}``: predicted perfect-storage transition of the optimal memory at that d
        (e.g. :func:`assocmem.linear.finite_size.predicted_transition`), drawn as a vertical line.

    Returns
    -------
    Figure
        Left: mean accuracy (fraction recalled, standard error over instances); right: fraction
        of instances with every association recalled (95 % Wilson interval). Hebbian theory
        (:func:`assocmem.linear.hebbian.recall_probability`, Gaussian embeddings) as lines.

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
        a_grid = p_grid * np.log(p_grid) / d**2
        keep = (a_grid >= 0.8 * a_lo) & (a_grid <= 1.05 * a_hi)
        for ax, crit in zip(axes, ("typical", "all"), strict=True):
            th = recall_probability(p_grid[keep], d, criterion=crit)
            theory_line(ax, a_grid[keep], th, label=f"Hebbian theory, d = {d}", color=c)
        for rule, tab in at_d.groupby("method", sort=True):
            fill = "full" if rule == "train" else "none"
            kw = {"marker": markers.get(str(rule), "D"), "fillstyle": fill, "color": c}
            lab = f"{names.get(str(rule), rule)} W, d = {d}"
            sim_points(axes[0], tab["load"], tab["accuracy"], tab["accuracy_sem"].fillna(0.0),
                       label=lab, **kw)  # fmt: skip
            sim_points(axes[1], tab["load"], tab["fraction"], _wilson_err(tab), label=lab, **kw)
        if transitions and d in transitions:
            axes[1].axvline(
                transitions[d], color=c, linestyle="--", lw=1, label=f"RS α_c(p), d = {d}"
            )
    for ax in axes:
        ax.axvline(1 / 8, color="k", lw=0.8, linestyle=":", label="α = 1/8")
        ax.axvline(1 / 2, color="k", lw=0.8, linestyle="-.", label="α = 1/2")
        ax.set_xscale("log")
        ax.set_xlabel("load α = p log p / d²")
        ax.set_ylim(-0.03, 1.03)
    axes[0].set_ylabel('accuracy (criterion "typical")')
    axes[1].set_ylabel('P(all p recalled) (criterion "all")')
    axes[0].set_title("fraction of associations recalled")
    axes[1].set_title("probability of perfect recall")
    axes[0].legend(fontsize=7.5, loc="lower left")
    axes[1].legend(fontsize=7.5, loc="lower left")
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
        ``{"hebbian": stats, "trained": stats}`` as from :func:`mechanism_scores`.
    rs : dict, optional
        Output of :func:`assocmem.replica.optimal_mechanism` (draws of the RS target level
        ``level`` and of the pushed-down competitor maximum ``max_competitor``), drawn as theory
        densities on the trained panel.
    bins : int
        Number of histogram bins.

    Returns
    -------
    Figure
        Two panels sharing the x axis, with the extreme-value line sqrt(2 log p). The Hebbian
        panel carries the conditional Gaussian theory of :func:`assocmem.hebbian.score_densities`
        (Gaussian embeddings), rescaled by the measured sigma_W.
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
            theory_line(ax, centres, h, label="RS: target level T*", color=color(1))
        ax.axvline(ev, color="k", lw=1, linestyle="--", label=r"$\sqrt{2\log p}$")
        ax.set_xlabel(r"score / $\sigma_W$,  $\sigma_W=\|W\|_F/d$")
        ax.set_title(
            f"{rule} W: target std {s['target_std']:.2f}, recalled {100 * s['recalled']:.0f}%"
        )
        ax.legend(fontsize=7.5, loc="upper left")
    axes[0].set_ylabel("density")
    return finish(fig, title=f"d = {d}, p = {p}, α = {load_for_pairs(p, d):.2f}")


def plot_finite_size_capacity(
    p_values: ArrayLike | None = None,
    *,
    n_samples: int | None = None,
    seed: int = 0,
    measured: pd.DataFrame | None = None,
) -> Figure:
    """``alpha_c(p)`` (Monte Carlo of the RS formula) with its expansion and the limit 1/2.

    Parameters
    ----------
    p_values : array_like, optional
        Grid of p (default: 15 values log-spaced from 10 to 1e8).
    n_samples, seed
        Monte Carlo settings, as in :func:`finite_size_capacity`.
    measured : pandas.DataFrame, optional
        Output of :func:`assocmem.linear.sweeps.transition_comparison`: measured transitions
        drawn as markers with error bars at ``(p at measured, measured alpha_c)``, and a second
        panel zoomed on them (there the markers are shifted by a few per cent in p so that
        coinciding points stay visible).

    Returns
    -------
    matplotlib.figure.Figure
    """
    meas = None if measured is None or len(measured) == 0 else measured.to_dict("list")
    ps = np.logspace(1, 8, 15) if p_values is None else np.asarray(p_values, dtype=np.float64)
    alpha, err = finite_size_capacity_curve(ps, n_samples=n_samples, seed=seed)
    if meas is None:
        fig, ax = new_figure()
        _draw_capacity_curves(ax, ps, alpha, err, None)
        ax.legend()
        return finish(fig)
    # right panel: zoom on the measured points, with a denser theory curve
    pm = np.asarray(meas["p at measured"], dtype=np.float64)
    lo, hi = max(3.0, 0.4 * np.nanmin(pm)), 2.5 * np.nanmax(pm)
    pz = np.unique(np.rint(np.geomspace(lo, hi, 12)))
    az, ez = finite_size_capacity_curve(pz, n_samples=n_samples, seed=seed + 100)
    fig, axes = new_figure(1, 2, width=11, height=4.2)
    _draw_capacity_curves(axes[0], ps, alpha, err, meas)
    _draw_capacity_curves(axes[1], pz, az, ez, meas, zoom=True)
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
    p = check_p(p)
    u, qs = rs_q_grid(n_grid)
    g, _ = rs_energetic_term(qs, p, n_samples=n_samples, seed=seed)
    phi_u, solve = rs_interpolants(u, g, p)
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
    p = check_p(p)
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
        sim_points(ax, c["load"], c["fraction"], _wilson_err(c), label=lab, color=color(j),
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
