"""Every image of the book says what it shows: its ``alt`` comes from the figure, never its path.

myst-nb writes an output image as a file named by its hash and gives the image node no ``alt``;
the HTML writer then uses the file's path as the alternative text, so a screen reader reads
"../_images/3f2b…png". The library's figures carry their description inside the PNG, in its
``Description`` text chunk (``assocmem.plotting.figure_png``, which the inline backend uses in the
book's kernels: the figure's titles, axis labels and legends, or the text a page gave with
``assocmem.plotting.set_alt``). After each page is read, this extension copies that text into the
``alt`` of every image node that has none.

An image that still has no ``alt`` (an output image whose PNG carries no description, or a picture
written into the page without one) is a warning naming the page and the file, so the strict build
(``-W``) fails: give the figure a title, axis labels or a legend, or ``set_alt(fig, ...)``; a
picture in the text takes ``![what it shows](path)`` or the ``:alt:`` option. An alt that is a
file path is refused the same way. Images whose ``alt`` a page set (the myst-nb cell option
``mystnb: image: alt:``) keep it.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from PIL import Image
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: An alternative text that is a file name or path, not a description.
PATH_LIKE = re.compile(r"(^|/)[\w.-]*\.(png|jpe?g|gif|svg|webp)$|^\.{0,2}/|_images/", re.I)


def description(path: Path) -> str | None:
    """The ``Description`` text chunk of an image file, or None (no file, no chunk, not a PNG)."""
    try:
        with Image.open(path) as im:
            text = getattr(im, "text", {}).get("Description")
    except (OSError, ValueError):
        return None
    return str(text).strip() or None if text else None


def image_path(app: Sphinx, node: nodes.image, docname: str) -> Path:
    """The file an image node shows.

    Sphinx's image collector (also on ``doctree-read``) may already have rewritten ``uri`` relative
    to the source folder and filed the path under ``candidates["*"]``; before it, ``uri`` is
    relative to the page, or to the source folder when it starts with "/" (myst-nb's outputs).
    """
    candidate = (node.get("candidates") or {}).get("*")
    if candidate and not str(candidate).startswith("?"):
        return Path(app.srcdir) / str(candidate)
    return Path(app.env.relfn2path(str(node.get("uri", "")), docname)[1])


def describe_images(app: Sphinx, doctree: nodes.document) -> None:
    """Give every image node of a page the ``alt`` its file describes; warn where none can be."""
    env = app.env
    docname = env.docname
    for node in doctree.findall(nodes.image):
        uri = str(node.get("uri", ""))
        alt = str(node.get("alt", "") or "").strip()
        if alt and not PATH_LIKE.search(alt):
            continue
        if uri.startswith(("data:", "http:", "https:")):
            found = None
        else:
            found = description(image_path(app, node, docname))
        if found:
            node["alt"] = found
            continue
        why = f"alt text {alt!r} is a file path" if alt else "no alt text"
        logger.warning(
            f"image {Path(uri).name} has {why}: give the figure a title, axis labels or a legend, "
            "or its own text with assocmem.plotting.set_alt(fig, ...) / finish(fig, alt=...); "
            "a picture in the text takes ![what it shows](path)",
            location=node,
            type="assocmem",
            subtype="alt",
        )


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("doctree-read", describe_images)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
