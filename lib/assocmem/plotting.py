"""One figure style for the whole book.

Chapters never set ``rcParams`` themselves: they create figures with :func:`new_figure`, draw theory
as lines with :func:`theory_line` and simulation as markers with :func:`sim_points`, and finish with
:func:`finish`. Library plot functions return the :class:`~matplotlib.figure.Figure` and never call
``plt.show()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = [
    "PALETTE",
    "BOOK_STYLE",
    "use_book_style",
    "color",
    "new_figure",
    "theory_line",
    "sim_points",
    "finish",
]

#: Colour cycle of the book: Paul Tol's "bright" scheme, distinguishable under the common forms of
#: colour blindness and in greyscale print.
PALETTE: tuple[str, ...] = (
    "#4477AA",  # blue
    "#EE6677",  # red
    "#228833",  # green
    "#CCBB44",  # yellow
    "#66CCEE",  # cyan
    "#AA3377",  # purple
    "#BBBBBB",  # grey
)

#: The rcParams the book's figures use (applied by :func:`use_book_style`).
BOOK_STYLE: dict[str, Any] = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 10.5,
    "axes.titlesize": 11,
    "axes.labelsize": 10.5,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.8,
    "lines.markersize": 5,
    "errorbar.capsize": 2.5,
    "image.cmap": "viridis",
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "mathtext.fontset": "dejavusans",
}

_COLUMN_WIDTH = 6.4  # inches, one text column of the HTML page at the default zoom


def use_book_style() -> None:
    """Apply the book's rcParams globally (idempotent). Called by :func:`new_figure`."""
    mpl.style.use(BOOK_STYLE)


def color(i: int) -> str:
    """Return the ``i``-th colour of the book's cycle (wraps around).

    Parameters
    ----------
    i : int
        Index, any integer ≥ 0.

    Returns
    -------
    str
        A hex colour string.

    Raises
    ------
    TypeError
        If ``i`` is not an integer.
    ValueError
        If ``i`` is negative.
    """
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"colour index must be an integer, got {type(i).__name__}")
    if i < 0:
        raise ValueError(f"colour index must be >= 0, got {i}")
    return PALETTE[int(i) % len(PALETTE)]


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    width: float | None = None,
    height: float | None = None,
    **subplot_kw: Any,
) -> tuple[Figure, Any]:
    """Create a figure in the book's style.

    Parameters
    ----------
    nrows, ncols : int
        Grid of panels, each ≥ 1.
    width, height : float, optional
        Figure size in inches. Defaults: the page's column width (6.4 in, up to 3.4 in per panel
        for ``ncols > 3``) and 3.6 in per row (4.0 in for a single panel).
    **subplot_kw
        Passed to :func:`matplotlib.pyplot.subplots` (e.g. ``sharey=True``).

    Returns
    -------
    fig : Figure
    axes : Axes or numpy.ndarray of Axes
        A single Axes when ``nrows == ncols == 1``, else the array from ``plt.subplots``.

    Raises
    ------
    ValueError
        If ``nrows`` or ``ncols`` is < 1, or a size is not positive.
    """
    for name, val in (("nrows", nrows), ("ncols", ncols)):
        if isinstance(val, bool) or not isinstance(val, int) or val < 1:
            raise ValueError(f"{name} must be a positive integer, got {val!r}")
    use_book_style()
    if width is None:
        width = max(_COLUMN_WIDTH, 3.4 * ncols) if ncols > 3 else _COLUMN_WIDTH + 1.6 * (ncols - 1)
    if height is None:
        height = 4.0 if nrows == ncols == 1 else 3.2 * nrows
    if not (width > 0 and height > 0):
        raise ValueError(f"figure size must be positive, got width={width}, height={height}")
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=True, **subplot_kw)
    return fig, axes


def theory_line(
    ax: Axes,
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    *,
    label: str,
    color: str | None = None,
    **kw: Any,
) -> Any:
    """Draw a theory curve: a solid line (``linestyle`` may be overridden).

    Parameters
    ----------
    ax : Axes
    x, y : array_like, shape (n,)
        Abscissa and theory values.
    label : str
        Legend entry; should say it is theory (e.g. ``"theory α_c(p)"``).
    color : str, optional
        Colour; defaults to the next colour of the cycle.
    **kw
        Passed to :meth:`Axes.plot`.

    Returns
    -------
    list of Line2D

    Raises
    ------
    ValueError
        If ``x`` and ``y`` have different lengths.
    """
    x_arr, y_arr = np.asarray(x), np.asarray(y)
    if x_arr.shape != y_arr.shape:
        raise ValueError(f"x and y must have the same shape, got {x_arr.shape} and {y_arr.shape}")
    kw.setdefault("linestyle", "-")
    kw.setdefault("zorder", 2)
    if color is not None:
        kw["color"] = color
    return ax.plot(x_arr, y_arr, label=label, **kw)


def sim_points(
    ax: Axes,
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    yerr: Sequence[float] | np.ndarray | None = None,
    *,
    label: str,
    color: str | None = None,
    **kw: Any,
) -> Any:
    """Draw simulation results: markers with optional error bars, no connecting line by default.

    Parameters
    ----------
    ax : Axes
    x, y : array_like, shape (n,)
        Abscissa and measured values.
    yerr : array_like, shape (n,) or (2, n), optional
        Error bars (e.g. one standard error).
    label : str
        Legend entry; should say it is simulation.
    color : str, optional
        Colour; defaults to the next colour of the cycle.
    **kw
        Passed to :meth:`Axes.errorbar` (e.g. ``linestyle=":"`` to join the markers).

    Returns
    -------
    ErrorbarContainer

    Raises
    ------
    ValueError
        If ``x`` and ``y`` have different lengths.
    """
    x_arr, y_arr = np.asarray(x), np.asarray(y)
    if x_arr.shape != y_arr.shape:
        raise ValueError(f"x and y must have the same shape, got {x_arr.shape} and {y_arr.shape}")
    kw.setdefault("marker", "o")
    kw.setdefault("linestyle", "none")
    kw.setdefault("zorder", 3)
    if color is not None:
        kw["color"] = color
    return ax.errorbar(x_arr, y_arr, yerr=yerr, label=label, **kw)


def finish(fig: Figure, *, title: str | None = None) -> Figure:
    """Lay out a figure and return it (the last line of a library plot function).

    Parameters
    ----------
    fig : Figure
    title : str, optional
        Figure-level title (``suptitle``).

    Returns
    -------
    Figure
        The same figure.
    """
    if title is not None:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def interval_yerr(
    y: Sequence[float] | np.ndarray,
    low: Sequence[float] | np.ndarray,
    high: Sequence[float] | np.ndarray,
) -> np.ndarray:
    """Asymmetric error bars ``(2, n)`` for :func:`sim_points` from an interval ``[low, high]``.

    Parameters
    ----------
    y : array_like, shape (n,)
        The measured values (each inside its interval).
    low, high : array_like, shape (n,)
        Interval ends, e.g. a 95 % Wilson interval of a proportion.

    Returns
    -------
    numpy.ndarray, float64, shape (2, n)
        ``[y - low, high - y]``: the lengths of the lower and upper bars.

    Raises
    ------
    ValueError
        If the shapes differ or a value lies outside its interval.
    """
    ya, lo, hi = (np.asarray(v, dtype=np.float64) for v in (y, low, high))
    if not ya.shape == lo.shape == hi.shape:
        raise ValueError(f"y, low, high must share a shape, got {ya.shape}, {lo.shape}, {hi.shape}")
    err = np.vstack([ya - lo, hi - ya])
    if np.any(err < -1e-12):
        raise ValueError("every value must lie inside its interval [low, high]")
    return np.clip(err, 0.0, None)
