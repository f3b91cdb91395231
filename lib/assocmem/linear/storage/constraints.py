"""The perfect-storage constraints of one instance and the arithmetic of their certificates.

Constraint ``(mu, j)`` of an instance is ``(u_mu - v_j)^T W e_mu > 0`` (``v_j`` the ``j``-th
competitor of input ``mu``: OP, the other targets in order; DP, the private competitors), i.e.
``a . vec(W) > 0`` with the row ``a = vec((u_mu - v_j) e_mu^T)``. This module evaluates them in
float64 independently of any solver: the margins of a ``W`` (:func:`constraint_margins`, the
feasibility certificate) and the weak-duality bound of multipliers (:func:`dual_bound`, the
infeasibility certificate); scales every input to unit norm (:func:`normalise_rows`), builds
the rows (:func:`constraint_rows`, :func:`constraint_matrix`) that the solvers of :mod:`.lp` and
:mod:`.interior_point` read, and holds the one rule that turns the two certificates into a
decision (:func:`storage_outcome`: stored, not stored, or undecided at tolerance).

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1, eqs. ``eq-op`` and ``eq-dp``); Gordan's alternative and weak
duality are textbook LP (Bertsimas & Tsitsiklis, *Introduction to Linear Optimization*, §4.6).
"""

from __future__ import annotations

from enum import Enum

import numpy as np
import torch
from numpy.typing import NDArray

from assocmem._validate import as_float_array, check_finite_array, check_int, row_norms
from assocmem.linear.instances.problems import MemoryProblem

#: The zero level of the best margin ``t*`` (units: the row-normalised instance of
#: :func:`normalise_rows`, where ``|W_ij| <= 1`` and the inputs have unit norm): a dual bound at
#: or below it certifies "not stored" (``t* = 0`` to float64 rounding of the constraints, whose
#: errors are below 1e-12 at these scales).
FEASIBLE_FLOOR: float = 1e-10

#: Default margin tolerance ``tol`` (same units): a certified margin above it is "stored"; a best
#: margin in ``(FEASIBLE_FLOOR, tol]`` is "undecided at tolerance". Feasible instances near
#: capacity at d <= 32 have best margins of order 1e-3 to 1e-1 (``benchmarks/lp_speed.py``),
#: infeasible ones have ``t* = 0`` (dual bounds of order 1e-12 or below).
INFEASIBLE_TOL: float = 1e-7


class LPOutcome(str, Enum):
    """The three answers of the exact LP (a str, so it prints and compares as its words)."""

    STORED = "stored"
    NOT_STORED = "not stored"
    UNDECIDED = "undecided at tolerance"

    def __str__(self) -> str:
        """Return the words."""
        return self.value


def storage_outcome(
    lower: float, upper: float, tol: float = INFEASIBLE_TOL, floor: float = FEASIBLE_FLOOR
) -> LPOutcome | None:
    """Turn certified bounds on the best margin ``t*`` into a decision: the one rule of every LP.

    ``t*`` is the largest margin ``min_k a_k . W`` over ``|W_ij| <= 1`` of the row-normalised
    instance (:func:`normalise_rows`); ``t* >= 0`` always (``W = 0``), and ``t* = 0`` exactly
    when no ``W`` stores the instance. A method supplies ``lower`` (the smallest margin of a
    ``W`` in the box, :func:`constraint_margins`) and ``upper`` (a dual bound,
    :func:`dual_bound`), so ``lower <= t* <= upper``, and the decision is

    * stored if ``lower > tol`` (so ``t* > tol``);
    * not stored if ``upper <= floor`` (so ``t* <= floor``: zero to rounding);
    * undecided at tolerance if ``lower > floor`` and ``upper <= tol`` (so ``floor < t* <= tol``:
      some ``W`` stores the data as given, with a margin no larger than the tolerance, which a
      rounding of the embeddings could remove);
    * None (not yet decided: the method must tighten its bounds) otherwise.

    The three answers need disjoint ranges of ``t*``, so every method that reaches an answer
    reaches the same one: the decision is a function of the instance, not of the solver.

    Parameters
    ----------
    lower, upper : float
        Certified lower and upper bounds on ``t*`` (``-inf`` / ``inf`` when there is none yet).
    tol : float
        The margin tolerance (default :data:`INFEASIBLE_TOL`), > ``floor``.
    floor : float
        The zero level (default :data:`FEASIBLE_FLOOR`).

    Returns
    -------
    LPOutcome or None
    """
    if lower > tol:
        return LPOutcome.STORED
    if upper <= floor:
        return LPOutcome.NOT_STORED
    if lower > floor and upper <= tol:
        return LPOutcome.UNDECIDED
    return None


def normalise_rows(problem: MemoryProblem) -> tuple[MemoryProblem, NDArray[np.float64]]:
    """Scale each input to unit norm and the targets to unit RMS norm (float64): the LP's units.

    A positive factor on input ``e_mu`` multiplies only input ``mu``'s constraints, and one
    factor on the targets and competitors multiplies all of them, so neither changes which ``W``
    store the instance; on this scaled instance the thresholds of :func:`storage_outcome` are
    absolute, and the decision of :func:`~.lp.lp_decide` is the same at every positive scale of
    any input or of the targets (to the rounding of the data themselves). The norms are taken
    at any magnitude without underflow or overflow (:func:`assocmem._validate.row_norms`); a
    zero input (whose constraints are all zero) is left as it is.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.

    Returns
    -------
    normalised : MemoryProblem
        float64 tensors on the CPU: ``e_mu / ||e_mu||``, ``u / s_u``, ``c / s_u`` with ``s_u``
        the RMS norm of the targets (with the DP's competitors).
    scales : numpy.ndarray, float64, shape (p,)
        ``||e_mu|| s_u``: the margins of any ``W`` on ``problem`` are ``scales[:, None]`` times
        its margins on ``normalised`` (:func:`constraint_margins`).

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not one finite, unbatched MemoryProblem.
    """
    check_instance(problem)
    e = problem.inputs.detach().double().cpu()
    u = problem.targets.detach().double().cpu()
    c = None if problem.competitors is None else problem.competitors.detach().double().cpu()
    n_e = row_norms(e)  # (p, 1)
    n_e = n_e.where(n_e > 0, n_e.new_ones(()))
    vs = u if c is None else torch.cat([u, c.reshape(-1, c.shape[-1])])
    n_v = row_norms(vs)[:, 0]
    big = n_v.max()
    s_u = float(big * (n_v / big).square().mean().sqrt()) if float(big) > 0 else 1.0
    out = MemoryProblem(e / n_e, u / s_u, None if c is None else c / s_u)
    return out, n_e[:, 0].numpy() * s_u


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
    e = problem.inputs.detach().double().cpu().numpy()
    u = problem.targets.detach().double().cpu().numpy()
    c = problem.competitors
    return e, u, None if c is None else c.detach().double().cpu().numpy()


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
