"""The execution cache is keyed by the library's source: editing lib/ re-executes the chapters.

Builds a two-file book in a temporary folder with the same local extension as the real book
(`book/_ext/cache_by_library.py`), edits a constant of its library, rebuilds and checks that the
page shows the new value. The control build without the extension shows the stale value, so the
test fails if the extension stops working.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _book_checks import TINY_PAGE_HEAD

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))
from cache_by_library import library_hash  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

PAGE = (
    TINY_PAGE_HEAD
    + """
```{code-cell} ipython3
import sys
sys.path.insert(0, "lib")
from minilib import CONSTANT
print(f"value={CONSTANT}")
```
"""
)


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


def _build_and_read(book: Path, env: dict[str, str] | None = None) -> str:
    subprocess.run(
        [str(Path(sys.executable).parent / "jupyter-book"), "build", str(book)],
        check=True,
        capture_output=True,
        cwd=book,
        env=env,
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
    with pytest.raises(FileNotFoundError, match=r"cache_by_library_sources lists 'nowhere'"):
        library_hash(tmp_path, ["nowhere"])


def test_hash_covers_the_data_directory_and_the_offline_switches(tmp_path, monkeypatch):
    (tmp_path / "lib").mkdir()
    data = tmp_path / "data"
    (data / "sst2").mkdir(parents=True)
    (data / "sst2" / "dev.tsv").write_text("sentence\tlabel\ngood\t1\n")
    monkeypatch.delenv("ASSOCMEM_DATA_DIR", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    args = (tmp_path, ["lib"], ["ASSOCMEM_DATA_DIR"], ["HF_HUB_OFFLINE"])
    unset = library_hash(*args)
    monkeypatch.setenv("ASSOCMEM_DATA_DIR", str(data))
    with_data = library_hash(*args)
    (data / "sst2" / "dev.tsv").write_text("sentence\tlabel\ngood\t0\n")
    edited = library_hash(*args)
    monkeypatch.setenv("ASSOCMEM_DATA_DIR", str(tmp_path / "nowhere"))
    missing = library_hash(*args)
    monkeypatch.delenv("ASSOCMEM_DATA_DIR")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    offline = library_hash(*args)
    keys = [unset, with_data, edited, missing, offline]
    assert len(set(keys)) == len(keys), keys
    monkeypatch.delenv("HF_HUB_OFFLINE")
    assert library_hash(*args) == unset  # the same state, the same key


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


DATA_PAGE = PAGE.replace(
    "from minilib import CONSTANT",
    "import os\nCONSTANT = open(os.path.join(os.environ['ASSOCMEM_DATA_DIR'], 'x.txt')).read()",
)


@pytest.mark.slow
def test_data_edit_reexecutes_the_page(tmp_path):
    """Editing a data file the page reads (under $ASSOCMEM_DATA_DIR) re-executes it."""
    book = _make_book(tmp_path, with_extension=True)
    (book / "page.md").write_text(DATA_PAGE)
    data = tmp_path / "data"
    data.mkdir()
    (data / "x.txt").write_text("1")
    env = {**os.environ, "ASSOCMEM_DATA_DIR": str(data)}
    assert "value=1" in _build_and_read(book, env)
    (data / "x.txt").write_text("2")
    assert "value=2" in _build_and_read(book, env)
