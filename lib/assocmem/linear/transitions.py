"""Transition estimators: the load where a sweep's success curve crosses a level, with intervals.

All read :func:`assocmem.linear.sweeps.capacity_sweep` tables. :func:`transition_load` /
:func:`transition_loads` estimate the load where the fraction stored perfectly crosses 1/2 (the
one estimator of the book, with a Jeffreys-posterior bootstrap); :func:`accuracy_crossing` the
load where the mean accuracy drops below a level (criterion "typical", bootstrap over
instances); :func:`transition_comparison` sets measured transitions against the finite-size
prediction of :mod:`assocmem.linear.finite_size`. :func:`bootstrap_transitions` gives the same
crossing of 1/2 for every group of a table with a percentile bootstrap over instances (the seeds
are resampled, jointly for every load and every group), and :func:`transition_ratio` the ratio of
two such crossings with its interval (chapter 4); :func:`truncated_hebbian_transitions` both per
``d`` for the truncated Hebbian memories, :func:`ratio_comparison` a measured ratio against
predictions and :func:`crossing_range` the range of several crossings; :func:`op_dp_gaps` the
OP-minus-DP gap of paired sweeps per ``d`` and its trend with ``d``. Every estimator returns an
:class:`assocmem.stats.Estimate` (the crossing is :func:`assocmem.stats.crossing`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assocmem._validate import check_int, check_real
from assocmem.linear.finite_size import predicted_transition
from assocmem.linear.load import pairs_at_load, pairs_for_load
from assocmem.linear.spectra import critical_load, hebbian_critical_load
from assocmem.linear.sweeps import COLUMNS, GROUP_COLUMNS, capacity_sweep
from assocmem.linear.tables import check_table
from assocmem.stats import Estimate, crossing, from_draws, ratio

__all__ = [
    "transition_load",
    "transition_loads",
    "accuracy_crossing",
    "transition_comparison",
    "BootstrapTransitions",
    "bootstrap_transitions",
    "transition_ratio",
    "factored_engine_check",
    "crossing_range",
    "ratio_comparison",
    "TruncatedHebbianTransitions",
    "truncated_hebbian_transitions",
    "OpDpGaps",
    "op_dp_gaps",
]


def _outcome_grid(table: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Return one group's loads (n_loads,) and outcomes (n_seeds, n_loads), NaN: seed missing."""
    grid = table.pivot(index="seed", columns="alpha", values=column).sort_index(axis=1)
    loads = table.groupby("alpha")["load"].first().loc[grid.columns].to_numpy(float)
    return loads, grid.to_numpy(dtype=np.float64)


def transition_load(table: pd.DataFrame, *, n_draws: int = 1000, seed: int = 0) -> Estimate:
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
    seed : int
        Seed of the draws.

    Returns
    -------
    assocmem.stats.Estimate
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
            "kappa": float(g["kappa"].iloc[0]), "alpha_c": t.value, "stderr": t.stderr,
            "ci_low": t.low, "ci_high": t.high, "n": t.n,
            "draws_crossing": t.used})  # fmt: skip
    return pd.DataFrame(rows)


def accuracy_crossing(
    table: pd.DataFrame, level: float = 0.5, *, n_boot: int = 2000, seed: int = 0
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
    seed : int
        Seed of the resampling.

    Returns
    -------
    assocmem.stats.Estimate
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
        alpha = t.value
        if bool((table["kappa"] < 1).any()) or bool((table["method"] == "hebbian").any()):
            raise ValueError(
                f"sweep {label!r}: the prediction is the optimal unconstrained memory's; pass "
                "trained (rank=None) or exact-LP sweeps"
            )
        d = int(table["d"].iloc[0])
        pred, p_pred, pred_err = predicted_transition(d, seed=seed)
        diff = alpha - pred
        rows.append({
            "sweep": label, "d": d, "seeds per load": t.n,
            "measured alpha_c": alpha, "measured +-": t.stderr,
            "95% low": t.low, "95% high": t.high,
            "p at measured": pairs_at_load(alpha, d) if math.isfinite(alpha) else math.nan,
            "predicted alpha_c": pred, "predicted +-": pred_err, "p at predicted": p_pred,
            "difference": diff, "difference / error": diff / math.hypot(t.stderr, pred_err),
        })  # fmt: skip
    return pd.DataFrame(rows)


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
    estimates : tuple of assocmem.stats.Estimate
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
    table: pd.DataFrame, *, n_boot: int = 2000, level: float = 0.95, seed: int = 0
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
        :func:`assocmem.linear.sweeps.capacity_sweep` or :func:`~.sweeps.truncated_hebbian_sweep`
        output; every group must hold every one of the same seeds (at least 2) at each of its
        loads.
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
        do not share one set of seeds, fewer than 2 seeds, or ``n_boot``/``level`` is out of
        range.

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
    assocmem.stats.Estimate
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


def factored_engine_check(
    factored: pd.DataFrame,
    full: pd.DataFrame,
    *,
    steps: int,
    lr: float,
    patience: int | None = None,
) -> dict[str, int]:
    """Compare the factored engine ``W = Q R^T`` (rank d) with the unconstrained one, per instance.

    At rank ``m = d`` the two engines search the same set of matrices, so an instance stored by
    one and not by the other was missed by an optimiser, not by the model. The function pairs
    the instances of the two sweeps (same ``alpha`` and seed, hence the same problem), counts the
    disagreements, and retrains the instances that only the unconstrained engine stored with the
    factored engine at a larger budget.

    Parameters
    ----------
    factored : pandas.DataFrame
        :func:`assocmem.linear.sweeps.capacity_sweep` rows with ``rank = d`` and
        ``factored = True`` (other rows are ignored).
    full : pandas.DataFrame
        ``capacity_sweep`` rows of the unconstrained engine (``factored = False``) at the same
        ``d``, loads and seeds.
    steps, lr, patience
        Budget, Adam learning rate and stall stop of the retraining (``train_memory``).

    Returns
    -------
    dict of int
        ``pairs`` (instances in both sweeps), ``full_only`` (stored by the unconstrained engine
        only), ``factored_only`` (stored by the factored engine only), ``steps`` (the retraining
        budget) and ``reached`` (of the ``full_only`` instances, how many the factored engine
        stores with that budget).

    Raises
    ------
    ValueError
        If the sweeps share no instance or hold more than one ``d``.
    """
    fac = check_table(factored)
    fac = fac[fac["factored"].astype(bool) & (fac["rank"] == fac["d"])]
    ful = check_table(full)
    ful = ful[~ful["factored"].astype(bool)]
    ds = set(fac["d"]) | set(ful["d"])
    if len(ds) != 1:
        raise ValueError(f"the sweeps must hold one d, got {sorted(ds)}")
    d = int(ds.pop())
    m = ful.merge(fac, on=["alpha", "seed"], suffixes=("_w", "_qr"))
    if len(m) == 0:
        raise ValueError("the sweeps share no (alpha, seed) instance")
    w, qr = m["recalled_all_w"].astype(bool), m["recalled_all_qr"].astype(bool)
    todo = m[w & ~qr]
    reached = 0
    for alpha, g in todo.groupby("alpha"):
        again = capacity_sweep(d, [float(alpha)], rank=d, seeds=[int(s) for s in g["seed"]],
                               steps=steps, lr=lr, patience=patience, progress=False)  # fmt: skip
        reached += int(again["recalled_all"].sum())
    return {"pairs": len(m), "full_only": int((w & ~qr).sum()),
            "factored_only": int((qr & ~w).sum()), "steps": int(steps),
            "reached": reached}  # fmt: skip


def crossing_range(estimates: Sequence[Estimate]) -> dict[str, float | int]:
    """Range of several crossings (e.g. one per ``d``) for a sentence that quotes them together.

    Parameters
    ----------
    estimates : sequence of assocmem.stats.Estimate
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


def ratio_comparison(measured: Estimate, predictions: Mapping[str, float], *,
                     label: str = "α(1/4) / α(1)") -> pd.DataFrame:  # fmt: skip
    """Tabulate a measured ratio with its interval next to predicted values (chapter 4).

    Parameters
    ----------
    measured : assocmem.stats.Estimate
        The measured ratio (:func:`transition_ratio`).
    predictions : mapping of str -> float
        Name of each prediction -> its value.
    label : str
        Heading of the first column.

    Returns
    -------
    pandas.DataFrame
        Columns ``label`` (``"measured"``, then the prediction names) and ``value`` (the
        measured :class:`~assocmem.stats.Estimate`, which :func:`assocmem.pages.table` renders
        with its interval, then the predicted floats).

    Raises
    ------
    TypeError
        If ``measured`` is not an Estimate or ``predictions`` not a mapping.
    """
    if not isinstance(measured, Estimate):
        raise TypeError(f"measured must be an Estimate, got {type(measured).__name__}")
    if not isinstance(predictions, Mapping):
        raise TypeError(f"predictions must be a mapping, got {type(predictions).__name__}")
    return pd.DataFrame({
        label: ["measured", *predictions],
        "value": [measured, *(float(v) for v in predictions.values())],
    })  # fmt: skip


@dataclass(frozen=True)
class TruncatedHebbianTransitions:
    """Perfect-recall transitions of truncated Hebbian memories, per ``d`` and rank ratio.

    Made by :func:`truncated_hebbian_transitions` (chapter 4). Look results up by label:
    :meth:`crossing` (``d``, ``kappa``) and :meth:`ratio` (``alpha_H(kappa) / alpha_H(1)``).

    Attributes
    ----------
    boots : dict of int -> BootstrapTransitions
        One bootstrap per ``d`` (the seeds resampled jointly for every rank).
    kappas : tuple of float
        The rank ratios shown, the full rank 1.0 among them.
    """

    boots: dict[int, BootstrapTransitions]
    kappas: tuple[float, ...]

    def _boot(self, d: int) -> BootstrapTransitions:
        if d not in self.boots:
            raise ValueError(f"d must be one of {sorted(self.boots)}, got {d!r}")
        return self.boots[d]

    def crossing(self, d: int, kappa: float) -> Estimate:
        """Transition load ``alpha_H(kappa)`` at dimension ``d`` (ValueError: no such group)."""
        return self._boot(d).estimate(kappa)

    def ratio(self, d: int, kappa: float) -> Estimate:
        """``alpha_H(kappa) / alpha_H(1)`` at dimension ``d``, with its bootstrap interval."""
        return transition_ratio(self._boot(d), kappa, 1.0)

    def table(self) -> pd.DataFrame:
        """One row per (d, kappa): measured transition and ratio with intervals, and the theory.

        Columns ``d``, ``κ``, ``n per load``, ``measured α_H`` (an
        :class:`~assocmem.stats.Estimate`), ``α_c(κ)/4`` (:func:`~.spectra.hebbian_critical_load`),
        ``α_H(κ)/α_H(1)`` (an Estimate; the float 1.0 at full rank) and ``2α_c(κ)`` (the predicted
        ratio, :func:`~.spectra.critical_load`). :func:`assocmem.pages.table` renders the
        Estimates with their intervals.
        """
        rows = []
        for d in sorted(self.boots):
            for k in self.kappas:
                a = self.crossing(d, k)
                q = self.ratio(d, k) if k < 1 else None
                rows.append({
                    "d": d, "κ": k, "n per load": a.n, "measured α_H": a,
                    "α_c(κ)/4": hebbian_critical_load(k),
                    "α_H(κ)/α_H(1)": q if q else 1.0,
                    "2α_c(κ)": 2 * critical_load(k),
                })  # fmt: skip
        return pd.DataFrame(rows)

    def summary(self) -> dict[str, Estimate | float | int]:
        """Return the numbers chapter 4 quotes, by label.

        ``d_small``, ``d_big`` (smallest and largest ``d``), ``n`` (instances per load),
        ``a_full``, ``a_quarter`` (transitions at ``kappa = 1`` and ``1/4``, largest ``d``),
        ``ratio_big``, ``ratio_half`` (ratios at ``kappa = 1/4`` and ``1/2``, largest ``d``),
        ``ratio_small`` (``kappa = 1/4``, smallest ``d``), ``pred_quarter``, ``pred_half``
        (``2 alpha_c(kappa)``) and ``p_quarter`` (pairs at ``a_quarter`` for the largest ``d``).
        """
        small, big = min(self.boots), max(self.boots)
        a_quarter = self.crossing(big, 0.25)
        return {
            "d_small": small, "d_big": big, "n": a_quarter.n,
            "a_full": self.crossing(big, 1.0), "a_quarter": a_quarter,
            "ratio_big": self.ratio(big, 0.25), "ratio_half": self.ratio(big, 0.5),
            "ratio_small": self.ratio(small, 0.25),
            "pred_quarter": 2 * critical_load(0.25), "pred_half": 2 * critical_load(0.5),
            "p_quarter": pairs_for_load(a_quarter.value, big),
        }  # fmt: skip


def truncated_hebbian_transitions(
    table: pd.DataFrame,
    kappas: Sequence[float] = (0.25, 0.5, 1.0),
    *,
    n_boot: int = 2000,
    seed: int = 1,
) -> TruncatedHebbianTransitions:
    """Bootstrap the transitions of a :func:`~.sweeps.truncated_hebbian_sweep` table per ``d``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~.sweeps.truncated_hebbian_sweep` output for one or more ``d``, every ``d``
        holding the ranks ``kappa d`` for each of ``kappas``.
    kappas : sequence of float
        Rank ratios in (0, 1], including 1.0 (the reference of the ratios).
    n_boot, seed
        As in :func:`bootstrap_transitions` (one bootstrap per ``d``, the same seed).

    Returns
    -------
    TruncatedHebbianTransitions

    Raises
    ------
    ValueError
        If ``kappas`` lacks 1.0 or holds a value outside (0, 1], or as
        :func:`bootstrap_transitions`.

    Notes
    -----
    The Hebbian analogue ``alpha_H(kappa) = alpha_c(kappa) / 4`` is a reconstruction (course
    digest section 7); see chapter 4.
    """
    ks = tuple(check_real("kappas", k, low=0.0, strict=True) for k in kappas)
    if 1.0 not in ks or max(ks) > 1.0:
        raise ValueError(f"kappas must lie in (0, 1] and include 1.0, got {kappas!r}")
    check_table(table)
    boots = {int(d): bootstrap_transitions(g, n_boot=n_boot, seed=seed)
             for d, g in table.groupby("d", sort=True)}  # fmt: skip
    return TruncatedHebbianTransitions(boots, ks)


@dataclass(frozen=True)
class OpDpGaps:
    """Gap between the OP and the DP transitions per ``d``, and its trend with ``d``.

    Attributes
    ----------
    gaps : pandas.DataFrame
        One row per ``d``, sorted: ``d``, ``OP``, ``DP`` (the crossings of 1/2), ``gap`` (``OP / DP
        - 1``, or ``OP - DP`` if not relative), ``stderr`` (standard deviation of the gap over the
        bootstrap draws), ``95% low``, ``95% high`` (percentile interval), ``gap / stderr`` and
        ``n`` (instance seeds per load).
    slope : assocmem.stats.Estimate
        Slope of the weighted least-squares line ``gap = a + b x`` (``x = 1/d`` or ``log d``,
        weights ``1 / stderr^2``), with the percentile interval of the same fit over the joint
        bootstrap draws. With ``x = 1/d`` a gap that shrinks as ``d`` grows has ``b > 0``.
    intercept : assocmem.stats.Estimate
        ``a``: with ``x = 1/d`` the gap extrapolated to ``d -> inf``.
    mean : assocmem.stats.Estimate
        Inverse-variance weighted mean gap over the sizes.
    x : str
        The regressor, ``"1/d"`` or ``"log d"``.
    relative : bool
        Whether the gap is ``OP / DP - 1`` (True) or ``OP - DP``.
    """

    gaps: pd.DataFrame
    slope: Estimate
    intercept: Estimate
    mean: Estimate
    x: str = "1/d"
    relative: bool = True

    @property
    def n_positive(self) -> int:
        """Number of sizes at which the OP transition lies above the DP one."""
        return int((self.gaps["gap"] > 0).sum())


def _wls(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit ``y`` (shape (B, k)) on ``x`` (k,) by WLS: intercepts, slopes, weighted means (B,)."""
    sw = w.sum()
    xm = (w * x).sum() / sw
    ym = (y * w).sum(axis=-1) / sw
    slope = ((y - ym[..., None]) * w * (x - xm)).sum(axis=-1) / (w * (x - xm) ** 2).sum()
    return ym - slope * xm, slope, ym


def op_dp_gaps(
    tables: Mapping[str, pd.DataFrame],
    *,
    method: str = "lp",
    x: str = "1/d",
    relative: bool = True,
    weighted: bool = True,
    n_boot: int = 2000,
    seed: int = 0,
) -> OpDpGaps:
    """OP-minus-DP transition gap per ``d`` from paired sweeps, and a test of its trend with ``d``.

    For every ``d`` at which ``tables`` holds an OP and a DP sweep of ``method`` (the same seeds
    and loads), both crossings of 1/2 are bootstrapped together (:func:`bootstrap_transitions`:
    one draw of seeds for both, since the OP and DP instance of a seed share inputs and targets),
    and the gap is formed draw by draw. The sizes are independent (their own instances; seed
    ``seed + i`` for the i-th ``d``). The trend is the weighted least-squares line of the gap
    against ``x`` (weights ``1 / stderr^2``); its interval refits the line on every joint draw
    (draws in which some crossing leaves its grid are left out) and takes percentiles.

    Parameters
    ----------
    tables : mapping of str -> pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` tables (one group each, e.g. the page's sweeps by label);
        those of other methods, rank-constrained or unpaired are ignored.
    method : {"lp", "train"}
        Which sweeps to pair: the exact LP (default) or trained memories.
    x : {"1/d", "log d"}
        The regressor of the trend.
    relative : bool
        Gap ``OP / DP - 1`` (default) or ``OP - DP``.
    weighted : bool
        Weights ``1 / stderr^2`` (default) or equal weights.
    n_boot : int
        Bootstrap draws, >= 100.
    seed : int
        Seed of the resampling.

    Returns
    -------
    OpDpGaps
        Per-``d`` gaps and the slope, intercept and weighted mean as
        :class:`~assocmem.stats.Estimate` (``n`` = number of sizes; the method names the seeds
        per load that each size's bootstrap resamples).

    Raises
    ------
    TypeError
        If ``tables`` is not a mapping of DataFrames.
    ValueError
        If fewer than 2 sizes have both an OP and a DP sweep of ``method`` with crossings inside
        their grids, ``method`` or ``x`` is unknown, ``n_boot`` is out of range, or (weighted) a
        gap has no bootstrap spread.

    Notes
    -----
    The paper's claim that OP and DP share one capacity is asymptotic
    (Giorlandino, Goldt & Maillard, arXiv:2605.10795); this measures the finite-``d`` gap.
    """
    if not isinstance(tables, Mapping):
        raise TypeError(f"tables must be a mapping label -> sweep table, got {type(tables)}")
    if method not in ("lp", "train"):
        raise ValueError(f"method must be 'lp' or 'train', got {method!r}")
    if x not in ("1/d", "log d"):
        raise ValueError(f"x must be '1/d' or 'log d', got {x!r}")
    nb = check_int("n_boot", n_boot, 100)
    by_d: dict[int, dict[str, pd.DataFrame]] = {}
    for label, table in tables.items():
        t = check_table(table)
        if t[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
            raise ValueError(f"sweep {label!r} mixes groups; pass one group per label")
        if t["method"].iloc[0] != method or bool((t["kappa"] < 1).any()):
            continue
        by_d.setdefault(int(t["d"].iloc[0]), {})[str(t["problem"].iloc[0])] = t
    rows, draws = [], []
    for i, d in enumerate(sorted(by_d)):
        pair = by_d[d]
        if set(pair) != {"op", "dp"}:
            continue
        boot = bootstrap_transitions(pd.concat([pair["op"], pair["dp"]], ignore_index=True),
                                     n_boot=nb, seed=seed + i)  # fmt: skip
        prob = list(boot.summary["problem"])
        op, dp = boot.estimates[prob.index("op")], boot.estimates[prob.index("dp")]
        if not (math.isfinite(op.value) and math.isfinite(dp.value)):
            continue
        a, b = np.asarray(op.draws), np.asarray(dp.draws)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = a / b - 1.0 if relative else a - b
        value = op.value / dp.value - 1.0 if relative else op.value - dp.value
        ge = from_draws(value, g, op.n, f"percentile bootstrap over {op.n} seeds")
        err = float(ge.stderr)
        z = value / err if err > 0 else math.nan
        rows.append({"d": d, "OP": op.value, "DP": dp.value, "gap": value, "stderr": err,
                     "95% low": ge.low, "95% high": ge.high, "gap / stderr": z,
                     "n": op.n})  # fmt: skip
        draws.append(g)
    if len(rows) < 2:
        raise ValueError(
            f"need OP and DP sweeps of method {method!r} crossing 1/2 at >= 2 sizes, got "
            f"{len(rows)}"
        )
    gaps = pd.DataFrame(rows)
    d_arr = gaps["d"].to_numpy(float)
    xs = 1.0 / d_arr if x == "1/d" else np.log(d_arr)
    errs = gaps["stderr"].to_numpy(float)
    if weighted and not np.all(errs > 1e-12):  # zero up to rounding
        raise ValueError("a gap has no bootstrap spread (stderr 0): pass weighted=False")
    w = 1.0 / errs**2 if weighted else np.ones_like(errs)
    y = gaps["gap"].to_numpy(float)
    a0, b0, m0 = (float(v[0]) for v in _wls(xs, y[None, :], w))
    joint = np.stack(draws, axis=1)  # (n_boot, k); sizes resampled independently
    joint = joint[np.all(np.isfinite(joint), axis=1)]
    a_b, b_b, m_b = _wls(xs, joint, w)
    n_seeds = int(gaps["n"].min())
    unit = f"WLS over {len(rows)} sizes, percentile bootstrap over {n_seeds} seeds each"

    def est(v: float, bs: np.ndarray) -> Estimate:
        return from_draws(v, bs, len(rows), unit, n_total=nb)

    return OpDpGaps(gaps, est(b0, b_b), est(a0, a_b), est(m0, m_b), x, bool(relative))
