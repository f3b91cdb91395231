"""Every interval a chapter glues is a real interval: low < high, from at least two units.

An :class:`assocmem.stats.Estimate` glues as ``key``, ``key_lo``, ``key_hi`` and ``key_n``
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
import math
import os
from pathlib import Path

import pytest
from _book_checks import ROOT, chapter_sources

GLUE_DIR = Path(os.environ.get("ASSOCMEM_GLUE_DIR") or ROOT / "_build" / "jupyter_execute" / "book")
REQUIRE = os.environ.get("ASSOCMEM_REQUIRE_GLUE") == "1"

#: (chapter stem, glued key without _lo/_hi) -> why the page may show this interval as it is.
ALLOWED: dict[tuple[str, str], str] = {
    **{
        ("05_context_gated_memory", f"hy_down_{tag}"): (
            "every memory set stays in its winner state down to the grid's lower end: the value "
            "is a bound, and the page says the interval is empty"
        )
        for tag in ("15", "2", "25")
    },
    **{
        ("03_hebbian_vs_optimal", key): (
            "every instance at that load has the same accuracy: no interval can be formed, and "
            "the page's table says 'all n equal' (the prose does not quote it)"
        )
        for key in ("ab_0_tr", "ab_1_sub", "ab_2_sub")
    },
}


def _number(value: object) -> float:
    """A glued value (myst-nb stores text/plain) as a float; NaN when it is not a number."""
    if isinstance(value, dict):  # a glue.json entry: {"data": {"text/plain": "0.5"}, ...}
        data = value.get("data", {})  # (in a notebook's own output the key carries a prefix)
        value = next((v for k, v in data.items() if k.endswith("text/plain")), "nan")
    try:
        return float(str(value).strip().strip("'\""))
    except ValueError:
        return math.nan


def interval_problems(glue: dict[str, object], allowed: set[str] = frozenset()) -> list[str]:
    """Glued intervals that are not real intervals, as readable lines (empty when all are fine).

    Parameters
    ----------
    glue : dict of str to object
        Glued key -> value (a number, its text, or a glue.json entry).
    allowed : set of str
        Interval keys (without ``_lo``/``_hi``) that may break the rules.
    """
    problems = []
    for key in sorted(glue):
        if not key.endswith("_lo") or key[:-3] + "_hi" not in glue:
            continue
        base = key[:-3]
        if base in allowed:
            continue
        lo, hi = _number(glue[key]), _number(glue[base + "_hi"])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            problems.append(f"{base}: interval [{lo}, {hi}] is not finite")
        elif not lo < hi:
            problems.append(f"{base}: interval [{lo}, {hi}] has low >= high")
        if base + "_n" in glue:
            n = _number(glue[base + "_n"])
            if not n >= 2:
                problems.append(f"{base}: interval from n = {n} unit(s), fewer than 2")
    return problems


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
