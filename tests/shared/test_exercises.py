"""Tests of assocmem.exercises: the check a computational exercise ends with."""

from __future__ import annotations

import numpy as np
import pytest
from assocmem.exercises import Check, check_answer


def test_right_answers_pass_and_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_answer(0.1245, 0.125, rtol=0.01)
    assert capsys.readouterr().out.startswith("right:")
    assert check_answer(3, 3, rtol=0)
    assert check_answer(True, np.bool_(True))
    assert check_answer("above", "above ")
    assert check_answer([1.0, 2.0], np.array([1.0, 2.001]), rtol=1e-2)
    assert check_answer(np.array([1, 2]), np.array([1, 2]), rtol=0)
    assert check_answer([0.5, "below"], [0.5, "below"])
    assert check_answer(1e-9, 0.0, atol=1e-6)


@pytest.mark.parametrize(
    ("answer", "reference", "kwargs", "why"),
    [
        (0.2, 0.125, {}, "off by 0.075"),
        (0.126, 0.125, {"rtol": 0.001}, "off by"),
        (np.nan, 0.125, {}, "not a finite number"),
        ("0.125", 0.125, {}, "expected a number"),
        (True, 1.0, {}, "expected a number"),
        (4, 3, {"rtol": 0}, "expected 3"),
        (3.0, 3, {"rtol": 0}, "expected a whole number"),
        (False, True, {}, "expected True"),
        (1, True, {}, "expected True or False"),
        ("below", "above", {}, "expected 'above'"),
        ([1.0, 2.0, 3.0], np.array([1.0, 2.0]), {}, "expected shape (2,)"),
        ([1.0, 2.5], np.array([1.0, 2.0]), {}, "1 of 2 entries are off"),
        (np.array([1, 3]), np.array([1, 2]), {"rtol": 0}, "1 of 2 entries differ"),
        ([0.5], [0.5, 1.0], {}, "sequence of 2 items"),
        ([0.5, 2.0], [0.5, 1.0], {}, "item 1"),
        (..., 0.125, {}, "not answered"),
        (None, 0.125, {}, "not answered"),
    ],
)
def test_wrong_answers_fail_and_say_what_is_off(
    answer: object, reference: object, kwargs: dict, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got = check_answer(answer, reference, **kwargs)
    assert isinstance(got, Check) and not got and why in got.message
    assert capsys.readouterr().out.strip() == got.message and got.message.startswith("not yet:")


def test_a_wrong_answer_fails_the_book_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSOCMEM_PAGE_BUILD", "1")
    assert check_answer(0.125, 0.125)  # a right answer passes in the build too
    with pytest.raises(AssertionError, match="exercise check failed.*off by 0.075"):
        check_answer(0.2, 0.125)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"rtol": -0.1}, ValueError, "rtol must be a finite number >= 0, got -0.1"),
        ({"atol": float("nan")}, ValueError, "atol must be a finite number >= 0, got nan"),
        ({"rtol": "1%"}, ValueError, "rtol must be a finite number >= 0, got '1%'"),
        ({"name": 3}, TypeError, "name must be a string, got int"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        check_answer(0.1, 0.1, **kwargs)


def test_an_unknown_reference_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="reference of type dict"):
        check_answer({}, {"a": 1})


def test_the_printed_line_fits_an_output_block(capsys) -> None:
    """A long name is wrapped at LINE_WIDTH columns; the repr shown by a forgotten ';' is short."""
    from assocmem.exercises import LINE_WIDTH

    long_name = "the contraction constant of the context-gated memory at your lambda " * 2
    check = check_answer(0.5, 0.25, name=long_name)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 2 and lines[0].startswith("not yet: ")
    assert all(len(line) <= LINE_WIDTH for line in lines), lines
    assert " ".join(line.strip() for line in lines) == check.message
    assert repr(check) == "Check(right=False)"
