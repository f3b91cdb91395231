"""Small statistics shared by both parts: where a measured curve crosses a level.

One home for the transition point of a sampled curve (Part I: the fraction of perfectly stored
instances against the load; chapter 5: the gate's winner probability against the competition).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["first_crossing"]


def first_crossing(
    x: ArrayLike, y: ArrayLike, level: float = 0.5, *, direction: str = "down"
) -> float:
    """Abscissa where ``y`` first crosses ``level``, by linear interpolation between samples.

    Scans consecutive pairs ``(x[i], y[i]), (x[i+1], y[i+1])`` in order and interpolates in the
    first pair that straddles the level in the given direction.

    Parameters
    ----------
    x : array_like, shape (n,)
        Abscissae, in the order the curve is traversed (usually increasing).
    y : array_like, shape (n,)
        Sampled values of the curve.
    level : float
        The level to cross (default 1/2: a success probability).
    direction : {"down", "up"}
        ``"down"``: first ``i`` with ``y[i] >= level > y[i+1]``; ``"up"``: first ``i`` with
        ``y[i] < level <= y[i+1]``.

    Returns
    -------
    float
        The interpolated abscissa; NaN when no pair straddles the level (the curve stays on one
        side within the sampled range, or is shorter than two points).

    Raises
    ------
    TypeError
        If ``x`` or ``y`` is not numeric, or ``level`` is not a real number.
    ValueError
        If ``x`` and ``y`` differ in shape, are not 1-d or not finite (a NaN could hide a
        crossing), ``level`` is not finite, or ``direction`` is unknown.

    Examples
    --------
    >>> first_crossing([0.5, 0.8, 1.1], [1.0, 0.75, 0.0])
    0.9
    """
    try:
        xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("x and y must be sequences of real numbers") from exc
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-d of one length, got {xa.shape} and {ya.shape}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise ValueError("x and y must be finite (a NaN could hide a crossing)")
    if isinstance(level, bool) or not isinstance(level, (int, float, np.integer, np.floating)):
        raise TypeError(f"level must be a real number, got {type(level).__name__}")
    if not math.isfinite(level):
        raise ValueError(f"level must be finite, got {level}")
    if direction not in ("down", "up"):
        raise ValueError(f"direction must be 'down' or 'up', got {direction!r}")
    for i in range(len(ya) - 1):
        y0, y1 = ya[i], ya[i + 1]
        if (y0 >= level > y1) if direction == "down" else (y0 < level <= y1):
            return float(xa[i] + (y0 - level) / (y0 - y1) * (xa[i + 1] - xa[i]))
    return math.nan
