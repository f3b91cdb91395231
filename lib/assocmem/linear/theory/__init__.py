"""Part I theory: formulas and their numerics, numpy and scipy only.

- :mod:`.load` — the load ``alpha = p log p / d^2`` and its inverse.
- :mod:`.extremes` — maxima of Gaussians (expectations, expansions, order statistics).
- :mod:`.replica` — the replica-symmetric free entropy and the q -> 1 cost.
- :mod:`.mechanism` — the optimal storage mechanism.
- :mod:`.spectra` — quarter circle, its truncation, ``alpha_c(kappa)``.
- :mod:`.hebbian` — Hebbian score statistics, recall probabilities and thresholds.
- :mod:`.finite_size` — ``alpha_c(p)``, its expansions, the rank heuristic.
- :mod:`.perceptron` — Cover's count of the labellings a perceptron stores (chapter 2's warm-up).
"""
