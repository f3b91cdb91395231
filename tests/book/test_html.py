"""Checks of the built HTML in a real browser (headless Chromium driven by Playwright).

Run after `jupyter-book build .`: every page of `_build/html` is opened from disk (file://) with
every request that is not ``file:`` (or an inline ``data:``/``blob:`` URL) refused, as for a reader
offline or behind a firewall. The book serves MathJax, require.js and the widget manager from its
own ``_static`` (``book/_ext/offline_assets.py``, ``_static/vendor/``), so the pages must need
nothing else:

* no page attempts a request outside the file system (the test lists the URLs), and no built page
  or stylesheet names a remote script, stylesheet, font or image;
* every page with math shows it typeset (``mjx-container``, no ``mjx-merror``);
* every page whose HTML embeds widget views (``application/vnd.jupyter.widget-view+json``) shows
  each one rendered by the widget manager: a ``.widget-subarea`` holding a visible
  ``.jupyter-widgets`` element in front of the view's script, and no error widget.

Skipped, with the reason, when the built HTML, Chromium or Playwright is absent (a hard error
when ``ASSOCMEM_REQUIRE_HTML=1``); the checks of the vendored files themselves always run.

Every page of `_build/html/book` is loaded twice, at a desktop width (1280 x 900 CSS px) and a
phone width (390 x 844), and its layout is measured after MathJax has typeset it and the fonts
have loaded (issue 17):

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

The other pages (the root ``index.html``, which redirects to the first chapter, ``search.html``,
``genindex.html``) get the offline, math and widget checks at the desktop width.
``ASSOCMEM_HTML_DIR`` points the checks at another build (a small test book).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pytest
from _book_checks import ROOT, chapter_sources, load_config, repository_url

# ASSOCMEM_HTML_DIR: check another build (e.g. a small test book) instead of the book's own.
HTML = Path(os.environ.get("ASSOCMEM_HTML_DIR") or ROOT / "_build" / "html")
VENDOR = ROOT / "_static" / "vendor"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WAIT_MS = 30_000  # for MathJax and for the widget manager, per page


def _pages() -> list[Path]:
    return sorted((HTML / "book").glob("*.html")) if HTML.exists() else []


def _other_pages() -> list[Path]:
    """Built pages not in _pages(): index.html, search.html, genindex.html, deeper folders."""
    if not HTML.exists():
        return []
    chapters = set(_pages())
    skip = {"_static", "_sources", "_images"}
    return sorted(
        p
        for p in HTML.rglob("*.html")
        if p not in chapters and not skip & set(p.relative_to(HTML).parts[:-1])
    )


def _skip_reason() -> str | None:
    if not _pages():
        return f"no built HTML in {HTML} (run `jupyter-book build .` first)"
    if not Path(CHROMIUM).exists():
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    return None


SKIP = _skip_reason()
if SKIP is not None and os.environ.get("ASSOCMEM_REQUIRE_HTML") == "1":  # CI: never skip silently
    raise RuntimeError(f"built-HTML checks required but cannot run: {SKIP}")


@pytest.fixture(scope="module")
def browser():
    if SKIP is not None:
        pytest.skip(SKIP)
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


# The widgets of one page: each view script (the saved state's views) must have been rendered by
# the widget manager into the .widget-subarea it inserts in front of the script.
_WIDGETS = """() => {
    const views = Array.from(document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]'));
    const missing = views.filter(s => {
        const area = s.previousElementSibling;
        const w = area && area.classList.contains('widget-subarea')
            ? area.querySelector('.jupyter-widgets') : null;
        if (!w) return true;
        const r = w.getBoundingClientRect();
        return !(r.width > 0 && r.height > 0) && !w.classList.contains('widget-output');
    }).map(s => { try { return JSON.parse(s.textContent).model_id; } catch (e) { return '?'; } });
    return {
        views: views.length,
        missing: missing,
        errors: Array.from(document.querySelectorAll('.jupyter-widgets-error-widget')).map(
            e => e.innerText.slice(0, 200)),
        controls: document.querySelectorAll('.widget-slider, .widget-dropdown, .widget-checkbox, '
            + '.widget-output, .widget-box').length,
    };
}"""

_REDIRECT = re.compile(r"""<meta[^>]+http-equiv=["']refresh["'][^>]+url=([^"'>]+)""", re.I)


def _wait(page, condition: str, timeout_ms: int) -> bool:
    """Wait until a JavaScript condition holds; False when it did not within the time."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def _is_local(url: str) -> bool:
    return url.startswith(LOCAL_SCHEMES)


def _inspect(browser, page_path: Path, width: int = 1280, height: int = 900, layout: bool = True):
    """Open one built page offline; return what _PROBE and _WIDGETS report (and its layout).

    Every request that is not local is refused and recorded in ``info["remote"]``.
    """
    context = browser.new_context(viewport={"width": width, "height": height},
                                  service_workers="block")  # fmt: skip
    remote: list[str] = []

    def refuse(route) -> None:
        url = route.request.url
        if _is_local(url):
            route.continue_()
        else:
            remote.append(url)
            route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: None if _is_local(r.url) else remote.append(r.url))
    page.on("websocket", lambda ws: remote.append(ws.url))
    html = page_path.read_text(encoding="utf-8", errors="replace")
    redirect = _REDIRECT.search(html)
    page.goto(page_path.as_uri(), wait_until="load")
    if redirect:  # index.html: a meta refresh to the first chapter
        target = (page_path.parent / redirect.group(1).strip()).resolve()
        page.wait_for_url(target.as_uri())
        page.wait_for_load_state("load")
        html = target.read_text(encoding="utf-8", errors="replace")
    has_mathjax = page.evaluate(  # a MathJax component (not the book's mathjax-hub-shim.js)
        r"() => Array.from(document.scripts).some("
        r"s => /\/(tex|mml)-[\w-]+\.js|MathJax\.js|\/startup\.js/.test(s.src || ''))"
    )
    # Wait for MathJax and the widget manager; one that never comes (a refused script) is left
    # to the tests below, which say what is missing.
    if has_mathjax and _wait(
        page, "() => window.MathJax && MathJax.startup && MathJax.startup.promise", WAIT_MS
    ):
        page.evaluate("() => MathJax.startup.promise")
    if WIDGET_VIEW in html:  # until the widget manager has rendered every view
        _wait(page, f"() => ({_WIDGETS})().missing.length === 0", WAIT_MS)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    info = page.evaluate(_PROBE)
    info["widgets"] = page.evaluate(_WIDGETS)
    info["embeds_widgets"] = WIDGET_VIEW in html
    if layout:
        info["layout"] = page.evaluate(_LAYOUT)
    info["has_mathjax"] = has_mathjax
    info["page_errors"] = errors
    info["remote"] = sorted(set(remote))
    context.close()
    return info


@pytest.fixture(scope="module")
def pages(browser):
    """Every page of book/ at the desktop width, 1280 px."""
    return {p.name: _inspect(browser, p) for p in _pages()}


@pytest.fixture(scope="module")
def phone_pages(browser):
    """Every page of book/ at a phone's width, 390 px."""
    return {p.name: _inspect(browser, p, width=390, height=844) for p in _pages()}


@pytest.fixture(scope="module")
def other_pages(browser):
    """The built pages outside book/ (index.html redirects to the first chapter), 1280 px."""
    return {
        p.relative_to(HTML).as_posix(): _inspect(browser, p, layout=False) for p in _other_pages()
    }


def test_no_page_requests_anything_outside_the_file_system(pages, phone_pages, other_pages):
    attempted = {
        f"{name} ({label})": info["remote"]
        for label, group in [("1280 px", pages), ("390 px", phone_pages), ("1280 px", other_pages)]
        for name, info in group.items()
        if info["remote"]
    }
    listing = "\n".join(f"{name}: {urls}" for name, urls in attempted.items())
    assert not attempted, f"pages that tried to reach the network (refused):\n{listing}"


def test_every_equation_is_typeset_without_error(pages, other_pages):
    for name, info in {**pages, **other_pages}.items():
        if info["math"]:
            assert info["has_mathjax"], f"{name}: math on the page but no MathJax script"
            assert info["rendered"] > 0, f"{name}: {info['math']} math elements, none typeset"
            assert info["rendered"] >= info["math"], (
                f"{name}: {info['math']} math elements but {info['rendered']} typeset"
            )
        assert info["merrors"] == [], f"{name}: MathJax errors {info['merrors']}"


def test_every_embedded_widget_renders(pages, other_pages):
    for name, info in {**pages, **other_pages}.items():
        w = info["widgets"]
        if not info["embeds_widgets"]:
            continue
        assert w["views"] > 0, f"{name}: the HTML embeds widget views but the page shows none"
        assert not w["missing"], (
            f"{name}: {len(w['missing'])} of {w['views']} widget views not rendered by the widget "
            f"manager (model ids {w['missing']}); JavaScript errors: {info['page_errors']}; "
            f"requests refused: {info['remote']}"
        )
        assert not w["errors"], f"{name}: error widgets in place of widgets: {w['errors']}"
        assert w["controls"] > 0, f"{name}: widgets rendered but no control or output box"


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


def test_no_javascript_errors(pages, other_pages):
    for name, info in {**pages, **other_pages}.items():
        # Nothing is fetched from a CDN any more, so no refused script can excuse an error.
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


# ---- Offline assets: what the pages load is in the site --------------------------------------

_REMOTE_ATTR = re.compile(
    r"""<(script|img|iframe|source|video|audio|embed|link)\b([^>]*?)\s(src|href)=["']"""
    r"""((?:https?:)?//[^"']+)["']""",
    re.I,
)
_NAV_RELS = {"canonical", "prev", "next", "index", "search", "author", "license", "alternate"}
_REMOTE_CSS = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])((?:https?:)?//[^"')\s]+)""", re.I)


def _remote_resources(html: str) -> list[str]:
    """URLs of remote scripts, stylesheets, fonts, images or frames a page names (not links)."""
    found = []
    for tag, attrs, _, url in _REMOTE_ATTR.findall(html):
        if tag.lower() == "link":
            rel = re.search(r"""rel=["']([^"']+)["']""", attrs, re.I)
            if rel and set(rel.group(1).lower().split()) <= _NAV_RELS:
                continue
        found.append(f"<{tag.lower()}> {url}")
    found += [f"url() {u}" for u in _REMOTE_CSS.findall(html)]
    return found


def _load_vendor_update():
    spec = importlib.util.spec_from_file_location("vendor_update", VENDOR / "update.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_offline_assets():
    path = ROOT / "book" / "_ext" / "offline_assets.py"
    spec = importlib.util.spec_from_file_location("offline_assets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_built_page_or_stylesheet_names_a_remote_resource():
    if not _pages():
        pytest.skip(f"no built HTML in {HTML} (run `jupyter-book build .` first)")
    problems = []
    for path in [*HTML.rglob("*.html"), *HTML.rglob("*.css")]:
        text = path.read_text(encoding="utf-8", errors="replace")
        found = _remote_resources(text) if path.suffix == ".html" else _REMOTE_CSS.findall(text)
        problems += [f"{path.relative_to(HTML)}: {u}" for u in found]
    assert not problems, "remote resources named by the built site:\n" + "\n".join(problems)


def test_remote_resource_finder_tells_resources_from_links():
    page = (
        '<script src="https://cdn.example/x.js"></script><script src="../_static/y.js"></script>'
        '<link rel="stylesheet" href="//fonts.example/css"><link rel="next" href="https://a/b">'
        '<a href="https://github.com/x">repo</a><img src="data:image/png;base64,AA">'
        "<style>@font-face { src: url('https://fonts.example/f.woff2') }</style>"
    )
    assert _remote_resources(page) == [
        "<script> https://cdn.example/x.js",
        "<link> //fonts.example/css",
        "url() https://fonts.example/f.woff2",
    ]


def test_vendored_files_match_their_sha256_sums():
    problems = _load_vendor_update().check_committed()
    assert not problems, "\n".join(problems)


def test_widget_manager_is_the_one_of_the_pinned_ipywidgets():
    update = _load_vendor_update()
    lock = (ROOT / "requirements-lock.txt").read_text(encoding="utf-8")
    m = re.search(r"^ipywidgets==(\S+)", lock, re.M)
    assert m, "requirements-lock.txt pins no ipywidgets"
    manager = update.PINS["@jupyter-widgets/html-manager"][0]
    assert m.group(1) == update.IPYWIDGETS, (
        f"requirements-lock.txt pins ipywidgets {m.group(1)}; _static/vendor holds html-manager "
        f"{manager}, the widget manager of ipywidgets {update.IPYWIDGETS}: update it (see "
        "_static/vendor/README.md)"
    )
    for folder in ("requirejs", "jupyter-widgets"):
        assert (VENDOR / folder / "LICENSE").is_file(), (
            f"_static/vendor/{folder}/LICENSE is missing"
        )


def test_config_loads_mathjax_and_the_widget_manager_from_the_site():
    sphinx = load_config()["sphinx"]
    assert "offline_assets" in sphinx["local_extensions"], "book/_ext/offline_assets.py not loaded"
    assert "mathjax_path" not in sphinx.get("config", {}) or "://" not in str(
        sphinx["config"]["mathjax_path"]
    ), "mathjax_path points at a remote MathJax"
    scripts = list(sphinx["config"].get("nb_ipywidgets_js") or {})
    assert scripts, "nb_ipywidgets_js is not set: myst-nb would load the widget manager from a CDN"
    for path in scripts:
        assert "//" not in path, f"nb_ipywidgets_js loads {path} from the network"
        assert (ROOT / "_static" / path).is_file(), f"nb_ipywidgets_js: no _static/{path}"
    assert [Path(p).name for p in scripts] == ["require.js", "embed-amd.js"], scripts


def test_mathjax_copy_holds_what_the_pages_load(tmp_path):
    copied = _load_offline_assets().copy_mathjax(tmp_path)
    root = tmp_path / "mathjax"
    for rel in [
        "tex-mml-chtml.js",
        "LICENSE",
        "output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
        "input/tex/extensions/boldsymbol.js",  # \boldsymbol (\vect) is autoloaded
        "ui/menu.js",
    ]:
        assert (root / rel).is_file(), f"the MathJax copy lacks {rel}"
    assert not (root / "tex-svg-full.js").exists(), "other combined MathJax builds are copied too"
    assert copied > 0
    assert _load_offline_assets().copy_mathjax(tmp_path) == 0, "an up-to-date copy is copied again"


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
