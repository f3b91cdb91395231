"""Context-gated associative memory (Choraria et al. 2026, arXiv:2605.10970): chapter 5.

Import from the modules (the package re-exports nothing). They import downward only:

- :mod:`.theory` — A(α), α_crit, η_min, contraction constant, retrieval threshold and bound,
  first-order scores, the self-consistent map (Eq. 6) and the three-term decomposition of r*
  (torch/scipy only).
- :mod:`.model` — :class:`~.model.ContextGatedMemory` (four layers, four hypersynapses, energy,
  currents, Eqs. 1–4, batched fixed-step integrator with clamping options).
- :mod:`.experiments` — memory sampling, the noisy cue ζ + σε/√d (:func:`~.experiments.noisy_cue`)
  and the separation experiment (Fig. 2).
- :mod:`.transitions` — gate-only and coupled phase transitions (Fig. 3).
- :mod:`.plots` — the architecture figure and the chapter's figures (all return a Figure).
"""
