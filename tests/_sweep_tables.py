"""Sweep tables and figure readers shared by several Part I test files (tests/linear/*)."""

from __future__ import annotations

import pandas as pd
import torch
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.linear.measure.sweeps import COLUMNS
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load
from matplotlib.container import ErrorbarContainer


def synthetic_sweep(successes: dict[float, list[bool]], d: int = 40, method: str = "train"):
    """A sweep table with given outcomes (the columns of capacity_sweep)."""
    rows = []
    for a, flags in successes.items():
        p = pairs_for_load(a, d)
        for s, f in enumerate(flags):
            rows.append({"method": method, "problem": "op", "d": d, "rank": d, "kappa": 1.0,
                         "factored": False,
                         "alpha": a, "load": load_for_pairs(p, d), "p": p, "seed": s,
                         "recalled_all": f, "accuracy": 1.0 if f else 0.9, "steps": 10,
                         "seconds": 0.0})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def plot_table(groups: dict[tuple[str, str, int, int], dict[float, list[bool]]]) -> pd.DataFrame:
    """A sweep table of several groups (method, problem, d, rank) with given outcomes."""
    rows = []
    for (method, problem, d, rank), outcomes in groups.items():
        for a, flags in outcomes.items():
            p = pairs_for_load(a, d)
            rows += [{"method": method, "problem": problem, "d": d, "rank": rank,
                      "kappa": rank / d, "factored": rank < d, "alpha": a,
                      "load": load_for_pairs(p, d), "p": p,
                      "seed": s, "recalled_all": f, "accuracy": 1.0 if f else 0.8, "steps": 1,
                      "seconds": 0.0} for s, f in enumerate(flags)]  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def sweep_rows(outcomes: dict[float, list[float]], *, method: str = "train", d: int = 8,
          rank: int | None = None, steps: int = 1) -> list[dict]:  # fmt: skip
    """Sweep rows: accuracy per (load, seed i = position i); load = alpha, p = 10 * alpha."""
    rank = d if rank is None else rank
    return [
        {
            "method": method,
            "problem": "op",
            "d": d,
            "rank": rank,
            "kappa": rank / d,
            "factored": rank < d,
            "alpha": a,
            "load": a,
            "p": int(10 * a),
            "seed": s,
            "recalled_all": acc == 1.0,
            "accuracy": float(acc),
            "steps": steps,
            "seconds": 0.0,
        }
        for a, accs in outcomes.items()
        for s, acc in enumerate(accs)
    ]


def errorbars(ax) -> list[ErrorbarContainer]:  # type: ignore[no-untyped-def]
    """The error-bar containers of an axes (simulation points)."""
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def margins_by_hand(e: list[float], u: list[float]) -> MemoryProblem:
    """A one-dimensional problem built from the given inputs ``e`` and targets ``u``."""
    t = torch.tensor
    return MemoryProblem(t(e, dtype=torch.float32)[:, None], t(u, dtype=torch.float32)[:, None])
