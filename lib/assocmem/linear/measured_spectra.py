"""Spectra of measured memories: singular values of stored and trained ``W`` against the theory.

:func:`stored_spectra` pools the singular values of the memories a sweep stored near each
group's transition.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from assocmem.linear.spectra import singular_values
from assocmem.linear.sweeps import GROUP_COLUMNS
from assocmem.linear.tables import check_table

__all__ = ["stored_spectra"]


def stored_spectra(table: pd.DataFrame) -> pd.DataFrame:
    """Singular values of the stored memories near each group's transition.

    For each group, the largest load at which at least half of the instances were stored
    (else the largest load with any stored instance); the top ``rank`` singular values of each
    stored ``W`` there, normalised to mean square 1 per matrix, pooled.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` output made with ``keep_weights=True``.

    Returns
    -------
    pandas.DataFrame
        One row per group: :data:`~.sweeps.GROUP_COLUMNS`, ``kappa``, ``load`` (NaN if nothing was
        stored), ``n_memories`` and ``singular_values`` (a float64 array, empty if none).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame.
    ValueError
        If the table is not a sweep table or has no ``weights`` column.
    """
    table = check_table(table)
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
