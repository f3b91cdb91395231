"""Sphinx extension: load MathJax on every page.

Sphinx adds the MathJax script only to pages whose body has math, but the navigation sidebar of
every page shows chapter titles such as "the Gardner volume and $\\alpha_c = 1/2$": without
MathJax those titles would show raw TeX on pages without math of their own (e.g. References).
"""

from __future__ import annotations

from typing import Any


def setup(app: Any) -> dict[str, bool]:
    app.set_html_assets_policy("always")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
