"""The code the chapters show: the literalinclude listings' sources and the equation labels.

The literalinclude listings of the Part I chapters are checked to name a file and an object that
exist (the HTML build would only warn); the equation labels that Part I docstrings name are
checked to exist in the book. The reference cross-entropy itself is tested in
tests/linear/test_cross_entropy.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# ---- the listings: every literalinclude of chapters 1-4 names a file and object that exist ----

_DIRECTIVE = re.compile(r"^```\{literalinclude\}\s+(\S+)\n((?::[\w-]+:.*\n)*)", re.M)


def _listings() -> list[tuple[str, Path, dict[str, str]]]:
    out = []
    for md in sorted((ROOT / "book").glob("0[1-4]_*.md")):
        for m in _DIRECTIVE.finditer(md.read_text()):
            opts = dict(re.findall(r"^:([\w-]+):\s*(.*)$", m.group(2), re.M))
            out.append((md.name, (md.parent / m.group(1)).resolve(), opts))
    return out


def test_the_part_one_chapters_show_three_library_objects() -> None:
    shown = {(page, path.name, opts.get("pyobject")) for page, path, opts in _listings()}
    assert {
        ("01_linear_memory.md", "training.py", "cross_entropy_loss_and_grad"),
        ("02_replica_capacity.md", "replica.py", "_solve_sorted_fields"),
        ("02_replica_capacity.md", "interior_point.py", "StructuredConstraints.normal"),
    } <= shown
    objects = [(path.name, opts.get("pyobject")) for _, path, opts in _listings()]
    assert len(objects) == len(set(objects)), "an object is shown twice"


@pytest.mark.parametrize(("page", "path", "opts"), _listings())
def test_each_listing_points_at_library_code_that_exists(
    page: str, path: Path, opts: dict[str, str]
) -> None:
    assert path.is_file() and (ROOT / "lib" / "assocmem") in path.parents, (page, path)
    source = path.read_text()
    text = source
    if "pyobject" in opts:
        tree = ast.parse(source)
        *outer, last = opts["pyobject"].split(".")  # "Class.method" as Sphinx reads it
        body = tree.body
        for name in outer:
            cls = [n for n in body if isinstance(n, ast.ClassDef) and n.name == name]
            body = cls[0].body if len(cls) == 1 else []
        nodes = [n for n in body if getattr(n, "name", None) == last]
        assert len(nodes) == 1, f"{page}: {opts['pyobject']} not defined once in {path.name}"
        text = ast.get_source_segment(source, nodes[0]) or ""
    for key in ("start-after", "start-at", "end-before", "end-at"):
        if key in opts:
            assert opts[key] in text, f"{page}: {key} {opts[key]!r} not in the shown object"
    # a caption that types the call, `name(a, b)`, names the object's required arguments
    for name, args in re.findall(r"`(\w+)\(([^)`]*)\)`", opts.get("caption", "")):
        assert name == opts.get("pyobject", "").split(".")[-1], f"{page}: the caption names {name}"
        fn = ast.parse(text).body[0]
        assert isinstance(fn, ast.FunctionDef)
        required = [a.arg for a in fn.args.args[: len(fn.args.args) - len(fn.args.defaults)]]
        assert [a.strip() for a in args.split(",") if a.strip()] == required, (page, name)


def test_equation_labels_in_part_one_docstrings_exist_in_the_book() -> None:
    """A docstring that names ``eq-...`` names a label some page defines (no stale labels)."""
    defined = set()
    for md in (ROOT / "book").glob("*.md"):
        defined |= set(re.findall(r"^\$\$ \((eq-[\w-]+)\)", md.read_text(), re.M))
    named = set()
    for py in (ROOT / "lib" / "assocmem" / "linear").rglob("*.py"):
        named |= set(re.findall(r"``(eq-[\w-]+)``", py.read_text()))
    assert named, "no labels found: the pattern is wrong"
    assert named <= defined, (
        f"labels named in lib/assocmem/linear but defined nowhere: {named - defined}"
    )
