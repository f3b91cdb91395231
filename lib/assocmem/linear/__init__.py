"""Part I: the linear associative memory (chapters 1-4).

Import from the modules (the package re-exports nothing). They import downward only:

- :mod:`.load` — the load ``alpha = p log p / d^2`` and its inverse (numpy/scipy only).
- :mod:`.problems` — OP/DP instances, score matrices, recall checks.
- :mod:`.training` — the cross-entropy + Adam engine (full rank and ``W = Q R^T``, batched over
  problems), its plain float64 reference of the loss and gradient, and the Hebbian rule.
- :mod:`.lp` — exact perfect-storage decisions with certificates (constraint generation).
- :mod:`.implicit_bias` — normalised margins of trained memories against the max-margin optima.
- Theory (numpy/scipy only): :mod:`.extremes` (Gaussian maxima) -> :mod:`.replica` (RS free
  entropy, the q -> 1 cost) -> :mod:`.mechanism` (the optimal storage mechanism);
  :mod:`.spectra` (quarter circle, ``alpha_c(kappa)``); :mod:`.hebbian` (Hebbian score
  statistics and thresholds); :mod:`.finite_size` (``alpha_c(p)``, expansions, the rank
  heuristic).
- :mod:`.sweeps` — capacity sweeps -> one tidy DataFrame, transitions, instance agreement.
- :mod:`.partial_storage` — how much can be stored above capacity (chapter 3).
- :mod:`.rank_evidence` — truncated Hebbian memories, bootstrapped crossings, rank-constrained
  max-margin memories (chapter 4).
- Figures: :mod:`.plots_capacity` (chapters 1-2), :mod:`.plots_margin` (chapter 1's implicit
  bias and spectral moments), :mod:`.plots_hebbian` (chapter 3), :mod:`.plots_rank` (chapter 4).
"""
