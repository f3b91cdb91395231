"""Winner-take-all in time: t*(α) of the isolated gate subsystem (Thm 3.3 (ii), eq-cg-tstar).

A measurement of chapter 5 that goes beyond the paper's figures: :func:`winner_time_experiment`
finds the time t* at which the isolated gate subsystem (λ = 0) puts probability 1 − δ on one gate,
by integrating τ_s ṡ = u − A(α) s, and compares it with the growth of the critical modes of
Thm 3.3 (ii) (:func:`predicted_winner_time`). The coupled map's hysteresis is in
:mod:`assocmem.context_gated.hysteresis`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from assocmem._validate import as_float_array, check_grid, check_int, check_real, check_tensor
from assocmem.context_gated.instances import grid_index, grid_label, sample_clustered_memories
from assocmem.context_gated.theory import as_memories, gate_matrix, gram, retrieval_threshold
from assocmem.device import make_generator
from assocmem.estimate import Estimate
from assocmem.stats import bootstrap_interval, crossing
from assocmem.streams import Seed, child

__all__ = [
    "winner_fraction_crossing",
    "critical_projector",
    "scale_for_winner",
    "predicted_winner_time",
    "WinnerTimeResult",
    "winner_time_experiment",
]


def critical_projector(memories: np.ndarray | torch.Tensor, *, rtol: float = 1e-9) -> torch.Tensor:
    """Projector P_min onto the eigenspace of the smallest eigenvalue μ_min of G (Thm 3.3).

    Parameters
    ----------
    memories : array_like, shape (N, d)
        Stored patterns (rows; Z is N x d).
    rtol : float
        Eigenvalues within rtol·max(1, |μ_max|) of μ_min count as μ_min.

    Returns
    -------
    torch.Tensor, shape (N, N), float64
        For unit-norm memories with N > d, the projector onto ker G (rank N − d).
    """
    check_real("rtol", rtol, low=0.0)
    z = as_memories(memories)
    if z.ndim != 2:
        raise ValueError(f"memories must be one set of shape (N, d), got {tuple(z.shape)}")
    evals, evecs = torch.linalg.eigh(gram(z))
    tol = rtol * max(1.0, float(evals.abs().max()))
    v = evecs[:, evals <= evals[0] + tol]
    return v @ v.T


def scale_for_winner(direction: torch.Tensor, beta: float, delta: float) -> torch.Tensor:
    """Smallest x >= 0 with max softmax(β x v) >= 1 − δ, for each direction v (bisection).

    Parameters
    ----------
    direction : torch.Tensor, shape (B, N)
        Directions v with a unique largest entry (float64).
    beta : float
        Inverse temperature > 0.
    delta : float
        Tolerated loss in (0, 1 − 1/N).

    Returns
    -------
    torch.Tensor, shape (B,)
        x*; ``inf`` where the largest entry is not unique (no finite scale suffices).

    Notes
    -----
    max_i softmax(β x v)_i is non-decreasing in x for x >= 0 (the leader's log-odds over each rival
    grow linearly), so bisection on x brackets the crossing. By Thm 3.1's bound
    (eq. ``eq-cg-threshold``), x* gap(v) lies between (1/β) ln((1 − δ)/δ) and
    (1/β) ln((1 − δ)(N − 1)/δ). Used for the x* of eq. ``eq-cg-tstar``.
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    dl = check_real("delta", delta, low=0.0, strict=True)
    v = check_tensor("direction", direction, ndim=2).to(torch.float64)
    if v.shape[-1] < 2:
        raise ValueError(f"direction must have N >= 2 entries, got shape {tuple(v.shape)}")
    srt = v.sort(dim=-1, descending=True).values
    gap = srt[:, 0] - srt[:, 1]
    n = v.shape[-1]
    if dl >= 1 - 1 / n:
        raise ValueError(f"delta must lie in (0, 1 - 1/N), got {delta!r}")
    beta_gap = retrieval_threshold(n, 1.0, dl)  # βΔ of eq-cg-threshold at ε = δ
    hi = torch.where(gap > 0, beta_gap / (be * gap.clamp(min=1e-300)),
                     torch.full_like(gap, math.inf))  # fmt: skip
    lo = torch.zeros_like(gap)
    ok = torch.isfinite(hi)
    hi_f = torch.where(ok, hi, torch.ones_like(hi))
    for _ in range(100):
        mid = 0.5 * (lo + hi_f)
        pm = torch.softmax(be * mid.unsqueeze(-1) * v, dim=-1).amax(-1)
        above = pm >= 1 - dl
        hi_f = torch.where(above, mid, hi_f)
        lo = torch.where(above, lo, mid)
    return torch.where(ok, hi_f, torch.full_like(hi_f, math.inf))


def predicted_winner_time(
    memories: np.ndarray | torch.Tensor,
    u: torch.Tensor,
    alphas: Sequence[float] | np.ndarray | float,
    *,
    beta: float,
    delta: float = 0.05,
    tau_s: float = 1.0,
) -> dict[str, np.ndarray]:
    """Time t* to winner-take-all of the gate subsystem from the critical modes (Thm 3.3 (ii)).

    With s(0) = 0 and λ = 0, the component of s(t) in the critical eigenspace is
    P_min u · φ(t), φ(t) = (e^{γt/τ_s} − 1)/γ with γ = α(1 − μ_min) − 1 (the solution of
    τ_s φ' = 1 + γ φ, φ(0) = 0; Eqs. 36-39; φ(t) = t/τ_s for γ = 0). Keeping only these modes,
    p_max(t) reaches 1 − δ when φ(t) = x*, the scale of :func:`scale_for_winner` for the
    direction P_min u: t* = (τ_s/γ) ln(1 + γ x*), and t* = τ_s x* at γ = 0. t* is proportional
    to τ_s (time is measured in units of τ_s).

    Parameters
    ----------
    memories : array_like, shape (N, d)
        Unit-norm stored patterns (rows).
    u : torch.Tensor, shape (N,)
        Context input to the gates.
    alphas : float or 1-D sequence of float
        Competition strengths α >= 0 (A values).
    beta, delta : float
        Inverse temperature of the gate read-out softmax(β s) and tolerated loss.
    tau_s : float
        Gate time constant > 0.

    Returns
    -------
    dict of str to numpy.ndarray, each of shape (A,)
        ``"t_kernel"``: t* of the critical modes (``inf`` if never; for γ < 0 it is finite only
        when the amplified fixed point P_min u/|γ| already exceeds x*); ``"t_eq47"``: the
        paper's asymptotic form (τ_s/γ) ln(κ/(β Δ_ξ)) with Δ_ξ = gap(P_min u)/γ and the constant
        κ := ln((1 − δ)(N − 1)/δ) (our choice; NaN for γ <= 0); ``"gamma"``; and, repeated
        over α, ``"gap"`` (gap of P_min u) and ``"winner"`` (index of its largest entry).

    Raises
    ------
    ValueError
        On out-of-range arguments.

    Notes
    -----
    Paper Thm 3.3 (ii), Eq. 47 (κ not recovered; the O(1) term is dropped). Reconstruction, see
    chapter 5, eq. ``eq-cg-tstar``.
    """
    al = check_grid(
        "alphas",
        np.atleast_1d(as_float_array(alphas, "alphas")),
        what="a number or a non-empty 1-D sequence",
    )
    be = check_real("beta", beta, low=0.0, strict=True)
    dl = check_real("delta", delta, low=0.0, strict=True)
    ts = check_real("tau_s", tau_s, low=0.0, strict=True)
    z = as_memories(memories)
    n = z.shape[0]
    check_tensor("u", u, ndim=1)
    if u.shape != (n,):
        raise ValueError(f"u must have shape (N={n},), got {tuple(u.shape)}")
    mu_min = float(torch.linalg.eigvalsh(gram(z))[0])
    gamma = al * (1 - mu_min) - 1
    xi = critical_projector(z) @ u.to(torch.float64)
    srt = xi.sort(descending=True).values
    gap = float(srt[0] - srt[1])
    x = float(scale_for_winner(xi[None], be, dl)[0])
    t_k = np.full(al.shape, math.inf)
    if math.isfinite(x):
        zero = np.abs(gamma) < 1e-12
        arg = 1 + gamma * x
        ok = ~zero & (arg > 0)
        t_k[zero] = ts * x
        t_k[ok] = ts * np.log(arg[ok]) / gamma[ok]
    kappa = retrieval_threshold(n, 1.0, dl)  # our κ: the βΔ of eq-cg-threshold at ε = δ
    t47 = np.full(al.shape, math.nan)
    pos = gamma > 0
    if gap > 0:
        t47[pos] = ts / gamma[pos] * np.log(kappa * gamma[pos] / (be * gap))
    return {"t_kernel": t_k, "t_eq47": t47, "gamma": gamma, "gap": np.full(al.shape, gap),
            "winner": np.full(al.shape, float(int(xi.argmax())))}  # fmt: skip


@dataclass
class WinnerTimeResult:
    """Output of :func:`winner_time_experiment` (arrays of shape (A, T): α values x memory sets).

    Attributes
    ----------
    alphas : numpy.ndarray, shape (A,)
    t_measured : numpy.ndarray, shape (A, T)
        First time p_max(t) >= 1 − δ in the integrated dynamics (``inf`` if not by t_max).
    t_predicted : numpy.ndarray, shape (A, T)
        ``t_kernel`` of :func:`predicted_winner_time`.
    t_eq47 : numpy.ndarray, shape (A, T)
        The paper's asymptotic form (NaN for α <= α_crit).
    winner_match : numpy.ndarray of bool, shape (A, T)
        Measured winner equals the largest entry of P_min u (where both are defined).
    params : dict
    """

    alphas: np.ndarray
    t_measured: np.ndarray
    t_predicted: np.ndarray
    t_eq47: np.ndarray
    winner_match: np.ndarray
    params: dict = field(default_factory=dict)

    def median_times(self, *, seed: Seed = 0) -> list[Estimate]:
        """Median measured t* per α over the memory sets, with a bootstrap 95 % interval.

        Parameters
        ----------
        seed : int or numpy.random.SeedSequence
            Root of the resampling of memory sets (the ``i``-th α from ``child(seed, i)``).

        Returns
        -------
        list of Estimate, length A
            Per α: the median over sets and its percentile bootstrap interval over memory sets
            (:func:`assocmem.stats.bootstrap_interval`); value and interval NaN where some set did
            not reach winner-take-all by t_max (the median is then not measured).
        """
        T = self.t_measured.shape[1]
        out = []
        for i, row in enumerate(self.t_measured):
            if np.all(np.isfinite(row)) and T >= 2:
                out.append(bootstrap_interval(row, stat=lambda v: np.median(v, axis=1),
                                              seed=child(seed, i), unit="memory sets"))  # fmt: skip
            else:
                out.append(Estimate(math.nan, math.nan, math.nan, T,
                                    "percentile bootstrap over memory sets"))  # fmt: skip
        return out

    def index(self, alpha: float) -> int:
        """Index of ``alpha`` in :attr:`alphas` (ValueError if it is not on the grid)."""
        return grid_index(self.alphas, alpha, "alpha")

    def summary(
        self,
        alphas: Sequence[float] = (),
        horizons: Sequence[float] = (),
        *,
        seed: Seed = 0,
    ) -> dict[str, Estimate | float | int]:
        """Return what the prose quotes about t*(α) and the λ = 0 transition, labelled.

        Parameters
        ----------
        alphas : sequence of float
            α values (on the grid) whose median times are reported.
        horizons : sequence of float
            Horizons t_h whose transition point (:func:`winner_fraction_crossing`) is reported.
        seed : int or numpy.random.SeedSequence
            Root of the bootstrap resampling of memory sets: the medians from ``child(seed, 0)``
            (:meth:`median_times`), the crossing of the ``k``-th horizon from
            ``child(seed, 1, k)``.

        Returns
        -------
        dict of str to Estimate, float or int
            ``"alpha_min"``: smallest α at which every set reached winner-take-all;
            ``"ratio_max"``: largest |t_measured/t_predicted − 1| there; ``"match"``: fraction of
            finished runs whose winner is the largest entry of P_min u; ``"n_fin"``: finished
            (set, α) runs; ``"below"``, ``"n_below"``: finished and all runs at α < 1. Per α
            (written by :func:`grid_label`, 1.1 -> ``"1p1"``): ``"meas_{α}"`` (median t*,
            :meth:`median_times`), ``"pred_{α}"`` and ``"eq47_{α}"`` (medians of the two
            predictions). Per horizon (:func:`grid_label`): ``"cross_{t_h}"``, an Estimate.

        Raises
        ------
        ValueError
            If an α is not on the grid or a horizon is not > 0.
        """
        done = np.all(np.isfinite(self.t_measured), axis=1)
        fin = np.isfinite(self.t_measured)
        ratio = self.t_measured[done] / self.t_predicted[done]
        out: dict[str, Estimate | float | int] = {
            "alpha_min": float(self.alphas[done].min()) if done.any() else math.nan,
            "ratio_max": float(np.abs(ratio - 1).max()) if done.any() else math.nan,
            "match": float(self.winner_match[fin].mean()) if fin.any() else math.nan,
            "n_fin": int(fin.sum()),
            "below": int(fin[self.alphas < 1].sum()),
            "n_below": int(fin[self.alphas < 1].size),
        }
        medians = self.median_times(seed=child(seed, 0)) if len(alphas) else []
        for a in alphas:
            i, tag = self.index(a), grid_label(a)
            out[f"meas_{tag}"] = medians[i]
            out[f"pred_{tag}"] = float(np.median(self.t_predicted[i]))
            out[f"eq47_{tag}"] = float(np.median(self.t_eq47[i]))
        for k, th in enumerate(horizons):
            out[f"cross_{grid_label(th)}"] = winner_fraction_crossing(
                self, th, seed=child(seed, 1, k)
            )
        return out


def winner_time_experiment(
    alphas: Sequence[float] | np.ndarray,
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 3.5,
    delta: float = 0.05,
    trials: int = 100,
    t_max: float = 200.0,
    dt: float = 0.25,
    seed: int = 0,
) -> WinnerTimeResult:
    """Measure t*(α) of the isolated gate subsystem by integration, and predict it (Thm 3.3 (ii)).

    Per memory set (clustered, :func:`sample_clustered_memories`, as for the gate transition):
    u = (1/N)·1, λ = 0, s(0) = 0, τ_s = 1. The linear ODE ṡ = u − A(α) s is stepped exactly on a
    grid of step ``dt`` through the matrix exponential of the augmented system
    [[−A, u], [0, 0]] (all N modes, no eigen-decomposition); t* is the first grid time where
    max_i softmax(β s)_i >= 1 − δ, refined by linear interpolation of the log-odds
    ln(p_max/(1 − p_max)) between grid points.

    Parameters
    ----------
    alphas : 1-D sequence of float
        Competition strengths α >= 0 (A values).
    N, d : int
        Memories and dimension.
    beta : float
        Inverse temperature of the gate read-out (> 0).
    delta : float
        Winner-take-all means p_max >= 1 − δ.
    trials : int
        Memory sets (T), the same sets at every α.
    t_max, dt : float
        Integration horizon and step (units of τ_s).
    seed : int
        Seed of the memory draw.

    Returns
    -------
    WinnerTimeResult

    Raises
    ------
    TypeError, ValueError
        On out-of-range arguments.

    Notes
    -----
    Measures the t* that eq. ``eq-cg-tstar`` predicts (:func:`predicted_winner_time`).
    """
    a = check_grid("alphas", alphas)
    N = check_int("N", N, 2)
    d = check_int("d", d, 1)
    T = check_int("trials", trials, 1)
    be = check_real("beta", beta, low=0.0, strict=True)
    dl = check_real("delta", delta, low=0.0, strict=True)
    tm = check_real("t_max", t_max, low=0.0, strict=True)
    h = check_real("dt", dt, low=0.0, strict=True)
    Z = sample_clustered_memories(N, d, trials=T, seed=make_generator(seed))
    u = torch.full((N,), 1.0 / N, dtype=torch.float64)
    level = math.log((1 - dl) / dl)
    n_steps = int(math.ceil(tm / h))
    t_meas = np.full((a.size, T), math.inf)
    t_pred = np.zeros((a.size, T))
    t47 = np.zeros((a.size, T))
    match = np.zeros((a.size, T), dtype=bool)
    winners_pred = np.zeros(T, dtype=np.int64)
    for t in range(T):
        pr = predicted_winner_time(Z[t], u, a, beta=be, delta=dl)
        t_pred[:, t], t47[:, t] = pr["t_kernel"], pr["t_eq47"]
        winners_pred[t] = int(pr["winner"][0])
    for ai, al in enumerate(a):
        aug = torch.zeros(T, N + 1, N + 1, dtype=torch.float64)
        aug[:, :N, :N] = -gate_matrix(Z, float(al))
        aug[:, :N, N] = u
        prop = torch.linalg.matrix_exp(h * aug)  # exact one-step propagator
        x = torch.zeros(T, N + 1, 1, dtype=torch.float64)
        x[:, N] = 1.0
        prev = torch.full((T,), -math.inf, dtype=torch.float64)
        found = torch.zeros(T, dtype=torch.bool)
        for k in range(1, n_steps + 1):
            x = prop @ x
            s = x[:, :N, 0]
            logp = torch.log_softmax(be * s, dim=-1)
            lm = logp.amax(-1)
            lodds = lm - torch.log1p(-lm.exp().clamp(max=1 - 1e-300))
            hit = (~found) & (lodds >= level)
            if bool(hit.any()):
                idx = hit.nonzero().squeeze(1)
                frac = torch.where(
                    torch.isfinite(prev[idx]),
                    (level - prev[idx]) / (lodds[idx] - prev[idx]),
                    torch.ones_like(prev[idx]),
                )
                t_meas[ai, idx.numpy()] = ((k - 1 + frac.clamp(0, 1)) * h).numpy()
                match[ai, idx.numpy()] = s[idx].argmax(-1).numpy() == winners_pred[idx.numpy()]
                found |= hit
            prev = lodds
            if bool(found.all()):
                break
    params = {"N": N, "d": d, "beta": be, "delta": dl, "trials": T, "t_max": tm, "dt": h,
              "seed": seed}  # fmt: skip
    return WinnerTimeResult(a, t_meas, t_pred, t47, match, params)


def winner_fraction_crossing(
    result: WinnerTimeResult, horizon: float, *, n_boot: int = 500, seed: Seed = 0
) -> Estimate:
    """α where the fraction of memory sets with t* <= t_h first reaches 1/2, with a 95 % interval.

    Parameters
    ----------
    result : WinnerTimeResult
        Measured winner times on an increasing α grid.
    horizon : float
        The horizon t_h (> 0).
    n_boot : int
        Bootstrap resamples of the memory sets.
    seed : int or numpy.random.SeedSequence
        Seed of the resampling.

    Returns
    -------
    Estimate
        :func:`assocmem.stats.crossing` of the fraction of sets with t* <= t_h upward through
        1/2 (linear interpolation; the grid's first α if the fraction starts at or above 1/2),
        with its percentile bootstrap interval over memory sets (NaN if no crossing); unpacks as
        ``alpha, low, high``.

    Raises
    ------
    ValueError
        If the horizon is not > 0, the α grid is not increasing or there are fewer than 2 sets.
    """
    th = check_real("horizon", horizon, low=0.0, strict=True)
    a = result.alphas
    if np.any(np.diff(a) <= 0):
        raise ValueError("the alpha grid of result must be increasing")
    hit = (result.t_measured <= th).astype(np.float64).T  # (T, A): memory sets x alphas
    return crossing(a, hit, 0.5, direction="up", start="first", n_boot=n_boot,
                    unit="memory sets", seed=seed)  # fmt: skip
