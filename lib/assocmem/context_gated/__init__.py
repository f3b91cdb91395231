"""Context-gated associative memory (Choraria et al. 2026, arXiv:2605.10970): chapter 5.

Import from the modules (the package re-exports nothing). They import downward only:

- :mod:`.theory` — the one home of the chapter's formulas, batched over memory sets (..., N, d):
  Gram matrix, W_h2, A(α), its spectrum and inverse, α_crit, η_min, the coupled threshold and
  gain, contraction constant, retrieval threshold and bound, gate fixed point and first-order
  scores, the self-consistent map (Eq. 6) and the three-term decomposition of r* (torch/scipy).
- :mod:`.model` — :class:`~.model.ContextGatedMemory` (four layers, four hypersynapses, energy,
  currents, Eqs. 1–4, batched fixed-step integrator with clamping options).
- :mod:`.instances` — memory sets, the noisy cue ζ + σε/√d (:func:`~.instances.noisy_cue`), the
  cued trials every retrieval experiment shares, grid lookups and labels.
- :mod:`.experiments` — relaxation of the clamped gate–retrieval dynamics and the separation
  experiment (Fig. 2).
- :mod:`.onestep` — one-step retrieval, the paper's gap vs the full gap (Cor. 3.2, Thm 3.1), and
  their bootstrap summaries.
- :mod:`.fixed_point` — one noisy trial at its self-consistent fixed point (the explorer's numbers).
- :mod:`.transitions` — the gate-only phase transition and its crossings (Fig. 3a–c).
- :mod:`.winner` — time to winner-take-all t*(α) of the gate subsystem (Thm 3.3 (ii)).
- :mod:`.hysteresis` — the coupled fixed point followed up and down in α, the map's Jacobian
  radius (Thm C.2, Fig. 3d).
- :mod:`.plots`, :mod:`.plots_dynamics` — the figures (all return a Figure; they draw results,
  compute no model quantity and draw no random numbers).
"""
