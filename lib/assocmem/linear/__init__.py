"""Part I: the linear associative memory (chapters 1-4).

Import from the modules (the package re-exports nothing). They import downward only, in this order:

- :mod:`.load` — the load ``alpha = p log p / d^2`` and its inverse (numpy/scipy only).
- :mod:`.problems` — the OP/DP instance (``MemoryProblem``), score matrices, recall checks.
- :mod:`.sampling` — instances with i.i.d. ``N(0, I/d)`` embeddings, one seed each; memory checks.
- :mod:`.training` — the cross-entropy + Adam engine (full rank and ``W = Q R^T``), Hebbian rule.
- :mod:`.constraints` — the perfect-storage constraints: margins, rows, the dual bound (float64),
  unit-norm inputs, and the one rule from certificates to stored / not stored / undecided.
- :mod:`.interior_point` — Mehrotra's method for the max-margin LP, dense or structured rows.
- :mod:`.lp` — exact perfect-storage decisions with certificates (one solve, constraint
  generation, simplex, dense reference), alike for every method and every scale of an input.
- :mod:`.implicit_bias` — normalised margins of trained memories against the max-margin optima.
- :mod:`.max_margin` — memories of rank at most ``m`` that maximise the margin (projected Adam).
- :mod:`.scores` — score statistics: targets against competitors, Hebbian and trained memories.
- :mod:`.extremes` — theory: maxima of Gaussians (expectations, expansions, order statistics).
- :mod:`.replica` — theory: the replica-symmetric free entropy and the q -> 1 cost.
- :mod:`.mechanism` — theory: the optimal storage mechanism.
- :mod:`.spectra` — theory: quarter circle, its truncation, ``alpha_c(kappa)``.
- :mod:`.hebbian` — theory: Hebbian score statistics, recall probabilities and thresholds.
- :mod:`.finite_size` — theory: ``alpha_c(p)``, its expansions, the rank heuristic.
- :mod:`.sweeps` — capacity sweeps and truncated-Hebbian sweeps -> one tidy DataFrame.
- :mod:`.tables` — reading sweep tables: checks, fraction stored per load, instance agreement.
- :mod:`.transitions` — where a success curve crosses 1/2: estimators and their bootstrap.
- :mod:`.capacity_comparison` — measured transitions against the RS prediction, OP against DP.
- :mod:`.rank_transitions` — transitions of truncated Hebbian memories against alpha_c(kappa).
- :mod:`.measured_spectra` — spectra of measured matrices (singular values, KS distance, m_4,
  group comparisons); stored and trained memories against the theory.
- :mod:`.max_margin_spectra` — spectra of the exact max-margin memories, OP against DP.
- :mod:`.partial_storage` — how much can be stored above capacity.
- :mod:`.plots_capacity` — figures: success against load, spectra, scores, capacity (ch. 1-2).
- :mod:`.plots_margin` — figures: implicit bias and spectral moments (chapter 1).
- :mod:`.plots_hebbian` — figures: Hebbian scores, thresholds, recall, mechanism (chapter 3).
- :mod:`.plots_rank` — figures: rank constraints and spectra (chapter 4).

The theory modules import numpy and scipy only: no torch, no engine, no sweeps, no figures.
"""
