"""Count what the chapters' code cells are made of: plumbing, imports, Colab guard, library.

The measure of issue 25 ("pages that teach"): every code cell of ``book/*.md`` is parsed with
:mod:`ast`; each *simple* statement (compound statements are entered and their header lines
given to the category of most of their body) counts the source lines it spans, blank and
comment-only lines excluded. Categories, first match wins:

- ``colab``: any statement of the cell that installs the library in Colab (``google.colab``);
- ``import``: ``import`` / ``from ... import``;
- ``plumbing``: calls ``glue``/``glue_all``/``print``/``display``/``table``, formats a table
  for display (a pandas ``round``/``style``/``format``/``rename``/``set_index``/``loc``...
  chain as the cell's value), is an f-string / ``str`` munging that only builds a glue key or
  label, or looks a result up by position (``i16 = list(lambdas).index(16)``,
  ``i = np.argmin(np.abs(grid - x))``);
- ``library``: calls a name imported from ``assocmem`` (figures included), or a function of a
  module imported from it (``replica.cost_solution(...)``: pages import by module);
- ``other``: parameters, NumPy arithmetic, asserts, loops' bookkeeping.

Usage: ``python benchmarks/page_statements.py [book_dir]`` (prints one row per chapter, the
share of each category, and plumbing's share of the code that is neither an import nor the
Colab guard: the measure, since the number of import lines follows the import style, not the
page's code). Run it on two checkouts to compare.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

PLUMBING_CALLS = {"glue", "glue_all", "print", "display", "Markdown", "HTML", "table"}
LOOKUP_CALLS = {
    "list",
    ".index",
    "int",
    "argmin",
    ".argmin",
    "abs",
    ".abs",
    "searchsorted",
    ".searchsorted",
    "float",
    "len",
}
TABLE_METHODS = {
    "round",
    "style",
    "format",
    "rename",
    "set_index",
    "reset_index",
    "head",
    "to_frame",
    "pivot",
    "pivot_table",
    "sort_values",
    "drop",
    "hide",
    "set_caption",
    "format_index",
    "applymap",
    "map",
    "background_gradient",
    "to_string",
    "set_table_styles",
}
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def _cells(md: str) -> list[str]:
    out = []
    for body in CELL.findall(md):
        lines = [ln for ln in body.splitlines() if not ln.startswith(":")]
        src = "\n".join(lines)
        src = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!")))
        out.append(src)
    return out


def _names(node: ast.AST, modules: frozenset[str] = frozenset()) -> set[str]:
    """Names of the calls in ``node``: ``f`` for ``f(...)`` and for ``module.f(...)`` where
    ``module`` is one of the library's ``modules`` the page imported, ``.f`` for a method."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                names.add(f.id)
            elif isinstance(f, ast.Attribute):
                lib = isinstance(f.value, ast.Name) and f.value.id in modules
                names.add(f.attr if lib else "." + f.attr)
    return names


def _is_table_expr(node: ast.AST) -> bool:
    if not isinstance(node, ast.Expr):
        return False
    v = node.value
    while isinstance(v, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute):
            if v.func.attr in TABLE_METHODS:
                return True
            v = v.func.value
        elif isinstance(v, ast.Call):
            return False
        else:
            if isinstance(v, ast.Attribute) and v.attr in ("style", "loc", "iloc", "T"):
                return True
            v = v.value
    return False


def _is_label_munging(node: ast.AST) -> bool:
    """``tag = str(x).replace(".", "")``, ``key = f"..."``: builds a name for glue."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return False
    v = node.value
    if isinstance(v, ast.JoinedStr):
        return True
    calls = _names(v)
    return (
        bool(calls)
        and calls <= {"str", ".replace", ".split", ".lower", ".join", "int"}
        and not any(isinstance(n, ast.Name) and n.id.startswith("np") for n in ast.walk(v))
    )


def _is_position_lookup(node: ast.AST) -> bool:
    """``i16 = list(lambdas).index(16)``, ``i = int(np.argmin(np.abs(a - x)))``."""
    if not isinstance(node, ast.Assign):
        return False
    calls = _names(node.value)
    return bool(calls & {".index", ".argmin", ".searchsorted"}) and calls <= LOOKUP_CALLS


def _lines(node: ast.AST, src_lines: list[str]) -> int:
    seg = src_lines[node.lineno - 1 : node.end_lineno]
    return sum(1 for ln in seg if ln.strip() and not ln.strip().startswith("#"))


def _classify(stmt: ast.stmt, library: set[str], modules: frozenset[str]) -> str:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return "import"
    calls = _names(stmt, modules)
    if (calls & PLUMBING_CALLS or _is_table_expr(stmt) or _is_label_munging(stmt)
            or _is_position_lookup(stmt)):  # fmt: skip
        return "plumbing"
    if calls & library or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name) and n.func.value.id in modules
        for n in ast.walk(stmt)
    ):  # fmt: skip
        return "library"
    return "other"


def _walk(
    stmts: list[ast.stmt],
    library: set[str],
    src_lines: list[str],
    counts: Counter,
    modules: frozenset[str] = frozenset(),
) -> None:
    for s in stmts:
        bodies = [
            b
            for b in (
                getattr(s, "body", None),
                getattr(s, "orelse", None),
                getattr(s, "finalbody", None),
            )
            if isinstance(b, list) and b
        ]
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)) or not bodies:
            counts[_classify(s, library, modules)] += _lines(s, src_lines)
            continue
        inner: Counter = Counter()
        for b in bodies:
            _walk(b, library, src_lines, inner, modules)
        counts.update(inner)
        header = _lines(s, src_lines) - sum(inner.values())
        counts[inner.most_common(1)[0][0] if inner else "other"] += max(header, 0)


def count_chapter(path: Path) -> Counter:
    counts: Counter = Counter()
    library: set[str] = set()
    for src in _cells(path.read_text(encoding="utf-8")):
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        src_lines = src.splitlines()
        if "google.colab" in src:
            counts["colab"] += sum(_lines(s, src_lines) for s in tree.body)
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assocmem"):
                library.update(a.asname or a.name for a in node.names)
        library -= {"glue", "glue_all", "table"}
        _walk(tree.body, library, src_lines, counts, frozenset(library))
    return counts


def main(book: str = "book") -> None:
    cats = ["plumbing", "import", "colab", "library", "other"]
    total: Counter = Counter()
    print(f"{'chapter':32s}" + "".join(f"{c:>10s}" for c in cats) + f"{'lines':>8s}")
    for path in sorted(Path(book).glob("[0-9]*.md")):
        c = count_chapter(path)
        total.update(c)
        print(f"{path.name:32s}" + "".join(f"{c[k]:10d}" for k in cats) + f"{sum(c.values()):8d}")
    n = sum(total.values())
    print(f"{'all chapters':32s}" + "".join(f"{total[k]:10d}" for k in cats) + f"{n:8d}")
    print(f"{'share':32s}" + "".join(f"{total[k] / n:10.1%}" for k in cats))
    print(f"plumbing / code other than imports and the Colab guard: {plumbing_share(total):.1%}")


def plumbing_share(total: Counter) -> float:
    """Plumbing's share of the lines that are neither imports nor the Colab guard."""
    code = sum(total.values()) - total["import"] - total["colab"]
    return total["plumbing"] / code


if __name__ == "__main__":
    main(*sys.argv[1:])
