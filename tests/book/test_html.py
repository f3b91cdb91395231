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

Static explorers (issue 41): every page whose saved widget state holds an explorer of
``assocmem.widgets`` (CSS class ``assocmem-explorer``) is opened offline; each slider is moved one
step by the keyboard (arrow key on the focused handle) and then dragged with the mouse to the far
end of its track, and after each move the image the explorer shows (its ``blob:`` bytes, fetched
in the page) must be the frame the saved state holds for the sliders' new values, with no
JavaScript or console error (two console messages that are not the explorers' are named and
allowed). The explorers of chapters 1, 3, 4 and 5 must be static ones, and no page (with its
figure files) may exceed 12 MB.

Dark mode (issue 41): every page of ``book/`` is opened with the theme's stored mode set to dark;
each output figure must lie on an opaque light ground, decided from what the page asks the browser
to draw (issue 51): the figure's own file (its edge opaque) and the computed CSS that applies to
the image and its ancestors (filter, opacity, blend mode, background, padding), not from when
Chromium paints it; one figure is also screenshot once two frames in a row agree, to check that
model against the pixels. Table cells and widget labels must keep a contrast of 4.5 with what lies
under them.

The other pages (the root ``index.html``, which redirects to the first chapter, ``search.html``,
``genindex.html``) get the offline, math and widget checks at the desktop width.
``ASSOCMEM_HTML_DIR`` points the checks at another build (a small test book).
"""

from __future__ import annotations

import importlib.util
import math
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


# ---- Static explorers (issue 41): the slider moves the figure in the page opened from disk ----

EXPLORER_CLASS = "assocmem-explorer"  # assocmem.widgets.STATIC_CLASS
EXPLORER_CHAPTERS = (  # chapters whose explorer must move in the static page
    "01_linear_memory",
    "03_hebbian_vs_optimal",
    "04_rank_constraints",
    "05_context_gated_memory",
)
_STATE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)
_VIEW = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
# Console errors that are not the explorers' and that a reader does not see:
# * sphinx-book-theme (pydata-sphinx-theme 0.17) logs this on a first visit, when the browser has
#   no stored light/dark mode yet, and resets to "auto" (the theme has no option to avoid it);
# * the widget manager's CSS names Font Awesome files that the book does not ship (no widget
#   has an icon; _static/vendor/README.md): a local file miss, no network.
_BENIGN_CONSOLE = re.compile(r"^Got invalid theme mode: \. Resetting to auto\.$")
_BENIGN_MISSING = re.compile(
    r"/@jupyter-widgets/html-manager/dist/[0-9a-f]+\.(woff2?|ttf|eot|svg)$"
)


def _ref(value: str) -> str:
    return value.removeprefix("IPY_MODEL_")


def saved_explorers(html: str) -> list[dict]:
    """The static explorers of a page, in page order, read from its saved widget state.

    Each is ``{"model_id", "sliders": [{"labels", "index"}], "frame": f}`` where ``f(indices)``
    gives the saved image bytes of the state at those slider indices (outer slider first).
    """
    import base64
    import json

    m = _STATE.search(html)
    if not m:
        return []
    models = json.loads(m.group(1))["state"]
    explorers = []
    for view in _VIEW.findall(html):
        model_id = json.loads(view)["model_id"]
        box = models.get(model_id, {})
        if EXPLORER_CLASS not in box.get("state", {}).get("_dom_classes", []):
            continue
        row, _, stack = (_ref(c) for c in box["state"]["children"])
        sliders = [models[_ref(s)]["state"] for s in models[row]["state"]["children"]]

        def frame(indices, stack=stack):
            node = models[stack]
            for i in indices:
                node = models[_ref(node["state"]["children"][i])]
            assert node["model_name"] == "ImageModel", node["model_name"]
            (buf,) = [b for b in node["buffers"] if b["path"] == ["value"]]
            return base64.b64decode(buf["data"])

        explorers.append(
            {
                "model_id": model_id,
                "sliders": [{"labels": s["_options_labels"], "index": s["index"]} for s in sliders],
                "frame": frame,
            }
        )
    return explorers


def _explorer_pages() -> list[Path]:
    return [
        p for p in _pages() if EXPLORER_CLASS in p.read_text(encoding="utf-8", errors="replace")
    ]


# The explorer's visible figure (the one image of the selected frame) as base64, and its readouts.
_SHOWN = """async (el) => {
    const imgs = Array.from(el.querySelectorAll('img')).filter(i => i.offsetParent !== null);
    const readouts = Array.from(el.querySelectorAll('.widget-readout')).map(
        r => r.innerText.trim());
    if (imgs.length !== 1) return {images: imgs.length, readouts};
    const img = imgs[0];
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    const r = img.getBoundingClientRect();
    return {images: 1, readouts, data: btoa(s), width: r.width, height: r.height,
            complete: img.complete && img.naturalWidth > 0};
}"""


def _open_offline(browser, page_path: Path, init_script: str | None = None, **context_args):
    """A page opened from disk, every non-local request refused; (context, page, problems).

    ``init_script`` runs in the page before its own scripts (e.g. the stored dark mode).
    """
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, service_workers="block", **context_args
    )
    if init_script:
        context.add_init_script(init_script)
    problems: list[str] = []

    def refuse(route) -> None:
        if _is_local(route.request.url):
            route.continue_()
        else:
            problems.append(f"request refused: {route.request.url}")
            route.abort()

    def console(msg) -> None:
        if msg.type != "error" or _BENIGN_CONSOLE.match(msg.text):
            return
        url = (msg.location or {}).get("url", "")
        if msg.text.startswith("Failed to load resource") and _BENIGN_MISSING.search(url):
            return
        problems.append(f"console error: {msg.text} ({url})")

    context.route("**/*", refuse)
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(f"JavaScript error: {exc}"))
    page.on("console", console)
    page.goto(page_path.as_uri(), wait_until="load")
    _wait(page, f"() => ({_WIDGETS})().missing.length === 0", WAIT_MS)
    return context, page, problems


def _expect_frame(page, element, explorer: dict, indices: list[int], before: str | None, how: str):
    """Wait until the explorer shows the frame for ``indices``; fail with what it shows instead."""
    import base64

    want = [s["labels"][i] for s, i in zip(explorer["sliders"], indices, strict=True)]
    expected = base64.b64encode(explorer["frame"](indices)).decode("ascii")
    shown = None
    for _ in range(50):  # up to 5 s
        shown = element.evaluate(_SHOWN)
        if shown["readouts"] == want and shown.get("data") == expected:
            break
        page.wait_for_timeout(100)
    assert shown["readouts"] == want, f"{how}: the slider reads {shown['readouts']}, not {want}"
    assert shown["images"] == 1, f"{how}: {shown['images']} images visible in the explorer"
    assert shown["data"] == expected, (
        f"{how}: the visible figure is not the saved frame for {want}"
        + (" (it did not change)" if shown["data"] == before else "")
    )
    assert shown["complete"] and shown["width"] > 100, f"{how}: the frame is not drawn: {shown}"
    return shown["data"]


@pytest.mark.parametrize(
    "page_path",
    _explorer_pages() or [pytest.param(None, marks=pytest.mark.skip(reason="no static explorer"))],
    ids=lambda p: p.stem if p else "none",
)
def test_static_explorer_moves_by_keyboard_and_by_drag(browser, page_path):
    """Each static explorer, offline: the figure follows its sliders, by keyboard and by drag."""
    explorers = saved_explorers(page_path.read_text(encoding="utf-8"))
    assert explorers, f"{page_path.name}: no static explorer in the saved widget state"
    context, page, problems = _open_offline(browser, page_path)
    try:
        elements = page.locator(f".{EXPLORER_CLASS}")
        assert elements.count() == len(explorers), (
            f"{page_path.name}: {elements.count()} explorers rendered, {len(explorers)} saved; "
            f"{problems}"
        )
        for k, explorer in enumerate(explorers):
            element = elements.nth(k)
            element.scroll_into_view_if_needed()
            indices = [s["index"] for s in explorer["sliders"]]
            shown = _expect_frame(page, element, explorer, indices, None, "at load")
            for j, slider in enumerate(explorer["sliders"]):  # keyboard: one step per slider
                n = len(slider["labels"])
                key, step = ("ArrowRight", 1) if indices[j] < n - 1 else ("ArrowLeft", -1)
                element.locator(".noUi-handle").nth(j).focus()
                page.keyboard.press(key)
                indices[j] += step
                shown = _expect_frame(page, element, explorer, indices, shown, f"slider {j} {key}")
            for j, slider in enumerate(explorer["sliders"]):  # drag: to the far end and back
                n = len(slider["labels"])
                handle = element.locator(".noUi-handle").nth(j).bounding_box()
                track = element.locator(".noUi-target").nth(j).bounding_box()
                far = n - 1 if indices[j] < n / 2 else 0
                x = track["x"] + (track["width"] - 2 if far else 2)
                y = handle["y"] + handle["height"] / 2
                page.mouse.move(handle["x"] + handle["width"] / 2, y)
                page.mouse.down()
                page.mouse.move(x, y, steps=8)
                page.mouse.up()
                indices[j] = far
                shown = _expect_frame(page, element, explorer, indices, shown, f"slider {j} drag")
        assert not problems, f"{page_path.name}: " + "\n".join(problems)
    finally:
        context.close()


def test_chapters_explorers_are_static():
    """In a built book, the explorers of chapters 1, 3, 4 and 5 move without a kernel."""
    built = {p.stem: p for p in _pages()}
    if not built:
        pytest.skip(f"no built HTML in {HTML}")
    for stem in EXPLORER_CHAPTERS:
        if stem in built:  # a small test book may hold only some chapters
            explorers = saved_explorers(built[stem].read_text(encoding="utf-8"))
            assert explorers, f"{stem}.html: its explorer saved no frames (static= missing?)"
            for e in explorers:
                states = [len(s["labels"]) for s in e["sliders"]]
                assert 1 <= len(states) <= 2 and math.prod(states) <= 40, states


def test_page_sizes_stay_within_budget():
    """No page (HTML with its widget frames, plus its figure files) exceeds 12 MB."""
    if not _pages():
        pytest.skip(f"no built HTML in {HTML}")
    for page in _pages():
        html = page.read_text(encoding="utf-8", errors="replace")
        images = set(re.findall(r'src="\.\./(_images/[^"]+)"', html))
        total = page.stat().st_size + sum((HTML / i).stat().st_size for i in images)
        assert total <= 12e6, f"{page.name}: {total / 1e6:.1f} MB with its figures"


# ---- Dark mode (issue 41): figures on an opaque light ground, text and widgets legible ------

MIN_CONTRAST = 4.5  # WCAG AA for body text
MIN_FIGURE_GROUND = 0.6  # luma (0 black, 1 white) of what surrounds a figure's plot, dark mode
# What the theme's light/dark switch stores (pydata-sphinx-theme reads it before the first paint).
_DARK_MODE = "localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');"

# Text whose colour must contrast with what lies under it: tables, widget labels and readouts.
_CONTRAST = r"""() => {
    const rgba = s => {
        const m = /rgba?\(([^)]+)\)/.exec(s || '');
        if (!m) return [0, 0, 0, 0];
        const v = m[1].split(/[ ,\/]+/).filter(x => x).map(Number);
        return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
    };
    const over = (top, under) => {
        const a = top[3];
        return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
    };
    const lum = c => {
        const f = x => {
            x /= 255;
            return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
    };
    const ground = el => {
        const chain = [];
        for (let e = el; e; e = e.parentElement) {
            chain.push(rgba(getComputedStyle(e).backgroundColor));
        }
        let c = [255, 255, 255, 1];  // the canvas under everything
        for (const layer of chain.reverse()) c = over(layer, c);
        return c;
    };
    const selectors = 'div.cell_output table td, div.cell_output table th, article table td, '
        + 'article table th, .jupyter-widgets .widget-label, .jupyter-widgets .widget-readout, '
        + '.jupyter-widgets .widget-html-content, .jupyter-widgets label';
    const bad = [];
    let checked = 0;
    for (const el of document.querySelectorAll(selectors)) {
        const text = el.innerText.trim();
        if (!text || el.offsetParent === null) continue;
        checked++;
        const bg = ground(el);
        const fg = over(rgba(getComputedStyle(el).color), bg);
        const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
        const ratio = (hi + 0.05) / (lo + 0.05);
        if (ratio < %(min)s) bad.push(`${text.slice(0, 40)!r}: contrast ${ratio.toFixed(2)} `
            + `(text ${getComputedStyle(el).color} on ${bg.slice(0, 3).map(Math.round)})`);
    }
    return {checked, bad, theme: document.documentElement.dataset.theme,
            page: lum(ground(document.querySelector('article') || document.body))};
}""".replace("%(min)s", str(MIN_CONTRAST)).replace(
    "${text.slice(0, 40)!r}", "'${text.slice(0, 40)}'"
)


def figure_ground(png: bytes, inset: int = 6) -> float:
    """Median luma (Rec. 709 weights on sRGB, 0 to 1) of a ring ``inset`` px inside the edge.

    The ring is what a reader sees around the plot: the figure's own background, or the page
    behind it where the figure is transparent.
    """
    import io

    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float) / 255.0
    h, w = a.shape[:2]
    if h <= 2 * inset + 2 or w <= 2 * inset + 2:
        return 1.0
    ring = np.concatenate(
        [a[inset, inset:-inset], a[-inset - 1, inset:-inset], a[inset:-inset, inset],
         a[inset:-inset, -inset - 1]]
    )  # fmt: skip
    return float(np.median(ring @ np.array([0.2126, 0.7152, 0.0722])))


def test_figure_ground_tells_light_from_dark():
    import io

    import numpy as np
    from PIL import Image

    def png(ground: int, ink: int) -> bytes:
        a = np.full((60, 80, 3), ground, dtype=np.uint8)
        a[20:40, 20:60] = ink  # the plot
        buf = io.BytesIO()
        Image.fromarray(a).save(buf, format="png")
        return buf.getvalue()

    assert figure_ground(png(255, 0)) == pytest.approx(1.0)
    assert figure_ground(png(219, 0)) > MIN_FIGURE_GROUND  # the theme's dimmed white
    assert figure_ground(png(18, 0)) < 0.1  # a transparent figure on the dark page


# What the page asks the browser to draw under and around each output figure in dark mode: the
# image's own source (bytes for blob:/data: frames, the file's URL otherwise), and the computed
# style that the theme applies to it and to every ancestor (filter, opacity, blend mode, the
# image's background and padding, each ancestor's background).
_FIGURE_STYLES = """async () => {
    const out = [];
    for (const img of document.querySelectorAll('div.cell_output img')) {
        const r = img.getBoundingClientRect();
        if (img.offsetParent === null || r.width < 50 || r.height < 50) continue;
        const cs = getComputedStyle(img);
        let data = null;
        if (!img.src.startsWith('file:')) {
            const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
            let s = '';
            for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
            data = btoa(s);
        }
        const chain = [];
        for (let e = img.parentElement; e; e = e.parentElement) {
            const c = getComputedStyle(e);
            chain.push({bg: c.backgroundColor, filter: c.filter, opacity: c.opacity,
                        blend: c.mixBlendMode});
        }
        out.push({src: img.src, data, filter: cs.filter, opacity: cs.opacity,
                  blend: cs.mixBlendMode, bg: cs.backgroundColor,
                  padding: Math.min(...['Top', 'Right', 'Bottom', 'Left'].map(
                      k => parseFloat(cs['padding' + k]) || 0)),
                  chain});
    }
    return out;
}"""

_LUMA = (0.2126, 0.7152, 0.0722)  # Rec. 709 weights on sRGB, as figure_ground


def _rgba(css: str) -> tuple[float, float, float, float]:
    """A computed CSS colour ``rgb(r, g, b)`` / ``rgba(r, g, b, a)`` as floats in [0, 1]."""
    m = re.fullmatch(r"rgba?\(([^)]*)\)", css.strip())
    if not m:
        raise AssertionError(f"cannot read the computed colour {css!r}")
    v = [float(x) for x in re.split(r"[ ,/]+", m.group(1).strip()) if x]
    return (v[0] / 255, v[1] / 255, v[2] / 255, v[3] if len(v) > 3 else 1.0)


def apply_css_filter(rgb, css_filter: str):
    """``rgb`` (floats in [0, 1]) as a CSS ``filter`` value maps it (the filter functions of the
    Filter Effects spec that only rescale channels: brightness, contrast, invert, opacity; any
    other function, such as a blur or a drop shadow, is refused, so the check cannot pass on a
    filter it does not model)."""
    out = [float(c) for c in rgb]
    if css_filter in ("", "none"):
        return out
    for name, arg in re.findall(r"([a-z-]+)\(([^)]*)\)", css_filter):
        if name not in ("brightness", "contrast", "invert", "opacity"):
            raise AssertionError(f"the check does not model the CSS filter {name}({arg})")
        a = float(arg[:-1]) / 100 if arg.endswith("%") else float(arg or 1)
        if name == "brightness":
            out = [c * a for c in out]
        elif name == "contrast":
            out = [(c - 0.5) * a + 0.5 for c in out]
        elif name == "invert":
            out = [c * (1 - a) + (1 - c) * a for c in out]
        elif name == "opacity" and a == 1:
            pass
        else:
            raise AssertionError(f"the check does not model the CSS filter {name}({arg})")
        out = [min(1.0, max(0.0, c)) for c in out]
    return out


def _edge_colour(png: bytes) -> tuple[list[float], float]:
    """Median colour (floats in [0, 1]) and smallest alpha of an image file's one-pixel edge."""
    import io

    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=float) / 255.0
    edge = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
    return [float(np.median(edge[:, i])) for i in range(3)], float(edge[:, 3].min())


def drawn_ground(figure: dict, file_bytes: bytes) -> tuple[float, list[str]]:
    """The luma (0 black, 1 white) of the ground around a figure as the page asks the browser to
    draw it, and what in its style the check cannot accept.

    The ground is the darker of what lies just inside the image's box: the image's own edge, and,
    where the image has padding, its background painted over its ancestors' backgrounds; both
    pass through the image's CSS filter. Partial opacity, blend modes and filters on an ancestor
    would mix the page into the figure: each is reported instead of modelled.
    """
    problems = []
    for what, style in [("image", figure)] + [("ancestor", c) for c in figure["chain"]]:
        if float(style["opacity"]) < 1:
            problems.append(f"{what} opacity {style['opacity']}")
        if style["blend"] not in ("normal", ""):
            problems.append(f"{what} mix-blend-mode {style['blend']}")
        if what == "ancestor" and style["filter"] not in ("none", ""):
            problems.append(f"ancestor filter {style['filter']}")
    edge, alpha = _edge_colour(file_bytes)
    if alpha < 1:
        problems.append("the image's edge is not opaque")
    grounds = [edge]
    if figure["padding"] > 0:
        under = [0.0, 0.0, 0.0]  # the canvas of a dark page; every layer is painted over it
        layers = [s["bg"] for s in figure["chain"]][::-1] + [figure["bg"]]
        for css in layers:
            r, g, b, a = _rgba(css)
            under = [x * a + u * (1 - a) for x, u in zip((r, g, b), under, strict=True)]
        grounds.append(under)
    lumas = [
        sum(w * c for w, c in zip(_LUMA, apply_css_filter(g, figure["filter"]), strict=True))
        for g in grounds
    ]
    return min(lumas), problems


def _figure_bytes(figure: dict) -> bytes:
    import base64
    from urllib.parse import unquote, urlparse

    if figure["data"] is not None:
        return base64.b64decode(figure["data"])
    return Path(unquote(urlparse(figure["src"]).path)).read_bytes()


def _stable_screenshot(page, img, tries: int = 20) -> bytes:
    """The image element's screenshot once two in a row are the same (decoded, painted, settled)."""
    img.evaluate("i => i.decode().then(() => 1, () => 0)")
    last = img.screenshot()
    for _ in range(tries):
        page.wait_for_timeout(250)
        shot = img.screenshot()
        if shot == last:
            return shot
        last = shot
    raise AssertionError(f"no stable frame of {img.get_attribute('src')!r} in {tries} tries")


def test_figure_files_are_opaque():
    """Every figure file a page shows has an opaque edge: no browser timing involved."""
    import numpy as np
    from PIL import Image

    if not _pages():
        pytest.skip(f"no built HTML in {HTML}")
    problems, checked = [], 0
    for page in _pages():
        html = page.read_text(encoding="utf-8", errors="replace")
        for src in sorted(set(re.findall(r'src="\.\./(_images/[^"]+\.png)"', html))):
            a = np.asarray(Image.open(HTML / src).convert("RGBA"))
            edge = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])
            checked += 1
            if edge[:, 3].min() < 255:
                problems.append(f"{page.name}: {src} has a transparent edge")
    assert checked, "no figure file checked"
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def dark_pages(browser):
    """Every page of book/ in the theme's dark mode: (contrast report, figures' drawn grounds).

    Each figure's ground is decided from what the page asks the browser to draw
    (:func:`drawn_ground`), not from when Chromium paints it; one figure, the first of the first
    page that has one, is also screenshot once its frame is stable, to check the model against
    the pixels (``"painted"``: the model's luma and the painted one).
    """
    found, painted = {}, None
    for path in _pages():
        context, page, _ = _open_offline(browser, path, _DARK_MODE, color_scheme="dark")
        try:
            report = page.evaluate(_CONTRAST)
            figures = page.evaluate(_FIGURE_STYLES)
            grounds = [(f["src"][-60:], *drawn_ground(f, _figure_bytes(f))) for f in figures]
            files = {f["src"]: f for f in figures if f["data"] is None}
            if painted is None and files:
                img = page.locator("div.cell_output img:not(.widget-image)").first
                model = files[img.evaluate("i => i.src")]
                luma = drawn_ground(model, _figure_bytes(model))[0]
                painted = (path.name, luma, figure_ground(_stable_screenshot(page, img)))
            found[path.name] = (report, grounds)
        finally:
            context.close()
    found["painted"] = painted
    return found


def _dark_chapters(dark_pages):
    return {k: v for k, v in dark_pages.items() if k != "painted"}


def test_dark_mode_is_dark(dark_pages):
    for name, (report, _) in _dark_chapters(dark_pages).items():
        assert report["theme"] == "dark", f"{name}: the theme did not switch to dark mode"
        assert report["page"] < 0.1, f"{name}: the page is not dark ({report['page']:.2f})"


def test_figures_keep_a_light_ground_in_dark_mode(dark_pages):
    """Every output figure is drawn on an opaque light ground in dark mode (decided from its file
    and the CSS that applies to it), and the one painted figure agrees with that model."""
    pages = _dark_chapters(dark_pages)
    problems = [
        f"{name}: figure ...{src}: ground luma {g:.2f}" + (f" ({'; '.join(bad)})" if bad else "")
        for name, (_, grounds) in pages.items()
        for src, g, bad in grounds
        if g < MIN_FIGURE_GROUND or bad
    ]
    assert any(grounds for _, grounds in pages.values()), "no figure checked"
    assert not problems, "figures without an opaque light ground in dark mode:\n" + "\n".join(
        problems
    )
    name, model, painted = dark_pages["painted"]
    assert painted == pytest.approx(model, abs=0.05), (
        f"{name}: the painted figure's ground ({painted:.3f}) is not the model's ({model:.3f})"
    )


def test_drawn_ground_follows_the_css_it_is_given():
    """The model behind the dark-mode check, on made-up styles: the theme's dimmed white figure
    passes, a transparent or half-opaque figure and an unmodelled filter fail."""
    import io

    import numpy as np
    from PIL import Image

    def png(alpha: int) -> bytes:
        buf = io.BytesIO()
        Image.fromarray(np.full((20, 20, 4), [255, 255, 255, alpha], np.uint8)).save(buf, "png")
        return buf.getvalue()

    page = {"bg": "rgb(18, 18, 18)", "filter": "none", "opacity": "1", "blend": "normal"}
    theme = {"filter": "brightness(0.8) contrast(1.2)", "opacity": "1", "blend": "normal",
             "bg": "rgb(206, 206, 206)", "padding": 8.0, "chain": [page]}  # fmt: skip
    luma, bad = drawn_ground(theme, png(255))
    assert not bad and luma == pytest.approx(((206 / 255 * 0.8 - 0.5) * 1.2 + 0.5), abs=1e-9)
    assert luma > MIN_FIGURE_GROUND
    assert drawn_ground({**theme, "padding": 0}, png(255))[0] == pytest.approx(0.86)
    assert drawn_ground(theme, png(0))[1] == ["the image's edge is not opaque"]
    assert drawn_ground({**theme, "opacity": "0.5"}, png(255))[1] == ["image opacity 0.5"]
    assert drawn_ground({**theme, "bg": "rgba(0, 0, 0, 0)"}, png(255))[0] < 0.1  # page shows
    with pytest.raises(AssertionError, match="blur"):
        drawn_ground({**theme, "filter": "blur(2px)"}, png(255))
    assert apply_css_filter([1, 1, 1], "invert(1)") == [0, 0, 0]


def test_tables_and_widgets_are_legible_in_dark_mode(dark_pages):
    problems = [
        f"{name}: {b}" for name, (report, _) in _dark_chapters(dark_pages).items()
        for b in report["bad"]
    ]  # fmt: skip
    assert not problems, "text below contrast 4.5 in dark mode:\n" + "\n".join(problems)
