"""Page helpers that work both in the Jupyter Book build and in Colab or plain Jupyter.

The chapters put computed numbers into their prose with myst-nb's ``glue`` (``{glue:text}`` roles),
so that text and output cannot disagree. myst-nb is part of the book's build toolchain, not of
the library's dependencies, and Colab does not have it: :func:`glue` here calls myst-nb's when it
is importable and otherwise only displays the value (when asked to), so a chapter runs top to
bottom in Colab.
"""

from __future__ import annotations

from typing import Any

from IPython.display import display as _display

try:  # the book's build (jupyter-book) has myst-nb
    from myst_nb import glue as _myst_glue
except ImportError:  # Colab, plain Jupyter: there is no page to glue into
    _myst_glue = None

__all__ = ["glue"]


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Store ``variable`` under ``name`` for the page's prose (myst-nb's ``glue``).

    Parameters
    ----------
    name : str
        Key used by ``{glue:text}`name``` (and friends) in the chapter's Markdown; non-empty.
    variable : object
        The value (a number, a string, a figure, a DataFrame ...).
    display : bool
        Also show the value in the cell's output (default True, as in myst-nb).

    Raises
    ------
    ValueError
        If ``name`` is not a non-empty string.

    Notes
    -----
    With myst-nb installed this is exactly ``myst_nb.glue(name, variable, display=display)``.
    Without it (Colab), the value is displayed when ``display`` is true and otherwise dropped:
    the prose that would show it exists only in the built book.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"glue needs a non-empty string name, got {name!r}")
    if _myst_glue is not None:
        _myst_glue(name, variable, display=display)
    elif display:
        _display(variable)
