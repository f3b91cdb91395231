"""Score statistics of a linear memory: targets against the strongest competitor, by rule.

The quantities of the storage mechanism (chapter 3): for each input ``mu`` its target score
``u_mu^T W e_mu`` and its maximum competitor score, both in units of
``sigma_W = ||W||_F / d`` (the standard deviation of a random competitor score ``c^T W e`` with
``c, e ~ N(0, I/d)``). In these units the maximum of ``p - 1`` independent competitors sits near
the extreme-value level ``sqrt(2 log p)``.

Sources: Giorlandino, Goldt & Maillard (arXiv:2605.10795), abstract (the optimal solution raises
the correct scores just above the extreme-value threshold of the competitors); units and
observables from the digest §6 and §9 (reconstruction, see chapter 3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure
from scipy.special import log_ndtr

from assocmem.hebbian import recall_probability, score_densities
from assocmem.plotting import color, finish, new_figure, sim_points, theory_line
from assocmem.problems import (
    MemoryProblem,
    load_for_pairs,
    pairs_for_load,
    sample_problems,
    target_competitor_scores,
)
from assocmem.training import hebbian_memory, train_memory

__all__ = [
    "score_statistics",
    "spread_summary",
    "recall_vs_load",
    "mechanism_scores",
    "plot_recall_vs_load",
    "plot_mechanism",
    "plot_rule_comparison",
]


def score_statistics(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> dict[str, Any]:
    """Target scores and per-input maximum competitor scores in units of sigma_W = ||W||_F / d.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        Memory matrix or a batch of them (a batch of W on one problem, or paired with a batched
        problem of the same batch size).
    problem : MemoryProblem
        OP or DP, unbatched or batched (see :mod:`assocmem.problems`).

    Returns
    -------
    dict
        ``target`` : ndarray float64, shape (p,) or (B, p) -- ``u_mu^T W e_mu / sigma_W``;
        ``max_competitor`` : same shape -- ``max_nu`` competitor score ``/ sigma_W`` (OP: the other
        targets; DP: the private competitors); ``gap`` = target - max_competitor (> 0 means
        recalled); ``competitor`` : ndarray float64, shape (p * (p-1),) or (B, p * (p-1)) -- all
        competitor scores ``/ sigma_W``, input by input (row ``mu`` of
        :func:`assocmem.problems.target_competitor_scores`, flattened); ``sigma_w`` : float or
        ndarray (B,) -- ``||W||_F / d`` in the units of the scores; ``p`` and ``d`` (int).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` is not a tensor/array.
    ValueError
        If shapes do not match or some W is identically zero (no scale).

    Notes
    -----
    Source: digest §6 (units sigma_W) and §9 (observables); reconstruction, see chapter 3.
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if isinstance(W, np.ndarray):
        W = torch.from_numpy(W)
    if not isinstance(W, torch.Tensor):
        raise TypeError(f"W must be a torch tensor or numpy array, got {type(W).__name__}")
    tgt, comp = target_competitor_scores(W, problem)  # validates shapes
    Wd = W.to(dtype=torch.float64)
    sigma = torch.linalg.matrix_norm(Wd).cpu() / problem.d  # (,) or (B,)
    if torch.any(sigma == 0):
        raise ValueError("W is identically zero (for some batch entry): scores have no scale")
    scale = sigma.to(tgt.device).unsqueeze(-1)
    if tgt.dim() > scale.dim() or (tgt.dim() == 2 and scale.dim() == 1):
        scale = scale.reshape(*scale.shape, *([1] * (tgt.dim() - scale.dim())))
    t = tgt.double() / scale
    m = comp.max(-1).values.double() / scale
    c = comp.double() / scale.unsqueeze(-1)
    sig = sigma.numpy()
    return {
        "target": t.cpu().numpy(),
        "max_competitor": m.cpu().numpy(),
        "gap": (t - m).cpu().numpy(),
        "competitor": c.reshape(*c.shape[:-2], -1).cpu().numpy(),
        "sigma_w": float(sig) if sig.ndim == 0 else sig,
        "p": problem.p,
        "d": problem.d,
    }


def spread_summary(stats: dict[str, Any]) -> dict[str, float]:
    """Summary numbers of :func:`score_statistics` output (all inputs and batch entries pooled).

    Parameters
    ----------
    stats : dict
        Output of :func:`score_statistics`.

    Returns
    -------
    dict of float
        ``target_mean``, ``target_std``, ``max_competitor_mean``, ``max_competitor_std``,
        ``gap_mean``, ``gap_std``, ``extreme_value_level`` = sqrt(2 log p) and ``recalled`` (the
        fraction of inputs with a positive gap).

    Raises
    ------
    KeyError
        If a field of :func:`score_statistics` is missing.
    """
    t = np.ravel(stats["target"])
    m = np.ravel(stats["max_competitor"])
    g = np.ravel(stats["gap"])
    return {
        "target_mean": float(t.mean()),
        "target_std": float(t.std(ddof=1)),
        "max_competitor_mean": float(m.mean()),
        "max_competitor_std": float(m.std(ddof=1)),
        "gap_mean": float(g.mean()),
        "gap_std": float(g.std(ddof=1)),
        "extreme_value_level": math.sqrt(2.0 * math.log(int(stats["p"]))),
        "recalled": float(np.mean(g > 0)),
    }


def recall_vs_load(
    d: int,
    alphas: Sequence[float] | np.ndarray,
    *,
    seeds: Sequence[int] = (0, 1, 2, 3),
    steps: int = 2000,
    lr: float = 5.0,
    patience: int | None = 1000,
    decoupled: bool = False,
    device: str | torch.device | None = None,
    progress: bool = True,
) -> dict[str, dict[str, np.ndarray]]:
    """Accuracy and perfect recall against the load for the Hebbian rule and for trained W.

    A thin wrapper of :func:`assocmem.capacity.capacity_sweep` (chapter 1's protocol) that runs
    both rules on the same problems and arranges the results as (load x seed) arrays.

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    alphas : sequence of float
        Loads alpha = p log p / d^2 (each > 0; p = :func:`assocmem.problems.pairs_for_load`).
    seeds : sequence of int
        One problem per seed at every load (the same seeds for both rules).
    steps, lr, patience : int, float, int or None
        Training budget, Adam step size and stall stop of the "trained" sweep (see
        :func:`assocmem.capacity.capacity_sweep`). ``steps=0`` skips training (Hebbian only).
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to compute.
    progress : bool
        Show tqdm bars over loads.

    Returns
    -------
    dict
        ``{"hebbian": table, "trained": table}`` (no ``"trained"`` when ``steps=0``); each table
        holds ``alpha`` (n,) -- the exact load of the integer p --, ``p`` (n,), ``accuracy``
        (n, S) and ``perfect`` (n, S) (bool: all p recalled), S = len(seeds).

    Raises
    ------
    ValueError
        If ``alphas`` or ``seeds`` is empty or a value is out of range.
    """
    from assocmem.capacity import capacity_sweep

    a_arr = np.asarray(alphas, dtype=float)
    if a_arr.ndim != 1 or a_arr.size == 0 or np.any(~np.isfinite(a_arr)) or np.any(a_arr <= 0):
        raise ValueError(f"alphas must be a non-empty 1-d sequence of positive loads, got {alphas}")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    out: dict[str, dict[str, np.ndarray]] = {}
    for rule in ["hebbian"] + (["trained"] if steps > 0 else []):
        kw: dict[str, Any] = {}
        if rule == "trained":
            kw = {"steps": steps, "lr": lr, "patience": patience}
        table = capacity_sweep(
            d, a_arr, decoupled=decoupled, seeds=seeds, method=rule, device=device,
            progress=progress, **kw,
        )  # fmt: skip
        n_a, n_s = a_arr.size, len(seeds)
        # rows come load by load, seeds in order within a load
        shape = (n_a, n_s)
        out[rule] = {
            "alpha": table.column("load").reshape(shape)[:, 0].astype(float),
            "p": table.column("p").reshape(shape)[:, 0].astype(int),
            "accuracy": table.column("accuracy").reshape(shape).astype(float),
            "perfect": table.column("perfect").reshape(shape).astype(bool),
        }
    return out


def mechanism_scores(
    p: int,
    d: int,
    *,
    seeds: Sequence[int] = (0,),
    steps: int = 3000,
    lr: float = 0.05,
    decoupled: bool = False,
    device: str | torch.device | None = None,
) -> dict[str, dict[str, Any]]:
    """Score statistics of the Hebbian and of the trained memory on the same problems.

    The trained W runs the whole budget (no early stop), so that cross-entropy has time to drive
    it toward the max-margin direction rather than stopping at the first perfect step.

    Parameters
    ----------
    p, d : int
        Problem size.
    seeds : sequence of int
        Problems (pooled in the returned statistics).
    steps, lr : int, float
        Training budget and Adam step size.
    decoupled : bool
        OP (False) or DP (True).
    device : str, torch.device or None
        Where to compute.

    Returns
    -------
    dict
        ``{"hebbian": stats, "trained": stats}`` with ``stats`` from :func:`score_statistics`
        (batched over seeds), plus ``stats["accuracy"]`` (mean over inputs and seeds).
    """
    batch = sample_problems(p, d, list(seeds), decoupled=decoupled, device=device)
    res = train_memory(batch, steps=steps, lr=lr, early_stop=False, device=device)
    out: dict[str, dict[str, Any]] = {}
    for name, w in (("hebbian", hebbian_memory(batch)), ("trained", res.weights)):
        st = score_statistics(w, batch)
        st["accuracy"] = float(np.mean(st["gap"] > 0))
        out[name] = st
    return out


def plot_recall_vs_load(
    results: dict[int, dict[str, dict[str, np.ndarray]]],
    *,
    transitions: dict[int, float] | None = None,
) -> Figure:
    """Accuracy (criterion "typical") and P(all recalled) (criterion "all") against the load.

    Parameters
    ----------
    results : dict
        ``{d: recall_vs_load(d, ...)}`` for one or more d.
    transitions : dict, optional
        ``{d: alpha}``: predicted perfect-storage transition of the optimal memory at that d
        (e.g. :func:`assocmem.replica.predicted_transition`), drawn as a vertical line.

    Returns
    -------
    Figure
        Left: mean accuracy (fraction recalled); right: fraction of seeds with every association
        recalled. Simulation markers with standard errors; Hebbian theory
        (:func:`assocmem.hebbian.recall_probability`, Gaussian embeddings) as lines.
    """
    fig, axes = new_figure(1, 2, width=10.0, height=4.2)
    markers = {"hebbian": "o", "trained": "s"}
    for j, (d, res) in enumerate(sorted(results.items())):
        c = color(j)
        heb = res["hebbian"]
        a_lo, a_hi = float(heb["alpha"].min()), float(heb["alpha"].max())
        p_lo = max(2, int(heb["p"].min()) - 1)
        p_hi = int(heb["p"].max()) + 1
        p_grid = np.unique(np.geomspace(p_lo, p_hi, 80).astype(int))
        a_grid = p_grid * np.log(p_grid) / d**2
        keep = (a_grid >= 0.8 * a_lo) & (a_grid <= 1.05 * a_hi)
        for ax, crit in zip(axes, ("typical", "all"), strict=True):
            th = recall_probability(p_grid[keep], d, criterion=crit)
            theory_line(ax, a_grid[keep], th, label=f"Hebbian theory, d = {d}", color=c)
        for rule, tab in res.items():
            n = tab["accuracy"].shape[1]
            acc = tab["accuracy"].mean(1)
            acc_se = tab["accuracy"].std(1, ddof=1) / math.sqrt(n) if n > 1 else None
            perf = tab["perfect"].mean(1)
            perf_se = np.sqrt(perf * (1 - perf) / n)
            fill = "full" if rule == "trained" else "none"
            kw = {"marker": markers[rule], "fillstyle": fill, "color": c}
            sim_points(axes[0], tab["alpha"], acc, acc_se, label=f"{rule} W, d = {d}", **kw)
            sim_points(axes[1], tab["alpha"], perf, perf_se, label=f"{rule} W, d = {d}", **kw)
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


def _max_density(x: np.ndarray, n: int, scale: float) -> np.ndarray:
    """Density of the maximum of n i.i.d. N(0, scale^2)."""
    z = x / scale
    log_pdf = -0.5 * z**2 - 0.5 * math.log(2 * math.pi) - math.log(scale)
    return n * np.exp(log_pdf + (n - 1) * log_ndtr(z))


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


def plot_rule_comparison(
    alpha: float = 0.3, d: int = 48, seed: int = 0, steps: int = 1500, lr: float = 0.05
) -> Figure:
    """Explorer figure: Hebbian vs trained score histograms at one load (small, quick sizes).

    Parameters
    ----------
    alpha : float
        Load alpha = p log p / d^2 (> 0).
    d : int
        Embedding dimension (>= 2); keep it small for a live explorer.
    seed : int
        Problem seed.
    steps, lr : int, float
        Training budget and step size.

    Returns
    -------
    Figure
        As :func:`plot_mechanism` (Hebbian theory on the left; no RS overlay, to stay quick).
    """
    p = pairs_for_load(float(alpha), int(d))
    stats = mechanism_scores(p, int(d), seeds=(int(seed),), steps=int(steps), lr=float(lr))
    return plot_mechanism(stats)
