"""Part I: the linear associative memory (chapters 1-4), in five rooms.

Import from the modules (no package re-exports anything). The rooms import downward only, in
this order, and within a room each module imports only the ones listed above it:

- :mod:`.theory` — the load, maxima of Gaussians, the replica free entropy, the optimal
  mechanism, spectra and ``alpha_c(kappa)``, Hebbian statistics, finite-size capacity
  (numpy and scipy only: no torch, no engine, no sweeps, no figures).
- :mod:`.instances` — the OP/DP instance (``MemoryProblem``), score matrices, recall checks,
  and instances with i.i.d. ``N(0, I/d)`` embeddings.
- :mod:`.storage` — the cross-entropy + Adam engine, the perfect-storage constraints, the
  max-margin LP (interior point, exact decisions with certificates) and rank-m max-margin memories.
- :mod:`.measure` — sweeps into one tidy table and what is read from it: transitions, capacity
  comparisons, score statistics, measured spectra, implicit bias, partial storage.
- :mod:`.figures` — the figures of chapters 1-4 (they take results and compute nothing).
"""
