"""Sphinx extension: every cell's execution time recorded, a per-cell limit a reader can raise.

The book executes its chapters through myst-nb's cache mode (jupyter-cache, nbclient). This
extension

* sets the per-cell time limit from ``$ASSOCMEM_CELL_TIMEOUT`` (seconds) when it is set, else
  keeps ``execute.timeout`` of ``_config.yml``: a slower or busier machine raises it without
  editing the configuration (README, "When a cell runs past its limit");
* has nbclient record each cell's start and end (``record_timing``, which jupyter-cache turns
  off), so the executed notebooks in ``_build/jupyter_execute`` carry them in each code cell's
  ``metadata.execution``; :func:`cell_times` reads them back, the build log lists the slowest
  cells at the end, and ``tests/book/test_cell_times.py`` holds them to a quarter of the limit;
* on a timeout, puts in front of nbclient's message the chapter, the cell (its number among the
  code cells, its line in the chapter's source and its first line), the limit and the setting
  to raise;
* sets ``ASSOCMEM_PAGE_BUILD=1`` in the environment the kernels inherit, so the library's
  progress bars stay off the pages (:func:`assocmem.keys.show_progress`).

myst-nb offers no hook for the two middle points: they wrap ``single_nb_execution`` and the
cache client's ``start_client`` in ``myst_nb.core.execute.cache`` (myst-nb 1.x), which this
extension checks for and refuses to run without.
"""

from __future__ import annotations

import functools
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from sphinx.errors import ConfigError
from sphinx.util import logging

TIMEOUT_ENV = "ASSOCMEM_CELL_TIMEOUT"
PAGE_BUILD_ENV = "ASSOCMEM_PAGE_BUILD"  # assocmem.keys.PAGE_BUILD_ENV
_current: dict[str, Any] = {"path": None, "timeout": None}
logger = logging.getLogger(__name__)


def cell_seconds(cell: Any) -> float | None:
    """Seconds a code cell took to execute, from nbclient's timing metadata (None if absent)."""
    t = cell.get("metadata", {}).get("execution", {})
    start, end = t.get("iopub.execute_input"), t.get("shell.execute_reply")
    if not start or not end:
        return None
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def cell_times(executed: Path) -> list[tuple[float, str, int, str]]:
    """``(seconds, chapter, code-cell number, first line)`` of every timed cell, slowest first.

    ``executed`` is the build's ``_build/jupyter_execute`` (the executed notebooks).
    """
    import nbformat

    rows = []
    for path in sorted(executed.rglob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        for number, cell in enumerate(code, start=1):
            seconds = cell_seconds(cell)
            if seconds is not None:
                first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
                rows.append((seconds, path.stem, number, first[:60]))
    return sorted(rows, reverse=True)


def _timeout_message(nb: Any, path: Path | None, timeout: float | None) -> str:
    """Name the chapter, the cell that ran past the limit, the limit and how to raise it."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    number, cell = next(
        ((i, c) for i, c in enumerate(code, start=1)
         if "iopub.execute_input" in c.get("metadata", {}).get("execution", {})
         and "shell.execute_reply" not in c["metadata"]["execution"]),
        (None, None),
    )  # fmt: skip
    where = "a cell"
    if cell is not None:
        first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
        line = ""
        if path is not None and path.is_file():
            text = path.read_text(encoding="utf-8")
            at = text.find(cell.source.strip()[:200])
            line = f", line {text.count(chr(10), 0, at) + 1}" if at >= 0 else ""
        where = f"code cell {number}{line} ({first.strip()[:60]!r})"
    chapter = path.name if path is not None else "a chapter"
    raise_to = int(2 * timeout) if timeout else 1800
    return (
        f"{chapter}: {where} ran past the per-cell time limit of {timeout} s. On a slower or "
        f"busier machine raise the limit, e.g. {TIMEOUT_ENV}={raise_to} jupyter-book build . "
        "(README: 'When a cell runs past its limit'), or run the chapter with smaller sizes "
        "(its parameters cell).\n"
    )


def _patch_myst_nb() -> None:
    from myst_nb.core.execute import cache as nb_cache

    if getattr(nb_cache, "_assocmem_patched", False):
        return
    if not hasattr(nb_cache, "single_nb_execution") or not hasattr(
        nb_cache.NotebookClientCache, "start_client"
    ):  # pragma: no cover - a myst-nb without the 1.x layout
        raise ConfigError("cell_budget needs myst-nb 1.x (myst_nb.core.execute.cache)")
    run = nb_cache.single_nb_execution

    @functools.wraps(run)
    def timed(nb: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs["record_timing"] = True
        result = run(nb, *args, **kwargs)
        from nbclient.exceptions import CellTimeoutError

        if isinstance(result.err, CellTimeoutError):
            note = _timeout_message(nb, _current["path"], _current["timeout"])
            result.exc_string = note + (result.exc_string or "")
            result.err.args = (note + str(result.err),)
        return result

    start = nb_cache.NotebookClientCache.start_client

    @functools.wraps(start)
    def start_client(self: Any) -> Any:
        _current["path"] = None if self.path is None else Path(self.path)
        _current["timeout"] = self.nb_config.execution_timeout
        return start(self)

    nb_cache.single_nb_execution = timed
    nb_cache.NotebookClientCache.start_client = start_client
    nb_cache._assocmem_patched = True


def _configure(app: Any, config: Any) -> None:
    value = os.environ.get(TIMEOUT_ENV, "").strip()
    if value:
        try:
            seconds = int(value)
        except ValueError:
            seconds = 0
        if seconds < 1 and seconds != -1:
            raise ConfigError(
                f"{TIMEOUT_ENV}={value!r}: give the per-cell limit in whole seconds (>= 1), "
                "or -1 for none"
            )
        config.nb_execution_timeout = seconds
    os.environ[PAGE_BUILD_ENV] = "1"  # the kernels inherit it: no progress bars on the pages
    _patch_myst_nb()


def _report(app: Any, exception: Exception | None) -> None:
    executed = Path(app.outdir).parent / "jupyter_execute"
    if exception is not None or not executed.is_dir():
        return
    rows = cell_times(executed)
    if rows:
        limit = app.config.nb_execution_timeout
        logger.info(f"slowest cells (per-cell limit {limit} s, {TIMEOUT_ENV} to change it):")
        for seconds, chapter, number, first in rows[:5]:
            logger.info(f"  {seconds:7.1f} s  {chapter} cell {number}: {first}")


def setup(app: Any) -> dict[str, bool]:
    app.connect("config-inited", _configure, priority=450)
    app.connect("build-finished", _report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
