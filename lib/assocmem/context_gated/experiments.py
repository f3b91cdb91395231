"""The relaxed gate-retrieval dynamics and the separation experiment (paper App. D.1, Fig. 2).

The trials come from :mod:`assocmem.context_gated.instances`; the phase transitions are in
:mod:`assocmem.context_gated.transitions`. Every choice the paper leaves open is a named argument
with the default used in chapter 5, which states them as reconstructions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from assocmem._validate import check_grid, check_int, check_real, check_tensor
from assocmem.context_gated.instances import cued_trials, grid_index, grid_label
from assocmem.context_gated.theory import first_order_scores
from assocmem.device import get_device
from assocmem.estimate import Estimate
from assocmem.stats import rate, wilson_interval

__all__ = [
    "relax_gate_retrieval",
    "SeparationResult",
    "separation_experiment",
]


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

    Explicit Euler on τ_s ṡ = u − A s + λ softmax(βr), τ_r ṙ = λ s + b − r (eq. ``eq-cg-dynamics``
    with the context and query clamped) up to ``t_end``, with a per-trial step
    h = min(h_max, κ/rate), where rate = λ√(β g/(τ_s τ_r)) with g = 1 − Σ_μ p_μ² bounds the local
    growth rate of the feedback loop (large while the softmax is undecided) and
    h_max = min(dt, τ_s/(2η_max(A)), τ_r/2) keeps the linear part accurate and stable; then at
    most ``polish_iter`` iterations of the self-consistent map (eq. ``eq-cg-fixed-point``),
    r ← b + λA⁻¹u + λ²A⁻¹softmax(βr), with b + λA⁻¹u from
    :func:`~assocmem.context_gated.theory.first_order_scores`. The map converges locally to the
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
        Last sup-norm change of r (a convergence report); ``inf`` with ``polish_iter = 0``.

    Raises
    ------
    TypeError, ValueError
        If a tensor is not a finite floating-point one of the stated shape, λ < 0, or a time,
        step, rate, tolerance or count is out of its range (> 0; ``polish_iter`` >= 0).

    Notes
    -----
    Reconstruction (the paper integrates no ODE for Fig. 2; see chapter 5). The gate and
    score equations are those of eq. ``eq-cg-dynamics``.
    """
    check_tensor("b", b, ndim=2)
    check_tensor("u", u, ndim=2)
    check_tensor("A", A, ndim=2)
    if u.shape != b.shape or A.shape != (b.shape[1], b.shape[1]):
        raise ValueError(
            f"b and u must have shape (B, N) and A (N, N), got {tuple(b.shape)}, "
            f"{tuple(u.shape)}, {tuple(A.shape)}"
        )
    if isinstance(lam, torch.Tensor) and lam.ndim == 1:
        check_tensor("lam", lam)
        if lam.shape != b.shape[:1] or bool((lam < 0).any()):
            raise ValueError(f"lam as a tensor must have shape ({b.shape[0]},) and values >= 0")
        lam_c: float | torch.Tensor = lam.to(dtype=b.dtype, device=b.device).reshape(-1, 1)
    elif isinstance(lam, torch.Tensor):
        if lam.ndim != 0:
            raise ValueError(f"lam must be a number or a tensor of shape (B,), got {lam.shape}")
        lam_c = check_real("lam", lam.item(), low=0.0)
    else:
        lam_c = check_real("lam", lam, low=0.0)
    beta = check_real("beta", beta, low=0.0, strict=True)
    tau_s = check_real("tau_s", tau_s, low=0.0, strict=True)
    tau_r = check_real("tau_r", tau_r, low=0.0, strict=True)
    dt = check_real("dt", dt, low=0.0, strict=True)
    kappa = check_real("kappa", kappa, low=0.0, strict=True)
    t_end = check_real("t_end", t_end, low=0.0, strict=True)
    max_steps = check_int("max_steps", max_steps, 1)
    polish_iter = check_int("polish_iter", polish_iter, 0)
    tol = check_real("tol", tol, low=0.0, strict=True)
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
        bias = first_order_scores(b, u, A, lam_c)
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
        Query noise levels.
    lambdas : numpy.ndarray, shape (L,)
        Couplings λ.
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
    ci_low, ci_high : numpy.ndarray, shape (L, S)
        95 % Wilson interval of the accuracy (n = trials per cell).
    """

    sigma_q: np.ndarray
    lambdas: np.ndarray
    accuracy: np.ndarray
    accuracy_se: np.ndarray
    delta: np.ndarray
    target_prob: np.ndarray
    params: dict = field(default_factory=dict)
    ci_low: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    ci_high: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def accuracy_at(self, lam: float, sigma_q: float) -> Estimate:
        """Accuracy of the cell (λ, σ_q) with its 95 % Wilson interval (n = trials).

        Parameters
        ----------
        lam : float
            A coupling of :attr:`lambdas`.
        sigma_q : float
            A query noise level of :attr:`sigma_q`.

        Returns
        -------
        Estimate
            :func:`assocmem.stats.rate` of the cell's correct retrievals.

        Raises
        ------
        ValueError
            If ``lam`` or ``sigma_q`` is not on the result's grid.
        """
        li = grid_index(self.lambdas, lam, "lam")
        si = grid_index(self.sigma_q, sigma_q, "sigma_q")
        n = int(self.params["trials"])
        return rate(int(np.rint(self.accuracy[li, si] * n)), n)

    def summary(
        self, lambdas: Sequence[float] | None = None, sigmas: Sequence[float] | None = None
    ) -> dict[str, Estimate]:
        """Accuracy and error rate of each (λ, σ_q) cell, labelled for the page's prose.

        Parameters
        ----------
        lambdas, sigmas : sequence of float, optional
            The cells to report (default: the whole grid); each value must be on the grid.

        Returns
        -------
        dict of str to Estimate
            ``"acc_l{λ}_s{σ}"`` (:meth:`accuracy_at`) and ``"err_l{λ}_s{σ}"`` (the error rate
            1 − accuracy, its Wilson interval), with λ and σ written by :func:`grid_label`
            (λ = 16, σ_q = 3: ``"acc_l16_s3"``; σ_q = 0.5: ``"s0p5"``).

        Raises
        ------
        ValueError
            If a value is not on the grid.
        """
        out: dict[str, Estimate] = {}
        n = int(self.params["trials"])
        for lam in self.lambdas if lambdas is None else lambdas:
            for sig in self.sigma_q if sigmas is None else sigmas:
                acc = self.accuracy_at(lam, sig)
                key = f"l{grid_label(lam)}_s{grid_label(sig)}"
                out[f"acc_{key}"] = acc
                out[f"err_{key}"] = rate(n - int(np.rint(acc.value * n)), n)
        return out


def separation_experiment(
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 3.5,
    alpha: float = 0.1,
    sigma_c: float = 0.3,
    sigma_q: Sequence[float] | np.ndarray | None = None,
    lambdas: Sequence[float] = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0),
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
    """Measure retrieval accuracy vs query noise for several couplings λ (paper Fig. 2, App. D.1).

    One memory set ζ (N unit-norm vectors in R^d) per call. Per trial a target μ is drawn
    uniformly, q = ζ^μ + σ_q ε and c = ζ^μ + σ_c η (:func:`noisy_cue`); the same targets and noise
    draws are reused for every (σ_q, λ) cell (common random numbers). W_h1 = Z, so
    u_μ = ⟨ζ^μ, c⟩. Draw order from the seed: memories, targets, ε, η. The scores are the
    first-order scores of eq. ``eq-cg-fixed-point`` or the relaxed dynamics; ``delta`` is the full
    score gap of eq. ``eq-cg-gaps`` that enters eq. ``eq-cg-threshold``.

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
    lambdas : sequence of float
        Couplings λ >= 0 (one curve each).
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
        Seed of every random draw.
    device : str or torch.device, optional
        Where the scores are computed (see :func:`assocmem.device.get_device`); the draws are made
        on the CPU, so every device sees the same numbers.
    dtype : torch.dtype
        float32 by default (speed).
    progress : bool
        Show a progress bar over λ.

    Returns
    -------
    SeparationResult
        Accuracies of shape (L, S) and per-trial gaps and target probabilities (L, S, T).

    Raises
    ------
    TypeError
        If a size or the seed is not an integer.
    ValueError
        On out-of-range arguments (including α >= α_crit, where A(α) is not positive definite).
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    for name, value in (("dt", dt), ("kappa", kappa), ("t_end", t_end)):
        check_real(name, value, low=0.0, strict=True)
    lam_arr = check_grid("lambdas", lambdas)
    dev = get_device(device)
    sq = np.linspace(0.0, 3.0, 12) if sigma_q is None else sigma_q
    cued = cued_trials(N, d, alpha, sigma_c, sq, trials, noise=noise, seed=seed)
    sq = cued.sigma_q
    Z64, A64, target, q_all = cued.Z, cued.A, cued.target, cued.queries
    N, trials = Z64.shape[0], target.numel()
    c = cued.context.to(dtype=dtype, device=dev)
    Z = Z64.to(dtype=dtype, device=dev)
    A = A64.to(dtype=dtype, device=dev)
    tgt = target.to(dev)
    u_one = c @ Z.T  # (T, N)
    b_all = (q_all.to(dtype=dtype, device=dev) @ Z.T).reshape(-1, N)  # b = Z q, (S*T, N)
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
        else:  # first-order scores b + λA⁻¹u (A⁻¹ taken in float64)
            r = first_order_scores(b_all, u_all, A64, float(lam))
        r_t = r.gather(1, tgt_all.view(-1, 1)).squeeze(1)
        others = r.scatter(1, tgt_all.view(-1, 1), -math.inf)
        gap = r_t - others.amax(dim=1)
        p_t = torch.softmax(be * r, dim=-1).gather(1, tgt_all.view(-1, 1)).squeeze(1)
        correct = (gap > 0).to(torch.float64).reshape(S, trials)
        acc[li] = correct.mean(1).cpu().numpy()
        delta[li] = gap.reshape(S, trials).float().cpu().numpy()
        ptgt[li] = p_t.reshape(S, trials).float().cpu().numpy()
    se = np.sqrt(acc * (1 - acc) / trials)
    ci_low, ci_high = wilson_interval(np.rint(acc * trials), trials)
    params = {**cued.settings, "beta": be, "feedback": feedback, "dt": dt, "kappa": kappa,
              "t_end": t_end, "seed": seed, "max_polish_residual": max_res}  # fmt: skip
    return SeparationResult(sq, lam_arr, acc, se, delta, ptgt, params, ci_low, ci_high)
