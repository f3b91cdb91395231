"""The execution cache is keyed by the library's source: editing lib/ re-executes the chapters.

Builds a two-file book in a temporary folder with the same local extension as the real book
(`book/_ext/cache_by_library.py`), edits a constant of its library, rebuilds and checks that the
page shows the new value. The control build without the extension shows the stale value, so the
test fails if the extension stops working.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from cache_by_library import library_hash  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

PAGE = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Page

```{code-cell} ipython3
import sys
sys.path.insert(0, "lib")
from minilib import CONSTANT
print(f"value={CONSTANT}")
```
"""


def _make_book(tmp_path: Path, with_extension: bool) -> Path:
    book = tmp_path / ("with" if with_extension else "without")
    (book / "lib" / "minilib").mkdir(parents=True)
    (book / "lib" / "minilib" / "__init__.py").write_text("CONSTANT = 1\n")
    (book / "page.md").write_text(PAGE)
    (book / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    ext = ""
    if with_extension:
        shutil.copytree(ROOT / "book" / "_ext", book / "_ext")
        ext = "sphinx:\n  local_extensions:\n    cache_by_library: _ext/\n"
    (book / "_config.yml").write_text(
        "title: t\nexecute:\n  execute_notebooks: cache\n  run_in_temp: false\n"
        'exclude_patterns: ["lib", "_ext"]\n' + ext
    )
    return book


def _build_and_read(book: Path) -> str:
    subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book)],
        check=True,
        capture_output=True,
        cwd=book,
    )
    return (book / "_build" / "html" / "page.html").read_text()


def test_library_hash_changes_with_content_and_ignores_bytecode(tmp_path):
    (tmp_path / "lib" / "pkg" / "__pycache__").mkdir(parents=True)
    source = tmp_path / "lib" / "pkg" / "mod.py"
    source.write_text("X = 1\n")
    first = library_hash(tmp_path, ["lib"])
    (tmp_path / "lib" / "pkg" / "__pycache__" / "mod.pyc").write_bytes(b"junk")
    assert library_hash(tmp_path, ["lib"]) == first
    source.write_text("X = 2\n")
    assert library_hash(tmp_path, ["lib"]) != first
    with pytest.raises(FileNotFoundError):
        library_hash(tmp_path, ["nowhere"])


@pytest.mark.slow
@pytest.mark.parametrize("with_extension", [True, False], ids=["keyed", "control"])
def test_library_edit_reexecutes_the_page(tmp_path, with_extension):
    book = _make_book(tmp_path, with_extension)
    assert "value=1" in _build_and_read(book)
    (book / "lib" / "minilib" / "__init__.py").write_text("CONSTANT = 2\n")
    html = _build_and_read(book)
    if with_extension:
        assert "value=2" in html
        caches = list((book / "_build" / ".jupyter_cache").glob("lib-*"))
        assert len(caches) == 1, caches  # the stale cache was removed
    else:  # plain jupyter-cache keys on the page's code only: the page is stale
        assert "value=1" in html
