"""Chapter 5's instances: memory sets, noisy cues, cued trials and the grids results are read on.

:func:`sample_memories` and :func:`sample_clustered_memories` draw the memory sets (paper
App. D.1, D.2); :func:`noisy_cue` is the one place where a noisy query or context is built;
:func:`cued_trials` draws the setup that the retrieval experiments share (memories, gate matrix,
targets, queries, contexts); :func:`grid_index` and :func:`grid_label` find and name a grid value
(λ, σ_q, α) in a result and its summary's keys. Every choice the paper leaves open is a named
argument with the default used in chapter 5, which states them as reconstructions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_finite_array, check_grid, check_int, check_real, check_tensor
from assocmem.context_gated.theory import alpha_crit, gate_matrix
from assocmem.device import make_generator
from assocmem.keys import glue_key

__all__ = [
    "NOISE_NORMS",
    "grid_index",
    "grid_label",
    "sample_memories",
    "sample_clustered_memories",
    "noisy_cue",
    "CuedTrials",
    "cued_trials",
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
    """Label of a grid value in a summary's keys: :func:`assocmem.keys.glue_key` of it.

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
        arr = check_grid("sigma", sigma, what="a number or a non-empty 1-D sequence")
        sig = torch.as_tensor(arr).view(-1, *([1] * len(shape)))
    eps = torch.randn(*shape, generator=make_generator(seed), dtype=torch.float64)
    zeta = memory.detach().to(dtype=torch.float64, device="cpu")
    if noise == "unit":
        return zeta + sig * eps / math.sqrt(d)
    return zeta + sig * eps


@dataclass(frozen=True)
class CuedTrials:
    """One memory set and T cued trials of chapter 5: the setup every retrieval experiment shares.

    Attributes
    ----------
    Z : torch.Tensor, shape (N, d), float64
        The memories (:func:`sample_memories`).
    A : torch.Tensor, shape (N, N), float64
        The gate matrix A(α), positive definite.
    target : torch.Tensor, shape (T,), int64
        The target μ of each trial.
    sigma_q : numpy.ndarray, shape (S,)
        The query noise levels (checked).
    queries : torch.Tensor, shape (S, T, d), float64
        q = ζ^μ + σ_q ε at every query noise level (one draw ε: common random numbers).
    context : torch.Tensor, shape (T, d), float64
        c = ζ^μ + σ_c η.
    settings : dict
        The checked settings that made them: ``N``, ``d``, ``alpha``, ``sigma_c``, ``trials``,
        ``noise``.
    """

    Z: torch.Tensor
    A: torch.Tensor
    target: torch.Tensor
    sigma_q: NDArray[np.float64]
    queries: torch.Tensor
    context: torch.Tensor
    settings: dict[str, object]


def cued_trials(
    N: int,
    d: int,
    alpha: float,
    sigma_c: float,
    sigma_q: ArrayLike,
    trials: int,
    *,
    noise: str,
    seed: int | torch.Generator,
) -> CuedTrials:
    """Draw one memory set, its gate matrix and T trials with noisy queries and contexts.

    Per trial a target μ is drawn uniformly, q = ζ^μ + σ_q ε at every level of ``sigma_q`` (one
    draw ε) and c = ζ^μ + σ_c η (:func:`noisy_cue`). Draw order from the seed: memories,
    targets, ε, η (paper App. D.1; the noise scale is a reconstruction, see chapter 5).

    Parameters
    ----------
    N, d : int
        Memories (>= 2) and dimension (>= 1).
    alpha : float
        Gate competition, >= 0 and below α_crit (A(α) positive definite).
    sigma_c : float
        Context noise, >= 0.
    sigma_q : array_like, shape (S,)
        Query noise levels, finite and >= 0.
    trials : int
        Trials T, >= 1.
    noise : {"per_component", "unit"}
        Noise normalisation of :func:`noisy_cue`.
    seed : int or torch.Generator
        Seed of every draw.

    Returns
    -------
    CuedTrials

    Raises
    ------
    TypeError, ValueError
        On out-of-range arguments, or α with A(α) not positive definite.
    """
    N = check_int("N", N, 2)
    d = check_int("d", d, 1)
    trials = check_int("trials", trials, 1)
    al = check_real("alpha", alpha, low=0.0)
    sc = check_real("sigma_c", sigma_c, low=0.0)
    if noise not in NOISE_NORMS:
        raise ValueError(f"noise must be one of {NOISE_NORMS}, got {noise!r}")
    sq = check_grid("sigma_q", sigma_q)
    g = make_generator(seed)
    Z = sample_memories(N, d, seed=g)
    A = gate_matrix(Z, al)
    if float(torch.linalg.eigvalsh(A)[0]) <= 0:
        raise ValueError(f"alpha={alpha} is not below alpha_crit={alpha_crit(Z):.3g}")
    target = torch.randint(0, N, (trials,), generator=g)
    zt = Z[target]
    queries = noisy_cue(zt, sq, seed=g, noise=noise)  # (S, T, d)
    context = noisy_cue(zt, sc, seed=g, noise=noise)
    settings = {"N": N, "d": d, "alpha": al, "sigma_c": sc, "trials": trials, "noise": noise}
    return CuedTrials(Z, A, target, sq, queries, context, settings)
