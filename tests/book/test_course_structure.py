"""Every chapter is a lesson (issue 50): checked on the MyST sources and on the executed book.

Static, on ``book/NN_*.md`` (the checkers are in ``tests/_course_checks.py``, whose docstring
states the conventions):

* chapters 0-7 open with the "What you will learn" box (3-5 outcomes, "You need", "Reading
  time", a word on long cells and GPUs), and its reading time is the one the introduction's
  chapter map gives;
* chapters 1-7 have at least four ``{exercise}`` directives, each with a folded ``{solution}``,
  and a code cell tagged ``exercise-check`` that calls ``assocmem.exercises.check_answer``;
* chapters 0-7 end with a Summary and a Further reading that cites at least two entries of
  ``book/references.bib``, cite every source they name (``NAMED_SOURCES``: an author, method or
  data set, each mapped to its bibliography key) and link the notation page;
* chapter 6's main line (prose outside code cells, display math, folded blocks and exercises, as
  ``../shared/tools/main_line_words.py`` counts it) is at most 2,000 words.

On the executed book (``_build/jupyter_execute/book/*.ipynb``; skipped without a build, required
under ``ASSOCMEM_REQUIRE_GLUE=1``): every cell tagged ``exercise-check`` printed a line starting
"right:" and none starting "not yet:".

The chapters are rewritten chapter by chapter; until a chapter is, its cases are marked
``xfail(strict=True)`` in :data:`PENDING` ("chapter helper to ... (issue 50)"), so that a fixed
chapter turns its mark into a failure and the mark is removed with the fix.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import nbformat
import pytest
from _book_checks import ROOT, chapter_sources
from _course_checks import (
    NAMED_SOURCES,
    REQUIRED_CITATIONS,
    bib_keys,
    box_problems,
    chapter_cells,
    citation_problems,
    closing_problems,
    exercise_problems,
    notation_link_problems,
    reading_time,
)

CHAPTERS = [md for md in chapter_sources() if re.match(r"0[0-7]_", md.name)]
LESSONS = [md for md in CHAPTERS if not md.name.startswith("00_")]  # chapters 1-7
EXECUTED = Path(os.environ.get("ASSOCMEM_GLUE_DIR") or ROOT / "_build" / "jupyter_execute" / "book")
REQUIRE = os.environ.get("ASSOCMEM_REQUIRE_GLUE") == "1"
MAIN_LINE_TOOL = ROOT.parent / "shared" / "tools" / "main_line_words.py"
MAX_CH6_MAIN_LINE = 2000
_ALL_LESSONS = {md.stem for md in LESSONS}

#: Chapters whose lesson rewrite has landed: their checks are enforced.
_REWRITTEN = {
    "01_linear_memory",
    "02_replica_capacity",
    "03_hebbian_vs_optimal",
    "04_rank_constraints",
    "05_context_gated_memory",
    "06_transformers",
    "07_bridge",
}
#: Chapter cases that fail on today's chapters, by test: each is an xfail(strict=True) until its
#: chapter helper's rewrite lands (then the engineer removes the chapter from its set).
PENDING: dict[str, set[str]] = {
    "box": _ALL_LESSONS - _REWRITTEN,
    "reading_time": _ALL_LESSONS - _REWRITTEN,
    "exercises": _ALL_LESSONS - _REWRITTEN,
    "closing": _ALL_LESSONS - _REWRITTEN,
    "citations": _ALL_LESSONS - _REWRITTEN,
    "notation_link": _ALL_LESSONS - _REWRITTEN,
}
_REASONS = {
    "box": "chapter helper to add the 'What you will learn' box (issue 50)",
    "reading_time": "chapter helper to give the box the chapter map's reading time (issue 50)",
    "exercises": "chapter helper to add the exercises and the check cell (issue 50)",
    "closing": "chapter helper to add the summary and further reading (issue 50)",
    "citations": "chapter helper to add the citation (issue 50)",
    "notation_link": "chapter helper to link the notation page (issue 50)",
    "main_line_06": "chapter helper to move chapter 6's audit out of its main line (issue 50)",
}


def _cases(pages: list[Path], test: str) -> list:
    return [
        pytest.param(
            md,
            id=md.stem,
            marks=[pytest.mark.xfail(strict=True, reason=_REASONS[test])]
            if md.stem in PENDING[test]
            else [],
        )
        for md in pages
    ]


# ---------------------------------------------------------------------- the sources, static


@pytest.mark.parametrize("md", _cases(CHAPTERS, "box"))
def test_chapter_opens_with_what_you_will_learn(md: Path) -> None:
    problems = box_problems(chapter_cells(md))
    assert not problems, f"{md.name}: " + "; ".join(problems)


def chapter_map() -> dict[str, str]:
    """The reading time of each chapter in the introduction's chapter map, by chapter stem."""
    text = (ROOT / "book" / "00_intro.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*\d+\.\s*\{doc\}`(?:[^`<]*<)?([^`<>]+)>?`\s*\|(.*)$", text, flags=re.M)
    out = {}
    for stem, rest in rows:
        cells = [c.strip() for c in rest.split("|")]
        times = [c for c in cells if re.fullmatch(r"\d+(\.\d+)?\s*(min|h)", c)]
        if times:
            out[stem] = re.sub(r"\s+", " ", times[0])
    return out


def test_the_chapter_map_lists_every_chapter_with_a_reading_time() -> None:
    assert set(chapter_map()) == {md.stem for md in LESSONS}, chapter_map()


@pytest.mark.parametrize("md", _cases(LESSONS, "reading_time"))
def test_box_reading_time_is_the_chapter_maps(md: Path) -> None:
    box, mapped = reading_time(chapter_cells(md)), chapter_map().get(md.stem)
    assert box == mapped, (
        f"{md.name}: the box says {box!r}, the introduction's chapter map {mapped!r} "
        "(change both together)"
    )


@pytest.mark.parametrize("md", _cases(LESSONS, "exercises"))
def test_chapter_has_exercises_with_folded_solutions_and_a_check_cell(md: Path) -> None:
    problems = exercise_problems(chapter_cells(md))
    assert not problems, f"{md.name}: " + "; ".join(problems)


@pytest.mark.parametrize("md", _cases(CHAPTERS, "closing"))
def test_chapter_ends_with_summary_and_further_reading(md: Path) -> None:
    problems = closing_problems(chapter_cells(md), bib_keys())
    assert not problems, f"{md.name}: " + "; ".join(problems)


@pytest.mark.parametrize("md", _cases(CHAPTERS, "citations"))
def test_chapter_cites_every_source_it_names(md: Path) -> None:
    problems = citation_problems(chapter_cells(md), md.stem)
    assert not problems, f"{md.name}: " + "; ".join(problems)


@pytest.mark.parametrize("md", _cases(CHAPTERS, "notation_link"))
def test_chapter_links_the_notation_page(md: Path) -> None:
    problems = notation_link_problems(chapter_cells(md))
    assert not problems, f"{md.name}: " + "; ".join(problems)


def test_the_sources_looked_for_are_in_the_bibliography() -> None:
    keys = bib_keys()
    wanted = {k for _, _, ks in NAMED_SOURCES for k in ks}
    wanted |= {k for reqs in REQUIRED_CITATIONS.values() for _, ks in reqs for k in ks}
    assert wanted <= keys, f"keys not in book/references.bib: {sorted(wanted - keys)}"
    assert set(REQUIRED_CITATIONS) <= {md.stem for md in CHAPTERS}


def _main_line_words():
    spec = importlib.util.spec_from_file_location("main_line_words", MAIN_LINE_TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main_line_words


@pytest.mark.xfail(
    "main_line_06" in PENDING, strict=True, reason=_REASONS["main_line_06"]
)  # fmt: skip
def test_chapter_6_main_line_is_at_most_2000_words() -> None:
    if not MAIN_LINE_TOOL.is_file():
        pytest.skip(f"{MAIN_LINE_TOOL} is not beside the repository (../shared)")
    words = _main_line_words()((ROOT / "book" / "06_transformers.md").read_text(encoding="utf-8"))
    assert words <= MAX_CH6_MAIN_LINE, f"chapter 6's main line is {words} words"


# --------------------------------------------------------- the checkers can fail (made-up pages)

_GOOD = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# 9. A chapter

```{code-cell} ipython3
:tags: [remove-cell]

print("colab")
```

```{admonition} What you will learn
- derive one thing;
- compute another;
- tell a third from a fourth.

**You need:** chapter 1. **Reading time:** 30 min. No cell needs a GPU.
```

See the {doc}`notation <notation>`; Adam {cite:p}`kingma2015adam` trains it.

EXERCISES

```{code-cell} ipython3
:tags: [exercise-check]

check_answer(my_alpha, reference=0.125)
```

## Summary

- one thing.

## Further reading

{cite}`gardner1988` and {cite}`engel2001statistical`.
"""
_EXERCISE = """
````{{exercise}} Number {i}
:label: ex-{i}
Do {i}.
````

````{{solution}} ex-{i}
:class: dropdown
Done.
````
"""


def _cells(text: str) -> list:
    import jupytext

    return list(jupytext.reads(text, fmt="md:myst").cells)


def test_the_checkers_pass_a_lesson_and_catch_what_is_missing() -> None:
    good = _GOOD.replace("EXERCISES", "".join(_EXERCISE.format(i=i) for i in range(4)))
    cells, keys = _cells(good), bib_keys()
    assert box_problems(cells) == [] and reading_time(cells) == "30 min"
    assert exercise_problems(cells) == []
    assert closing_problems(cells, keys) == []
    assert citation_problems(cells, "09_chapter") == [] and notation_link_problems(cells) == []

    assert box_problems(_cells(good.replace("What you will learn", "Overview")))[0].startswith(
        "does not open with an admonition titled"
    )
    assert box_problems(_cells(good.replace("- tell a third from a fourth.\n", ""))) == [
        "the box lists 2 outcomes, not 3-5"
    ]
    assert box_problems(_cells(good.replace("**Reading time:** 30 min. ", ""))) == [
        "the box has no '**Reading time:** N min'"
    ]
    three = _GOOD.replace("EXERCISES", "".join(_EXERCISE.format(i=i) for i in range(3)))
    assert exercise_problems(_cells(three)) == ["3 exercises, fewer than 4"]
    unfolded = good.replace(":class: dropdown\nDone.", "Done.", 1)
    assert exercise_problems(_cells(unfolded)) == ["exercise ex-0 has no {solution} in a dropdown"]
    no_check = good.replace(":tags: [exercise-check]", ":tags: [hide-input]")
    assert exercise_problems(_cells(no_check)) == ["no code cell tagged 'exercise-check'"]
    one_cite = good.replace(" and {cite}`engel2001statistical`", "")
    assert closing_problems(_cells(one_cite), keys)[0].startswith(
        "the further reading cites 1 entries"
    )
    after = good + "\n## More\n\nText.\n"
    assert closing_problems(_cells(after), keys) == [
        "the chapter goes on after its summary: ['More']"
    ]
    named = good.replace("Adam {cite:p}`kingma2015adam` trains it", "Adam trains it on HiGHS")
    assert [p.split(" but")[0] for p in citation_problems(_cells(named), "09_chapter")] == [
        "names Adam (Kingma & Ba)", "names HiGHS"
    ]  # fmt: skip
    assert citation_problems(_cells(good), "07_bridge") == [
        "must cite Geva et al. 2021, feed-forward layers as key-value memories "
        "(one of ['geva2021transformer'])"
    ]
    assert notation_link_problems(_cells(good.replace("{doc}`notation <notation>`", "table")))


# ------------------------------------------------------------------ on the executed chapters


def check_cell_problems(nb) -> list[str]:
    """Check cells of an executed notebook that did not print 'right:' or printed 'not yet:'."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "exercise-check" not in cell.metadata.get("tags", []):
            continue
        text = "".join(
            out.get("text", "") if out.get("output_type") == "stream"
            else "".join(out.get("data", {}).get("text/plain", ""))
            for out in cell.get("outputs", [])
        )  # fmt: skip
        lines = [line.strip() for line in text.splitlines()]
        if any(line.startswith("not yet:") for line in lines):
            problems.append(f"cell {i} printed 'not yet:'")
        elif not any(line.startswith("right:") for line in lines):
            problems.append(f"cell {i} printed no 'right:' line")
    return problems


def test_the_check_cell_reader_tells_right_from_not_yet() -> None:
    def nb(*texts: str):
        cells = []
        for text in texts:
            cell = nbformat.v4.new_code_cell("check_answer(x, 1)")
            cell.metadata["tags"] = ["exercise-check"]
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
            cells.append(cell)
        cells.append(nbformat.v4.new_code_cell("print('not yet: an ordinary cell')"))
        return nbformat.v4.new_notebook(cells=cells)

    assert check_cell_problems(nb("right: x = 1 matches the reference 1.\n")) == []
    assert check_cell_problems(nb("right: ok\n", "not yet: x: 2 is off by 1.\n")) == [
        "cell 1 printed 'not yet:'"
    ]
    assert check_cell_problems(nb("")) == ["cell 0 printed no 'right:' line"]


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_executed_check_cells_said_right(md: Path) -> None:
    path = EXECUTED / md.with_suffix(".ipynb").name
    if not path.exists():
        if REQUIRE:
            pytest.fail(f"no executed chapter {path} (ASSOCMEM_REQUIRE_GLUE=1)")
        pytest.skip(f"no executed chapter {path} (build the book first)")
    problems = check_cell_problems(nbformat.read(path, as_version=4))
    assert not problems, f"{path.name}: " + "; ".join(problems)
