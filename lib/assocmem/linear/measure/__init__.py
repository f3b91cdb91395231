"""Part I measurements: sweeps, and the numbers read from them against the theory.

- :mod:`.sweeps` — capacity sweeps and truncated-Hebbian sweeps -> one tidy DataFrame.
- :mod:`.tables` — reading sweep tables: checks, fraction stored per load, instance agreement.
- :mod:`.transitions` — where a success curve crosses 1/2: estimators and their bootstrap.
- :mod:`.capacity_comparison` — measured transitions against the RS prediction, OP against DP.
- :mod:`.rank_transitions` — transitions of truncated Hebbian memories against alpha_c(kappa).
- :mod:`.scores` — score statistics: targets against competitors, Hebbian and trained memories.
- :mod:`.measured_spectra` — spectra of measured matrices (singular values, KS distance, m_4,
  group comparisons); stored and trained memories against the theory.
- :mod:`.implicit_bias` — normalised margins of trained memories against the max-margin optima.
- :mod:`.max_margin_spectra` — spectra of the exact max-margin memories, OP against DP.
- :mod:`.partial_storage` — how much can be stored above capacity.
"""
