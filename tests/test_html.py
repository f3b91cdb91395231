"""Checks of the built HTML in a real browser (headless Chromium driven by Playwright).

Run after `jupyter-book build .`: every page of `_build/html/book` is opened from disk. MathJax 3
is served from a local copy (the PyPI package django-static-mathjax) in place of its CDN, and every
other network request is aborted, so the check works offline. Skipped, with the reason, when the
built HTML, Chromium or Playwright is absent.

Every page is loaded twice, at a desktop width (1280 x 900 CSS px) and a phone width (390 x 844),
and its layout is measured after MathJax has typeset it and the fonts have loaded (issue 17):

* at 1280 px no display equation is wider than its box (the MathJax CHTML container,
  ``mjx-container[display]``, scrolls sideways when it is: ``scrollWidth > clientWidth``, or its
  right edge passes its parent's), and no code or output line is wider than its block
  (``pre``: ``scrollWidth > clientWidth``);
* at 1280 px every output figure is shown at >= 0.8 of its *intended* width. Figures are retina
  PNGs: the file holds twice the pixels of the size they are meant to be shown at, and the notebook
  output records that size, which myst-nb writes into the ``<img>`` as its ``width`` (attribute or
  inline style). The intended width is that width when the page gives one, else the file's
  ``naturalWidth`` (an image without a stated size is meant to be shown pixel for pixel);
* at both widths the visible text holds no progress bar ("100%|", "it/s]", "s/it]") and no
  absolute machine path (/work/, /home/, /tmp/, /root/);
* at 390 px the page does not scroll sideways (document ``scrollWidth`` <= the viewport) and every
  equation number lies inside the viewport (the equation itself may scroll inside its box).
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


# The layout of one page at the current viewport (issue 17). Sizes in CSS px, rounded.
_LAYOUT = r"""() => {
    const px = x => Math.round(x);
    const texOf = el => {
        try {
            const items = MathJax.startup.document.getMathItemsWithin(el);
            if (items.length) return items[0].math.trim().replace(/\s+/g, ' ').slice(0, 70);
        } catch (e) {}
        return el.textContent.trim().slice(0, 70);
    };
    const eqName = box => {
        const no = box.querySelector('.eqno');
        const number = no ? no.textContent.replace('#', '').trim() + ' ' : '';
        return number + (box.id ? '#' + box.id : '');
    };
    const equations = Array.from(
        document.querySelectorAll('mjx-container[display="true"], mjx-container[display]')
    ).map(c => {
        const box = c.closest('div.math') || c.parentElement;
        const r = c.getBoundingClientRect(), pr = box.getBoundingClientRect();
        const no = box.querySelector('.eqno');
        const nr = no ? no.getBoundingClientRect() : null;
        return {
            name: eqName(box), tex: texOf(c),
            scroll: c.scrollWidth, client: c.clientWidth,
            right: px(r.right), parentRight: px(pr.right),
            eqnoLeft: nr ? px(nr.left) : null, eqnoRight: nr ? px(nr.right) : null,
            eqnoWidth: nr ? px(nr.width) : null,
        };
    });
    const blocks = Array.from(document.querySelectorAll('pre')).filter(
        p => p.offsetParent !== null).map(p => {
        const cell = p.closest('.cell');
        const cells = Array.from(document.querySelectorAll('.cell'));
        const lines = (p.innerText.trim() ? p.innerText : p.textContent).split('\n');
        const longest = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
        return {
            kind: p.closest('.cell_output, .output') ? 'output' : 'code',
            cell: cell ? cells.indexOf(cell) : -1,
            scroll: p.scrollWidth, client: p.clientWidth,
            longest: longest.slice(0, 90), columns: longest.length,
        };
    });
    const images = Array.from(document.images).filter(
        i => i.offsetParent !== null && (i.getAttribute('src') || '').includes('_images/')
    ).map(i => {
        const attr = parseFloat(i.getAttribute('width'));
        const style = /^\s*([\d.]+)px\s*$/.exec(i.style.width || '');
        const intended = attr > 0 ? attr : (style ? parseFloat(style[1]) : i.naturalWidth);
        return {
            src: (i.getAttribute('src') || '').split('/').pop().slice(0, 16),
            natural: i.naturalWidth, intended: px(intended),
            shown: px(i.getBoundingClientRect().width),
            source: attr > 0 ? 'width attribute' : (style ? 'style width' : 'naturalWidth'),
        };
    });
    return {
        viewport: window.innerWidth,
        docScroll: document.documentElement.scrollWidth,
        text: document.body.innerText,
        equations, blocks, images,
    };
}"""


def _inspect(browser, page_path: Path, width: int = 1280, height: int = 900) -> dict:
    mathjax_root = _mathjax_root()
    assert mathjax_root is not None
    page = browser.new_page(viewport={"width": width, "height": height})
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
    page.evaluate("() => document.fonts.ready.then(() => true)")
    info = page.evaluate(_PROBE)
    info["layout"] = page.evaluate(_LAYOUT)
    info["has_mathjax"] = has_mathjax
    info["page_errors"] = errors
    page.close()
    return info


@pytest.fixture(scope="module")
def pages(browser):
    """Every page at the desktop width, 1280 px."""
    return {p.name: _inspect(browser, p) for p in _pages()}


@pytest.fixture(scope="module")
def phone_pages(browser):
    """Every page at a phone's width, 390 px."""
    return {p.name: _inspect(browser, p, width=390, height=844) for p in _pages()}


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


# ---- Layout (issue 17): nothing clipped at 1280 px, nothing sideways at 390 px ---------------

TOLERANCE_PX = 1  # sub-pixel rounding of the layout engine
MIN_IMAGE_SCALE = 0.8
PROGRESS_BAR = re.compile(r"\d+%\|| \d+/\d+ \[\d+:\d+|\bit/s\]|\bs/it\]")
MACHINE_PATH = re.compile(r"(?<![\w.~])/(?:work|home|tmp|root)/")


def _failures(pages: dict, check) -> str:
    problems = [f"{name}: {p}" for name, info in pages.items() for p in check(info["layout"])]
    return "\n".join(problems)


def _wide_equations(layout: dict) -> list[str]:
    return [
        f"display equation {e['name'] or '(unnumbered)'} is {e['scroll']} px wide in a "
        f"{e['client']} px box (right edge {e['right']} px, parent's {e['parentRight']} px): "
        f"{e['tex']}"
        for e in layout["equations"]
        if e["scroll"] > e["client"] + TOLERANCE_PX or e["right"] > e["parentRight"] + TOLERANCE_PX
    ]


def _wide_blocks(layout: dict) -> list[str]:
    return [
        f"{b['kind']} block of cell {b['cell']} is {b['scroll']} px wide in a {b['client']} px "
        f"box; longest line ({b['columns']} columns): {b['longest']!r}"
        for b in layout["blocks"]
        if b["scroll"] > b["client"] + TOLERANCE_PX
    ]


def _small_images(layout: dict) -> list[str]:
    return [
        f"figure {i['src']}... shown {i['shown']} px wide, {i['shown'] / i['intended']:.2f} of its "
        f"intended {i['intended']} px ({i['source']}; file {i['natural']} px)"
        for i in layout["images"]
        if i["intended"] > 0 and i["shown"] < MIN_IMAGE_SCALE * i["intended"]
    ]


def _bad_text(layout: dict) -> list[str]:
    problems = []
    for pattern, what in [(PROGRESS_BAR, "a progress bar"), (MACHINE_PATH, "a machine path")]:
        for line in layout["text"].splitlines():
            if pattern.search(line):
                problems.append(f"visible text holds {what}: {line.strip()[:120]!r}")
    return problems


def _sideways(layout: dict) -> list[str]:
    problems = []
    if layout["docScroll"] > layout["viewport"] + TOLERANCE_PX:
        problems.append(
            f"the page is {layout['docScroll']} px wide in a {layout['viewport']} px viewport"
        )
    for e in layout["equations"]:
        if e["eqnoRight"] is None or e["eqnoWidth"] == 0:
            continue
        if e["eqnoRight"] > layout["viewport"] + TOLERANCE_PX or e["eqnoLeft"] < 0:
            problems.append(
                f"equation number {e['name']} lies at {e['eqnoLeft']}..{e['eqnoRight']} px, "
                f"outside the {layout['viewport']} px viewport"
            )
    return problems


def test_display_equations_fit_at_desktop_width(pages):
    problems = _failures(pages, _wide_equations)
    assert not problems, f"display equations wider than the column at 1280 px:\n{problems}"


def test_code_and_output_lines_fit_at_desktop_width(pages):
    problems = _failures(pages, _wide_blocks)
    assert not problems, f"code or output lines cut at 1280 px:\n{problems}"


def test_figures_are_shown_near_their_intended_width(pages):
    problems = _failures(pages, _small_images)
    assert not problems, f"figures shrunk at 1280 px:\n{problems}"


def test_no_progress_bar_or_machine_path_in_the_text(pages):
    problems = _failures(pages, _bad_text)
    assert not problems, f"text that does not belong on a page:\n{problems}"


def test_nothing_runs_off_a_phone_screen(phone_pages):
    problems = _failures(phone_pages, _sideways)
    assert not problems, f"content off the screen at 390 px:\n{problems}"


def test_layout_checks_catch_what_they_look_for():
    """The checks above flag made-up layouts with each fault and pass a clean one."""
    clean = {
        "viewport": 390,
        "docScroll": 390,
        "text": "alpha = 0.5\nrank sweep done",
        "equations": [
            {
                "name": "(2.1)",
                "tex": "x",
                "scroll": 300,
                "client": 300,
                "right": 350,
                "parentRight": 350,
                "eqnoLeft": 340,
                "eqnoRight": 370,
                "eqnoWidth": 30,
            },
        ],
        "blocks": [
            {"kind": "code", "cell": 0, "scroll": 600, "client": 600, "longest": "x", "columns": 1}
        ],
        "images": [
            {
                "src": "a.png",
                "natural": 1400,
                "intended": 700,
                "shown": 700,
                "source": "width attribute",
            }
        ],
    }
    for check in (_wide_equations, _wide_blocks, _small_images, _bad_text, _sideways):
        assert check(clean) == [], check.__name__
    bad = dict(clean)
    bad["equations"] = [dict(clean["equations"][0], scroll=500, eqnoLeft=400, eqnoRight=430)]
    bad["blocks"] = [dict(clean["blocks"][0], scroll=700)]
    bad["images"] = [dict(clean["images"][0], shown=500)]
    bad["text"] = "rank sweep: 100%|####| 16/16 [00:18<00:00, 1.1s/it]\nsaved to /work/main/x"
    bad["docScroll"] = 420
    assert len(_wide_equations(bad)) == 1
    assert len(_wide_blocks(bad)) == 1
    assert len(_small_images(bad)) == 1
    assert len(_bad_text(bad)) == 2
    assert len(_sideways(bad)) == 2
