"""The version has one source, ``assocmem.__version__``; everything else repeats or reads it."""

from __future__ import annotations

import importlib.metadata
import re

import assocmem
import pytest
import tomllib
from _book_checks import ROOT, library_version


def test_pyproject_reads_the_version_from_the_package() -> None:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "assocmem.__version__"
    assert library_version() == assocmem.__version__


def test_citation_repeats_the_version() -> None:
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    match = re.search(r"^version: (\S+)$", text, flags=re.M)
    assert match is not None and match.group(1) == assocmem.__version__


def test_changelog_has_an_entry_for_the_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert first is not None and first.group(1) == assocmem.__version__


def test_installed_metadata_agrees() -> None:
    try:
        installed = importlib.metadata.version("assocmem")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("assocmem is not installed (imported from lib/ on the path)")
    assert installed == assocmem.__version__, (
        "the installed metadata is stale: pip install -e . (or README's command) again"
    )
