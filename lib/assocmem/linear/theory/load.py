"""The load ``alpha = p log p / d^2`` and its inverse (numpy/scipy only).

Source: the load variable of Giorlandino, Goldt & Maillard (arXiv:2605.10795, abstract:
``p_c log p_c / d^2 = 1/2``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import lambertw

from assocmem._validate import check_int, check_positive


def load_for_pairs(p: int, d: int) -> float:
    """Load ``alpha = p log p / d^2`` of ``p`` associations in dimension ``d``.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 2.

    Returns
    -------
    float
        ``p * log(p) / d**2`` (natural log).

    Raises
    ------
    TypeError
        If ``p`` or ``d`` is not an integer.
    ValueError
        If ``p < 2`` or ``d < 2``.

    Notes
    -----
    Chapter 1, eq. ``eq-load``. Source: the load variable implied by ``p_c log p_c / d^2 = 1/2``
    (arXiv:2605.10795, abstract).

    Examples
    --------
    ``p = d`` gives ``alpha = log(d) / d``:

    >>> load_for_pairs(100, 100)  # log(100) / 100
    0.04605170185988092
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 2)
    return p * math.log(p) / d**2


def dimension_for_load(alpha: float, p: float) -> float:
    """Real-valued dimension ``d`` at which ``p`` associations have load ``alpha``.

    Parameters
    ----------
    alpha : float
        Load, > 0 and finite.
    p : float
        Number of associations, real (theory curves reach ``p = 1e30``), > 1 and finite.

    Returns
    -------
    float
        ``sqrt(p log p / alpha)``, the inverse of :func:`load_for_pairs` in ``d``.

    Raises
    ------
    TypeError
        If ``alpha`` or ``p`` is not a real number.
    ValueError
        If ``alpha <= 0``, ``p <= 1``, either is not finite, or the dimension overflows.

    Notes
    -----
    Chapter 1, eq. ``eq-load``, solved for ``d``.

    Examples
    --------
    >>> dimension_for_load(load_for_pairs(100, 40), 100.0)  # doctest: +ELLIPSIS
    40.0...
    """
    alpha = check_positive("alpha", alpha)
    p = check_positive("p", p)
    if p <= 1:
        raise ValueError(f"p must be > 1, got {p!r}")
    d = math.sqrt(p * math.log(p) / alpha)
    if not math.isfinite(d):
        raise ValueError(f"alpha={alpha!r} and p={p!r} give no finite dimension (overflow)")
    return d


def pairs_at_load(alpha: float, d: int) -> float:
    """Real-valued inverse of the load: ``p*`` with ``p* log p* = alpha d^2``.

    Parameters
    ----------
    alpha : float
        Load, > 0 and finite.
    d : int
        Embedding dimension, >= 2.

    Returns
    -------
    float
        ``p* = x / W0(x)`` with ``x = alpha d^2`` and ``W0`` the principal branch of the Lambert
        function (``p* > 1``; not rounded).

    Raises
    ------
    TypeError
        If ``alpha`` is not a real number or ``d`` not an integer.
    ValueError
        If ``alpha <= 0`` (or not finite) or ``d < 2``.

    Notes
    -----
    Chapter 1, eq. ``eq-load``, inverted. Source: inverse of the load variable
    ``alpha = p log p / d^2`` (arXiv:2605.10795, abstract): with ``p = e^w``,
    ``p log p = w e^w = x`` gives ``w = W0(x)`` and ``p = e^w = x / w``.

    Examples
    --------
    At the capacity ``alpha = 1/2`` in ``d = 100``, ``p* log p* = 5000``:

    >>> p_star = pairs_at_load(0.5, 100)
    >>> round(p_star, 2), round(p_star * math.log(p_star), 9)
    (754.58, 5000.0)
    >>> round(pairs_at_load(load_for_pairs(100, 100), 100), 9)  # the inverse of the load
    100.0
    """
    alpha = check_positive("alpha", alpha)
    d = check_int("d", d, 2)
    x = alpha * d**2
    if x < 1e-12:  # W0(x) = x - x^2 + ...: the quotient is 1 + x to double precision (and
        return 1.0 + x  # W0 of a subnormal x is 0, which would make it inf)
    # the complex quotient's real part (not x / Re W0(x), which can differ in the last bit)
    return float(np.real(x / lambertw(x)))


def pairs_for_load(alpha: float, d: int) -> int:
    """Return the number of associations ``p`` with ``p log p = alpha d^2`` (nearest integer >= 2).

    Parameters
    ----------
    alpha : float
        Load, > 0 and finite.
    d : int
        Embedding dimension, >= 2.

    Returns
    -------
    int
        ``max(2, round(p*))`` with ``p* = pairs_at_load(alpha, d)`` (a tie ``p* = n + 1/2``
        rounds down).

    Raises
    ------
    TypeError
        If ``alpha`` is not a real number or ``d`` not an integer.
    ValueError
        If ``alpha <= 0`` (or not finite) or ``d < 2``.

    Notes
    -----
    Exact inverse of :func:`load_for_pairs` on integers: ``pairs_for_load(load_for_pairs(p, d), d)
    == p`` for every ``p >= 2``. Chapter 1, eq. ``eq-load``, inverted. Source: as
    :func:`pairs_at_load`.
    """
    p_star = pairs_at_load(alpha, d)
    # p log p is increasing for p >= 1: pick the nearer of the two neighbouring integers
    lo = max(1, math.floor(p_star))
    p = lo if p_star - lo <= 0.5 else lo + 1
    return max(2, int(p))
