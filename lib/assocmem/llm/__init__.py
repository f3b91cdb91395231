"""Context-gated retrieval inside a language model (chapter 6).

Import from the modules (the package re-exports nothing). They import downward only:
:mod:`.models` (registry, loading) and :mod:`.examples` (built-in example sets) ->
:mod:`.data` (tasks) -> :mod:`.prompts` (templates, hidden-state extraction, cache) ->
:mod:`.probes` (logit lens, N_eff, context vectors, additive score, LAMA) ->
:mod:`.experiments` (per-task drivers) -> :mod:`.plots` (figures, table).

transformers is imported lazily, when a model is loaded; without it
:func:`~.models.load_model` raises an ImportError naming ``pip install "assocmem[llm]"``.
"""
