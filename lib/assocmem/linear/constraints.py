"""The perfect-storage constraints of one instance and the arithmetic of their certificates.

Constraint ``(mu, j)`` of an instance is ``(u_mu - v_j)^T W e_mu > 0`` (``v_j`` the ``j``-th
competitor of input ``mu``: OP, the other targets in order; DP, the private competitors), i.e.
``a . vec(W) > 0`` with the row ``a = vec((u_mu - v_j) e_mu^T)``. This module evaluates them in
float64 independently of any solver: the margins of a ``W`` (:func:`constraint_margins`, the
feasibility certificate) and the weak-duality bound of multipliers (:func:`dual_bound`, the
infeasibility certificate); and builds the rows (:func:`constraint_rows`,
:func:`constraint_matrix`) that the solvers of :mod:`.lp` and :mod:`.interior_point` read.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1, eqs. ``eq-op`` and ``eq-dp``); Gordan's alternative and weak
duality are textbook LP (Bertsimas & Tsitsiklis, *Introduction to Linear Optimization*, §4.6).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from assocmem._validate import as_float_array, check_finite_array, check_int
from assocmem.linear.problems import MemoryProblem


def lp_size(p: int, d: int) -> int:
    """Count the coefficients of the dense LP: ``p (p-1)`` constraints x ``d^2``.

    Parameters
    ----------
    p, d : int
        Number of associations (>= 2) and embedding dimension (>= 1).

    Returns
    -------
    int
        ``p (p - 1) d^2``.

    Raises
    ------
    TypeError, ValueError
        If ``p`` or ``d`` is not an integer in range.
    """
    return check_int("p", p, 2) * (p - 1) * check_int("d", d, 1) ** 2


def check_instance(problem: object) -> MemoryProblem:
    """Return ``problem`` if it is one finite, unbatched MemoryProblem (the LP's input).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem.
    ValueError
        If it is batched or holds a NaN or inf.
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if problem.batched:
        raise ValueError("the LP takes one (unbatched) problem")
    problem.check_finite()  # edited in place since it was built?
    return problem


def constraint_arrays(
    problem: MemoryProblem,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """Float64 copies (exact) of inputs (p, d), targets (p, d), competitors (p, p-1, d) or None.

    Parameters
    ----------
    problem : MemoryProblem
        An instance (checked by :func:`check_instance` where it comes from outside).

    Returns
    -------
    (e, u, c) : tuple of numpy.ndarray (c None for the OP)
    """
    e = problem.inputs.double().cpu().numpy()
    u = problem.targets.double().cpu().numpy()
    c = None if problem.competitors is None else problem.competitors.double().cpu().numpy()
    return e, u, c


def _competitor(
    u: NDArray[np.float64], c: NDArray[np.float64] | None, mu: NDArray[np.intp], j: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Competitor vectors of constraints (mu, j), shape (len(mu), d) (OP: u_nu, nu = j or j+1)."""
    if c is None:
        return u[np.where(j < mu, j, j + 1)]
    return c[mu, j]


def constraint_differences(
    u: NDArray[np.float64], c: NDArray[np.float64] | None, mu: NDArray[np.intp], j: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Vectors ``u_mu - v_j`` of constraints ``(mu, j)``, shape (len(mu), d).

    Parameters
    ----------
    u : numpy.ndarray, float64, shape (p, d)
        Targets.
    c : numpy.ndarray, float64, shape (p, p-1, d), or None
        The DP's private competitors (None: OP, whose competitor ``j`` of ``mu`` is ``u_nu``,
        ``nu = j`` for ``j < mu`` and ``j + 1`` otherwise).
    mu, j : numpy.ndarray of int
        Input and competitor indices of the constraints.

    Returns
    -------
    numpy.ndarray, float64, shape (len(mu), d)
    """
    return u[mu] - _competitor(u, c, mu, j)


def constraint_rows(
    e: NDArray[np.float64],
    u: NDArray[np.float64],
    c: NDArray[np.float64] | None,
    mu: NDArray[np.intp],
    j: NDArray[np.intp],
) -> NDArray[np.float64]:
    """Constraint rows ``vec((u_mu - v_j) e_mu^T)`` (row-major ``W``), shape (len(mu), d^2).

    Parameters
    ----------
    e, u : numpy.ndarray, float64, shape (p, d)
        Inputs and targets.
    c : numpy.ndarray, float64, shape (p, p-1, d), or None
        As :func:`constraint_differences`.
    mu, j : numpy.ndarray of int
        Input and competitor indices of the constraints.

    Returns
    -------
    numpy.ndarray, float64, shape (len(mu), d^2)
    """
    diff = constraint_differences(u, c, mu, j)
    return (diff[:, :, None] * e[mu][:, None, :]).reshape(len(mu), -1)


def constraint_margins(W: NDArray[np.float64], problem: MemoryProblem) -> NDArray[np.float64]:
    """Margins of every perfect-storage constraint, in float64.

    Parameters
    ----------
    W : numpy.ndarray, shape (d, d)
        Memory matrix.
    problem : MemoryProblem
        Unbatched OP or DP instance.

    Returns
    -------
    numpy.ndarray, float64, shape (p, p-1)
        ``M[mu, j] = (u_mu - v_j)^T W e_mu`` with ``v_j`` the ``j``-th competitor of input ``mu``
        (OP: the other targets in order, DP: the private competitors). Perfect recall iff all
        entries are > 0.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem or ``W`` has the wrong shape or a NaN
        or inf entry (TypeError if it is not made of real numbers).

    Notes
    -----
    The left-hand sides of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP).
    """
    check_instance(problem)
    e, u, c = constraint_arrays(problem)
    W = check_finite_array("W", W)
    p, d = e.shape
    if W.shape != (d, d):
        raise ValueError(f"W must have shape ({d}, {d}), got {W.shape}")
    We = e @ W.T  # row mu: W e_mu
    target = np.einsum("md,md->m", u, We)
    if c is None:
        off = ~np.eye(p, dtype=bool)
        return target[:, None] - (We @ u.T)[off].reshape(p, p - 1)
    return target[:, None] - np.einsum("mjd,md->mj", c, We)


def dual_bound(Y: NDArray[np.float64], problem: MemoryProblem) -> float:
    """Weak-duality bound on the best margin of any ``W`` with ``|W_ij| <= 1``, in float64.

    For multipliers ``y >= 0`` on the constraints, every such ``W`` has
    ``min_k a_k . W <= sum_k y_k a_k . W / sum(y) <= ||G||_1 / sum(y)`` with
    ``G = sum_{mu, j} y_{mu j} (u_mu - v_j) e_mu^T`` (Holder), so a bound <= 0 (or, numerically,
    far below the margins of storable instances) certifies that no ``W`` stores the instance
    (Gordan's alternative).

    Parameters
    ----------
    Y : numpy.ndarray, shape (p, p-1)
        Multipliers, indexed like :func:`constraint_margins`; all >= 0, not all zero.
    problem : MemoryProblem
        Unbatched OP or DP instance.

    Returns
    -------
    float
        ``||G||_1 / sum(Y)`` (entrywise 1-norm), summed over every constraint.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem, ``Y`` has the wrong shape, a negative
        or non-finite entry, or sums to zero.
    """
    check_instance(problem)
    e, u, c = constraint_arrays(problem)
    p = e.shape[0]
    Y = as_float_array(Y, "Y")
    if Y.shape != (p, p - 1):
        raise ValueError(f"Y must have shape ({p}, {p - 1}), got {Y.shape}")
    if not np.all(np.isfinite(Y)) or np.any(Y < 0) or not Y.sum() > 0:
        raise ValueError("Y must be finite, >= 0 and not all zero")
    if c is None:
        full = np.zeros((p, p))
        full[~np.eye(p, dtype=bool)] = Y.ravel()
        g = Y.sum(axis=1)[:, None] * u - full @ u  # g_mu = sum_nu y_{mu nu} (u_mu - u_nu)
    else:
        g = Y.sum(axis=1)[:, None] * u - np.einsum("mj,mjd->md", Y, c)
    return float(np.abs(g.T @ e).sum() / Y.sum())


def constraint_matrix(problem: MemoryProblem) -> NDArray[np.float64]:
    """Every perfect-storage constraint as a row of one dense matrix, in float64.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.

    Returns
    -------
    numpy.ndarray, float64, shape (p (p-1), d^2)
        Row ``mu (p-1) + j`` is ``vec((u_mu - v_j) e_mu^T)`` (row-major ``W``), so that
        ``A @ W.ravel()`` equals ``constraint_margins(W, problem).ravel()``.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem.

    Notes
    -----
    Memory ``8 p (p-1) d^2`` bytes; meant for small instances (see :data:`LP_MAX_ENTRIES`).
    Source: the constraints of the digest of arXiv:2605.10795, §3.2-3.3 (reconstruction;
    chapter 1, eqs. ``eq-op`` and ``eq-dp``).
    """
    check_instance(problem)
    e, u, comp = constraint_arrays(problem)
    p, d = e.shape
    if comp is None:
        off = ~np.eye(p, dtype=bool)
        comp = np.broadcast_to(u[None, :, :], (p, p, d))[off].reshape(p, p - 1, d)
    diff = u[:, None, :] - comp  # (p, p-1, d)
    return (diff[:, :, :, None] * e[:, None, None, :]).reshape(p * (p - 1), d * d)
