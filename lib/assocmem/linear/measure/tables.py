"""Reading capacity-sweep tables: validation, fraction stored per load, instance agreement.

The tables are those of :func:`assocmem.linear.measure.sweeps.capacity_sweep` (one row per instance,
the columns :data:`assocmem.linear.measure.sweeps.COLUMNS`, one experiment per value of
:data:`assocmem.linear.measure.sweeps.GROUP_COLUMNS`). :func:`check_table` checks one;
:func:`success_by_load` gives the fraction stored at each load with its Wilson interval;
:func:`instance_agreement` counts, instance by instance, where training and the exact LP agree,
:func:`paired_instances` lists those instances with their loads and :func:`miss_rates` gives the
rate at which training misses an instance the LP can store, by load relative to a transition;
:func:`factored_engine_check` pairs the instances of the factored engine ``W = Q R^T`` at full
rank with the unconstrained engine's and retrains those only the latter stored (chapter 4).
The load where the fraction crosses 1/2 is estimated in :mod:`assocmem.linear.measure.transitions`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from assocmem._validate import check_frame
from assocmem.estimate import Estimate
from assocmem.linear.measure.sweeps import COLUMNS, GROUP_COLUMNS, capacity_sweep
from assocmem.stats import rate, wilson_interval
from assocmem.streams import Seed

__all__ = ["check_table", "success_by_load", "instance_agreement", "paired_instances", "miss_rates"]


def check_table(table: object) -> pd.DataFrame:
    """Check that ``table`` is a non-empty DataFrame with the columns of a sweep table.

    The columns are those of :func:`~.sweeps.capacity_sweep` (:data:`~.sweeps.COLUMNS`);
    ``undecided`` may be missing (a table written before the LP's third answer, or by hand), and
    is then added as all False.
    """
    required = [c for c in COLUMNS if c != "undecided"]
    frame = check_frame("table", table, required, "capacity_sweep's output")
    if "undecided" not in frame.columns:
        frame = frame.assign(undecided=False)
    for c in [*GROUP_COLUMNS, "alpha", "load", "p", "seed", "recalled_all"]:
        if frame[c].isna().any():
            raise ValueError(f"table column {c!r} has missing values")
    dup = frame.duplicated([*GROUP_COLUMNS, "alpha", "seed"])
    if dup.any():
        raise ValueError(
            f"table repeats {int(dup.sum())} (experiment, alpha, seed) rows: the same instance "
            "would count twice (concatenated the same sweep twice?)"
        )
    return frame


def success_by_load(table: pd.DataFrame) -> pd.DataFrame:
    """Fraction of instances stored perfectly at each load, with its 95 % Wilson interval.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`~.sweeps.capacity_sweep` (or several concatenated), any number of groups.

    Returns
    -------
    pandas.DataFrame
        One row per (:data:`~.sweeps.GROUP_COLUMNS`, ``alpha``), sorted: the group columns,
        ``alpha``, ``load`` (actual), ``p``, ``n`` (instances), ``stored`` (instances with
        ``recalled_all``), ``undecided`` (instances the exact LP found undecided at tolerance:
        counted in ``n`` and not in ``stored``, see :func:`~.sweeps.capacity_sweep`; a table
        whose ``undecided`` is missing counts 0), ``fraction`` (= stored / n), ``ci_low``,
        ``ci_high`` (95 % Wilson
        score interval of the fraction, :func:`assocmem.stats.wilson_interval`), ``accuracy`` (mean
        fraction recalled) and ``accuracy_sem`` (its standard error over instances; NaN for the
        LP and for n = 1).

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a non-empty table with the columns of
        :func:`~.sweeps.capacity_sweep`, has missing values in them, or repeats an instance.
    """
    table = check_table(table)
    keys = [*GROUP_COLUMNS, "alpha"]
    out = (
        table.groupby(keys, sort=True)
        .agg(
            load=("load", "first"),
            p=("p", "first"),
            n=("recalled_all", "size"),
            stored=("recalled_all", "sum"),
            undecided=("undecided", "sum"),
            accuracy=("accuracy", "mean"),
            accuracy_sem=("accuracy", "sem"),
        )
        .reset_index()
    )
    out["stored"] = out["stored"].astype(int)
    out["undecided"] = out["undecided"].fillna(0).astype(int)
    out["fraction"] = out["stored"] / out["n"]
    out["ci_low"], out["ci_high"] = wilson_interval(out["stored"], out["n"])
    cols = [*keys, "load", "p", "n", "stored", "undecided", "fraction", "ci_low", "ci_high",
            "accuracy", "accuracy_sem"]  # fmt: skip
    return out[cols]


def instance_agreement(trained: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per-instance 2x2 count of a trained sweep against the exact LP on the same instances.

    Parameters
    ----------
    trained, exact : pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` tables of one problem and one ``d`` each
        (``method="train"`` and ``method="lp"``); instances are matched on (``alpha``,
        ``seed``), which by the seeding rule are the same problems.

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
    m = paired_instances(trained, exact)
    out = pd.DataFrame(0, index=["LP stores", "LP cannot store"],
                       columns=["trained stored", "trained not stored"])  # fmt: skip
    for lp_ok, t_ok in zip(m["lp_stored"], m["trained_stored"], strict=True):
        out.iloc[0 if lp_ok else 1, 0 if t_ok else 1] += 1
    return out


def paired_instances(trained: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """List the instances decided by both a trained sweep and the exact LP, one row each.

    Parameters
    ----------
    trained, exact : pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` tables of one problem and one ``d`` each, matched on
        (``alpha``, ``seed``) as in :func:`instance_agreement`.

    Returns
    -------
    pandas.DataFrame
        Columns ``alpha`` (nominal load), ``load`` (actual ``p log p / d^2``), ``p``, ``seed``,
        ``lp_stored`` and ``trained_stored`` (bool), sorted by load and seed. The instances that
        training missed are ``lp_stored & ~trained_stored``.

    Raises
    ------
    TypeError, ValueError
        As :func:`instance_agreement`.
    """
    a, b = check_table(trained), check_table(exact)
    for col in ("problem", "d"):
        if a[col].nunique() != 1 or b[col].nunique() != 1 or a[col].iloc[0] != b[col].iloc[0]:
            raise ValueError(f"both tables must hold one and the same {col!r}")
    m = a.merge(b, on=["alpha", "seed"], suffixes=("_t", "_lp"))
    if len(m) == 0:
        raise ValueError("the two tables share no (alpha, seed) instance")
    out = pd.DataFrame({"alpha": m["alpha"], "load": m["load_lp"], "p": m["p_lp"],
                        "seed": m["seed"], "lp_stored": m["recalled_all_lp"].astype(bool),
                        "trained_stored": m["recalled_all_t"].astype(bool)})  # fmt: skip
    return out.sort_values(["load", "seed"], ignore_index=True)


def miss_rates(pairs: pd.DataFrame, edges: Sequence[float] = (0.95, 1.05)) -> pd.DataFrame:
    """Rate at which training misses an instance the exact LP stores, in bands of relative load.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Rows of :func:`paired_instances` (one or several sweeps concatenated) with a column
        ``relative load``: each instance's load divided by the exact transition of its sweep.
    edges : sequence of float
        Increasing inner band edges (> 0); the bands are ``[0, e_1)``, ``[e_1, e_2)``, ...,
        ``[e_last, inf)``.

    Returns
    -------
    pandas.DataFrame
        One row per band: ``band`` (text), ``storable`` (instances the LP stores), ``missed``
        (of those, not stored by training), ``miss rate`` (an Estimate with its 95 % Wilson
        interval, :func:`assocmem.stats.rate`; not measured, NaN, for a band without storable
        instances), and ``relative loads of the missed`` (min-max, text).

    Raises
    ------
    TypeError
        If ``pairs`` is not a DataFrame.
    ValueError
        If a column is missing or non-finite, or ``edges`` is not increasing and positive.
    """
    if not isinstance(pairs, pd.DataFrame):
        raise TypeError(f"pairs must be a pandas.DataFrame, got {type(pairs).__name__}")
    need = ["relative load", "lp_stored", "trained_stored"]
    missing = [c for c in need if c not in pairs.columns]
    if missing:
        raise ValueError(f"pairs lacks the columns {missing} (paired_instances + relative load)")
    rel = pairs["relative load"].to_numpy(float)
    if not np.all(np.isfinite(rel)) or np.any(rel < 0):
        raise ValueError("relative load must be finite and >= 0")
    e = np.asarray(edges, dtype=float)
    if e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(e <= 0) or np.any(np.diff(e) <= 0):
        raise ValueError(f"edges must be increasing and > 0, got {edges!r}")
    bounds = [0.0, *e.tolist(), np.inf]
    lp_ok = pairs["lp_stored"].to_numpy(bool)
    missed = lp_ok & ~pairs["trained_stored"].to_numpy(bool)
    rows = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        band = (rel >= lo) & (rel < hi)
        n, k = int((band & lp_ok).sum()), int((band & missed).sum())
        r = rate(k, n) if n else Estimate(np.nan, np.nan, np.nan, 0, "Wilson")
        where = rel[band & missed]
        rows.append({
            "band": f"{lo:g} - {hi:g}" if np.isfinite(hi) else f">= {lo:g}",
            "storable": n, "missed": k, "miss rate": r,
            "relative loads of the missed": (f"{where.min():.3f} - {where.max():.3f}"
                                             if where.size else ""),
        })  # fmt: skip
    return pd.DataFrame(rows)


def factored_engine_check(
    factored: pd.DataFrame,
    full: pd.DataFrame,
    *,
    steps: int,
    lr: float,
    patience: int | None = None,
    seed: Seed = 0,
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
        :func:`assocmem.linear.measure.sweeps.capacity_sweep` rows with ``rank = d`` and
        ``factored = True`` (other rows are ignored).
    full : pandas.DataFrame
        ``capacity_sweep`` rows of the unconstrained engine (``factored = False``) at the same
        ``d``, loads and seeds.
    steps, lr, patience
        Budget, Adam learning rate and stall stop of the retraining (``train_memory``).
    seed : int or numpy.random.SeedSequence
        The root seed both sweeps were drawn with (``capacity_sweep(seed=...)``): the instances
        to retrain are drawn again from it and their labels (the table's ``seed`` column).

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
                               seed=seed, steps=steps, lr=lr, patience=patience,
                               progress=False)  # fmt: skip
        reached += int(again["recalled_all"].sum())
    return {"pairs": len(m), "full_only": int((w & ~qr).sum()),
            "factored_only": int((qr & ~w).sum()), "steps": int(steps),
            "reached": reached}  # fmt: skip
