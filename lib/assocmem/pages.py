"""Page helpers that work both in the Jupyter Book build and in Colab or plain Jupyter.

The chapters put computed numbers into their prose with myst-nb's ``glue`` (``{glue:text}`` roles),
so that text and output cannot disagree. myst-nb is part of the book's build toolchain, not of
the library's dependencies, and Colab does not have it: :func:`glue` here calls myst-nb's when it
is importable and otherwise only displays the value (when asked to), so a chapter runs top to
bottom in Colab.

:func:`glue_all` glues a whole summary in one call: a mapping of labels to numbers, strings,
verdicts or :class:`assocmem.estimate.Estimate` objects. A sentence quotes an estimate by one key,
``<label>_ci``, the text of :func:`assocmem.estimate.render` ("0.812 [0.771, 0.847]"), or its value
alone by ``<label>``; ``_n``, ``_lo`` and ``_hi`` are glued too, for a sentence that needs the
units or a bound by itself (and for the checks of the executed book), never to reassemble an
interval by hand; ``n=`` writes the units into the rendered text where the sentence quotes them.
During the book's build a key glued twice with different values is an error (the page would show
one of them by the order of its cells); :func:`assocmem.keys.glue_key` gives each parameter value
its own key.

:func:`table` is the one table style of the book: a DataFrame shown without its index, numbers
at a fixed precision (or per-column formats), the same in the HTML (a pandas ``Styler``) and as
plain text (the PDF, a terminal), so no page shows ``<Styler at 0x…>``.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd
from IPython.display import display as _display

from assocmem.estimate import Estimate, Verdict, render
from assocmem.keys import PAGE_BUILD_ENV

try:  # the book's build (jupyter-book) has myst-nb
    from myst_nb import glue as _myst_glue
except ImportError:  # Colab, plain Jupyter: there is no page to glue into
    _myst_glue = None

__all__ = ["glue", "glue_all", "table", "Table"]


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

    ValueError
        In the book's build (:data:`PAGE_BUILD_ENV` set), if ``name`` was already glued in this
        kernel with a different value: the page would show one of the two, depending on the
        order of the cells.

    Notes
    -----
    With myst-nb installed this is exactly ``myst_nb.glue(name, variable, display=display)``.
    Without it (Colab), the value is displayed when ``display`` is true and otherwise dropped:
    the prose that would show it exists only in the built book. Outside the build a key may be
    glued again with a new value (re-running a cell in Jupyter).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"glue needs a non-empty string name, got {name!r}")
    if os.environ.get(PAGE_BUILD_ENV):
        if name in _GLUED and not _same_value(_GLUED[name], variable):
            raise ValueError(
                f"glue key {name!r} glued twice with different values in one page "
                f"({reprlib.repr(_GLUED[name])}, then {reprlib.repr(variable)}): give each value "
                "its own key"
            )
        _GLUED[name] = variable
    if _myst_glue is not None:
        _myst_glue(name, variable, display=display)
    elif display:
        _display(variable)


#: Keys glued in this kernel during the book's build, with their values (:func:`glue`'s guard).
_GLUED: dict[str, Any] = {}


def _same_value(a: Any, b: Any) -> bool:
    """Whether two glued values are the same (NaN equals NaN; arrays and frames by content)."""
    if a is b:
        return True
    if isinstance(a, (pd.DataFrame, pd.Series)) or isinstance(b, (pd.DataFrame, pd.Series)):
        return type(a) is type(b) and bool(a.equals(b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # not numeric: NaN cannot be compared
            return bool(np.array_equal(a, b))
    numbers = (int, float, np.integer, np.floating)
    if isinstance(a, numbers) and isinstance(b, numbers):
        return bool(a == b) or bool(np.isnan(a) and np.isnan(b))
    try:
        same = a == b
    except Exception:  # an __eq__ that refuses the comparison
        return False
    return isinstance(same, (bool, np.bool_)) and bool(same)


def glue_all(
    values: Mapping[str, Any],
    prefix: str = "",
    *,
    spec: str | Mapping[str, str] = ".3f",
    n: bool | Collection[str] = False,
) -> None:
    """Glue every entry of ``values`` for the prose, not displayed (one call per summary).

    Parameters
    ----------
    values : mapping of str -> number, str, Verdict or Estimate
        Label -> value, e.g. a result's ``summary()``. A number or a string is glued under
        ``prefix + label``, a :class:`~assocmem.estimate.Verdict` as its words; an
        :class:`~assocmem.estimate.Estimate` under ``prefix + label + "_ci"`` (the sentence's
        "value [low, high]", :func:`assocmem.estimate.render`), ``prefix + label`` (the value
        alone), ``+ "_n"`` (its units) and ``+ "_lo"``, ``+ "_hi"`` (a bound quoted alone).
    prefix : str
        Prepended to every key (e.g. ``"hy_"``).
    spec : str or mapping of str -> str
        Format spec of the rendered estimates (``"+.3f"`` for differences), or label -> spec
        (labels not in it: ``".3f"``).
    n : bool or collection of str
        Write the units into the rendered text, ``"0.812 [0.771, 0.847] (n = 400)"``: for every
        estimate (True) or for the labels given (for a sentence that quotes n with the interval).

    Raises
    ------
    TypeError
        If ``values`` is not a mapping, a label is not a string, or a value is not a number,
        string, Verdict or Estimate.
    ValueError
        If a key would be empty, or ``spec`` or ``n`` names a label ``values`` lacks.

    Examples
    --------
    >>> from assocmem.stats import rate
    >>> glue_all({"acc": rate(8, 10), "k": 8})  # acc_ci: "0.800 [0.490, 0.943]"; acc, acc_n, k
    >>> glue_all({"acc": rate(8, 10)}, n={"acc"})  # acc_ci: "0.800 [0.490, 0.943] (n = 10)"
    """
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping label -> value, got {type(values).__name__}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {type(prefix).__name__}")
    if isinstance(spec, Mapping):
        unknown = sorted(set(spec) - set(values))
        if unknown:
            raise ValueError(f"spec names labels that values lacks: {unknown}")
        specs = dict(spec)
    elif isinstance(spec, str):
        specs = {label: spec for label in values}
    else:
        raise TypeError(f"spec must be a format spec or a mapping, got {type(spec).__name__}")
    if isinstance(n, bool):
        with_n = set(values) if n else set()
    elif isinstance(n, Collection) and not isinstance(n, str):
        with_n = set(n)
        unknown = sorted(with_n - set(values), key=str)
        if unknown:
            raise ValueError(f"n names labels that values lacks: {unknown}")
    else:
        raise TypeError(f"n must be a bool or a collection of labels, got {n!r}")
    for label, v in values.items():
        if not isinstance(label, str):
            raise TypeError(f"labels must be strings, got {label!r}")
        if isinstance(v, Estimate):
            text = render(v, specs.get(label, ".3f"), n=label in with_n)
            glue(prefix + label + "_ci", text, display=False)
            for suffix, x in v.glue_values().items():
                glue(prefix + label + suffix, x, display=False)
        elif isinstance(v, Verdict):
            glue(prefix + label, v.value, display=False)
        elif isinstance(v, (str, int, float, np.integer, np.floating)) and not isinstance(v, bool):
            glue(prefix + label, v.item() if isinstance(v, np.generic) else v, display=False)
        else:
            raise TypeError(
                f"value of {label!r} must be a number, string or Estimate, got {type(v).__name__}"
            )


class Table:
    """A DataFrame in the book's one table style (:func:`table`): HTML and plain text alike.

    Attributes
    ----------
    data : pandas.DataFrame
        The table's values, unformatted (for lookups and tests).
    """

    def __init__(self, data: pd.DataFrame, formats: dict[str, str], caption: str | None) -> None:
        self.data = data
        self._formats = formats
        self._caption = caption

    def _formatted(self) -> pd.DataFrame:
        out = self.data.copy()
        for col in out.columns:
            fmt = self._formats.get(col)
            out[col] = [_cell(v, fmt) for v in self.data[col]]
        return out

    def _repr_html_(self) -> str:
        styler = self._formatted().style.hide(axis="index")
        # class "dataframe": the theme's table style, as for a plain DataFrame
        styler = styler.set_table_attributes('class="dataframe"')
        if self._caption:
            styler = styler.set_caption(self._caption)
        return styler.to_html()

    def __repr__(self) -> str:
        """Plain text: the formatted values, no index (the PDF and a terminal show this)."""
        text = self._formatted().to_string(index=False, na_rep="–")
        return f"{self._caption}\n{text}" if self._caption else text


def _cell(v: Any, fmt: str | None) -> str:
    """One table cell as text: an Estimate through :func:`~assocmem.estimate.render`."""
    if isinstance(v, Estimate):
        spec = fmt[2:-1] if fmt and fmt.startswith("{:") and fmt.endswith("}") else ".3f"
        return render(v, spec)
    if isinstance(v, str):
        return str(v)
    if pd.api.types.is_scalar(v) and pd.isna(v):
        return "–"
    return str(v) if fmt is None else fmt.format(v)


def table(
    data: pd.DataFrame,
    formats: dict[str, str] | None = None,
    *,
    precision: int = 3,
    caption: str | None = None,
) -> Table:
    """Show a DataFrame in the book's one style: no index, fixed precision, HTML and text alike.

    Parameters
    ----------
    data : pandas.DataFrame
        The values (not modified).
    formats : dict of str -> str, optional
        Column -> format string (``"{:.1e}"``, ``"{:g}"``) for the columns that need their own;
        every other float column gets ``"{:.<precision>f}"``. Strings are shown as they are.
    precision : int
        Decimals of the float columns without a format, >= 0.
    caption : str, optional
        Shown above the table.

    Returns
    -------
    Table
        Renders as HTML in a notebook and the HTML book, as aligned text in the PDF.

    Raises
    ------
    TypeError
        If ``data`` is not a DataFrame or ``formats`` not a dict.
    ValueError
        If a format names a column that ``data`` lacks, or ``precision`` < 0.

    Examples
    --------
    >>> table(pd.DataFrame({"d": [16, 32], "alpha_c": [0.61234, 0.5]}))
     d alpha_c
    16   0.612
    32   0.500
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas.DataFrame, got {type(data).__name__}")
    if formats is not None and not isinstance(formats, dict):
        raise TypeError(f"formats must be a dict column -> format, got {type(formats).__name__}")
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < 0:
        raise ValueError(f"precision must be an integer >= 0, got {precision!r}")
    formats = dict(formats or {})
    unknown = [c for c in formats if c not in data.columns]
    if unknown:
        raise ValueError(f"formats name columns that data lacks: {unknown}")
    for col in data.columns:
        if col not in formats and pd.api.types.is_float_dtype(data[col]):
            formats[col] = f"{{:.{precision}f}}"
    return Table(data.reset_index(drop=True), formats, caption)
