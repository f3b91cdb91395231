"""Capacity sweeps of the linear memory: perfect storage against the load, and the transition.

:func:`capacity_sweep` runs one storage method (cross-entropy training, the Hebbian rule or the
exact LP) on one problem (OP or DP), with or without a rank constraint, over a grid of loads
``alpha = p log p / d^2`` and seeds, and returns a tidy ``pandas.DataFrame`` with one row per
instance. Everything downstream reads that table: :func:`success_by_load` (fraction stored per
load with its Wilson interval), :func:`transition_load` / :func:`transition_loads` (the one
estimator of the load where the fraction crosses 1/2, with its uncertainty),
:func:`transition_comparison` (measured vs finite-size theory) and :func:`stored_spectra`.
Sweeps draw nothing (figures: the ``assocmem.linear.plots_*`` modules).

Seeding rule (the same for every method): the instance at load ``alpha`` and seed ``s`` is
``sample_problem(pairs_for_load(alpha, d), d, seed=s)``, so methods and problems are compared on
the same inputs and targets; a factored ``W = Q R^T`` of seed ``s`` starts from the factors
drawn with seed ``s`` (:func:`assocmem.linear.training.train_memory`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy.stats import binomtest
from tqdm.auto import tqdm

from assocmem._validate import check_int, seed_list
from assocmem.linear.finite_size import predicted_transition
from assocmem.linear.load import load_for_pairs, pairs_at_load, pairs_for_load
from assocmem.linear.lp import lp_feasible
from assocmem.linear.problems import all_recalled, recall_accuracy
from assocmem.linear.sampling import sample_problem, sample_problems
from assocmem.linear.scores import score_statistics
from assocmem.linear.spectra import singular_values
from assocmem.linear.training import hebbian_memory, train_memory
from assocmem.stats import first_crossing

__all__ = [
    "COLUMNS",
    "GROUP_COLUMNS",
    "METHODS",
    "capacity_sweep",
    "success_by_load",
    "Transition",
    "transition_load",
    "transition_loads",
    "accuracy_crossing",
    "transition_comparison",
    "stored_spectra",
    "mechanism_scores",
]

#: Storage methods of :func:`capacity_sweep`.
METHODS = ("train", "hebbian", "lp")
#: Columns of the table :func:`capacity_sweep` returns, in order (plus ``weights`` on request).
COLUMNS = (
    "method",
    "problem",
    "d",
    "rank",
    "kappa",
    "factored",
    "alpha",
    "load",
    "p",
    "seed",
    "recalled_all",
    "accuracy",
    "steps",
    "seconds",
)
#: Columns that identify one experiment (one success-vs-load curve) in a table.
GROUP_COLUMNS = ["method", "problem", "d", "rank", "factored"]


def _check_choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``allowed`` (ValueError naming the choices otherwise)."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return str(value)


def capacity_sweep(
    d: int,
    alphas: Iterable[float],
    *,
    decoupled: bool = False,
    method: str = "train",
    rank: int | None = None,
    seeds: int | Iterable[int] = 4,
    steps: int = 4000,
    lr: float | None = None,
    check_every: int = 25,
    patience: int | None = 1000,
    keep_weights: bool = False,
    device: str | torch.device | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Store random associations at each load and record recall, one row per instance.

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    alphas : iterable of float
        Loads ``alpha = p log p / d^2``, each > 0; ``p = pairs_for_load(alpha, d)``.
    decoupled : bool
        Original problem (False: the competitors are the other targets) or decoupled problem
        (True: private competitors); recorded as ``problem = "op"`` or ``"dp"``.
    method : {"train", "hebbian", "lp"}
        Cross-entropy + Adam (:func:`assocmem.linear.training.train_memory`, all seeds of one
        load as one batch), the Hebbian rule, or the exact LP decision
        (:func:`assocmem.linear.lp.lp_feasible`, constraint generation with a certificate;
        CPU seconds per instance at d = 32, see ``benchmarks/lp_speed.py``).
    rank : int or None
        ``m`` in ``1..d``: train ``W = Q R^T`` with ``Q, R`` of shape (d, m) (``method="train"``
        only). ``None``: unconstrained ``W`` (recorded as ``rank = d``, ``kappa = 1``).
    seeds : int or iterable of int
        The book's rule: an int ``n`` means ``range(n)``; else the seeds themselves.
    steps, lr, check_every, patience
        Training budget, Adam learning rate (``None``: 5 for full rank, 0.5 for ``rank``), check
        interval and stall stop, passed to ``train_memory``; ignored by ``"hebbian"`` and
        ``"lp"``, which do not train.
    keep_weights : bool
        Add a column ``weights`` holding each instance's ``W`` (numpy float32, (d, d));
        ``method="train"`` or ``"hebbian"`` only (the LP decides without a ``W``).
    device : str, torch.device or None
        Where problems and training live.
    progress : bool
        Show a tqdm bar over loads.

    Returns
    -------
    pandas.DataFrame
        One row per (alpha, seed), columns :data:`COLUMNS`: ``method``, ``problem`` (str),
        ``d``, ``rank`` (int), ``kappa`` (= rank / d), ``factored`` (bool: trained as
        ``W = Q R^T``, which with ``rank = d`` is another engine than the unconstrained ``W``),
        ``alpha`` (requested load), ``load``
        (actual ``p log p / d^2`` of the integer ``p``), ``p``, ``seed`` (int),
        ``recalled_all`` (bool: every association recalled), ``accuracy`` (fraction recalled;
        NaN for the LP, which only decides), ``steps`` (Adam steps run; 0 for Hebbian and LP),
        ``seconds`` (wall time per instance).

    Raises
    ------
    TypeError
        If ``alphas`` is a single number or ``seeds`` is not an int or iterable of ints.
    ValueError
        Unknown ``method``, empty or repeated ``alphas``, a load <= 0 or not finite, ``rank``
        outside ``1..d`` or given with another method, ``keep_weights`` with the LP.
    RuntimeError
        If the LP reaches neither certificate (see :func:`assocmem.linear.lp.lp_decide`).
    MemoryError
        DP competitors that would not fit in memory (checked before allocating).

    Notes
    -----
    Protocol: the digest of arXiv:2605.10795, §9 (reconstruction); see chapter 1.
    """
    d = check_int("d", d, 2)
    if not isinstance(decoupled, (bool, np.bool_)):
        raise TypeError(f"decoupled must be a bool, got {type(decoupled).__name__}")
    problem = "dp" if decoupled else "op"
    method = _check_choice("method", method, METHODS)
    if rank is not None:
        if method != "train":
            raise ValueError(f"rank applies only to method='train', got method={method!r}")
        rank = check_int("rank", rank, 1)
        if rank > d:
            raise ValueError(f"rank must be in [1, d={d}], got {rank}")
    flat = not isinstance(alphas, np.ndarray) or alphas.ndim == 1
    if isinstance(alphas, (str, bytes)) or not isinstance(alphas, Iterable) or not flat:
        raise TypeError(f"alphas must be a 1-d sequence of loads (e.g. [0.5, 1.0]), got {alphas!r}")
    items = list(alphas)
    if any(isinstance(a, (bool, np.bool_)) for a in items):
        raise TypeError("alphas must hold loads (real numbers), got a bool")
    try:
        alpha_arr = np.asarray(items, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"alphas must hold real numbers, got {alphas!r}") from exc
    if alpha_arr.ndim != 1:
        raise TypeError(f"alphas must be a 1-d sequence of loads, got shape {alpha_arr.shape}")
    if alpha_arr.size == 0:
        raise ValueError("alphas must be non-empty")
    if not np.all(np.isfinite(alpha_arr)) or np.any(alpha_arr <= 0):
        raise ValueError(f"alphas must be finite loads > 0, got {alphas!r}")
    if np.unique(alpha_arr).size != alpha_arr.size:
        raise ValueError(
            f"alphas must not repeat a load (the same instances again), got {alphas!r}"
        )
    alpha_list = [float(a) for a in alpha_arr]
    if not isinstance(keep_weights, (bool, np.bool_)) or not isinstance(progress, (bool, np.bool_)):
        raise TypeError("keep_weights and progress must be bools")
    if keep_weights and method == "lp":
        raise ValueError("keep_weights needs a memory: the LP decides feasibility without one")
    seeds_ = seed_list(seeds)
    ps = [pairs_for_load(a, d) for a in alpha_list]  # validates every alpha first
    m = d if rank is None else rank
    label = f"{method} {problem.upper()} d={d}" + ("" if rank is None else f" m={rank}")
    rows: list[dict[str, Any]] = []
    for alpha, p in tqdm(list(zip(alpha_list, ps, strict=True)), desc=label, disable=not progress,
                         leave=False):  # fmt: skip
        base = {"method": method, "problem": problem, "d": d, "rank": m, "kappa": m / d,
                "factored": rank is not None}  # fmt: skip
        base |= {"alpha": alpha, "load": load_for_pairs(p, d), "p": p}
        if method == "train":
            t0 = time.perf_counter()
            batch = sample_problems(p, d, seeds_, decoupled=decoupled, device=device)
            res = train_memory(batch, rank=rank, steps=steps, lr=lr, check_every=check_every,
                               patience=patience, device=device)  # fmt: skip
            sec = (time.perf_counter() - t0) / len(seeds_)
            acc, st = np.asarray(res.accuracy), np.asarray(res.steps)
            for i, s in enumerate(seeds_):
                ok = bool(np.asarray(res.perfect)[i])
                row = base | {"seed": s, "recalled_all": ok, "accuracy": float(acc[i]),
                              "steps": int(st[i]), "seconds": sec}  # fmt: skip
                if keep_weights:
                    row["weights"] = res.weights[i].detach().cpu().numpy()
                rows.append(row)
            continue
        for s in seeds_:
            t1 = time.perf_counter()
            inst = sample_problem(p, d, decoupled=decoupled, seed=s, device=device)
            W = hebbian_memory(inst)
            if method == "hebbian":
                acc_s, ok = float(recall_accuracy(W, inst)), bool(all_recalled(W, inst))
            else:
                acc_s, ok = math.nan, lp_feasible(inst)
            row = base | {"seed": s, "recalled_all": ok, "accuracy": acc_s, "steps": 0,
                          "seconds": time.perf_counter() - t1}  # fmt: skip
            if keep_weights:
                row["weights"] = W.detach().cpu().numpy()
            rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS) + (["weights"] if keep_weights else []))


def _check_table(table: object) -> pd.DataFrame:
    """Check that ``table`` is a non-empty DataFrame with the columns of :func:`capacity_sweep`."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    if len(table) == 0:
        raise ValueError("table is empty")
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the columns {missing} of capacity_sweep's output")
    for c in [*GROUP_COLUMNS, "alpha", "load", "p", "seed", "recalled_all"]:
        if table[c].isna().any():
            raise ValueError(f"table column {c!r} has missing values")
    dup = table.duplicated([*GROUP_COLUMNS, "alpha", "seed"])
    if dup.any():
        raise ValueError(
            f"table repeats {int(dup.sum())} (experiment, alpha, seed) rows: the same instance "
            "would count twice (concatenated the same sweep twice?)"
        )
    return table


def success_by_load(table: pd.DataFrame) -> pd.DataFrame:
    """Fraction of instances stored perfectly at each load, with its 95 % Wilson interval.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`capacity_sweep` (or several concatenated), any number of groups.

    Returns
    -------
    pandas.DataFrame
        One row per (:data:`GROUP_COLUMNS`, ``alpha``), sorted: the group columns, ``alpha``,
        ``load`` (actual), ``p``, ``n`` (instances), ``stored`` (instances with
        ``recalled_all``), ``fraction`` (= stored / n), ``ci_low``, ``ci_high`` (95 % Wilson
        score interval of the fraction, :func:`scipy.stats.binomtest`), ``accuracy`` (mean
        fraction recalled) and ``accuracy_sem`` (its standard error over instances; NaN for the
        LP and for n = 1).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty table with the columns of :func:`capacity_sweep`, has
        missing values in them, or repeats an instance.
    """
    table = _check_table(table)
    keys = [*GROUP_COLUMNS, "alpha"]
    out = (
        table.groupby(keys, sort=True)
        .agg(
            load=("load", "first"),
            p=("p", "first"),
            n=("recalled_all", "size"),
            stored=("recalled_all", "sum"),
            accuracy=("accuracy", "mean"),
            accuracy_sem=("accuracy", "sem"),
        )
        .reset_index()
    )
    out["stored"] = out["stored"].astype(int)
    out["fraction"] = out["stored"] / out["n"]
    cis = [binomtest(int(k), int(n)).proportion_ci(0.95, "wilson") for k, n in
           zip(out["stored"], out["n"], strict=True)]  # fmt: skip
    out["ci_low"] = [c.low for c in cis]
    out["ci_high"] = [c.high for c in cis]
    cols = [*keys, "load", "p", "n", "stored", "fraction", "ci_low", "ci_high", "accuracy",
            "accuracy_sem"]  # fmt: skip
    return out[cols]


@dataclass(frozen=True)
class Transition:
    """Estimated transition of one sweep (:func:`transition_load`, :func:`accuracy_crossing`).

    For :func:`accuracy_crossing` read "fraction stored" below as "mean accuracy" and the
    posterior draws as bootstrap resamples.

    Attributes
    ----------
    alpha : float
        Load where the fraction stored first drops through 1/2 (NaN: no crossing in range).
    stderr : float
        Standard deviation of the crossing over the posterior draws that cross 1/2 in the grid
        (NaN when ``alpha`` is NaN).
    ci_low, ci_high : float
        2.5 % and 97.5 % quantiles of the crossing over those draws (a 95 % interval; NaN when
        ``alpha`` is NaN).
    n : int
        Smallest number of instances at a load of the sweep.
    draws_crossing : float
        Fraction of draws whose success curve crosses 1/2 inside the grid; well below 1 means
        the grid barely brackets the transition and the interval is conditional on it.
    """

    alpha: float
    stderr: float
    ci_low: float
    ci_high: float
    n: int
    draws_crossing: float


def transition_load(table: pd.DataFrame, *, n_draws: int = 1000, seed: int = 0) -> Transition:
    """Load at which the fraction of perfectly stored instances crosses 1/2, with its uncertainty.

    The estimate is the first downward crossing of 1/2 by the fraction stored, linearly
    interpolated in the actual load ``p log p / d^2``. Its uncertainty is a parametric bootstrap
    over instances: the success probability at each load is redrawn from its Jeffreys posterior
    ``Beta(k + 1/2, n - k + 1/2)`` (``k`` of ``n`` instances stored), which keeps a finite spread
    where the observed fractions are exactly 0 or 1, and the crossing is recomputed per draw.

    Parameters
    ----------
    table : pandas.DataFrame
        One group (one value of each of :data:`GROUP_COLUMNS`) of a :func:`capacity_sweep` table.
    n_draws : int
        Posterior draws, >= 10.
    seed : int
        Seed of the draws.

    Returns
    -------
    Transition

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a sweep table, mixes groups, or ``n_draws < 10``.
    """
    curve = success_by_load(table)
    groups = curve[GROUP_COLUMNS].drop_duplicates()
    if len(groups) != 1:
        raise ValueError(
            f"table mixes {len(groups)} groups of {GROUP_COLUMNS}; pass one (see transition_loads)"
        )
    n_draws = check_int("n_draws", n_draws, 10)
    load = curve["load"].to_numpy(float)
    alpha = first_crossing(load, curve["fraction"].to_numpy(float))
    k, n = curve["stored"].to_numpy(float), curve["n"].to_numpy(float)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    draws = rng.beta(k + 0.5, n - k + 0.5, size=(n_draws, k.size))
    boot = np.array([first_crossing(load, f) for f in draws])
    ok = boot[np.isfinite(boot)]
    if math.isnan(alpha) or ok.size < 2:  # no crossing measured: no error to attach to it
        return Transition(alpha, math.nan, math.nan, math.nan, int(n.min()), ok.size / n_draws)
    lo, hi = np.quantile(ok, [0.025, 0.975])
    err = float(ok.std(ddof=1))
    return Transition(alpha, err, float(lo), float(hi), int(n.min()), ok.size / n_draws)


def transition_loads(table: pd.DataFrame, *, n_draws: int = 1000, seed: int = 0) -> pd.DataFrame:
    """:func:`transition_load` for every group of a table.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`capacity_sweep` output, any number of groups.
    n_draws, seed
        As in :func:`transition_load` (the same seed for every group).

    Returns
    -------
    pandas.DataFrame
        One row per group: :data:`GROUP_COLUMNS`, ``kappa``, then ``alpha_c``, ``stderr``,
        ``ci_low``, ``ci_high``, ``n`` (instances per load) and ``draws_crossing``.

    Raises
    ------
    TypeError, ValueError
        As :func:`transition_load`.
    """
    table = _check_table(table)
    rows = []
    for key, g in table.groupby(GROUP_COLUMNS, sort=False):
        t = transition_load(g, n_draws=n_draws, seed=seed)
        rows.append(dict(zip(GROUP_COLUMNS, key, strict=True)) | {
            "kappa": float(g["kappa"].iloc[0]), "alpha_c": t.alpha, "stderr": t.stderr,
            "ci_low": t.ci_low, "ci_high": t.ci_high, "n": t.n,
            "draws_crossing": t.draws_crossing})  # fmt: skip
    return pd.DataFrame(rows)


def accuracy_crossing(
    table: pd.DataFrame, level: float = 0.5, *, n_boot: int = 2000, seed: int = 0
) -> Transition:
    """Load at which the mean accuracy (criterion "typical") first drops below ``level``.

    The estimate is the linear interpolation (:func:`assocmem.stats.first_crossing`) of the
    mean fraction recalled per load; its interval is a percentile bootstrap over instances:
    the seeds are resampled with replacement, each seed keeping its instances at every load
    (as :func:`assocmem.stats.bootstrap_interval`), and the crossing recomputed.

    Parameters
    ----------
    table : pandas.DataFrame
        One group of a :func:`capacity_sweep` table with accuracies (training or Hebbian, not
        the LP), the same seeds at every load.
    level : float
        Accuracy level, in (0, 1).
    n_boot : int
        Bootstrap resamples (>= 100).
    seed : int
        Seed of the resampling.

    Returns
    -------
    Transition
        ``alpha`` (the crossing load, NaN if the mean accuracy never drops below ``level``
        inside the grid), ``stderr`` (standard deviation of the resampled crossings),
        ``ci_low``, ``ci_high`` (95 % percentile interval), ``n`` (seeds) and ``draws_crossing``
        (fraction of resamples whose curve crosses inside the grid; the interval is over
        those).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not one group of a sweep table, holds LP rows (no accuracy), has
        different seeds at different loads, or ``level`` is outside (0, 1).

    Notes
    -----
    Criterion "typical" of chapter 3 (reconstruction for the course).
    """
    table = _check_table(table)
    if table[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
        raise ValueError("table must hold one group (one method, problem, d, rank)")
    if table["accuracy"].isna().any():
        raise ValueError(
            "table has no accuracy (the LP only decides); pass a trained or Hebbian sweep"
        )
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)):
        raise TypeError(f"level must be a real number, got {type(level).__name__}")
    if not 0 < float(level) < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    nb = check_int("n_boot", n_boot, 100)
    grid = table.pivot(index="seed", columns="load", values="accuracy")
    if grid.isna().any().any():
        raise ValueError("every load must hold the same seeds (one instance per seed and load)")
    loads = grid.columns.to_numpy(dtype=np.float64)
    acc = grid.to_numpy(dtype=np.float64)  # (seeds, loads)
    alpha = first_crossing(loads, acc.mean(axis=0), float(level))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, acc.shape[0], size=(nb, acc.shape[0]))
    draws = np.array([first_crossing(loads, acc[i].mean(axis=0), float(level)) for i in idx])
    ok = draws[np.isfinite(draws)]
    if ok.size == 0:
        return Transition(alpha, math.nan, math.nan, math.nan, acc.shape[0], 0.0)
    lo, hi = np.quantile(ok, [0.025, 0.975])
    return Transition(
        alpha, float(ok.std(ddof=1)) if ok.size > 1 else 0.0, float(lo), float(hi),
        acc.shape[0], ok.size / nb,
    )  # fmt: skip


def transition_comparison(tables: dict[str, pd.DataFrame], *, seed: int = 0) -> pd.DataFrame:
    """Measured perfect-storage transitions against the finite-size RS prediction.

    Parameters
    ----------
    tables : dict of str -> pandas.DataFrame
        Label -> one group of a :func:`capacity_sweep` table (unconstrained ``W``).
    seed : int
        Seed of the Monte Carlo prediction and of the posterior draws.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``sweep``, ``d``, ``seeds per load``, ``measured alpha_c``,
        ``measured +-`` (standard error), ``95% low`` and ``95% high`` (the 95 % interval of
        the posterior draws; :func:`transition_load`), ``p at measured`` (real ``p`` with
        ``p log p = alpha d^2``), ``predicted alpha_c``, ``predicted +-`` and ``p at predicted``
        (:func:`assocmem.linear.finite_size.predicted_transition`), ``difference`` (measured -
        predicted) and ``difference / error`` (in units of the two errors in quadrature).

    Raises
    ------
    TypeError
        If ``tables`` is not a dict of sweep tables.
    ValueError
        If it is empty, a table mixes groups, or a table is rank-constrained or Hebbian (the
        prediction is that of the optimal unconstrained memory).

    Notes
    -----
    Reconstruction: the finite-size capacity ``alpha_c(p) = log p / E[C_p]`` (digest of
    arXiv:2605.10795, §4.3); see chapter 2.
    """
    if not isinstance(tables, dict):
        raise TypeError(f"tables must be a dict label -> sweep table, got {type(tables).__name__}")
    if not tables:
        raise ValueError("tables must hold at least one sweep")
    rows = []
    for label, table in tables.items():
        t = transition_load(table, seed=seed)
        if bool((table["kappa"] < 1).any()) or bool((table["method"] == "hebbian").any()):
            raise ValueError(
                f"sweep {label!r}: the prediction is the optimal unconstrained memory's; pass "
                "trained (rank=None) or exact-LP sweeps"
            )
        d = int(table["d"].iloc[0])
        pred, p_pred, pred_err = predicted_transition(d, seed=seed)
        diff = t.alpha - pred
        rows.append({
            "sweep": label, "d": d, "seeds per load": t.n,
            "measured alpha_c": t.alpha, "measured +-": t.stderr,
            "95% low": t.ci_low, "95% high": t.ci_high,
            "p at measured": pairs_at_load(t.alpha, d) if math.isfinite(t.alpha) else math.nan,
            "predicted alpha_c": pred, "predicted +-": pred_err, "p at predicted": p_pred,
            "difference": diff, "difference / error": diff / math.hypot(t.stderr, pred_err),
        })  # fmt: skip
    return pd.DataFrame(rows)


def instance_agreement(trained: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per-instance 2x2 count of a trained sweep against the exact LP on the same instances.

    Parameters
    ----------
    trained, exact : pandas.DataFrame
        :func:`capacity_sweep` tables of one problem and one ``d`` each (``method="train"`` and
        ``method="lp"``); instances are matched on (``alpha``, ``seed``), which by the seeding
        rule are the same problems.

    Returns
    -------
    pandas.DataFrame
        2x2 counts (int): index ``LP stores`` / ``LP cannot store``, columns ``trained stored``
        / ``trained not stored``. Off-diagonal ``(LP cannot store, trained stored)`` must be 0
        (a stored W is itself a feasibility certificate); ``(LP stores, trained not stored)``
        counts instances that training missed within its budget.

    Raises
    ------
    TypeError
        If an argument is not a DataFrame.
    ValueError
        If a table is not a sweep table, the two differ in problem or ``d``, or no instance is
        shared.
    """
    a, b = _check_table(trained), _check_table(exact)
    for col in ("problem", "d"):
        if a[col].nunique() != 1 or b[col].nunique() != 1 or a[col].iloc[0] != b[col].iloc[0]:
            raise ValueError(f"both tables must hold one and the same {col!r}")
    m = a.merge(b, on=["alpha", "seed"], suffixes=("_t", "_lp"))
    if len(m) == 0:
        raise ValueError("the two tables share no (alpha, seed) instance")
    out = pd.DataFrame(0, index=["LP stores", "LP cannot store"],
                       columns=["trained stored", "trained not stored"])  # fmt: skip
    for lp_ok, t_ok in zip(m["recalled_all_lp"], m["recalled_all_t"], strict=True):
        out.iloc[0 if lp_ok else 1, 0 if t_ok else 1] += 1
    return out


def stored_spectra(table: pd.DataFrame) -> pd.DataFrame:
    """Singular values of the stored memories near each group's transition.

    For each group, the largest load at which at least half of the instances were stored
    (else the largest load with any stored instance); the top ``rank`` singular values of each
    stored ``W`` there, normalised to mean square 1 per matrix, pooled.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`capacity_sweep` output made with ``keep_weights=True``.

    Returns
    -------
    pandas.DataFrame
        One row per group: :data:`GROUP_COLUMNS`, ``kappa``, ``load`` (NaN if nothing was
        stored), ``n_memories`` and ``singular_values`` (a float64 array, empty if none).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame.
    ValueError
        If the table is not a sweep table or has no ``weights`` column.
    """
    table = _check_table(table)
    if "weights" not in table.columns:
        raise ValueError("table has no weights: run capacity_sweep(..., keep_weights=True)")
    rows = []
    for key, g in table.groupby(GROUP_COLUMNS, sort=False):
        frac = g.groupby("load")["recalled_all"].mean().sort_index()
        good = frac[frac >= 0.5]
        anyok = frac[frac > 0]
        load = good.index.max() if len(good) else (anyok.index.max() if len(anyok) else math.nan)
        s = np.zeros(0)
        sel = g[(g["load"] == load) & g["recalled_all"]]
        if len(sel):
            s = singular_values(np.stack(sel["weights"].to_list()), rank=int(key[3])).ravel()
        rows.append(dict(zip(GROUP_COLUMNS, key, strict=True)) | {
            "kappa": float(g["kappa"].iloc[0]), "load": float(load), "n_memories": len(sel),
            "singular_values": s})  # fmt: skip
    return pd.DataFrame(rows)


def mechanism_scores(
    p: int,
    d: int,
    *,
    seeds: int | Iterable[int] = 1,
    steps: int = 3000,
    lr: float = 0.05,
    decoupled: bool = False,
    device: str | torch.device | None = None,
) -> dict[str, dict[str, Any]]:
    """Score statistics of the Hebbian and of the trained memory on the same problems.

    The trained W runs the whole budget (no early stop) instead of stopping at the first perfect
    step.

    Parameters
    ----------
    p, d : int
        Problem size.
    seeds : int or iterable of int
        Problems, pooled in the returned statistics (an int n means range(n)).
    steps, lr : int, float
        Training budget and Adam step size.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to compute.

    Returns
    -------
    dict
        ``{"hebbian": stats, "trained": stats}`` with ``stats`` from :func:`score_statistics`
        (batched over seeds), plus ``stats["accuracy"]`` (mean over inputs and seeds).

    Raises
    ------
    TypeError, ValueError
        Bad sizes or seeds.

    Notes
    -----
    Observables of the digest of arXiv:2605.10795, §6 (reconstruction); see chapter 3.
    """
    batch = sample_problems(p, d, seed_list(seeds), decoupled=decoupled, device=device)
    res = train_memory(batch, steps=steps, lr=lr, early_stop=False, device=device)
    out: dict[str, dict[str, Any]] = {}
    for name, w in (("hebbian", hebbian_memory(batch)), ("trained", res.weights)):
        st = score_statistics(w, batch)
        st["accuracy"] = float(np.mean(st["gap"] > 0))
        out[name] = st
    return out
