"""The gate-only phase transition (paper Thm 3.3; Fig. 3a–c).

Chapter 5, eq. ``eq-cg-alpha-crit``; W_h2, its spectrum and A(α)'s eigenvalues come from
:mod:`assocmem.context_gated.theory`. The coupled gate–retrieval transition (Thm C.2, Fig. 3d) is
followed up and down in α by :mod:`assocmem.context_gated.hysteresis`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from assocmem._validate import (
    check_broadcast,
    check_grid,
    check_int,
    check_real,
    check_tensor,
)
from assocmem.context_gated.instances import grid_label, sample_clustered_memories
from assocmem.context_gated.theory import (
    alpha_crit_of_spectrum,
    competition_spectrum,
    gate_eigenvalues,
)
from assocmem.device import get_device, make_generator
from assocmem.estimate import Estimate
from assocmem.stats import crossing

__all__ = [
    "gate_state",
    "GateTransitionResult",
    "gate_transition",
]


def gate_state(
    eigvals: torch.Tensor,
    eigvecs: torch.Tensor,
    u: torch.Tensor,
    alpha: float,
    *,
    s0: torch.Tensor | None = None,
    t_end: float = 40.0,
    eta_floor: float = 0.01,
) -> torch.Tensor:
    """Gate state of the isolated gate subsystem (λ = 0), fixed point or transient (Thm 3.3).

    With ω_k, v_k the eigenpairs of W_h2 and η_k = 1 + αω_k the eigenvalues of A(α)
    (:func:`~assocmem.context_gated.theory.gate_eigenvalues`):
    if η_min > ``eta_floor`` the fixed point s* = A⁻¹u = Σ_k (c_k/η_k) v_k (Eq. 34; chapter 5,
    below eq. ``eq-cg-A``), c_k = v_kᵀu;
    otherwise the exact transient of τ_s ṡ = u − A s at t = t_end (Eq. 37/39),
    a_k(t) = a_k(0) e^{−η_k t} + c_k t φ(η_k t) with φ(x) = (1 − e^{−x})/x.

    Parameters
    ----------
    eigvals : torch.Tensor, shape (..., N)
        Eigenvalues of W_h2 (= μ_k − 1 for unit-norm memories).
    eigvecs : torch.Tensor, shape (..., N, N)
        Matching eigenvectors (columns).
    u : torch.Tensor, shape (..., N)
        Context input.
    alpha : float
        α >= 0.
    s0 : torch.Tensor, shape (..., N), optional
        Initial gate state for the transient (default zero).
    t_end : float
        Time (units of τ_s) at which the transient is read (reconstruction choice).
    eta_floor : float
        Switch to the transient when η_min <= eta_floor (paper: 0.01).

    Returns
    -------
    torch.Tensor, shape (..., N)

    Raises
    ------
    TypeError, ValueError
        If a tensor is not a finite floating-point one of matching shape, α < 0, t_end <= 0,
        eta_floor < 0, or the transient overflows (it grows as e^{|η_min| t_end} for η_min < 0:
        lower α or t_end).
    """
    al = check_real("alpha", alpha, low=0.0, strict=False)
    t_end = check_real("t_end", t_end, low=0.0, strict=True)
    eta_floor = check_real("eta_floor", eta_floor, low=0.0)
    check_tensor("eigvals", eigvals, ndim=tuple(range(1, 9)))
    check_tensor("eigvecs", eigvecs)
    check_tensor("u", u, ndim=tuple(range(1, 9)))
    if eigvecs.shape != (*eigvals.shape, eigvals.shape[-1]) or u.shape[-1] != eigvals.shape[-1]:
        raise ValueError(
            f"eigvals must have shape (..., N), eigvecs (..., N, N) and u (..., N), got "
            f"{tuple(eigvals.shape)}, {tuple(eigvecs.shape)}, {tuple(u.shape)}"
        )
    check_broadcast("eigvals and u", eigvals.shape[:-1], u.shape[:-1])
    if s0 is not None:
        check_tensor("s0", s0, ndim=tuple(range(1, 9)))
        if s0.shape != u.shape:
            raise ValueError(f"s0 must have the shape of u {tuple(u.shape)}, got {tuple(s0.shape)}")
    eta = gate_eigenvalues(eigvals, al)
    cc = (eigvecs.mT @ u.unsqueeze(-1)).squeeze(-1)
    a0 = torch.zeros_like(cc) if s0 is None else (eigvecs.mT @ s0.unsqueeze(-1)).squeeze(-1)
    x = eta * t_end
    small = x.abs() < 1e-8
    phi = torch.where(small, torch.ones_like(x), -torch.expm1(-x) / torch.where(small, 1.0, x))
    transient = a0 * torch.exp(-x) + cc * t_end * phi
    fixed = cc / torch.where(eta.abs() < 1e-300, 1e-300, eta)
    use_fixed = (eta.amin(dim=-1, keepdim=True) > eta_floor).expand_as(eta)
    a = torch.where(use_fixed, fixed, transient)
    out = (eigvecs @ a.unsqueeze(-1)).squeeze(-1)
    if not bool(torch.isfinite(out).all()):
        raise ValueError(
            f"the gate transient overflows at alpha={al:g}, t_end={t_end:g} (it grows as "
            f"e^(-eta_min t_end), eta_min = {float(eta.amin()):.3g}): lower alpha or t_end"
        )
    return out


@dataclass
class GateTransitionResult:
    """Output of :func:`gate_transition`.

    Attributes
    ----------
    alphas : numpy.ndarray, shape (A,)
    peak : numpy.ndarray, shape (A, T)
        max_i softmax(β s)_i per α and trial.
    alpha_crit : numpy.ndarray, shape (T,)
        α_crit of each trial's memory set (1 for N > d).
    example : numpy.ndarray, shape (A, N)
        Gate distribution softmax(β s) of trial 0 at each α.
    params : dict
    """

    alphas: np.ndarray
    peak: np.ndarray
    alpha_crit: np.ndarray
    example: np.ndarray
    params: dict = field(default_factory=dict)

    def crossing(self, level: float, *, n_boot: int = 500, seed: int = 0) -> Estimate:
        """α where the mean peak gate probability first rises through ``level``, with its interval.

        Parameters
        ----------
        level : float
            The level, e.g. 1/2 or 0.95.
        n_boot : int
            Bootstrap resamples of the memory sets (>= 10); memory use is about
            8·n_boot·T·A bytes.
        seed : int
            Seed of the resampling.

        Returns
        -------
        Estimate
            :func:`assocmem.stats.crossing` of the mean over memory sets (linear interpolation on
            the α grid, NaN if the mean does not cross inside it), its percentile bootstrap 95 %
            interval over memory sets, ``n`` = memory sets.

        Raises
        ------
        ValueError
            If there are fewer than 2 memory sets or ``level``/``n_boot`` is out of range.
        """
        return crossing(self.alphas, self.peak.T, level, direction="up", n_boot=n_boot,
                        unit="memory sets", seed=seed)  # fmt: skip

    def summary(
        self, levels: Sequence[float] = (0.5, 0.95), *, n_boot: int = 500, seed: int = 0
    ) -> dict[str, Estimate]:
        """Return the crossings the chapter's prose quotes, labelled by level.

        Parameters
        ----------
        levels : sequence of float
            Levels of :meth:`crossing`.
        n_boot, seed : int
            As in :meth:`crossing`.

        Returns
        -------
        dict of str to Estimate
            Level (written by :func:`grid_label`: 0.5 -> ``"0p5"``, 0.95 -> ``"0p95"``)
            -> :meth:`crossing`.
        """
        return {grid_label(lv): self.crossing(lv, n_boot=n_boot, seed=seed) for lv in levels}


def _alpha_grid(alphas: Sequence[float] | np.ndarray) -> np.ndarray:
    return check_grid("alphas", alphas)


def _clustered_competition(
    N: int, d: int, trials: int, g: torch.Generator, dev: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Eigenpairs of the competition matrix W_h2 of clustered memory sets (drawn on the CPU).

    Returns the ascending eigenvalues (trials, N) and eigenvectors (trials, N, N) on ``dev``.
    """
    Z = sample_clustered_memories(N, d, trials=trials, seed=g)
    return competition_spectrum(Z, device=dev)


def gate_transition(
    alphas: Sequence[float] | np.ndarray,
    *,
    N: int = 50,
    d: int = 10,
    beta: float = 3.5,
    trials: int = 1000,
    t_end: float = 40.0,
    eta_floor: float = 0.01,
    sigma_init: float = 1e-4,
    seed: int = 0,
    device: str | torch.device | None = None,
    progress: bool = True,
) -> GateTransitionResult:
    """Peak gate probability vs α of the isolated gate subsystem (eq-cg-alpha-crit; Fig. 3a–c).

    Per trial: a fresh clustered memory set (:func:`sample_clustered_memories`), uniform context
    u = (1/N)·1, λ = 0 and a random initial gate state s(0) ~ N(0, σ_init² I); the gate state is
    :func:`gate_state` (fixed point when η_min > eta_floor, else the transient at t_end).

    Parameters
    ----------
    alphas : 1-D sequence of float
        Competition strengths α >= 0 (A values).
    N, d : int
        Memories and dimension (paper: 50, 10).
    beta : float
        Inverse temperature of the gate read-out softmax(β s) (> 0).
    trials : int
        Memory sets (T), one per trial (paper: 1000).
    t_end, eta_floor : float
        Read-out time of the transient and the switch of :func:`gate_state`.
    sigma_init : float
        Scale of the random initial gate state (>= 0).
    seed : int
        Seed of every draw (memories, then initial states).
    device : str or torch.device, optional
        Where the eigen-decompositions and states are computed (draws are made on the CPU).
    progress : bool
        Show a progress bar over α.

    Returns
    -------
    GateTransitionResult
        Peak gate probabilities of shape (A, T), float64.

    Raises
    ------
    TypeError
        If a size or the seed is not an integer.
    ValueError
        On out-of-range arguments.

    Notes
    -----
    What varies between the paper's 1000 trials and its t_end rule were not recovered; the
    per-trial memory draw, s(0) and the fixed t_end are reconstruction choices (chapter 5).
    """
    a = _alpha_grid(alphas)
    N = check_int("N", N, 2)
    d = check_int("d", d, 1)
    trials = check_int("trials", trials, 1)
    be = check_real("beta", beta, low=0.0, strict=True)
    te = check_real("t_end", t_end, low=0.0, strict=True)
    check_real("eta_floor", eta_floor, low=0.0)
    si = check_real("sigma_init", sigma_init, low=0.0, strict=False)
    dev = get_device(device)
    g = make_generator(seed)
    evals, evecs = _clustered_competition(N, d, trials, g, dev)
    ac = np.ones(trials) if N > d else alpha_crit_of_spectrum(evals).cpu().numpy()
    u = torch.full((trials, N), 1.0 / N, dtype=torch.float64, device=dev)
    s0 = (si * torch.randn(trials, N, generator=g, dtype=torch.float64)).to(dev)
    peak = np.zeros((a.size, trials))
    example = np.zeros((a.size, N))
    for i, al in enumerate(tqdm(a, desc="α", disable=not progress)):
        s = gate_state(evals, evecs, u, float(al), s0=s0, t_end=te, eta_floor=eta_floor)
        p = torch.softmax(be * s, dim=-1)
        peak[i] = p.amax(-1).cpu().numpy()
        example[i] = p[0].cpu().numpy()
    params = {
        "N": N,
        "d": d,
        "beta": be,
        "trials": trials,
        "t_end": te,
        "eta_floor": eta_floor,
        "sigma_init": si,
        "seed": seed,
    }
    return GateTransitionResult(a, peak, ac, example, params)
