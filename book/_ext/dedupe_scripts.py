"""Sphinx extension: include each script once per page.

sphinx-thebe (which jupyter-book always loads, even with thebe off) registers its inline
configuration script, ``const THEBE_JS_URL = ...``, in a way that lands twice in every page's
``<head>`` (once with filename ``None``, once with ``""``); the second copy raises "Identifier
'THEBE_JS_URL' has already been declared" in the browser console. This extension drops exact
duplicates (same file or same inline body, same attributes) from each page's script list, keeping
the first.
"""

from __future__ import annotations

from typing import Any


def _key(script: Any) -> tuple:
    # An inline script is registered with filename None by one caller and "" by another.
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return (str(filename), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def _dedupe(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    kept = []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def setup(app: Any) -> dict[str, bool]:
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
