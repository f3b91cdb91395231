"""Numbers in running prose come from the page's cells (myst-nb glue), never typed by hand.

A decimal number in a chapter's Markdown is allowed only when it is
- glued (``{glue:text}`name:.3f```, ``{glue:}`` and friends: the role is removed before the check);
- inside math (``$...$``, ``$$...$$``, ``\\begin{...}``), inline code or a code block;
- a reference to a numbered item of a paper or of the book (``Thm 3.1``, ``Corollary 3.2``,
  ``eq. (2.1)``, ``App. D.4``, ``§6.6``, ``Fig. 2``, ``chapter 4.2``, ``Table 1``), a version
  (``4.57``, ``v0.2.0``) or an arXiv identifier;
- in the chapter's short allow-list of constants of the theory or parameters the page states as
  choices (``ALLOWED`` below: e.g. the grid step ``0.02`` of chapter 5).
A computed number typed into prose goes stale when a size or a seed changes: glue it instead.
"""

from __future__ import annotations

import re

import jupytext
import pytest
from _book_checks import ROOT, is_paired, toc_files

# Constants of the theory and stated choices, per chapter (not measurements).
ALLOWED: dict[str, set[str]] = {
    # the exercise sketch's load: alpha = 1/2, the capacity of the theory
    "04_rank_constraints.md": {"0.5"},
    # grid step of the alpha sweeps; the arguments of a stated contraction_constant call
    "05_context_gated_memory.md": {"0.02", "0.9", "0.3", "3.5"},
    # the paper's plot axes (quoted), a stated tolerance of the probe comparison, SST-2's
    # balanced classes (about 0.5)
    "06_transformers.md": {"0.5", "0.4", "0.02"},
    # Morris et al.'s published bits per parameter (a quoted figure, not a measurement here)
    "07_bridge.md": {"3.6"},
}

_REFERENCE = re.compile(
    r"(?:Thm|Theorem|Theorems|Cor|Corollary|Lemma|Prop|Proposition|Eq|eq|Eqs|eqs|equation|"
    r"App|Appendix|Sec|Section|section|§|Fig|Figs|Figure|figure|Table|table|chapter|Chapter|"
    r"Def|Definition|Remark|Algorithm|Step|step|v|version|transformers|torch|Python|arXiv:?)"
    r"\.?\s*\(?[A-Z]?\d+(?:\.\d+)+\)?"
)
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(\S*)")
_CODE_INFO = re.compile(r"^(?:\{code-block\}|\{code\}|\{code-cell\}|[A-Za-z0-9_+-]*)$")


def _drop_code(markdown: str) -> str:
    """Remove fenced code blocks (any fence length) and inline code; keep directives' prose.

    A fence whose info string is empty, a language name or ``{code-block}`` holds code and is
    dropped; a directive fence (``````{exercise}``, ``:::{note}``) holds prose, so only its fence
    lines are dropped.
    """
    kept: list[str] = []
    stack: list[tuple[str, bool]] = []  # (fence, holds code)
    for line in markdown.splitlines():
        m = _FENCE.match(line)
        in_code = any(code for _, code in stack)
        if m and stack and m.group(1) == stack[-1][0] and not m.group(2):
            stack.pop()  # closing fence
            continue
        if m and not in_code:
            stack.append((m.group(1), bool(_CODE_INFO.match(m.group(2)))))
            continue
        if not in_code:
            kept.append(line)
    return _INLINE_CODE.sub(" ", "\n".join(kept))


_GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
_ROLE = re.compile(r"\{(?:eq|numref|ref|cite|cite:p|cite:t|doc|math)\}`[^`]*`")
_URL = re.compile(r"https?://\S+")
_DECIMAL = re.compile(r"(?<![\w.\-/])\d+\.\d+(?![\w.])")


def unglued_decimals(markdown: str) -> list[str]:
    """Decimal numbers of the prose that are neither glued nor exempt (see the module doc)."""
    text = _drop_code(markdown)  # first: code may hold "$" or backquoted roles
    text = _GLUE.sub(" ", text)
    text = _ROLE.sub(" ", text)
    text = _MATH.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _REFERENCE.sub(" ", text)
    return _DECIMAL.findall(text)


def _prose(md) -> str:
    if not is_paired(md):  # a page without code (the appendix): all of it is prose
        return md.read_text(encoding="utf-8")
    nb = jupytext.read(md)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


PAGES = [ROOT / f"{doc}.md" for doc in toc_files()]


@pytest.mark.parametrize("md", PAGES, ids=lambda p: p.name)
def test_prose_numbers_are_glued(md):
    found = [x for x in unglued_decimals(_prose(md)) if x not in ALLOWED.get(md.name, set())]
    assert not found, (
        f"{md.name}: decimal numbers typed into the prose (glue them from a cell, or add a "
        f"theory constant to ALLOWED): {found}"
    )


def test_the_check_catches_a_typed_number_and_spares_the_exempt_ones():
    assert unglued_decimals("the measured capacity is 0.952 here") == ["0.952"]
    exempt = (
        "glued {glue:text}`ac:.3f`, math $\\alpha_c = 0.5$, code `x = 1.5`, Thm 3.1, "
        "Corollary 3.2, eq. (2.1), App. D.4, §6.6, transformers 4.57, arXiv:2605.10795, "
        "https://example.org/v1.2 and {cite}`giorlandino2026factual`"
    )
    assert unglued_decimals(exempt) == []
    assert unglued_decimals("$$\n\\alpha = 0.25\n$$ then 1.25 in prose") == ["1.25"]
    fenced = "````{exercise}\nUse eps = 0.3 here.\n````\n\n```python\neps = 0.1\n```\n"
    assert unglued_decimals(fenced) == ["0.3"]  # a directive's prose is checked, code is not
