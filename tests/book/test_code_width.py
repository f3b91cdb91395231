"""Every chapter's code cells fit the page's code column: at most 79 characters a line (issue 17).

The built page shows about 79 columns of code at 1280 px (the browser check in test_html.py
measures the rendered blocks); a longer line is cut. This test reads the MyST sources (the paired
notebooks hold the same cells, which test_notebooks.py checks), so it runs without a build.
Characters are counted as code points: the page's monospace font gives α and → one column each.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest
from _book_checks import chapter_sources

MAX_COLUMNS = 79


def long_lines(md: Path, limit: int = MAX_COLUMNS) -> list[str]:
    """Lines of the code cells of chapter ``md`` longer than ``limit`` characters, described."""
    problems = []
    notebook = jupytext.read(md)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    for number, cell in enumerate(code_cells, start=1):
        for line_number, line in enumerate(cell.source.splitlines(), start=1):
            if len(line) > limit:
                problems.append(
                    f"{md.name}, code cell {number}, line {line_number}: "
                    f"{len(line)} > {limit} columns: {line.strip()[:60]!r}"
                )
    return problems


@pytest.mark.parametrize("md", chapter_sources(), ids=lambda p: p.stem)
def test_code_cells_fit_79_columns(md: Path) -> None:
    problems = long_lines(md)
    assert not problems, "\n".join(problems)


def test_the_check_catches_a_long_line(tmp_path: Path) -> None:
    md = tmp_path / "XX_demo.md"
    md.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n"
        "    format_name: myst\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n"
        "# Demo\n\n```{code-cell} ipython3\nx = 1\n" + "y = " + "1 + " * 20 + "1\n```\n",
        encoding="utf-8",
    )
    problems = long_lines(md)
    assert len(problems) == 1 and "code cell 1, line 2: 85 > 79" in problems[0], problems
    assert long_lines(md, limit=100) == []
