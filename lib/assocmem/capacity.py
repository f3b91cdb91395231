"""Capacity sweeps: perfect storage and recall accuracy against the load, and their figures.

:func:`capacity_sweep` runs one storage method (cross-entropy training, Hebbian rule or the exact
LP) over a grid of loads ``alpha = p log p / d^2`` and seeds and returns a tidy
:class:`CapacityTable` (one row per problem). :func:`success_curve` aggregates it per load and
:func:`estimate_capacity` locates the load where the fraction of perfectly stored problems crosses
1/2. The plot functions draw the figures of chapter 1.

The table is a plain list of dicts with column access (:meth:`CapacityTable.column`,
:meth:`CapacityTable.to_dict`); :meth:`CapacityTable.to_pandas` converts it when pandas is
installed, but the library does not need pandas.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from matplotlib.figure import Figure

from assocmem.plotting import color, finish, new_figure, sim_points, theory_line
from assocmem.problems import (
    MemoryProblem,
    _check_int,
    all_recalled,
    pairs_for_load,
    recall_accuracy,
    recalled,
    sample_problem,
    sample_problems,
    score_matrix,
)
from assocmem.scores import score_statistics
from assocmem.training import hebbian_memory, lp_feasible, train_memory

__all__ = [
    "CapacityTable",
    "capacity_sweep",
    "success_curve",
    "estimate_capacity",
    "CapacityEstimate",
    "normalized_singular_values",
    "quarter_circle_density",
    "plot_success",
    "plot_spectra",
    "plot_score_distributions",
    "expected_gaussian_max",
    "plot_memory",
]

COLUMNS = (
    "method",
    "decoupled",
    "d",
    "alpha",
    "load",
    "p",
    "seed",
    "accuracy",
    "perfect",
    "steps",
    "seconds",
)


@dataclass
class CapacityTable:
    """Tidy results of :func:`capacity_sweep`: one row (dict) per problem.

    Columns: ``method`` (str), ``decoupled`` (bool), ``d`` (int), ``alpha`` (requested load),
    ``load`` (actual ``p log p / d^2`` after rounding ``p``), ``p``, ``seed``, ``accuracy``
    (fraction recalled; NaN for the LP, which only decides feasibility), ``perfect`` (bool),
    ``steps`` (Adam steps run; 0 for Hebbian and LP) and ``seconds`` (wall time per problem, the
    batch's time divided by its size).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __add__(self, other: CapacityTable) -> CapacityTable:
        return CapacityTable(self.rows + other.rows)

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (raises KeyError for an unknown name)."""
        if name not in COLUMNS:
            raise KeyError(f"unknown column {name!r}; columns are {COLUMNS}")
        return np.asarray([r[name] for r in self.rows])

    def to_dict(self) -> dict[str, list[Any]]:
        """Columns as lists: ``{name: [value per row]}`` (what ``pandas.DataFrame`` accepts)."""
        return {c: [r[c] for r in self.rows] for c in COLUMNS}

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` (needs pandas; ImportError otherwise)."""
        import pandas as pd

        return pd.DataFrame(self.to_dict())

    def select(self, **conditions: Any) -> CapacityTable:
        """Rows whose columns equal the given values, e.g. ``select(d=32, decoupled=True)``."""
        for k in conditions:
            if k not in COLUMNS:
                raise KeyError(f"unknown column {k!r}; columns are {COLUMNS}")
        return CapacityTable(
            [r for r in self.rows if all(r[k] == v for k, v in conditions.items())]
        )

    def groups(self) -> list[tuple[str, bool, int]]:
        """Distinct (method, decoupled, d) combinations, in order of appearance."""
        seen: dict[tuple[str, bool, int], None] = {}
        for r in self.rows:
            seen.setdefault((r["method"], r["decoupled"], r["d"]), None)
        return list(seen)


_METHODS = ("trained", "hebbian", "lp")


def capacity_sweep(
    d: int,
    alphas: Iterable[float],
    *,
    decoupled: bool = False,
    seeds: Iterable[int] = range(4),
    method: str = "trained",
    steps: int = 4000,
    lr: float = 5.0,
    check_every: int = 25,
    patience: int | None = 1000,
    rank: int | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
) -> CapacityTable:
    """Store random associations at each load and record recall, for several seeds.

    Parameters
    ----------
    d : int
        Embedding dimension (>= 2).
    alphas : iterable of float
        Loads ``alpha = p log p / d^2`` (each > 0); ``p = pairs_for_load(alpha, d)``.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    seeds : iterable of int
        Problem seeds; the problem at seed ``s`` is ``sample_problem(p, d, seed=s)`` for every
        method, so the methods are compared on the same instances.
    method : {"trained", "hebbian", "lp"}
        Cross-entropy + Adam (:func:`assocmem.training.train_memory`, all seeds of one load as one
        batch), the Hebbian rule, or exact LP feasibility (small ``d`` only; ValueError above
        :data:`assocmem.training.LP_MAX_ENTRIES`).
    steps, lr, check_every, patience, rank
        Passed to :func:`~assocmem.training.train_memory` ("trained" only; ``rank`` with another
        method raises ValueError). Defaults: Adam lr = 5
        (scale-free problem: a large rate grows ``||W||`` fast, which is what perfect recall
        needs; at d = 12-16 it found every LP-feasible instance within 4000 steps), stall stop
        after 1000 steps without a 1 % loss improvement.
    device : str, torch.device or None
        Where problems and training live.
    progress : bool
        tqdm bar over loads.

    Returns
    -------
    CapacityTable
        One row per (alpha, seed), see :class:`CapacityTable`.

    Raises
    ------
    ValueError
        Unknown ``method``, empty ``alphas``/``seeds``, bad sizes; LP too large.
    MemoryError
        DP competitors that would not fit in memory (checked before allocating).
    """
    d = _check_int("d", d, 2)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if rank is not None and method != "trained":
        raise ValueError(f"rank applies only to method='trained', got method={method!r}")
    if isinstance(alphas, (int, float)) or isinstance(seeds, (int, float)):
        raise TypeError("alphas and seeds must be sequences (e.g. [0.5, 1.0] and range(4))")
    alpha_list = [float(a) for a in alphas]
    seed_list = [_check_int("seed", s, 0) for s in seeds]
    if not alpha_list or not seed_list:
        raise ValueError("alphas and seeds must be non-empty")
    ps = [pairs_for_load(a, d) for a in alpha_list]  # validates every alpha first
    it: Iterable[tuple[float, int]] = zip(alpha_list, ps, strict=True)
    if progress:
        from tqdm.auto import tqdm

        kind = "DP" if decoupled else "OP"
        it = tqdm(list(it), desc=f"{method} {kind} d={d}", leave=False)
    rows: list[dict[str, Any]] = []
    for alpha, p in it:
        load = p * math.log(p) / d**2
        base = {"method": method, "decoupled": bool(decoupled), "d": d, "alpha": alpha}
        base.update({"load": load, "p": p})
        t0 = time.perf_counter()
        if method == "trained":
            batch = sample_problems(p, d, seed_list, decoupled=decoupled, device=device)
            res = train_memory(
                batch,
                rank=rank,
                steps=steps,
                lr=lr,
                check_every=check_every,
                patience=patience,
                device=device,
            )
            sec = (time.perf_counter() - t0) / len(seed_list)
            acc = np.asarray(res.accuracy)
            st = np.asarray(res.steps)
            for i, s in enumerate(seed_list):
                rows.append(
                    base
                    | {
                        "seed": s,
                        "accuracy": float(acc[i]),
                        "perfect": res.perfect_step[i] is not None,  # type: ignore[index]
                        "steps": int(st[i]),
                        "seconds": sec,
                    }
                )
        else:
            for s in seed_list:
                t1 = time.perf_counter()
                prob = sample_problem(p, d, decoupled=decoupled, seed=s, device=device)
                if method == "hebbian":
                    W = hebbian_memory(prob)
                    acc_h, perf = float(recall_accuracy(W, prob)), bool(all_recalled(W, prob))
                else:
                    acc_h, perf = math.nan, lp_feasible(prob)
                rows.append(
                    base
                    | {
                        "seed": s,
                        "accuracy": acc_h,
                        "perfect": perf,
                        "steps": 0,
                        "seconds": time.perf_counter() - t1,
                    }
                )
    return CapacityTable(rows)


def _single_group(table: CapacityTable) -> None:
    if not isinstance(table, CapacityTable):
        raise TypeError(f"table must be a CapacityTable, got {type(table).__name__}")
    if len(table) == 0:
        raise ValueError("table is empty")
    if len(table.groups()) != 1:
        raise ValueError(
            f"table mixes {table.groups()} (method, decoupled, d); select one with "
            "table.select(method=..., decoupled=..., d=...)"
        )


def success_curve(table: CapacityTable) -> dict[str, np.ndarray]:
    """Aggregate one (method, decoupled, d) group of a table per requested load.

    Returns
    -------
    dict of numpy arrays, one entry per distinct ``alpha`` (sorted)
        ``alpha``, ``load`` (actual), ``p``, ``n`` (seeds), ``success`` (fraction perfect),
        ``success_err`` (binomial standard error ``sqrt(f (1-f) / n)``, at least ``1/(2n)`` so
        that 0 and 1 keep a visible bar), ``accuracy`` (mean) and ``accuracy_err`` (standard
        error of the mean over seeds; NaN for the LP).

    Raises
    ------
    ValueError
        Empty table or several groups.
    """
    _single_group(table)
    alphas = table.column("alpha").astype(float)
    out: dict[str, list[float]] = {
        k: []
        for k in ("alpha", "load", "p", "n", "success", "success_err", "accuracy", "accuracy_err")
    }
    for a in np.unique(alphas):
        sel = alphas == a
        perf = table.column("perfect")[sel].astype(float)
        acc = table.column("accuracy")[sel].astype(float)
        n = int(sel.sum())
        f = float(perf.mean())
        out["alpha"].append(float(a))
        out["load"].append(float(table.column("load")[sel][0]))
        out["p"].append(float(table.column("p")[sel][0]))
        out["n"].append(n)
        out["success"].append(f)
        out["success_err"].append(max(math.sqrt(f * (1 - f) / n), 0.5 / n))
        out["accuracy"].append(float(np.mean(acc)))
        out["accuracy_err"].append(float(np.std(acc, ddof=1) / math.sqrt(n)) if n > 1 else 0.0)
    return {k: np.asarray(v) for k, v in out.items()}


class CapacityEstimate(float):
    """A capacity estimate: a ``float`` (the load) that also carries ``.alpha`` and ``.stderr``.

    ``stderr`` is the bootstrap standard error over seeds (resampling the seeds at every load);
    NaN when fewer than two resamples give a crossing.
    """

    alpha: float
    stderr: float

    def __new__(cls, alpha: float, stderr: float = math.nan) -> CapacityEstimate:
        obj = super().__new__(cls, alpha)
        obj.alpha = float(alpha)
        obj.stderr = float(stderr)
        return obj

    def __repr__(self) -> str:
        return f"CapacityEstimate(alpha={self.alpha:.4g}, stderr={self.stderr:.2g})"


def _crossing(x: np.ndarray, f: np.ndarray) -> float:
    for i in range(len(f) - 1):
        if f[i] >= 0.5 > f[i + 1]:
            return float(x[i] + (f[i] - 0.5) / (f[i] - f[i + 1]) * (x[i + 1] - x[i]))
    return math.nan


def estimate_capacity(
    table: CapacityTable, *, n_boot: int = 200, seed: int = 0
) -> CapacityEstimate:
    """Load at which the fraction of perfectly stored problems first drops below 1/2.

    Linear interpolation of the success fraction against the actual load ``p log p / d^2``
    between the last load with success >= 1/2 and the next one.

    Parameters
    ----------
    table : CapacityTable
        One (method, decoupled, d) group (use :meth:`CapacityTable.select`).
    n_boot : int
        Bootstrap resamples of the seeds for the standard error (>= 0; 0 skips it).
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    CapacityEstimate
        A float (the crossing load; ``.alpha`` is the same number) with ``.stderr``. NaN when the
        success fraction never crosses 1/2 in the table's range (all above: extend the loads
        upwards; all below: downwards).

    Raises
    ------
    ValueError
        Empty table or several groups.
    """
    c = success_curve(table)
    est = _crossing(c["load"], c["success"])
    n_boot = _check_int("n_boot", n_boot, 0)
    if n_boot == 0 or math.isnan(est):
        return CapacityEstimate(est)
    rng = np.random.default_rng(_check_int("seed", seed, 0))
    alphas = table.column("alpha").astype(float)
    perfect = table.column("perfect").astype(float)
    per_load = [perfect[alphas == a] for a in c["alpha"]]
    boots = []
    for _ in range(n_boot):
        f = np.array([rng.choice(v, size=len(v)).mean() for v in per_load])
        b = _crossing(c["load"], f)
        if not math.isnan(b):
            boots.append(b)
    err = float(np.std(boots, ddof=1)) if len(boots) >= 2 else math.nan
    return CapacityEstimate(est, err)


# ---------------------------------------------------------------------------------------------
# observables of learnt weights
# ---------------------------------------------------------------------------------------------
def normalized_singular_values(W: torch.Tensor | np.ndarray) -> np.ndarray:
    """Singular values of ``W`` rescaled to mean square 1 (float64, shape (d,) or (B*d,)).

    With this normalisation the quarter-circle law reads ``rho(s) = sqrt(4 - s^2) / pi`` on
    [0, 2] (digest §7.1, reconstruction). A batch (B, d, d) is normalised per matrix and pooled.
    """
    Wt = torch.as_tensor(W).double().cpu()
    if Wt.dim() not in (2, 3) or Wt.shape[-1] != Wt.shape[-2]:
        raise ValueError(f"W must be (d, d) or (B, d, d), got {tuple(Wt.shape)}")
    s = torch.linalg.svdvals(Wt)
    rms = s.pow(2).mean(-1, keepdim=True).sqrt()
    if bool((rms == 0).any()):
        raise ValueError("W is zero: singular values cannot be normalised")
    return (s / rms).numpy().ravel()


def quarter_circle_density(s: np.ndarray | Sequence[float]) -> np.ndarray:
    """Quarter-circle density ``sqrt(4 - s^2) / pi`` on [0, 2] (0 outside); mean of s^2 is 1."""
    s_arr = np.asarray(s, dtype=float)
    inside = (s_arr >= 0) & (s_arr <= 2)
    return np.where(inside, np.sqrt(np.clip(4 - s_arr**2, 0, None)) / np.pi, 0.0)


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------
def _label(group: tuple[str, bool, int]) -> str:
    method, dec, d = group
    names = {"trained": "CE+Adam", "hebbian": "Hebbian", "lp": "LP (exact)"}
    return f"{names.get(method, method)} {'DP' if dec else 'OP'}, d={d} (sim.)"


def plot_success(
    table: CapacityTable,
    *,
    theory: dict[str, float] | None = None,
    show_accuracy: bool = True,
) -> Figure:
    """Success probability (and mean recall accuracy) against the load, one series per group.

    Parameters
    ----------
    table : CapacityTable
        Any number of (method, decoupled, d) groups (e.g. several sweeps added with ``+``).
        OP groups are drawn with filled circles, DP groups with open squares; LP groups with
        dashed joins.
    theory : dict of str to float, optional
        Vertical theory lines ``{label: alpha}``, e.g. ``{"α_c = 1/2 (d → ∞)": 0.5}``.
    show_accuracy : bool
        Add a left panel with the mean fraction recalled (LP groups have none and are skipped).

    Returns
    -------
    Figure
    """
    if len(table) == 0:
        raise ValueError("table is empty")
    ncols = 2 if show_accuracy else 1
    fig, axes = new_figure(1, ncols, sharex=True, width=10.0 if show_accuracy else 8.0)
    ax_list = list(np.atleast_1d(axes))
    ax_acc, ax_suc = (ax_list[0], ax_list[1]) if show_accuracy else (None, ax_list[0])
    dims = sorted({g[2] for g in table.groups()})
    for g in table.groups():
        c = success_curve(table.select(method=g[0], decoupled=g[1], d=g[2]))
        col = color(dims.index(g[2]))
        kw: dict[str, Any] = {
            "marker": "s" if g[1] else "o",
            "markerfacecolor": "none" if g[1] else col,
            "linestyle": "--" if g[0] == "lp" else ":",
            "linewidth": 1.0,
        }
        sim_points(
            ax_suc, c["load"], c["success"], c["success_err"], label=_label(g), color=col, **kw
        )
        if ax_acc is not None and g[0] != "lp":
            sim_points(
                ax_acc,
                c["load"],
                c["accuracy"],
                c["accuracy_err"],
                label=_label(g),
                color=col,
                **kw,
            )
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
    edges = np.linspace(0, 2.4, _check_int("bins", bins, 2) + 1)
    centres = 0.5 * (edges[1:] + edges[:-1])
    for i, (lab, W) in enumerate(weights.items()):
        s = normalized_singular_values(W)
        h, _ = np.histogram(s, bins=edges, density=True)
        n = len(s)
        err = np.sqrt(h / (n * np.diff(edges)))  # Poisson error of a density histogram
        sim_points(ax, centres, h, err, label=f"{lab} (sim.)", color=color(i), linestyle=":")
    x = np.linspace(0, 2, 200)
    theory_line(
        ax, x, quarter_circle_density(x), label="quarter circle √(4−s²)/π (theory)", color="k"
    )
    ax.set_xlabel("singular value s / rms(s)")
    ax.set_ylabel("density")
    ax.legend()
    return finish(fig)


def expected_gaussian_max(n: int) -> float:
    """Mean of the maximum of ``n`` i.i.d. standard Gaussians (quadrature; ~ sqrt(2 log n)).

    ``E max = int x n phi(x) Phi(x)^(n-1) dx``, computed on a fine grid (float64).
    """
    from scipy.stats import norm

    n = _check_int("n", n, 1)
    x = np.linspace(-8.0, 10.0, 20001)
    dens = n * norm.pdf(x) * np.exp((n - 1) * norm.logcdf(x))
    return float(np.sum(x * dens) * (x[1] - x[0]))


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
        m = expected_gaussian_max(prob.p - 1)
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
    d: int = 32,
    alpha: float = 0.8,
    decoupled: bool = False,
    seed: int = 0,
    steps: int = 2000,
    max_show: int = 60,
    device: str | torch.device | None = None,
) -> Figure:
    """Train one memory and show its score matrix and per-input margins (the chapter's explorer).

    Parameters
    ----------
    d, alpha, decoupled, seed
        The problem: ``p = pairs_for_load(alpha, d)``.
    steps : int
        Adam budget (lr 5, stall stop after 1000 steps).
    max_show : int
        Number of rows/columns of the score matrix shown (the top-left block).
    device : str, torch.device or None
        Training device.

    Returns
    -------
    Figure
        Left: ``S[mu, nu]`` (target on the diagonal) for the first ``max_show`` inputs and
        candidates. Right: margin ``S[mu, mu] - max_{nu != mu} S[mu, nu]`` of every input, sorted,
        in units of ``sigma_W``; negative margins are recall errors.
    """
    p = pairs_for_load(alpha, d)
    prob = sample_problem(p, d, decoupled=decoupled, seed=seed, device=device)
    res = train_memory(prob, steps=steps, lr=5.0, check_every=25, patience=1000, device=device)
    W = res.weights
    S = score_matrix(W, prob).double().cpu().numpy()
    sigma = float(torch.linalg.norm(W)) / d
    rec = recalled(W, prob).cpu().numpy()
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
    state = f"stored at step {res.perfect_step}" if res.perfect_step is not None else "not stored"
    ax1.set_title(f"recalled {rec.mean():.1%} ({state})")
    kind = "DP" if decoupled else "OP"
    return finish(fig, title=f"{kind}, d = {d}, α = {p * math.log(p) / d**2:.2f}")
