"""The book's reference apparatus (issue 50): bibliography, glossary, notation and index.

* ``book/references.bib``: every entry is complete (authors, title, year, a venue, and a DOI,
  arXiv id, ISBN or URL), there are at least :data:`MIN_ENTRIES`, and the sources issue 50 names
  are among them;
* ``book/glossary.md``: at least :data:`MIN_TERMS` terms, each defined once, each definition naming
  the chapter that introduces it; the glossary and notation pages are in ``_toc.yml``;
* the built index (``_build/html/genindex.html``; skipped without a build, required under
  ``ASSOCMEM_REQUIRE_HTML=1``) lists at least :data:`MIN_INDEX_ENTRIES` entries, the glossary's
  terms and the pages' ``{index}`` entries among them, and the sidebar of every page links it.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _book_checks import ROOT, toc_files
from pybtex.database import parse_file

BIB = ROOT / "book" / "references.bib"
GLOSSARY = ROOT / "book" / "glossary.md"
HTML = Path(os.environ.get("ASSOCMEM_HTML_DIR") or ROOT / "_build" / "html")
REQUIRE_HTML = os.environ.get("ASSOCMEM_REQUIRE_HTML") == "1"
MIN_ENTRIES = 25
MIN_TERMS = 40
MIN_INDEX_ENTRIES = 30
VENUE_FIELDS = ("journal", "booktitle", "publisher", "howpublished", "school", "institution")
ID_FIELDS = ("doi", "eprint", "isbn", "url")
#: The sources issue 50 names, by what the issue calls them.
ISSUE_SOURCES = {
    "HAMUX (Hoover et al.)": "hoover2022hamux",
    "Yang et al. (chapter 6: separability and alignment)": "yang2025unifying",
    "contextual calibration (Zhao et al. 2021)": "zhao2021calibrate",
    "task vectors (Hendel et al. 2023)": "hendel2023incontext",
    "function vectors (Todd et al. 2024)": "todd2024function",
    "the logit lens (nostalgebraist 2020)": "nostalgebraist2020logitlens",
    "the statistical dimension (Amelunxen et al. 2014)": "amelunxen2014living",
    "Daleckii-Krein": "daleckii1965integration",
    "Marchenko-Pastur (1967)": "marchenko1967distribution",
    "Wilson's interval (1927)": "wilson1927probable",
    "a replica textbook (Engel & Van den Broeck 2001)": "engel2001statistical",
    "a replica textbook (Mezard, Parisi & Virasoro 1987)": "mezard1987spin",
    "Geva et al. 2021 (feed-forward layers are key-value memories)": "geva2021transformer",
    "Okabe & Ito (the palette)": "okabe2008color",
}


def entry_problems(key: str, entry) -> list[str]:
    """What a bibliography entry lacks: authors, title, year, a venue, an identifier."""
    f = {k.lower(): v for k, v in entry.fields.items()}
    missing = []
    if not (entry.persons.get("author") or entry.persons.get("editor")):
        missing.append("authors")
    missing += [field for field in ("title", "year") if not f.get(field, "").strip()]
    arxiv = f.get("archiveprefix", "").lower() == "arxiv" and f.get("eprint")
    if not (any(f.get(v) for v in VENUE_FIELDS) or arxiv):
        missing.append("a venue (" + ", ".join(VENUE_FIELDS) + ", or an arXiv eprint)")
    if not any(f.get(i) for i in ID_FIELDS):
        missing.append("a DOI, arXiv id, ISBN or URL")
    if f.get("eprint") and not re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", f["eprint"]):
        missing.append(f"an arXiv id of the form 2605.10795 (eprint = {f['eprint']!r})")
    return [f"{key}: no {m}" if not m.startswith("an arXiv id") else f"{key}: {m}" for m in missing]


def test_every_bibliography_entry_is_complete_and_there_are_enough() -> None:
    entries = parse_file(str(BIB), bib_format="bibtex").entries
    problems = [p for key, entry in entries.items() for p in entry_problems(key, entry)]
    assert not problems, "incomplete entries in book/references.bib:\n" + "\n".join(problems)
    assert len(entries) >= MIN_ENTRIES, f"{len(entries)} entries, fewer than {MIN_ENTRIES}"


def test_the_sources_the_issue_names_are_in_the_bibliography() -> None:
    keys = set(parse_file(str(BIB), bib_format="bibtex").entries)
    missing = {what: key for what, key in ISSUE_SOURCES.items() if key not in keys}
    assert not missing, f"not in book/references.bib: {missing}"


def test_the_completeness_check_catches_a_short_entry() -> None:
    from pybtex.database import parse_string

    db = parse_string(
        "@misc{a, author = {Barnfield and Kim}, title = {T}, year = {2026}}\n"
        "@article{b, title = {T}, journal = {J}, year = {1990}, doi = {10.1/x}}\n"
        "@misc{c, author = {A, B}, title = {T}, year = {2020}, eprint = {2605.1}, "
        "archivePrefix = {arXiv}}\n",
        "bibtex",
    )
    assert entry_problems("a", db.entries["a"]) == [
        "a: no a venue (journal, booktitle, publisher, howpublished, school, institution, "
        "or an arXiv eprint)",
        "a: no a DOI, arXiv id, ISBN or URL",
    ]
    assert entry_problems("b", db.entries["b"]) == ["b: no authors"]
    assert entry_problems("c", db.entries["c"]) == [
        "c: an arXiv id of the form 2605.10795 (eprint = '2605.1')"
    ]


def glossary_terms(text: str) -> dict[str, str]:
    """Each term of the glossary directives of ``text`` with its definition (aliases share one)."""
    terms: dict[str, str] = {}
    blocks = re.findall(r"^(`{3,}|:{3,})\{glossary\}[^\n]*\n(.*?)^\1\s*$", text, flags=re.M | re.S)
    for _, body in blocks:
        body = re.sub(r"^:\w+:.*$", "", body, flags=re.M)
        for entry in re.split(r"\n\s*\n", body.strip("\n")):
            lines = entry.split("\n")
            names = [ln.strip() for ln in lines if ln.strip() and not ln.startswith((" ", "\t"))]
            definition = " ".join(ln.strip() for ln in lines if ln.startswith((" ", "\t")))
            for name in names:
                assert name not in terms, f"glossary term {name!r} defined twice"
                terms[name] = definition
    return terms


def test_the_glossary_defines_the_course_terms_with_their_chapter() -> None:
    terms = glossary_terms(GLOSSARY.read_text(encoding="utf-8"))
    assert len(terms) >= MIN_TERMS, f"{len(terms)} glossary terms, fewer than {MIN_TERMS}"
    no_chapter = [t for t, d in terms.items() if not re.search(r"\{doc\}`[^`]*0[1-7]_\w+>?`", d)]
    assert not no_chapter, f"terms whose definition names no chapter: {no_chapter}"
    short = [t for t, d in terms.items() if len(d.split()) < 8]
    assert not short, f"terms without a real definition: {short}"
    for needed in ("load", "capacity", "OP", "DP", "Hebbian rule", "replica-symmetric",
                   "Gardner volume", "finite-size correction", "margin", "max-margin memory",
                   "implicit bias", "quarter-circle law", "truncation", "rank ratio", "gate",
                   "context vector", "additive score", "N_eff", "logit lens", "ICL", "zero-shot",
                   "calibration", "bootstrap", "Wilson interval", "verdict"):  # fmt: skip
        assert needed in terms, f"the glossary lacks {needed!r}"


def test_the_glossary_reader_sees_aliases_and_definitions() -> None:
    text = (
        "```{glossary}\n:sorted:\n\nload\n  The load, chapter one.\n\nOP\noriginal\n  Two.\n```\n"
    )
    assert glossary_terms(text) == {
        "load": "The load, chapter one.",
        "OP": "Two.",
        "original": "Two.",
    }


def test_the_reference_pages_are_in_the_table_of_contents() -> None:
    toc = toc_files()
    for page in ("book/notation", "book/glossary", "book/references"):
        assert page in toc, f"_toc.yml does not list {page}"


# ------------------------------------------------------------------------- the built index


def _built(name: str) -> Path:
    path = HTML / name
    if not path.exists():
        if REQUIRE_HTML:
            pytest.fail(f"no built {path} (ASSOCMEM_REQUIRE_HTML=1)")
        pytest.skip(f"no built {path} (run `jupyter-book build .` first)")
    return path


class _IndexEntries(HTMLParser):
    """The entries of Sphinx's genindex.html: the links inside its index tables."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # inside table.indextable
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "indextable" in (a.get("class") or ""):
            self.depth += 1
        elif tag == "a" and self.depth and a.get("href"):
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1


def index_links(html: str) -> list[str]:
    parser = _IndexEntries()
    parser.feed(html)
    return parser.links


def test_the_index_reader_counts_only_index_entries() -> None:
    html = (
        '<a href="book/x.html">nav</a><table class="indextable genindextable"><tr><td><ul>'
        '<li><a href="book/glossary.html#term-load">load</a></li>'
        '<li>capacity<ul><li><a href="book/01.html#index-0">of a memory</a></li></ul></li>'
        "</ul></td></tr></table>"
    )
    assert index_links(html) == ["book/glossary.html#term-load", "book/01.html#index-0"]


def test_the_index_lists_the_terms_and_the_index_entries() -> None:
    links = index_links(_built("genindex.html").read_text(encoding="utf-8"))
    assert len(links) >= MIN_INDEX_ENTRIES, f"the index lists {len(links)} entries"
    assert any("glossary.html#term-" in href for href in links), "no glossary term in the index"
    assert any("#index-" in href for href in links), "no {index} entry of a page in the index"


def test_every_page_links_the_index_in_its_sidebar() -> None:
    intro = _built("book/00_intro.html")
    pages = sorted(intro.parent.glob("*.html"))
    missing = [
        p.name
        for p in pages
        if not re.search(
            r'<a class="reference internal" href="\.\./genindex\.html">Index</a>',
            p.read_text(encoding="utf-8"),
        )  # fmt: skip
    ]
    assert not missing, f"pages whose sidebar does not link the index: {missing}"
