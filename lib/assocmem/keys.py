"""What the library shares with the book's pages, without the page helper (no IPython).

:func:`glue_key` gives one valid, distinct glue key per parameter value: what
:mod:`assocmem.pages` and the chapters use to name the numbers they glue, and what the experiments
use to label a grid value in a summary (chapter 5's rows by gain, chapter 7's fractions by
lambda). :data:`PAGE_BUILD_ENV` marks a chapter executed by the book's build, and
:func:`show_progress` turns a long loop's progress bar off there. They live apart from
:mod:`assocmem.pages` so that physics modules can use them without importing IPython.
"""

from __future__ import annotations

import os
import sys

import numpy as np

__all__ = ["glue_key", "show_progress", "PAGE_BUILD_ENV"]

#: Set (to "1") by the book's build (``book/_ext/cell_budget.py``) in the environment its kernels
#: inherit: a chapter executed for a page shows no progress bars, whose output would be saved.
PAGE_BUILD_ENV = "ASSOCMEM_PAGE_BUILD"


def show_progress(progress: bool | None) -> bool:
    """Whether a long loop shows a progress bar: ``progress`` if given, else live ones only.

    None (the library's default) means: in a terminal or a Jupyter/Colab kernel, yes; in a
    chapter executed by the book's build (:data:`PAGE_BUILD_ENV` set), no, since the page would
    keep the bar's last frame.

    Examples
    --------
    >>> show_progress(False), show_progress(True)
    (False, True)
    """
    if progress is not None:
        return bool(progress)
    if os.environ.get(PAGE_BUILD_ENV):
        return False
    return "ipykernel" in sys.modules or sys.stderr.isatty()


def glue_key(*parts: object) -> str:
    """Join a key from labels and parameter values, one key per value (no two values collide).

    A number is written with its sign and decimal point spelt out (``1.5`` -> ``1p5``,
    ``15`` -> ``15``, ``-0.25`` -> ``m0p25``, ``1e-05`` -> ``1em05``), so keys stay valid glue
    names and distinct values give distinct keys (equal ones, ``15`` and ``15.0``, one key);
    strings are kept as they are; parts are joined by ``_``.

    Raises
    ------
    TypeError
        If a part is not a string or a real number (a bool is refused).
    ValueError
        If a part is an empty string or a non-finite number.

    Examples
    --------
    >>> glue_key("lam", 1.5), glue_key("lam", 15), glue_key("t", -0.25, "gate")
    ('lam_1p5', 'lam_15', 't_m0p25_gate')
    """
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                raise ValueError("glue_key parts must be non-empty strings or numbers, got ''")
            out.append(part)
        elif isinstance(part, (int, float, np.integer, np.floating)) and not isinstance(part, bool):
            if isinstance(part, (int, np.integer)):  # exactly, however large
                text = str(int(part))
            else:
                x = float(part)
                if not np.isfinite(x):
                    raise ValueError(f"glue_key parts must be finite numbers, got {part!r}")
                # the shortest text that reads back as x (repr); a whole number without point
                text = str(int(x)) if x.is_integer() else repr(x)
            out.append(text.replace("-", "m").replace(".", "p"))
        else:
            raise TypeError(f"glue_key parts must be strings or numbers, got {part!r}")
    return "_".join(out)
