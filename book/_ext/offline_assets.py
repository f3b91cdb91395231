"""Sphinx extension: the pages load MathJax, require.js and the widget manager from the site itself.

A page opened offline (from a USB stick, behind a firewall) must not need a CDN. This extension

* copies MathJax 3 from the PyPI package django-static-mathjax (pinned in requirements.txt) into
  the output's ``_static/mathjax/`` at build time and points ``mathjax_path`` there: the combined
  ``tex-mml-chtml.js`` plus the components it loads on demand (TeX extensions such as
  ``boldsymbol``, the CHTML woff-v2 fonts, the menu, the accessibility tools and their speech-rule
  engine) and MathJax's Apache-2.0 ``LICENSE``; the other combined builds are left out;
* keeps the vendored files under ``_static/vendor/`` (require.js and the widget manager's
  ``embed-amd.js``, see ``_static/vendor/README.md``) off the global script list: Jupyter Book adds
  every ``*.js`` under ``_static`` to every page, but those two belong only on pages with widgets,
  where myst-nb adds them in order from ``nb_ipywidgets_js`` in ``_config.yml``;
* fails the build when a local ``nb_ipywidgets_js`` path names no file under ``html_static_path``.

The widget controls call MathJax 2's ``MathJax.Hub.Queue``: ``_static/mathjax-hub-shim.js`` (on
every page, as Jupyter Book adds every script of ``_static``) provides it on top of MathJax 3.

An explicit remote ``mathjax_path`` (one with ``://`` other than Sphinx's default CDN) is left as
it is.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

MATHJAX_DIR = "mathjax"  # under the output's _static/
MATHJAX_COMPONENT = "tex-mml-chtml.js"
VENDOR_PREFIX = "vendor/"  # under the book's _static/: loaded only where nb_ipywidgets_js says
# es5/ entries not copied: the other combined builds (one page loads one) and the node.js entry.
_SKIP_TOP = {
    "mml-chtml.js",
    "mml-svg.js",
    "node-main.js",
    "tex-chtml.js",
    "tex-chtml-full.js",
    "tex-chtml-full-speech.js",
    "tex-mml-svg.js",
    "tex-svg.js",
    "tex-svg-full.js",
}


def mathjax_source() -> Path:
    """The ``mathjax`` folder of the installed django-static-mathjax (holds es5/ and LICENSE)."""
    try:
        import mathjax  # django-static-mathjax
    except ImportError as exc:
        raise RuntimeError(
            "the book serves MathJax from the PyPI package django-static-mathjax: "
            "pip install django-static-mathjax==3.2.2.1 (it is in requirements.txt)"
        ) from exc
    root = Path(mathjax.__file__).parent / "static" / "mathjax"
    if not (root / "es5" / MATHJAX_COMPONENT).is_file():
        raise RuntimeError(f"no es5/{MATHJAX_COMPONENT} in {root} (django-static-mathjax)")
    return root


def _same(src: Path, dst: Path) -> bool:
    try:
        a, b = src.stat(), dst.stat()
    except FileNotFoundError:
        return False
    return a.st_size == b.st_size and int(a.st_mtime) == int(b.st_mtime)


def copy_mathjax(static_out: Path) -> int:
    """Copy MathJax into ``static_out/mathjax``; return the number of files copied (0: none)."""
    src = mathjax_source()
    dst = static_out / MATHJAX_DIR
    pairs = [(src / "LICENSE", dst / "LICENSE")]
    es5 = src / "es5"
    for path in sorted(es5.rglob("*")):
        rel = path.relative_to(es5)
        if path.is_file() and not (len(rel.parts) == 1 and rel.name in _SKIP_TOP):
            pairs.append((path, dst / rel))
    copied = 0
    for s, d in pairs:
        if not _same(s, d):
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, d)
            copied += 1
    return copied


def _name(entry: Any) -> str:
    return str(entry[0] if isinstance(entry, (tuple, list)) else entry)


def _configure(app: Any, config: Any) -> None:
    from sphinx.errors import ConfigError
    from sphinx.ext.mathjax import MATHJAX_URL

    if not config.mathjax_path or config.mathjax_path == MATHJAX_URL:
        config.mathjax_path = f"{MATHJAX_DIR}/{MATHJAX_COMPONENT}"
    config.html_js_files = [
        e for e in config.html_js_files if not _name(e).startswith(VENDOR_PREFIX)
    ]
    static_dirs = [Path(app.confdir, p) for p in config.html_static_path]
    for path in getattr(config, "nb_ipywidgets_js", {}) or {}:
        if "://" in path or path.startswith("//"):
            continue
        if not any((d / path).is_file() for d in static_dirs):
            raise ConfigError(
                f"nb_ipywidgets_js names {path!r}, which is in no html_static_path folder "
                f"({', '.join(str(d) for d in static_dirs)})"
            )


def _copy(app: Any) -> None:
    if app.builder.format != "html" or "://" in app.config.mathjax_path:
        return
    try:
        copy_mathjax(Path(app.outdir) / "_static")
    except RuntimeError as exc:
        from sphinx.errors import ExtensionError

        raise ExtensionError(str(exc)) from exc


def setup(app: Any) -> dict[str, Any]:
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", _configure, priority=900)
    app.connect("builder-inited", _copy)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
