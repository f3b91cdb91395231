"""The memories that store an instance form a convex cone: its section by a plane, and its size.

Perfect storage is ``p (p - 1)`` homogeneous linear inequalities ``a_k . vec(W) > 0``
(:mod:`.constraints`), so the memories that store an instance form an open convex cone in the
``d^2``-dimensional space of weights: a positive multiple of a storing ``W`` stores, and so does
the sum of two. Chapter 1 works one small instance by hand (``d = 2``, ``p = 3``: six
inequalities on four weights) and looks at that cone in three ways:

* :func:`feasible_wedge` — in a plane, each inequality is a half-plane through the origin and
  their intersection is one wedge (or nothing): its two edge angles;
* :func:`target_wedges` — for ``d = 2``, the output directions ``y`` for which target ``mu``
  beats every other target (``(u_mu - u_nu) . y > 0``): association ``mu`` is recalled exactly
  when ``W e_mu`` lands in its wedge;
* :func:`plane_section` — the cone cut by the plane spanned by two memories (in an orthonormal
  Frobenius basis of that plane, so angles are angles between memories);
* :func:`stored_direction_fraction` — the fraction of directions of ``W`` (uniform on the
  sphere) that store every association, with its Wilson interval: Gardner's volume of one
  instance (chapter 2), by Monte Carlo.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2 (reconstruction,
chapter 1, eq. ``eq-op``); the volume fraction is Gardner's (1988) idea for one instance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_finite_array, check_int
from assocmem.estimate import Estimate
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.linear.storage.constraints import (
    check_instance,
    constraint_arrays,
    constraint_margins,
    constraint_matrix,
)
from assocmem.stats import rate
from assocmem.streams import Seed, numpy_rng

__all__ = [
    "PlaneSection",
    "feasible_wedge",
    "target_wedges",
    "plane_section",
    "stored_direction_fraction",
]

#: Most entries ``n_directions * p (p - 1) * d^2`` one call of
#: :func:`stored_direction_fraction` multiplies at once (the work is done in chunks of this size).
_CHUNK_ENTRIES = 4_000_000

#: Most constraint entries ``p (p - 1) d^2`` of an instance :func:`stored_direction_fraction`
#: takes: it is a hand-sized tool (a random direction almost never stores a large instance).
MAX_CONSTRAINT_ENTRIES = 100_000


def feasible_wedge(normals: ArrayLike) -> tuple[float, float] | None:
    """Return the wedge of directions ``x = (cos t, sin t)`` with ``n_k . x > 0`` for every ``k``.

    Each row is the normal of a half-plane through the origin; the half-planes' intersection is
    an open convex cone of the plane: a wedge of opening below pi, or empty.

    Parameters
    ----------
    normals : array_like, shape (k, 2)
        The normals, k >= 1, finite. A zero row makes the wedge empty (``0 > 0`` fails).

    Returns
    -------
    (low, high) or None
        The edge angles in radians, ``low < high < low + pi``, ``low`` in ``(-pi, pi]``: the
        directions ``t`` in the open interval ``(low, high)`` satisfy every inequality. None
        when no direction does.

    Raises
    ------
    ValueError
        If ``normals`` is not a non-empty (k, 2) array of finite numbers.

    Examples
    --------
    >>> lo, hi = feasible_wedge([[1.0, 0.0], [0.0, 1.0]])  # the open first quadrant
    >>> round(lo, 6), round(hi, 6)
    (0.0, 1.570796)
    >>> feasible_wedge([[1.0, 0.0], [-1.0, 0.0]]) is None
    True
    """
    n = check_finite_array("normals", normals, ndim=2)
    if n.shape[0] < 1 or n.shape[1] != 2:
        raise ValueError(f"normals must have shape (k, 2) with k >= 1, got {n.shape}")
    size = np.hypot(n[:, 0], n[:, 1])
    if np.any(size <= 1e-14 * max(1.0, float(size.max()))):
        return None
    phi = np.arctan2(n[:, 1], n[:, 0])
    # every edge of the wedge is an edge of some half-plane: phi_k -/+ pi/2
    edges = np.sort(np.mod(np.concatenate([phi - math.pi / 2, phi + math.pi / 2]), 2 * math.pi))
    gaps = np.diff(np.concatenate([edges, edges[:1] + 2 * math.pi]))
    mids = edges + gaps / 2

    def inside(t: NDArray[np.float64]) -> NDArray[np.bool_]:
        return np.all(n @ np.stack([np.cos(t), np.sin(t)]) > 0, axis=0)

    ok = inside(mids) & (gaps > 0)
    if not ok.any():
        return None
    # the feasible arcs form one run of consecutive segments (a convex wedge): find its start
    k = len(edges)
    first = next(i for i in range(k) if ok[i] and not ok[i - 1]) if not ok.all() else 0
    low = float(edges[first])
    high = low
    i = first
    while ok[i % k] and high - low < 2 * math.pi:
        high += float(gaps[i % k])
        i += 1
    if low > math.pi:
        low, high = low - 2 * math.pi, high - 2 * math.pi
    return low, high


def target_wedges(problem: MemoryProblem) -> list[tuple[float, float] | None]:
    """For ``d = 2``: the wedge of output directions in which each target beats all the others.

    Association ``mu`` is recalled by ``W`` exactly when the direction of ``W e_mu`` lies in
    wedge ``mu``, ``{y : (u_mu - u_nu) . y > 0 for every nu != mu}`` (the original problem's
    competitors; for the decoupled problem, its own private competitors).

    Parameters
    ----------
    problem : MemoryProblem
        An unbatched instance with ``d = 2``.

    Returns
    -------
    list of (low, high) or None
        One per association, as :func:`feasible_wedge`: None when the target can never win
        (it lies inside the convex hull of its competitors).

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem, or ``d != 2``.
    """
    check_instance(problem)
    e, u, c = constraint_arrays(problem)
    p, d = e.shape
    if d != 2:
        raise ValueError(f"target_wedges draws outputs in the plane: needs d = 2, got d = {d}")
    wedges = []
    for mu in range(p):
        rivals = np.delete(u, mu, axis=0) if c is None else c[mu]
        wedges.append(feasible_wedge(u[mu] - rivals))
    return wedges


@dataclass(frozen=True)
class PlaneSection:
    """The cone of storing memories cut by the plane of two memories (:func:`plane_section`).

    Attributes
    ----------
    basis : numpy.ndarray, float64, shape (2, d, d)
        An orthonormal basis ``(B_1, B_2)`` of the plane (Frobenius inner product): ``B_1`` the
        first memory normalised, ``B_2`` the part of the second orthogonal to it, normalised.
    normals : numpy.ndarray, float64, shape (p, p - 1, 2)
        Constraint ``(mu, j)``'s normal in the plane, ``(a . B_1, a . B_2)``: the margin of
        ``x B_1 + y B_2`` on it is ``normals[mu, j] . (x, y)`` (indexed like
        :func:`~.constraints.constraint_margins`).
    wedge : (float, float) or None
        Angles (radians, from ``B_1``) of the wedge of memories in the plane that store every
        association (:func:`feasible_wedge`); None when the plane misses the cone.
    angles : numpy.ndarray, float64, shape (2,)
        The directions of the two memories in the plane (the first at 0).
    """

    basis: NDArray[np.float64]
    normals: NDArray[np.float64]
    wedge: tuple[float, float] | None
    angles: NDArray[np.float64]


def plane_section(problem: MemoryProblem, first: ArrayLike, second: ArrayLike) -> PlaneSection:
    """Cut the cone of storing memories with the plane spanned by two memories.

    In that plane a memory is ``x B_1 + y B_2`` and its margin on constraint ``k`` is
    ``x (a_k . B_1) + y (a_k . B_2)``, linear in ``(x, y)``: each constraint is a half-plane
    through the origin, and the memories of the plane that store every association form one
    wedge (an angle below pi) or none.

    Parameters
    ----------
    problem : MemoryProblem
        An unbatched instance.
    first, second : array_like, shape (d, d)
        Two memories that are not parallel (e.g. the Hebbian memory and an LP solution).

    Returns
    -------
    PlaneSection

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem, a memory has the wrong shape or a
        non-finite entry, one is zero, or the two are parallel.
    """
    check_instance(problem)
    d = problem.d
    mats = []
    for name, w in (("first", first), ("second", second)):
        m = check_finite_array(name, w, ndim=2)
        if m.shape != (d, d):
            raise ValueError(f"{name} must have shape ({d}, {d}), got {m.shape}")
        mats.append(m)
    a, b = mats
    norm_a = float(np.linalg.norm(a))
    if not 0.0 < norm_a < math.inf:
        raise ValueError(f"first must be a non-zero matrix of finite norm, got norm {norm_a}")
    b1 = a / norm_a
    rest = b - float(np.sum(b * b1)) * b1
    norm_rest = float(np.linalg.norm(rest))
    if norm_rest <= 1e-12 * max(1.0, float(np.linalg.norm(b))):
        raise ValueError("first and second are parallel (or second is zero): they span no plane")
    b2 = rest / norm_rest
    normals = np.stack([constraint_margins(b1, problem), constraint_margins(b2, problem)], -1)
    angle_b = math.atan2(float(np.sum(b * b2)), float(np.sum(b * b1)))
    return PlaneSection(
        basis=np.stack([b1, b2]),
        normals=normals,
        wedge=feasible_wedge(normals.reshape(-1, 2)),
        angles=np.array([0.0, angle_b]),
    )


def stored_direction_fraction(problem: MemoryProblem, n: int, *, seed: Seed = 0) -> Estimate:
    """Estimate the fraction of directions of ``W`` that store every association (Wilson interval).

    ``n`` memories with i.i.d. standard Gaussian entries (their directions are uniform on the
    sphere of ``R^{d^2}``) are checked on every constraint; the fraction that store the instance
    estimates the solid angle of the cone of storing memories relative to the whole sphere:
    Gardner's volume (chapter 2) of this one instance.

    Parameters
    ----------
    problem : MemoryProblem
        An unbatched instance with at most :data:`MAX_CONSTRAINT_ENTRIES` constraint entries
        ``p (p - 1) d^2`` (hand-sized: a random direction almost never stores a large instance).
    n : int
        Random directions, >= 1.
    seed : int or numpy.random.SeedSequence
        Root of the directions' stream.

    Returns
    -------
    Estimate
        The fraction, its 95 % Wilson interval, ``n`` directions.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem or is too large, or ``n < 1``.
    """
    check_instance(problem)
    n = check_int("n", n, 1)
    p, d = problem.p, problem.d
    entries = p * (p - 1) * d * d
    if entries > MAX_CONSTRAINT_ENTRIES:
        raise ValueError(
            f"problem has p (p - 1) d^2 = {entries} constraint entries, more than "
            f"{MAX_CONSTRAINT_ENTRIES}: the fraction is for hand-sized instances"
        )
    A = constraint_matrix(problem)
    rng = numpy_rng(seed)
    chunk = max(1, _CHUNK_ENTRIES // entries)
    stored = np.empty(n, dtype=bool)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        W = rng.standard_normal((stop - start, d * d))
        stored[start:stop] = np.all(W @ A.T > 0, axis=1)
    return rate(stored)
