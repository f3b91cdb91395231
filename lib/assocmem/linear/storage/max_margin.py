"""Maximum-margin memories of rank at most ``m``, trained by projected Adam.

:func:`train_max_margin` finds a memory of rank at most ``m`` that maximises the smallest
normalised margin ``(s_mumu - s_munu) / sigma_W`` (``sigma_W = ||W||_F / d``, Gardner's
normalisation), by Adam on a smooth maximum of all ``p (p - 1)`` negative margins with ``W`` kept
at ``||W||_F = d`` and projected onto rank ``m`` (:func:`truncate_rank`, the truncated SVD) after
every step; :func:`~assocmem.linear.instances.problems.normalised_margins` (``norm="gardner"``) is
the quantity it maximises. The spectral argument of chapter 4 is about this optimum, not about what
cross-entropy training of ``W = Q R^T``
(:mod:`assocmem.linear.storage.training`) finds. The exact unconstrained optima (l2 and l-infinity)
are in :mod:`assocmem.linear.measure.implicit_bias`.

Source: a reconstruction of Giorlandino, Goldt & Maillard 2026 (arXiv:2605.10795, two-layer
linear networks; course digest section 7.2); see chapter 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from assocmem._validate import check_int, check_positive
from assocmem.linear.instances.problems import MemoryProblem, normalised_margins
from assocmem.linear.storage.training import hebbian_memory

__all__ = ["truncate_rank", "MaxMarginResult", "train_max_margin"]


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
        If ``W`` has fewer than 2 dimensions, holds NaN or inf, or ``rank`` is out of range.

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
    if not bool(torch.isfinite(W).all()):
        raise ValueError("W must be finite (no NaN or inf)")
    return _truncate_rank(W, m)


def _truncate_rank(W: torch.Tensor, m: int) -> torch.Tensor:
    """Unchecked core of :func:`truncate_rank` (the training loop's projection)."""
    U, S, Vh = torch.linalg.svd(W, full_matrices=False)
    return (U[..., :m] * S[..., None, :m]) @ Vh[..., :m, :]


@dataclass(frozen=True)
class MaxMarginResult:
    """Outcome of :func:`train_max_margin`.

    Attributes
    ----------
    weights : torch.Tensor, float32, shape (B, d, d)
        The memories with the largest margin seen, rank at most ``rank``, ``||W||_F = d``.
    margin : numpy.ndarray, float64, shape (B,)
        :func:`~assocmem.linear.instances.problems.normalised_margins` (``norm="gardner"``) of
        ``weights``.
    history : dict of numpy.ndarray
        ``"step"`` (n,), ``"margin"`` (n, B): the normalised margin at check steps.
    """

    weights: torch.Tensor
    margin: np.ndarray
    history: dict[str, np.ndarray]


#: Allowed inverse temperatures of :func:`train_max_margin` (float32: ``beta * gap`` and
#: ``log(p^2) / beta`` must stay finite; the book uses 20 to 300).
BETA_RANGE = (1e-6, 1e6)


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
        A batched OP instance (:func:`assocmem.linear.instances.sampling.sample_problems`), B
        problems.
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
        Inverse temperature of the smooth maximum, in units of ``1 / sigma_W``, in
        :data:`BETA_RANGE` (outside it the float32 objective ``L / beta`` overflows or its
        gradient is 0/0).
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
    if not BETA_RANGE[0] <= beta <= BETA_RANGE[1]:
        raise ValueError(
            f"beta must lie in [{BETA_RANGE[0]:g}, {BETA_RANGE[1]:g}] (float32 smooth maximum), "
            f"got {beta!r}"
        )
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
        Wm = _truncate_rank(W, m) if m < d else W
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
                marg = normalised_margins(W, problem, norm="gardner")
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
        normalised_margins(best, problem, norm="gardner"),
        {"step": np.asarray(hist_t), "margin": np.stack(hist_m)},
    )
