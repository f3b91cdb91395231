"""Memory sampling, noisy cues and the separation experiment (paper App. D.1, Fig. 2).

The phase transitions are in :mod:`assocmem.context_gated.transitions`. Every choice the paper
leaves open is a named argument with the default used in chapter 5, which states them as
reconstructions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from numpy.typing import ArrayLike
from tqdm.auto import tqdm

from assocmem._validate import (
    as_float_array,
    check_finite_array,
    check_int,
    check_real,
    check_tensor,
)
from assocmem.context_gated.theory import alpha_crit, first_order_scores, gate_matrix
from assocmem.device import get_device, make_generator
from assocmem.pages import glue_key
from assocmem.stats import Estimate, rate, wilson_interval

__all__ = [
    "NOISE_NORMS",
    "grid_index",
    "grid_label",
    "sample_memories",
    "sample_clustered_memories",
    "noisy_cue",
    "relax_gate_retrieval",
    "SeparationResult",
    "separation_experiment",
]

NOISE_NORMS = ("per_component", "unit")


def grid_index(grid: ArrayLike, value: float, name: str) -> int:
    """Index of ``value`` on a result's grid (λ, σ_q, α): the lookup by label of the summaries.

    Parameters
    ----------
    grid : array_like, shape (K,)
        The grid values (e.g. a result's ``lambdas``).
    value : float
        The value to find (compared with ``numpy.isclose``, rtol 1e-9, atol 1e-12).
    name : str
        The argument's name, for the error message.

    Returns
    -------
    int
        The first index ``i`` with ``grid[i]`` close to ``value``.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is not on the grid (the message lists the grid).

    Examples
    --------
    >>> grid_index([0.0, 4.0, 16.0], 16, "lam")
    2
    """
    v = check_real(name, value)
    g = check_finite_array("grid", grid, ndim=1)
    hit = np.nonzero(np.isclose(g, v, rtol=1e-9, atol=1e-12))[0]
    if hit.size == 0:
        allowed = [float(x) for x in g]
        raise ValueError(f"{name} must be one of the grid's values {allowed}, got {value}")
    return int(hit[0])


def grid_label(value: float) -> str:
    """Label of a grid value in a summary's keys: :func:`assocmem.pages.glue_key` of it.

    Parameters
    ----------
    value : float
        A grid value (λ, σ_q, α, a level); the point is written ``p``, a minus sign ``m``, so
        no two values share a label (1.5 -> ``"1p5"``, 15 -> ``"15"``).

    Returns
    -------
    str
        E.g. 0.5 -> ``"0p5"``, 16.0 -> ``"16"``, 1.1 -> ``"1p1"``, 0.95 -> ``"0p95"``.

    Examples
    --------
    >>> grid_label(0.5), grid_label(16.0), grid_label(2)
    ('0p5', '16', '2')
    """
    return glue_key(check_real("value", value))


def sample_memories(
    N: int, d: int, *, seed: int | torch.Generator = 0, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """Draw N unit-norm memories in R^d: ζ ~ N(0, I_d), then normalised (paper App. D.1).

    Parameters
    ----------
    N : int
        Number of memories, >= 2.
    d : int
        Dimension, >= 1.
    seed : int or torch.Generator
        Seed (or generator, see :func:`assocmem.device.make_generator`) of the draw.
    dtype : torch.dtype
        Output dtype (drawn and normalised in float64, then cast).

    Returns
    -------
    torch.Tensor, shape (N, d), ``dtype``, on the CPU
        One memory per row, each of unit Euclidean norm.

    Raises
    ------
    TypeError
        If N, d or seed is not an integer (or seed not a generator).
    ValueError
        If N < 2 or d < 1.
    """
    check_int("N", N, 2)
    check_int("d", d, 1)
    z = torch.randn(N, d, generator=make_generator(seed), dtype=torch.float64)
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
        Seed or generator of the draw (centroids first, then offsets).
    dtype : torch.dtype
        Output dtype (drawn in float64, then cast).

    Returns
    -------
    torch.Tensor, shape (N, d) or (trials, N, d), ``dtype``, on the CPU
        Unit-norm memories (rows).

    Raises
    ------
    TypeError
        If a size or the seed has the wrong type.
    ValueError
        On out-of-range sizes or scales.
    """
    check_int("N", N, 2)
    check_int("d", d, 1)
    cn = check_real("centroid_norm", centroid_norm, low=0.0, strict=False)
    sp = check_real("spread", spread, low=0.0, strict=True)
    g = make_generator(seed)
    T = 1 if trials is None else check_int("trials", trials, 1)
    cent = torch.randn(T, 1, d, generator=g, dtype=torch.float64)
    cent = cn * cent / cent.norm(dim=-1, keepdim=True)
    z = cent + sp * torch.randn(T, N, d, generator=g, dtype=torch.float64)
    z = (z / z.norm(dim=-1, keepdim=True)).to(dtype)
    return z[0] if trials is None else z


def noisy_cue(
    memory: torch.Tensor,
    sigma: float | Sequence[float] | np.ndarray,
    *,
    seed: int | torch.Generator = 0,
    n: int | None = None,
    noise: str = "unit",
) -> torch.Tensor:
    """Return a noisy cue of stored patterns: ζ + σ ε/√d (``"unit"``) or ζ + σ ε, ε ~ N(0, I_d).

    The one place where the book builds the noisy query q = ζ^μ + σ_q ε and context
    c = ζ^μ + σ_c η of chapter 5. The noise is drawn as ``torch.randn(..., d)`` in float64 from
    the generator, once per call, and the same draw serves every level of ``sigma`` (common random
    numbers); with ``noise="unit"`` the cue is computed as ``memory + sigma * eps / sqrt(d)``.

    Parameters
    ----------
    memory : torch.Tensor, shape (d,) or (B, d)
        The pattern(s) ζ to corrupt (e.g. ``Z[0]`` or ``Z[targets]``).
    sigma : float or 1-D sequence of float
        Noise level(s) σ >= 0. A sequence of S levels adds a leading axis of length S.
    seed : int or torch.Generator
        Seed or generator of the draw (pass a generator to draw several cues from one stream).
    n : int, optional
        Number of independent cues of a single pattern (``memory`` of shape (d,)): output (n, d).
    noise : {"unit", "per_component"}
        ε ~ N(0, I_d)/√d (norm ≈ 1, the book's convention for random vectors) or N(0, I_d)
        (norm ≈ √d). The paper does not say which (reconstruction choice, see chapter 5).

    Returns
    -------
    torch.Tensor, float64, on the CPU
        Shape ``memory.shape`` (or (n, d)), with a leading (S,) axis when ``sigma`` is a sequence.

    Raises
    ------
    TypeError
        If ``memory`` is not a torch tensor, or ``n``/``seed`` has the wrong type.
    ValueError
        If ``memory`` is not 1-D or 2-D, ``n`` is given with a 2-D ``memory`` or is < 1, a σ is
        negative or not finite, or ``noise`` is unknown.

    Notes
    -----
    Paper App. D.1 (q = ζ^μ + σ_q ε, c = ζ^μ + σ_c η); the noise scale is a reconstruction.
    """
    if not isinstance(memory, torch.Tensor):
        raise TypeError(f"memory must be a torch tensor, got {type(memory).__name__}")
    if memory.ndim not in (1, 2):
        raise ValueError(f"memory must have shape (d,) or (B, d), got {tuple(memory.shape)}")
    check_tensor("memory", memory)
    if noise not in NOISE_NORMS:
        raise ValueError(f"noise must be one of {NOISE_NORMS}, got {noise!r}")
    shape = tuple(memory.shape)
    if n is not None:
        if memory.ndim != 1:
            raise ValueError("n is only allowed with a single pattern (memory of shape (d,))")
        shape = (check_int("n", n, 1), *shape)
    d = shape[-1]
    if isinstance(sigma, (int, float, np.integer, np.floating)):
        sig: float | torch.Tensor = check_real("sigma", sigma, low=0.0)
    else:
        arr = as_float_array(sigma, "sigma")
        if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(
                "sigma must be a number or a non-empty 1-D sequence of finite values >= 0"
            )
        sig = torch.as_tensor(arr).view(-1, *([1] * len(shape)))
    eps = torch.randn(*shape, generator=make_generator(seed), dtype=torch.float64)
    zeta = memory.detach().to(dtype=torch.float64, device="cpu")
    if noise == "unit":
        return zeta + sig * eps / math.sqrt(d)
    return zeta + sig * eps


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
    N = check_int("N", N, 2)
    d = check_int("d", d, 1)
    trials = check_int("trials", trials, 1)
    be = check_real("beta", beta, low=0.0, strict=True)
    al = check_real("alpha", alpha, low=0.0, strict=False)
    sc = check_real("sigma_c", sigma_c, low=0.0, strict=False)
    for name, value in (("dt", dt), ("kappa", kappa), ("t_end", t_end)):
        check_real(name, value, low=0.0, strict=True)
    if noise not in NOISE_NORMS:
        raise ValueError(f"noise must be one of {NOISE_NORMS}, got {noise!r}")
    sq = np.linspace(0.0, 3.0, 12) if sigma_q is None else as_float_array(sigma_q, "sigma_q")
    if sq.ndim != 1 or sq.size == 0 or not np.all(np.isfinite(sq)) or np.any(sq < 0):
        raise ValueError("sigma_q must be a non-empty 1-D sequence of finite values >= 0")
    lam_arr = as_float_array(lambdas, "lambdas")
    if (
        lam_arr.ndim != 1
        or lam_arr.size == 0
        or not np.all(np.isfinite(lam_arr))
        or np.any(lam_arr < 0)
    ):
        raise ValueError("lambdas must be a non-empty 1-D sequence of finite values >= 0")
    dev = get_device(device)
    g = make_generator(seed)
    Z64 = sample_memories(N, d, seed=g)
    A64 = gate_matrix(Z64, al)
    if float(torch.linalg.eigvalsh(A64)[0]) <= 0:
        raise ValueError(f"alpha={alpha} is not below alpha_crit={alpha_crit(Z64):.3g}")
    target = torch.randint(0, N, (trials,), generator=g)
    zt = Z64[target]
    # query at every sigma_q level from one noise draw (common random numbers), then the context
    q_all = noisy_cue(zt, sq, seed=g, noise=noise)  # (S, T, d)
    c = noisy_cue(zt, sc, seed=g, noise=noise).to(dtype=dtype, device=dev)
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
    return SeparationResult(sq, lam_arr, acc, se, delta, ptgt, params, ci_low, ci_high)
