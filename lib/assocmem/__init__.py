"""assocmem: the library behind the assocmem-book course on associative memory.

Subpackages (import from the modules themselves; packages re-export nothing):
``assocmem.linear`` (Part I, chapters 1-4), ``assocmem.context_gated`` (chapter 5) and
``assocmem.llm`` (chapter 6); shared modules ``plotting``, ``widgets``, ``device`` and
``_validate`` (input checks).
"""

from __future__ import annotations

#: The library's and the book's version: the one source (pyproject.toml reads it; every chapter's
#: Colab cell installs the tag ``v<version>``; CITATION.cff repeats it, checked by the tests).
__version__ = "0.6.0"
