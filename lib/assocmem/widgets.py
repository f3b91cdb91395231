"""Explorers: sliders that redraw a library figure in a live kernel, precomputed frames in the HTML.

A chapter's explorer is one call::

    explorer(plot_score_matrix, d=(16, 96, 16, 48), alpha=(0.2, 2.0, 0.1, 0.8),
             static={"d": [16, 48, 96], "alpha": [0.4, 0.8, 1.6]})

**Which explorer a reader gets** is decided in one place, :func:`static_page`, and nowhere else
(a chapter does not know):

* **live** (a Jupyter or Colab kernel): the default figure, then the controls over their full
  ranges and an output area; moving a control redraws the figure there through the same library
  function (``draw``);
* **static** (the book's build, :data:`assocmem.keys.PAGE_BUILD_ENV` set, when the chapter gives
  ``static=``): the figure is drawn, by the same ``draw``, for every state of a small grid (one or
  two axes, at most :data:`MAX_FRAMES` states), saved as images in the page's widget state, and
  shown in an ipywidgets ``Stack`` (nested Stacks for two axes) whose ``selected_index`` is linked
  in JavaScript (``jslink``) to a ``SelectionSlider``'s ``index``: in the static HTML, opened from
  disk without a kernel, moving a slider (mouse or keyboard) shows the figure for its value at
  once. The other controls are held at their defaults, which the explorer states under the
  sliders. The same output carries the default figure as a PNG for the PDF and as an image in a
  ``<noscript>`` for a reader without JavaScript: one figure, not the frames.

Without ``static=`` the page gets the default figure and controls that need a live kernel.
**Every frame says which state it shows**: a frame is an ``<img>`` in an ipywidgets ``HTML``
(ipywidgets' ``Image`` has no alternative text) whose ``alt`` is the figure's description
(:func:`assocmem.plotting.describe`) followed by the state, e.g. "... Shown at alpha = 0.8, d =
48."; the widget manager renders it in the static page and a live kernel renders it alike. A live
explorer's redrawn figure goes out the same way, as HTML with an ``alt`` beside the PNG.
Frames are images at 1x (the figure's own dpi) on an opaque white background, padded to one size
so the figure does not jump; lossless WebP (a fraction of a PNG's bytes) when Pillow can write it,
else PNG. A grid that trains a model per frame is cached with the rest of the executed chapter
(the book's execution cache follows the library's hash); within one execution each state is
drawn once, the default state serving both the frames and the PDF's figure.
"""

from __future__ import annotations

import base64
import html
import inspect
import io
import itertools
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from PIL import Image, features

from assocmem.keys import PAGE_BUILD_ENV
from assocmem.plotting import describe, figure_png

__all__ = [
    "MAX_FRAMES",
    "Explorer",
    "build_explorer",
    "explorer",
    "make_control",
    "static_page",
    "static_explorer",
]

_LIVE_HINT = "Move a control to redraw the figure here (needs a live kernel: Colab or Jupyter)."
#: Most states a static explorer saves (each frame is an image in the page: 20-60 kB).
MAX_FRAMES = 40
#: CSS class of a static explorer's box (the browser tests find it by this class).
STATIC_CLASS = "assocmem-explorer"
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_FRAME_FORMAT = "webp" if features.check("webp") else "png"


def static_page() -> bool:
    """Whether explorers are being drawn for a static page: the one switch of this module.

    True while the book's build executes a chapter (:data:`assocmem.keys.PAGE_BUILD_ENV` set by
    ``book/_ext/cell_budget.py`` in the kernels' environment): no reader's kernel will ever answer
    a control there, so an explorer with a ``static=`` grid saves its frames. Everywhere else (a
    Jupyter or Colab kernel, a script) explorers redraw through Python.
    """
    return bool(os.environ.get(PAGE_BUILD_ENV))


def _require_ipywidgets() -> Any:
    try:
        import ipywidgets
    except ImportError as exc:  # pragma: no cover - ipywidgets is a hard requirement
        raise ImportError(
            "assocmem.widgets needs ipywidgets; install it with `pip install ipywidgets` "
            "(or `pip install -r requirements.txt`)."
        ) from exc
    return ipywidgets


@dataclass(frozen=True)
class _Control:
    """A parsed control specification (what :func:`make_control` builds a widget from)."""

    name: str
    kind: str  # "int", "float", "options", "bool" or "widget"
    value: Any
    lo: float = 0.0
    hi: float = 0.0
    step: float = 0.0
    options: tuple[Any, ...] = ()
    widget: Any = None

    def allows(self, value: Any) -> bool:
        """Whether ``value`` is one the control offers (on the slider's steps, an option)."""
        if self.kind in ("int", "float"):
            ok = isinstance(value, (int, float, np.integer, np.floating))
            if not ok or isinstance(value, (bool, np.bool_)):
                return False
            tol = 1e-9 * max(1.0, abs(self.hi - self.lo))
            steps = (float(value) - self.lo) / self.step  # on the slider's grid of steps
            on_grid = abs(steps - round(steps)) < 1e-6
            return on_grid and self.lo - tol <= value <= self.hi + tol
        if self.kind == "options":
            return any(_same(value, o) for o in self.options)
        if self.kind == "bool":
            return isinstance(value, (bool, np.bool_))
        lo, hi = getattr(self.widget, "min", None), getattr(self.widget, "max", None)
        if lo is not None and hi is not None:
            return bool(lo <= value <= hi)
        options = getattr(self.widget, "options", None)
        if options is not None:
            values = [o[1] if isinstance(o, tuple) else o for o in options]
            return any(_same(value, o) for o in values)
        return True


def _same(a: Any, b: Any) -> bool:
    """Equal values; numbers compared to rounding (0.1 + 0.2 is 0.3)."""
    numbers = (int, float, np.integer, np.floating)
    if isinstance(a, numbers) and isinstance(b, numbers):
        if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
            return bool(a == b) and type(a) is type(b)
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b) if type(a) is type(b) else False


def _parse_control(name: str, spec: Any, default: Any = inspect.Parameter.empty) -> _Control:
    """Check one control specification (see :func:`make_control`) without building a widget."""
    w = _require_ipywidgets()
    if isinstance(spec, w.ValueWidget):
        return _Control(name, "widget", spec.value, widget=spec)
    if isinstance(spec, bool):
        return _Control(name, "bool", spec)
    if isinstance(spec, tuple):
        spec = tuple(v.item() if isinstance(v, (np.integer, np.floating)) else v for v in spec)
        if len(spec) not in (3, 4) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in spec
        ):
            raise TypeError(
                f"control {name!r}: a slider is (min, max, step) or (min, max, step, default) "
                f"of numbers, got {spec!r}"
            )
        lo, hi, step = spec[:3]
        if not all(math.isfinite(v) for v in spec):
            raise ValueError(f"control {name!r}: min, max, step and default must be finite")
        if not lo < hi:
            raise ValueError(f"control {name!r}: need min < max, got min={lo}, max={hi}")
        if not 0 < step <= hi - lo:
            raise ValueError(f"control {name!r}: need 0 < step <= max - min, got step={step}")
        value = spec[3] if len(spec) == 4 else default
        if len(spec) == 4 and not lo <= value <= hi:
            raise ValueError(f"control {name!r}: default {value} outside [{lo}, {hi}]")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not lo <= value <= hi:
            value = min(lo + step * round((hi - lo) / (2 * step)), hi)  # mid-range, on the grid
        if all(isinstance(v, int) for v in (lo, hi, step)) and float(value).is_integer():
            return _Control(name, "int", int(value), lo, hi, step)
        return _Control(name, "float", float(value), lo, hi, step)
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        options = tuple(spec)
        if not options:
            raise ValueError(f"control {name!r}: the list of options is empty")
        value = default if default in options else options[0]
        return _Control(name, "options", value, options=options)
    raise TypeError(
        f"control {name!r}: expected a widget, a (min, max, step[, default]) tuple, a list of "
        f"options or a bool, got {type(spec).__name__}"
    )


def make_control(name: str, spec: Any, default: Any = inspect.Parameter.empty) -> Any:
    """Turn a control specification into an ipywidgets widget.

    Parameters
    ----------
    name : str
        Parameter name, used as the widget's description.
    spec : widget, tuple or sequence
        An ipywidgets ``ValueWidget`` (used as is); ``(min, max, step)`` or
        ``(min, max, step, default)`` with all-integer entries (``IntSlider``) or numbers
        (``FloatSlider``); a list of options (``Dropdown``); a bool (``Checkbox``).
    default : optional
        Default value when ``spec`` does not give one (e.g. the drawing function's default);
        ignored when outside the slider range or not among the options.

    Returns
    -------
    ipywidgets.ValueWidget

    Raises
    ------
    ValueError
        If a slider has ``min >= max``, a non-positive step, or a default outside its range,
        or a list of options is empty.
    TypeError
        If ``spec`` is none of the above.
    """
    w = _require_ipywidgets()
    c = _parse_control(name, spec, default)
    style = {"description_width": "initial"}
    if c.kind == "widget":
        return c.widget
    if c.kind == "bool":
        return w.Checkbox(value=c.value, description=name, style=style)
    if c.kind == "int":
        return w.IntSlider(
            value=c.value, min=c.lo, max=c.hi, step=c.step, description=name,
            continuous_update=False, style=style,
        )  # fmt: skip
    if c.kind == "float":
        return w.FloatSlider(
            value=c.value, min=c.lo, max=c.hi, step=c.step, description=name,
            continuous_update=False, style=style, readout_format=".3g",
        )  # fmt: skip
    return w.Dropdown(options=list(c.options), value=c.value, description=name, style=style)


@dataclass
class Explorer:
    """The parts of an explorer: the drawing function, its controls and the live output area."""

    draw: Callable[..., Figure]
    controls: dict[str, Any]
    output: Any
    fixed: dict[str, Any] = field(default_factory=dict)

    @property
    def values(self) -> dict[str, Any]:
        """Current parameter values (controls and fixed keyword arguments)."""
        return {**self.fixed, **{k: c.value for k, c in self.controls.items()}}

    def figure(self, **values: Any) -> Figure:
        """Draw the figure for the current values, or for ``values`` where given.

        Raises TypeError if ``draw`` returns no Figure.
        """
        return _draw_checked(self.draw, {**self.values, **values})

    def redraw(self, *_: Any) -> None:
        """Redraw the figure into the output area (the controls' observer)."""
        from IPython.display import display

        with self.output:
            self.output.clear_output(wait=True)
            fig = self.figure()
            data, meta = _live_bundle(fig, _state_text(self.values))
            display(data, metadata=meta, raw=True)
            plt.close(fig)


def _state_text(values: Mapping[str, Any]) -> str:
    """Return an explorer's state in words, ``"alpha = 0.8, d = 48"`` (data left out)."""
    shown = [
        f"{k} = {_label(v)}"
        for k, v in values.items()
        if isinstance(v, (str, bool, int, float, np.integer, np.floating))
    ]
    return ", ".join(shown)


def _frame_alt(fig: Figure, state: str, draw_name: str) -> str:
    """Return a frame's alternative text: what the figure shows, then at which state."""
    what = describe(fig) or f"Figure drawn by {draw_name}."
    return f"{what} Shown at {state}." if state else what


def _img(data: bytes, fmt: str, alt: str, width: int) -> str:
    """Return an ``<img>`` holding ``data`` inline, at most ``width`` CSS px wide, with ``alt``."""
    src = f"data:image/{fmt};base64,{base64.b64encode(data).decode('ascii')}"
    return (
        f'<img src="{src}" width="{width}" alt="{html.escape(alt, quote=True)}" '
        'style="max-width: 100%; height: auto">'
    )


def _live_bundle(fig: Figure, state: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return a redrawn figure for a live kernel: HTML with an ``alt``, and the PNG.

    Front ends show the HTML (its ``alt`` says what the figure shows and at which state); those
    that show no HTML show the PNG.
    """
    out = figure_png(fig)
    if out is None:
        raise TypeError("the explorer's draw function returned an empty figure")
    png, size = out
    alt = _frame_alt(fig, state, "the explorer")
    data = {
        "text/html": _img(png, "png", alt, size["width"]),
        "image/png": base64.b64encode(png).decode("ascii"),
        "text/plain": alt,
    }
    return data, {"image/png": size}


def _draw_checked(draw: Callable[..., Figure], values: Mapping[str, Any]) -> Figure:
    fig = draw(**values)
    if not isinstance(fig, Figure):
        raise TypeError(
            f"the explorer's draw function must return a matplotlib Figure, "
            f"got {type(fig).__name__}"
        )
    return fig


def _parse_controls(
    draw: Callable[..., Figure], controls: Mapping[str, Any]
) -> dict[str, _Control]:
    """Check ``draw`` and its control specifications; the controls start at draw's defaults."""
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {type(draw).__name__}")
    if not controls:
        raise ValueError("an explorer needs at least one control, e.g. alpha=(0.1, 2.0, 0.1)")
    try:
        params = inspect.signature(draw).parameters
    except (TypeError, ValueError):  # builtins without a signature
        params = {}  # type: ignore[assignment]
    takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for name in controls:
        if params and not takes_kwargs and name not in params:
            raise TypeError(f"control {name!r} is not a parameter of {draw.__name__}()")
    return {
        name: _parse_control(
            name, spec, params[name].default if name in params else inspect.Parameter.empty
        )
        for name, spec in controls.items()
    }


def build_explorer(
    draw: Callable[..., Figure], *, fixed: Mapping[str, Any] | None = None, **controls: Any
) -> Explorer:
    """Build a live :class:`Explorer` without displaying it (see :func:`explorer`).

    Parameters
    ----------
    draw : callable returning a matplotlib Figure
        The library's draw function.
    fixed : mapping, optional
        Keyword arguments passed to ``draw`` unchanged (no control).
    **controls
        One control specification per parameter of ``draw`` (see :func:`make_control`).

    Returns
    -------
    Explorer
        Its controls start at ``draw``'s own defaults.

    Raises
    ------
    TypeError
        If ``draw`` is not callable or a control names a parameter ``draw`` does not accept.
    ValueError
        If no control is given or a control specification is invalid (see :func:`make_control`).
    """
    w = _require_ipywidgets()
    parsed = _parse_controls(draw, controls)
    built = {name: make_control(name, controls[name], c.value) for name, c in parsed.items()}
    output = w.Output()
    output.append_stdout(_LIVE_HINT + "\n")
    exp = Explorer(draw=draw, controls=built, output=output, fixed=dict(fixed or {}))
    for c in built.values():
        c.observe(exp.redraw, names="value")
    return exp


def _label(value: Any) -> str:
    """How a slider shows one value of a static grid."""
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        return f"{float(value):.3g}"
    return str(value)


def _static_axes(
    parsed: Mapping[str, _Control], static: Mapping[str, Sequence[Any]]
) -> list[tuple[str, tuple[Any, ...], int]]:
    """Check a static grid against the controls: ``(name, values, index of the default)``."""
    if not isinstance(static, Mapping) or not 1 <= len(static) <= 2:
        raise ValueError(
            f"static must map one or two control names to their values, got {static!r}"
        )
    axes = []
    for name, values in static.items():
        if name not in parsed:
            raise ValueError(f"static: {name!r} is not a control of this explorer")
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"static[{name!r}] must be a non-empty list of values, got {values!r}")
        control = parsed[name]
        bad = [v for v in values if not control.allows(v)]
        if bad:
            raise ValueError(f"static[{name!r}]: {bad} not offered by control {name!r}")
        labels = [_label(v) for v in values]
        if len(set(labels)) != len(labels):
            raise ValueError(f"static[{name!r}]: repeated values {labels}")
        at = [i for i, v in enumerate(values) if _same(v, control.value)]
        if not at:
            raise ValueError(
                f"static[{name!r}] must hold the control's default {control.value!r}, "
                f"got {list(values)}"
            )
        axes.append((name, tuple(values), at[0]))
    states = math.prod(len(v) for _, v, _ in axes)
    if states > MAX_FRAMES:
        raise ValueError(
            f"static: {states} states ({' x '.join(str(len(v)) for _, v, _ in axes)}); at most "
            f"{MAX_FRAMES} fit a page"
        )
    return axes


def _opaque(png: bytes) -> Image.Image:
    """Flatten a PNG onto white: an RGB image, opaque whatever the page's colours."""
    im = Image.open(io.BytesIO(png)).convert("RGBA")
    flat = Image.new("RGB", im.size, "white")
    flat.paste(im, (0, 0), mask=im)
    return flat


def _encode(im: Image.Image, size: tuple[int, int]) -> bytes:
    """``im`` padded with white to ``size`` (top left kept in place), in :data:`_FRAME_FORMAT`."""
    canvas = Image.new("RGB", size, "white")
    canvas.paste(im, (0, 0))
    buf = io.BytesIO()
    if _FRAME_FORMAT == "webp":
        canvas.save(buf, format="webp", lossless=True, method=4)
    else:  # pragma: no cover - Pillow without libwebp
        canvas.save(buf, format="png", optimize=True)
    return buf.getvalue()


@dataclass
class StaticExplorer:
    """A static explorer: its widget box, the saved frames and the default figure for the PDF.

    Attributes
    ----------
    box : ipywidgets.VBox
        Sliders, a note on the held controls and the Stack(s) of frames (CSS class
        :data:`STATIC_CLASS`).
    axes : list of (name, values)
        The grid, outer axis first.
    frames : dict
        Encoded image bytes (:attr:`format`) per state, keyed by the tuple of value indices.
    default : tuple of int
        Indices of the default state.
    pdf_png : bytes
        The default figure as a PNG at the book's savefig dpi (the PDF's figure).
    pdf_shown : (int, int)
        The size it is shown at (the default figure at its own dpi), in CSS pixels.
    size : (int, int)
        Width and height of every frame in pixels (the figure at its own dpi).
    held : dict
        The controls not on the grid, at the values every frame is drawn with.
    links : list of ipywidgets.widgets.widget_link.Link
        The JavaScript links from each slider's ``index`` to its Stacks' ``selected_index``.
    format : str
        The frames' image format, ``"webp"`` (lossless) or ``"png"``.
    draw_name : str
        Name of the drawing function (the alternative text of a figure that describes nothing).
    alts : dict
        Each frame's alternative text (what it shows, at which state), keyed like ``frames``.
    """

    box: Any
    axes: list[tuple[str, tuple[Any, ...]]]
    frames: dict[tuple[int, ...], bytes]
    default: tuple[int, ...]
    pdf_png: bytes
    pdf_shown: tuple[int, int]
    size: tuple[int, int]
    held: dict[str, Any]
    links: list[Any] = field(default_factory=list)
    format: str = _FRAME_FORMAT
    draw_name: str = "draw"
    alts: dict[tuple[int, ...], str] = field(default_factory=dict)

    def _alt(self) -> str:
        if self.default in self.alts:
            return self.alts[self.default]
        values = {
            name: values[i] for (name, values), i in zip(self.axes, self.default, strict=True)
        }
        return f"Figure drawn by {self.draw_name}. Shown at {_state_text({**values, **self.held})}."

    def mimebundle(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return ``(data, metadata)`` of the one output an explorer leaves on the page.

        ``text/html`` (the HTML page) holds the widget view, which the widget manager renders
        from the saved state, and in a ``<noscript>`` the default frame; ``image/png`` (the PDF,
        which has no widgets) holds the default figure; ``text/plain`` says what it is.
        """
        view = self.box._repr_mimebundle_()[_WIDGET_VIEW]
        frame = base64.b64encode(self.frames[self.default]).decode("ascii")
        alt = html.escape(self._alt(), quote=True)
        text_html = (
            f'<noscript><img src="data:image/{self.format};base64,{frame}" '
            f'width="{self.size[0]}" alt="{alt}"></noscript>'
            f'<script type="{_WIDGET_VIEW}">{json.dumps(view)}</script>'
        )  # the PNG below carries the same text in its Description chunk
        data = {
            "text/plain": self._alt(),
            "text/html": text_html,
            "image/png": base64.b64encode(self.pdf_png).decode("ascii"),
        }
        width, height = self.pdf_shown
        return data, {"image/png": {"width": width, "height": height}}


def static_explorer(
    draw: Callable[..., Figure],
    static: Mapping[str, Sequence[Any]],
    *,
    fixed: Mapping[str, Any] | None = None,
    **controls: Any,
) -> StaticExplorer:
    """Draw every state of a static grid and link sliders to the frames in JavaScript.

    Parameters
    ----------
    draw, fixed, **controls
        As for :func:`explorer`.
    static : mapping
        One or two control names, each to the list of its values to precompute (outer axis
        first). Each value must be one its control offers, each list must hold the control's
        default, and the grid has at most :data:`MAX_FRAMES` states. The other controls are held
        at their defaults.

    Returns
    -------
    StaticExplorer
        Nothing is displayed (:func:`explorer` displays it when :func:`static_page`).

    Raises
    ------
    TypeError, ValueError
        As for :func:`build_explorer`; ValueError for a grid that breaks the rules above;
        TypeError if ``draw`` returns no Figure.
    """
    w = _require_ipywidgets()
    parsed = _parse_controls(draw, controls)
    axes = _static_axes(parsed, static)
    names = [name for name, _, _ in axes]
    base = {**dict(fixed or {}), **{k: c.value for k, c in parsed.items()}}
    held = {k: c.value for k, c in parsed.items() if k not in names}
    default = tuple(i for _, _, i in axes)
    images: dict[tuple[int, ...], Image.Image] = {}
    alts: dict[tuple[int, ...], str] = {}
    draw_name = getattr(draw, "__name__", "draw")
    pdf_png = b""
    for index in itertools.product(*(range(len(values)) for _, values, _ in axes)):
        state = {name: values[i] for (name, values, _), i in zip(axes, index, strict=True)}
        fig = _draw_checked(draw, {**base, **state})
        alts[index] = _frame_alt(fig, _state_text({**state, **held}), draw_name)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi="figure")
        images[index] = _opaque(buf.getvalue())
        if index == default:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", facecolor="white", metadata={"Description": alts[index]})
            pdf_png = buf.getvalue()
        plt.close(fig)
    size = (max(im.size[0] for im in images.values()), max(im.size[1] for im in images.values()))
    frames = {index: _encode(im, size) for index, im in images.items()}

    style = {"description_width": "initial"}
    sliders = [
        w.SelectionSlider(
            options=[(_label(v), v) for v in values],
            value=values[i],
            description=name,
            continuous_update=True,
            style=style,
            layout=w.Layout(width="auto", min_width="45%"),
        )  # fmt: skip
        for name, values, i in axes
    ]

    fit = w.Layout(max_width="100%", height="auto")  # one layout model for every frame

    def image(index: tuple[int, ...]) -> Any:
        # an <img> with its alt in an HTML widget: ipywidgets' Image has no alternative text
        return w.HTML(_img(frames[index], _FRAME_FORMAT, alts[index], size[0]), layout=fit)

    if len(axes) == 1:
        stack = w.Stack([image((i,)) for i in range(len(axes[0][1]))], selected_index=default[0])
        links = [w.jslink((sliders[0], "index"), (stack, "selected_index"))]
    else:
        inner = [
            w.Stack([image((i, j)) for j in range(len(axes[1][1]))], selected_index=default[1])
            for i in range(len(axes[0][1]))
        ]
        stack = w.Stack(inner, selected_index=default[0])
        links = [w.jslink((sliders[0], "index"), (stack, "selected_index"))]
        links += [w.jslink((sliders[1], "index"), (s, "selected_index")) for s in inner]
    held_text = ", ".join(f"{html.escape(k)} = {html.escape(_label(v))}" for k, v in held.items())
    note = (
        f"{len(frames)} precomputed figures"
        + (f", {held_text}" if held else "")
        + "; the notebook (Colab, Jupyter) redraws for every value."
    )
    box = w.VBox(
        [w.HBox(sliders, layout=w.Layout(flex_flow="row wrap")),
         w.HTML(f'<span style="font-size: 0.85em">{note}</span>'), stack]
    )  # fmt: skip
    box.add_class(STATIC_CLASS)
    return StaticExplorer(
        box=box,
        axes=[(name, values) for name, values, _ in axes],
        frames=frames,
        default=default,
        pdf_png=pdf_png,
        pdf_shown=images[default].size,
        size=size,
        held=held,
        links=links,
        draw_name=draw_name,
        alts=alts,
    )


def explorer(
    draw: Callable[..., Figure],
    *,
    fixed: Mapping[str, Any] | None = None,
    static: Mapping[str, Sequence[Any]] | None = None,
    **controls: Any,
) -> None:
    """Show an explorer: live controls in a kernel, precomputed frames on the book's page.

    Parameters
    ----------
    draw : callable
        A library plotting function ``draw(**params) -> matplotlib.figure.Figure``.
    fixed : mapping, optional
        Keyword arguments passed to ``draw`` unchanged (no control).
    static : mapping, optional
        The grid the static page saves: one or two control names, each to the list of its values
        (see :func:`static_explorer`; at most :data:`MAX_FRAMES` states). Checked in every
        mode, used only where :func:`static_page` is true. Without it the page shows the default
        figure and controls that need a live kernel.
    **controls
        One control per parameter of ``draw``; see :func:`make_control` for the forms accepted.
        The default of a slider is its fourth entry, else ``draw``'s own default, else mid-range.

    Returns
    -------
    None
        Output is displayed; nothing is returned, so a cell ending in ``explorer(...)`` shows no
        extra text.

    Raises
    ------
    TypeError, ValueError
        As for :func:`build_explorer` and :func:`static_explorer`; also TypeError if ``draw``
        returns no Figure.

    Notes
    -----
    The one decision between the two explorers is :func:`static_page` (see the module's
    docstring): in the book's build an explorer with ``static=`` displays one output whose HTML
    is the linked sliders and frames (with the default frame for a reader without JavaScript)
    and whose PNG is the default figure (the PDF); anywhere else it displays the default figure,
    then controls over their full ranges that redraw it through ``draw``.
    """
    from IPython.display import display

    w = _require_ipywidgets()
    if static is not None:
        _static_axes(_parse_controls(draw, controls), static)  # a bad grid fails in Colab too
        if static_page():
            data, meta = static_explorer(draw, static, fixed=fixed, **controls).mimebundle()
            display(data, metadata=meta, raw=True)
            return
    exp = build_explorer(draw, fixed=fixed, **controls)
    fig = exp.figure()
    display(fig)  # the static default view: an ordinary PNG in the executed page
    plt.close(fig)
    display(w.VBox([w.HBox(list(exp.controls.values())), exp.output]))
