"""Winner-take-all in time and in α: t*(α) (Thm 3.3 (ii)) and the hysteresis of the coupled map.

Two measurements of chapter 5 that go beyond the paper's figures:

- :func:`winner_time_experiment`: the time t* at which the isolated gate subsystem (λ = 0) puts
  probability 1 − δ on one gate, measured by integrating τ_s ṡ = u − A(α) s, against the
  growth of the critical modes of Thm 3.3 (ii) (:func:`predicted_winner_time`).
- :func:`hysteresis_sweep`: the coupled gate–retrieval fixed point followed up in α from the
  uniform state and down in α from a winner state (Thm C.2, Fig. 3d), with the spectral radius
  of the map's Jacobian along the uniform branch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from assocmem._validate import check_int, check_real
from assocmem.context_gated.experiments import sample_clustered_memories
from assocmem.context_gated.theory import (
    as_memories,
    competition_spectrum,
    coupled_alpha_crit,
    coupled_gain,
    gate_inverse,
    gate_matrix,
    gram,
    retrieval_threshold,
)
from assocmem.device import make_generator
from assocmem.stats import bootstrap_interval, first_crossing

__all__ = [
    "winner_fraction_crossing",
    "critical_projector",
    "scale_for_winner",
    "predicted_winner_time",
    "WinnerTimeResult",
    "winner_time_experiment",
    "map_jacobian_radius",
    "HysteresisResult",
    "hysteresis_sweep",
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
    evals, evecs = torch.linalg.eigh(gram(memories))
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
    v = direction.to(torch.float64)
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
    P_min u · φ(t), φ(t) = τ_s(e^{γt/τ_s} − 1)/γ with γ = α(1 − μ_min) − 1 (Eqs. 36-39;
    φ(t) = t for γ = 0). Keeping only these modes, p_max(t) reaches 1 − δ when φ(t) = x*, the
    scale of :func:`scale_for_winner` for the direction P_min u.

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
    al = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    if al.ndim != 1 or not np.all(np.isfinite(al)) or np.any(al < 0):
        raise ValueError("alphas must be finite values >= 0")
    be = check_real("beta", beta, low=0.0, strict=True)
    dl = check_real("delta", delta, low=0.0, strict=True)
    ts = check_real("tau_s", tau_s, low=0.0, strict=True)
    z = as_memories(memories)
    n = z.shape[0]
    mu_min = float(torch.linalg.eigvalsh(gram(z))[0])
    gamma = al * (1 - mu_min) - 1
    xi = critical_projector(z) @ u.to(torch.float64)
    srt = xi.sort(descending=True).values
    gap = float(srt[0] - srt[1])
    x = float(scale_for_winner(xi[None], be, dl)[0])
    t_k = np.full(al.shape, math.inf)
    if math.isfinite(x):
        zero = np.abs(gamma) < 1e-12
        arg = 1 + gamma * x / ts
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

    def median_times(self, *, seed: int = 0) -> np.ndarray:
        """Median measured t* per α over the memory sets, with a bootstrap 95 % interval.

        Parameters
        ----------
        seed : int
            Seed of the resampling of memory sets.

        Returns
        -------
        numpy.ndarray, shape (A, 3)
            Columns: median, low, high; NaN rows where some set did not reach winner-take-all
            by t_max (the median is then not measured).
        """
        out = np.full((self.alphas.size, 3), np.nan)
        for i in np.nonzero(np.all(np.isfinite(self.t_measured), axis=1))[0]:
            out[i] = bootstrap_interval(
                self.t_measured[i], stat=lambda v: np.median(v, axis=1), seed=seed
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
    a = np.asarray(alphas, dtype=np.float64)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("alphas must be a non-empty 1-D sequence of finite values >= 0")
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
    result: WinnerTimeResult, horizon: float, *, n_boot: int = 500, seed: int = 0
) -> tuple[float, float, float]:
    """α where the fraction of memory sets with t* <= t_h first reaches 1/2, with a 95 % interval.

    Parameters
    ----------
    result : WinnerTimeResult
        Measured winner times on an increasing α grid.
    horizon : float
        The horizon t_h (> 0).
    n_boot : int
        Bootstrap resamples of the memory sets.
    seed : int
        Seed of the resampling.

    Returns
    -------
    alpha, low, high : float
        Linear interpolation of the crossing (:func:`assocmem.stats.first_crossing`) and its
        percentile bootstrap interval over memory sets (NaN if no crossing).

    Raises
    ------
    ValueError
        If the horizon is not > 0 or the α grid is not increasing.
    """
    th = check_real("horizon", horizon, low=0.0, strict=True)
    a = result.alphas
    if np.any(np.diff(a) <= 0):
        raise ValueError("the alpha grid of result must be increasing")
    hit = (result.t_measured <= th).astype(np.float64)  # (A, T)

    def cross(h: np.ndarray) -> np.ndarray:  # (B, T, A) -> (B,)
        out = np.empty(h.shape[0])
        for i in range(h.shape[0]):
            f = h[i].mean(axis=0)
            out[i] = a[0] if f[0] >= 0.5 else first_crossing(a, f, 0.5, direction="up")
        return out

    est = float(cross(hit.T[None])[0])  # (1, T, A)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, hit.shape[1], size=(check_int("n_boot", n_boot, 10), hit.shape[1]))
    boots = cross(hit[:, idx].transpose(1, 2, 0))  # (B, T, A)
    boots = boots[np.isfinite(boots)]
    if boots.size == 0 or not math.isfinite(est):
        return est, math.nan, math.nan
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return est, float(lo), float(hi)


def map_jacobian_radius(
    M: torch.Tensor,
    p: torch.Tensor,
    *,
    lam: float,
    beta: float,
    M_half: torch.Tensor | None = None,
) -> torch.Tensor:
    """Spectral radius of the Jacobian λ²β M (diag p − p pᵀ) of the score map Φ at p.

    Parameters
    ----------
    M : torch.Tensor, shape (..., N, N)
        A(α)⁻¹, symmetric positive definite.
    p : torch.Tensor, shape (..., N)
        softmax(β r) at the point.
    lam, beta : float
        Coupling and inverse temperature.
    M_half : torch.Tensor, shape (..., N, N), optional
        The symmetric square root M^{1/2}, if already known (saves an eigen-decomposition).

    Returns
    -------
    torch.Tensor, shape (...)
        The spectral radius; < 1 means the fixed point is linearly stable under iteration.

    Notes
    -----
    M D (D = diag p − ppᵀ, positive semi-definite) is similar to M^{1/2} D M^{1/2}, so its
    eigenvalues are real and >= 0 and the radius is the largest eigenvalue of the symmetric
    matrix λ²β M^{1/2} D M^{1/2}. The map is that of eq. ``eq-cg-fixed-point``; at p = 1/N with
    M 1 ∝ 1 the radius is λ²β/(N η_min^⊥), the gain behind Thm C.2 and
    eq. ``eq-cg-coupled-crit`` (:func:`~assocmem.context_gated.theory.coupled_gain`).
    """
    la = check_real("lam", lam, low=0.0)
    be = check_real("beta", beta, low=0.0, strict=True)
    if M_half is None:
        ev, V = torch.linalg.eigh(M)
        half = (V * ev.clamp(min=0).sqrt().unsqueeze(-2)) @ V.mT
    else:
        half = M_half
    D = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    return la**2 * be * torch.linalg.eigvalsh(half @ D @ half)[..., -1].clamp(min=0)


@dataclass
class HysteresisResult:
    """Output of :func:`hysteresis_sweep` (arrays of shape (L, A, T): λ x α x memory sets).

    Attributes
    ----------
    alphas : numpy.ndarray, shape (A,), increasing
    lambdas : numpy.ndarray, shape (L,)
    up, down, fresh : numpy.ndarray, shape (L, A, T)
        Peak retrieval probability max_μ p*_μ: continued upward from the uniform start, continued
        downward from a winner state, and from a fresh 10⁻⁴-noise start at each α (the paper's
        protocol).
    radius_up : numpy.ndarray, shape (L, A, T)
        Spectral radius of the map's Jacobian at the upward branch's point.
    gain_formula : numpy.ndarray, shape (L, A)
        λ²β/(N(1 − α)), the uniform-state gain of Thm C.2 (N > d).
    converged : numpy.ndarray, shape (L, A)
        Fraction of (sweep, set) iterations that met the tolerance.
    params : dict
    predicted : numpy.ndarray, shape (L,)
        The paper's α_crit(1 − λ²β/N) with α_crit = 1 (eq. ``eq-cg-coupled-crit``).
    """

    alphas: np.ndarray
    lambdas: np.ndarray
    up: np.ndarray
    down: np.ndarray
    fresh: np.ndarray
    radius_up: np.ndarray
    gain_formula: np.ndarray
    converged: np.ndarray
    params: dict = field(default_factory=dict)
    predicted: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def jump_up(self, level: float = 0.5) -> np.ndarray:
        """First α of each upward sweep with p_max >= level, shape (L, T) (NaN if none)."""
        hit = self.up >= level
        first = np.argmax(hit, axis=1)
        return np.where(hit.any(axis=1), self.alphas[first], np.nan)

    def jump_intervals(self, level: float = 0.5, *, seed: int = 0) -> dict[str, np.ndarray]:
        """Mean jump points over the memory sets, with bootstrap 95 % intervals.

        Parameters
        ----------
        level : float
            Winner-state level of :meth:`jump_up` and :meth:`jump_down`.
        seed : int
            Seed of the resampling of memory sets.

        Returns
        -------
        dict with keys ``"up"`` and ``"down"``, each a numpy.ndarray of shape (L, 4)
            Columns: mean α of the jump (from :meth:`jump_up`, resp. the drop of
            :meth:`jump_down`), low, high, and n, the number of sets with a finite point (the
            first three are NaN when n = 0).
        """
        out = {}
        for name, pts in (("up", self.jump_up(level)), ("down", self.jump_down(level))):
            rows = []
            for v in pts:
                ok = np.isfinite(v)
                est = bootstrap_interval(v[ok], seed=seed) if ok.any() else (np.nan,) * 3
                rows.append((*est, float(ok.sum())))
            out[name] = np.array(rows, dtype=np.float64)
        return out

    def jump_down(self, level: float = 0.5) -> np.ndarray:
        """Smallest α down to which each downward sweep stays >= level, shape (L, T).

        NaN if the downward sweep is below ``level`` already at the largest α; the smallest
        grid α if it never drops.
        """
        out = np.full(self.down.shape[::2], np.nan)
        for li in range(self.down.shape[0]):
            for t in range(self.down.shape[2]):
                above = self.down[li, :, t] >= level
                if not above[-1]:
                    continue
                below = np.nonzero(~above)[0]
                out[li, t] = self.alphas[below[-1] + 1] if below.size else self.alphas[0]
        return out


def _iterate(
    r: torch.Tensor, Mu: torch.Tensor, M: torch.Tensor, lam: float, beta: float, max_iter: int,
    tol: float,
) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    res = torch.full(r.shape[:-1], math.inf, dtype=r.dtype)
    for _ in range(max_iter):
        p = torch.softmax(beta * r, dim=-1)
        new = lam * Mu + lam**2 * (M @ p.unsqueeze(-1)).squeeze(-1)
        res = (new - r).abs().amax(-1)
        r = new
        if bool((res < tol).all()):
            break
    return r, res < tol


def hysteresis_sweep(
    alphas: Sequence[float] | np.ndarray,
    lambdas: Sequence[float] = (1.0, 1.5, 2.0, 2.5),
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 5.0,
    trials: int = 20,
    max_iter: int = 500,
    tol: float = 1e-8,
    sigma_init: float = 1e-4,
    seed: int = 0,
) -> HysteresisResult:
    """Follow the coupled fixed point up and down in α to test for a first-order transition.

    The map of App. D.3 (eq. ``eq-cg-fixed-point``), r ← λA⁻¹u + λ²A⁻¹softmax(βr) with
    u = (1/N)·1 and b = 0, on clustered
    memory sets (as :func:`~assocmem.context_gated.transitions.coupled_transition`). Three
    protocols per (λ, set):

    - up: at the smallest α start from r ~ N(0, σ_init² I), then start each next α from the
      previous fixed point;
    - down: at the largest α start from the winner state r = λA⁻¹u + λ²A⁻¹e_w, with w the winner
      of the upward sweep there (or the largest entry of A⁻¹u if that sweep ended uniform), then
      continue downward;
    - fresh: a new N(0, σ_init² I) start at every α (the paper's protocol).

    Parameters
    ----------
    alphas : 1-D sequence of float
        Increasing α values in [0, 1) (A(α) positive definite for N > d).
    lambdas : 1-D sequence of float
        Couplings λ > 0.
    N, d : int
        Memories and dimension; N > d.
    beta : float
        Inverse temperature (paper: 5).
    trials : int
        Memory sets (T).
    max_iter, tol : int, float
        Iteration cap and sup-norm tolerance per α.
    sigma_init : float
        Scale of the random starts.
    seed : int
        Seed of the memories and starts.

    Returns
    -------
    HysteresisResult

    Raises
    ------
    TypeError, ValueError
        On out-of-range arguments (α not increasing in [0, 1), N <= d, λ <= 0).
    """
    a = np.asarray(alphas, dtype=np.float64)
    if a.ndim != 1 or a.size < 2 or np.any(np.diff(a) <= 0) or a[0] < 0 or a[-1] >= 1:
        raise ValueError("alphas must be increasing values in [0, 1), at least two")
    lam_arr = np.asarray(lambdas, dtype=np.float64)
    if lam_arr.ndim != 1 or lam_arr.size == 0 or not np.all(np.isfinite(lam_arr)):
        raise ValueError("lambdas must be a non-empty 1-D sequence of finite values > 0")
    if np.any(lam_arr <= 0):
        raise ValueError("lambdas must be > 0 (λ = 0 has no retrieval feedback)")
    N = check_int("N", N, 2)
    d = check_int("d", d, 1)
    if N <= d:
        raise ValueError(f"hysteresis_sweep needs N > d (alpha_crit = 1), got N={N}, d={d}")
    T = check_int("trials", trials, 1)
    be = check_real("beta", beta, low=0.0, strict=True)
    mi = check_int("max_iter", max_iter, 1)
    tl = check_real("tol", tol, low=0.0, strict=True)
    si = check_real("sigma_init", sigma_init, low=0.0)
    g = make_generator(seed)
    Z = sample_clustered_memories(N, d, trials=T, seed=g)
    ev, V = competition_spectrum(Z)
    u = torch.full((N,), 1.0 / N, dtype=torch.float64)
    Ms = gate_inverse(ev, V, a)  # (A, T, N, N): A(α)⁻¹ per α and set
    Mh = gate_inverse(ev, V, a, sqrt=True)  # its square root, for map_jacobian_radius
    Mu_all = Ms @ u  # (A, T, N)
    r_start = si * torch.randn(T, N, generator=g, dtype=torch.float64)
    fresh_starts = si * torch.randn(a.size, T, N, generator=g, dtype=torch.float64)
    L, A_ = lam_arr.size, a.size
    up, down, fresh, rad = (np.zeros((L, A_, T)) for _ in range(4))
    conv = np.zeros((L, A_))
    for li, lam in enumerate(lam_arr):
        lam_f = float(lam)
        r = r_start.clone()
        p_up = torch.zeros(A_, T, N, dtype=torch.float64)
        ok_up = torch.zeros(A_, T, dtype=torch.bool)
        for ai in range(A_):
            r, ok_up[ai] = _iterate(r, Mu_all[ai], Ms[ai], lam_f, be, mi, tl)
            p_up[ai] = torch.softmax(be * r, dim=-1)
        up[li] = p_up.amax(-1).numpy()
        rad[li] = map_jacobian_radius(Ms, p_up, lam=lam_f, beta=be, M_half=Mh).numpy()
        rf, ok_f = _iterate(fresh_starts, Mu_all, Ms, lam_f, be, mi, tl)
        fresh[li] = torch.softmax(be * rf, dim=-1).amax(-1).numpy()
        p_top = p_up[-1]
        w = torch.where(p_top.amax(-1) >= 0.5, p_top.argmax(-1), Mu_all[-1].argmax(-1))
        e = torch.nn.functional.one_hot(w, N).to(torch.float64)
        r = lam_f * Mu_all[-1] + lam_f**2 * (Ms[-1] @ e.unsqueeze(-1)).squeeze(-1)
        ok_down = torch.zeros(A_, T, dtype=torch.bool)
        for ai in range(A_ - 1, -1, -1):
            r, ok_down[ai] = _iterate(r, Mu_all[ai], Ms[ai], lam_f, be, mi, tl)
            down[li, ai] = torch.softmax(be * r, dim=-1).amax(-1).numpy()
        conv[li] = torch.stack([ok_up, ok_f, ok_down]).double().mean((0, 2)).numpy()
    gain = coupled_gain(lam_arr[:, None], be, N, 1 - a[None, :])  # η_min = 1 − α (N > d)
    pred = coupled_alpha_crit(1.0, lam_arr, be, N)  # α_crit = 1 (N > d)
    params = {"N": N, "d": d, "beta": be, "trials": T, "max_iter": mi, "tol": tl,
              "sigma_init": si, "seed": seed}  # fmt: skip
    return HysteresisResult(a, lam_arr, up, down, fresh, rad, gain, conv, params, pred)
