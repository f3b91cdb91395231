"""Evidence for chapter 4: truncated Hebbian memories, bootstrapped crossings, max-margin memories.

Three tests of the rank-constrained theory of :mod:`assocmem.linear.spectra` (a reconstruction of
Giorlandino, Goldt & Maillard 2026, arXiv:2605.10795, two-layer linear networks; course digest
section 7.2):

* :func:`truncated_hebbian_sweep`: perfect recall of the Hebbian memory ``sum_mu u_mu e_mu^T``
  truncated to its top ``m`` singular values, on the same instances for every ``m``; its
  transition is predicted at ``alpha_c(kappa) / 4`` (:func:`assocmem.linear.spectra.
  hebbian_critical_load`).
* :func:`bootstrap_transitions` and :func:`transition_ratio`: the load where the fraction stored
  crosses 1/2, with a percentile bootstrap over instances (the seeds are resampled, jointly for
  every load and every group of a table), and the ratio of two such crossings with its interval.
* :func:`train_max_margin`: a memory of rank at most ``m`` that maximises the smallest normalised
  margin ``(s_mumu - s_munu) / sigma_W`` (``sigma_W = ||W||_F / d``, Gardner's normalisation),
  by Adam on a smooth maximum of all ``p (p - 1)`` negative margins with ``W`` kept at
  ``||W||_F = d`` and projected onto rank ``m`` (truncated SVD) after every step; and
  :func:`normalized_margin`, the quantity it maximises. The spectral argument of chapter 4 is
  about this optimum, not about what cross-entropy training of ``W = Q R^T`` finds.

Figures: :mod:`assocmem.linear.plots_rank`. Theory: :mod:`assocmem.linear.spectra`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch

from assocmem._validate import check_int, check_positive, check_real, seed_list
from assocmem.linear.load import load_for_pairs, pairs_for_load
from assocmem.linear.measured_spectra import stored_spectra
from assocmem.linear.problems import MemoryProblem, recalled, target_competitor_scores
from assocmem.linear.sampling import sample_problems
from assocmem.linear.spectra import singular_values, spectrum_ks_distance
from assocmem.linear.sweeps import COLUMNS, GROUP_COLUMNS
from assocmem.linear.training import hebbian_memory, train_memory
from assocmem.stats import first_crossing

__all__ = [
    "truncate_rank",
    "truncated_hebbian_sweep",
    "BootstrapTransitions",
    "bootstrap_transitions",
    "RatioEstimate",
    "transition_ratio",
    "normalized_margin",
    "MaxMarginResult",
    "train_max_margin",
    "spectrum_summary",
    "spectrum_causes",
]


def truncate_rank(W: torch.Tensor, rank: int) -> torch.Tensor:
    """Best rank-``m`` approximation of a (batch of) matrices: the truncated SVD.

    Parameters
    ----------
    W : torch.Tensor, shape (..., d_out, d_in), floating
        One matrix or a batch.
    rank : int
        ``m`` in ``[1, min(d_out, d_in)]``: the number of singular values kept.

    Returns
    -------
    torch.Tensor, same shape, dtype and device as ``W``
        ``U_m diag(s_1..s_m) V_m^T``; by the Eckart–Young theorem the closest matrix of rank at
        most ``m`` in Frobenius norm, at squared distance ``sum_{i > m} s_i^2``.

    Raises
    ------
    TypeError
        If ``W`` is not a floating tensor or ``rank`` not an integer.
    ValueError
        If ``W`` has fewer than 2 dimensions or ``rank`` is out of range.

    Notes
    -----
    Eckart & Young (1936); the projection of projected training onto the rank-``m`` set.
    """
    if not isinstance(W, torch.Tensor) or not W.is_floating_point():
        raise TypeError(f"W must be a floating torch.Tensor, got {type(W).__name__}")
    if W.dim() < 2:
        raise ValueError(f"W must have shape (..., d_out, d_in), got {tuple(W.shape)}")
    kmax = min(W.shape[-2], W.shape[-1])
    m = check_int("rank", rank, 1)
    if m > kmax:
        raise ValueError(f"rank must be in [1, {kmax}], got {m}")
    U, S, Vh = torch.linalg.svd(W, full_matrices=False)
    return (U[..., :m] * S[..., None, :m]) @ Vh[..., :m, :]


def truncated_hebbian_sweep(
    d: int,
    alphas: Iterable[float],
    ranks: Iterable[int],
    *,
    seeds: int | Iterable[int] = 32,
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Perfect recall of the rank-``m`` truncated Hebbian memory against the load.

    At each load the instances are ``sample_problems(pairs_for_load(alpha, d), d, seeds)`` (the
    seeding rule of :func:`assocmem.linear.sweeps.capacity_sweep`); each is stored by the Hebbian
    rule and truncated to every rank of ``ranks`` (one SVD per instance).

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    alphas : iterable of float
        Loads ``p log p / d^2``, each > 0, distinct.
    ranks : iterable of int
        Ranks ``m`` in ``1..d``, distinct; ``m = d`` is the plain Hebbian memory.
    seeds : int or iterable of int
        Instances per load (an int ``n`` means ``range(n)``).
    device : str, torch.device or None
        Where the problems and the SVDs live.

    Returns
    -------
    pandas.DataFrame
        One row per (alpha, rank, seed) with the columns of
        :data:`assocmem.linear.sweeps.COLUMNS`: ``method = "hebbian"``, ``problem = "op"``,
        ``rank = m``, ``kappa = m / d``, ``factored = False``, ``accuracy`` (fraction recalled),
        ``recalled_all``, ``steps = 0``, ``seconds`` (wall time per instance, all ranks). It
        feeds :func:`assocmem.linear.tables.success_by_load` and :func:`bootstrap_transitions`.

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
    alpha_list = [check_real("alpha", a, low=0.0, strict=True) for a in alphas]
    if not alpha_list or len(set(alpha_list)) != len(alpha_list):
        raise ValueError(f"alphas must be non-empty and distinct, got {alpha_list}")
    rank_list = [check_int("rank", m, 1) for m in ranks]
    if not rank_list or len(set(rank_list)) != len(rank_list) or max(rank_list) > d:
        raise ValueError(f"ranks must be distinct integers in [1, {d}], got {rank_list}")
    seeds_ = seed_list(seeds)
    rows: list[dict[str, Any]] = []
    for alpha in alpha_list:
        p = pairs_for_load(alpha, d)
        t0 = time.perf_counter()
        batch = sample_problems(p, d, seeds_, device=device)
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
                                    "recalled_all": bool(rec[m][i].all()),
                                    "accuracy": float(rec[m][i].mean())})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


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
        :func:`assocmem.linear.sweeps.capacity_sweep` or :func:`truncated_hebbian_sweep` output;
        every group must hold every one of the same seeds at each of its loads.
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


def normalized_margin(W: torch.Tensor, problem: MemoryProblem) -> np.ndarray:
    """Smallest margin of a memory in units of ``sigma_W = ||W||_F / d``, per problem.

    Parameters
    ----------
    W : torch.Tensor, shape (d, d) or (B, d, d)
        The memory (one per problem of a batch).
    problem : MemoryProblem
        Unbatched or batched instance (OP or DP).

    Returns
    -------
    numpy.ndarray, float64, shape () or (B,)
        ``min_mu (s_mumu - max_{nu != mu} s_munu) / sigma_W``: positive exactly when every
        association is recalled; invariant under ``W -> c W`` (c > 0).

    Raises
    ------
    TypeError, ValueError
        As :func:`assocmem.linear.problems.target_competitor_scores`, or for a zero ``W``.

    Notes
    -----
    Gardner's normalisation ``||W||_F^2 = d^2`` (chapter 2), in which random-``W`` scores have
    unit variance; the quantity a maximum-margin memory maximises. Equals ``d`` times
    ``gamma_2(W)`` of chapter 1, eq. ``eq-normalised-margin``.
    """
    tgt, comp = target_competitor_scores(W, problem)
    Wt = torch.as_tensor(W)
    norm = torch.linalg.matrix_norm(Wt.double()).cpu().numpy()
    if np.any(norm <= 0):
        raise ValueError("the margin of a zero memory is undefined")
    gap = (tgt - comp.max(-1).values).min(-1).values.double().cpu().numpy()
    return np.asarray(gap / (norm / problem.d))


@dataclass(frozen=True)
class MaxMarginResult:
    """Outcome of :func:`train_max_margin`.

    Attributes
    ----------
    weights : torch.Tensor, float32, shape (B, d, d)
        The memories with the largest margin seen, rank at most ``rank``, ``||W||_F = d``.
    margin : numpy.ndarray, float64, shape (B,)
        :func:`normalized_margin` of ``weights``.
    history : dict of numpy.ndarray
        ``"step"`` (n,), ``"margin"`` (n, B): the normalised margin at check steps.
    """

    weights: torch.Tensor
    margin: np.ndarray
    history: dict[str, np.ndarray]


def train_max_margin(
    problem: MemoryProblem,
    rank: int,
    *,
    init: torch.Tensor | None = None,
    steps: int = 1000,
    lr: float = 0.02,
    beta: float = 20.0,
    check_every: int = 25,
) -> MaxMarginResult:
    """Maximise the smallest normalised margin over memories of rank at most ``m``.

    Minimises the smooth maximum of all negative margins at Gardner's normalisation,

        L(W) = (1/beta) log sum_mu sum_{nu != mu} exp(-beta (s_mumu - s_munu) / sigma_W),

    (a log-sum-exp over the ``p (p - 1)`` constraints, which tends to ``-min margin`` as
    ``beta -> inf``) by Adam on ``W``, rescaling ``W`` to ``||W||_F = d`` and projecting it onto
    rank ``m`` (:func:`truncate_rank`) after every step; the step size decays to 0 on a cosine,
    and the iterate with the largest smallest margin (checked every ``check_every`` steps, the
    start included) is returned, so the result never has a smaller margin than the start.

    Parameters
    ----------
    problem : MemoryProblem
        A batched OP instance (:func:`assocmem.linear.sampling.sample_problems`), B problems.
    rank : int
        ``m`` in ``1..d``; ``m = d`` is the unconstrained maximum-margin memory.
    init : torch.Tensor, shape (B, d, d), optional
        Starting memories (e.g. trained ``Q R^T``); default the Hebbian memory. Projected onto
        rank ``m`` and normalised first.
    steps : int
        Adam steps, >= 1.
    lr : float
        Adam step size (> 0), in units of the entries of ``W`` (about 1 at ``||W||_F = d``).
    beta : float
        Inverse temperature of the smooth maximum (> 0), in units of ``1 / sigma_W``.
    check_every : int
        Interval of the margin check (history and best iterate), >= 1.

    Returns
    -------
    MaxMarginResult

    Raises
    ------
    TypeError
        If ``problem`` is not a batched OP instance or ``init`` not a tensor.
    ValueError
        Bad ``rank``, ``steps``, ``lr``, ``beta``, or an ``init`` of the wrong shape.

    Notes
    -----
    Projected gradient for the rank-constrained maximum-margin problem; the smoothing follows
    the usual log-sum-exp bound ``max <= L <= max + log(p (p - 1)) / beta``. The spectral
    argument of chapter 4 (digest section 7.2) is a statement about this optimum; the memories
    are those of chapter 4, eq. ``eq-rank-model``.
    """
    if not isinstance(problem, MemoryProblem) or not problem.batched or problem.decoupled:
        raise TypeError("problem must be a batched original-problem MemoryProblem")
    d, p, B = problem.d, problem.p, problem.batch_size
    m = check_int("rank", rank, 1)
    if m > d:
        raise ValueError(f"rank must be in [1, {d}], got {m}")
    steps = check_int("steps", steps, 1)
    check_every = check_int("check_every", check_every, 1)
    lr = check_positive("lr", lr)
    beta = check_positive("beta", beta)
    E, U = problem.inputs, problem.targets
    if init is None:
        W0 = hebbian_memory(problem)
    else:
        if not isinstance(init, torch.Tensor):
            raise TypeError(f"init must be a torch.Tensor, got {type(init).__name__}")
        if tuple(init.shape) != (B, d, d):
            raise ValueError(f"init must have shape {(B, d, d)}, got {tuple(init.shape)}")
        W0 = init.detach().to(device=E.device, dtype=torch.float32)

    def project(W: torch.Tensor) -> torch.Tensor:
        Wm = truncate_rank(W, m) if m < d else W
        return Wm * (d / torch.linalg.matrix_norm(Wm))[:, None, None]

    W = project(W0.clone()).requires_grad_(True)
    opt = torch.optim.Adam([W], lr=lr)
    eye = torch.eye(p, dtype=torch.bool, device=E.device)
    hist_t: list[int] = []
    hist_m: list[np.ndarray] = []
    best = W.detach().clone()
    best_m = np.full(B, -np.inf)
    for t in range(steps + 1):
        if t % check_every == 0 or t == steps:
            with torch.no_grad():
                marg = normalized_margin(W.detach(), problem)
                better = torch.as_tensor(marg > best_m, device=E.device)
                best[better] = W.detach()[better]
                best_m = np.maximum(best_m, marg)
                hist_t.append(t)
                hist_m.append(marg)
        if t == steps:
            break
        for group in opt.param_groups:  # cosine decay of the step size to 0
            group["lr"] = 0.5 * lr * (1.0 + math.cos(math.pi * t / steps))
        sigma = torch.linalg.matrix_norm(W) / d  # (B,)
        S = E @ W.transpose(-1, -2) @ U.transpose(-1, -2)  # (B, p, p)
        gap = (S.diagonal(dim1=-2, dim2=-1)[..., None] - S) / sigma[:, None, None]
        z = (-beta * gap).masked_fill(eye, -math.inf)
        loss = torch.logsumexp(z.flatten(-2), dim=-1).sum() / beta
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            W.copy_(project(W))
    return MaxMarginResult(
        best,
        normalized_margin(best, problem),
        {"step": np.asarray(hist_t), "margin": np.stack(hist_m)},
    )


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
        and ``margin`` (mean :func:`normalized_margin`).

    Raises
    ------
    TypeError, ValueError
        As :func:`assocmem.linear.spectra.singular_values` and :func:`normalized_margin`.
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
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Test causes of a broad trained spectrum on the instances of one rank-``m`` sweep group.

    On the stored memories at one load of the group (``load``, first ``n_memories`` seeds),
    compare with the truncated quarter
    circle the singular values of: the trained ``Q R^T`` (stopped at first perfect recall);
    the same instances trained ``long_steps`` steps without early stop (longer training); the
    trained memories continued by :func:`train_max_margin` (a margin-maximising objective at
    Gardner's normalisation); the rank-``m`` truncated Hebbian memory (the weighted-Hebbian form
    the spectral argument assumes, with equal weights); and, if ``large_d`` is given, ``Q R^T``
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
        Passed to :func:`train_max_margin` as ``steps``, ``lr``, ``beta``.
    large_d : int, optional
        A larger embedding dimension (>= 2) for the last row.
    large_alpha : float, optional
        Load of the larger-``d`` instances (required with ``large_d``).
    load : float, optional
        Actual load (a value of the table's ``load`` column) whose stored memories are used;
        default the load :func:`assocmem.linear.measured_spectra.stored_spectra` picks.
    device : str, torch.device or None
        Where to train.

    Returns
    -------
    pandas.DataFrame
        One row per memory, the fields of :func:`spectrum_summary`.

    Raises
    ------
    ValueError
        If the table is not one rank-constrained group with weights, nothing was stored, or
        ``large_d`` comes without ``large_alpha``.
    """
    if "weights" not in table.columns or table[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
        raise ValueError("table must be one sweep group made with keep_weights=True")
    n_memories = check_int("n_memories", n_memories, 1)
    d, m = int(table["d"].iloc[0]), int(table["rank"].iloc[0])
    if load is None:
        load = float(stored_spectra(table)["load"].iloc[0])
    sel = table[np.isclose(table["load"], load) & table["recalled_all"]].sort_values("seed")
    if len(sel) == 0:
        raise ValueError("no memory of this group stored every association")
    sel = sel.iloc[:n_memories]
    p = int(sel["p"].iloc[0])
    batch = sample_problems(p, d, [int(s) for s in sel["seed"]], device=device)
    W0 = torch.as_tensor(np.stack(sel["weights"].to_list()), device=batch.device)
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
        big = sample_problems(pl, dl, len(sel), device=device)
        res = train_memory(big, rank=ml, steps=long_steps, lr=lr, patience=400)
        ok = torch.as_tensor(np.asarray(res.perfect), device=big.device)
        if bool(ok.any()):
            idx = torch.nonzero(ok).ravel().tolist()
            sub = sample_problems(pl, dl, idx, device=device)
            rows.append(spectrum_summary("trained QR^T, first perfect step",
                                         res.weights[ok], sub, ml))  # fmt: skip
    return pd.DataFrame(rows)
