"""assocmem: the library behind the assocmem-book course on associative memory.

Import from the modules themselves (packages re-export nothing). One subpackage per part:

- :mod:`.linear` — Part I, chapters 1-4: the linear associative memory.
- :mod:`.context_gated` — Part II, chapter 5: the context-gated associative memory.
- :mod:`.llm` — Part II, chapter 6: context-gated retrieval inside a language model.
- :mod:`.bridge` — Part III, chapter 7: the memories and a toy transformer on facts the book
  chose (reads :mod:`.linear` and :mod:`.llm`).

Shared by all parts (they import no part):

- :mod:`.plotting` — the one figure style: sizes, colour-blind-safe colours, theory lines,
  simulation markers, and each figure's description (its alt text on the page).
- :mod:`.streams` — random streams: one root seed per experiment, independent keyed children.
- :mod:`.estimate` — the measured number (:class:`~.estimate.Estimate`), the one verdict rule,
  the one renderer.
- :mod:`.stats` — the estimators: rates, means, bootstraps, ratios, crossings of measured curves.
- :mod:`.permutation` — permutation tests of two groups of instances.
- :mod:`.widgets` — explorers: sliders that redraw in a live kernel, precomputed frames in the HTML.
- :mod:`.device` — device and thread selection for the torch computations.
- :mod:`.keys` — glue keys, one per parameter value (for physics modules too: no IPython).
- :mod:`.pages` — page helpers (``glue``, ``table``) for the book build, Colab and plain Jupyter.
- :mod:`.exercises` — the check a computational exercise ends with: right, or what is off.
- :mod:`._validate` — input checks shared by the modules (one home for each kind of check).
"""

from __future__ import annotations

#: The library's and the book's version: the one source (pyproject.toml reads it; every chapter's
#: Colab cell installs the tag ``v<version>``; CITATION.cff repeats it, checked by the tests).
__version__ = "0.12.0"
