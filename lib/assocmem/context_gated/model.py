"""The four-layer context-gated associative memory: energy, currents, dynamics, integrator.

Layers (Choraria et al. 2026, §3.1): context c (d_c), gates s (N), query q (d), retrieval r (N).
Identity activations for c, s, q; softmax with inverse temperature β for r. Four hypersynapses:

    E_h1 = −ŝᵀ W_h1 ĉ,   E_h2 = (α/2) ŝᵀ W_h2 ŝ,   E_h3 = −λ ŝᵀ r̂,   E_h4 = −q̂ᵀ Zᵀ r̂,

plus the HAMUX layer energies x̂ᵀx − L(x). The dynamics are τ_ℓ ẋ_ℓ = −∂E/∂x̂_ℓ (Eqs. 1–4).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch

from assocmem._validate import as_float_array, check_int, check_real
from assocmem.context_gated.theory import as_memories, competition_matrix, gate_matrix
from assocmem.device import get_device

__all__ = ["State", "Trajectory", "ContextGatedMemory"]

_INT_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)

_LAYERS = ("c", "s", "q", "r")


class State(NamedTuple):
    """Internal states of the four layers, each batched over trials.

    Attributes
    ----------
    c : torch.Tensor, shape (B, d_c)   context
    s : torch.Tensor, shape (B, N)     gates
    q : torch.Tensor, shape (B, d)     query
    r : torch.Tensor, shape (B, N)     retrieval (pre-softmax scores)
    """

    c: torch.Tensor
    s: torch.Tensor
    q: torch.Tensor
    r: torch.Tensor


class Trajectory(NamedTuple):
    """Output of :meth:`ContextGatedMemory.integrate`.

    Attributes
    ----------
    t : numpy.ndarray, shape (T,)
        Recorded times (units of the time constants τ).
    energy : torch.Tensor, shape (T, B)
        Total energy at the recorded times.
    states : State or None
        Recorded states, each field of shape (T, B, dim) (``None`` if not recorded).
    final : State
        State at t_end.
    retrieval : torch.Tensor or None
        Retrieval activations r̂ = softmax(β r) at the recorded times, shape (T, B, N)
        (``None`` if the states were not recorded).
    """

    t: np.ndarray
    energy: torch.Tensor
    states: State | None
    final: State
    retrieval: torch.Tensor | None = None


class ContextGatedMemory:
    """Context-gated associative memory (four layers, four hypersynapses).

    Parameters
    ----------
    memories : array_like, shape (N, d)
        Stored patterns ζ^μ (rows); finite, N >= 2.
    alpha : float
        Gate competition strength α >= 0.
    lam : float
        Gate–retrieval coupling λ >= 0.
    beta : float
        Inverse temperature β > 0 of the retrieval softmax.
    W_h1 : array_like, shape (N, d_c), optional
        Context→gate weights; default the memory matrix (u_μ = ⟨ζ^μ, c⟩, d_c = d).
    taus : tuple of 4 floats
        Time constants (τ_c, τ_s, τ_r, τ_q) > 0; default all 1 (the paper gives no values).
    normalize : bool
        Normalise the memories to unit norm (default True, as in the paper's simulations).
    dtype : torch.dtype
        Default float64 (theory checks); float32 is fine for large batches.
    device : str or torch.device, optional
        See :func:`assocmem.device.get_device`.

    Raises
    ------
    TypeError, ValueError
        Non-finite memories, α < 0, λ < 0, β <= 0, non-positive τ, or W_h1 with the wrong
        number of rows.

    Notes
    -----
    Source: paper §3.1 (Eqs. 1–4); chapter 5, eqs. ``eq-cg-energy`` and ``eq-cg-dynamics``. The
    total energy is the HAMUX convention (digest §2.4, reconstruction, see chapter 5).
    ``W_h2`` and ``A`` come from :func:`~assocmem.context_gated.theory.competition_matrix` and
    :func:`~assocmem.context_gated.theory.gate_matrix` (W_h2 = G − diag(G), A(α) = I + α W_h2).
    """

    def __init__(
        self,
        memories: np.ndarray | torch.Tensor,
        *,
        alpha: float,
        lam: float,
        beta: float,
        W_h1: np.ndarray | torch.Tensor | None = None,
        taus: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0),
        normalize: bool = True,
        dtype: torch.dtype = torch.float64,
        device: str | torch.device | None = None,
    ) -> None:
        dev = get_device(device)
        self.device = dev
        self.dtype = dtype
        self.Z = as_memories(memories, normalize=normalize, dtype=dtype, device=dev)
        self.alpha = check_real("alpha", alpha, low=0.0, strict=False)
        self.lam = check_real("lam", lam, low=0.0, strict=False)
        self.beta = check_real("beta", beta, low=0.0, strict=True)
        if len(taus) != 4:
            raise ValueError(
                f"taus must hold 4 time constants (tau_c, tau_s, tau_r, tau_q), got {taus}"
            )
        self.taus = tuple(
            check_real(f"taus[{i}]", t, low=0.0, strict=True) for i, t in enumerate(taus)
        )
        N = self.Z.shape[0]
        if W_h1 is None:
            self.W_h1 = self.Z.clone()
        else:
            if not isinstance(W_h1, torch.Tensor):
                W_h1 = torch.as_tensor(as_float_array(W_h1, "W_h1"))
            w = W_h1.to(dtype=dtype, device=dev)
            if w.ndim != 2 or w.shape[0] != N or w.shape[1] < 1:
                raise ValueError(f"W_h1 must have shape (N={N}, d_c), got {tuple(w.shape)}")
            if not bool(torch.isfinite(w).all()):
                raise ValueError("W_h1 contains non-finite entries")
            self.W_h1 = w
        self.W_h2 = competition_matrix(self.Z, dtype=dtype, device=dev)
        self.A = gate_matrix(self.Z, self.alpha, dtype=dtype, device=dev)

    # ----------------------------------------------------------------- sizes and inputs
    @property
    def N(self) -> int:
        """Number of memories (gate and retrieval units)."""
        return int(self.Z.shape[0])

    @property
    def d(self) -> int:
        """Dimension of the query layer."""
        return int(self.Z.shape[1])

    @property
    def d_c(self) -> int:
        """Dimension of the context layer."""
        return int(self.W_h1.shape[1])

    def _batch(self, name: str, x: np.ndarray | torch.Tensor, dim: int) -> torch.Tensor:
        if not isinstance(x, torch.Tensor):
            x = as_float_array(x, name)
        elif not (x.dtype.is_floating_point or x.dtype in _INT_DTYPES):
            raise TypeError(f"{name} must hold real numbers, got a {x.dtype} tensor")
        t = torch.as_tensor(x).to(dtype=self.dtype, device=self.device)
        if t.ndim == 1:
            t = t.unsqueeze(0)
        if t.ndim != 2 or t.shape[1] != dim:
            raise ValueError(f"{name} must have shape (B, {dim}) or ({dim},), got {tuple(t.shape)}")
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} contains non-finite entries")
        return t

    def initial_state(
        self,
        q: np.ndarray | torch.Tensor,
        c: np.ndarray | torch.Tensor,
        s: np.ndarray | torch.Tensor | None = None,
        r: np.ndarray | torch.Tensor | None = None,
    ) -> State:
        """Build a batched state from query and context inputs (gates and scores default to 0).

        Parameters
        ----------
        q : array_like, shape (B, d) or (d,)
        c : array_like, shape (B, d_c) or (d_c,)
        s, r : array_like, shape (B, N), optional

        Raises
        ------
        TypeError
            If an input is not an array of real numbers.
        ValueError
            On shape mismatch or non-finite entries.
        """
        qq = self._batch("q", q, self.d)
        cc = self._batch("c", c, self.d_c)
        if qq.shape[0] != cc.shape[0]:
            raise ValueError(
                f"q and c must have the same batch size, got {qq.shape[0]} and {cc.shape[0]}"
            )
        B = qq.shape[0]
        zeros = torch.zeros(B, self.N, dtype=self.dtype, device=self.device)
        ss = zeros.clone() if s is None else self._batch("s", s, self.N)
        rr = zeros.clone() if r is None else self._batch("r", r, self.N)
        if ss.shape[0] != B or rr.shape[0] != B:
            raise ValueError("s and r must have the same batch size as q and c")
        return State(c=cc, s=ss, q=qq, r=rr)

    # ----------------------------------------------------------------- energy and currents
    def activations(self, state: State) -> State:
        """x̂ = ∇L(x): identity for c, s, q; softmax(β r) for r."""
        return State(c=state.c, s=state.s, q=state.q, r=torch.softmax(self.beta * state.r, dim=-1))

    def energy_terms(self, state: State, act: State | None = None) -> dict[str, torch.Tensor]:
        """Return the eight energy terms of eq. ``eq-cg-energy``, each of shape (B,).

        Parameters
        ----------
        state : State
        act : State, optional
            Activations x̂; default ``self.activations(state)``. Passing independent tensors lets
            autograd take ∂E/∂x̂ at fixed x (the HAMUX convention).

        Returns
        -------
        dict with keys ``layer_c``, ``layer_s``, ``layer_q``, ``layer_r`` (x̂ᵀx − L(x)) and
        ``h1``…``h4`` (hypersynapses, paper §3.1.2).
        """
        a = self.activations(state) if act is None else act
        c, s, q, r = state
        lse = torch.logsumexp(self.beta * r, dim=-1) / self.beta
        return {
            "layer_c": (a.c * c).sum(-1) - 0.5 * (c * c).sum(-1),
            "layer_s": (a.s * s).sum(-1) - 0.5 * (s * s).sum(-1),
            "layer_q": (a.q * q).sum(-1) - 0.5 * (q * q).sum(-1),
            "layer_r": (a.r * r).sum(-1) - lse,
            "h1": -(a.s * (a.c @ self.W_h1.T)).sum(-1),
            "h2": 0.5 * self.alpha * (a.s * (a.s @ self.W_h2)).sum(-1),
            "h3": -self.lam * (a.s * a.r).sum(-1),
            "h4": -(a.r * (a.q @ self.Z.T)).sum(-1),
        }

    def energy(self, state: State, act: State | None = None) -> torch.Tensor:
        """Total energy E of eq. ``eq-cg-energy`` (layers + hypersynapses), shape (B,)."""
        return torch.stack(list(self.energy_terms(state, act).values())).sum(0)

    def currents(self, state: State) -> State:
        """Input currents I_ℓ = −∂E_synapses/∂x̂_ℓ into each layer (eq. ``eq-cg-dynamics``).

        They are the right-hand sides of the paper's Eqs. 1–4 without the leak −x_ℓ.

        Parameters
        ----------
        state : State
            Batched state (B trials).

        Returns
        -------
        State
            One current per layer, same shapes and dtype as ``state``.
        """
        a = self.activations(state)
        return State(
            c=a.s @ self.W_h1,
            s=a.c @ self.W_h1.T - self.alpha * (a.s @ self.W_h2) + self.lam * a.r,
            q=a.r @ self.Z,
            r=self.lam * a.s + a.q @ self.Z.T,
        )

    def rhs(self, state: State, *, clamp_context: bool = False, clamp_query: bool = False) -> State:
        """Time derivatives ẋ_ℓ = (I_ℓ − x_ℓ)/τ_ℓ (eq. ``eq-cg-dynamics``); clamped layers get 0."""
        cur = self.currents(state)
        out = [(i - x) / tau for i, x, tau in zip(cur, state, self.taus, strict=True)]
        if clamp_context:
            out[0] = torch.zeros_like(out[0])
        if clamp_query:
            out[2] = torch.zeros_like(out[2])
        return State(*out)

    # ----------------------------------------------------------------- integrator
    def integrate(
        self,
        state: State,
        *,
        t_end: float,
        dt: float = 0.01,
        method: str = "rk4",
        clamp_context: bool = True,
        clamp_query: bool = True,
        record_every: int = 1,
        record_states: bool = True,
    ) -> Trajectory:
        """Integrate eq. ``eq-cg-dynamics`` (paper Eqs. 1–4) with a fixed step, batched over trials.

        Parameters
        ----------
        state : State
            Initial state (batch B).
        t_end : float
            Final time (> 0, units of τ).
        dt : float
            Fixed step (> 0). Explicit Euler is stable for dt < 2 τ_min/η_max(A);
            RK4 is the default and is accurate to O(dt⁴).
        method : {"rk4", "euler"}
        clamp_context, clamp_query : bool
            Hold c (resp. q) at its initial value (as in all the paper's theorems; default True).
            With a free context layer and W_h1 = Z the c–s loop has gain G and diverges when
            A(α) − W_h1W_h1ᵀ is not positive definite (see chapter 5).
        record_every : int
            Record energy (and states) every this many steps (>= 1).
        record_states : bool
            Also keep the states (memory: T·B·(d_c + 2N + d) numbers).

        Returns
        -------
        Trajectory

        Raises
        ------
        ValueError
            On non-positive t_end/dt/record_every or an unknown method.
        """
        te = check_real("t_end", t_end, low=0.0, strict=True)
        h = check_real("dt", dt, low=0.0, strict=True)
        if method not in ("rk4", "euler"):
            raise ValueError(f"method must be 'rk4' or 'euler', got {method!r}")
        record_every = check_int("record_every", record_every, 1)
        n_steps = max(1, math.ceil(te / h - 1e-9))
        h = te / n_steps
        kw = {"clamp_context": clamp_context, "clamp_query": clamp_query}

        def f(x: State) -> State:
            return self.rhs(x, **kw)

        def axpy(x: State, k: State, a: float) -> State:
            return State(*(xi + a * ki for xi, ki in zip(x, k, strict=True)))

        x = state
        times = [0.0]
        energies = [self.energy(x)]
        recorded = [x] if record_states else []
        for n in range(1, n_steps + 1):
            if method == "euler":
                x = axpy(x, f(x), h)
            else:
                k1 = f(x)
                k2 = f(axpy(x, k1, h / 2))
                k3 = f(axpy(x, k2, h / 2))
                k4 = f(axpy(x, k3, h))
                x = State(
                    *(
                        xi + h / 6 * (a + 2 * b + 2 * c + d)
                        for xi, a, b, c, d in zip(x, k1, k2, k3, k4, strict=True)
                    )
                )
            if n % record_every == 0 or n == n_steps:
                times.append(n * h)
                energies.append(self.energy(x))
                if record_states:
                    recorded.append(x)
        states = (
            State(*(torch.stack([st[i] for st in recorded]) for i in range(4)))
            if record_states
            else None
        )
        return Trajectory(
            t=np.asarray(times),
            energy=torch.stack(energies),
            states=states,
            final=x,
            retrieval=None if states is None else self.activations(states).r,
        )

    # ----------------------------------------------------------------- clamped inputs
    def query_similarities(self, q: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Query–memory similarities b_μ = ⟨ζ^μ, q⟩, shape (B, N)."""
        return self._batch("q", q, self.d) @ self.Z.T

    def context_input(self, c: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Context input to the gates, u = W_h1 c, shape (B, N)."""
        return self._batch("c", c, self.d_c) @ self.W_h1.T
