"""Part I: the linear associative memory (chapters 1-4).

Modules import downward only. Instances and storage: ``load`` -> ``problems`` -> ``training``,
``lp`` -> ``sweeps``. Theory (numpy/scipy only): ``extremes`` -> ``replica`` -> ``finite_size``,
``mechanism``; ``spectra``; ``hebbian``. Figures: ``plots_capacity`` (chapters 1-2),
``plots_hebbian`` (chapter 3), ``plots_rank`` (chapter 4).
"""
