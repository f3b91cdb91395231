"""Part I figures: they take results and draw them (through :mod:`assocmem.plotting`).

- :mod:`.plots_capacity` — success against load, spectra, scores, capacity (chapters 1-2).
- :mod:`.plots_margin` — implicit bias and spectral moments (chapter 1).
- :mod:`.plots_examples` — the small worked examples: three facts in the plane, the perceptron.
- :mod:`.plots_hebbian` — Hebbian scores, thresholds, recall, mechanism (chapter 3).
- :mod:`.plots_rank` — rank constraints and spectra (chapter 4).
"""
