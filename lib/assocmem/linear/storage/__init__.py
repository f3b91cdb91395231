"""Part I storage: the engines that store pairs in a memory, and the exact decisions.

- :mod:`.training` — the cross-entropy + Adam engine (full rank and ``W = Q R^T``), Hebbian rule.
- :mod:`.constraints` — the perfect-storage constraints: margins, rows, the dual bound (float64),
  unit-norm inputs, and the one rule from certificates to stored / not stored / undecided.
- :mod:`.interior_point` — Mehrotra's method for the max-margin LP, dense or structured rows.
- :mod:`.lp` — exact perfect-storage decisions with certificates (one solve, constraint
  generation, simplex, dense reference), alike for every method and every scale of an input.
- :mod:`.max_margin` — memories of rank at most ``m`` that maximise the margin (projected Adam).
- :mod:`.cone` — the cone of storing memories of a small instance: wedges, plane sections, and
  the fraction of directions that store (chapter 1's worked example).
- :mod:`.perceptron` — exact storage decisions for a perceptron and the stored fraction of
  random labellings (chapter 2's warm-up).
"""
