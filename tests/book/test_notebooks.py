"""The book's structure: toc, jupytext pairs, Colab install cells, configuration."""

from __future__ import annotations

import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest
from _book_checks import (
    ROOT,
    chapter_sources,
    check_colab_cell,
    check_pair,
    library_version,
    load_config,
    repository_url,
    toc_files,
)

CHAPTERS = chapter_sources()


def test_every_toc_entry_is_a_paired_chapter_or_page():
    for doc in toc_files():
        md = ROOT / f"{doc}.md"
        assert md.exists(), f"_toc.yml lists {doc}, but {md} does not exist"


def test_every_chapter_is_in_the_toc():
    listed = set(toc_files())
    orphans = [p.name for p in CHAPTERS if str(p.relative_to(ROOT).with_suffix("")) not in listed]
    # A chapter that is not in the toc is not built (only_build_toc_files): it must not exist
    # half-done in book/ without being listed.
    assert not orphans, f"chapters missing from _toc.yml: {orphans}"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_pair_in_sync_and_without_outputs(md):
    assert check_pair(md) == []


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_colab_cell_installs_configured_repository(md):
    """Installs git+<repository.url>@v<pyproject version>, with [llm] only where it is used."""
    assert check_colab_cell(md, repository_url(), library_version()) == []


def test_config_invariants():
    cfg = load_config()
    assert cfg["only_build_toc_files"] is True
    assert "**.ipynb" in cfg["exclude_patterns"], "paired notebooks must be excluded from Sphinx"
    assert cfg["execute"]["execute_notebooks"] in {"cache", "force"}
    assert isinstance(cfg["execute"]["timeout"], int) and cfg["execute"]["timeout"] > 0
    sphinx = cfg["sphinx"]["config"]
    assert sphinx["nb_execution_raise_on_error"] is True
    assert cfg["launch_buttons"]["colab_url"].startswith("https://colab.research.google.com")
    assert cfg["repository"]["path_to_book"] == ""  # Colab links: blob/<branch>/book/NN.ipynb
    for ext in ("amsmath", "dollarmath", "colon_fence"):
        assert ext in cfg["parse"]["myst_enable_extensions"]
    assert (ROOT / cfg["bibtex_bibfiles"][0]).exists()
    assert "sphinx_exercise" in cfg["sphinx"]["extra_extensions"]


# --- the checks themselves catch broken books (so the tests above can fail) ---


def _copy_intro(tmp_path: Path) -> Path:
    for suffix in (".md", ".ipynb"):
        shutil.copy(ROOT / "book" / f"00_intro{suffix}", tmp_path / f"00_intro{suffix}")
    return tmp_path / "00_intro.md"


def test_check_pair_catches_missing_notebook(tmp_path):
    md = _copy_intro(tmp_path)
    md.with_suffix(".ipynb").unlink()
    assert any("missing" in p for p in check_pair(md))


def test_check_pair_catches_out_of_sync(tmp_path):
    md = _copy_intro(tmp_path)
    md.write_text(md.read_text() + "\n```{code-cell} ipython3\nprint('new')\n```\n")
    assert any("differ" in p for p in check_pair(md))


def test_check_colab_cell_catches_missing_guard_and_wrong_url(tmp_path):
    md = _copy_intro(tmp_path)
    url = repository_url()
    assert check_colab_cell(md, url) == []
    text = md.read_text()
    md.write_text(text.replace('"google.colab" in sys.modules', "True"))
    assert any("guard" in p for p in check_colab_cell(md, url))
    md.write_text(text.replace(url, "https://github.com/someone/else"))
    assert any("someone/else" in p for p in check_colab_cell(md, url))


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_code_chapters_have_one_parameters_cell(md):
    """Every chapter with code has exactly one cell tagged ``parameters`` (papermill/Colab)."""
    cells = [c for c in jupytext.read(md).cells if c.cell_type == "code"]
    if not cells:
        return
    tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{md.name}: {len(tagged)} cells tagged 'parameters'"


def test_check_pair_catches_a_tag_that_differs(tmp_path):
    """A tag removed from one side of the pair (here `remove-cell` in the notebook) is caught."""
    md = _copy_intro(tmp_path)
    assert check_pair(md) == []
    nb_path = md.with_suffix(".ipynb")
    nb = nbformat.read(nb_path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "remove-cell" in first.metadata.get("tags", [])
    first.metadata["tags"] = [t for t in first.metadata["tags"] if t != "remove-cell"]
    nbformat.write(nb, nb_path)
    assert any("metadata differ" in p for p in check_pair(md))


def test_check_colab_cell_catches_unpinned_install_and_wrong_extra(tmp_path):
    md = _copy_intro(tmp_path)
    url, version = repository_url(), library_version()
    pinned = md.read_text()
    assert f"git+{url}@v{version}" in pinned
    text = pinned.replace(f"git+{url}@v{version}", f"git+{url}")  # unpinned
    md.write_text(pinned)
    assert check_colab_cell(md, url, version) == []
    md.write_text(text)  # no pin
    assert any("tag" in p for p in check_colab_cell(md, url, version))
    md.write_text(pinned.replace(f"@v{version}", "@v0.0.1"))
    assert any("v0.0.1" in p for p in check_colab_cell(md, url, version))
    md.write_text(pinned.replace("assocmem @", "assocmem[llm] @"))  # intro needs no [llm]
    assert any("[llm]" in p for p in check_colab_cell(md, url, version))
