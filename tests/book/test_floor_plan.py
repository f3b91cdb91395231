"""Package docstrings are the floor plan (DESIGN.md, library layout).

For ``assocmem`` and each of its subpackages (at any depth), the ``__init__.py`` docstring names
every module of the package as ``:mod:`.name``` (``assocmem``'s also names its subpackages), and
every module it names that way exists. Read from the source with ``ast``: nothing is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "lib" / "assocmem"
#: Every package of the library (the parts, Part I's rooms), found on disk.
PACKAGES = sorted(
    ".".join(("assocmem", *d.relative_to(LIB).parts)).rstrip(".")
    for d in [LIB, *LIB.rglob("*")]
    if d.is_dir() and (d / "__init__.py").is_file()
)
#: A member named in a floor plan: ``:mod:`.name``` or ``:mod:`~.name``` (relative to the package).
_NAMED = re.compile(r":mod:`~?\.([\w.]+)`")


def _directory(package: str) -> Path:
    return LIB.joinpath(*package.split(".")[1:])


def _members(package: str) -> tuple[set[str], set[str]]:
    """(members that must be named, members that may be named) of ``package``."""
    path = _directory(package)
    modules = {f.stem for f in path.glob("*.py")} - {"__init__", "__main__"}
    subpackages = {d.name for d in path.iterdir() if (d / "__init__.py").is_file()}
    required = modules | subpackages
    return required, required | ({"__main__"} if (path / "__main__.py").is_file() else set())


def _named(package: str) -> set[str]:
    doc = ast.get_docstring(ast.parse((_directory(package) / "__init__.py").read_text())) or ""
    return set(_NAMED.findall(doc))


@pytest.mark.parametrize("package", PACKAGES)
def test_docstring_names_every_module(package: str) -> None:
    required, _ = _members(package)
    missing = sorted(required - _named(package))
    assert not missing, f"{package}'s __init__ docstring does not name {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_the_docstring_names_exists(package: str) -> None:
    _, allowed = _members(package)
    unknown = sorted(_named(package) - allowed)
    assert not unknown, f"{package}'s __init__ docstring names {unknown}, which do not exist"


def test_the_floor_plan_check_reads_names() -> None:
    doc = "- :mod:`.load` — the load.\n- :mod:`~.sweeps` and :func:`~.sweeps.capacity_sweep`."
    assert set(_NAMED.findall(doc)) == {"load", "sweeps"}


README = LIB.parents[1] / "README.md"


def _readme_library() -> dict[str, str]:
    """README's library list: package path (``assocmem/linear/theory``) -> the text of its entry."""
    text = README.read_text()
    block = text[text.index("lib/assocmem/  ") : text.index("\ntests/  ")].splitlines()[3:]
    entries: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in block:
        m = re.match(r"^( *)(\w+)/ +(.*)$", line)
        if m:
            indent = len(m[1])
            stack = [(i, n) for i, n in stack if i < indent] + [(indent, m[2])]
            key = "/".join(["assocmem", *(n for _, n in stack)])
            entries[key] = m[3]
        elif stack and line.startswith(" " * 10):
            entries[key] += " " + line.strip()
        else:  # the shared modules' lines
            stack = []
            entries["assocmem"] = entries.get("assocmem", "") + " " + line.strip()
    return entries


def test_readme_lists_every_package_and_module() -> None:
    """README's library list names every package, every module of a part or room, and the
    shared modules as ``name.py``; it names nothing that does not exist."""
    entries = _readme_library()
    packages = {p.replace(".", "/") for p in PACKAGES if p != "assocmem"}
    assert set(entries) - {"assocmem"} == packages
    problems = []
    for package in packages:
        rooms = {d.name for d in LIB.parents[0].joinpath(package).iterdir()
                 if (d / "__init__.py").is_file()}  # fmt: skip
        if rooms:  # a package of rooms: its rooms are listed under it
            continue
        path = LIB.parents[0].joinpath(package)
        modules = {f.stem for f in path.glob("*.py")} - {"__init__"}
        named = set(re.findall(r"\w+", entries[package]))
        problems += [f"{package}/{m}.py" for m in sorted(modules - named)]
    top = {f.name for f in LIB.glob("*.py")} - {"__init__.py"}
    listed = set(re.findall(r"\b\w+\.py\b", entries["assocmem"]))
    problems += [f"shared {m}" for m in sorted(top ^ listed)]
    assert not problems, f"README's library list and the package differ: {problems}"
