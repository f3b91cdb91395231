"""Sphinx extension: name the notebook execution cache after a hash of the library's source.

myst-nb's jupyter-cache re-executes a chapter only when the chapter's own code changes. The
chapters import the ``assocmem`` library from ``lib/``, so an edit there (a constant, a bug fix)
would otherwise leave stale outputs on the built pages. This extension points
``nb_execution_cache_path`` at ``_build/.jupyter_cache/lib-<hash>``, where ``<hash>`` is a SHA-256
over the relative paths and contents of every file under the directories listed in
``cache_by_library_sources`` (default ``["lib"]``, relative to the book's root). Any edit there
gives a new, empty cache, so every chapter is executed again; older ``lib-*`` caches are removed.
An explicit ``execute.cache`` in ``_config.yml`` is respected (the hash folder goes under it).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints"}


def library_hash(root: Path, sources: list[str]) -> str:
    """Return the first 16 hex digits of a SHA-256 over the files under ``root/<source>``."""
    digest = hashlib.sha256()
    for source in sources:
        base = root / source
        if not base.exists():
            raise FileNotFoundError(f"cache_by_library_sources lists {source!r}; {base} is missing")
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            rel = path.relative_to(root)
            if _SKIP_PARTS & set(rel.parts) or any(part.endswith(".egg-info") for part in rel.parts):
                continue
            digest.update(str(rel.as_posix()).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _set_cache_path(app: Any, config: Any) -> None:
    root = Path(app.srcdir)
    tag = "lib-" + library_hash(root, list(config.cache_by_library_sources))
    base = config.nb_execution_cache_path
    base = Path(base) if base else Path(app.outdir).parent / ".jupyter_cache"
    if not base.is_absolute():
        base = root / base
    for old in base.glob("lib-*") if base.exists() else []:
        if old.is_dir() and old.name != tag:
            shutil.rmtree(old, ignore_errors=True)
    config.nb_execution_cache_path = str(base / tag)


def setup(app: Any) -> dict[str, bool]:
    app.add_config_value("cache_by_library_sources", ["lib"], "env")
    app.connect("config-inited", _set_cache_path, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
