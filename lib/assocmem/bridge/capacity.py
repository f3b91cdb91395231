"""Capacity of the three memories: the largest N stored at >= 99 % recall, its table and summaries.

:func:`largest_stored` is the binary search of ``binary_sweep`` in ``mlp_sweep.py``
(``eshnich/factual-recall-iclr``): N between a floor and a ceiling, kept when recall >= 0.99,
on multiples of 4 here (the transformer's facts are subjects x 4 relations). :func:`capacity_sweep`
runs it for each memory, size and seed and returns one tidy DataFrame (the table ``python -m
assocmem.bridge`` stores); :func:`capacity_summary` turns it into Estimates (mean over seeds,
Student t); :func:`check_in_band` is the page's check of a live rerun against the stored table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from assocmem._validate import check_frame, check_int
from assocmem.bridge.facts import (
    HEBBIAN_BITS_PER_PARAMETER,
    N_RELATIONS,
    OPTIMAL_BITS_PER_PARAMETER,
    bits_per_parameter,
    fact_set,
)
from assocmem.bridge.memories import MEMORIES, n_parameters
from assocmem.estimate import Estimate, Verdict, verdict
from assocmem.stats import mean_interval
from assocmem.streams import Seed, child

__all__ = [
    "RECALL_THRESHOLD",
    "COLUMNS",
    "largest_stored",
    "capacity_point",
    "capacity_sweep",
    "capacity_summary",
    "bits_difference",
    "check_in_band",
    "stored_table",
    "capacity_findings",
    "summary_frame",
    "SUMMARY_NAMES",
    "SUMMARY_FORMATS",
    "FINDINGS_SPEC",
    "TABLE_PATH",
]

#: Recall a fact set must reach to count as stored (``mlp_sweep.py``'s 0.99).
RECALL_THRESHOLD = 0.99
#: Columns of the capacity table.
COLUMNS = ("memory", "d", "width", "params", "seed", "capacity", "bits_per_param")
#: The stored table (written by ``python -m assocmem.bridge``).
TABLE_PATH = Path(__file__).resolve().parent / "data" / "capacity.csv"


def _ceiling(params: int) -> int:
    """Return a number of facts above capacity: N log2 N >= 4 P (4 bits per parameter)."""
    n = 8
    while n * math.log2(n) < 4 * params:
        n *= 2
    return n


def largest_stored(memory: str, d: int, width: int, seed: Seed, *, steps: int = 2000) -> int:
    """Largest N (a multiple of 4) whose fact set the memory stores at >= 99 % top-1 recall.

    Parameters
    ----------
    memory : {"linear", "mlp", "transformer"}
    d : int
        Embedding dimension (>= 2).
    width : int
        MLP width m (>= 1).
    seed : int or numpy.random.SeedSequence
        The stream of this search: the facts of size N are ``fact_set(N, d, child(seed, N))``
        (the same facts for every memory given the same stream), the initialisation
        ``child(seed, N, "init")``.
    steps : int
        Training budget per fact set.

    Returns
    -------
    int
        The capacity on the grid of multiples of 4, 0 if even N = 8 is not stored.

    Raises
    ------
    ValueError
        Unknown memory or bad sizes.
    """
    train = MEMORIES.get(memory)
    if train is None:
        raise ValueError(f"memory must be one of {sorted(MEMORIES)}, got {memory!r}")
    d, width = check_int("d", d, 2), check_int("width", width, 1)

    def stored(n: int) -> bool:
        facts = fact_set(n, d, child(seed, n))
        return train(facts, width, child(seed, n, "init"), steps) >= RECALL_THRESHOLD

    lo, hi = 8, _ceiling(n_parameters(memory, d, width))
    if not stored(lo):
        return 0
    while hi - lo > N_RELATIONS:  # invariant: lo stored, hi not (assumed above capacity)
        mid = (lo + hi) // 2 // N_RELATIONS * N_RELATIONS
        if stored(mid):
            lo = mid
        else:
            hi = mid
    return lo


def capacity_point(memory: str, d: int, width: int, seed_index: int, root: Seed, *,
                   steps: int = 2000) -> dict[str, object]:  # fmt: skip
    """One row of the capacity table: memory, size, seed ``seed_index`` of root ``root``.

    The search's stream is ``child(root, d, seed_index)``, shared by the three memories.
    """
    cap = largest_stored(memory, d, width, child(root, d, seed_index), steps=steps)
    params = n_parameters(memory, d, width)
    bits = bits_per_parameter(cap, cap, params) if cap >= 1 else 0.0
    return {"memory": memory, "d": d, "width": width, "params": params, "seed": seed_index,
            "capacity": cap, "bits_per_param": bits}  # fmt: skip


def capacity_sweep(
    sizes: Sequence[int],
    n_seeds: int,
    root: Seed = 0,
    *,
    memories: Sequence[str] = tuple(MEMORIES),
    steps: int = 2000,
    width_ratio: int = 1,
) -> pd.DataFrame:
    """Capacity of each memory at each size d (MLP width m = width_ratio * d) and seed.

    Returns
    -------
    pandas.DataFrame
        One row per (memory, d, seed), columns :data:`COLUMNS`.
    """
    n_seeds = check_int("n_seeds", n_seeds, 1)
    rows = [capacity_point(m, d, width_ratio * d, s, root, steps=steps)
            for m in memories for d in sizes for s in range(n_seeds)]  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def capacity_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Mean capacity and bits per parameter over seeds per (memory, d), as Estimates.

    Returns
    -------
    pandas.DataFrame
        Columns memory, d, params, capacity (Estimate), bits_per_param (Estimate); the intervals
        are Student t over seeds.
    """
    table = check_frame("table", table, COLUMNS, "capacity_sweep")
    out = []
    for (memory, d), g in table.groupby(["memory", "d"], sort=False):
        cap = mean_interval(g["capacity"].to_numpy(float))
        bits = mean_interval(g["bits_per_param"].to_numpy(float))
        out.append({"memory": memory, "d": int(d), "params": int(g["params"].iloc[0]),
                    "capacity": cap, "bits_per_param": bits})  # fmt: skip
    return pd.DataFrame(out)


def bits_difference(table: pd.DataFrame, a: str, b: str) -> Estimate:
    """Mean over (d, seed) of bits per parameter of memory a minus memory b (paired, Student t).

    The two memories of a pair stored the same fact sets (the search streams are shared).

    Raises
    ------
    ValueError
        If a memory is missing or the (d, seed) pairs do not match.
    """
    table = check_frame("table", table, COLUMNS, "capacity_sweep")
    ga = table[table.memory == a].set_index(["d", "seed"])["bits_per_param"].sort_index()
    gb = table[table.memory == b].set_index(["d", "seed"])["bits_per_param"].sort_index()
    if ga.empty or not ga.index.equals(gb.index):
        raise ValueError(f"memories {a!r} and {b!r} must have the same (d, seed) rows")
    est = mean_interval((ga - gb).to_numpy(float))
    assert isinstance(est, Estimate)
    return est


def check_in_band(table: pd.DataFrame, row: dict[str, object], slack: int = N_RELATIONS) -> None:
    """Raise unless a live capacity lies within the stored seeds' range (+- one grid step).

    Parameters
    ----------
    table : pandas.DataFrame
        The stored capacity table.
    row : dict
        A row from :func:`capacity_point` (memory, d, capacity).
    slack : int
        Allowed distance outside [min, max] of the stored capacities (one grid step).

    Raises
    ------
    RuntimeError
        If the live capacity falls outside the band (the message gives both).
    """
    g = table[(table.memory == row["memory"]) & (table.d == row["d"])]["capacity"]
    if g.empty:
        raise RuntimeError(f"no stored capacity for {row['memory']} at d = {row['d']}")
    lo, hi = int(g.min()) - slack, int(g.max()) + slack
    cap = int(row["capacity"])  # type: ignore[call-overload]
    if not lo <= cap <= hi:
        raise RuntimeError(
            f"live capacity {cap} of {row['memory']} at d = {row['d']} is outside the stored "
            f"band [{lo}, {hi}] ({TABLE_PATH.name}): the library or the table changed"
        )


def stored_table(path: str | Path = TABLE_PATH) -> pd.DataFrame:
    """Read the stored capacity table (comment lines ``#`` hold the command and version)."""
    return check_frame("table", pd.read_csv(path, comment="#"), COLUMNS, str(path))


#: Format of each finding in prose (:func:`assocmem.pages.glue_all`'s ``spec``).
FINDINGS_SPEC = {
    **{f"bits_{m}": ".2f" for m in MEMORIES},
    **{k: "+.2f" for k in ("diff_mlp_lin", "diff_tr_lin", "diff_mlp_lin_dmax")},
}


def capacity_findings(
    table: pd.DataFrame, live: dict[str, dict[str, object]]
) -> dict[str, Estimate | Verdict | float | int]:
    """Return the numbers chapter 7a quotes, by label.

    Parameters
    ----------
    table : pandas.DataFrame
        The capacity table (all three memories).
    live : dict
        Memory -> its live :func:`capacity_point` row.

    Returns
    -------
    dict
        ``bits_<memory>`` (Estimate at the largest d), ``live_<memory>`` (int), the differences
        ``diff_mlp_lin``, ``diff_tr_lin`` (all sizes) and ``diff_mlp_lin_dmax`` (largest d) with
        their verdicts ``<name>_v``, ``dmax``, ``live_d`` (the live rows' d), and the reference
        lines ``opt``, ``hebb``.
    """
    summary = capacity_summary(table)
    dmax = int(table.d.max())
    largest = summary[summary.d == dmax].set_index("memory")
    out: dict[str, Estimate | Verdict | float | int] = {
        f"bits_{m}": largest.loc[m, "bits_per_param"] for m in largest.index
    }
    out.update({f"live_{m}": int(r["capacity"]) for m, r in live.items()})  # type: ignore[call-overload]
    diffs = {
        "diff_mlp_lin": bits_difference(table, "mlp", "linear"),
        "diff_tr_lin": bits_difference(table, "transformer", "linear"),
        "diff_mlp_lin_dmax": bits_difference(table[table.d == dmax], "mlp", "linear"),
    }
    out.update(diffs)
    out["live_d"] = int(next(iter(live.values()))["d"]) if live else 0  # type: ignore[call-overload]
    out.update({f"{k}_v": verdict(v) for k, v in diffs.items()})
    out.update(dmax=dmax, opt=OPTIMAL_BITS_PER_PARAMETER, hebb=HEBBIAN_BITS_PER_PARAMETER)
    return out


#: Column names of :func:`summary_frame`, and the formats of its Estimates.
SUMMARY_NAMES = {"params": "P", "capacity": "N stored (≥ 99 %)", "bits_per_param": "bits / param"}
SUMMARY_FORMATS = {"N stored (≥ 99 %)": "{:.1f}", "bits / param": "{:.2f}"}


def summary_frame(summary: pd.DataFrame) -> pd.DataFrame:
    """Return :func:`capacity_summary`'s frame with the page's column names (SUMMARY_NAMES)."""
    return summary.rename(columns=SUMMARY_NAMES)
