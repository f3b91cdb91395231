"""Closed forms of the context-gated associative memory (gate matrix, thresholds, fixed points).

Notation (Choraria et al. 2026, arXiv:2605.10970, §3; chapter 5): memories ζ^μ are the rows of
``memories`` (shape (N, d), or a batch of sets (..., N, d)); G is their Gram matrix;
W_h2 = G − diag(G) (= G − I for unit-norm memories); A(α) = I + α W_h2 = (1 − α) I + α G
(eq. ``eq-cg-A``); u = W_h1 c are the context inputs to the gates and b_μ = ⟨ζ^μ, q⟩ the
query–memory similarities.

This module is the one home of these formulas: the model, the experiments, the transitions and
the figures call it rather than building W_h2, A(α), A(α)⁻¹u or the thresholds themselves
(``tests/book/test_layout.py`` checks it). That is why it is one module past 700 lines: one topic,
the closed forms of one model, kept in one place so that none is typed twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import torch
from numpy.typing import NDArray
from scipy.special import expit

from assocmem._validate import (
    as_float_array,
    check_broadcast,
    check_finite_array,
    check_int,
    check_real,
    check_tensor,
    unit_rows,
)

__all__ = [
    "as_memories",
    "gram",
    "competition_matrix",
    "gate_matrix",
    "competition_spectrum",
    "gate_eigenvalues",
    "gate_inverse",
    "eta_min",
    "alpha_crit",
    "alpha_crit_of_spectrum",
    "coupled_alpha_crit",
    "coupled_gain",
    "contraction_constant",
    "retrieval_threshold",
    "retrieval_bound",
    "gate_fixed_point",
    "first_order_scores",
    "FixedPoint",
    "self_consistent_fixed_point",
    "decompose_fixed_point",
]


def as_memories(
    memories: np.ndarray | torch.Tensor,
    *,
    normalize: bool = False,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Validate one memory set (N, d) or a batch of sets (..., N, d); return a torch tensor.

    Parameters
    ----------
    memories : array_like, shape (..., N, d)
        One stored pattern ζ^μ per row, N >= 2, finite; leading axes index memory sets.
    normalize : bool
        Rescale every row to unit Euclidean norm (rows must then be non-zero), exact to rounding
        whatever the rows' norms (1e-160 or 1e200: :func:`assocmem._validate.unit_rows`).
    dtype, device
        Output dtype (default float64, the book's theory precision) and device (``device=None``
        keeps the input's device, CPU for numpy).

    Returns
    -------
    torch.Tensor, shape (..., N, d)

    Raises
    ------
    TypeError
        If ``memories`` is not a numpy array or torch tensor.
    ValueError
        If it has fewer than 2 axes or 2 rows, contains non-finite entries, or has a zero row
        while ``normalize`` is set (the message names the row).
    """
    if isinstance(memories, np.ndarray):
        z = torch.as_tensor(memories)
    elif isinstance(memories, torch.Tensor):
        z = memories
    else:
        raise TypeError(f"memories must be a numpy array or torch tensor, got {type(memories)}")
    z = z.to(dtype=dtype, device=device if device is not None else z.device)
    if z.ndim < 2:
        raise ValueError(f"memories must have shape (N, d) or (..., N, d), got {tuple(z.shape)}")
    if z.shape[-2] < 2 or z.shape[-1] < 1:
        raise ValueError(f"memories needs N >= 2 rows and d >= 1 columns, got {tuple(z.shape)}")
    if not bool(torch.isfinite(z).all()):
        raise ValueError("memories contains non-finite entries (nan or inf)")
    if normalize:  # unit norm to rounding at any magnitude; a zero row is named
        z = unit_rows("memories", z)
    return z


def _one_set(z: torch.Tensor, name: str) -> None:
    if z.ndim != 2:
        raise ValueError(
            f"{name} takes one memory set of shape (N, d), got {tuple(z.shape)}; for a batch "
            "use alpha_crit_of_spectrum(*competition_spectrum(memories)) or gate_eigenvalues"
        )


def gram(
    memories: np.ndarray | torch.Tensor,
    *,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Gram matrix G_ij = ⟨ζ^i, ζ^j⟩ of the memories (paper §3.1.2), batched over memory sets.

    Parameters
    ----------
    memories : array_like, shape (..., N, d)
        Stored patterns ζ^μ (rows), N >= 2, finite.
    dtype, device
        As :func:`as_memories` (default float64, the input's device).

    Returns
    -------
    torch.Tensor, shape (..., N, N), ``dtype``

    Raises
    ------
    TypeError, ValueError
        As :func:`as_memories`.
    """
    z = as_memories(memories, dtype=dtype, device=device)
    return z @ z.mT


def competition_matrix(
    memories: np.ndarray | torch.Tensor,
    *,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Gate self-synapse W_h2: off-diagonal Gram entries, zero diagonal (paper §3.1.2 (ii)).

    The matrix of the competition term h_2 of the energy (eq. ``eq-cg-energy``).

    Parameters
    ----------
    memories : array_like, shape (..., N, d)
        Stored patterns ζ^μ (rows), N >= 2, finite.
    dtype, device
        As :func:`as_memories`.

    Returns
    -------
    torch.Tensor, shape (..., N, N), ``dtype``
        G − diag(G); equal to G − I for unit-norm memories.

    Raises
    ------
    TypeError, ValueError
        As :func:`as_memories`.
    """
    g = gram(memories, dtype=dtype, device=device)
    return g - torch.diag_embed(torch.diagonal(g, dim1=-2, dim2=-1))


def gate_matrix(
    memories: np.ndarray | torch.Tensor,
    alpha: float,
    *,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """A(α) = I + α W_h2 (eq. ``eq-cg-A``), the matrix of the gate dynamics τ_s ṡ = u − A(α) s.

    Parameters
    ----------
    memories : array_like, shape (..., N, d)
        Stored patterns ζ^μ (rows), N >= 2, finite.
    alpha : float
        Competition strength, >= 0.
    dtype, device
        As :func:`as_memories`.

    Returns
    -------
    torch.Tensor, shape (..., N, N), ``dtype``

    Raises
    ------
    ValueError
        If ``alpha`` < 0 or not finite (and as :func:`as_memories`).

    Notes
    -----
    Paper Thm 3.3 / App. C.2: A(α) = (1 − α) I + α G for unit-norm memories.

    Examples
    --------
    Two unit-norm memories with overlap 0.6: W_h2 has 0.6 off the diagonal, so A(1/2) has 0.3:

    >>> gate_matrix(np.array([[1.0, 0.0], [0.6, 0.8]]), 0.5).tolist()
    [[1.0, 0.3], [0.3, 1.0]]
    """
    a = check_real("alpha", alpha, low=0.0, strict=False)
    w2 = competition_matrix(memories, dtype=dtype, device=device)
    return torch.eye(w2.shape[-1], dtype=w2.dtype, device=w2.device) + a * w2


def competition_spectrum(
    memories: np.ndarray | torch.Tensor,
    *,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Eigenpairs (ω_k, v_k) of W_h2, batched over memory sets (the modes of eq. ``eq-cg-A``).

    Parameters
    ----------
    memories : array_like, shape (..., N, d)
        Stored patterns ζ^μ (rows), N >= 2, finite.
    dtype, device
        As :func:`as_memories`; the decomposition runs on ``device``.

    Returns
    -------
    omega : torch.Tensor, shape (..., N)
        Eigenvalues of W_h2 in ascending order (ω_k = μ_k − 1 for unit-norm memories, with μ_k
        the eigenvalues of G).
    eigvecs : torch.Tensor, shape (..., N, N)
        Matching orthonormal eigenvectors (columns); they are also the eigenvectors of A(α).

    Raises
    ------
    TypeError, ValueError
        As :func:`as_memories`.
    """
    omega, eigvecs = torch.linalg.eigh(competition_matrix(memories, dtype=dtype, device=device))
    return omega, eigvecs


def gate_eigenvalues(omega: torch.Tensor, alpha: float | torch.Tensor) -> torch.Tensor:
    """Eigenvalues η_k(α) = 1 + α ω_k of A(α) from those of W_h2 (paper Eq. 31).

    For unit-norm memories this is η_k = 1 − α(1 − μ_k), the form of chapter 5 (below
    eq. ``eq-cg-A``, leading to eq. ``eq-cg-alpha-crit``).

    Parameters
    ----------
    omega : torch.Tensor, shape (..., N)
        Eigenvalues of W_h2 (:func:`competition_spectrum`).
    alpha : float or torch.Tensor broadcastable against ``omega``
        Competition strength(s) α >= 0.

    Returns
    -------
    torch.Tensor, broadcast shape of ``alpha`` and ``omega``

    Raises
    ------
    TypeError, ValueError
        If ``omega`` is not a finite floating-point tensor or α is not finite and >= 0.
    """
    check_tensor("omega", omega, ndim=tuple(range(1, 9)))
    return 1.0 + _check_alpha(alpha) * omega


def _check_alpha(alpha: float | torch.Tensor) -> float | torch.Tensor:
    """α as a float (scalar) or a finite tensor, each value >= 0."""
    if isinstance(alpha, torch.Tensor):
        check_tensor("alpha", alpha)
        if bool((alpha < 0).any()):
            raise ValueError("alpha must be >= 0 (competition strength)")
        return alpha
    return check_real("alpha", alpha, low=0.0)


def gate_inverse(
    omega: torch.Tensor,
    eigvecs: torch.Tensor,
    alpha: float | Sequence[float] | np.ndarray,
    *,
    sqrt: bool = False,
) -> torch.Tensor:
    """A(α)⁻¹ = Σ_k v_k v_kᵀ / η_k(α) (or its square root) from the spectrum of W_h2.

    The spectral form of the inverse in eqs. ``eq-cg-fixed-point`` and ``eq-cg-contraction``,
    for many memory sets and a grid of α at once.

    Parameters
    ----------
    omega, eigvecs : torch.Tensor, shapes (..., N) and (..., N, N)
        Eigenpairs of W_h2 (:func:`competition_spectrum`).
    alpha : float or 1-D sequence of float
        Competition strength(s); a sequence of A values adds a leading axis of length A. Every
        η_k(α) must be > 0 (α < α_crit) for the result to be the inverse.
    sqrt : bool
        Return the symmetric square root A(α)^{-1/2} instead.

    Returns
    -------
    torch.Tensor, shape (..., N, N) or (A, ..., N, N), dtype of ``omega``
    """
    check_tensor("omega", omega, ndim=tuple(range(1, 9)))
    check_tensor("eigvecs", eigvecs)
    if eigvecs.shape != (*omega.shape, omega.shape[-1]):
        raise ValueError(
            f"omega must have shape (..., N) and eigvecs (..., N, N), got {tuple(omega.shape)} "
            f"and {tuple(eigvecs.shape)}"
        )
    if isinstance(alpha, (bool, int, float, np.integer, np.floating)):
        a: float | torch.Tensor = check_real("alpha", alpha, low=0.0)
        om, v = omega, eigvecs
    else:
        al = _check_nonneg("alpha", alpha)
        if al.ndim != 1:
            raise ValueError(f"alpha must be a number or a 1-D sequence, got shape {al.shape}")
        a = torch.as_tensor(al, dtype=omega.dtype)
        a = a.to(omega.device).view(-1, *([1] * omega.ndim))
        om, v = omega.unsqueeze(0), eigvecs.unsqueeze(0)
    eta = gate_eigenvalues(om, a)
    if bool((eta <= 0).any()):
        raise ValueError(
            f"alpha must be below alpha_crit (every eta_k(alpha) > 0) for A(alpha) to be "
            f"invertible, got alpha={alpha!r} with eta_min = {float(eta.amin()):.3g}"
        )
    inv = 1.0 / eta
    if sqrt:
        inv = inv.sqrt()
    return (v * inv.unsqueeze(-2)) @ v.mT


def eta_min(memories: np.ndarray | torch.Tensor, alpha: float) -> float:
    """Smallest eigenvalue η_min(α) of A(α), the stability margin of the gate subsystem.

    Parameters
    ----------
    memories : array_like, shape (N, d)
        One set of stored patterns ζ^μ (rows), N >= 2, finite.
    alpha : float
        Competition strength α >= 0.

    Returns
    -------
    float
        η_min(α); 1 − α for unit-norm memories with N > d.

    Raises
    ------
    ValueError
        As :func:`gate_matrix`, or for a batch of memory sets.

    Notes
    -----
    Paper Eq. (32), App. C.2; it reaches 0 at α_crit (eq. ``eq-cg-alpha-crit``).
    """
    _one_set(as_memories(memories), "eta_min")
    return float(torch.linalg.eigvalsh(gate_matrix(memories, alpha))[0])


def alpha_crit_of_spectrum(omega: torch.Tensor) -> torch.Tensor:
    """α_crit = −1/ω_min from the eigenvalues of W_h2, per memory set (eq. ``eq-cg-alpha-crit``).

    Parameters
    ----------
    omega : torch.Tensor, shape (..., N)
        Eigenvalues of W_h2 in ascending order (:func:`competition_spectrum`).

    Returns
    -------
    torch.Tensor, shape (...)
        −1/ω_min, which is 1/(1 − μ_min(G)) for unit-norm memories; ``inf`` where ω_min >= 0.
    """
    w = check_tensor("omega", omega, ndim=tuple(range(1, 9)))[..., 0]
    return torch.where(w < 0, -1.0 / torch.where(w < 0, w, -1.0), math.inf)


def alpha_crit(memories: np.ndarray | torch.Tensor) -> float:
    """Critical competition strength of the isolated gate subsystem (eq. ``eq-cg-alpha-crit``).

    Parameters
    ----------
    memories : array_like, shape (N, d)
        One memory set (for a batch, :func:`alpha_crit_of_spectrum`).

    Returns
    -------
    float
        α_crit = −1/λ_min(W_h2), which is 1/(1 − μ_min(G)) for unit-norm memories; exactly 1.0 when
        the memories are unit norm and N > d (then μ_min(G) = 0); ``inf`` when λ_min(W_h2) >= 0
        (e.g. orthonormal memories: A(α) stays positive definite for every α).

    Raises
    ------
    ValueError
        As :func:`as_memories`, or for a batch of memory sets.

    Notes
    -----
    Paper Eq. 33, Thm 3.3 / Thm C.1; the N > d statement is quoted on p.18.

    Examples
    --------
    Two unit-norm memories with overlap 0.6: the eigenvalues of W_h2 are ±0.6, so
    α_crit = 1/0.6; with N = 3 > d = 2 it is exactly 1:

    >>> round(alpha_crit(np.array([[1.0, 0.0], [0.6, 0.8]])), 12)
    1.666666666667
    >>> alpha_crit(np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]))
    1.0
    """
    z = as_memories(memories)
    _one_set(z, "alpha_crit")
    n, d = z.shape
    norms = z.norm(dim=1)
    if n > d and bool(torch.allclose(norms, torch.ones_like(norms), atol=1e-10)):
        return 1.0
    lam_min = float(torch.linalg.eigvalsh(competition_matrix(z))[0])
    if lam_min >= 0:
        return math.inf
    return -1.0 / lam_min


def _check_nonneg(name: str, x: object, *, strict: bool = False) -> NDArray[np.float64]:
    """Return ``x`` as a non-empty float64 array of finite values >= 0 (> 0 if ``strict``).

    ``x``: a number or array of real numbers (no bool, no string).
    """
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b"):
        raise TypeError(f"{name} must be a real number or array of real numbers, got {x!r}")
    arr = as_float_array(x, name)  # type: ignore[arg-type]
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0 if strict else arr < 0):
        raise ValueError(f"{name} must be finite and {'>' if strict else '>='} 0, got {x!r}")
    return arr


@overload
def coupled_alpha_crit(alpha_c: float, lam: float, beta: float, N: int) -> float: ...
@overload
def coupled_alpha_crit(
    alpha_c: float | NDArray[np.float64], lam: Sequence[float] | NDArray[np.float64],
    beta: float, N: int,
) -> NDArray[np.float64]: ...  # fmt: skip
def coupled_alpha_crit(
    alpha_c: float | NDArray[np.float64],
    lam: float | Sequence[float] | NDArray[np.float64],
    beta: float,
    N: int,
) -> float | NDArray[np.float64]:
    """Predicted shift of the transition by retrieval feedback, α_crit^λ = α_crit (1 − λ²β/N).

    Eq. ``eq-cg-coupled-crit`` of chapter 5.

    Parameters
    ----------
    alpha_c : float or array_like
        Gate-only critical point(s) (> 0), broadcast against ``lam``.
    lam : float or array_like
        Coupling(s) λ >= 0.
    beta : float
        Inverse temperature > 0.
    N : int
        Number of memories >= 2.

    Returns
    -------
    float, or numpy.ndarray of the broadcast shape when ``alpha_c`` or ``lam`` is an array
        The predicted threshold; 0.0 when λ²β >= N (uniform state unstable for all α > 0).

    Raises
    ------
    ValueError
        On out-of-range arguments.

    Notes
    -----
    Theorem C.2 (App. C.3, "preliminary"); the display is garbled in the extracted PDF and was
    rebuilt from the derivation (digest §4.4). The paper says it is only qualitatively right.
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    check_int("N", N, 2)
    if np.ndim(alpha_c) == 0 and np.ndim(lam) == 0:
        ac = check_real("alpha_c", alpha_c, low=0.0, strict=True)
        la = check_real("lam", lam, low=0.0, strict=False)
        return max(0.0, ac * (1.0 - la**2 * be / N))
    ac_a = _check_nonneg("alpha_c", alpha_c, strict=True)
    la_a = _check_nonneg("lam", lam)
    return np.asarray(np.maximum(0.0, ac_a * (1.0 - la_a**2 * be / N)), dtype=np.float64)


def coupled_gain(
    lam: float | NDArray[np.float64], beta: float, N: int, eta: float | NDArray[np.float64]
) -> NDArray[np.float64]:
    """Loop gain λ²β/(N η) of the score map at the uniform state (paper Thm C.2, Eq. 53).

    The uniform retrieval state loses stability where it exceeds 1, which gives
    eq. ``eq-cg-coupled-crit`` with η = η_min(α).

    Parameters
    ----------
    lam : float or array_like
        Coupling(s) λ >= 0.
    beta : float
        Inverse temperature > 0.
    N : int
        Number of memories >= 2.
    eta : float or array_like
        Eigenvalue(s) η of A(α) (> 0), broadcast against ``lam``; η_min = 1 − α for unit-norm
        memories with N > d.

    Returns
    -------
    numpy.ndarray, float64, the broadcast shape of ``lam`` and ``eta``

    Raises
    ------
    ValueError
        On out-of-range arguments.
    """
    be = check_real("beta", beta, low=0.0, strict=True)
    check_int("N", N, 2)
    la = _check_nonneg("lam", lam)
    et = _check_nonneg("eta", eta, strict=True)
    return np.asarray(la**2 * be / (N * et), dtype=np.float64)


def contraction_constant(
    memories: np.ndarray | torch.Tensor, alpha: float, lam: float, beta: float
) -> float:
    """Lipschitz constant βλ²/(2η_min(α)) of the self-consistent map Φ (eq. ``eq-cg-contraction``).

    Parameters
    ----------
    memories : array_like, shape (N, d)
        One set of stored patterns ζ^μ (rows), N >= 2, finite.
    alpha : float
        Competition strength α >= 0.
    lam : float
        Coupling λ >= 0.
    beta : float
        Inverse temperature β > 0.

    Returns
    -------
    float
        Below 1 the coupled gate–retrieval subsystem has a unique fixed point; ``inf`` when
        A(α) is not positive definite (η_min <= 0).

    Raises
    ------
    ValueError
        If α < 0, λ < 0 or β <= 0.

    Notes
    -----
    Paper Thm 3.4, Lemma C.4.
    """
    la = check_real("lam", lam, low=0.0, strict=False)
    be = check_real("beta", beta, low=0.0, strict=True)
    em = eta_min(memories, alpha)
    if em <= 0:
        return math.inf
    return be * la**2 / (2.0 * em)


def retrieval_threshold(N: int, beta: float, eps: float) -> float:
    """Gap Δ needed for P(μ) >= 1 − ε: (1/β) ln((1 − ε)(N − 1)/ε) (eq. ``eq-cg-threshold``).

    Parameters
    ----------
    N : int
        Number of memories, >= 2.
    beta : float
        Inverse temperature, > 0 (``beta=1`` gives the threshold of βΔ).
    eps : float
        Allowed error probability, in (0, 1).

    Returns
    -------
    float
        The threshold (1.953 for N = 50, β = 3.5, ε = 0.05, the "1.95" of the paper's Fig. 2c).

    Raises
    ------
    ValueError
        On out-of-range arguments.

    Notes
    -----
    Paper Thm 3.1.
    """
    check_int("N", N, 2)
    be = check_real("beta", beta, low=0.0, strict=True)
    e = check_real("eps", eps, low=0.0, strict=True)
    if e >= 1:
        raise ValueError(f"eps must lie in (0, 1), got {eps!r}")
    out = math.log((1 - e) * (N - 1) / e) / be
    if not math.isfinite(out):
        raise ValueError(f"the threshold overflows for beta={beta!r}: beta must be larger")
    return out


def retrieval_bound(delta: np.ndarray | float, N: int, beta: float) -> np.ndarray:
    """Lower bound P(μ) >= 1/(1 + (N − 1) e^{−βΔ}) on the target probability (eq-cg-threshold).

    Parameters
    ----------
    delta : array_like
        Score gap Δ (any real values).
    N : int
        Number of memories, >= 2.
    beta : float
        Inverse temperature, > 0.

    Returns
    -------
    numpy.ndarray, same shape as ``delta``, float64 in (0, 1).

    Raises
    ------
    ValueError
        On out-of-range arguments.

    Notes
    -----
    Paper Eq. 22 (proof of Thm 3.1); chapter 5, eq. ``eq-cg-threshold``.
    """
    check_int("N", N, 2)
    be = check_real("beta", beta, low=0.0, strict=True)
    dl = check_finite_array("delta", delta)
    if dl.size == 0:
        raise ValueError("delta must not be empty")
    # 1/(1 + (N-1) e^{-βΔ}) written as a logistic function, stable for large |Δ|
    return np.asarray(expit(be * dl - np.log(N - 1)), dtype=np.float64)


def gate_fixed_point(u: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    """Gate fixed point s* = A(α)⁻¹ u of τ_s ṡ = u − A(α) s (eq. ``eq-cg-A``; paper Eq. 34).

    Parameters
    ----------
    u : torch.Tensor, shape (..., N)
        Context input to the gates, u = W_h1 c.
    A : torch.Tensor, shape (N, N) or (..., N, N)
        Gate matrix A(α) (:func:`gate_matrix`), positive definite; float64 or float32.

    Returns
    -------
    torch.Tensor, shape (..., N), dtype and device of ``u``

    Raises
    ------
    ValueError
        If the shapes do not match.

    Notes
    -----
    The inverse is taken once in float64 and cast to the dtype of ``u`` (so a float32 batch gets
    a float64-accurate A⁻¹); s* = u A⁻ᵀ row by row.
    """
    check_tensor("u", u, ndim=tuple(range(1, 9)))
    check_tensor("A", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2] or u.shape[-1] != A.shape[-1]:
        raise ValueError(
            f"u must have shape (..., N) and A (..., N, N), got {tuple(u.shape)}, {tuple(A.shape)}"
        )
    check_broadcast("u and A", u.shape[:-1], A.shape[:-2])
    M = torch.linalg.inv(A.to(torch.float64)).to(dtype=u.dtype, device=u.device)
    if M.ndim == 2:
        return u @ M.mT
    return (M @ u.unsqueeze(-1)).squeeze(-1)


def first_order_scores(
    b: torch.Tensor, u: torch.Tensor, A: torch.Tensor, lam: float | torch.Tensor
) -> torch.Tensor:
    """First-order retrieval scores r = b + λ A(α)⁻¹ u (no retrieval→gate feedback).

    The first two terms of eq. ``eq-cg-fixed-point`` (paper Eq. 5): query evidence plus the
    context bias of the gates at their fixed point :func:`gate_fixed_point`.

    Parameters
    ----------
    b : torch.Tensor, shape (..., N)
        Query–memory similarities.
    u : torch.Tensor, shape (..., N)
        Context input to the gates, u = W_h1 c.
    A : torch.Tensor, shape (N, N) or (..., N, N)
        Gate matrix A(α), positive definite.
    lam : float or torch.Tensor broadcastable to (..., 1)
        Coupling λ.

    Returns
    -------
    torch.Tensor, shape (..., N), dtype of ``b``

    Raises
    ------
    ValueError
        If the shapes do not match.

    Notes
    -----
    Also the score S(μ, q) of the proof of Thm 3.1 with s = A⁻¹u (paper Eq. 19).
    """
    check_tensor("b", b, ndim=tuple(range(1, 9)))
    check_tensor("u", u, ndim=tuple(range(1, 9)))
    check_tensor("A", A, ndim=tuple(range(2, 9)))
    if b.shape != u.shape or b.shape[-1] != A.shape[-1]:
        raise ValueError(
            f"b and u must have the same shape (..., N) with N = {A.shape[-1]}, "
            f"got {tuple(b.shape)} and {tuple(u.shape)}"
        )
    la: float | torch.Tensor
    if isinstance(lam, torch.Tensor):
        la = check_tensor("lam", lam)
        if bool((la < 0).any()):
            raise ValueError("lam must be >= 0 (coupling)")
    else:
        la = check_real("lam", lam, low=0.0)
    return b + la * gate_fixed_point(u, A)


@dataclass
class FixedPoint:
    """Result of :func:`self_consistent_fixed_point` (all tensors batched like ``b``).

    Attributes
    ----------
    p : torch.Tensor, shape (..., N)
        p* = softmax(β r*), the retrieval distribution.
    r : torch.Tensor, shape (..., N)
        r* = b + λA⁻¹u + λ²A⁻¹p*.
    s : torch.Tensor, shape (..., N)
        s* = A⁻¹(u + λp*).
    iterations : int
        Iterations used.
    converged : torch.Tensor of bool, shape (...)
        ‖r^{k+1} − r^k‖_∞ < tol at the end, per trial.
    residual : torch.Tensor, shape (...)
        Final ‖r^{k+1} − r^k‖_∞ per trial.
    contraction : float
        βλ²/(2η_min); below 1 the fixed point is unique (Thm 3.4).
    """

    p: torch.Tensor
    r: torch.Tensor
    s: torch.Tensor
    iterations: int
    converged: torch.Tensor
    residual: torch.Tensor
    contraction: float

    def report(self) -> str:
        """One line: iterations, fraction converged, largest residual, contraction constant."""
        frac = float(self.converged.double().mean())
        return (
            f"{self.iterations} iterations, {100 * frac:.1f}% converged, "
            f"max residual {float(self.residual.max()):.2e}, "
            f"contraction constant βλ²/(2η_min) = {self.contraction:.3g}"
        )


def self_consistent_fixed_point(
    b: torch.Tensor,
    u: torch.Tensor,
    A: torch.Tensor,
    *,
    lam: float,
    beta: float,
    r0: torch.Tensor | None = None,
    damping: float = 1.0,
    max_iter: int = 500,
    tol: float = 1e-10,
) -> FixedPoint:
    """Iterate the self-consistent map Φ of Eq. (6) to its fixed point (eq. ``eq-cg-fixed-point``).

    r^{k+1} = (1 − ω) r^k + ω [b + λA⁻¹u + λ²A⁻¹ softmax(β r^k)], with damping ω in (0, 1].

    Parameters
    ----------
    b, u : torch.Tensor, shape (..., N)
        Query similarities and context input (clamped query and context).
    A : torch.Tensor, shape (N, N)
        Gate matrix A(α), positive definite.
    lam : float
        Coupling λ >= 0.
    beta : float
        Inverse temperature > 0.
    r0 : torch.Tensor, optional
        Starting scores (default: the first-order scores b + λA⁻¹u).
    damping : float
        ω in (0, 1]; ω = 1 is the plain map of Eq. (6).
    max_iter : int
        Maximum iterations (>= 1).
    tol : float
        Stop when ‖r^{k+1} − r^k‖_∞ < tol for every trial.

    Returns
    -------
    FixedPoint

    Raises
    ------
    ValueError
        On out-of-range arguments or shape mismatch; if A is not positive definite.

    Notes
    -----
    Paper Thm 3.4 (Eq. 5–6). When βλ²/(2η_min) < 1 (eq. ``eq-cg-contraction``), Φ is a
    contraction and the iteration converges to the unique fixed point from any start; otherwise
    it may have several fixed points and the one reached depends on r0 (see chapter 5).
    """
    la = check_real("lam", lam, low=0.0, strict=False)
    be = check_real("beta", beta, low=0.0, strict=True)
    om = check_real("damping", damping, low=0.0, strict=True)
    if om > 1:
        raise ValueError(f"damping must lie in (0, 1], got {damping!r}")
    max_iter = check_int("max_iter", max_iter, 1)
    tl = check_real("tol", tol, low=0.0, strict=True)
    check_tensor("b", b, ndim=tuple(range(1, 9)))
    check_tensor("u", u, ndim=tuple(range(1, 9)))
    check_tensor("A", A, ndim=2)
    if r0 is not None:
        check_tensor("r0", r0)
        if r0.shape != b.shape:
            raise ValueError(f"r0 must have the shape of b {tuple(b.shape)}, got {tuple(r0.shape)}")
    if b.shape != u.shape or b.shape[-1] != A.shape[0] or A.shape[0] != A.shape[1]:
        raise ValueError(
            f"shapes must be b, u: (..., N) and A: (N, N); got {tuple(b.shape)}, "
            f"{tuple(u.shape)}, {tuple(A.shape)}"
        )
    evals = torch.linalg.eigvalsh(A)
    em = float(evals[0])
    if em <= 0:
        raise ValueError(f"A must be positive definite (alpha < alpha_crit); eta_min = {em:.3g}")
    M = torch.linalg.inv(A)
    bias = first_order_scores(b, u, A, la)
    r = bias.clone() if r0 is None else r0.to(b)
    residual = torch.full(b.shape[:-1], math.inf, dtype=b.dtype, device=b.device)
    it = 0
    while it < max_iter:
        it += 1
        target = bias + la**2 * (torch.softmax(be * r, dim=-1) @ M.T)
        new = (1 - om) * r + om * target
        residual = (new - r).abs().amax(dim=-1)
        r = new
        if bool((residual < tl).all()):
            break
    p = torch.softmax(be * r, dim=-1)
    s = (u + la * p) @ M.T
    return FixedPoint(
        p=p,
        r=r,
        s=s,
        iterations=it,
        converged=residual < tl,
        residual=residual,
        contraction=be * la**2 / (2 * em),
    )


def decompose_fixed_point(
    b: torch.Tensor, u: torch.Tensor, A: torch.Tensor, p: torch.Tensor, *, lam: float
) -> dict[str, torch.Tensor]:
    """Three-term decomposition of r* (eq. ``eq-cg-fixed-point``; paper p.5, Eq. 5).

    Parameters
    ----------
    b, u : torch.Tensor, shape (..., N)
        Query similarities and context input.
    A : torch.Tensor, shape (N, N)
        Gate matrix A(α) (invertible).
    p : torch.Tensor, shape (..., N)
        Retrieval distribution p* at the fixed point (``FixedPoint.p``).
    lam : float
        Coupling λ >= 0.

    Returns
    -------
    dict of str to torch.Tensor
        Keys ``"query"`` (b), ``"context"`` (λA⁻¹u, first order) and ``"feedback"``
        (λ²A⁻¹p*, second order), each of shape (..., N) and the dtype of the inputs; their sum
        is r*.

    Raises
    ------
    TypeError, ValueError
        If λ is not a real number >= 0, a tensor is not a finite floating-point one, or the
        shapes do not match.
    """
    la = check_real("lam", lam, low=0.0, strict=False)
    for name, t in (("b", b), ("u", u), ("p", p)):
        check_tensor(name, t, ndim=tuple(range(1, 9)))
    check_tensor("A", A, ndim=2)
    if not (b.shape == u.shape == p.shape) or A.shape != (b.shape[-1], b.shape[-1]):
        raise ValueError(
            f"b, u, p must share a shape (..., N) and A be (N, N), got {tuple(b.shape)}, "
            f"{tuple(u.shape)}, {tuple(p.shape)}, {tuple(A.shape)}"
        )
    M = torch.linalg.inv(A)
    return {"query": b, "context": la * gate_fixed_point(u, A), "feedback": la**2 * (p @ M.T)}
