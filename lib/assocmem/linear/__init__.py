"""Part I: the linear associative memory (chapters 1-4).

Modules import downward only: ``load``, ``problems`` -> ``training``, ``lp`` -> ``sweeps``;
theory (numpy/scipy only): ``extremes`` -> ``replica`` -> ``finite_size``, ``mechanism``;
``spectra``, ``hebbian``; figures in ``plots``.
"""
