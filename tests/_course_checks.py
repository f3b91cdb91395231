"""Checks that a chapter reads as a lesson (issue 50), shared by the tests (and usable by hand).

Each checker takes a page's Markdown (or its cells) and returns a list of human-readable problems,
empty when all is well, so a test can assert that a chapter is clean and that a broken copy is
caught. The conventions they check are the skeleton of STYLE.md's "A chapter is a lesson":

* the chapter opens (after its title and the hidden Colab cell) with an admonition titled
  "What you will learn": 3 to 5 outcomes as a list, "**You need:**", "**Reading time:** N min",
  and a word on which cells run long or want a GPU;
* at least :data:`MIN_EXERCISES` ``{exercise}`` directives, each with a ``:label:`` and a
  ``{solution}`` of that label folded (``:class: dropdown``), and at least one code cell tagged
  ``exercise-check`` that calls ``check_answer``;
* the chapter ends with a "Summary" section and a "Further reading" part after it that cites at
  least :data:`MIN_FURTHER_READING` entries of ``book/references.bib``;
* a source the chapter names (an author, a method, a data set: :data:`NAMED_SOURCES`) is cited in
  the same chapter;
* the chapter links the book's notation page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import jupytext
import nbformat
from _book_checks import ROOT, is_paired

BOX_TITLE = "What you will learn"
MIN_OUTCOMES, MAX_OUTCOMES = 3, 5
MIN_EXERCISES = 4
MIN_FURTHER_READING = 2
CHECK_TAG = "exercise-check"
BIB = ROOT / "book" / "references.bib"

#: ``{cite}`a,b```, ``{cite:p}`a```, ``{cite:t}`a``` ...: the keys cited.
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
#: A fenced directive and its body: ```` ```{name} argument ```` (backticks or colons, any length).
DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.M | re.S,
)

#: Sources a chapter may name, each with the bibliography keys that cite it (any one will do):
#: ``(what the test looks for, regular expression on the chapter's prose, keys)``. The prose is
#: the page's Markdown without code cells (a name may break across lines: ``\s+`` between words);
#: the match is case-sensitive unless the pattern says otherwise.
NAMED_SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("HAMUX (Hoover et al.)", r"HAMUX", ("hoover2022hamux",)),
    ("Yang et al. (separability and alignment)", r"Yang\s+et\s+al", ("yang2025unifying",)),
    (
        "contextual calibration (Zhao et al.)",
        r"(?i)contextual\s+calibration|Zhao\s+et\s+al",
        ("zhao2021calibrate",),
    ),
    ("task vectors (Hendel et al.)", r"(?i)task[-\s]+vector", ("hendel2023incontext",)),
    ("function vectors (Todd et al.)", r"(?i)function[-\s]+vector", ("todd2024function",)),
    ("the logit lens (nostalgebraist)", r"(?i)logit\s+lens", ("nostalgebraist2020logitlens",)),
    (
        "the statistical dimension (Amelunxen et al.)",
        r"(?i)statistical\s+dimension",
        ("amelunxen2014living",),
    ),
    ("Daleckii–Krein", r"Dalecki", ("daleckii1965integration",)),
    ("Marchenko–Pastur", r"Marchenko|Marčenko", ("marchenko1967distribution",)),
    ("Wilson's interval", r"Wilson", ("wilson1927probable",)),
    (
        "the replica method (a textbook)",
        r"(?i)replica\s+(trick|method)",
        ("engel2001statistical", "mezard1987spin"),
    ),
    ("Geva et al. (key-value memories)", r"Geva|(?i:key-value\s+memor)", ("geva2021transformer",)),
    ("Okabe–Ito", r"Okabe", ("okabe2008color",)),
    ("Gardner", r"Gardner", ("gardner1988",)),
    ("Hopfield network", r"Hopfield\s+network", ("hopfield1982", "ramsauer2021hopfield")),
    (
        "modern Hopfield networks (Ramsauer et al.)",
        r"(?i)modern\s+Hopfield|Ramsauer",
        ("ramsauer2021hopfield",),
    ),
    ("Adam (Kingma & Ba)", r"\bAdam\b", ("kingma2015adam",)),
    ("HiGHS", r"HiGHS", ("huangfu2018parallelizing",)),
    ("Lyu & Li", r"Lyu", ("lyu2020gradient",)),
    ("Soudry et al.", r"Soudry", ("soudry2018implicit",)),
    ("Barnfield et al.", r"Barnfield", ("barnfield2026sharp",)),
    ("Nichani et al.", r"Nichani", ("nichani2025understanding",)),
    ("Allen-Zhu & Li", r"Allen-Zhu", ("allenzhu2024physics",)),
    ("Morris et al.", r"Morris\s+et\s+al", ("morris2025much",)),
    ("Bietti et al.", r"Bietti", ("bietti2023birth",)),
    ("LAMA (Petroni et al.)", r"\bLAMA\b", ("petroni2019language",)),
    ("ParaRel (Elazar et al.)", r"ParaRel", ("elazar2021measuring",)),
    ("SST-2 (Socher et al.)", r"SST-2", ("socher2013recursive",)),
    ("AG-News (Zhang et al.)", r"AG[-\s]News", ("zhang2015character",)),
    ("TREC question classification (Li & Roth)", r"\bTREC\b", ("li2002learning",)),
)

#: Sources the issue asks a chapter to cite although its prose need not name them.
REQUIRED_CITATIONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "02_replica_capacity": (
        ("a replica-method textbook", ("engel2001statistical", "mezard1987spin")),
    ),
    "07_bridge": (("Geva et al. 2021, feed-forward layers as key-value memories",
                   ("geva2021transformer",)),),
}  # fmt: skip


def chapter_cells(md: Path) -> list:
    """The cells of a page (jupytext), or one markdown cell holding a plain page."""
    if not is_paired(md):
        return [nbformat.v4.new_markdown_cell(md.read_text(encoding="utf-8"))]
    return list(jupytext.read(md).cells)


def prose(cells: Sequence) -> str:
    """The Markdown a reader sees: the markdown cells, joined."""
    return "\n\n".join(c.source for c in cells if c.cell_type == "markdown")


def bib_keys(path: Path = BIB) -> set[str]:
    """The keys of the book's bibliography."""
    return set(re.findall(r"^@\w+\{([^,\s]+),", path.read_text(encoding="utf-8"), flags=re.M))


def cited(markdown: str) -> list[str]:
    """Every key cited in ``markdown``, in order (a key cited twice appears twice)."""
    return [k.strip() for m in CITE.finditer(markdown) for k in m.group(1).split(",") if k.strip()]


def _tags(cell) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _opening(cells: Sequence) -> str:
    """What a reader meets first after the title: the text after the H1, hidden cells skipped."""
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        m = re.search(r"^# .*$", cell.source, flags=re.M)
        if not m:
            continue
        rest = cell.source[m.end() :].strip()
        if rest:
            return rest
        for later in cells[i + 1 :]:
            if later.cell_type == "code" and "remove-cell" in _tags(later):
                continue
            if later.cell_type == "markdown" and not later.source.strip():
                continue
            return later.source.strip() if later.cell_type == "markdown" else ""
        return ""
    return ""


def box_problems(cells: Sequence) -> list[str]:
    """Problems with the chapter's opening box (see the module docstring); [] when it is right."""
    opening = _opening(cells)
    m = DIRECTIVE.match(opening)
    if not m or m.group("name") != "admonition" or m.group("arg").strip() != BOX_TITLE:
        first = opening.split("\n", 1)[0][:70]
        return [f"does not open with an admonition titled {BOX_TITLE!r} (first: {first!r})"]
    body = m.group("body")
    problems = []
    outcomes = re.findall(r"^(?:[-*+]|\d+\.)\s+\S", body, flags=re.M)
    if not MIN_OUTCOMES <= len(outcomes) <= MAX_OUTCOMES:
        problems.append(
            f"the box lists {len(outcomes)} outcomes, not {MIN_OUTCOMES}-{MAX_OUTCOMES}"
        )
    if not re.search(r"\*\*You need:?\*\*", body):
        problems.append("the box has no '**You need:**'")
    if not re.search(r"\*\*Reading time:?\*\*:?\s*(about\s+)?\d+(\.\d+)?\s*(min|h)", body):
        problems.append("the box has no '**Reading time:** N min'")
    if "GPU" not in body:
        problems.append("the box does not say which cells run long or want a GPU")
    return problems


def reading_time(cells: Sequence) -> str | None:
    """The reading time the box states (``"45 min"``), or None."""
    m = DIRECTIVE.match(_opening(cells))
    if not m:
        return None
    t = re.search(r"\*\*Reading time:?\*\*:?\s*(?:about\s+)?(\d+(?:\.\d+)?\s*(?:min|h))", m["body"])
    return re.sub(r"\s+", " ", t.group(1)) if t else None


def exercise_problems(cells: Sequence) -> list[str]:
    """Problems with the exercises and check cells; [] when the chapter meets the skeleton."""
    text = prose(cells)
    found = [d for d in DIRECTIVE.finditer(text) if d.group("name") in ("exercise", "solution")]
    exercises = [d for d in found if d.group("name") == "exercise"]
    solutions = [d for d in found if d.group("name") == "solution"]
    problems = []
    if len(exercises) < MIN_EXERCISES:
        problems.append(f"{len(exercises)} exercises, fewer than {MIN_EXERCISES}")
    folded = {
        d.group("arg").strip()
        for d in solutions
        if re.search(r"^:class:.*\bdropdown\b", d.group("body"), flags=re.M)
    }
    for d in exercises:
        label = re.search(r"^:label:\s*(\S+)", d.group("body"), flags=re.M)
        name = d.group("arg").strip() or "(untitled)"
        if not label:
            problems.append(f"exercise {name!r} has no :label:")
        elif label.group(1) not in folded:
            problems.append(f"exercise {label.group(1)} has no {{solution}} in a dropdown")
    checks = [c for c in cells if c.cell_type == "code" and CHECK_TAG in _tags(c)]
    if not checks:
        problems.append(f"no code cell tagged {CHECK_TAG!r}")
    problems += [
        f"the {CHECK_TAG} cell {c.source.strip()[:40]!r} does not call check_answer"
        for c in checks
        if "check_answer(" not in c.source
    ]
    return problems


def closing_problems(cells: Sequence, keys: Iterable[str]) -> list[str]:
    """Problems with the Summary and Further reading at the chapter's end; [] when right."""
    text = prose(cells)
    heads = [(m.start(), m.group(1)) for m in re.finditer(r"^##\s+(.+)$", text, flags=re.M)]
    summary = [i for i, (_, h) in enumerate(heads) if re.search(r"(?i)summary", h)]
    if not summary:
        return ["no '## Summary' section"]
    after = heads[summary[-1] + 1 :]
    strays = [h for _, h in after if not re.search(r"(?i)further reading", h)]
    if strays:
        return [f"the chapter goes on after its summary: {strays}"]
    tail = text[heads[summary[-1]][0] :]
    marker = re.search(r"(?im)^(#{2,3}\s+.*further reading|\*\*further reading)", tail)
    if not marker:
        return ["no 'Further reading' after the summary"]
    known = set(keys)
    reading = [k for k in dict.fromkeys(cited(tail[marker.start() :])) if k in known]
    if len(reading) < MIN_FURTHER_READING:
        return [
            f"the further reading cites {len(reading)} entries of references.bib "
            f"({reading}), fewer than {MIN_FURTHER_READING}"
        ]
    return []


def citation_problems(cells: Sequence, chapter: str) -> list[str]:
    """Sources the chapter names, or must cite, without a {cite} of them in the chapter."""
    text = prose(cells)
    keys = set(cited(text))
    problems = [
        f"names {what} but cites none of {list(want)}"
        for what, pattern, want in NAMED_SOURCES
        if re.search(pattern, text) and not keys & set(want)
    ]
    problems += [
        f"must cite {what} (one of {list(want)})"
        for what, want in REQUIRED_CITATIONS.get(chapter, ())
        if not keys & set(want)
    ]
    return problems


def notation_link_problems(cells: Sequence) -> list[str]:
    """[] when the chapter links the notation page ({doc}`notation` or a Markdown link to it)."""
    if re.search(r"\{doc\}`(?:[^`<]*<)?/?(?:book/)?notation>?`|\]\((?:\./)?notation(?:\.md)?\)",
                 prose(cells)):  # fmt: skip
        return []
    return ["does not link the notation page ({doc}`notation`)"]
