"""Context-gated retrieval inside a language model (chapter 6).

Import from the modules (the package re-exports nothing). They import downward only:

- :mod:`.registry` -- the models, each described once: components, BOS rule, source.
- :mod:`.protocol` -- chapter 6's protocol, one frozen object: tasks, shots, sizes, thresholds.
- :mod:`.loaders` -- weights and tokenizer from a registry source (GGUF in a package, the hub).
- :mod:`.models` -- the wrapper the probes read (:class:`~.models.LanguageModel`), ``load_model``.
- :mod:`.examples` -- small example sets written for this project (no data, no hub).
- :mod:`.data` -- the tasks: local files, the hub at pinned revisions, or the examples.
- :mod:`.prompts` -- prompt design: templates, query splits, demonstration prefixes, token ids.
- :mod:`.states` -- hidden states of prompts (batched, on shared prefixes) and their disk cache.
- :mod:`.evaluation` -- paired comparisons (an :class:`~assocmem.estimate.Estimate` of the
  difference) and the linear probe.
- :mod:`.probes` -- logit lens, N_eff, context vectors, additive score, LAMA.
- :mod:`.claims` -- the paper's claims as typed estimates, each verdict from the one rule.
- :mod:`.results` -- the typed result of each experiment (task, probe, LAMA) and its summary.
- :mod:`.experiments` -- the drivers: one call per experiment returns its typed result.
- :mod:`.plots` -- the figures and the table.
- :mod:`.__main__` -- ``python -m assocmem.llm``: every experiment on a chosen model.

transformers is imported lazily, when a model is loaded; without it
:func:`~.models.load_model` raises an ImportError naming ``pip install "assocmem[llm]"``.
"""
