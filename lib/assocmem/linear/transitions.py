"""Transition estimators: the load where a sweep's success curve crosses a level, with intervals.

All read :func:`assocmem.linear.sweeps.capacity_sweep` tables. :func:`transition_load` /
:func:`transition_loads` estimate the load where the fraction stored perfectly crosses 1/2 (the
one estimator of the book, with a Jeffreys-posterior bootstrap); :func:`accuracy_crossing` the
load where the mean accuracy drops below a level (criterion "typical", bootstrap over
instances); :func:`transition_comparison` sets measured transitions against the finite-size
prediction of :mod:`assocmem.linear.finite_size`. :func:`bootstrap_transitions` gives the same
crossing of 1/2 for every group of a table with a percentile bootstrap over instances (the seeds
are resampled, jointly for every load and every group), and :func:`transition_ratio` the ratio of
two such crossings with its interval (chapter 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assocmem._validate import check_int, check_real
from assocmem.linear.finite_size import predicted_transition
from assocmem.linear.load import pairs_at_load
from assocmem.linear.sweeps import COLUMNS, GROUP_COLUMNS
from assocmem.linear.tables import check_table, success_by_load
from assocmem.stats import first_crossing

__all__ = [
    "Transition",
    "transition_load",
    "transition_loads",
    "accuracy_crossing",
    "transition_comparison",
    "BootstrapTransitions",
    "bootstrap_transitions",
    "RatioEstimate",
    "transition_ratio",
]


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
        One group (one value of each of :data:`~.sweeps.GROUP_COLUMNS`) of a
        :func:`~.sweeps.capacity_sweep` table.
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
        :func:`~.sweeps.capacity_sweep` output, any number of groups.
    n_draws, seed
        As in :func:`transition_load` (the same seed for every group).

    Returns
    -------
    pandas.DataFrame
        One row per group: :data:`~.sweeps.GROUP_COLUMNS`, ``kappa``, then ``alpha_c``, ``stderr``,
        ``ci_low``, ``ci_high``, ``n`` (instances per load) and ``draws_crossing``.

    Raises
    ------
    TypeError, ValueError
        As :func:`transition_load`.
    """
    table = check_table(table)
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
        One group of a :func:`~.sweeps.capacity_sweep` table with accuracies (training or
        Hebbian, not the LP), the same seeds at every load.
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
    table = check_table(table)
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
        Label -> one group of a :func:`~.sweeps.capacity_sweep` table (unconstrained ``W``).
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


def _crossings_down(load: np.ndarray, frac: np.ndarray, level: float = 0.5) -> np.ndarray:
    """First downward crossing of ``level`` along axis 0 of ``frac`` (n_loads, n), interpolated.

    Vectorised :func:`assocmem.stats.first_crossing` (NaN where no pair straddles the level).
    """
    y0, y1 = frac[:-1], frac[1:]
    hit = (y0 >= level) & (y1 < level)
    first = np.argmax(hit, axis=0)
    any_hit = hit.any(axis=0)
    cols = np.arange(frac.shape[1])
    a0, a1 = y0[first, cols], y1[first, cols]
    x0, x1 = load[first], load[first + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        x = x0 + (a0 - level) / (a0 - a1) * (x1 - x0)
    return np.where(any_hit, x, np.nan)


@dataclass(frozen=True)
class BootstrapTransitions:
    """Crossings of 1/2 of every group of a sweep table, with bootstrap draws over instances.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per group: :data:`assocmem.linear.sweeps.GROUP_COLUMNS`, ``kappa``, ``alpha_c``
        (the crossing of the data), ``ci_low``, ``ci_high`` (percentile interval over the draws
        that cross inside the grid), ``n`` (instances per load), ``n_loads`` and
        ``draws_crossing`` (fraction of draws that cross inside the grid).
    draws : numpy.ndarray, float64, shape (n_boot, n_groups)
        The crossing in each bootstrap draw (NaN: no crossing in the grid), column ``j`` for
        row ``j`` of ``summary``; the same resampled seeds for every group.
    level : float
        Coverage of the intervals.
    """

    summary: pd.DataFrame
    draws: np.ndarray
    level: float = 0.95
    seeds: tuple[int, ...] = field(default=())


def bootstrap_transitions(
    table: pd.DataFrame, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> BootstrapTransitions:
    """Crossing of 1/2 by the fraction stored, with a percentile bootstrap over instances.

    The crossing is the first downward crossing of 1/2, linearly interpolated in the actual load
    (the estimator of :func:`assocmem.linear.transitions.transition_load`). Each bootstrap draw
    resamples the seeds with replacement, one draw of seeds for all loads and all groups at once
    (instances with the same seed share their inputs across loads, and groups of one table may
    share instances), and recomputes every crossing.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.sweeps.capacity_sweep` or :func:`~.sweeps.truncated_hebbian_sweep`
        output; every group must hold every one of the same seeds at each of its loads.
    n_boot : int
        Bootstrap draws, >= 100.
    level : float
        Coverage of the percentile intervals, in (0, 1).
    seed : int
        Seed of the resampling.

    Returns
    -------
    BootstrapTransitions

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame.
    ValueError
        If a column is missing, a group lacks a (load, seed) instance or repeats one, the groups
        do not share one set of seeds, or ``n_boot``/``level`` is out of range.

    Notes
    -----
    Efron & Tibshirani (1993), percentile interval; resampling unit: the instance seed.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing or len(table) == 0:
        raise ValueError(f"table must be a non-empty sweep table (missing {missing})")
    nb = check_int("n_boot", n_boot, 100)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    seeds = tuple(sorted(int(s) for s in table["seed"].unique()))
    n = len(seeds)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    idx = rng.integers(0, n, size=(nb, n))
    rows, cols = [], []
    for key, g in table.groupby(GROUP_COLUMNS, sort=True):
        if g.duplicated(["alpha", "seed"]).any():
            raise ValueError(f"group {key} repeats an (alpha, seed) instance")
        ok = g.pivot(index="alpha", columns="seed", values="recalled_all")
        if tuple(int(s) for s in ok.columns) != seeds or ok.isna().any().any():
            raise ValueError(f"group {key} must hold every seed {seeds} at each of its loads")
        loads = g.groupby("alpha")["load"].first().loc[ok.index].to_numpy(float)
        order = np.argsort(loads)
        loads = loads[order]
        okm = ok.to_numpy(dtype=float)[order]  # (n_loads, n)
        est = first_crossing(loads, okm.mean(axis=1))
        boot = _crossings_down(loads, okm[:, idx].mean(axis=2))  # (nb,)
        fin = boot[np.isfinite(boot)]
        lo, hi = (np.quantile(fin, [0.5 - lv / 2, 0.5 + lv / 2]) if fin.size >= 2
                  else (math.nan, math.nan))  # fmt: skip
        rows.append(dict(zip(GROUP_COLUMNS, key, strict=True)) | {
            "kappa": float(g["kappa"].iloc[0]), "alpha_c": est, "ci_low": float(lo),
            "ci_high": float(hi), "n": n, "n_loads": len(loads),
            "draws_crossing": fin.size / nb})  # fmt: skip
        cols.append(boot)
    return BootstrapTransitions(pd.DataFrame(rows), np.stack(cols, axis=1), lv, seeds)


@dataclass(frozen=True)
class RatioEstimate:
    """Ratio of two crossings with its bootstrap interval (:func:`transition_ratio`).

    Attributes
    ----------
    ratio : float
        Ratio of the two crossings of the data.
    ci_low, ci_high : float
        Percentile interval of the ratio over the draws in which both cross inside the grid.
    draws_used : float
        Fraction of the draws in which both cross.
    """

    ratio: float
    ci_low: float
    ci_high: float
    draws_used: float


def _group_index(boot: BootstrapTransitions, kappa: float, method: str | None) -> int:
    s = boot.summary
    sel = np.isclose(s["kappa"].to_numpy(float), kappa, rtol=1e-9, atol=0.0)
    if method is not None:
        sel &= (s["method"] == method).to_numpy()
    hits = np.flatnonzero(sel)
    if hits.size != 1:
        raise ValueError(f"{hits.size} groups have kappa = {kappa} (method {method}); need one")
    return int(hits[0])


def transition_ratio(
    boot: BootstrapTransitions,
    numerator: float,
    denominator: float,
    *,
    method: str | None = None,
) -> RatioEstimate:
    """Ratio ``alpha(kappa_1) / alpha(kappa_2)`` of two crossings, with its bootstrap interval.

    Parameters
    ----------
    boot : BootstrapTransitions
        Output of :func:`bootstrap_transitions` holding both groups (the same resampled seeds
        for both, so correlations between them are kept).
    numerator, denominator : float
        The rank ratios ``kappa`` of the two groups.
    method : str, optional
        Select groups of this method when the table holds several.

    Returns
    -------
    RatioEstimate

    Raises
    ------
    ValueError
        If a ``kappa`` does not select exactly one group, or a crossing is missing.
    """
    i = _group_index(boot, float(numerator), method)
    j = _group_index(boot, float(denominator), method)
    a, b = boot.summary["alpha_c"].iloc[i], boot.summary["alpha_c"].iloc[j]
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError("both groups must cross 1/2 inside their load grids")
    r = boot.draws[:, i] / boot.draws[:, j]
    fin = r[np.isfinite(r)]
    lv = boot.level
    lo, hi = (np.quantile(fin, [0.5 - lv / 2, 0.5 + lv / 2]) if fin.size >= 2
              else (math.nan, math.nan))  # fmt: skip
    return RatioEstimate(float(a / b), float(lo), float(hi), fin.size / r.size)
