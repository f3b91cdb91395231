"""assocmem: the library behind the assocmem-book course on associative memory.

Subpackages (import from the modules themselves; packages re-export nothing):
``assocmem.linear`` (Part I, chapters 1-4), ``assocmem.context_gated`` (chapter 5) and
``assocmem.llm`` (chapter 6); shared modules ``plotting``, ``widgets``, ``device`` and
``_validate`` (input checks).
"""

from __future__ import annotations

__version__ = "0.1.0"
