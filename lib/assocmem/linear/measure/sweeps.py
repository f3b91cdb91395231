"""Capacity sweeps of the linear memory: perfect storage against the load, one row per instance.

:func:`capacity_sweep` runs one storage method (cross-entropy training, the Hebbian rule or the
exact LP) on one problem (OP or DP), with or without a rank constraint, over a grid of loads
``alpha = p log p / d^2`` and instances, and returns a tidy ``pandas.DataFrame`` with one row per
instance (columns :data:`COLUMNS`). :func:`truncated_hebbian_sweep` gives the same table for
the Hebbian memory truncated to its top ``m`` singular values, on the same instances for every
``m`` (its transition is predicted at ``alpha_c(kappa) / 4``,
:func:`assocmem.linear.theory.spectra.hebbian_critical_load`). Everything downstream reads that
table: :mod:`assocmem.linear.measure.tables` (fraction stored per load with its Wilson interval,
instance agreement), :mod:`assocmem.linear.measure.transitions` (the load where the fraction crosses
1/2, with its uncertainty; measured vs finite-size theory) and
:mod:`assocmem.linear.measure.measured_spectra`. Sweeps draw nothing (figures: the
``assocmem.linear.figures`` modules).

Seeding rule (the same for every method): a sweep takes one root ``seed``; its instance ``s`` at
load ``alpha`` is ``sample_problems(p, d, [s], seed=seed)[0]`` with ``p = pairs_for_load(alpha,
d)``, drawn from its own stream ``child(seed, d, p, s)``
(:func:`assocmem.linear.instances.sampling.instance_stream`). So every instance of a sweep has its
own stream, the rows do not depend on the order of the loads or on the batching, and methods and
problems run with the same root are compared on the same inputs and targets; a factored
``W = Q R^T`` starts from factors drawn from a child of the instance's stream
(:func:`assocmem.linear.storage.training.train_memory`). The table's ``seed`` column is the
instance's label ``s`` (not a seed: the data cannot be regenerated from it without the root).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from tqdm.auto import tqdm

from assocmem._validate import check_int, check_loads, seed_list
from assocmem.linear.instances.problems import all_recalled, recall_accuracy, recalled
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.storage.lp import LPOutcome, lp_decide
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load
from assocmem.streams import Seed

__all__ = [
    "COLUMNS",
    "GROUP_COLUMNS",
    "METHODS",
    "capacity_sweep",
    "truncated_hebbian_sweep",
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
    "undecided",
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
    seed: Seed = 0,
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
        Cross-entropy + Adam (:func:`assocmem.linear.storage.training.train_memory`, all seeds of
        one load as one batch), the Hebbian rule, or the exact LP decision
        (:func:`assocmem.linear.storage.lp.lp_decide`, one interior-point solve with certificates;
        about a CPU second per instance at d = 32, see ``benchmarks/lp_speed.py``). An
        instance the LP finds *undecided at tolerance* (its best margin within the LP's
        tolerance of zero) is recorded with ``undecided = True`` and ``recalled_all = False``:
        it is counted, as not stored, in every fraction and crossing read from the table (it
        has no ``W`` with a margin above the tolerance, so it is not stored in the sense the LP
        certifies; and dropping it would leave its load with fewer instances than the others
        and bias the fraction upwards where such instances occur, at the capacity boundary).
    rank : int or None
        ``m`` in ``1..d``: train ``W = Q R^T`` with ``Q, R`` of shape (d, m) (``method="train"``
        only). ``None``: unconstrained ``W`` (recorded as ``rank = d``, ``kappa = 1``).
    seeds : int or iterable of int
        The instances' labels (the ``seed`` column): an int ``n`` means ``range(n)``; else the
        distinct labels >= 0 themselves.
    seed : int or numpy.random.SeedSequence
        The sweep's root (the seeding rule of the module).
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
        (actual ``p log p / d^2`` of the integer ``p``), ``p``, ``seed`` (int: the instance label),
        ``recalled_all`` (bool: every association recalled; for the LP, certified stored),
        ``undecided`` (bool: the LP's answer was "undecided at tolerance", counted as not
        stored; always False for training and the Hebbian rule), ``accuracy`` (fraction recalled;
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
        If the LP reaches no decision (see :func:`assocmem.linear.storage.lp.lp_decide`).
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
    alpha_list = check_loads(alphas)
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
            batch = sample_problems(p, d, seeds_, seed=seed, decoupled=decoupled, device=device)
            res = train_memory(batch, rank=rank, steps=steps, lr=lr, check_every=check_every,
                               patience=patience, device=device)  # fmt: skip
            sec = (time.perf_counter() - t0) / len(seeds_)
            acc, st = np.asarray(res.accuracy), np.asarray(res.steps)
            for i, s in enumerate(seeds_):
                ok = bool(np.asarray(res.perfect)[i])
                row = base | {"seed": s, "recalled_all": ok, "undecided": False,
                              "accuracy": float(acc[i]), "steps": int(st[i]),
                              "seconds": sec}  # fmt: skip
                if keep_weights:
                    row["weights"] = res.weights[i].detach().cpu().numpy()
                rows.append(row)
            continue
        for s in seeds_:
            t1 = time.perf_counter()
            inst = sample_problems(p, d, [s], seed=seed, decoupled=decoupled, device=device)[0]
            W = hebbian_memory(inst)
            undecided = False
            if method == "hebbian":
                acc_s, ok = float(recall_accuracy(W, inst)), bool(all_recalled(W, inst))
            else:
                outcome = lp_decide(inst).outcome
                acc_s, ok = math.nan, outcome is LPOutcome.STORED
                undecided = outcome is LPOutcome.UNDECIDED
            row = base | {"seed": s, "recalled_all": ok, "undecided": undecided,
                          "accuracy": acc_s, "steps": 0,
                          "seconds": time.perf_counter() - t1}  # fmt: skip
            if keep_weights:
                row["weights"] = W.detach().cpu().numpy()
            rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS) + (["weights"] if keep_weights else []))


def truncated_hebbian_sweep(
    d: int,
    alphas: Iterable[float],
    ranks: Iterable[int],
    *,
    seeds: int | Iterable[int] = 32,
    seed: Seed = 0,
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Perfect recall of the rank-``m`` truncated Hebbian memory against the load.

    At each load the instances are ``sample_problems(pairs_for_load(alpha, d), d, seeds,
    seed=seed)`` (the
    seeding rule of :func:`assocmem.linear.measure.sweeps.capacity_sweep`); each is stored by the
    Hebbian rule and truncated to every rank of ``ranks`` (one SVD per instance).

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    alphas : iterable of float
        Loads ``p log p / d^2``, each > 0, distinct.
    ranks : iterable of int
        Ranks ``m`` in ``1..d``, distinct; ``m = d`` is the plain Hebbian memory.
    seeds : int or iterable of int
        Instance labels per load (an int ``n`` means ``range(n)``).
    seed : int or numpy.random.SeedSequence
        The sweep's root.
    device : str, torch.device or None
        Where the problems and the SVDs live.

    Returns
    -------
    pandas.DataFrame
        One row per (alpha, rank, seed) with the columns of
        :data:`assocmem.linear.measure.sweeps.COLUMNS`: ``method = "hebbian"``, ``problem = "op"``,
        ``rank = m``, ``kappa = m / d``, ``factored = False``, ``accuracy`` (fraction recalled),
        ``recalled_all``, ``undecided = False``, ``steps = 0``, ``seconds`` (wall time per
        instance, all ranks). It feeds :func:`assocmem.linear.measure.tables.success_by_load` and
        :func:`~.transitions.bootstrap_transitions`.

    Raises
    ------
    TypeError, ValueError
        Bad sizes, loads, ranks or seeds.

    Notes
    -----
    Prediction tested with it: ``alpha_H(kappa) = alpha_c(kappa) / 4`` (reconstruction, digest
    section 7.2; chapter 4).
    """
    d = check_int("d", d, 2)
    alpha_list = check_loads(alphas)
    if isinstance(ranks, (str, bytes)) or not isinstance(ranks, Iterable):
        raise TypeError(f"ranks must be an iterable of integers, got {ranks!r}")
    rank_list = [check_int("rank", m, 1) for m in ranks]
    if not rank_list or len(set(rank_list)) != len(rank_list) or max(rank_list) > d:
        raise ValueError(f"ranks must be distinct integers in [1, {d}], got {rank_list}")
    seeds_ = seed_list(seeds)
    rows: list[dict[str, Any]] = []
    for alpha in alpha_list:
        p = pairs_for_load(alpha, d)
        t0 = time.perf_counter()
        batch = sample_problems(p, d, seeds_, seed=seed, device=device)
        U, S, Vh = torch.linalg.svd(hebbian_memory(batch))
        rec = {}
        for m in rank_list:
            Wm = (U[..., :m] * S[..., None, :m]) @ Vh[..., :m, :]
            rec[m] = recalled(Wm, batch).cpu().numpy()
        sec = (time.perf_counter() - t0) / len(seeds_)
        base = {"method": "hebbian", "problem": "op", "d": d, "factored": False,
                "alpha": alpha, "load": load_for_pairs(p, d), "p": p, "steps": 0,
                "seconds": sec}  # fmt: skip
        for m in rank_list:
            for i, s in enumerate(seeds_):
                rows.append(base | {"rank": m, "kappa": m / d, "seed": s,
                                    "recalled_all": bool(rec[m][i].all()), "undecided": False,
                                    "accuracy": float(rec[m][i].mean())})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))
