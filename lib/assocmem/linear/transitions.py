"""Transition estimators: the load where a sweep's success curve crosses a level, with intervals.

All read :func:`assocmem.linear.sweeps.capacity_sweep` tables. :func:`transition_load` /
:func:`transition_loads` estimate the load where the fraction stored perfectly crosses 1/2 (the
one estimator of the book, with a Jeffreys-posterior bootstrap); :func:`accuracy_crossing` the
load where the mean accuracy drops below a level (criterion "typical", bootstrap over
instances); :func:`transition_comparison` sets measured transitions against the finite-size
prediction of :mod:`assocmem.linear.finite_size`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assocmem._validate import check_int
from assocmem.linear.finite_size import predicted_transition
from assocmem.linear.load import pairs_at_load
from assocmem.linear.sweeps import GROUP_COLUMNS
from assocmem.linear.tables import check_table, success_by_load
from assocmem.stats import first_crossing

__all__ = [
    "Transition",
    "transition_load",
    "transition_loads",
    "accuracy_crossing",
    "transition_comparison",
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
