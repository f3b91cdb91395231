"""The perceptron, chapter 2's warm-up: Cover's counting function and the storable fraction.

A perceptron through the origin with ``N`` weights stores ``P`` patterns ``xi_mu`` with labels
``sigma_mu = +-1`` when some ``w`` has ``sigma_mu w . xi_mu > 0`` for every ``mu``. For patterns
in general position, Cover (1965) counted the labellings (dichotomies) that can be stored:
``C(P, N) = 2 sum_{k=0}^{N-1} binom(P - 1, k)`` of the ``2^P``. The fraction
(:func:`cover_fraction`) is a binomial probability, 1/2 exactly at ``P = 2N``, and it tends to a
step at ``alpha = P / N = 2`` as ``N`` grows: Gardner's capacity of the zero-margin perceptron
(:func:`assocmem.linear.theory.finite_size.gardner_capacity` at margin 0), which the replica
computation of chapter 2 recovers.

Source: T. M. Cover, IEEE Trans. Electron. Comput. EC-14, 326 (1965), Theorem 1; chapter 2,
eq. ``eq-cover``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from assocmem._validate import check_int

__all__ = ["cover_fraction"]


def cover_fraction(P: int, N: int) -> float:
    """Fraction of the ``2^P`` labellings of ``P`` points a perceptron with ``N`` weights stores.

    ``C(P, N) / 2^P = 2^{1-P} sum_{k=0}^{N-1} binom(P - 1, k)``, the probability that a
    binomial ``Bin(P - 1, 1/2)`` is at most ``N - 1`` (points in general position in ``R^N``,
    a hyperplane through the origin).

    Parameters
    ----------
    P, N : int
        Patterns and weights, each >= 1.

    Returns
    -------
    float
        The fraction, in (0, 1]: 1 for ``P <= N``, exactly 1/2 at ``P = 2N`` (computed in exact
        integer arithmetic, then rounded once; meant for ``P`` up to some thousands).

    Raises
    ------
    TypeError, ValueError
        If ``P`` or ``N`` is not an integer >= 1.

    Examples
    --------
    >>> cover_fraction(40, 20)
    0.5
    >>> cover_fraction(3, 2)  # 6 of the 8 labellings of 3 points in the plane
    0.75
    """
    m = check_int("P", P, 1) - 1
    k = check_int("N", N, 1)
    count = sum(math.comb(m, i) for i in range(min(k, m + 1)))
    return float(Fraction(count, 2**m))
