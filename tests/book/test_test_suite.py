"""The test suite's own rule, checked from the source with ``ast``: every ``pytest.raises`` names
the message it expects (issue 38, item 9).

A bare ``pytest.raises(ValueError)`` passes for any ValueError, also one raised for another reason
than the check under test (a typo in the call, an earlier check on another argument). With
``match=`` the test says which argument and value it expects the library to name. Both forms are
checked: the context manager and the direct call ``pytest.raises(E, func, *args)`` (whose keyword
arguments go to ``func``: write it as ``with pytest.raises(E, match=...):`` instead). A
``match`` of ``None`` or ``""`` matches everything and counts as missing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def _pytest_aliases(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Names bound to the pytest module and to ``pytest.raises`` by the file's imports."""
    modules, functions = {"pytest"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "pytest"}
        elif isinstance(node, ast.ImportFrom) and node.module == "pytest":
            functions |= {a.asname or a.name for a in node.names if a.name == "raises"}
    return modules, functions


def _has_match(call: ast.Call) -> bool:
    for kw in call.keywords:
        if kw.arg == "match":
            blank = isinstance(kw.value, ast.Constant) and kw.value.value in (None, "")
            return not blank
    return False


def bare_raises(source: str, filename: str = "<source>") -> list[str]:
    """Return ``filename:line`` of every ``pytest.raises`` call in ``source`` without ``match=``.

    Parameters
    ----------
    source : str
        Python source of a test file.
    filename : str, optional
        The name used in the report.

    Returns
    -------
    list of str
        One ``filename:line`` per call that lacks a usable ``match=``, in source order.
    """
    tree = ast.parse(source, filename=filename)
    modules, functions = _pytest_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        is_raises = (
            isinstance(f, ast.Attribute)
            and f.attr == "raises"
            and isinstance(f.value, ast.Name)
            and f.value.id in modules
        ) or (isinstance(f, ast.Name) and f.id in functions)
        if is_raises and not _has_match(node):
            found.append((node.lineno, f"{filename}:{node.lineno}"))
    return [where for _, where in sorted(found)]


def test_every_pytest_raises_names_its_message() -> None:
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 40  # the whole suite is read, not an empty folder
    bare = [w for f in files for w in bare_raises(f.read_text(), str(f.relative_to(TESTS.parent)))]
    assert not bare, "pytest.raises without match= (name the expected message):\n" + "\n".join(bare)


#: Each source has its one bare ``pytest.raises`` on line 4.
BARE_CASES = {
    "context manager": "import pytest\n\ndef test_x():\n"
    "    with pytest.raises(ValueError):\n        int('x')\n",
    "direct call": "import pytest\n\ndef test_x():\n    pytest.raises(ValueError, int, 'x')\n",
    "imported name": "from pytest import raises\n\ndef test_x():\n"
    "    with raises(ValueError):\n        int('x')\n",
    "module alias": "import pytest as pt\n\ndef test_x():\n"
    "    with pt.raises(ValueError):\n        int('x')\n",
    "match=None": "import pytest\n\ndef test_x():\n"
    "    with pytest.raises(ValueError, match=None):\n        int('x')\n",
    "multi-line call": "import pytest\n\ndef test_x():\n"
    "    with pytest.raises(\n        ValueError,\n    ):\n        int('x')\n",
}


@pytest.mark.parametrize("case", list(BARE_CASES))
def test_the_check_reports_a_bare_raises_by_file_and_line(case: str) -> None:
    assert bare_raises(BARE_CASES[case], "tests/demo.py") == ["tests/demo.py:4"]


def test_the_check_accepts_match_and_ignores_other_raises() -> None:
    source = (
        "import pytest\n\n"
        "def raises(e):\n    return e\n\n"  # a local function of the same name is not pytest's
        "def test_x():\n"
        "    with pytest.raises(ValueError, match=r'invalid literal'):\n"
        "        int('x')\n"
        "    raises(ValueError)\n"
        "    with pytest.raises(ValueError):\n"
        "        int('y')\n"
    )
    assert bare_raises(source, "t.py") == ["t.py:10"]


def test_the_check_fails_on_a_file_with_a_bare_raises(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text(BARE_CASES["context manager"] + BARE_CASES["direct call"].replace("x", "y"))
    assert bare_raises(bad.read_text(), bad.name) == ["test_bad.py:4", "test_bad.py:9"]
