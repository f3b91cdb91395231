"""Sphinx extension: name the notebook execution cache after a hash of what the chapters read.

myst-nb's jupyter-cache re-executes a chapter only when the chapter's own code changes. The
chapters import the ``assocmem`` library from ``lib/`` and chapter 6 reads evaluation data from
the directory named by ``$ASSOCMEM_DATA_DIR``, so an edit there (a constant, a bug fix, a data
file) would otherwise leave stale outputs on the built pages. This extension points
``nb_execution_cache_path`` at ``_build/.jupyter_cache/lib-<hash>``, where ``<hash>`` is a SHA-256
over

* the relative paths and contents of every file under the directories listed in
  ``cache_by_library_sources`` (default ``["lib"]``, relative to the book's root);
* for each environment variable in ``cache_by_library_env_dirs`` (default
  ``["ASSOCMEM_DATA_DIR"]``), whether it is set and, if it names a directory, the relative paths
  and contents of every file under it (a missing directory counts as its own state);
* the values of the environment variables in ``cache_by_library_env_vars`` (default: the three
  Hugging Face offline switches, which decide between the hub and the built-in example sets).

Any change there gives a new, empty cache, so every chapter is executed again; older ``lib-*``
caches are removed. An explicit ``execute.cache`` in ``_config.yml`` is respected (the hash folder
goes under it). What the key cannot see: whether the hub is reachable on a machine whose offline
switches are unset (README says how to refresh the cache by hand).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints"}
DEFAULT_ENV_DIRS = ["ASSOCMEM_DATA_DIR"]
DEFAULT_ENV_VARS = ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"]


def _hash_tree(digest: Any, base: Path, label: str) -> None:
    for path in sorted(p for p in base.rglob("*") if p.is_file()):
        rel = path.relative_to(base)
        if _SKIP_PARTS & set(rel.parts) or any(part.endswith(".egg-info") for part in rel.parts):
            continue
        digest.update(f"{label}/{rel.as_posix()}".encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")


def library_hash(
    root: Path,
    sources: list[str],
    env_dirs: Iterable[str] = (),
    env_vars: Iterable[str] = (),
) -> str:
    """Return the first 16 hex digits of a SHA-256 over what the executed chapters depend on.

    Parameters
    ----------
    root : Path
        The book's root; ``sources`` are relative to it.
    sources : list of str
        Directories whose files are hashed (paths and contents).
    env_dirs : iterable of str
        Environment variables that may name a data directory: its files are hashed too.
    env_vars : iterable of str
        Environment variables whose values are part of the key.

    Raises
    ------
    FileNotFoundError
        If a directory in ``sources`` is missing.
    """
    digest = hashlib.sha256()
    for source in sources:
        base = root / source
        if not base.exists():
            raise FileNotFoundError(f"cache_by_library_sources lists {source!r}; {base} is missing")
        _hash_tree(digest, base, source)
    for var in env_dirs:
        value = os.environ.get(var, "")
        path = Path(value).expanduser() if value else None
        state = "unset" if path is None else ("dir" if path.is_dir() else "missing")
        digest.update(f"${var}:{state}".encode() + b"\0")
        if path is not None and path.is_dir():
            _hash_tree(digest, path, f"${var}")
    for var in env_vars:
        digest.update(f"${var}={os.environ.get(var, '')}".encode() + b"\0")
    return digest.hexdigest()[:16]


def _set_cache_path(app: Any, config: Any) -> None:
    root = Path(app.srcdir)
    key = library_hash(
        root,
        list(config.cache_by_library_sources),
        config.cache_by_library_env_dirs,
        config.cache_by_library_env_vars,
    )
    tag = "lib-" + key
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
    app.add_config_value("cache_by_library_env_dirs", DEFAULT_ENV_DIRS, "env")
    app.add_config_value("cache_by_library_env_vars", DEFAULT_ENV_VARS, "env")
    app.connect("config-inited", _set_cache_path, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
