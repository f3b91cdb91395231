"""Checks of the built HTML in a real browser (headless Chromium driven by Playwright).

Run after `jupyter-book build .`: every page of `_build/html/book` is opened from disk. MathJax 3
is served from a local copy (the PyPI package django-static-mathjax) in place of its CDN, and every
other network request is aborted, so the check works offline. Skipped, with the reason, when the
built HTML, Chromium or Playwright is absent.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from _book_checks import ROOT, chapter_sources, repository_url

HTML = ROOT / "_build" / "html"
CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _mathjax_root() -> Path | None:
    try:
        import mathjax  # django-static-mathjax
    except ImportError:
        return None
    root = Path(mathjax.__file__).parent / "static" / "mathjax"
    return root if (root / "es5" / "tex-mml-chtml.js").exists() else None


def _pages() -> list[Path]:
    return sorted((HTML / "book").glob("*.html")) if HTML.exists() else []


def _skip_reason() -> str | None:
    if not _pages():
        return f"no built HTML in {HTML} (run `jupyter-book build .` first)"
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    if _mathjax_root() is None:
        return "no local MathJax 3 copy (pip install django-static-mathjax==3.2.2.1)"
    return None


SKIP = _skip_reason()
if SKIP is not None and os.environ.get("ASSOCMEM_REQUIRE_HTML") == "1":  # CI: never skip silently
    raise RuntimeError(f"built-HTML checks required but cannot run: {SKIP}")
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


def _route(route, mathjax_root: Path) -> None:
    url = route.request.url
    if url.startswith("file://"):
        route.continue_()
    elif url.startswith(CDN):
        local = mathjax_root / url[len(CDN) :].split("?")[0]
        if local.is_file():
            route.fulfill(path=str(local))
        else:
            route.abort()
    else:
        route.abort()  # offline: no other request leaves the machine


# What the browser reports of one page (a JavaScript arrow function evaluated in the page).
_PROBE = """() => ({
    math: document.querySelectorAll('.math').length,
    rendered: document.querySelectorAll('mjx-container').length,
    merrors: Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent),
    images: Array.from(document.images).map(
        i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]),
    outputs: Array.from(document.querySelectorAll('.cell_output, .output')).map(
        e => e.innerText),
    tracebacks: document.querySelectorAll('.output.traceback, .output-traceback').length,
    colab: Array.from(document.querySelectorAll('a[href*="colab.research.google.com"]')).map(
        a => a.href),
})"""


def _inspect(browser, page_path: Path) -> dict:
    mathjax_root = _mathjax_root()
    assert mathjax_root is not None
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("**/*", lambda route: _route(route, mathjax_root))
    page.goto(page_path.as_uri(), wait_until="load")
    has_mathjax = page.evaluate(
        "() => Array.from(document.scripts).some(s => (s.src || '').includes('mathjax'))"
    )
    if has_mathjax:
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
    info = page.evaluate(_PROBE)
    info["has_mathjax"] = has_mathjax
    info["page_errors"] = errors
    page.close()
    return info


@pytest.fixture(scope="module")
def pages(browser):
    return {p.name: _inspect(browser, p) for p in _pages()}


def test_every_equation_is_typeset_without_error(pages):
    for name, info in pages.items():
        if info["math"]:
            assert info["has_mathjax"], f"{name}: math on the page but no MathJax script"
            assert info["rendered"] >= info["math"], (
                f"{name}: {info['math']} math elements but {info['rendered']} typeset"
            )
        assert info["merrors"] == [], f"{name}: MathJax errors {info['merrors']}"


def test_every_image_loads(pages):
    for name, info in pages.items():
        broken = [src for src, ok in info["images"] if not ok]
        assert not broken, f"{name}: images that did not load: {broken}"


def test_every_chapter_shows_its_figures(pages):
    # A chapter whose figures were not captured (e.g. a kernel started with MPLBACKEND=Agg, which
    # disables the inline backend) would pass the image check above with no image at all.
    for md in chapter_sources():
        name = md.with_suffix(".html").name
        figures = [src for src, _ in pages.get(name, {}).get("images", []) if "_images/" in src]
        assert figures, f"{name}: no output figure on the page"


def test_no_output_holds_a_traceback(pages):
    for name, info in pages.items():
        assert info["tracebacks"] == 0, f"{name}: an output cell holds an error"
        bad = [o[:200] for o in info["outputs"] if "Traceback (most recent call last)" in o]
        assert not bad, f"{name}: traceback in output: {bad}"


def test_no_javascript_errors(pages):
    for name, info in pages.items():
        # Aborted CDN requests (widgets' JavaScript) are not page errors; script exceptions are.
        # sphinx-thebe's config script used to come twice ("THEBE_JS_URL has already been
        # declared"): book/_ext/dedupe_scripts.py keeps one, so no error is exempt.
        assert info["page_errors"] == [], f"{name}: JavaScript errors {info['page_errors']}"


def test_every_chapter_page_has_a_colab_link_to_its_notebook(pages):
    url = repository_url()
    m = re.match(r"https://github\.com/([^/]+/[^/]+)", url)
    assert m, f"repository.url {url} is not a GitHub URL"
    for md in chapter_sources():
        name = md.with_suffix(".html").name
        assert name in pages, f"chapter {md.name} has no built page {name}"
        links = pages[name]["colab"]
        expected = f"https://colab.research.google.com/github/{m.group(1)}/blob/"
        good = [link for link in links if link.startswith(expected)]
        assert good, f"{name}: no Colab link under {expected}: {links}"
        for link in good:
            rel = link.split("/blob/", 1)[1].split("/", 1)[1]  # drop the branch
            assert rel == f"book/{md.with_suffix('.ipynb').name}", f"{name}: {link}"
            assert (ROOT / rel).exists(), f"{name}: Colab link to missing notebook {rel}"
