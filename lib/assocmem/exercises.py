"""Exercise checks: compare a student's answer with the library's and say right, or what is off.

A computational exercise on a page leaves a cell for the student (``my_alpha = ...``) and a check
cell, tagged ``exercise-check``, that calls :func:`check_answer` with the student's value and the
reference the page computed through the library. The check prints one line, ``right: ...`` or
``not yet: ...`` with what is off (the shape, the type, the value and by how much), and returns a
:class:`Check` that is true when the answer is right. In the book's build (where
:data:`assocmem.keys.PAGE_BUILD_ENV` is set) a wrong answer raises, so the completed answer a page
ships is checked on every build (``tests/book`` reads the executed checks too).

Comparisons: numbers within ``rtol`` (relative) or ``atol`` (absolute) of the reference; arrays
elementwise, of the same shape; booleans, integers and strings exactly; sequences item by item.
"""

from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from assocmem.keys import PAGE_BUILD_ENV

__all__ = ["Check", "check_answer", "LINE_WIDTH"]

#: The printed line is wrapped at the chapters' code width, so that it fits an output block.
LINE_WIDTH = 79


@dataclass(frozen=True)
class Check:
    """The outcome of :func:`check_answer`: whether the answer is right, and the line it printed."""

    right: bool
    message: str

    def __bool__(self) -> bool:
        """Return True when the answer is right."""
        return self.right

    def __str__(self) -> str:
        """Return the line the check printed."""
        return self.message

    def __repr__(self) -> str:
        """Return a short form (the message was printed already): ``Check(right=True)``."""
        return f"Check(right={self.right})"


def _is_number(x: object) -> bool:
    return isinstance(x, (Real, np.number)) and not isinstance(x, (bool, np.bool_))


def _compare(answer: Any, reference: Any, rtol: float, atol: float) -> str | None:
    """None when ``answer`` matches ``reference``; else what is off, in a few words."""
    if isinstance(reference, (bool, np.bool_)):
        if not isinstance(answer, (bool, np.bool_)):
            return f"expected True or False, got {type(answer).__name__}"
        return None if bool(answer) == bool(reference) else f"expected {bool(reference)}"
    if isinstance(reference, str):
        if not isinstance(answer, str):
            return f"expected a string, got {type(answer).__name__}"
        return None if answer.strip() == reference.strip() else f"expected {reference!r}"
    if isinstance(reference, (Integral, np.integer)) and rtol == 0 and atol == 0:
        if not isinstance(answer, (Integral, np.integer)) or isinstance(answer, bool):
            return f"expected a whole number, got {type(answer).__name__}"
        return None if int(answer) == int(reference) else f"expected {int(reference)}"
    if _is_number(reference):
        if not _is_number(answer):
            return f"expected a number, got {type(answer).__name__}"
        a, r = float(answer), float(reference)
        if not math.isfinite(a):
            return f"the answer is {a}, not a finite number"
        off = abs(a - r)
        if off <= atol + rtol * abs(r):
            return None
        return (
            f"{a:.6g} is off by {off:.3g} (relative {off / abs(r):.2g})"
            if r
            else (f"{a:.6g} is off by {off:.3g}")
        )
    if isinstance(reference, np.ndarray) or hasattr(reference, "__array__"):
        ref = np.asarray(reference)
        try:
            ans = np.asarray(answer, dtype=ref.dtype if ref.dtype != object else None)
        except (TypeError, ValueError):
            return f"expected an array like the reference, got {type(answer).__name__}"
        if ans.shape != ref.shape:
            return f"expected shape {ref.shape}, got {ans.shape}"
        if ref.dtype == bool or np.issubdtype(ref.dtype, np.integer) and rtol == atol == 0:
            bad = int(np.sum(ans != ref))
            return None if bad == 0 else f"{bad} of {ref.size} entries differ"
        ans, ref = ans.astype(float), ref.astype(float)
        if not np.all(np.isfinite(ans)):
            return f"{int(np.sum(~np.isfinite(ans)))} entries are not finite"
        close = np.abs(ans - ref) <= atol + rtol * np.abs(ref)
        if close.all():
            return None
        worst = int(np.argmax(np.abs(ans - ref).ravel()))
        return (f"{int((~close).sum())} of {ref.size} entries are off (the worst by "
                f"{float(np.abs(ans - ref).ravel()[worst]):.3g})")  # fmt: skip
    if isinstance(reference, (list, tuple)):
        if not isinstance(answer, (list, tuple)) or len(answer) != len(reference):
            return f"expected a sequence of {len(reference)} items"
        for i, (a, r) in enumerate(zip(answer, reference, strict=True)):
            why = _compare(a, r, rtol, atol)
            if why is not None:
                return f"item {i}: {why}"
        return None
    kind = type(reference).__name__
    raise TypeError(f"reference of type {kind} is not one check_answer compares")


def check_answer(
    answer: Any,
    reference: Any,
    *,
    rtol: float = 1e-2,
    atol: float = 0.0,
    name: str = "your answer",
) -> Check:
    """Compare a student's answer with the reference and print ``right`` or what is off.

    Parameters
    ----------
    answer : object
        The student's value. ``...`` (the placeholder of an exercise cell) or ``None`` reads as
        "not answered yet".
    reference : number, bool, str, array or sequence of these
        The value the page computed through the library.
    rtol, atol : float
        Relative and absolute tolerance for numbers and float arrays, >= 0 (an answer is right
        when ``|answer - reference| <= atol + rtol |reference|``). With both 0, integers and
        integer arrays must match exactly.
    name : str
        What the answer is, for the printed line (e.g. ``"the capacity at d = 32"``).

    Returns
    -------
    Check
        True when right; its ``message`` is the printed line (printed wrapped at
        :data:`LINE_WIDTH` columns, continuation lines indented by two spaces).

    Raises
    ------
    TypeError, ValueError
        Bad ``rtol``/``atol`` or a reference of a kind not compared. ``AssertionError`` in the
        book's build when the answer is wrong (a page must ship a right answer).

    Examples
    --------
    >>> check_answer(0.124, 0.125, rtol=0.02, name="alpha")
    right: alpha = 0.124 matches the reference 0.125 (within 2%).
    Check(right=True)
    >>> bool(check_answer(0.2, 0.125, name="alpha"))
    not yet: alpha: 0.2 is off by 0.075 (relative 0.6).
    False
    """
    for label, tol in (("rtol", rtol), ("atol", atol)):
        if not _is_number(tol) or not math.isfinite(float(tol)) or tol < 0:
            raise ValueError(f"{label} must be a finite number >= 0, got {tol!r}")
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if answer is Ellipsis or answer is None:
        check = Check(False, f"not yet: {name} is not answered (replace ... with your answer).")
    else:
        why = _compare(answer, reference, float(rtol), float(atol))
        if why is None:
            shown = f"{float(answer):.6g}" if _is_number(answer) else "your value"
            within = f" (within {rtol:.0%})" if _is_number(reference) and rtol else ""
            ref = f" {float(reference):.6g}" if _is_number(reference) else ""
            check = Check(True, f"right: {name} = {shown} matches the reference{ref}{within}.")
        else:
            check = Check(False, f"not yet: {name}: {why}.")
    print(textwrap.fill(check.message, LINE_WIDTH, subsequent_indent="  "))
    if not check.right and os.environ.get(PAGE_BUILD_ENV):
        raise AssertionError(f"an exercise check failed in the book's build: {check.message}")
    return check
