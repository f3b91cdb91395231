"""One figure style for the whole book.

Chapters never set ``rcParams`` themselves: they create figures with :func:`new_figure`, draw theory
as lines with :func:`theory_line` and simulation as markers with :func:`sim_points`, and finish with
:func:`finish`. Library plot functions return the :class:`~matplotlib.figure.Figure` and never call
``plt.show()``.

**Figures are made at the size they are shown.** The HTML page's content column is about 700 px
wide; a figure is at most :data:`PAGE_WIDTH` = 7 in wide at 100 dpi, so it is shown at a scale of
about 1 and a 9 pt font reads as 9 pt. Panels narrower than :data:`MIN_PANEL_WIDTH` are not made:
a row of more than two such panels is stacked into rows of two (the caller still gets its axes in
the shape it asked for). In a Jupyter kernel the inline backend sends "retina" PNGs (twice the
pixels, same displayed size), sharp on high-density screens and when a phone scales them down.
Figures are saved on an opaque white ground (never transparent), so black text stays readable on
the book's dark mode and in any image viewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from cycler import cycler
from IPython import get_ipython
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib_inline.backend_inline import set_matplotlib_formats

__all__ = [
    "PALETTE",
    "BOOK_STYLE",
    "PAGE_WIDTH",
    "MIN_PANEL_WIDTH",
    "use_book_style",
    "color",
    "new_figure",
    "theory_line",
    "sim_points",
    "legend_below",
    "finish",
    "interval_yerr",
    "clipped_yerr",
]

#: gid of a figure legend placed by :func:`legend_below` (:func:`finish` makes room for it).
_BELOW = "assocmem-legend-below"


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
    "figure.figsize": (7.0, 4.0),
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    # Opaque white ground: a figure stays readable on the book's dark mode and in any viewer.
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
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

#: Widest figure, in inches: the HTML content column (about 700 px) at the book's 100 dpi.
PAGE_WIDTH: float = 7.0
#: Narrowest panel, in inches, before a row of panels is stacked into rows of two.
MIN_PANEL_WIDTH: float = 3.3


def use_book_style() -> None:
    """Apply the book's rcParams globally (idempotent). Called by :func:`new_figure`.

    Inside an IPython kernel it also asks the inline backend for retina PNGs.
    """
    mpl.style.use(BOOK_STYLE)
    if get_ipython() is not None and "inline" in mpl.get_backend():
        set_matplotlib_formats("retina")


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
    """Create a figure in the book's style, at the width it is shown.

    Parameters
    ----------
    nrows, ncols : int
        Grid of panels, each ≥ 1.
    width, height : float, optional
        Figure size in inches. ``width`` defaults to, and is capped at, :data:`PAGE_WIDTH`
        (7 in). ``height`` defaults to 3.2 in per row (4.0 in for a single panel). When the
        panels of a row would be narrower than :data:`MIN_PANEL_WIDTH` (3.3 in) and there are
        more than two, each row is laid out as rows of two panels and the height grows in
        proportion (the empty slot of an odd row is removed).
    **subplot_kw
        Passed to :func:`matplotlib.pyplot.subplots` (e.g. ``sharey=True``).

    Returns
    -------
    fig : Figure
    axes : Axes or numpy.ndarray of Axes
        A single Axes when ``nrows == ncols == 1``; a 1-D array for one row or one column; else
        an array of shape ``(nrows, ncols)``. Stacking never changes this shape or order.

    Raises
    ------
    ValueError
        If ``nrows`` or ``ncols`` is < 1, or a size is not positive.
    """
    for name, val in (("nrows", nrows), ("ncols", ncols)):
        if isinstance(val, bool) or not isinstance(val, int) or val < 1:
            raise ValueError(f"{name} must be a positive integer, got {val!r}")
    if "squeeze" in subplot_kw:
        raise ValueError("new_figure decides the axes' shape itself; do not pass squeeze")
    use_book_style()
    width = PAGE_WIDTH if width is None else min(float(width), PAGE_WIDTH)
    if height is None:
        height = 4.0 if nrows == ncols == 1 else 3.2 * nrows
    if not (width > 0 and height > 0):
        raise ValueError(f"figure size must be positive, got width={width}, height={height}")
    cols = 2 if (ncols > 2 and width / ncols < MIN_PANEL_WIDTH) else ncols
    per_row = -(-ncols // cols)  # grid rows for one requested row
    grid_rows = nrows * per_row
    fig, grid = plt.subplots(
        grid_rows, cols, figsize=(width, height * per_row), squeeze=False, **subplot_kw
    )
    axes = np.empty((nrows, ncols), dtype=object)
    used = np.zeros(grid.shape, dtype=bool)
    for i in range(nrows):
        for j in range(ncols):
            r, c = i * per_row + j // cols, j % cols
            axes[i, j] = grid[r, c]
            used[r, c] = True
    for r, c in zip(*np.nonzero(~used), strict=True):
        fig.delaxes(grid[r, c])
        if r > 0:  # the panel above lost its x tick labels to sharex's label_outer
            grid[r - 1, c].xaxis.set_tick_params(labelbottom=True)
    if nrows == ncols == 1:
        return fig, axes[0, 0]
    if nrows == 1 or ncols == 1:
        return fig, axes.ravel()
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


def legend_below(
    fig: Figure,
    axes: Axes | Sequence[Axes] | None = None,
    *,
    ncol: int = 2,
    title: str | None = None,
) -> Any:
    """One legend for the whole figure, below its panels, where it covers no data.

    Entries are gathered from ``axes`` (default: every panel of ``fig``), each label once, in
    drawing order. :func:`finish` then makes the figure taller by the legend's height, so the
    panels keep their size and the legend sits under the x labels.

    Parameters
    ----------
    fig : Figure
    axes : Axes or sequence of Axes, optional
        Panels whose labelled artists enter the legend (labels starting with "_" are skipped).
    ncol : int
        Columns of the legend, >= 1.
    title : str, optional
        Legend title.

    Returns
    -------
    matplotlib.legend.Legend

    Raises
    ------
    ValueError
        If ``ncol`` < 1 or no panel holds a labelled artist.
    """
    if ncol < 1:
        raise ValueError(f"ncol must be >= 1, got {ncol}")
    if axes is None:
        ax_list = list(fig.axes)
    elif isinstance(axes, Axes):
        ax_list = [axes]
    else:
        ax_list = list(axes)
    handles, labels = [], []
    for ax in ax_list:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    if not labels:
        raise ValueError("no labelled artist to put in the legend")
    for ax in ax_list:  # one legend only: drop the panels' own
        own = ax.get_legend()
        if own is not None:
            own.remove()
    legend = fig.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(ncol, len(labels)),
        title=title,
        frameon=False,
    )
    legend.set_gid(_BELOW)
    return legend


def finish(fig: Figure, *, title: str | None = None) -> Figure:
    """Lay out a figure and return it (the last line of a library plot function).

    A legend placed by :func:`legend_below` gets its own strip under the panels: the figure grows
    by the legend's height and the panels are laid out above it.

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
    below = [leg for leg in fig.legends if leg.get_gid() == _BELOW]
    if below:
        strip = getattr(fig, "_assocmem_strip", None)  # finish may be called twice
        if strip is None:
            renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
            strip = max(leg.get_window_extent(renderer).height for leg in below) / fig.dpi + 0.1
            fig.set_figheight(fig.get_figheight() + strip)
            setattr(fig, "_assocmem_strip", strip)  # noqa: B010
        fig.tight_layout(rect=(0.0, strip / fig.get_figheight(), 1.0, 1.0))
    else:
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


def wilson_yerr(curve: pd.DataFrame) -> np.ndarray:
    """Error bars ``(2, n)`` of the fraction stored from the 95 % Wilson interval of its table.

    Parameters
    ----------
    curve : pandas.DataFrame
        Rows of :func:`assocmem.linear.measure.tables.success_by_load` (columns ``fraction``,
        ``ci_low``, ``ci_high``).

    Returns
    -------
    numpy.ndarray, float64, shape (2, n)

    Raises
    ------
    ValueError
        If a fraction lies outside its interval.
    """
    return interval_yerr(curve["fraction"], curve["ci_low"], curve["ci_high"])


def clipped_yerr(
    y: Sequence[float] | np.ndarray,
    err: Sequence[float] | np.ndarray,
    low: float = 0.0,
    high: float = 1.0,
) -> np.ndarray:
    """Asymmetric error bars ``(2, n)`` of ``y ± err`` cut at ``[low, high]`` (probabilities).

    A mean fraction (e.g. the accuracy) with a standard-error bar can reach past 0 or 1; the
    value itself cannot, so the bar is cut at the range.

    Parameters
    ----------
    y : array_like, shape (n,)
        Values inside ``[low, high]``.
    err : array_like, shape (n,)
        Symmetric half-widths, >= 0 (NaN is read as 0).
    low, high : float
        Range of the quantity (default ``[0, 1]``).

    Returns
    -------
    numpy.ndarray, float64, shape (2, n)
        ``[min(err, y - low), min(err, high - y)]``.

    Raises
    ------
    ValueError
        If the shapes differ, ``low >= high`` or an error is negative.
    """
    ya = np.asarray(y, dtype=np.float64)
    ea = np.nan_to_num(np.asarray(err, dtype=np.float64), nan=0.0)
    if ya.shape != ea.shape:
        raise ValueError(f"y and err must share a shape, got {ya.shape} and {ea.shape}")
    if not low < high:
        raise ValueError(f"need low < high, got {low}, {high}")
    if np.any(ea < 0):
        raise ValueError("errors must be >= 0")
    return np.vstack(
        [
            np.minimum(ea, np.clip(ya - low, 0.0, None)),
            np.minimum(ea, np.clip(high - ya, 0.0, None)),
        ]
    )
