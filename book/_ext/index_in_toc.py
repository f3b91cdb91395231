"""Sphinx extension: the table of contents ends with a link to the book's index (genindex).

A ``_toc.yml`` can only list documents and external URLs, and the general index is neither (Sphinx
writes ``genindex.html`` itself). Sphinx's toctree does accept the generated page ``genindex`` as
an entry, so this transform appends ``("Index", "genindex")`` to the last toctree of the root
document, right after sphinx-external-toc has built it (its transform runs at priority 100).
"""

from __future__ import annotations

from typing import Any

from sphinx import addnodes
from sphinx.transforms import SphinxTransform

#: The sidebar's label of the index page.
TITLE = "Index"


class IndexInToc(SphinxTransform):
    """Append the general index to the root document's last toctree (the "Reference" part)."""

    default_priority = 101  # after sphinx_external_toc.events.InsertToctrees (100)

    def apply(self, **kwargs: Any) -> None:
        if self.env.docname != self.config.root_doc:
            return
        toctrees = list(self.document.findall(addnodes.toctree))
        if toctrees and ("genindex" not in [ref for _, ref in toctrees[-1]["entries"]]):
            toctrees[-1]["entries"].append((TITLE, "genindex"))


def setup(app: Any) -> dict[str, Any]:
    app.add_transform(IndexInToc)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
