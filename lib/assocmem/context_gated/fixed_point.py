"""One noisy retrieval trial at its self-consistent fixed point, decomposed (paper Thm 3.4).

The computation behind chapter 5's explorer: draw a memory set and a noisy query and context for
memory 0, solve the self-consistent map (eq. ``eq-cg-fixed-point``) and split r* into its three
terms. The figure (:func:`~assocmem.context_gated.plots.plot_fixed_point_trial`) only draws the
result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from assocmem._validate import check_int, check_real
from assocmem.context_gated.instances import noisy_cue, sample_memories
from assocmem.context_gated.theory import (
    contraction_constant,
    decompose_fixed_point,
    gate_matrix,
    self_consistent_fixed_point,
)
from assocmem.device import make_generator

__all__ = ["FixedPointTrial", "fixed_point_trial"]


@dataclass
class FixedPointTrial:
    """Output of :func:`fixed_point_trial`.

    Attributes
    ----------
    contraction : float
        βλ²/(2η_min(α)) (eq. ``eq-cg-contraction``); ``inf`` when α >= α_crit.
    terms : dict of str to torch.Tensor, shape (N,), or None
        ``"query"``, ``"context"`` and ``"feedback"`` terms of r* (``None`` when α >= α_crit:
        A(α) is not positive definite and there is no fixed point to decompose).
    p : torch.Tensor, shape (N,), or None
        p* = softmax(β r*).
    converged : bool
        Whether the iteration met its tolerance.
    target : int
        Index of the target memory (0).
    params : dict
        Every setting used (α, λ, β, σ_q, σ_c, N, d, seed).
    """

    contraction: float
    terms: dict[str, torch.Tensor] | None
    p: torch.Tensor | None
    converged: bool
    target: int = 0
    params: dict = field(default_factory=dict)

    @property
    def unique(self) -> bool:
        """True when the contraction constant is below 1 (the fixed point is unique)."""
        return self.contraction < 1


def fixed_point_trial(
    alpha: float = 0.1,
    lam: float = 0.5,
    beta: float = 3.5,
    noise: float = 1.0,
    sigma_c: float = 0.3,
    N: int = 50,
    d: int = 10,
    seed: int = 0,
    max_iter: int = 2000,
) -> FixedPointTrial:
    """Self-consistent fixed point of one noisy retrieval trial, split into its three terms.

    Memories from :func:`~assocmem.context_gated.instances.sample_memories`; target μ = 0;
    q = ζ⁰ + noise·ε, c = ζ⁰ + σ_c η with ε, η ~ N(0, I_d/d)
    (:func:`~assocmem.context_gated.instances.noisy_cue`, query first); the fixed point of
    eq. ``eq-cg-fixed-point`` iterated from the first-order scores, decomposed by
    :func:`~assocmem.context_gated.theory.decompose_fixed_point` (paper Thm 3.4).

    Parameters
    ----------
    alpha, lam, beta : float
        Competition α >= 0, coupling λ >= 0, inverse temperature β > 0.
    noise : float
        Query noise σ_q >= 0.
    sigma_c : float
        Context noise σ_c >= 0.
    N, d : int
        Memories and dimension.
    seed : int
        Seed of the memories and of both noise draws.
    max_iter : int
        Iteration cap of the fixed-point map.

    Returns
    -------
    FixedPointTrial
        With ``terms = p = None`` when α >= α_crit (no stable fixed point).

    Raises
    ------
    TypeError, ValueError
        On out-of-range arguments.
    """
    al = check_real("alpha", alpha, low=0.0)
    la = check_real("lam", lam, low=0.0)
    be = check_real("beta", beta, low=0.0, strict=True)
    params = {"alpha": al, "lam": la, "beta": be, "noise": noise, "sigma_c": sigma_c,
              "N": check_int("N", N, 2), "d": check_int("d", d, 1), "seed": seed}  # fmt: skip
    check_int("seed", seed, 0)
    max_iter = check_int("max_iter", max_iter, 1)
    g = make_generator(seed)
    Z = sample_memories(N, d, seed=g)
    q = noisy_cue(Z[0], noise, seed=g)
    c = noisy_cue(Z[0], sigma_c, seed=g)
    A = gate_matrix(Z, al)
    L = contraction_constant(Z, al, la, be)
    if not math.isfinite(L):
        return FixedPointTrial(L, None, None, False, 0, params)
    b, u = Z @ q, Z @ c
    fp = self_consistent_fixed_point(b, u, A, lam=la, beta=be, max_iter=max_iter)
    terms = decompose_fixed_point(b, u, A, fp.p, lam=la)
    return FixedPointTrial(L, terms, fp.p, bool(fp.converged.all()), 0, params)
