"""Context-gated associative memory (Choraria et al. 2026, arXiv:2605.10970): chapter 5.

Public API, re-exported from the submodules:

- :mod:`.model` — :class:`ContextGatedMemory` (four layers, four hypersynapses, energy,
  currents, Eqs. 1–4, batched fixed-step integrator with clamping options).
- :mod:`.theory` — A(α), α_crit, η_min, contraction constant, retrieval threshold and bound,
  first-order scores, the self-consistent map (Eq. 6) and the three-term decomposition of r*.
- :mod:`.experiments` — memory sampling and the separation experiment (Fig. 2).
- :mod:`.transitions` — gate-only and coupled phase transitions (Fig. 3).
- :mod:`.plots` — the architecture figure and the chapter's figures (all return a Figure).
"""

from __future__ import annotations

from assocmem.context_gated.experiments import (
    SeparationResult,
    relax_gate_retrieval,
    sample_clustered_memories,
    sample_memories,
    separation_experiment,
)
from assocmem.context_gated.model import ContextGatedMemory, State, Trajectory
from assocmem.context_gated.plots import (
    draw_fixed_point,
    plot_architecture,
    plot_coupled_transition,
    plot_fixed_point_terms,
    plot_gap_scatter,
    plot_gate_transition,
    plot_separation,
    plot_trajectory,
)
from assocmem.context_gated.theory import (
    FixedPoint,
    alpha_crit,
    as_memories,
    competition_matrix,
    contraction_constant,
    coupled_alpha_crit,
    decompose_fixed_point,
    eta_min,
    first_order_scores,
    gate_matrix,
    gram,
    retrieval_bound,
    retrieval_threshold,
    self_consistent_fixed_point,
)
from assocmem.context_gated.transitions import (
    CoupledTransitionResult,
    GateTransitionResult,
    coupled_transition,
    gate_state,
    gate_transition,
)

__all__ = [
    "ContextGatedMemory",
    "State",
    "Trajectory",
    "FixedPoint",
    "alpha_crit",
    "as_memories",
    "competition_matrix",
    "contraction_constant",
    "coupled_alpha_crit",
    "decompose_fixed_point",
    "eta_min",
    "first_order_scores",
    "gate_matrix",
    "gram",
    "retrieval_bound",
    "retrieval_threshold",
    "self_consistent_fixed_point",
    "CoupledTransitionResult",
    "GateTransitionResult",
    "SeparationResult",
    "coupled_transition",
    "gate_state",
    "gate_transition",
    "relax_gate_retrieval",
    "sample_clustered_memories",
    "sample_memories",
    "separation_experiment",
    "draw_fixed_point",
    "plot_architecture",
    "plot_coupled_transition",
    "plot_fixed_point_terms",
    "plot_gap_scatter",
    "plot_gate_transition",
    "plot_separation",
    "plot_trajectory",
]
