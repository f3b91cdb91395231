"""Transition estimators: the load where a sweep's success curve crosses a level, with intervals.

All read :func:`assocmem.linear.measure.sweeps.capacity_sweep` tables. :func:`transition_load` /
:func:`transition_loads` estimate the load where the fraction stored perfectly crosses 1/2 (the
one estimator of the book, with a Jeffreys-posterior bootstrap); :func:`accuracy_crossing` the
load where the mean accuracy drops below a level (criterion "typical", bootstrap over
instances). :func:`bootstrap_transitions` gives the same crossing of 1/2 for every group of a
table with a percentile bootstrap over instances (the seeds are resampled, jointly for every load
and every group), and :func:`transition_ratio` the ratio of two such crossings with its interval;
:func:`crossing_range` the range of several crossings. Every estimator returns an
:class:`assocmem.estimate.Estimate` (the crossing is :func:`assocmem.stats.crossing`). They read
``recalled_all``: an instance the exact LP left *undecided at tolerance* counts as not stored, in
the numerator's complement and in the denominator (:func:`~.sweeps.capacity_sweep` says why;
the ``undecided`` column and :func:`~.tables.success_by_load` count such instances). Their uses
are elsewhere: against the theory in :mod:`.capacity_comparison` (chapter 2) and
:mod:`.rank_transitions` (chapter 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assocmem._validate import check_int, check_real
from assocmem.estimate import Estimate
from assocmem.linear.measure.sweeps import COLUMNS, GROUP_COLUMNS
from assocmem.linear.measure.tables import check_table
from assocmem.stats import crossing, ratio
from assocmem.streams import Seed

__all__ = [
    "transition_load",
    "transition_loads",
    "accuracy_crossing",
    "BootstrapTransitions",
    "bootstrap_transitions",
    "transition_ratio",
    "crossing_range",
]


def _outcome_grid(table: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Return one group's loads (n_loads,) and outcomes (n_seeds, n_loads), NaN: seed missing."""
    grid = table.pivot(index="seed", columns="alpha", values=column).sort_index(axis=1)
    loads = table.groupby("alpha")["load"].first().loc[grid.columns].to_numpy(float)
    return loads, grid.to_numpy(dtype=np.float64)


def transition_load(table: pd.DataFrame, *, n_draws: int = 1000, seed: Seed = 0) -> Estimate:
    """Load at which the fraction of perfectly stored instances crosses 1/2, with its uncertainty.

    The estimate is the first downward crossing of 1/2 by the fraction stored, linearly
    interpolated in the actual load ``p log p / d^2`` (:func:`assocmem.stats.crossing`). Its
    uncertainty is a parametric bootstrap over instances: the success probability at each load is
    redrawn from its Jeffreys posterior ``Beta(k + 1/2, n - k + 1/2)`` (``k`` of ``n`` instances
    stored), which keeps a finite spread where the observed fractions are exactly 0 or 1, and the
    crossing is recomputed per draw.

    Parameters
    ----------
    table : pandas.DataFrame
        One group (one value of each of :data:`~.sweeps.GROUP_COLUMNS`) of a
        :func:`~.sweeps.capacity_sweep` table, at least 2 loads and 2 seeds.
    n_draws : int
        Posterior draws, >= 10.
    seed : int or numpy.random.SeedSequence
        Seed of the draws.

    Returns
    -------
    assocmem.estimate.Estimate
        ``value`` (the crossing load; NaN: no crossing inside the grid), the 95 % interval of
        the draws that cross inside the grid (``used``: their fraction; well below 1 means the
        grid barely brackets the transition), ``stderr`` (their standard deviation), ``n``
        (smallest number of instances at a load), ``method = "Jeffreys posterior"``.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a sweep table, mixes groups, or ``n_draws < 10``.
    """
    table = check_table(table)
    groups = table[GROUP_COLUMNS].drop_duplicates()
    if len(groups) != 1:
        raise ValueError(
            f"table mixes {len(groups)} groups of {GROUP_COLUMNS}; pass one (see transition_loads)"
        )
    loads, ok = _outcome_grid(table, "recalled_all")
    return crossing(loads, ok, 0.5, interval="jeffreys", n_boot=check_int("n_draws", n_draws, 10),
                    seed=seed)  # fmt: skip


def transition_loads(table: pd.DataFrame, *, n_draws: int = 1000, seed: Seed = 0) -> pd.DataFrame:
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
            "kappa": float(g["kappa"].iloc[0]), "alpha_c": t.value, "stderr": t.stderr,
            "ci_low": t.low, "ci_high": t.high, "n": t.n,
            "draws_crossing": t.used})  # fmt: skip
    return pd.DataFrame(rows)


def accuracy_crossing(
    table: pd.DataFrame, level: float = 0.5, *, n_boot: int = 2000, seed: Seed = 0
) -> Estimate:
    """Load at which the mean accuracy (criterion "typical") first drops below ``level``.

    The estimate is the linear interpolation of the mean fraction recalled per load; its interval
    is a percentile bootstrap over instances: the seeds are resampled with replacement, each seed
    keeping its instances at every load, and the crossing recomputed
    (:func:`assocmem.stats.crossing`).

    Parameters
    ----------
    table : pandas.DataFrame
        One group of a :func:`~.sweeps.capacity_sweep` table with accuracies (training or
        Hebbian, not the LP), the same seeds at every load.
    level : float
        Accuracy level, in (0, 1).
    n_boot : int
        Bootstrap resamples (>= 100).
    seed : int or numpy.random.SeedSequence
        Seed of the resampling.

    Returns
    -------
    assocmem.estimate.Estimate
        ``value`` (the crossing load, NaN if the mean accuracy never drops below ``level``
        inside the grid), ``stderr`` (standard deviation of the resampled crossings), ``low``,
        ``high`` (95 % percentile interval), ``n`` (seeds) and ``used`` (fraction of resamples
        whose curve crosses inside the grid; the interval is over those).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not one group of a sweep table, holds LP rows (no accuracy), has
        different seeds at different loads, fewer than 2 seeds, or ``level`` is outside (0, 1).

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
    loads, acc = _outcome_grid(table, "accuracy")
    if np.isnan(acc).any():
        raise ValueError("every load must hold the same seeds (one instance per seed and load)")
    return crossing(loads, acc, float(level), n_boot=nb, unit="seeds", seed=seed)


@dataclass(frozen=True)
class BootstrapTransitions:
    """Crossings of 1/2 of every group of a sweep table, with bootstrap draws over instances.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per group: :data:`assocmem.linear.measure.sweeps.GROUP_COLUMNS`, ``kappa``,
        ``alpha_c`` (the crossing of the data), ``ci_low``, ``ci_high`` (percentile interval over
        the draws that cross inside the grid), ``n`` (instances per load), ``n_loads`` and
        ``draws_crossing`` (fraction of draws that cross inside the grid).
    estimates : tuple of assocmem.estimate.Estimate
        The same crossings as estimates, one per row of ``summary`` (with their draws: the same
        resampled seeds for every group); look one up by its rank ratio with :meth:`estimate`.
    level : float
        Coverage of the intervals.
    seeds : tuple of int
        The seeds (resampling units) shared by every group.
    """

    summary: pd.DataFrame
    estimates: tuple[Estimate, ...]
    level: float = 0.95
    seeds: tuple[int, ...] = field(default=())

    @property
    def draws(self) -> np.ndarray:
        """float64 array (n_boot, n_groups): the crossing in each draw (NaN: none in the grid)."""
        return np.stack([np.asarray(e.draws) for e in self.estimates], axis=1)

    def estimate(self, kappa: float, method: str | None = None) -> Estimate:
        """Return the crossing of the group with rank ratio ``kappa`` (and ``method``, if given).

        Raises
        ------
        ValueError
            If ``kappa`` (with ``method``) does not select exactly one group.
        """
        s = self.summary
        sel = np.isclose(s["kappa"].to_numpy(float), float(kappa), rtol=1e-9, atol=0.0)
        if method is not None:
            sel &= (s["method"] == method).to_numpy()
        hits = np.flatnonzero(sel)
        if hits.size != 1:
            raise ValueError(f"{hits.size} groups have kappa = {kappa} (method {method}); need one")
        return self.estimates[int(hits[0])]

    def exceed_fraction(self, kappa_a: float, kappa_b: float) -> float:
        """Return how often (fraction of joint draws) ``alpha(kappa_a)`` exceeds ``alpha(kappa_b)``.

        Both crossings are recomputed on the same resampled seeds in each draw; draws in which
        either has no crossing inside its grid are left out. For ``kappa_a < kappa_b`` the true
        capacities obey ``alpha(kappa_a) <= alpha(kappa_b)`` (rank ``kappa_a d`` matrices are a
        subset of rank ``kappa_b d`` ones), so this is how often the data violate that order.

        Raises
        ------
        ValueError
            As :meth:`estimate`, or if no draw has both crossings.
        """
        a = np.asarray(self.estimate(kappa_a).draws, dtype=float)
        b = np.asarray(self.estimate(kappa_b).draws, dtype=float)
        both = np.isfinite(a) & np.isfinite(b)
        if not both.any():
            raise ValueError("no draw has both crossings inside the grid")
        return float(np.mean(a[both] > b[both]))


def bootstrap_transitions(
    table: pd.DataFrame, *, n_boot: int = 2000, level: float = 0.95, seed: Seed = 0
) -> BootstrapTransitions:
    """Crossing of 1/2 by the fraction stored, with a percentile bootstrap over instances.

    The crossing is the first downward crossing of 1/2, linearly interpolated in the actual load
    (:func:`assocmem.stats.crossing`, the estimate of :func:`transition_load`). Each bootstrap
    draw resamples the seeds with replacement, one draw of seeds for all loads and all groups at
    once (instances with the same seed share their inputs across loads, and groups of one table
    may share instances), and recomputes every crossing.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`assocmem.linear.measure.sweeps.capacity_sweep` or
        :func:`~.sweeps.truncated_hebbian_sweep` output; every group must hold every one of the same
        seeds (at least 2) at each of its loads.
    n_boot : int
        Bootstrap draws, >= 100.
    level : float
        Coverage of the percentile intervals, in (0, 1).
    seed : int or numpy.random.SeedSequence
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
        do not share one set of seeds, fewer than 2 seeds, or ``n_boot``/``level`` is out of
        range.

    Notes
    -----
    Efron & Tibshirani (1993), percentile interval; resampling unit: the instance seed.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    missing = [c for c in COLUMNS if c not in table.columns and c != "undecided"]
    if missing or len(table) == 0:
        raise ValueError(f"table must be a non-empty sweep table (missing {missing})")
    nb = check_int("n_boot", n_boot, 100)
    lv = check_real("level", level, low=0.0, strict=True)
    if lv >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    seeds = tuple(sorted(int(s) for s in table["seed"].unique()))
    rows, estimates = [], []
    for key, g in table.groupby(GROUP_COLUMNS, sort=True):
        if g.duplicated(["alpha", "seed"]).any():
            raise ValueError(f"group {key} repeats an (alpha, seed) instance")
        loads, ok = _outcome_grid(g, "recalled_all")
        if ok.shape[0] != len(seeds) or np.isnan(ok).any():
            raise ValueError(f"group {key} must hold every seed {seeds} at each of its loads")
        e = crossing(loads, ok, 0.5, n_boot=nb, ci=lv, unit="seeds", seed=seed)
        rows.append(dict(zip(GROUP_COLUMNS, key, strict=True)) | {
            "kappa": float(g["kappa"].iloc[0]), "alpha_c": e.value, "ci_low": e.low,
            "ci_high": e.high, "n": e.n, "n_loads": len(loads),
            "draws_crossing": e.used})  # fmt: skip
        estimates.append(e)
    return BootstrapTransitions(pd.DataFrame(rows), tuple(estimates), lv, seeds)


def transition_ratio(
    boot: BootstrapTransitions,
    numerator: float,
    denominator: float,
    *,
    method: str | None = None,
) -> Estimate:
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
    assocmem.estimate.Estimate
        :func:`assocmem.stats.ratio` of the two crossings: ``value``, the percentile interval
        over the draws in which both cross (``used``: their fraction), ``n`` seeds.

    Raises
    ------
    ValueError
        If a ``kappa`` does not select exactly one group, or a crossing is missing.
    """
    a = boot.estimate(numerator, method)
    b = boot.estimate(denominator, method)
    if not (math.isfinite(a.value) and math.isfinite(b.value)):
        raise ValueError("both groups must cross 1/2 inside their load grids")
    return ratio(a, b)


def crossing_range(estimates: Sequence[Estimate]) -> dict[str, float | int]:
    """Range of several crossings (e.g. one per ``d``) for a sentence that quotes them together.

    Parameters
    ----------
    estimates : sequence of assocmem.estimate.Estimate
        The crossings, at least one (e.g. :func:`transition_load` or :func:`accuracy_crossing`
        of each sweep).

    Returns
    -------
    dict
        ``lo`` and ``hi`` (smallest and largest value), ``ci_lo`` and ``ci_hi`` (smallest lower
        and largest upper end of the intervals: every interval lies inside) and ``n`` (the
        smallest number of units); NaN ends are ignored.

    Raises
    ------
    TypeError
        If an entry is not an Estimate.
    ValueError
        If ``estimates`` is empty.
    """
    est = list(estimates)
    if not est:
        raise ValueError("estimates must hold at least one Estimate")
    for e in est:
        if not isinstance(e, Estimate):
            raise TypeError(f"estimates must be Estimates, got {type(e).__name__}")
    return {"lo": float(np.nanmin([e.value for e in est])),
            "hi": float(np.nanmax([e.value for e in est])),
            "ci_lo": float(np.nanmin([e.low for e in est])),
            "ci_hi": float(np.nanmax([e.high for e in est])),
            "n": int(min(e.n for e in est))}  # fmt: skip
