"""Hysteresis of the coupled gate–retrieval map: the fixed point followed up and down in α.

A measurement of chapter 5 that goes beyond the paper's figures: :func:`hysteresis_sweep`
follows the coupled gate–retrieval fixed point (eq-cg-fixed-point) up in α from the uniform
state and down in α from a winner state (Thm C.2, Fig. 3d, eq-cg-coupled-crit), with the spectral
radius of the map's Jacobian along the uniform branch (:func:`map_jacobian_radius`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch

from assocmem._validate import (
    as_float_array,
    check_broadcast,
    check_grid,
    check_int,
    check_real,
    check_tensor,
)
from assocmem.context_gated.instances import grid_label, sample_clustered_memories
from assocmem.context_gated.theory import (
    competition_spectrum,
    coupled_alpha_crit,
    coupled_gain,
    gate_inverse,
)
from assocmem.device import make_generator
from assocmem.estimate import Estimate, render
from assocmem.stats import bootstrap_interval
from assocmem.streams import Seed, as_seed_sequence, child

__all__ = ["fixed_point_energy", "map_jacobian_radius", "HysteresisResult", "hysteresis_sweep"]


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

    Raises
    ------
    TypeError, ValueError
        If λ < 0, β <= 0, or ``M``, ``p`` (or ``M_half``) is not a finite floating-point tensor
        of matching shape.

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
    check_tensor("M", M, ndim=tuple(range(2, 9)))
    check_tensor("p", p, ndim=tuple(range(1, 9)))
    if M.shape[-1] != M.shape[-2] or p.shape[-1] != M.shape[-1]:
        raise ValueError(
            f"M must have shape (..., N, N) and p (..., N), got {tuple(M.shape)}, {tuple(p.shape)}"
        )
    check_broadcast("M and p", M.shape[:-2], p.shape[:-1])
    if M_half is not None:
        check_tensor("M_half", M_half)
    if M_half is None:
        ev, V = torch.linalg.eigh(M)
        half = (V * ev.clamp(min=0).sqrt().unsqueeze(-2)) @ V.mT
    else:
        half = M_half
    D = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    return la**2 * be * torch.linalg.eigvalsh(half @ D @ half)[..., -1].clamp(min=0)


def fixed_point_energy(
    M: torch.Tensor,
    u: torch.Tensor,
    r: torch.Tensor,
    *,
    lam: float,
    beta: float,
    b: torch.Tensor | None = None,
) -> torch.Tensor:
    """Energy of the clamped model at a fixed point of the gate-retrieval map, constants dropped.

    Parameters
    ----------
    M : torch.Tensor, shape (..., N, N)
        A(α)⁻¹, symmetric positive definite.
    u : torch.Tensor, shape (..., N) or (N,)
        Gate input W_h1 ĉ from the clamped context.
    r : torch.Tensor, shape (..., N)
        Retrieval scores at a fixed point r = b + λ s, s = M(u + λ p), p = softmax(β r).
    lam, beta : float
        Coupling λ >= 0 and inverse temperature β > 0.
    b : torch.Tensor, shape (..., N), optional
        Query evidence Z q̂ from the clamped query (default 0).

    Returns
    -------
    torch.Tensor, shape (...)
        E = −½ (u + λp)ᵀ M (u + λp) + pᵀ(r − b) − logsumexp(β r)/β.

    Notes
    -----
    The total energy of eq. ``eq-cg-energy``
    (:meth:`~assocmem.context_gated.model.ContextGatedMemory.energy`) with the context and the
    query clamped, the gates at s = M(u + λp) and the scores at r, minus the clamped layers'
    constant ½|c|² + ½|q|² (the tests check it against the model's energy). The energy is a
    Lyapunov function of the clamped dynamics, so comparing it between two coexisting stable
    fixed points at the same α says which is the deeper minimum: where the two branches'
    energies cross is the Maxwell point of a first-order transition
    (:meth:`HysteresisResult.maxwell_points`).

    Raises
    ------
    TypeError, ValueError
        If λ < 0, β <= 0, ``M``, ``u``, ``r`` (or ``b``) is not a finite floating-point
        tensor with last dimension N, or the energy overflows (β below ~1e-300).
    """
    la = check_real("lam", lam, low=0.0)
    be = check_real("beta", beta, low=0.0, strict=True)
    check_tensor("M", M, ndim=tuple(range(2, 9)))
    n = M.shape[-1]
    for name, t in (("u", u), ("r", r)) + ((("b", b),) if b is not None else ()):
        check_tensor(name, t, ndim=tuple(range(1, 9)))
        if t.shape[-1] != n or M.shape[-2] != n:
            raise ValueError(
                f"M must have shape (..., N, N) and {name} (..., N), got {tuple(M.shape)}, "
                f"{tuple(t.shape)}"
            )
    check_broadcast("M, u and r", M.shape[:-2], u.shape[:-1], r.shape[:-1])
    if b is not None and b.shape != r.shape:
        raise ValueError(f"b must have the shape of r {tuple(r.shape)}, got {tuple(b.shape)}")
    p = torch.softmax(be * r, dim=-1)
    v = u + la * p
    quad = (v * (M @ v.unsqueeze(-1)).squeeze(-1)).sum(-1)
    evidence = r if b is None else r - b
    out = -0.5 * quad + (p * evidence).sum(-1) - torch.logsumexp(be * r, dim=-1) / be
    if not bool(torch.isfinite(out).all()):
        raise ValueError(f"the energy overflows at beta={beta!r}, lam={lam!r}: beta too small?")
    return out


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
    energy_up, energy_down : numpy.ndarray, shape (L, A, T)
        :func:`fixed_point_energy` at the upward and downward branches' points (empty if not
        computed).
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
    energy_up: np.ndarray = field(default_factory=lambda: np.zeros(0))
    energy_down: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def jump_up(self, level: float = 0.5) -> np.ndarray:
        """First α of each upward sweep with p_max >= level, shape (L, T) (NaN if none)."""
        hit = self.up >= level
        first = np.argmax(hit, axis=1)
        return np.where(hit.any(axis=1), self.alphas[first], np.nan)

    def jump_intervals(self, level: float = 0.5, *, seed: Seed = 0) -> dict[str, list[Estimate]]:
        """Mean jump points over the memory sets, with bootstrap 95 % intervals.

        Parameters
        ----------
        level : float
            Winner-state level of :meth:`jump_up` and :meth:`jump_down`.
        seed : int or numpy.random.SeedSequence
            Root of the resampling of memory sets: jump ``j`` (0 up, 1 down) at the ``l``-th λ
            from ``child(seed, j, l)`` (:func:`assocmem.streams.child`).

        Returns
        -------
        dict with keys ``"up"`` and ``"down"``, each a list of Estimate of length L
            Per λ: the mean α of the jump (from :meth:`jump_up`, resp. the drop of
            :meth:`jump_down`) over the sets with a finite point, its percentile bootstrap
            interval over those memory sets (:func:`assocmem.stats.bootstrap_interval`) and
            ``n``, their number (value NaN when n = 0, interval NaN when n < 2).
        """
        method = "percentile bootstrap over memory sets"
        out: dict[str, list[Estimate]] = {}
        as_seed_sequence(seed)
        for j, (name, pts) in enumerate((("up", self.jump_up(level)),
                                         ("down", self.jump_down(level)))):  # fmt: skip
            out[name] = []
            for li, v in enumerate(pts):
                ok = v[np.isfinite(v)]
                if ok.size >= 2:
                    out[name].append(bootstrap_interval(ok, seed=child(seed, j, li),
                                                        unit="memory sets"))  # fmt: skip
                else:
                    val = float(ok[0]) if ok.size else math.nan
                    out[name].append(Estimate(val, math.nan, math.nan, int(ok.size), method))
        return out

    def maxwell_points(self, level: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
        """Where the winner branch's energy falls below the near-uniform branch's, per set.

        Parameters
        ----------
        level : float
            Winner-state level: a point of the upward branch is near-uniform when its
            max_μ p*_μ < level, one of the downward branch a winner state when >= level.

        Returns
        -------
        alpha_m : numpy.ndarray, shape (L, T)
            The Maxwell point: the α at which ``energy_down - energy_up`` changes sign from
            positive to negative inside the coexistence window (both branches present), linearly
            interpolated between grid points; NaN where there is no such change.
        winner_lower : numpy.ndarray of bool, shape (L, T)
            Whether the winner branch has the lower energy at every α of the window and the window
            reaches the grid's smallest α (the Maxwell point lies below the grid).

        Raises
        ------
        ValueError
            If the sweep carries no energies.

        Notes
        -----
        The energy of :func:`fixed_point_energy` (eq. ``eq-cg-energy``); between the Maxwell point
        and the upward jump the near-uniform state is metastable (a local, not the global,
        minimum). The window is taken as all α where both branches are present; a set whose
        difference changes sign more than once gets its first change from + to −.
        """
        if self.energy_up.shape != self.up.shape or self.energy_down.shape != self.up.shape:
            raise ValueError("this sweep carries no branch energies (energy_up, energy_down)")
        L, _, T = self.up.shape
        alpha_m = np.full((L, T), math.nan)
        lower = np.zeros((L, T), dtype=bool)
        for li in range(L):
            for t in range(T):
                both = (self.up[li, :, t] < level) & (self.down[li, :, t] >= level)
                idx = np.nonzero(both)[0]
                if idx.size == 0:
                    continue
                de = self.energy_down[li, idx, t] - self.energy_up[li, idx, t]
                if np.all(de < 0) and idx[0] == 0:
                    lower[li, t] = True
                for k in range(idx.size - 1):
                    if idx[k + 1] == idx[k] + 1 and de[k] > 0 >= de[k + 1]:
                        a0, a1 = self.alphas[idx[k]], self.alphas[idx[k + 1]]
                        alpha_m[li, t] = a0 + (a1 - a0) * de[k] / (de[k] - de[k + 1])
                        break
        return alpha_m, lower

    def before_jump(self, level: float = 0.5) -> dict[str, np.ndarray]:
        """Jacobian radius and formula gain at the last grid point before each upward jump.

        Parameters
        ----------
        level : float
            Winner-state level of :meth:`jump_up`.

        Returns
        -------
        dict of str to numpy.ndarray, each of shape (L,)
            ``"radius"``: mean over the sets that jump inside the grid (after its first α) of
            :attr:`radius_up` at the grid point before the jump; ``"gain"``: mean of
            :attr:`gain_formula` at the same points (NaN where no set jumps).
        """
        up = self.jump_up(level)
        rad = np.full(self.lambdas.size, math.nan)
        gain = np.full(self.lambdas.size, math.nan)
        for li in range(self.lambdas.size):
            sets = np.nonzero(np.isfinite(up[li]) & (up[li] > self.alphas[0]))[0]
            if sets.size == 0:
                continue
            last = np.searchsorted(self.alphas, up[li, sets]) - 1
            rad[li] = float(np.mean(self.radius_up[li, last, sets]))
            gain[li] = float(np.mean(self.gain_formula[li, last]))
        return {"radius": rad, "gain": gain}

    def summary(
        self, level: float = 0.5, *, seed: Seed = 0, near_one: float = 0.8
    ) -> dict[str, Estimate | float | int | str]:
        """Return the numbers the chapter's prose quotes about the sweeps, labelled.

        Parameters
        ----------
        level : float
            Winner-state level (max_μ p*_μ >= level).
        near_one : float
            Radius one step before the jump above which the grid shows the approach to 1 (a
            fold), in (0, 1); a stated reading threshold, not fitted.
        seed : int or numpy.random.SeedSequence
            Root of the bootstrap resampling of memory sets: the jumps from ``child(seed, 0)``
            (:meth:`jump_intervals`), the Maxwell point at the ``l``-th λ from
            ``child(seed, 1, l)``.

        Returns
        -------
        dict of str to Estimate, float or int
            Per λ (written by :func:`grid_label`: 0.5 -> ``"0p5"``, 1.5 -> ``"1p5"``, 2 -> ``"2"``):
            ``"up_{λ}"``, ``"down_{λ}"`` (:meth:`jump_intervals`), ``"pred_{λ}"``
            (:attr:`predicted`), ``"rad_{λ}"``, ``"gain_{λ}"`` (:meth:`before_jump`); where the
            sweep carries energies, ``"maxwell_sets_{λ}"`` (sets with a Maxwell point inside the
            grid), ``"winner_lower_{λ}"`` (sets whose winner branch is lower over the whole
            window down to the grid's smallest α; both :meth:`maxwell_points`) and, where at
            least two sets have one, ``"maxwell_{λ}"`` (their mean Maxwell point, percentile
            bootstrap over those sets); and
            ``"same"`` (fraction of (λ, α, set) cases where the fresh start ends in the same state
            as the upward sweep), ``"conv"`` (smallest converged fraction per (λ, α)), ``"T"``
            (memory sets); ``"rad_min"``, ``"rad_max"`` (over λ), ``"near_one"`` and, as text,
            ``"near_lams"`` / ``"far_lams"``: the λ whose radius is above / not above it.
        """
        near = check_real("near_one", near_one, low=0.0, strict=True)
        if near >= 1:
            raise ValueError(f"near_one must lie in (0, 1), got {near_one!r}")
        jumps = self.jump_intervals(level, seed=child(seed, 0))
        before = self.before_jump(level)
        out: dict[str, Estimate | float | int | str] = {}
        for li, lam in enumerate(self.lambdas):
            tag = grid_label(lam)
            out[f"up_{tag}"] = jumps["up"][li]
            out[f"down_{tag}"] = jumps["down"][li]
            out[f"pred_{tag}"] = float(self.predicted[li])
            out[f"rad_{tag}"] = float(before["radius"][li])
            out[f"gain_{tag}"] = float(before["gain"][li])
        if self.energy_up.shape == self.up.shape:
            alpha_m, lower = self.maxwell_points(level)
            for li, lam in enumerate(self.lambdas):
                tag = grid_label(lam)
                ok = alpha_m[li][np.isfinite(alpha_m[li])]
                out[f"maxwell_sets_{tag}"] = int(ok.size)
                out[f"winner_lower_{tag}"] = int(lower[li].sum())
                if ok.size >= 2:
                    out[f"maxwell_{tag}"] = bootstrap_interval(ok, seed=child(seed, 1, li),
                                                               unit="memory sets")  # fmt: skip
        radius = np.asarray(before["radius"], dtype=float)
        out["rad_min"], out["rad_max"] = float(radius.min()), float(radius.max())
        out["near_one"] = near
        pairs = list(zip(self.lambdas, radius, strict=True))
        out["near_lams"] = ", ".join(f"{lam:g}" for lam, r in pairs if r > near)
        out["far_lams"] = ", ".join(f"{lam:g}" for lam, r in pairs if r <= near)
        out["same"] = float(((self.fresh >= level) == (self.up >= level)).mean())
        out["conv"] = float(self.converged.min())
        out["T"] = int(self.up.shape[2])
        return out

    def table(self, level: float = 0.5, *, seed: Seed = 0, near_one: float = 0.8) -> pd.DataFrame:
        """One row per λ: the coupled transition's numbers, the same as :meth:`summary`'s.

        Parameters
        ----------
        level, seed, near_one
            As for :meth:`summary` (the same seed gives the same intervals).

        Returns
        -------
        pandas.DataFrame
            Columns ``λ``; ``upward jump α`` and ``Maxwell point α`` (Estimates: mean over the
            sets, 95 % bootstrap interval; NaN where fewer than two sets have a Maxwell point);
            ``downward drop α`` (text: the rendered Estimate, or ``"below the grid (< α_0)"``
            where every set stays in its winner state down to the grid's smallest α, so the
            drop is only bounded); ``Maxwell sets`` and ``winner lower`` (sets with a Maxwell
            point in the grid; sets whose winner branch is lower over the whole window, both
            :meth:`maxwell_points`, absent without energies); ``radius before jump`` and
            ``formula gain`` (:meth:`before_jump`) and ``formula α`` (:attr:`predicted`).
        """
        s = self.summary(level, seed=seed, near_one=near_one)
        drops = self.jump_down(level)
        a0 = float(self.alphas[0])
        rows = []
        for li, lam in enumerate(self.lambdas):
            tag = grid_label(lam)
            down = s[f"down_{tag}"]
            assert isinstance(down, Estimate)
            bounded = bool(np.all(drops[li] == a0))
            row: dict[str, object] = {
                "λ": float(lam),
                "upward jump α": s[f"up_{tag}"],
                "downward drop α": f"below the grid (< {a0:g})" if bounded else render(down),
            }
            if f"maxwell_sets_{tag}" in s:
                nan = Estimate(math.nan, math.nan, math.nan, 0, "percentile bootstrap")
                row |= {"Maxwell point α": s.get(f"maxwell_{tag}", nan),
                        "Maxwell sets": s[f"maxwell_sets_{tag}"],
                        "winner lower": s[f"winner_lower_{tag}"]}  # fmt: skip
            row |= {"radius before jump": s[f"rad_{tag}"], "formula gain": s[f"gain_{tag}"],
                    "formula α": s[f"pred_{tag}"]}  # fmt: skip
            rows.append(row)
        return pd.DataFrame(rows)

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
    memory sets (:func:`~assocmem.context_gated.instances.sample_clustered_memories`, as for
    :func:`~assocmem.context_gated.transitions.gate_transition`). Three protocols per (λ, set):

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
    a = as_float_array(alphas, "alphas")
    if (
        a.ndim != 1
        or a.size < 2
        or not np.all(np.isfinite(a))
        or np.any(np.diff(a) <= 0)
        or a[0] < 0
        or a[-1] >= 1
    ):
        raise ValueError("alphas must be increasing values in [0, 1), at least two")
    lam_arr = check_grid("lambdas", lambdas)
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
    up, down, fresh, rad, e_up, e_down = (np.zeros((L, A_, T)) for _ in range(6))
    conv = np.zeros((L, A_))
    for li, lam in enumerate(lam_arr):
        lam_f = float(lam)
        r = r_start.clone()
        p_up = torch.zeros(A_, T, N, dtype=torch.float64)
        ok_up = torch.zeros(A_, T, dtype=torch.bool)
        for ai in range(A_):
            r, ok_up[ai] = _iterate(r, Mu_all[ai], Ms[ai], lam_f, be, mi, tl)
            p_up[ai] = torch.softmax(be * r, dim=-1)
            e_up[li, ai] = fixed_point_energy(Ms[ai], u, r, lam=lam_f, beta=be).numpy()
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
            e_down[li, ai] = fixed_point_energy(Ms[ai], u, r, lam=lam_f, beta=be).numpy()
        conv[li] = torch.stack([ok_up, ok_f, ok_down]).double().mean((0, 2)).numpy()
    gain = coupled_gain(lam_arr[:, None], be, N, 1 - a[None, :])  # η_min = 1 − α (N > d)
    pred = coupled_alpha_crit(1.0, lam_arr, be, N)  # α_crit = 1 (N > d)
    params = {"N": N, "d": d, "beta": be, "trials": T, "max_iter": mi, "tol": tl,
              "sigma_init": si, "seed": seed}  # fmt: skip
    return HysteresisResult(a, lam_arr, up, down, fresh, rad, gain, conv, params, pred, e_up,
                            e_down)  # fmt: skip
