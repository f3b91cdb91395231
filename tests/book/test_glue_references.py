"""Glue that is checked without executing the book, and against the executed book (issue 38).

(a) Static, always: every page's ``{glue}`` references are well-formed (a role or directive
myst-nb knows, an identifier key, a format spec that formats a number, the rendered text of an
estimate ``<label>_ci`` quoted without one); the book quotes at most ``MAX_FRAGMENTS`` parts of
intervals (references to keys ending ``_lo``, ``_hi`` or ``_n``: a bound or an n quoted alone,
where a sentence needs it; an interval is quoted whole by ``<label>_ci``). (That
:func:`assocmem.keys.glue_key` gives distinct values distinct keys: tests/shared/test_keys.py.)

(b) On the executed book (the strict build writes each chapter's glue data to
``_build/jupyter_execute/book/<chapter>.glue.json``; ``ASSOCMEM_GLUE_DIR`` overrides the folder;
skipped without a build unless ``ASSOCMEM_REQUIRE_GLUE=1``, as in test_glued_intervals.py): every
reference on a page resolves to a key the page glues, and every glued key is used: referenced,
or one of the keys of a referenced Estimate (``k``, ``k_ci``, ``k_n``, ``k_lo``, ``k_hi``), or on
the page's list in ``UNREFERENCED`` with the reason.

(c) During the book's build (``ASSOCMEM_PAGE_BUILD`` set) ``assocmem.pages.glue`` refuses a key
glued twice with different values in one page's execution; re-running a cell in Jupyter stays
allowed.

Each checker is also run on made-up data, to show that it can fail.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import pytest
from _book_checks import (
    FRAGMENT,
    ROOT,
    chapter_sources,
    estimate_families,
    glue_reference_problems,
    glue_references,
    glue_usage_problems,
    page_markdown,
    toc_files,
)
from assocmem import keys, pages
from assocmem.estimate import Estimate
from assocmem.stats import rate

PAGES = [ROOT / f"{doc}.md" for doc in toc_files()]
GLUE_DIR = Path(os.environ.get("ASSOCMEM_GLUE_DIR") or ROOT / "_build" / "jupyter_execute" / "book")
REQUIRE = os.environ.get("ASSOCMEM_REQUIRE_GLUE") == "1"

#: The book's budget of interval parts quoted alone (issue 38: at most 40 in ``book/*.md``).
MAX_FRAGMENTS = 40
#: Chapters 0-5 and the appendix: at most 25 of them (chapter 6 at most 12, its own issue).
MAX_FRAGMENTS_BEFORE_6 = 25

# ------------------------------------------------------------------------- (a) static checks


@pytest.mark.parametrize("md", PAGES, ids=lambda p: p.name)
def test_glue_references_are_well_formed(md: Path) -> None:
    problems = glue_reference_problems(page_markdown(md))
    assert not problems, f"{md.name}: " + "; ".join(problems)


def test_the_well_formed_check_catches_broken_references() -> None:
    good = (
        "{glue:text}`a_ci`, {glue:text}`b:.3f`, {glue:text}`n:d`, {glue}`c`, {glue:md}`d`\n"
        "```{glue:figure} fig_1\n:name: x\n```\n"
    )
    assert glue_reference_problems(good) == []
    assert [k for _, k, _ in glue_references(good)] == ["a_ci", "b", "n", "c", "d", "fig_1"]
    bad = {
        "{glue:txt}`a`": "unknown glue role {glue:txt}",
        "{glue:text}`a b`": "key 'a b' is not an identifier",
        "{glue:text}`a_ci:.3f`": "a_ci is rendered text, quote it without a spec",
        "{glue:text}`a:.3q`": "'.3q' is not a format spec for a number",
        "{glue}`a:.3f`": "a format spec needs {glue:text}",
        "{glue:text}a_ci": "unparsable glue reference",
        "{glue:text}``": "key '' is not an identifier",
        "```{glue:figur} f\n```": "unknown glue directive {glue:figur}",
    }
    for text, message in bad.items():
        problems = glue_reference_problems(text)
        assert any(message in p for p in problems), (text, problems)


def fragment_count(pages_: list[Path]) -> int:
    """References to interval parts (issue 38's grep) over the pages' Markdown sources."""
    return sum(len(FRAGMENT.findall(p.read_text(encoding="utf-8"))) for p in pages_)


def test_the_fragment_count_is_issue_38s_grep() -> None:
    text = (
        "{glue:text}`a_ci` {glue:text}`a_lo:.3f` {glue:text}`a_hi` {glue:text}`a_n` "
        "{glue}`b_n` {glue:text}`n_seeds:d` {glue:text}`a_lower` {glue:text}`lo_x`"
    )
    assert len(FRAGMENT.findall(text)) == 4  # a_lo, a_hi, a_n, b_n


def test_the_book_quotes_few_interval_parts_alone() -> None:
    book = sorted((ROOT / "book").glob("*.md"))
    before_6 = [p for p in book if not p.name.startswith("06")]
    count = fragment_count(before_6)
    assert count <= MAX_FRAGMENTS_BEFORE_6, (
        f"chapters 0-5 and A1 quote {count} interval parts (keys ending _lo, _hi, _n) alone, "
        f"more than {MAX_FRAGMENTS_BEFORE_6}: quote an interval by its <label>_ci"
    )
    total = fragment_count(book)
    assert total <= MAX_FRAGMENTS, (
        f"book/*.md quotes {total} interval parts alone, more than {MAX_FRAGMENTS} (issue 38)"
    )


# ------------------------------------------------------------ (b) on the executed book

#: Glued keys a page may leave unreferenced (``fnmatch`` patterns), per chapter, with the reason.
UNREFERENCED: dict[str, dict[str, str]] = {
    "01_linear_memory": {
        "bias_cos_*_mid*": "the cosines at the middle step: the figure's right panel shows them, "
        "the prose quotes the ratios there and the cosines at the end",
        "diff_*": "mean differences of m4 between the groups: the table next to the figure shows "
        "them, the prose quotes their permutation p-values",
        "pred_*": "the predicted transition at every d of the sweeps: the figure draws them all, "
        "the prose quotes d = 32 and 64",
        "mm2_min_p": "the smallest p of the spectra tests, read by the page's hidden check",
        "mminf_min_p": "the smallest p of the spectra tests, read by the page's hidden check",
        "mm*_n_tests": "tests per norm: the table lists them",
        "mm*_skipped_*": "instances the LP could not store (none; the hidden check asserts it)",
        "mminf_d": "the same d as mm2_d, which the prose quotes",
        "mminf_p": "the same p as mm2_p, which the prose quotes",
        "mminf_diff_linf": "the entrywise difference: the table shows it, the prose its p-value",
    },
    "02_replica_capacity": {
        "exact1_*_width": "interval widths at the smaller exact-LP size: the table shows them, "
        "the prose compares the widths at the larger one",
        "exact1_*_diff*": "differences from the prediction at the smaller exact-LP size: the "
        "table shows them, the prose quotes the larger size's",
        "exact1_*_v": "their verdicts: the table shows them, the prose quotes the larger size's",
        "gap_*_above": "sizes with the OP above the DP: all of them (the hidden check asserts "
        "it), so the prose says 'in all n_pairs pairs'",
        "gap_tr_min": "the trained gaps' range: the table shows it, the prose the exact LP's",
        "gap_tr_max": "the trained gaps' range: the table shows it, the prose the exact LP's",
        "gap_tr_icpt*": "the trained line's intercept: the prose quotes the exact LP's",
    },
    "03_hebbian_vs_optimal": {
        "ab_0_f*": "the cost curves at the load below capacity: the figure draws them, the prose "
        "quotes them above capacity",
        "ab_0_p1": "the Hebbian theory below capacity: the figure draws it, the prose quotes it "
        "above capacity",
        "ab_[12]_stored*": "instances with perfect recall above capacity: the table shows them, "
        "the prose quotes the accuracies there",
    },
    "04_rank_constraints": {
        "lvl_long": "the 5 % level of the KS distance per row: the causes table shows it, the "
        "prose quotes the level where it compares",
        "lvl_margin": "the 5 % level of the KS distance per row: the causes table shows it, the "
        "prose quotes the level where it compares",
        "marg_large": "the larger d's mean margin: the causes table shows it, the prose quotes "
        "its spectrum",
    },
    "05_context_gated_memory": {
        "sep_*": "accuracy and error of all four separation panels at λ = 0, 16 and σ_q = 0, 3: "
        "the figure shows them, the prose quotes five",
        "os_gap_paper_l0*": "the paper's gap at the ends of the λ grid: the right panel draws it, "
        "the prose quotes it at λ = 4",
        "os_gap_paper_l16*": "the paper's gap at the ends of the λ grid: the right panel draws "
        "it, the prose quotes it at λ = 4",
    },
    # Chapter 6 glues each model's and task's typed summary whole (TaskResult.summary,
    # LamaResult.summary); the prose quotes Gemma's SST-2, and the findings, verdict and results
    # tables show every number of every model and task.
    "06_transformers": {
        "llm_*_sst2_*": "SST-2 numbers the prose does not quote: the results and verdict "
        "tables show them",
        "llm_*_ag_news_*": "AG-News numbers the prose does not quote: the findings, verdict and "
        "results tables show them",
        "llm_*_trec_*": "TREC: as AG-News",
        "llm_*_lama_*": "LAMA counts and rates the prose does not quote: the LAMA table shows them",
    },
}


def test_the_usage_check_catches_dangling_and_unused_keys() -> None:
    glued = ["a", "a_ci", "a_n", "a_lo", "a_hi", "b", "b_ci", "b_n", "b_lo", "b_hi", "c", "d_1"]
    assert glue_usage_problems({"a_ci", "b_lo", "c"}, glued, {"d_*": "a table shows it"}) == []
    assert glue_usage_problems({"a_ci", "c", "e"}, glued, {"d_*": "why"}) == [
        "e: referenced, but the page glues no such key",
        "b: glued, but the page never references it",
        "b_ci: glued, but the page never references it",
        "b_hi: glued, but the page never references it",
        "b_lo: glued, but the page never references it",
        "b_n: glued, but the page never references it",
    ]
    assert glue_usage_problems({"a_ci", "b_ci", "c", "d_1"}, glued, {"d_*": "why"}) == [
        "d_*: listed as glued and unreferenced, but no unused key matches it"
    ]
    # without its rendered text a key is no Estimate's: its _lo is not used by its value
    assert glue_usage_problems({"x"}, ["x", "x_lo", "x_hi"]) == [
        "x_hi: glued, but the page never references it",
        "x_lo: glued, but the page never references it",
    ]
    assert estimate_families(glued)["a_n"] == {"a", "a_ci", "a_n", "a_lo", "a_hi"}


def test_every_unreferenced_list_names_a_chapter_and_a_reason() -> None:
    stems = {p.stem for p in chapter_sources()}
    assert set(UNREFERENCED) <= stems, sorted(set(UNREFERENCED) - stems)
    assert all(reason.strip() for entries in UNREFERENCED.values() for reason in entries.values())


CHAPTERS = [p.stem for p in chapter_sources()]
if REQUIRE and not any((GLUE_DIR / f"{c}.glue.json").exists() for c in CHAPTERS):
    raise RuntimeError(f"glue reference checks required but no glue data in {GLUE_DIR}")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_reference_resolves_and_every_glued_key_is_used(chapter: str) -> None:
    md = ROOT / "book" / f"{chapter}.md"
    refs = {key for _, key, _ in glue_references(page_markdown(md))}
    if not refs:
        pytest.skip(f"{chapter} references no glued value")
    path = GLUE_DIR / f"{chapter}.glue.json"
    if not path.exists():
        if REQUIRE:
            pytest.fail(f"no glue data for {chapter} in {GLUE_DIR} (was the book built?)")
        pytest.skip(f"no executed chapter in {GLUE_DIR} (run `jupyter-book build .` first)")
    glued = json.loads(path.read_text(encoding="utf-8"))
    problems = glue_usage_problems(refs, glued, UNREFERENCED.get(chapter, {}))
    assert not problems, f"{chapter}:\n" + "\n".join(problems)


# ------------------------------------------------- (c) one value per key in a page's build


@pytest.fixture
def glued(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """What myst-nb would receive; a fresh kernel's record of glued keys."""
    out: dict[str, object] = {}
    monkeypatch.setattr(pages, "_myst_glue", lambda k, v, display: out.__setitem__(k, v))
    monkeypatch.setattr(pages, "_GLUED", {})
    return out


def test_a_page_build_refuses_a_key_glued_twice_with_different_values(
    glued: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(keys.PAGE_BUILD_ENV, "1")
    pages.glue("lam_15", 0.25)
    pages.glue("lam_15", 0.25)  # the same value again: allowed
    with pytest.raises(ValueError, match="glue key 'lam_15' glued twice with different values"):
        pages.glue("lam_15", 0.5)  # what a colliding key scheme does (λ = 1.5 and 15)
    assert glued == {"lam_15": 0.25}  # the second value never reached the page
    with pytest.raises(ValueError, match="'t'"):
        pages.glue("t", "above")
        pages.glue("t", "below")
    pages.glue("nan", math.nan)
    pages.glue("nan", float("nan"))  # NaN is the same value as NaN
    frame = pd.DataFrame({"a": [1.0, math.nan]})
    pages.glue("frame", frame)
    pages.glue("frame", frame.copy())  # equal content
    with pytest.raises(ValueError, match="'frame'"):
        pages.glue("frame", frame.fillna(0))
    pages.glue_all({"acc": rate(8, 10)})
    pages.glue_all({"acc": rate(8, 10)})  # a summary glued again, unchanged
    with pytest.raises(ValueError, match="'acc_ci'"):
        pages.glue_all({"acc": rate(9, 10)})
    with pytest.raises(ValueError, match="'e'"):
        pages.glue("e", Estimate(0.5, 0.4, 0.6, 10, "Wilson"))
        pages.glue("e", Estimate(0.5, 0.4, 0.7, 10, "Wilson"))


def test_outside_the_build_a_cell_may_glue_again(
    glued: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(keys.PAGE_BUILD_ENV, raising=False)
    pages.glue("lam_15", 0.25)
    pages.glue("lam_15", 0.5)  # re-running a cell in Jupyter with another parameter
    assert glued == {"lam_15": 0.5}
