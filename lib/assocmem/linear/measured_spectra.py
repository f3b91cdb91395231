"""Spectra of measured memories: singular values of stored and trained ``W`` against the theory.

:func:`stored_spectra` pools the singular values of the memories a sweep stored near each
group's transition; :func:`spectrum_summary` measures the Kolmogorov-Smirnov distance of a batch
of memories' top singular values to the truncated quarter circle of
:mod:`assocmem.linear.spectra`; :func:`spectrum_causes` tests causes of a broad trained spectrum
(longer training, a margin-maximising objective, the truncated Hebbian memory, a larger ``d``) on
the instances of one rank-``m`` sweep group (chapter 4); :func:`spectrum_fits`,
:func:`spectrum_fit_summary` and :func:`causes_summary` tabulate and label what chapter 4
quotes. Source: a reconstruction of the spectral
argument of Giorlandino, Goldt & Maillard 2026 (arXiv:2605.10795; course digest section 7.2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import torch

from assocmem._validate import check_int, check_positive, check_real
from assocmem.linear.load import pairs_for_load
from assocmem.linear.max_margin import normalized_margin, train_max_margin, truncate_rank
from assocmem.linear.problems import MemoryProblem, recalled, stack_problems
from assocmem.linear.sampling import sample_problems
from assocmem.linear.spectra import singular_values, spectrum_ks_distance
from assocmem.linear.sweeps import GROUP_COLUMNS
from assocmem.linear.tables import check_table
from assocmem.linear.training import hebbian_memory, train_memory
from assocmem.streams import Seed, child

__all__ = [
    "stored_spectra",
    "spectrum_summary",
    "spectrum_causes",
    "spectrum_fits",
    "spectrum_fit_summary",
    "causes_summary",
]


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


def spectrum_summary(
    label: str, W: torch.Tensor, problem: MemoryProblem, rank: int
) -> dict[str, Any]:
    """Kolmogorov–Smirnov distance of a batch of memories' top singular values to the theory.

    Parameters
    ----------
    label : str
        Name of the memories (the ``memory`` entry of the result).
    W : torch.Tensor, shape (B, d, d)
        The memories, one per problem of ``problem``.
    problem : MemoryProblem
        The batched instances they store (for the margin and the recall check).
    rank : int
        ``m``: the top ``m`` singular values are compared with the truncated quarter circle at
        ``kappa = m / d`` (the quarter circle for ``m = d``).

    Returns
    -------
    dict
        ``memory``, ``d``, ``m``, ``memories`` (B), ``values`` (n = B m), ``stored`` (memories
        that recall every association), ``KS`` (pooled values, each matrix normalised to mean
        square 1), ``KS 5 % level`` (``1.36 / sqrt(n)``, the level for n independent values)
        and ``margin`` (mean :func:`~.max_margin.normalized_margin`).

    Raises
    ------
    TypeError, ValueError
        As :func:`assocmem.linear.spectra.singular_values` and
        :func:`~.max_margin.normalized_margin`.
    """
    d = problem.d
    s = singular_values(W, rank=rank)
    marg = normalized_margin(W, problem)
    return {"memory": label, "d": d, "m": rank, "memories": int(W.shape[0]),
            "values": int(s.size), "stored": int(np.sum(marg > 0)),
            "KS": spectrum_ks_distance(s, rank / d),
            "KS 5 % level": 1.36 / math.sqrt(s.size),
            "margin": float(np.mean(marg))}  # fmt: skip


def spectrum_causes(
    table: pd.DataFrame,
    *,
    n_memories: int = 6,
    long_steps: int = 2000,
    lr: float = 0.2,
    margin_steps: int = 600,
    margin_lr: float = 0.005,
    beta: float = 300.0,
    large_d: int | None = None,
    large_alpha: float | None = None,
    load: float | None = None,
    seed: Seed = 0,
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Test causes of a broad trained spectrum on the instances of one rank-``m`` sweep group.

    On the stored memories at one load of the group (``load``, first ``n_memories`` instances),
    compare with the truncated quarter circle the singular values of: the trained ``Q R^T``
    (stopped at first perfect recall); the same instances trained ``long_steps`` steps without
    early stop (longer training); the trained memories continued by
    :func:`~.max_margin.train_max_margin` (a margin-maximising objective at Gardner's
    normalisation); the rank-``m`` truncated Hebbian memory (the weighted-Hebbian form the
    spectral argument assumes, with equal weights); and, if ``large_d`` is given, ``Q R^T``
    trained at ``large_d`` with the same ``kappa`` at load ``large_alpha`` (larger ``d``).

    Parameters
    ----------
    table : pandas.DataFrame
        One group of :func:`assocmem.linear.sweeps.capacity_sweep` (``rank`` set,
        ``keep_weights=True``).
    n_memories : int
        Stored instances used (>= 1; fewer if fewer were stored).
    long_steps, lr : int, float
        Budget and Adam rate of the longer training (the sweep's rate).
    margin_steps, margin_lr, beta
        Passed to :func:`~.max_margin.train_max_margin` as ``steps``, ``lr``, ``beta``.
    large_d : int, optional
        A larger embedding dimension (>= 2) for the last row.
    large_alpha : float, optional
        Load of the larger-``d`` instances (required with ``large_d``).
    load : float, optional
        Actual load (a value of the table's ``load`` column) whose stored memories are used;
        default the load :func:`assocmem.linear.measured_spectra.stored_spectra` picks.
    seed : int or numpy.random.SeedSequence
        The root the sweep ran with: its instances are drawn again from their streams
        (:func:`assocmem.linear.sampling.instance_stream`, labels from the ``seed`` column) and
        checked against the stored weights; the larger-``d`` instances are instances
        ``0, 1, ...`` of the root ``child(seed, 1)``.
    device : str, torch.device or None
        Where to train.

    Returns
    -------
    pandas.DataFrame
        One row per memory, the fields of :func:`spectrum_summary`.

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame or a size or rate is not a number.
    ValueError
        If the table is not one rank-constrained group with weights, nothing was stored, the
        stored weights do not recall the instances drawn from ``seed`` (another root),
        ``large_d`` comes without ``large_alpha``, a step count is < 1 or a rate or ``beta`` is
        not a finite positive number.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    if "weights" not in table.columns or table[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
        raise ValueError("table must be one sweep group made with keep_weights=True")
    n_memories = check_int("n_memories", n_memories, 1)
    check_int("long_steps", long_steps, 1)
    check_int("margin_steps", margin_steps, 1)
    check_positive("lr", lr)
    check_positive("margin_lr", margin_lr)
    check_positive("beta", beta)
    d, m = int(table["d"].iloc[0]), int(table["rank"].iloc[0])
    if load is None:
        load = float(stored_spectra(table)["load"].iloc[0])
    sel = table[np.isclose(table["load"], load) & table["recalled_all"]].sort_values("seed")
    if len(sel) == 0:
        raise ValueError("no memory of this group stored every association")
    sel = sel.iloc[:n_memories]
    p = int(sel["p"].iloc[0])
    batch = sample_problems(p, d, [int(s) for s in sel["seed"]], seed=seed, device=device)
    W0 = torch.as_tensor(np.stack(sel["weights"].to_list()), device=batch.device)
    if not bool(recalled(W0, batch).all()):
        raise ValueError("the table's stored weights do not recall the instances of this seed: "
                         "pass the root seed the sweep ran with")  # fmt: skip
    rows = [spectrum_summary("trained QR^T, first perfect step", W0, batch, m)]
    longer = train_memory(batch, rank=m, steps=long_steps, lr=lr, early_stop=False)
    rows.append(spectrum_summary(f"trained QR^T, {long_steps} steps", longer.weights, batch, m))
    mm = train_max_margin(batch, m, init=W0, steps=margin_steps, lr=margin_lr, beta=beta)
    rows.append(spectrum_summary("max-margin, from trained QR^T", mm.weights, batch, m))
    heb = truncate_rank(hebbian_memory(batch), m)
    rows.append(spectrum_summary("truncated Hebbian", heb, batch, m))
    if large_d is not None:
        if large_alpha is None:
            raise ValueError("large_d needs large_alpha")
        dl = check_int("large_d", large_d, 2)
        ml = max(1, round(m / d * dl))
        pl = pairs_for_load(check_real("large_alpha", large_alpha, low=0.0, strict=True), dl)
        big = sample_problems(pl, dl, len(sel), seed=child(seed, 1), device=device)
        res = train_memory(big, rank=ml, steps=long_steps, lr=lr, patience=400)
        ok = torch.as_tensor(np.asarray(res.perfect), device=big.device)
        if bool(ok.any()):
            sub = stack_problems([big[i] for i in torch.nonzero(ok).ravel().tolist()])
            rows.append(spectrum_summary("trained QR^T, first perfect step",
                                         res.weights[ok], sub, ml))  # fmt: skip
    return pd.DataFrame(rows)


def spectrum_fits(spectra: pd.DataFrame) -> pd.DataFrame:
    """Kolmogorov–Smirnov distances of pooled stored spectra to the two laws, one row per group.

    Parameters
    ----------
    spectra : pandas.DataFrame
        :func:`stored_spectra` output (columns ``kappa``, ``load``, ``singular_values``).

    Returns
    -------
    pandas.DataFrame
        One row per group with values: ``κ``, ``load α``, ``n values``, ``KS (truncated) law``
        (to the truncated quarter circle at ``κ``), ``KS quarter circle`` and ``5 % level``
        (``1.36 / sqrt(n)``, the level for ``n`` independent values).

    Raises
    ------
    ValueError
        If a column is missing.
    """
    missing = [c for c in ("kappa", "load", "singular_values") if c not in spectra.columns]
    if missing:
        raise ValueError(f"spectra lacks the columns {missing} of stored_spectra's output")
    rows = []
    for k, load, s in zip(spectra["kappa"], spectra["load"], spectra["singular_values"],
                          strict=True):  # fmt: skip
        s = np.asarray(s, dtype=np.float64)
        if s.size:
            rows.append({"κ": float(k), "load α": float(load), "n values": int(s.size),
                         "KS (truncated) law": spectrum_ks_distance(s, float(k)),
                         "KS quarter circle": spectrum_ks_distance(s, 1.0),
                         "5 % level": 1.36 / math.sqrt(s.size)})  # fmt: skip
    return pd.DataFrame(rows)


def spectrum_fit_summary(fits: pd.DataFrame, kappas: dict[str, float]) -> dict[str, float]:
    """Return the distances chapter 4 quotes, by label: ``ks_<name>``, ``ks_<name>_level``.

    Parameters
    ----------
    fits : pandas.DataFrame
        :func:`spectrum_fits` output.
    kappas : dict of str -> float
        Label -> rank ratio of the row to quote (e.g. ``{"full": 1.0}``).

    Returns
    -------
    dict of str -> float
        ``ks_<name>`` (distance to the truncated law) and ``ks_<name>_level`` (its 5 % level).

    Raises
    ------
    ValueError
        If a rank ratio does not select exactly one row.
    """
    out = {}
    for name, k in kappas.items():
        row = fits[np.isclose(fits["κ"].to_numpy(float), float(k))]
        if len(row) != 1:
            raise ValueError(f"{len(row)} rows of fits have κ = {k}; need one")
        out[f"ks_{name}"] = float(row["KS (truncated) law"].iloc[0])
        out[f"ks_{name}_level"] = float(row["5 % level"].iloc[0])
    return out


def causes_summary(causes: pd.DataFrame) -> dict[str, float | int]:
    """Return the numbers chapter 4 quotes from :func:`spectrum_causes`, by label.

    Rows are found by their ``memory`` label and ``d``: ``first`` (trained, first perfect step,
    the sweep's ``d``), ``long`` (trained longer), ``margin`` (max-margin continuation),
    ``hebb`` (truncated Hebbian) and ``large`` (trained at the larger ``d``, if present).

    Parameters
    ----------
    causes : pandas.DataFrame
        :func:`spectrum_causes` output.

    Returns
    -------
    dict
        ``ks_<row>``, ``lvl_<row>`` (its 5 % level) and ``marg_<row>`` (mean margin) for each
        row present; ``spec_n`` (memories of ``first``) and, with a larger ``d``, ``large_n``.

    Raises
    ------
    ValueError
        If ``causes`` lacks a column or one of the first four rows.
    """
    missing = [c for c in ("memory", "d", "memories", "KS", "KS 5 % level", "margin")
               if c not in causes.columns]  # fmt: skip
    if missing:
        raise ValueError(f"causes lacks the columns {missing} of spectrum_causes' output")
    d0 = int(causes["d"].min())
    first = causes["memory"] == "trained QR^T, first perfect step"
    small = causes["d"] == d0
    rows = {
        "first": causes[first & small],
        "long": causes[causes["memory"].str.startswith("trained QR^T, ") & ~first],
        "margin": causes[causes["memory"].str.startswith("max-margin")],
        "hebb": causes[causes["memory"] == "truncated Hebbian"],
        "large": causes[first & ~small],
    }
    out: dict[str, float | int] = {}
    for key, r in rows.items():
        if len(r) != 1:
            if key == "large" and len(r) == 0:
                continue
            raise ValueError(f"causes must hold one {key!r} row, found {len(r)}")
        out |= {f"ks_{key}": float(r["KS"].iloc[0]), f"lvl_{key}": float(r["KS 5 % level"].iloc[0]),
                f"marg_{key}": float(r["margin"].iloc[0])}  # fmt: skip
    out["spec_n"] = int(rows["first"]["memories"].iloc[0])
    if len(rows["large"]):
        out["large_n"] = int(rows["large"]["memories"].iloc[0])
    return out
