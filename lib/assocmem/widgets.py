"""Explorers: sliders that redraw a library figure in a live kernel, a static figure in the HTML.

A chapter's explorer is one call::

    explorer(plot_score_matrix, d=(16, 96, 16, 48), alpha=(0.2, 2.0, 0.1, 0.8))

It always displays the default-parameter figure as an ordinary PNG image, so the static HTML
page shows it without JavaScript. It then displays the controls and an output area; in a live
kernel (Jupyter, Colab) moving a control redraws the figure there through the same library
function. In the executed book the controls are saved as widget state and produce no warning.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["Explorer", "build_explorer", "explorer", "make_control"]

_LIVE_HINT = "Move a control to redraw the figure here (needs a live kernel: Colab or Jupyter)."


def _require_ipywidgets() -> Any:
    try:
        import ipywidgets
    except ImportError as exc:  # pragma: no cover - ipywidgets is a hard requirement
        raise ImportError(
            "assocmem.widgets needs ipywidgets; install it with `pip install ipywidgets` "
            "(or `pip install -r requirements.txt`)."
        ) from exc
    return ipywidgets


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
    if isinstance(spec, w.ValueWidget):
        return spec
    style = {"description_width": "initial"}
    if isinstance(spec, bool):
        return w.Checkbox(value=spec, description=name, style=style)
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
            return w.IntSlider(
                value=int(value), min=lo, max=hi, step=step, description=name,
                continuous_update=False, style=style,
            )  # fmt: skip
        return w.FloatSlider(
            value=float(value), min=lo, max=hi, step=step, description=name,
            continuous_update=False, style=style, readout_format=".3g",
        )  # fmt: skip
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        options = list(spec)
        if not options:
            raise ValueError(f"control {name!r}: the list of options is empty")
        value = default if default in options else options[0]
        return w.Dropdown(options=options, value=value, description=name, style=style)
    raise TypeError(
        f"control {name!r}: expected a widget, a (min, max, step[, default]) tuple, a list of "
        f"options or a bool, got {type(spec).__name__}"
    )


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

    def figure(self) -> Figure:
        """Draw the figure for the current values (raises TypeError if draw returns no Figure)."""
        fig = self.draw(**self.values)
        if not isinstance(fig, Figure):
            raise TypeError(
                f"the explorer's draw function must return a matplotlib Figure, "
                f"got {type(fig).__name__}"
            )
        return fig

    def redraw(self, *_: Any) -> None:
        """Redraw the figure into the output area (the controls' observer)."""
        from IPython.display import display

        with self.output:
            self.output.clear_output(wait=True)
            fig = self.figure()
            display(fig)
            plt.close(fig)


def build_explorer(
    draw: Callable[..., Figure], *, fixed: Mapping[str, Any] | None = None, **controls: Any
) -> Explorer:
    """Build an :class:`Explorer` without displaying it (see :func:`explorer`).

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
    built = {
        name: make_control(
            name, spec, params[name].default if name in params else inspect.Parameter.empty
        )
        for name, spec in controls.items()
    }
    output = w.Output()
    output.append_stdout(_LIVE_HINT + "\n")
    exp = Explorer(draw=draw, controls=built, output=output, fixed=dict(fixed or {}))
    for c in built.values():
        c.observe(exp.redraw, names="value")
    return exp


def explorer(
    draw: Callable[..., Figure], *, fixed: Mapping[str, Any] | None = None, **controls: Any
) -> None:
    """Show an explorer: the default figure as a static image, then live controls.

    Parameters
    ----------
    draw : callable
        A library plotting function ``draw(**params) -> matplotlib.figure.Figure``.
    fixed : mapping, optional
        Keyword arguments passed to ``draw`` unchanged (no control).
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
        As for :func:`build_explorer`; also TypeError if ``draw`` returns no Figure.
    """
    from IPython.display import display

    w = _require_ipywidgets()
    exp = build_explorer(draw, fixed=fixed, **controls)
    fig = exp.figure()
    display(fig)  # the static default view: an ordinary PNG in the executed page
    plt.close(fig)
    display(w.VBox([w.HBox(list(exp.controls.values())), exp.output]))
