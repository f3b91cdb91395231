"""Score statistics of linear memories: targets against their strongest competitors.

:func:`score_statistics` measures, for a given memory ``W`` on its problem, the target score
``u_mu^T W e_mu`` and the largest competitor score of every input in units of
``sigma_W = ||W||_F / d``; :func:`spread_summary` condenses them to a few numbers;
:func:`simulate_scores` samples Hebbian memories (float64, Gaussian or spherical embeddings) and
returns their target and non-target scores, the simulation the Hebbian theory of
:mod:`assocmem.linear.theory.hebbian` is checked against (:func:`hebbian_recall_check` does that
check for both recall criteria, with many instances per load); :func:`mechanism_scores` measures the
Hebbian and the trained memory on the same problems and :func:`mechanism_report` prints them next
to the RS optimal mechanism.

Source: digest of arXiv:2605.10795, §6 (units sigma_W) and §9 (observables); reconstruction,
see chapter 3.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import torch

from assocmem._validate import check_int, seed_list
from assocmem.device import get_device
from assocmem.estimate import Estimate, Verdict, difference, render, verdict
from assocmem.linear.instances.problems import MemoryProblem, target_competitor_scores
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.hebbian import recall_probability
from assocmem.linear.theory.load import load_for_pairs
from assocmem.stats import bootstrap_interval, crossing, mean_interval, rate
from assocmem.streams import Seed, as_seed_sequence, child, torch_generator


def score_statistics(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> dict[str, Any]:
    """Target scores and per-input maximum competitor scores in units of sigma_W = ||W||_F / d.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        Memory matrix or a batch of them (a batch of W on one problem, or paired with a batched
        problem of the same batch size).
    problem : MemoryProblem
        OP or DP, unbatched or batched (see :mod:`assocmem.linear.instances.problems`).

    Returns
    -------
    dict
        ``target`` : ndarray float64, shape (p,) or (B, p) -- ``u_mu^T W e_mu / sigma_W``;
        ``max_competitor`` : same shape -- ``max_nu`` competitor score ``/ sigma_W`` (OP: the other
        targets; DP: the private competitors); ``gap`` = target - max_competitor (> 0 means
        recalled); ``competitor`` : ndarray float64, shape (p * (p-1),) or (B, p * (p-1)) -- all
        competitor scores ``/ sigma_W``, input by input (row ``mu`` of
        :func:`~assocmem.linear.instances.problems.target_competitor_scores`, flattened);
        ``sigma_w`` : float or ndarray (B,) -- ``||W||_F / d`` in the units of the scores; ``p`` and
        ``d`` (int).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` is not a tensor/array.
    ValueError
        If shapes do not match or some W is identically zero (no scale).

    Notes
    -----
    Source: digest §6 (units sigma_W) and §9 (observables); reconstruction, see chapter 3.
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if isinstance(W, np.ndarray):
        W = torch.from_numpy(W)
    if not isinstance(W, torch.Tensor):
        raise TypeError(f"W must be a torch tensor or numpy array, got {type(W).__name__}")
    W = W.detach()  # read as data (issue 42, item 16)
    tgt, comp = target_competitor_scores(W, problem)  # validates shapes
    Wd = W.to(dtype=torch.float64)
    sigma = torch.linalg.matrix_norm(Wd).cpu() / problem.d  # (,) or (B,)
    if torch.any(sigma == 0):
        raise ValueError("W is identically zero (for some batch entry): scores have no scale")
    scale = sigma.to(tgt.device).unsqueeze(-1)
    if tgt.dim() > scale.dim() or (tgt.dim() == 2 and scale.dim() == 1):
        scale = scale.reshape(*scale.shape, *([1] * (tgt.dim() - scale.dim())))
    t = tgt.double() / scale
    m = comp.max(-1).values.double() / scale
    c = comp.double() / scale.unsqueeze(-1)
    sig = sigma.numpy()
    return {
        "target": t.cpu().numpy(),
        "max_competitor": m.cpu().numpy(),
        "gap": (t - m).cpu().numpy(),
        "competitor": c.reshape(*c.shape[:-2], -1).cpu().numpy(),
        "sigma_w": float(sig) if sig.ndim == 0 else sig,
        "p": problem.p,
        "d": problem.d,
    }


def spread_summary(stats: dict[str, Any]) -> dict[str, float]:
    """Summary numbers of :func:`score_statistics` output (all inputs and batch entries pooled).

    Parameters
    ----------
    stats : dict
        Output of :func:`score_statistics`.

    Returns
    -------
    dict of float
        ``target_mean``, ``target_std``, ``max_competitor_mean``, ``max_competitor_std``,
        ``gap_mean``, ``gap_std``, ``extreme_value_level`` = sqrt(2 log p) and ``recalled`` (the
        fraction of inputs with a positive gap).

    Raises
    ------
    KeyError
        If a field of :func:`score_statistics` is missing.
    """
    t = np.ravel(stats["target"])
    m = np.ravel(stats["max_competitor"])
    g = np.ravel(stats["gap"])
    return {
        "target_mean": float(t.mean()),
        "target_std": float(t.std(ddof=1)),
        "max_competitor_mean": float(m.mean()),
        "max_competitor_std": float(m.std(ddof=1)),
        "gap_mean": float(g.mean()),
        "gap_std": float(g.std(ddof=1)),
        "extreme_value_level": math.sqrt(2.0 * math.log(int(stats["p"]))),
        "recalled": float(np.mean(g > 0)),
    }


def simulate_scores(
    p: int,
    d: int,
    *,
    embedding: str = "gaussian",
    n_instances: int = 1,
    seed: Seed = 0,
    device: str | torch.device | None = "cpu",
) -> dict[str, torch.Tensor]:
    """Sample Hebbian memories and return their target and non-target scores.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 1.
    embedding : {"gaussian", "spherical"}
        Law of the embeddings (``"leading"`` has no sampler).
    n_instances : int
        Independent memories, >= 1.
    seed : int or numpy.random.SeedSequence
        The stream of the torch generator (:func:`assocmem.streams.torch_generator`; same seed
        -> same scores).
    device : str, torch.device or None
        Where to compute (see :func:`assocmem.device.get_device`); results are on the CPU.

    Returns
    -------
    dict of torch.Tensor (float64, CPU)
        ``target`` of shape (n_instances, p); ``nontarget`` of shape (n_instances, p, p - 1)
        (row mu holds the scores of the p - 1 wrong outputs for input mu); ``sigma_w``, shape
        (n_instances,), = ||W||_F / d.

    Raises
    ------
    ValueError
        If a size is out of range or the embedding is unknown or ``"leading"``.

    Notes
    -----
    The Hebbian memory of chapter 3, eq. ``eq-hebb``, and its scores.
    """
    for name, val, lo in (("p", p, 2), ("d", d, 1), ("n_instances", n_instances, 1)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {val!r}")
    if embedding not in ("gaussian", "spherical"):
        raise ValueError(f"embedding must be 'gaussian' or 'spherical', got {embedding!r}")
    gen = torch_generator(seed)
    dev = get_device(device)
    e = torch.randn(n_instances, p, d, generator=gen, dtype=torch.float64).to(dev)
    u = torch.randn(n_instances, p, d, generator=gen, dtype=torch.float64).to(dev)
    if embedding == "gaussian":
        e, u = e / math.sqrt(d), u / math.sqrt(d)
    else:
        e = e / e.norm(dim=-1, keepdim=True)
        u = u / u.norm(dim=-1, keepdim=True)
    w = u.transpose(1, 2) @ e  # sum_mu u_mu e_mu^T, shape (n, d, d)
    s = e @ w.transpose(1, 2) @ u.transpose(1, 2)  # S[mu, nu] = u_nu^T W e_mu
    eye = torch.eye(p, dtype=torch.bool, device=dev)
    target = torch.diagonal(s, dim1=1, dim2=2)
    nontarget = s[:, ~eye].reshape(n_instances, p, p - 1)
    sigma_w = w.pow(2).sum(dim=(1, 2)).sqrt() / d
    return {"target": target.cpu(), "nontarget": nontarget.cpu(), "sigma_w": sigma_w.cpu()}


def hebbian_recall_check(
    d: int,
    p_values: Sequence[int],
    *,
    n_instances: int = 600,
    seed: Seed = 0,
    n_boot: int = 1000,
    device: str | torch.device | None = "cpu",
) -> pd.DataFrame:
    """Hebbian recall theory against simulation, both criteria, with many instances per load.

    For each ``p`` it samples ``n_instances`` Hebbian memories (:func:`simulate_scores`, Gaussian
    embeddings) and compares the theory of :func:`assocmem.linear.theory.hebbian.recall_probability`
    with the measured rates, and the measured ``P(all)`` with what independent inputs would give.

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    p_values : sequence of int
        Numbers of associations, each >= 2.
    n_instances : int
        Independent memories per ``p``, >= 2 (the resampling units of every interval).
    seed : int or numpy.random.SeedSequence
        Root; the memories of a ``p`` are drawn from ``child(seed, p, 0)`` and its bootstrap from
        ``child(seed, p, 1)`` (:func:`assocmem.streams.child`), so a row does not depend on the
        other ``p`` or their order.
    n_boot : int
        Bootstrap resamples over instances for ``indep_gap``.
    device : str, torch.device or None
        Where to compute.

    Returns
    -------
    pandas.DataFrame
        One row per ``p``: ``p``, ``load``, ``n`` (instances); ``theory_all`` (``P_1^p``) and
        ``sim_all`` (:class:`assocmem.estimate.Estimate`, Wilson over instances: every input
        recalled); ``diff_all`` (Estimate: simulation minus theory, the Wilson interval shifted;
        its verdict against 0 is the comparison) and ``z_all`` = (theory - simulation) /
        sqrt(theory (1 - theory) / n), the gap in standard errors of a binomial fraction at the
        theory's value (an effect size; NaN where that is 0); ``theory_p1`` and ``sim_acc``
        (Estimate, Student t over the instance accuracies), ``diff_p1`` (``sim_acc`` minus
        ``theory_p1``) and ``z_p1`` = (theory - simulation) / standard error of ``sim_acc``;
        ``indep_all`` = (pooled accuracy)^p, what ``P(all)`` would be if inputs failed
        independently with the measured accuracy; ``indep_gap`` = ``sim_all - indep_all``
        (Estimate, bootstrap over instances); ``fail_rate`` (pooled fraction of inputs not
        recalled) and ``pair_share`` (Estimate, Wilson over the failed inputs, ``n`` of them:
        among inputs not recalled, the fraction whose winning competitor's own input is not
        recalled either; about ``fail_rate`` if failures are independent, near 1 if they come
        in pairs; NaN where none fails; a bootstrap over instances would give the point
        interval [0, 0] when no pair is seen).

    Raises
    ------
    TypeError
        If ``p_values`` is not a sequence of integers or ``seed`` not a seed.
    ValueError
        If a size is out of range, ``p_values`` is empty or ``seed < 0``.

    Notes
    -----
    Theory: chapter 3, eq. ``eq-hebb-recall`` (reconstruction), which treats the inputs as
    independent (criterion "all" is ``P_1^p``). Independence is tested directly by
    ``indep_gap`` and ``pair_share``.
    """
    for name, val, lo in (("d", d, 2), ("n_instances", n_instances, 2)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {val!r}")
    as_seed_sequence(seed)
    if isinstance(p_values, (str, bytes)) or not isinstance(p_values, Iterable):
        raise TypeError(f"p_values must be a sequence of integers >= 2, got {p_values!r}")
    p_list = [check_int(f"p_values[{i}]", p, 2) for i, p in enumerate(p_values)]
    if not p_list:
        raise ValueError("p_values must hold at least one p")
    rows = []
    for p in p_list:
        sim = simulate_scores(p, d, n_instances=n_instances, seed=child(seed, p, 0), device=device)
        nont = sim["nontarget"]
        ok = (sim["target"] > nont.max(-1).values).numpy()  # (n, p)
        # the output index of each input's strongest competitor (row mu skips column mu)
        j = nont.argmax(-1).numpy()
        winner = j + (j >= np.arange(p)[None, :])
        fail = ~ok
        partner_fails = np.take_along_axis(fail, winner, axis=1)
        per_inst = np.stack([fail.sum(1), (fail & partner_fails).sum(1)], axis=1).astype(float)
        acc = ok.mean(1)
        everything = ok.all(1)
        theory_p1 = float(recall_probability(p, d, criterion="typical"))
        theory_all = theory_p1 ** int(p)
        sim_all = rate(everything)
        sim_acc = mean_interval(acc)
        assert isinstance(sim_acc, Estimate)
        pooled = float(acc.mean())

        def gap_stat(a: np.ndarray, p: int = int(p)) -> np.ndarray:  # (B, n, 2): acc, all
            return a[..., 1].mean(1) - a[..., 0].mean(1) ** p

        both = np.stack([acc, everything.astype(float)], 1)
        gap = bootstrap_interval(both, stat=gap_stat, n_boot=n_boot, seed=child(seed, p, 1),
                                 unit="instances")  # fmt: skip
        n_fail, n_pair = int(per_inst[:, 0].sum()), int(per_inst[:, 1].sum())
        if n_fail > 0:  # Wilson over the failed inputs (bootstrap degenerates at 0 pairs)
            pair = replace(rate(n_pair, n_fail), method="Wilson over failed inputs")
        else:
            pair = Estimate(math.nan, math.nan, math.nan, 0, "no failures")
        se_all = math.sqrt(theory_all * (1 - theory_all) / n_instances)
        rows.append({
            "p": int(p), "load": load_for_pairs(int(p), d), "n": n_instances,
            "theory_all": theory_all, "sim_all": sim_all,
            "diff_all": difference(sim_all, theory_all),
            "z_all": (theory_all - sim_all.value) / se_all if se_all > 0 else math.nan,
            "theory_p1": theory_p1, "sim_acc": sim_acc, "diff_p1": difference(sim_acc, theory_p1),
            "z_p1": (theory_p1 - sim_acc.value) / sim_acc.stderr
            if sim_acc.stderr > 0 else math.nan,
            "indep_all": pooled ** int(p), "indep_gap": gap,
            "fail_rate": 1.0 - pooled, "pair_share": pair,
        })  # fmt: skip
    return pd.DataFrame(rows)


def recall_check_table(check: pd.DataFrame) -> pd.DataFrame:
    """:func:`hebbian_recall_check` as chapter 3 shows it: one row per load, intervals as text.

    Parameters
    ----------
    check : pandas.DataFrame
        Output of :func:`hebbian_recall_check`.

    Returns
    -------
    pandas.DataFrame
        Columns ``p``, ``load``, ``P(all) theory``, ``P(all) simulated [95 %]``, ``z`` (an
        effect size), ``vs theory`` (the verdict of the simulation minus the theory),
        ``P_1 theory``, ``accuracy simulated [95 %]``, ``z (P_1)``, ``vs P_1``, ``accuracy^p``,
        ``P(all) − accuracy^p [95 %]``, ``failure rate`` and ``pair share [95 %]``.
    """
    return pd.DataFrame({
        "p": check["p"], "load": check["load"], "P(all) theory": check["theory_all"],
        "P(all) simulated [95 %]": [render(e) for e in check["sim_all"]], "z": check["z_all"],
        "vs theory": [str(verdict(e)) for e in check["diff_all"]],
        "P_1 theory": check["theory_p1"],
        "accuracy simulated [95 %]": [render(e, ".4f") for e in check["sim_acc"]],
        "z (P_1)": check["z_p1"], "vs P_1": [str(verdict(e)) for e in check["diff_p1"]],
        "accuracy^p": check["indep_all"],
        "P(all) − accuracy^p [95 %]": [render(e) for e in check["indep_gap"]],
        "failure rate": check["fail_rate"],
        "pair share [95 %]": [render(e, ".4f") for e in check["pair_share"]],
    })  # fmt: skip


def recall_check_summary(check: pd.DataFrame) -> dict[str, Estimate | float | int]:
    """Return the numbers chapter 3 quotes from :func:`hebbian_recall_check`, by label.

    Parameters
    ----------
    check : pandas.DataFrame
        Output of :func:`hebbian_recall_check`.

    Returns
    -------
    dict
        ``n`` (instances per load), ``p_lo``/``p_hi`` and ``load_lo``/``load_hi`` (range of the
        loads); ``all_below`` and ``p1_below`` (loads at which the simulated ``P(all)``, and the
        measured accuracy, lie below the theory's: the verdicts of ``diff_all`` and ``diff_p1``);
        ``gap_lo`` (smallest lower end) and ``gap_hi`` (largest upper end) of the intervals of
        ``P(all) - accuracy^p``; ``pair_hi`` (largest upper end of the pair-share intervals)
        and ``fail_lo`` (smallest failure rate); and for the first load ``th0`` (theory
        ``P(all)``) and ``sim0`` (its simulated Estimate).
    """
    gaps, pairs = list(check["indep_gap"]), list(check["pair_share"])
    return {
        "n": int(check["n"].min()), "p_lo": int(check["p"].min()), "p_hi": int(check["p"].max()),
        "load_lo": float(check["load"].min()), "load_hi": float(check["load"].max()),
        "all_below": sum(verdict(e) is Verdict.BELOW for e in check["diff_all"]),
        "p1_below": sum(verdict(e) is Verdict.BELOW for e in check["diff_p1"]),
        "gap_lo": float(min(g.low for g in gaps)), "gap_hi": float(max(g.high for g in gaps)),
        "pair_hi": float(np.nanmax([e.high for e in pairs])),
        "fail_lo": float(check["fail_rate"].min()),
        "th0": float(check["theory_all"].iloc[0]), "sim0": check["sim_all"].iloc[0],
    }  # fmt: skip


def recall_check_crossing(check: pd.DataFrame, *, n_draws: int = 2000, seed: Seed = 0) -> Estimate:
    """Load at which the simulated ``P(all)`` of a :func:`hebbian_recall_check` crosses 1/2.

    The crossing of criterion "all" from the check's many instances per load (chapter 3's
    headline at ``d = 64``): the first downward crossing of 1/2 by the fraction of instances with
    every association recalled, linearly interpolated in the load, with the 95 % interval of a
    Jeffreys-posterior bootstrap (:func:`assocmem.stats.crossing` with ``interval="jeffreys"``,
    as :func:`assocmem.linear.measure.transitions.transition_load` does for a sweep): the success
    probability of each load is redrawn from ``Beta(k + 1/2, n - k + 1/2)``, ``k`` of ``n``
    instances stored.

    Parameters
    ----------
    check : pandas.DataFrame
        Output of :func:`hebbian_recall_check`, at least 2 loads (one ``d``).
    n_draws : int
        Posterior draws, >= 10.
    seed : int or numpy.random.SeedSequence
        Seed of the draws.

    Returns
    -------
    assocmem.estimate.Estimate
        ``value`` (NaN when the fraction does not cross 1/2 between two of the check's loads),
        the interval over the draws that cross inside the loads (``used``: their fraction),
        ``n`` (smallest number of instances at a load), ``method = "Jeffreys posterior"``.

    Raises
    ------
    TypeError
        If ``check`` is not a DataFrame.
    ValueError
        If it lacks the check's columns, holds fewer than 2 loads, or ``n_draws < 10``.
    """
    if not isinstance(check, pd.DataFrame):
        raise TypeError(
            f"check must be a DataFrame of hebbian_recall_check, got {type(check).__name__}"
        )
    missing = {"load", "sim_all"} - set(check.columns)
    if missing:
        raise ValueError(f"check lacks the columns {sorted(missing)} of hebbian_recall_check")
    if len(check) < 2:
        raise ValueError(f"check must hold at least 2 loads to cross, got {len(check)}")
    rows = check.sort_values("load")
    sims = list(rows["sim_all"])
    n = [int(e.n) for e in sims]
    k = [int(round(e.value * m)) for e, m in zip(sims, n, strict=True)]
    # one 0/1 column per load (k stored of n); rows past a load's n are missing (NaN)
    outcomes = np.full((max(n), len(n)), np.nan)
    for j, (kj, nj) in enumerate(zip(k, n, strict=True)):
        outcomes[:nj, j] = 0.0
        outcomes[:kj, j] = 1.0
    return crossing(rows["load"].to_numpy(float), outcomes, 0.5, interval="jeffreys",
                    n_boot=check_int("n_draws", n_draws, 10), seed=seed)  # fmt: skip


def mechanism_scores(
    p: int,
    d: int,
    *,
    seeds: int | Iterable[int] = 1,
    seed: Seed = 0,
    steps: int = 3000,
    lr: float = 0.05,
    decoupled: bool = False,
    device: str | torch.device | None = None,
) -> dict[str, dict[str, Any]]:
    """Score statistics of the Hebbian and of the trained memory on the same problems.

    The trained W runs the whole budget (no early stop) instead of stopping at the first perfect
    step.

    Parameters
    ----------
    p, d : int
        Problem size.
    seeds : int or iterable of int
        Labels of the problems, pooled in the returned statistics (an int n means range(n)):
        ``sample_problems(p, d, seeds, seed=seed)``.
    seed : int or numpy.random.SeedSequence
        The root of the problems (:func:`assocmem.linear.instances.sampling.instance_stream`).
    steps, lr : int, float
        Training budget and Adam step size.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to compute.

    Returns
    -------
    dict
        ``{"hebbian": stats, "trained": stats}`` with ``stats`` from :func:`score_statistics`
        (batched over seeds), plus ``stats["accuracy"]`` (mean over inputs and seeds).

    Raises
    ------
    TypeError, ValueError
        Bad sizes or seeds.

    Notes
    -----
    Observables of the digest of arXiv:2605.10795, §6 (reconstruction); see chapter 3.
    """
    batch = sample_problems(p, d, seed_list(seeds), seed=seed, decoupled=decoupled, device=device)
    res = train_memory(batch, steps=steps, lr=lr, early_stop=False, device=device)
    out: dict[str, dict[str, Any]] = {}
    for name, w in (("hebbian", hebbian_memory(batch)), ("trained", res.weights)):
        st = score_statistics(w, batch)
        st["accuracy"] = float(np.mean(st["gap"] > 0))
        out[name] = st
    return out


def mechanism_report(
    stats: Mapping[str, Mapping[str, Any]],
    rs: Mapping[str, Any],
    rs_capacity: Mapping[str, Any],
    *,
    margin: float,
) -> str:
    """Chapter 3's printed comparison of the Hebbian, trained and RS optimal score levels.

    Parameters
    ----------
    stats : mapping
        :func:`mechanism_scores` output (``"hebbian"`` and ``"trained"`` statistics).
    rs, rs_capacity : mapping
        :func:`assocmem.linear.theory.mechanism.optimal_mechanism` output at the max-margin
        ``margin`` and at capacity (margin 0): arrays ``level``, ``n_active``, ``raw_max``.
    margin : float
        The max-margin ``kappa_0`` of ``rs`` (units of ``sigma_W``).

    Returns
    -------
    str
        Five lines: sizes and load with ``sqrt(2 log p)``; the target standard deviations and
        their ratio; the trained target, maximum-competitor and gap means; the RS level ``T*``
        (mean +- standard deviation), ``k`` and the raw competitor maximum at ``margin``; the
        same at capacity. All in units of ``sigma_W``.

    Raises
    ------
    KeyError
        If a field is missing.

    Notes
    -----
    Source: digest §6 (units sigma_W, eq-tstar); reconstruction, see chapter 3.
    """
    heb, opt = spread_summary(dict(stats["hebbian"])), spread_summary(dict(stats["trained"]))
    p, d = int(stats["hebbian"]["p"]), int(stats["hebbian"]["d"])
    load = load_for_pairs(p, d)
    lv, cap = np.asarray(rs["level"]), np.asarray(rs_capacity["level"])
    return "\n".join([
        f"p = {p}, d = {d}, alpha = {load:.3f}, "
        f"sqrt(2 log p) = {heb['extreme_value_level']:.2f}",
        f"target std: Hebbian {heb['target_std']:.2f}, trained {opt['target_std']:.2f}, "
        f"ratio {heb['target_std'] / opt['target_std']:.1f}",
        f"trained: target mean {opt['target_mean']:.2f}, max competitor mean "
        f"{opt['max_competitor_mean']:.2f}, gap mean {opt['gap_mean']:.2f}",
        f"RS max-margin (kappa0 = {margin:.2f}): T* = {lv.mean():.2f} +- {lv.std():.2f}, "
        f"pushed competitors k = {np.mean(rs['n_active']):.1f},",
        f"    raw competitor max {np.mean(rs['raw_max']):.2f}",
        f"RS at capacity (kappa0 = 0): T* = {cap.mean():.2f} +- {cap.std():.2f}, "
        f"k = {np.mean(rs_capacity['n_active']):.1f}",
    ])  # fmt: skip


def mechanism_comparison(
    stats: Mapping[str, Mapping[str, Any]], rs: Mapping[str, Any]
) -> dict[str, Estimate | float]:
    """Return the trained target level and the RS level ``T*``, the numbers chapter 3 quotes.

    Parameters
    ----------
    stats : mapping
        :func:`mechanism_scores` output; ``stats["trained"]["target"]`` of shape (B, p), one row
        per instance (B >= 2: the instances are the resampling units).
    rs : mapping
        :func:`assocmem.linear.theory.mechanism.optimal_mechanism` output (array ``level``, one
        ``T*`` per sampled association), at the max-margin of the same load.

    Returns
    -------
    dict
        ``tr_mean`` (:class:`assocmem.estimate.Estimate`: mean trained target in units of
        sigma_W, Student t over the B instance means), ``tr_sd`` (standard deviation over all
        trained targets), ``hebb_sd`` (the same for the Hebbian memory), ``rs_mean`` and
        ``rs_sd`` (mean and standard deviation of ``T*`` over the RS samples), ``shortfall`` =
        1 - tr_mean / rs_mean (the trained level's relative deficit) and ``shortfall_rs_sd`` =
        (rs_mean - tr_mean) / rs_sd (the deficit in RS spreads).

    Raises
    ------
    ValueError
        If the trained targets hold fewer than 2 instances.
    KeyError
        If a field is missing.
    """
    t = np.asarray(stats["trained"]["target"], dtype=float)
    if t.ndim != 2 or t.shape[0] < 2:
        raise ValueError(f"trained targets must have shape (B >= 2, p), got {t.shape}")
    tr = mean_interval(t.mean(axis=1))
    assert isinstance(tr, Estimate)
    lv = np.asarray(rs["level"], dtype=float)
    rs_mean, rs_sd = float(lv.mean()), float(lv.std(ddof=1))
    return {
        "tr_mean": tr, "tr_sd": float(t.std(ddof=1)),
        "hebb_sd": float(np.std(np.asarray(stats["hebbian"]["target"], dtype=float), ddof=1)),
        "rs_mean": rs_mean, "rs_sd": rs_sd, "shortfall": 1.0 - tr.value / rs_mean,
        "shortfall_rs_sd": (rs_mean - tr.value) / rs_sd,
    }  # fmt: skip
