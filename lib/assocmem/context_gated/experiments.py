"""Memory sampling and the separation experiment (paper App. D.1, Fig. 2); transitions in
:mod:`assocmem.context_gated.transitions`.

Every choice the paper leaves open is a named argument with the default used in chapter 5, which
states them as reconstructions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from assocmem.context_gated.theory import _check_real, alpha_crit
from assocmem.device import get_device

__all__ = [
    "sample_memories",
    "sample_clustered_memories",
    "relax_gate_retrieval",
    "SeparationResult",
    "separation_experiment",
]

NOISE_NORMS = ("per_component", "unit")


def _check_int(name: str, v: int, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    return int(v)


def _gen(seed: int | torch.Generator) -> torch.Generator:
    if isinstance(seed, torch.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or a torch.Generator, got {type(seed).__name__}")
    return torch.Generator().manual_seed(int(seed))


def sample_memories(
    N: int, d: int, *, seed: int | torch.Generator = 0, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """N unit-norm memories in R^d: ζ ~ N(0, I_d), then normalised (paper App. D.1).

    Returns
    -------
    torch.Tensor, shape (N, d), on the CPU.

    Raises
    ------
    ValueError
        If N < 2 or d < 1.
    """
    _check_int("N", N, 2)
    _check_int("d", d, 1)
    z = torch.randn(N, d, generator=_gen(seed), dtype=torch.float64)
    return (z / z.norm(dim=1, keepdim=True)).to(dtype)


def sample_clustered_memories(
    N: int,
    d: int,
    *,
    trials: int | None = None,
    centroid_norm: float = 2.0,
    spread: float = 0.3,
    seed: int | torch.Generator = 0,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """One tight cluster of unit-norm memories: ζ^μ = g + spread·ξ^μ, normalised (App. D.2).

    Parameters
    ----------
    N, d : int
        Number and dimension of the memories.
    trials : int, optional
        Draw this many independent memory sets (leading batch axis).
    centroid_norm : float
        Norm of the random centroid g (default 2, as in the paper).
    spread : float
        Scale of the i.i.d. N(0, I_d) offsets ξ^μ (default 0.3, as in the paper).
    seed : int or torch.Generator

    Returns
    -------
    torch.Tensor, shape (N, d) or (trials, N, d)

    Raises
    ------
    ValueError
        On out-of-range sizes or scales.
    """
    _check_int("N", N, 2)
    _check_int("d", d, 1)
    cn = _check_real("centroid_norm", centroid_norm, low=0.0, strict=False)
    sp = _check_real("spread", spread, low=0.0, strict=True)
    g = _gen(seed)
    T = 1 if trials is None else _check_int("trials", trials, 1)
    cent = torch.randn(T, 1, d, generator=g, dtype=torch.float64)
    cent = cn * cent / cent.norm(dim=-1, keepdim=True)
    z = cent + sp * torch.randn(T, N, d, generator=g, dtype=torch.float64)
    z = (z / z.norm(dim=-1, keepdim=True)).to(dtype)
    return z[0] if trials is None else z


def relax_gate_retrieval(
    b: torch.Tensor,
    u: torch.Tensor,
    A: torch.Tensor,
    lam: float | torch.Tensor,
    beta: float,
    *,
    tau_s: float = 1.0,
    tau_r: float = 1.0,
    dt: float = 0.25,
    kappa: float = 0.2,
    t_end: float = 6.0,
    max_steps: int = 20000,
    polish_iter: int = 100,
    tol: float = 1e-6,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Relax the coupled gate–retrieval subsystem from s = r = 0 with clamped c and q.

    Explicit Euler on τ_s ṡ = u − A s + λ softmax(βr), τ_r ṙ = λ s + b − r (Eqs. 2–3 with the
    context and query clamped) up to ``t_end``, with a per-trial step h = min(h_max, κ/rate),
    where rate = λ√(β g/(τ_s τ_r)) with g = 1 − Σ_μ p_μ² bounds the local growth rate of the
    feedback loop (large while the softmax is undecided) and h_max = min(dt, τ_s/(2η_max(A)),
    τ_r/2) keeps the linear part accurate and stable; then at most
    ``polish_iter`` iterations of the
    self-consistent map (6), r ← b + λA⁻¹u + λ²A⁻¹softmax(βr), which converges locally to the
    stable fixed point the trajectory has reached (all eigenvalues of its Jacobian are real and
    below 1 there).

    Parameters
    ----------
    b, u : torch.Tensor, shape (B, N)
        Query similarities and context inputs.
    A : torch.Tensor, shape (N, N)
        Gate matrix A(α), positive definite.
    lam : float or torch.Tensor of shape (B,)
        Coupling λ, per trial if a tensor.
    beta : float
        Inverse temperature.
    tau_s, tau_r : float
        Time constants.
    dt : float
        Largest Euler step (further capped by τ_s/(2η_max(A)) and τ_r/2).
    kappa : float
        Step times local rate (accuracy knob; halving the default 0.2 moves the Fig. 2
        accuracies by < 0.01).
    t_end : float
        Transient length (units of τ).
    max_steps : int
        Cap on Euler steps.
    polish_iter : int
        Iterations of the map after the transient (0 to skip).
    tol : float
        Polishing stops when every trial moves by less than ``tol``·(1 + max|r|) in sup norm
        (floored at a few ulps of the dtype; checked every 5 iterations).

    Returns
    -------
    r : torch.Tensor, shape (B, N)
        Final scores.
    residual : torch.Tensor, shape (B,)
        Last sup-norm change of r (a convergence report).

    Notes
    -----
    Reconstruction (the paper integrates no ODE for Fig. 2; see chapter 5).
    """
    if isinstance(lam, torch.Tensor) and lam.ndim == 1:
        lam_c: float | torch.Tensor = lam.to(dtype=b.dtype, device=b.device).reshape(-1, 1)
    else:
        lam_c = float(lam)
    # per-trial adaptive explicit Euler: h = min(dt, κ / rate) with the local rate bound
    # rate = max(η_max/τ_s, 1/τ_r, λ sqrt(β g / (τ_s τ_r))), g = 1 − Σ p² (softmax spread)
    eta_max = float(torch.linalg.eigvalsh(A.double())[-1])
    # largest step: accuracy cap dt, and Euler stability of the linear part (h η_max/τ_s <= 1/2)
    h_max = min(dt, 0.5 * tau_s / eta_max, 0.5 * tau_r)
    B = b.shape[0]
    s_out = torch.zeros_like(b)
    r_out = torch.zeros_like(b)
    lam_all = lam_c if isinstance(lam_c, torch.Tensor) else torch.full((B, 1), lam_c).to(b)
    idx = torch.arange(B, device=b.device)  # active trials (compacted every 8 steps)
    s, r, bb, uu, lam_col = s_out[idx], r_out[idx], b, u, lam_all
    t = torch.zeros(B, 1, dtype=b.dtype, device=b.device)
    coef = beta / (tau_s * tau_r)
    steps = 0
    while steps < max_steps and idx.numel() > 0:
        for _ in range(8):
            p = torch.softmax(r * beta, dim=-1)
            g = 1.0 - torch.linalg.vecdot(p, p).unsqueeze(-1)
            rate = lam_col * torch.sqrt(g.clamp_(min=0.0) * coef)
            h = torch.minimum(
                torch.clamp(kappa / rate.clamp_(min=1e-12), max=h_max), (t_end - t).clamp_(min=0.0)
            )
            x = torch.addmm(uu, s, A, alpha=-1.0)  # u − s A (A symmetric)
            x.addcmul_(lam_col, p)
            s.addcmul_(h / tau_s, x)
            y = torch.addcmul(bb, lam_col, s).sub_(r)  # λ s + b − r
            r.addcmul_(h / tau_r, y)
            t.add_(h)
            steps += 1
        done = (t_end - t).squeeze(1) <= 1e-9
        if bool(done.any()):
            s_out[idx[done]] = s[done]
            r_out[idx[done]] = r[done]
            keep = ~done
            idx, s, r, t = idx[keep], s[keep], r[keep], t[keep]
            bb, uu, lam_col = bb[keep], uu[keep], lam_col[keep]
    if idx.numel() > 0:  # hit max_steps: keep where they are
        s_out[idx] = s
        r_out[idx] = r
    s, r = s_out, r_out
    residual = torch.full(b.shape[:1], math.inf, dtype=b.dtype, device=b.device)
    if polish_iter > 0:
        M = torch.linalg.inv(A)
        bias = b + lam_c * (u @ M)
        fb = lam_c**2
        eps = torch.finfo(b.dtype).eps
        for it in range(polish_iter):
            p = torch.softmax(beta * r, dim=-1)
            new = (
                torch.addmm(bias, p, M, alpha=fb) if isinstance(fb, float) else bias + fb * (p @ M)
            )
            if it % 5 == 4 or it == polish_iter - 1:
                residual = (new - r).abs().amax(dim=-1)
                scale = 1.0 + new.abs().amax(dim=-1)
                if bool((residual <= torch.clamp(tol * scale, min=64 * eps * scale)).all()):
                    r = new
                    break
            r = new
    return r, residual


@dataclass
class SeparationResult:
    """Output of :func:`separation_experiment`.

    Attributes
    ----------
    sigma_q : numpy.ndarray, shape (S,)
    lams : numpy.ndarray, shape (L,)
    accuracy : numpy.ndarray, shape (L, S)
        Fraction of trials with argmax_ν r_ν = μ (target).
    accuracy_se : numpy.ndarray, shape (L, S)
        Binomial standard error.
    delta : numpy.ndarray, shape (L, S, T), float32
        Score gap Δ = r_μ − max_{ν≠μ} r_ν per trial.
    target_prob : numpy.ndarray, shape (L, S, T), float32
        Target probability softmax(β r)_μ per trial.
    params : dict
        Every setting used (for the page's printed line).
    """

    sigma_q: np.ndarray
    lams: np.ndarray
    accuracy: np.ndarray
    accuracy_se: np.ndarray
    delta: np.ndarray
    target_prob: np.ndarray
    params: dict = field(default_factory=dict)


def separation_experiment(
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 3.5,
    alpha: float = 0.1,
    sigma_c: float = 0.3,
    sigma_q: Sequence[float] | np.ndarray | None = None,
    lams: Sequence[float] = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0),
    trials: int = 6000,
    noise: str = "per_component",
    feedback: bool = False,
    dt: float = 0.25,
    kappa: float = 0.2,
    t_end: float = 6.0,
    seed: int = 0,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    progress: bool = True,
) -> SeparationResult:
    """Retrieval accuracy vs query noise for several couplings λ (paper Fig. 2, App. D.1).

    One memory set ζ (N unit-norm vectors in R^d) per call. Per trial a target μ is drawn
    uniformly, q = ζ^μ + σ_q ε and c = ζ^μ + σ_c η; the same targets and noise draws are reused
    for every (σ_q, λ) cell (common random numbers). W_h1 = Z, so u_μ = ⟨ζ^μ, c⟩.

    Parameters
    ----------
    N, d : int
        Memories and dimension (paper: 50, 10).
    beta, alpha : float
        Inverse temperature (3.5) and gate competition (0.1, subcritical).
    sigma_c : float
        Context noise level (0.3).
    sigma_q : array_like, optional
        Query noise levels; default 12 levels linspace(0, 3, 12).
    lams : sequence of float
        Couplings λ >= 0.
    trials : int
        Trials per cell (paper: 6000).
    noise : {"per_component", "unit"}
        Noise vectors ε, η ~ N(0, I_d) ("per_component", norm ≈ √d σ) or N(0, I_d/d) ("unit",
        norm ≈ σ). The paper does not say which (reconstruction choice).
    feedback : bool
        False: first-order scores r = b + λA⁻¹u. True: relax the clamped (s, r) dynamics from
        zero (:func:`relax_gate_retrieval`), which includes the λ²A⁻¹p feedback term.
    dt, kappa, t_end : float
        Largest Euler step, step-accuracy knob and transient length for ``feedback=True``
        (see :func:`relax_gate_retrieval`).
    seed : int
    device : str or torch.device, optional
    dtype : torch.dtype
        float32 by default (speed).
    progress : bool
        Show a progress bar over λ.

    Returns
    -------
    SeparationResult

    Raises
    ------
    ValueError
        On out-of-range arguments (including α >= α_crit, where A(α) is not positive definite).
    """
    N = _check_int("N", N, 2)
    d = _check_int("d", d, 1)
    trials = _check_int("trials", trials, 1)
    be = _check_real("beta", beta, low=0.0, strict=True)
    al = _check_real("alpha", alpha, low=0.0, strict=False)
    sc = _check_real("sigma_c", sigma_c, low=0.0, strict=False)
    if noise not in NOISE_NORMS:
        raise ValueError(f"noise must be one of {NOISE_NORMS}, got {noise!r}")
    sq = np.linspace(0.0, 3.0, 12) if sigma_q is None else np.asarray(sigma_q, dtype=np.float64)
    if sq.ndim != 1 or sq.size == 0 or not np.all(np.isfinite(sq)) or np.any(sq < 0):
        raise ValueError("sigma_q must be a non-empty 1-D sequence of finite values >= 0")
    lam_arr = np.asarray(lams, dtype=np.float64)
    if (
        lam_arr.ndim != 1
        or lam_arr.size == 0
        or not np.all(np.isfinite(lam_arr))
        or np.any(lam_arr < 0)
    ):
        raise ValueError("lams must be a non-empty 1-D sequence of finite values >= 0")
    dev = get_device(device)
    g = _gen(seed)
    Z64 = sample_memories(N, d, seed=g)
    G = Z64 @ Z64.T
    A64 = torch.eye(N, dtype=torch.float64) + al * (G - torch.diag(torch.diag(G)))
    if float(torch.linalg.eigvalsh(A64)[0]) <= 0:
        raise ValueError(f"alpha={alpha} is not below alpha_crit={alpha_crit(Z64):.3g}")
    target = torch.randint(0, N, (trials,), generator=g)
    scale = 1.0 if noise == "per_component" else 1.0 / math.sqrt(d)
    eps = scale * torch.randn(trials, d, generator=g, dtype=torch.float64)
    eta = scale * torch.randn(trials, d, generator=g, dtype=torch.float64)
    Z = Z64.to(dtype=dtype, device=dev)
    A = A64.to(dtype=dtype, device=dev)
    M = torch.linalg.inv(A64).to(dtype=dtype, device=dev)
    tgt = target.to(dev)
    zt = Z64[target]
    c = (zt + sc * eta).to(dtype=dtype, device=dev)
    u_one = c @ Z.T  # (T, N)
    # all sigma_q levels at once: b = Z (ζ^μ + σ ε)
    b_base = (zt.to(dtype=dtype, device=dev)) @ Z.T
    b_eps = eps.to(dtype=dtype, device=dev) @ Z.T
    sq_t = torch.as_tensor(sq, dtype=dtype, device=dev)
    b_all = (b_base.unsqueeze(0) + sq_t.view(-1, 1, 1) * b_eps.unsqueeze(0)).reshape(-1, N)
    u_all = u_one.repeat(sq.size, 1)
    tgt_all = tgt.repeat(sq.size)
    S, L = sq.size, lam_arr.size
    acc = np.zeros((L, S))
    delta = np.zeros((L, S, trials), dtype=np.float32)
    ptgt = np.zeros((L, S, trials), dtype=np.float32)
    max_res = 0.0
    for li, lam in enumerate(tqdm(lam_arr, desc="λ", disable=not progress)):
        if feedback and lam > 0:
            r, res = relax_gate_retrieval(
                b_all, u_all, A, float(lam), be, dt=dt, kappa=kappa, t_end=t_end
            )
            max_res = max(max_res, float(res.max()))
        else:
            r = b_all + float(lam) * (u_all @ M)
        r_t = r.gather(1, tgt_all.view(-1, 1)).squeeze(1)
        others = r.scatter(1, tgt_all.view(-1, 1), -math.inf)
        gap = r_t - others.amax(dim=1)
        p_t = torch.softmax(be * r, dim=-1).gather(1, tgt_all.view(-1, 1)).squeeze(1)
        correct = (gap > 0).to(torch.float64).reshape(S, trials)
        acc[li] = correct.mean(1).cpu().numpy()
        delta[li] = gap.reshape(S, trials).float().cpu().numpy()
        ptgt[li] = p_t.reshape(S, trials).float().cpu().numpy()
    se = np.sqrt(acc * (1 - acc) / trials)
    params = {
        "N": N,
        "d": d,
        "beta": be,
        "alpha": al,
        "sigma_c": sc,
        "trials": trials,
        "noise": noise,
        "feedback": feedback,
        "dt": dt,
        "kappa": kappa,
        "t_end": t_end,
        "seed": seed,
        "max_polish_residual": max_res,
    }
    return SeparationResult(sq, lam_arr, acc, se, delta, ptgt, params)
