"""One-step retrieval and the paper's separation gap (Corollary 3.2, Theorem 3.1; chapter 5).

The modern-Hopfield read-out q' = Σ_ν ζ^ν softmax(β r)_ν applied once to the context-gated scores
r = b + λ s (Choraria et al. 2026, Cor. 3.2, restating Ramsauer et al. 2021, Thms 4-5), and the
two gaps the chapter compares: the full score gap Δ = r_μ − max_{ν≠μ} r_ν and the paper's
Δ_raw + λ Δ_gate (Thm 3.1), which is never larger.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import (
    as_float_array,
    check_finite_array,
    check_grid,
    check_index_array,
    check_int,
    check_real,
    check_tensor,
)
from assocmem.context_gated.instances import cued_trials, grid_index, grid_label
from assocmem.context_gated.theory import first_order_scores, gate_fixed_point
from assocmem.estimate import Estimate
from assocmem.stats import bootstrap_interval
from assocmem.streams import Seed, as_seed_sequence, child

__all__ = [
    "top_gap",
    "gap_decomposition",
    "one_step_update",
    "one_step_error_bound",
    "OneStepResult",
    "one_step_experiment",
    "binned_quantile",
    "tail_slope",
    "OneStepSummary",
    "summarize_one_step",
]


def top_gap(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Gap x_μ − max_{ν≠μ} x_ν of the target entry over its best competitor (eq-cg-gaps).

    Parameters
    ----------
    x : torch.Tensor, shape (B, N)
        Scores (N >= 2).
    target : torch.Tensor of int, shape (B,)
        Target index μ per row.

    Returns
    -------
    torch.Tensor, shape (B,), dtype of ``x``

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a finite floating-point tensor of shape (B, N), N >= 2, or ``target`` not
        B integer indices in [0, N).
    """
    check_tensor("x", x, ndim=2)
    if x.shape[1] < 2:
        raise ValueError(f"x must have N >= 2 columns, got shape {tuple(x.shape)}")
    if not isinstance(target, torch.Tensor) or target.dtype.is_floating_point:
        raise TypeError(f"target must be an integer torch.Tensor, got {target!r}")
    check_index_array("target", target.cpu().numpy(), x.shape[1])
    if target.shape != x.shape[:1]:
        raise ValueError(f"target must have shape ({x.shape[0]},), got {tuple(target.shape)}")
    xt = x.gather(1, target.view(-1, 1)).squeeze(1)
    others = x.scatter(1, target.view(-1, 1), -math.inf)
    return xt - others.amax(dim=1)


def gap_decomposition(
    b: torch.Tensor, s: torch.Tensor, lam: float, target: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Return the paper's separation gap and the full score gap of r = b + λ s (eq-cg-gaps).

    Parameters
    ----------
    b : torch.Tensor, shape (B, N)
        Query similarities b_ν = ⟨ζ^ν, q⟩.
    s : torch.Tensor, shape (B, N)
        Gate states (e.g. s = A⁻¹u).
    lam : float
        Coupling λ >= 0.
    target : torch.Tensor of int, shape (B,)
        Target memory μ per trial.

    Returns
    -------
    dict of str to torch.Tensor, each of shape (B,)
        ``"raw"`` Δ_raw = b_μ − max_{ν≠μ} b_ν; ``"gate"`` Δ_gate = s_μ − max_{ν≠μ} s_ν;
        ``"paper"`` Δ_raw + λΔ_gate (the paper's Δ); ``"full"`` r_μ − max_{ν≠μ} r_ν.
        Always ``full >= paper`` (the max of a sum is at most the sum of the maxima).

    Notes
    -----
    Paper Thm 3.1; chapter 5, eq. ``eq-cg-gaps``.

    Raises
    ------
    TypeError, ValueError
        If λ is not a real number >= 0, or the shapes differ.
    """
    la = check_real("lam", lam, low=0.0)
    check_tensor("b", b)
    check_tensor("s", s)
    if not isinstance(target, torch.Tensor):
        raise TypeError(f"target must be an integer torch.Tensor, got {type(target).__name__}")
    if b.shape != s.shape or b.ndim != 2 or target.shape != b.shape[:1]:
        raise ValueError(
            f"b and s must share a shape (B, N) and target be (B,), got {tuple(b.shape)}, "
            f"{tuple(s.shape)}, {tuple(target.shape)}"
        )
    raw, gate = top_gap(b, target), top_gap(s, target)
    return {"raw": raw, "gate": gate, "paper": raw + la * gate, "full": top_gap(b + la * s, target)}


def one_step_update(memories: torch.Tensor, r: torch.Tensor, beta: float) -> torch.Tensor:
    """One modern-Hopfield retrieval step q' = Zᵀ softmax(β r) (eq. ``eq-cg-mhn``).

    The update of eq. ``eq-cg-mhn`` with the context-gated scores r in place of the overlaps; the
    fixed point of the paper's Eq. 4 for the query layer.

    Parameters
    ----------
    memories : torch.Tensor, shape (N, d)
        Stored patterns ζ^ν as rows (Z is N x d throughout chapter 5).
    r : torch.Tensor, shape (B, N)
        Retrieval scores.
    beta : float
        Inverse temperature > 0.

    Returns
    -------
    torch.Tensor, shape (B, d)

    Raises
    ------
    TypeError
        If ``memories`` or ``r`` is not a floating-point tensor.
    ValueError
        If β <= 0, the shapes do not match or an entry is not finite.
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    check_tensor("memories", memories, ndim=2)
    check_tensor("r", r)
    if r.ndim != 2 or r.shape[1] != memories.shape[0]:
        raise ValueError(f"r must have shape (B, N={memories.shape[0]}), got {tuple(r.shape)}")
    return torch.softmax(be * r, dim=-1) @ memories.to(r)


def one_step_error_bound(
    beta_delta: ArrayLike, N: int, *, M: float = 1.0, tight: bool = True
) -> NDArray[np.float64]:
    """Bound on the one-step error ‖q' − ζ^μ‖ in terms of βΔ (eq. ``eq-cg-one-step``).

    Paper Cor. 3.2, restating Ramsauer et al. Thm 5.

    q' − ζ^μ = Σ_{ν≠μ} p_ν (ζ^ν − ζ^μ), so ‖q' − ζ^μ‖ <= 2M(1 − p_μ) with M = max_ν ‖ζ^ν‖, and
    1 − p_μ <= (N − 1)e^{−βΔ}/(1 + (N − 1)e^{−βΔ}) when the score gap is Δ.

    Parameters
    ----------
    beta_delta : array_like
        βΔ, the gap in units of the temperature.
    N : int
        Number of memories >= 2.
    M : float
        Largest memory norm (1 for unit memories), > 0.
    tight : bool
        True: 2M(N − 1)e^{−βΔ}/(1 + (N − 1)e^{−βΔ}); False: the exponential form
        2M(N − 1)e^{−βΔ} of Ramsauer et al.'s Thm 5 (with their Δ replaced by the score gap).

    Returns
    -------
    numpy.ndarray, float64, shape of ``beta_delta``

    Raises
    ------
    ValueError
        If N < 2, M <= 0 or ``beta_delta`` is empty or not finite.

    Notes
    -----
    Reconstruction: the paper's App. B wording of Cor. 3.2 was not recovered; this is the
    one-step bound it restates, written for the gap of the context-gated scores (chapter 5).
    """
    check_int("N", N, 2)
    m = check_real("M", M, low=0.0, strict=True)
    x = check_finite_array("beta_delta", beta_delta)
    if x.size == 0:
        raise ValueError("beta_delta must not be empty")
    if tight:
        # (N-1)e^{-x}/(1+(N-1)e^{-x}) = expit(log(N-1) - x), stable for large |x|
        return np.asarray(2 * m / (1 + np.exp(np.clip(x - math.log(N - 1), -700, 700))))
    return np.asarray(2 * m * (N - 1) * np.exp(-x))


@dataclass
class OneStepResult:
    """Per-trial output of :func:`one_step_experiment` (all arrays of shape (L, S, T)).

    Attributes
    ----------
    lambdas : numpy.ndarray, shape (L,)
    sigma_q : numpy.ndarray, shape (S,)
    delta_full, delta_raw, delta_gate, delta_paper : numpy.ndarray, shape (L, S, T)
        Gaps of :func:`gap_decomposition` (Δ_raw does not depend on λ, Δ_gate on λ or σ_q; they
        are broadcast for convenience).
    error : numpy.ndarray, shape (L, S, T)
        One-step error ‖q' − ζ^μ‖.
    p_target : numpy.ndarray, shape (L, S, T)
        softmax(β r)_μ.
    params : dict
    """

    lambdas: np.ndarray
    sigma_q: np.ndarray
    delta_full: np.ndarray
    delta_raw: np.ndarray
    delta_gate: np.ndarray
    delta_paper: np.ndarray
    error: np.ndarray
    p_target: np.ndarray
    params: dict = field(default_factory=dict)


def one_step_experiment(
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 3.5,
    alpha: float = 0.1,
    sigma_c: float = 0.3,
    sigma_q: Sequence[float] | np.ndarray = (0.5, 1.0, 2.0),
    lambdas: Sequence[float] = (0.0, 1.0, 2.0, 4.0),
    trials: int = 2000,
    noise: str = "unit",
    seed: int = 0,
) -> OneStepResult:
    """One retrieval step from first-order context-gated scores, per trial (Cor. 3.2).

    Same protocol as :func:`~assocmem.context_gated.experiments.separation_experiment` (one memory
    set per call, target μ uniform, q = ζ^μ + σ_q ε, c = ζ^μ + σ_c η through
    :func:`~assocmem.context_gated.instances.noisy_cue`, u = Z c): the gates are s = A(α)⁻¹u
    (:func:`~assocmem.context_gated.theory.gate_fixed_point`), the scores the first-order
    r = b + λ s (:func:`~assocmem.context_gated.theory.first_order_scores`), and one read-out
    q' = Zᵀ softmax(β r) (eq. ``eq-cg-mhn``). Float64 throughout.

    Parameters
    ----------
    N, d : int
        Memories and dimension.
    beta, alpha : float
        Inverse temperature (> 0) and gate competition (in [0, α_crit)).
    sigma_c : float
        Context noise (>= 0).
    sigma_q : 1-D sequence of float
        Query noise levels (>= 0), S values.
    lambdas : 1-D sequence of float
        Couplings λ >= 0, L values.
    trials : int
        Trials per (λ, σ_q) cell, T.
    noise : {"unit", "per_component"}
        Noise normalisation of :func:`noisy_cue`.
    seed : int
        Seed of every draw (memories, targets, ε, η).

    Returns
    -------
    OneStepResult

    Raises
    ------
    TypeError, ValueError
        On out-of-range arguments, or α with A(α) not positive definite.
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    lam_arr = check_grid("lambdas", lambdas)
    cued = cued_trials(N, d, alpha, sigma_c, sigma_q, trials, noise=noise, seed=seed)
    Z, A, target, q, c = cued.Z, cued.A, cued.target, cued.queries, cued.context
    zt, sq, trials = Z[target], cued.sigma_q, target.numel()
    u = c @ Z.T  # (T, N) context inputs
    s = gate_fixed_point(u, A)  # (T, N), s = A⁻¹u
    L, S = lam_arr.size, sq.size
    out = {k: np.zeros((L, S, trials)) for k in ("full", "raw", "gate", "paper", "err", "pt")}
    for si in range(S):
        b = q[si] @ Z.T
        for li, lam in enumerate(lam_arr):
            gaps = gap_decomposition(b, s, float(lam), target)
            r = first_order_scores(b, u, A, float(lam))
            q1 = one_step_update(Z, r, be)
            for k in ("full", "raw", "gate", "paper"):
                out[k][li, si] = gaps[k].numpy()
            out["err"][li, si] = (q1 - zt).norm(dim=1).numpy()
            out["pt"][li, si] = torch.softmax(be * r, dim=-1)[torch.arange(trials), target].numpy()
    params = {**cued.settings, "beta": be, "seed": seed}
    return OneStepResult(
        lam_arr,
        sq,
        out["full"],
        out["raw"],
        out["gate"],
        out["paper"],
        out["err"],
        out["pt"],
        params,
    )


def binned_quantile(
    x: ArrayLike,
    y: ArrayLike,
    edges: ArrayLike,
    *,
    q: float = 0.5,
    min_count: int = 20,
    n_boot: int = 500,
    seed: Seed = 0,
) -> dict[str, NDArray[np.float64]]:
    """Quantile of y in bins of x, with a bootstrap 95 % interval per bin.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Paired samples (e.g. βΔ and the one-step error), finite.
    edges : array_like, shape (K + 1,)
        Increasing bin edges.
    q : float
        Quantile in (0, 1) (default the median).
    min_count : int
        Bins with fewer samples are returned as NaN.
    n_boot : int
        Bootstrap resamples per bin.
    seed : int or numpy.random.SeedSequence
        Root of the resampling; bin ``k`` resamples from its own stream ``child(seed, k)``
        (:func:`assocmem.streams.child`).

    Returns
    -------
    dict of str to numpy.ndarray, each of shape (K,)
        ``"centre"`` (mean x in the bin), ``"value"``, ``"low"``, ``"high"``, ``"count"``.

    Raises
    ------
    ValueError
        If the shapes differ, values are not finite, edges are not increasing or q is outside
        (0, 1).
    """
    xa, ya, e = (as_float_array(v, n) for v, n in ((x, "x"), (y, "y"), (edges, "edges")))
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(f"x and y must be 1-D of one length, got {xa.shape}, {ya.shape}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("x and y must be finite")
    if e.ndim != 1 or e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise ValueError("edges must be a strictly increasing 1-D array of >= 2 values")
    qq = check_real("q", q, low=0.0, strict=True)
    if qq >= 1:
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    min_count = check_int("min_count", min_count, 1)
    n_boot = check_int("n_boot", n_boot, 1)
    as_seed_sequence(seed)
    K = e.size - 1
    res = {k: np.full(K, np.nan) for k in ("centre", "value", "low", "high")}
    res["count"] = np.zeros(K)
    which = np.digitize(xa, e) - 1
    for k in range(K):
        sel = which == k
        n = int(sel.sum())
        res["count"][k] = n
        if n < min_count:
            continue
        res["centre"][k] = float(xa[sel].mean())
        est, lo, hi = bootstrap_interval(
            ya[sel], stat=lambda a: np.quantile(a, qq, axis=1), n_boot=n_boot, seed=child(seed, k)
        )
        res["value"][k], res["low"][k], res["high"][k] = est, lo, hi
    return res


def tail_slope(
    x: ArrayLike, y: ArrayLike, *, x_min: float, y_min: float = 1e-13, n_boot: int = 500,
    seed: Seed = 0,
) -> Estimate:  # fmt: skip
    """Least-squares slope of ln y against x for x >= x_min, with a bootstrap 95 % interval.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Paired samples (y > 0 where used).
    x_min : float
        Only samples with x >= x_min (the exponential tail) enter the fit.
    y_min : float
        Samples with y < y_min (round-off floor) are left out.
    n_boot : int
        Bootstrap resamples of the pairs.
    seed : int or numpy.random.SeedSequence
        Seed of the resampling.

    Returns
    -------
    Estimate
        The slope d ln y / dx and its percentile interval over resampled pairs
        (:func:`assocmem.stats.bootstrap_interval`), ``n`` = pairs in the fit; value and interval
        NaN if fewer than 10 pairs remain. Unpacks as ``slope, low, high``.

    Raises
    ------
    ValueError
        If the shapes differ, a value is not finite, ``y_min`` < 0 or a count or seed is out of
        range.
    """
    xa, ya = check_finite_array("x", x), check_finite_array("y", y)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(f"x and y must be 1-D of one length, got {xa.shape}, {ya.shape}")
    x_min = check_real("x_min", x_min)
    y_min = check_real("y_min", y_min, low=0.0)
    n_boot = check_int("n_boot", n_boot, 1)
    as_seed_sequence(seed)
    sel = (xa >= x_min) & (ya >= y_min) & np.isfinite(xa) & np.isfinite(ya)
    if int(sel.sum()) < 10:
        method = "percentile bootstrap over pairs"
        return Estimate(math.nan, math.nan, math.nan, int(sel.sum()), method)
    pts = np.column_stack([xa[sel], np.log(ya[sel])])

    def slopes(a: NDArray[np.float64]) -> NDArray[np.float64]:
        xc = a[..., 0] - a[..., 0].mean(axis=-1, keepdims=True)
        yc = a[..., 1] - a[..., 1].mean(axis=-1, keepdims=True)
        return np.asarray((xc * yc).sum(-1) / (xc * xc).sum(-1))

    return bootstrap_interval(pts, stat=slopes, n_boot=n_boot, seed=seed, unit="pairs")


@dataclass
class OneStepSummary:
    """Intervals of a :class:`OneStepResult`: what the chapter's figure and prose show.

    Attributes
    ----------
    edges : numpy.ndarray, shape (K + 1,)
        Bin edges in βΔ (full score gap times β).
    binned : dict of str to numpy.ndarray, each of shape (K,)
        Median one-step error per bin with its bootstrap 95 % interval (:func:`binned_quantile`).
    sigma_index : int
        Index of the σ_q level of the gap summaries.
    lambdas : numpy.ndarray, shape (L,)
        The couplings of the gap summaries.
    gap_full, gap_paper : list of Estimate, length L
        Mean full gap and mean paper's gap Δ_raw + λΔ_gate at that σ_q, per λ, with the
        percentile bootstrap 95 % interval over trials (n = trials).
    paper_mean : numpy.ndarray, shape (L,)
        Mean paper's gap per λ, linear in λ by definition (eq. ``eq-cg-gaps``).
    slope : Estimate
        :func:`tail_slope` of ln ‖q' − ζ^μ‖ against βΔ over βΔ >= ``x_min`` (predicted: −1).
    x_min : float
        Lower end of the fitted tail in βΔ.
    n_tail : int
        Trials with βΔ >= ``x_min``.
    n : int
        All trials (every λ and σ_q).
    above : int
        Trials whose error exceeds the bound of eq. ``eq-cg-one-step`` (by more than 1e-12).
    frac_strict : float
        Fraction of trials whose full gap exceeds the paper's (by more than 1e-12).
    """

    edges: NDArray[np.float64]
    binned: dict[str, NDArray[np.float64]]
    sigma_index: int
    lambdas: NDArray[np.float64]
    gap_full: list[Estimate]
    gap_paper: list[Estimate]
    paper_mean: NDArray[np.float64]
    slope: Estimate
    x_min: float
    n_tail: int
    n: int
    above: int
    frac_strict: float

    def summary(self, lambdas: Sequence[float] | None = None) -> dict[str, Estimate | float | int]:
        """Return the numbers the chapter's prose quotes, labelled.

        Parameters
        ----------
        lambdas : sequence of float, optional
            Couplings whose mean gaps are reported (default: all); each must be in
            :attr:`lambdas`.

        Returns
        -------
        dict of str to Estimate, float or int
            ``"n"``, ``"above"``, ``"slope"``, ``"n_tail"``, ``"frac_strict"`` (the attributes)
            and, per λ, ``"gap_full_l{λ}"`` and ``"gap_paper_l{λ}"`` (λ written by
            :func:`grid_label`: λ = 4 gives ``"gap_full_l4"``).

        Raises
        ------
        ValueError
            If a λ is not in :attr:`lambdas`.
        """
        out: dict[str, Estimate | float | int] = {
            "n": self.n, "above": self.above, "slope": self.slope, "n_tail": self.n_tail,
            "frac_strict": self.frac_strict,
        }  # fmt: skip
        for lam in self.lambdas if lambdas is None else lambdas:
            i = grid_index(self.lambdas, lam, "lam")
            out[f"gap_full_l{grid_label(lam)}"] = self.gap_full[i]
            out[f"gap_paper_l{grid_label(lam)}"] = self.gap_paper[i]
        return out


def summarize_one_step(
    result: OneStepResult,
    *,
    edges: Sequence[float] | np.ndarray | None = None,
    sigma_index: int = 1,
    x_min: float = 6.0,
    seed: Seed = 0,
) -> OneStepSummary:
    """Binned median errors, mean gaps and the tail slope, with bootstrap intervals (Cor. 3.2).

    Parameters
    ----------
    result : OneStepResult
        From :func:`one_step_experiment`.
    edges : array_like, optional
        Bin edges in βΔ (default: width 2 from −4 up past the largest βΔ).
    sigma_index : int
        Index of the σ_q level whose gaps are summarised against λ.
    x_min : float
        Lower end in βΔ of the exponential tail whose slope is fitted (:func:`tail_slope`).
    seed : int or numpy.random.SeedSequence
        Root of the bootstrap resampling: the bins from ``child(seed, 0)``, the gap at the
        ``j``-th λ from ``child(seed, 1, k, j)`` (``k`` 0 for the full gap, 1 for the paper's),
        the tail slope from ``child(seed, 2)``.

    Returns
    -------
    OneStepSummary

    Raises
    ------
    ValueError
        If ``sigma_index`` is out of range (and as :func:`binned_quantile`).
    """
    S = result.sigma_q.size
    if (
        isinstance(sigma_index, bool)
        or not isinstance(sigma_index, (int, np.integer))
        or not 0 <= sigma_index < S
    ):
        raise ValueError(f"sigma_index must be an integer in [0, {S}), got {sigma_index!r}")
    beta = float(result.params["beta"])
    x = beta * result.delta_full.ravel()
    e = np.arange(-4.0, x.max() + 2.0, 2.0) if edges is None else np.asarray(edges, np.float64)
    xm = check_real("x_min", x_min)
    as_seed_sequence(seed)
    err = result.error.ravel()
    binned = binned_quantile(x, err, e, seed=child(seed, 0))
    si = int(sigma_index)
    gaps = {
        key: [
            bootstrap_interval(v, seed=child(seed, 1, k, j), unit="trials")
            for j, v in enumerate(getattr(result, key)[:, si])
        ]
        for k, key in enumerate(("delta_full", "delta_paper"))
    }
    N = int(result.params["N"])
    return OneStepSummary(
        edges=e,
        binned=binned,
        sigma_index=si,
        lambdas=result.lambdas,
        gap_full=gaps["delta_full"],
        gap_paper=gaps["delta_paper"],
        paper_mean=result.delta_paper[:, si].mean(axis=-1),
        slope=tail_slope(x, err, x_min=xm, seed=child(seed, 2)),
        x_min=xm,
        n_tail=int((x >= xm).sum()),
        n=int(err.size),
        above=int((err > one_step_error_bound(x, N) + 1e-12).sum()),
        frac_strict=float((result.delta_full > result.delta_paper + 1e-12).mean()),
    )
