"""Every interval a chapter glues is a real interval: low < high, from at least two units.

An :class:`assocmem.estimate.Estimate` glues as ``key``, ``key_lo``, ``key_hi`` and ``key_n``
(``assocmem.pages.glue_all``). For every glued pair ``<key>_lo``/``<key>_hi`` of an executed
chapter this test asks that both are finite numbers with ``low < high`` and, where ``<key>_n`` is
glued too, that ``n >= 2`` (an interval from one resampling unit, or a proportion of 3 of 3 shown
as [1, 1], is no interval). An exception needs an entry in ``ALLOWED`` with the reason the page
gives the reader.

The glued values come from the executed book: the strict build writes each chapter's glue data to
``_build/jupyter_execute/book/<chapter>.glue.json`` (myst-nb; ``ASSOCMEM_GLUE_DIR`` overrides the
folder). Without a build the chapter checks are skipped, except under
``ASSOCMEM_REQUIRE_GLUE=1``, where CI runs them after its build (.ci/run) and a missing build is
an error. The checker itself is tested on made-up glue data in every run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _book_checks import INTERVAL_EXCEPTIONS, ROOT, chapter_sources, interval_problems

GLUE_DIR = Path(os.environ.get("ASSOCMEM_GLUE_DIR") or ROOT / "_build" / "jupyter_execute" / "book")
REQUIRE = os.environ.get("ASSOCMEM_REQUIRE_GLUE") == "1"

ALLOWED = INTERVAL_EXCEPTIONS


def test_the_checker_catches_degenerate_intervals_and_spares_allowed_ones() -> None:
    good = {"a": "0.5", "a_lo": "0.4", "a_hi": "0.6", "a_n": "20"}
    assert interval_problems(good) == []
    assert interval_problems({"b_lo": 1.0, "b_hi": 1.0, "b_n": 3}) == [
        "b: interval [1.0, 1.0] has low >= high"
    ]
    assert interval_problems({"c_lo": "0.1", "c_hi": "0.9", "c_n": "1"}) == [
        "c: interval from n = 1.0 unit(s), fewer than 2"
    ]
    assert interval_problems({"d_lo": "nan", "d_hi": "0.2"}) == [
        "d: interval [nan, 0.2] is not finite"
    ]
    entry = {"data": {"text/plain": "0.3"}}
    assert interval_problems({"e_lo": entry, "e_hi": entry}) == [
        "e: interval [0.3, 0.3] has low >= high"
    ]
    prefixed = {"data": {"application/papermill.record/text/plain": "0.7"}}
    assert interval_problems({"h_lo": entry, "h_hi": prefixed}) == []
    assert interval_problems({"f_lo": "0", "f_hi": "0"}, allowed={"f"}) == []
    assert interval_problems({"g_lo": "0.1"}) == []  # no pair, no interval


def test_every_allowed_exception_names_a_chapter() -> None:
    stems = {p.stem for p in chapter_sources()}
    unknown = sorted({stem for stem, _ in ALLOWED} - stems)
    assert not unknown, f"ALLOWED names no chapter: {unknown}"
    assert all(reason.strip() for reason in ALLOWED.values())


CHAPTERS = [p.stem for p in chapter_sources()]
if REQUIRE and not any((GLUE_DIR / f"{c}.glue.json").exists() for c in CHAPTERS):
    raise RuntimeError(f"glued-interval checks required but no glue data in {GLUE_DIR}")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_glued_intervals_are_intervals(chapter: str) -> None:
    path = GLUE_DIR / f"{chapter}.glue.json"
    if "glue" not in (ROOT / "book" / f"{chapter}.md").read_text(encoding="utf-8"):
        pytest.skip(f"{chapter} glues nothing (myst-nb writes no glue data for it)")
    if not path.exists():
        if REQUIRE:
            pytest.fail(f"no glue data for {chapter} in {GLUE_DIR} (was the book built?)")
        pytest.skip(f"no executed chapter in {GLUE_DIR} (run `jupyter-book build .` first)")
    glue = json.loads(path.read_text(encoding="utf-8"))
    allowed = {key for stem, key in ALLOWED if stem == chapter}
    problems = interval_problems(glue, allowed)
    assert not problems, f"{chapter}: " + "; ".join(problems)
    stale = sorted(k for k in allowed if k + "_lo" not in glue)
    assert not stale, f"{chapter}: ALLOWED keys the page no longer glues: {stale}"
