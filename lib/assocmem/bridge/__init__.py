"""Part III, chapter 7: the bridge between the memories we build and a trained transformer.

Import from the modules (the package re-exports nothing). They import downward only, and may
import :mod:`assocmem.linear` and :mod:`assocmem.llm` (never the reverse):

- :mod:`.facts` -- synthetic facts with frozen unit-norm embeddings; bits per parameter and the
  linear memory's reference lines.
- :mod:`.memories` -- the three memories of 7a: chapter 1's linear memory (its engine), an MLP
  memory and a one-layer transformer, each trained to a recall.
- :mod:`.capacity` -- the largest N stored at >= 99 % recall, the sweep's table, its summaries
  and the check of a live point against the stored band.
- :mod:`.toy` -- the small transformer of 7b, its tokenizer and its adapter to chapter 6's model
  interface (:class:`assocmem.llm.models.LanguageModel`).
- :mod:`.overrides` -- 7b: stored facts against in-context overrides; training and the
  measurements with chapter 6's tools.
- :mod:`.plots` -- the figures.
- :mod:`.__main__` -- ``python -m assocmem.bridge``: the capacity sweep, written to the stored
  table.
"""
