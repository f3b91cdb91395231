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

**Colours a colour-blind reader tells apart.** The categorical colours are the Okabe–Ito palette
(:data:`PALETTE`; Okabe & Ito 2008), and each colour has a companion marker and line style
(:func:`marker`, :func:`linestyle`): :func:`sim_points` in a palette colour takes that colour's
marker unless it is given one, so series differ by shape as well as by hue.

**Every figure says what it shows.** :func:`describe` writes a figure's alternative text from
what it carries: its title, each panel's title and axis labels (with their units), its legends
and colour bars; a figure function or a page may give its own with :func:`set_alt` or
``finish(fig, alt=...)``. In a kernel, :func:`use_book_style` makes the inline backend send every
figure as a retina PNG (:func:`figure_png`) that carries this text in its ``Description`` chunk;
the book's build copies it into the image's ``alt`` (``book/_ext/figure_alt.py``), and fails on
an output figure with nothing to say.
"""

from __future__ import annotations

import base64
import io
import re
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
from PIL import Image

__all__ = [
    "PALETTE",
    "BOOK_STYLE",
    "PAGE_WIDTH",
    "MIN_PANEL_WIDTH",
    "use_book_style",
    "MARKERS",
    "LINESTYLES",
    "color",
    "marker",
    "linestyle",
    "describe",
    "set_alt",
    "figure_png",
    "png_description",
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


#: Colour cycle of the book: the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"),
#: told apart under the common forms of colour blindness; its black is left out (reference lines
#: and text are black) and its yellow, faint on white, comes last.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
)
#: The marker of each colour of :data:`PALETTE` (same index): simulation series differ by shape too.
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X")
#: The line style of each colour of :data:`PALETTE` (same index), for figures whose lines must
#: differ by more than their colour (theory lines are solid unless a figure asks otherwise).
LINESTYLES: tuple[Any, ...] = (
    "-",
    "--",
    "-.",
    ":",
    (0, (5, 1.5)),
    (0, (3, 1, 1, 1, 1, 1)),
    (0, (8, 2, 1, 2)),
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
    shell = get_ipython()
    if shell is not None and "inline" in mpl.get_backend():
        set_matplotlib_formats("retina")
        # then our retina PNG, which carries the figure's description (replaces IPython's)
        formatter = shell.display_formatter.formatters["image/png"]  # type: ignore[attr-defined]
        formatter.for_type(Figure, _png_for_kernel)


def _index(i: int, what: str) -> int:
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"{what} index must be an integer, got {type(i).__name__}")
    if i < 0:
        raise ValueError(f"{what} index must be >= 0, got {i}")
    return int(i)


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
    return PALETTE[_index(i, "colour") % len(PALETTE)]


def marker(i: int) -> str:
    """Return the marker that goes with :func:`color` ``(i)`` (wraps around like it).

    Parameters
    ----------
    i : int
        Index, any integer ≥ 0.

    Returns
    -------
    str
        A matplotlib marker code.

    Raises
    ------
    TypeError
        If ``i`` is not an integer.
    ValueError
        If ``i`` is negative.
    """
    return MARKERS[_index(i, "marker") % len(MARKERS)]


def linestyle(i: int) -> Any:
    """Return the line style that goes with :func:`color` ``(i)`` (wraps around like it).

    Parameters
    ----------
    i : int
        Index, any integer ≥ 0.

    Returns
    -------
    str or tuple
        A matplotlib line style (a name or an ``(offset, dashes)`` pattern).

    Raises
    ------
    TypeError
        If ``i`` is not an integer.
    ValueError
        If ``i`` is negative.
    """
    return LINESTYLES[_index(i, "line style") % len(LINESTYLES)]


# ---- Alternative text ---------------------------------------------------------------------------

#: Most legend entries a description lists per legend (the rest are counted).
_MAX_ENTRIES = 10
_TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "ell": "ℓ", "infty": "∞", "cdot": "·", "times": "×", "pm": "±", "le": "≤", "leq": "≤",
    "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "~", "to": "→",
    "rightarrow": "→", "propto": "∝", "in": "∈", "partial": "∂", "nabla": "∇", "sum": "Σ",
    "prod": "Π", "int": "∫", "langle": "⟨", "rangle": "⟩", "lvert": "|", "rvert": "|",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "star": "*", "ast": "*", "circ": "∘",
    "top": "ᵀ", "intercal": "ᵀ", "sqrt": "√", "mid": "|", "vert": "|", "mapsto": "↦",
    "Rightarrow": "⇒", "leftarrow": "←",
    "dots": "…", "ldots": "…", "cdots": "…", "quad": " ", "qquad": " ",
    "hat": "", "bar": "", "tilde": "", "vec": "", "dot": "", "overline": "", "underline": "",
    "widehat": "", "widetilde": "", "mathrm": "", "mathbf": "", "mathit": "", "mathcal": "",
    "mathbb": "", "mathsf": "", "mathtt": "", "boldsymbol": "", "operatorname": "", "text": "",
    "rm": "", "left": "", "right": "", "big": "", "Big": "", "displaystyle": "",
}  # fmt: skip
_SUPERSCRIPTS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")


def _group(tex: str) -> str:
    """Return a numerator or denominator, bracketed unless it is one symbol or number."""
    return tex if re.fullmatch(r"\\?\w+(\^\{?\w+\}?)?", tex.strip()) else f"({tex})"


def _tex_to_text(tex: str) -> str:
    """Return mathtext (the inside of ``$...$``) as plain text a screen reader reads out."""
    t = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: f"{_group(m[1])}/{_group(m[2])}", tex)
    t = re.sub(r"\\[,;:! ]", " ", t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), f" {m.group(1)} "), t)
    t = re.sub(r"\^\{?([0-9+-]+)\}?", lambda m: m.group(1).translate(_SUPERSCRIPTS), t)
    t = t.replace("\\", "").replace("{", "").replace("}", "").replace("^ᵀ", "ᵀ")
    t = re.sub(r"\s*([_^])\s*", r"\1", t)  # N_{\rm eff} -> N_eff, \log_{10} -> log_10
    return re.sub(r"\s+", " ", t).strip()


def _plain(text: str) -> str:
    """Return a label with its mathtext turned into plain text, on one line."""
    parts = re.split(r"(?<!\\)\$", text or "")
    out = "".join(_tex_to_text(p) if k % 2 else p for k, p in enumerate(parts))
    return re.sub(r"\s+", " ", out.replace("\\$", "$")).strip()


def _entries(legend: Any) -> str:
    labels = [_plain(t.get_text()) for t in legend.get_texts()]
    labels = [lab for lab in labels if lab]
    if not labels:
        return ""
    shown = labels[:_MAX_ENTRIES]
    more = len(labels) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _panel(ax: Axes) -> str:
    """Return what one panel shows, or "" when it carries no text."""
    titles = [_plain(ax.get_title(loc)) for loc in ("left", "center", "right")]
    title = "; ".join(t for t in titles if t)
    x, y = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
    if x and y:
        core = f"{y} against {x}"
    else:
        core = x or y
    if core and ax.images:
        core = f"map of {core}"
    text = f"{title}, {core}" if title and core else (title or core)
    legend = ax.get_legend()
    entries = _entries(legend) if legend is not None and legend.get_visible() else ""
    if entries:
        text = f"{text}; legend: {entries}" if text else f"legend: {entries}"
    return text


def set_alt(fig: Figure, text: str) -> Figure:
    """Give a figure its own alternative text (what :func:`describe` returns for it).

    Use it where the figure's title, labels and legend do not say what a reader needs to know
    (a diagram, an image with no axes, a figure whose point is in its shape): one or two
    sentences on what the figure shows, e.g. ``"Fraction of facts recalled against load α for
    d = 16 to 64; theory lines, simulation markers"``.

    Parameters
    ----------
    fig : Figure
    text : str
        The alternative text: non-empty, plain text (mathtext ``$...$`` is read out as text).

    Returns
    -------
    Figure
        The same figure.

    Raises
    ------
    TypeError
        If ``fig`` is not a Figure or ``text`` not a string.
    ValueError
        If ``text`` is empty or blank.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not isinstance(text, str):
        raise TypeError(f"alt must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("alt must say what the figure shows, got an empty string")
    setattr(fig, "_assocmem_alt", _plain(text))  # noqa: B010
    return fig


def describe(fig: Figure) -> str | None:
    r"""Return a figure's alternative text: what it shows, in words (None: it says nothing).

    The text given by :func:`set_alt` (or ``finish(fig, alt=...)``) when there is one; else a
    description written from the figure itself: its title, then each panel's title, "y-label
    against x-label" (so the units travel with the labels), "map of" for an image, its legend
    entries, then the legends placed on the figure and the colour bars' labels. Mathtext is read
    out as text (``$\alpha$`` becomes α).

    Parameters
    ----------
    fig : Figure

    Returns
    -------
    str or None
        None when the figure carries no title, label or legend: such a figure needs
        :func:`set_alt` (the book's build refuses an output image without a description).

    Raises
    ------
    TypeError
        If ``fig`` is not a Figure.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> _ = ax.plot([0, 1], [1, 0], label="theory")
    >>> _ = ax.set(xlabel=r"load $\alpha = p\log p/d^2$", ylabel="fraction recalled")
    >>> _ = ax.legend()
    >>> describe(fig)
    'Fraction recalled against load α = p log p/d²; legend: theory.'
    >>> plt.close(fig)
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    own = getattr(fig, "_assocmem_alt", None)
    if own:
        return str(own)
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    sentences = [_plain(suptitle)] if suptitle else []
    visible = [ax for ax in fig.axes if ax.get_visible()]
    scales = [ax for ax in visible if getattr(ax, "_colorbar", None) is not None]
    panels = [p for p in (_panel(ax) for ax in visible if ax not in scales) if p]
    if len(panels) == 1:
        sentences.append(panels[0])
    elif panels:
        sentences.append(f"{len(panels)} panels")
        sentences += [f"Panel {k}: {text}" for k, text in enumerate(panels, start=1)]
    for legend in fig.legends:
        entries = _entries(legend) if legend.get_visible() else ""
        if entries:
            sentences.append(f"Legend: {entries}")
    for ax in scales:
        label = _plain(ax.get_ylabel() or ax.get_xlabel())
        if label:
            sentences.append(f"Colour scale: {label}")
    if not sentences:
        return None
    # a sentence starts with a capital, but only a word's: "p = 100", "m_4" and "α_c" stay
    text = ". ".join(s[0].upper() + s[1:] if re.match(r"[a-z]{2,}\b", s) else s for s in sentences)
    return text if text.endswith(".") else text + "."


def figure_png(fig: Figure, *, retina: bool = True) -> tuple[bytes, dict[str, int]] | None:
    """Return a figure as the PNG a page shows: its description inside, its display size apart.

    Parameters
    ----------
    fig : Figure
    retina : bool
        Twice the pixels of the figure's own dpi (shown at half the size: sharp on high-density
        screens), as the inline backend sends; False for the figure's own dpi.

    Returns
    -------
    (bytes, dict) or None
        The PNG, whose ``Description`` text chunk holds :func:`describe` (when it says anything),
        and ``{"width", "height"}``: the size to show it at, in CSS pixels. None for a figure with
        nothing drawn (no axes, no lines), as IPython's own formatter returns.

    Raises
    ------
    TypeError
        If ``fig`` is not a Figure.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not fig.axes and not fig.lines:
        return None
    alt = describe(fig)
    scale = 2 if retina else 1
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=fig.dpi * scale,
        bbox_inches="tight",
        facecolor=fig.get_facecolor(),
        edgecolor=fig.get_edgecolor(),
        metadata={"Description": alt} if alt else None,
    )
    data = buf.getvalue()
    width, height = Image.open(io.BytesIO(data)).size
    return data, {"width": width // scale, "height": height // scale}


def png_description(png: bytes) -> str | None:
    """Return the ``Description`` text a PNG carries (as :func:`figure_png` writes it), or None."""
    with Image.open(io.BytesIO(png)) as im:
        text = getattr(im, "text", {}).get("Description")
    return str(text) if text else None


def _png_for_kernel(fig: Figure) -> tuple[str, dict[str, int]] | None:
    """Format a figure for the inline backend's image/png: :func:`figure_png`, base64-encoded."""
    out = figure_png(fig)
    if out is None:
        return None
    data, meta = out
    return base64.b64encode(data).decode("ascii"), meta


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
        Passed to :meth:`Axes.errorbar` (e.g. ``linestyle=":"`` to join the markers). Without
        ``marker``, a colour of :data:`PALETTE` brings its companion :func:`marker` (a circle
        for any other colour).

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
    if color is None and "c" not in kw:
        color = ax._get_lines.get_next_color()  # type: ignore[attr-defined]  # the cycle's next
    if color is not None:
        kw["color"] = color
        hexes = [c.lower() for c in PALETTE]
        if isinstance(color, str) and color.lower() in hexes and "marker" not in kw:
            kw["marker"] = MARKERS[hexes.index(color.lower())]
    kw.setdefault("marker", "o")
    kw.setdefault("linestyle", "none")
    kw.setdefault("zorder", 3)
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


def finish(fig: Figure, *, title: str | None = None, alt: str | None = None) -> Figure:
    """Lay out a figure and return it (the last line of a library plot function).

    A legend placed by :func:`legend_below` gets its own strip under the panels: the figure grows
    by the legend's height and the panels are laid out above it.

    Parameters
    ----------
    fig : Figure
    title : str, optional
        Figure-level title (``suptitle``).
    alt : str, optional
        The figure's alternative text (see :func:`set_alt`); without it the page's image is
        described from the figure's titles, labels and legends (:func:`describe`).

    Returns
    -------
    Figure
        The same figure.

    Raises
    ------
    TypeError, ValueError
        A bad ``alt``, as for :func:`set_alt`.
    """
    if alt is not None:
        set_alt(fig, alt)
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
