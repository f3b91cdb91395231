"""Capacity sweeps of the linear memory: perfect storage against the load, and the transition.

:func:`capacity_sweep` runs one storage method (cross-entropy training, the Hebbian rule or the
exact LP) over a grid of loads ``alpha = p log p / d^2`` and seeds and returns a tidy table (one
row per instance); the transition load where the fraction of perfectly stored instances crosses
1/2 is estimated from it. Sweeps draw nothing (figures: :mod:`assocmem.linear.plots`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray
from scipy.special import lambertw
from tqdm.auto import tqdm

from assocmem._validate import as_float_array, check_int, check_scalar_kappa
from assocmem.linear.finite_size import finite_size_critical_load, predicted_transition
from assocmem.linear.load import load_for_pairs, pairs_for_load
from assocmem.linear.lp import lp_feasible
from assocmem.linear.problems import (
    all_recalled,
    recall_accuracy,
    sample_problem,
    sample_problems,
    score_statistics,
)
from assocmem.linear.spectra import critical_load, singular_values
from assocmem.linear.training import hebbian_memory, train_memory

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
    d = check_int("d", d, 2)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if rank is not None and method != "trained":
        raise ValueError(f"rank applies only to method='trained', got method={method!r}")
    if isinstance(alphas, (int, float)) or isinstance(seeds, (int, float)):
        raise TypeError("alphas and seeds must be sequences (e.g. [0.5, 1.0] and range(4))")
    alpha_list = [float(a) for a in alphas]
    seed_list = [check_int("seed", s, 0) for s in seeds]
    if not alpha_list or not seed_list:
        raise ValueError("alphas and seeds must be non-empty")
    ps = [pairs_for_load(a, d) for a in alpha_list]  # validates every alpha first
    it: Iterable[tuple[float, int]] = zip(alpha_list, ps, strict=True)
    if progress:
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
    n_boot = check_int("n_boot", n_boot, 0)
    if n_boot == 0 or math.isnan(est):
        return CapacityEstimate(est)
    rng = np.random.default_rng(check_int("seed", seed, 0))
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


def measured_transition(table: Any, *, n_boot: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Crossing load of the success probability and its uncertainty, from a capacity sweep.

    The crossing is :func:`assocmem.capacity.estimate_capacity` (first load where the fraction of
    perfectly stored problems drops below 1/2, linear interpolation in the actual load). Its
    standard error is the spread of the same crossing when the success probability at each load
    is redrawn from its Beta(k + 1/2, n - k + 1/2) posterior (Jeffreys prior; k of n seeds
    perfect), which keeps a finite error when the observed fractions are exactly 0 or 1.

    Parameters
    ----------
    table : assocmem.capacity.CapacityTable
        One (method, decoupled, d) group.
    n_boot : int
        Number of posterior draws, >= 10.
    seed : int
        Seed of the draws.

    Returns
    -------
    (alpha, stderr) : tuple of float
        NaN alpha when the sweep does not cross 1/2.

    Raises
    ------
    ValueError
        If ``n_boot < 10`` or the table is empty or mixes groups.
    """

    if int(n_boot) != n_boot or n_boot < 10:
        raise ValueError(f"n_boot must be an integer >= 10, got {n_boot}")
    curve = success_curve(table)
    alpha = float(estimate_capacity(table))
    k = np.rint(curve["success"] * curve["n"])
    rng = np.random.default_rng(seed)
    draws = rng.beta(k + 0.5, curve["n"] - k + 0.5, size=(int(n_boot), k.size))
    boot = np.array([_crossing(curve["load"], f) for f in draws])
    boot = boot[np.isfinite(boot)]
    err = float(boot.std(ddof=1)) if boot.size > 1 else math.nan
    return alpha, err


def transition_comparison(sweeps: dict[str, Any], *, seed: int = 0) -> dict[str, list[Any]]:
    """Measured perfect-storage transitions against the RS prediction, one row per sweep.

    Parameters
    ----------
    sweeps : dict of str -> assocmem.capacity.CapacityTable
        Label -> one (method, decoupled, d) sweep from :func:`assocmem.capacity.capacity_sweep`.
    seed : int
        Seed of the Monte Carlo prediction and of the error bootstrap.

    Returns
    -------
    dict of str -> list, one entry per sweep
        ``sweep``, ``d``, ``seeds per load``, ``measured alpha_c`` and ``measured +-``
        (:func:`measured_transition`), ``p at measured`` (``p log p = alpha d^2``, real),
        ``predicted alpha_c`` and ``predicted +-`` (:func:`predicted_transition`),
        ``p at predicted``, ``difference`` (measured - predicted) and ``difference / error``;
        ready for ``pandas.DataFrame`` and :func:`plot_finite_size_capacity`.
    """

    out: dict[str, list[Any]] = {
        k: []
        for k in (
            "sweep",
            "d",
            "seeds per load",
            "measured alpha_c",
            "measured +-",
            "p at measured",
            "predicted alpha_c",
            "predicted +-",
            "p at predicted",
            "difference",
            "difference / error",
        )
    }
    for label, table in sweeps.items():
        groups = table.groups()
        if len(groups) != 1:
            raise ValueError(f"sweep {label!r} mixes groups {groups}")
        d = int(groups[0][2])
        alpha, err = measured_transition(table, seed=seed)
        pred, p_pred, pred_err = predicted_transition(d, seed=seed)
        x = alpha * d**2
        p_meas = float(np.real(x / lambertw(x))) if math.isfinite(alpha) else math.nan
        diff = alpha - pred
        out["sweep"].append(label)
        out["d"].append(d)
        out["seeds per load"].append(int(len(table) / len(set(table.column("alpha")))))
        out["measured alpha_c"].append(alpha)
        out["measured +-"].append(err)
        out["p at measured"].append(p_meas)
        out["predicted alpha_c"].append(pred)
        out["predicted +-"].append(pred_err)
        out["p at predicted"].append(p_pred)
        out["difference"].append(diff)
        out["difference / error"].append(diff / math.hypot(err, pred_err))
    return out


def _crossing_interval(
    alphas: NDArray[np.float64], frac: NDArray[np.float64]
) -> tuple[float, float]:
    """First alpha where the success fraction drops through 1/2 (linear interpolation), and the
    width of the grid interval that brackets it (NaN, NaN if there is no crossing)."""
    if frac[0] < 0.5:
        return float("nan"), float("nan")
    for i in range(len(alphas) - 1):
        if frac[i] >= 0.5 > frac[i + 1]:
            f0, f1 = frac[i], frac[i + 1]
            width = float(alphas[i + 1] - alphas[i])
            return float(alphas[i] + (f0 - 0.5) / (f0 - f1) * width), width
    return float("nan"), float("nan")


class RankSweep:
    """Result of :func:`rank_capacity_sweep`: success of training ``W = Q R^T`` per kappa and load.

    Attributes
    ----------
    d : int
        Embedding dimension.
    kappas : list of float
        Rank ratios ``m / d`` (``m = round(kappa d)``).
    alphas : dict kappa -> ndarray (n_alpha,)
        Loads ``p log p / d^2`` actually used (from the integer ``p``).
    p : dict kappa -> ndarray of int (n_alpha,)
    success : dict kappa -> bool ndarray (n_alpha, n_seeds)
        Perfect recall of all ``p`` associations within the step budget.
    accuracy : dict kappa -> ndarray (n_alpha, n_seeds)
        Fraction recalled at the end.
    steps : dict kappa -> ndarray (n_alpha, n_seeds)
        Adam steps used (the budget for failures).
    singular_values : dict kappa -> ndarray
        Non-zero singular values (top ``m``, normalised to mean square 1 per matrix) of the
        successful memories at the largest load where at least half of the seeds succeeded
        (else the largest load with any success), pooled over those seeds (empty if no seed
        succeeded at any load).
    spectrum_load : dict kappa -> float
        The load at which those memories were trained (NaN if none).
    predicted : dict kappa -> float
        Heuristic finite-size prediction (:func:`finite_size_critical_load`).
    seconds : float
        Wall time of the sweep.
    """

    def __init__(self, d: int, kappas: list[float]) -> None:
        self.d = d
        self.kappas = kappas
        self.alphas: dict[float, NDArray[np.float64]] = {}
        self.p: dict[float, NDArray[np.int64]] = {}
        self.success: dict[float, NDArray[np.bool_]] = {}
        self.accuracy: dict[float, NDArray[np.float64]] = {}
        self.steps: dict[float, NDArray[np.int64]] = {}
        self.singular_values: dict[float, NDArray[np.float64]] = {}
        self.spectrum_load: dict[float, float] = {}
        self.predicted: dict[float, float] = {}
        self.seconds = 0.0

    def success_probability(
        self, kappa: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(alphas, fraction of seeds stored perfectly, binomial standard error)``."""
        s = self.success[kappa].astype(np.float64)
        frac = s.mean(axis=1)
        n = s.shape[1]
        err = np.sqrt(np.maximum(frac * (1 - frac), 0.25 / n) / n)
        return self.alphas[kappa], frac, err

    def capacity(self, kappa: float, *, n_boot: int = 400, seed: int = 0) -> tuple[float, float]:
        """Estimated capacity: load where the success fraction crosses 1/2, with an error.

        Linear interpolation between grid loads. The error combines in quadrature the standard
        deviation over ``n_boot`` resamplings of the seeds and the grid resolution (width of the
        bracketing interval / sqrt(12), the spread of a point known only to lie in it); NaN if
        the crossing is outside the grid.
        """
        a, frac, _ = self.success_probability(kappa)
        est, width = _crossing_interval(a, frac)
        s = self.success[kappa].astype(np.float64)
        rng = np.random.default_rng(seed)
        boots = []
        for _ in range(n_boot):
            cols = rng.integers(0, s.shape[1], s.shape[1])
            boots.append(_crossing(a, s[:, cols].mean(axis=1)))
        b = np.asarray(boots)
        b = b[np.isfinite(b)]
        boot = float(b.std(ddof=1)) if b.size > 1 else 0.0
        err = math.sqrt(boot**2 + width**2 / 12.0) if math.isfinite(est) else float("nan")
        return est, err

    def summary(self) -> str:
        """A small text table: kappa, m, alpha_c(kappa), finite-size estimate, measured capacity."""

        lines = [
            f"d = {self.d}; {self.seconds:.0f} s",
            f"{'kappa':>6} {'m':>4} {'alpha_c(kappa)':>15} {'finite-size est.':>17} "
            f"{'measured':>10} {'+-':>6}",
        ]
        for k in self.kappas:
            est, err = self.capacity(k)
            lines.append(
                f"{k:6.2f} {round(k * self.d):4d} {float(critical_load(k)):15.4f} "
                f"{self.predicted[k]:17.3f} {est:10.3f} {err:6.3f}"
            )
        return "\n".join(lines)


def rank_capacity_sweep(
    d: int,
    kappas: list[float],
    relative_loads: ArrayLike = (0.6, 0.8, 1.0, 1.2, 1.4),
    *,
    seeds: int | list[int] = 4,
    steps: int = 1000,
    lr: float = 0.2,
    check_every: int = 25,
    patience: int | None = 200,
    decoupled: bool = False,
    device: Any = None,
    progress: bool = True,
) -> RankSweep:
    """Train ``W = Q R^T`` (rank ``m = round(kappa d)``) across loads and seeds, for each kappa.

    For each kappa the loads are ``relative_loads`` times the heuristic finite-size prediction
    :func:`finite_size_critical_load`, so every grid brackets its own transition. Each load
    trains all seeds as one batch with :func:`assocmem.training.train_memory` (cross-entropy,
    Adam, small random factors, early stop at perfect recall).

    Parameters
    ----------
    d : int
        Embedding dimension (>= 2).
    kappas : list of float
        Rank ratios in (0, 1].
    relative_loads : array_like of float
        Loads in units of the predicted transition (each > 0, increasing).
    seeds : int or list of int
        Number of seeds (``range(seeds)``) or the seeds themselves.
    steps, lr, check_every, patience
        Adam budget, learning rate, check interval and stall stop, passed to ``train_memory``.
        At d = 48, kappa = 1/2 and a load near the transition, lr = 0.2 stored 3 of 4 problems
        within 400 steps where lr = 0.02 needed 370-640 steps and lr = 0.5 stored none in 600.
        ``patience`` stops a problem whose loss has stalled (above capacity), which saves most of
        the budget there; it is a heuristic and may stop a slow, storable problem.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to train (``assocmem.device.get_device``).
    progress : bool
        Show a tqdm bar over (kappa, load) pairs.

    Returns
    -------
    RankSweep

    Raises
    ------
    ValueError
        If a kappa is outside (0, 1], ``relative_loads`` is empty / not positive / not
        increasing, or ``seeds`` is empty.

    Notes
    -----
    A fixed step budget underestimates the capacity near the transition (Adam slows down
    there, digest section 8): the measured value is a finite-size, finite-time estimate.
    """

    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    ks = [float(check_scalar_kappa(k)) for k in kappas]
    if not ks or any(k > 1 for k in ks):
        raise ValueError(f"kappas must be a non-empty list of values in (0, 1], got {kappas!r}")
    rel = as_float_array(relative_loads, "relative_loads").ravel()
    if rel.size == 0 or np.any(rel <= 0) or np.any(np.diff(rel) <= 0):
        raise ValueError(f"relative_loads must be positive and increasing, got {relative_loads!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not seed_list:
        raise ValueError("seeds must be a positive number or a non-empty list of seeds")
    t0 = time.perf_counter()
    out = RankSweep(int(d), ks)
    bar = tqdm(total=len(ks) * rel.size, desc="rank sweep", disable=not progress)
    for k in ks:
        m = max(1, round(k * d))
        pred, _ = finite_size_critical_load(k, int(d))
        out.predicted[k] = pred
        ps = np.array([pairs_for_load(pred * r, int(d)) for r in rel], dtype=np.int64)
        succ = np.zeros((rel.size, len(seed_list)), dtype=bool)
        acc = np.zeros((rel.size, len(seed_list)))
        nsteps = np.zeros((rel.size, len(seed_list)), dtype=np.int64)
        spec = np.zeros(0)
        spec_load = float("nan")
        for i, p in enumerate(ps):
            problems = sample_problems(
                int(p),
                int(d),
                [1000 * i + s for s in seed_list],
                decoupled=decoupled,
                device=device,
            )
            res = train_memory(
                problems,
                rank=m,
                steps=steps,
                lr=lr,
                check_every=check_every,
                patience=patience,
                seed=7 * i,
            )
            succ[i] = np.asarray(res.perfect)
            acc[i] = np.asarray(res.accuracy)
            nsteps[i] = np.asarray(res.steps)
            # spectra: the largest load where at least half of the seeds succeeded (else any)
            if succ[i].any() and (2 * succ[i].sum() >= succ[i].size or spec.size == 0):
                ok = torch.as_tensor(succ[i], device=res.weights.device)
                spec = singular_values(res.weights[ok], rank=m).ravel()
                spec_load = load_for_pairs(int(p), int(d))
            bar.update(1)
        out.alphas[k] = np.array([load_for_pairs(int(p), int(d)) for p in ps])
        out.p[k] = ps
        out.success[k], out.accuracy[k], out.steps[k] = succ, acc, nsteps
        out.singular_values[k], out.spectrum_load[k] = spec, spec_load
    bar.close()
    out.seconds = time.perf_counter() - t0
    return out
