"""Exact perfect-storage decisions by linear programming.

:func:`lp_feasible` decides whether some ``W`` recalls every association of an instance (strict
separability of the constraints ``(u_mu - v)^T W e_mu > 0``), with HiGHS through scipy.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from assocmem._validate import check_int
from assocmem.linear.problems import MemoryProblem

#: Largest LP handled by :func:`lp_feasible`: (number of constraints p(p-1)) x (d^2 variables).
#: 2.5e7 dense coefficients is about 200 MB in float64 (HiGHS copies it into a sparse matrix);
#: e.g. d = 16 up to alpha ~ 4, d = 20 up to alpha ~ 2.2, d = 24 up to alpha ~ 1.3.
LP_MAX_ENTRIES: int = 25_000_000


def lp_size(p: int, d: int) -> int:
    """Count the LP coefficients of :func:`lp_feasible`: ``p (p-1)`` constraints x ``d^2``.

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


def lp_feasible(problem: MemoryProblem, *, max_entries: int = LP_MAX_ENTRIES) -> bool:
    """Decide exactly whether some ``W`` recalls every association of an instance.

    Solves the feasibility LP (zero objective, HiGHS via :func:`scipy.optimize.linprog`)

        (u_mu - v)^T W e_mu >= 1   for every input mu and every competitor v of mu

    (OP: ``v = u_nu, nu != mu``; DP: the private competitors). The constraints are homogeneous
    in ``W``, so the right-hand side 1 stands for any positive margin: the LP decides strict
    separability, i.e. perfect storage.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.
    max_entries : int
        Size limit on ``p (p-1) d^2`` (default :data:`LP_MAX_ENTRIES`).

    Returns
    -------
    bool
        True if feasible (perfect storage possible), False if infeasible.

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem.
    ValueError
        If the problem is batched, ``max_entries < 1`` or ``p (p-1) d^2 > max_entries`` (the message
        names the size; the dense constraint matrix alone would take 8 bytes per entry).
    RuntimeError
        If HiGHS stops without deciding (e.g. numerical trouble).

    Notes
    -----
    Cost grows quickly: at d = 12-16 a feasible instance takes about a second, an infeasible one
    near capacity up to a minute on 2 cores (digest §9). Source: digest §3.2-3.3 (reconstruction).
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if problem.batched:
        raise ValueError("lp_feasible takes one (unbatched) problem")
    margin = 1.0  # homogeneous constraints: any margin > 0 gives the same decision
    max_entries = check_int("max_entries", max_entries, 1)
    p, d = problem.p, problem.d
    n_entries = lp_size(p, d)
    if n_entries > max_entries:
        raise ValueError(
            f"LP too large: p(p-1) x d^2 = {p * (p - 1)} x {d * d} = {n_entries:.3g} coefficients "
            f"exceeds max_entries={max_entries:.3g} (p={p}, d={d}); use a smaller d or load, "
            "or train_memory"
        )
    e = problem.inputs.double().cpu().numpy()
    u = problem.targets.double().cpu().numpy()
    if problem.competitors is None:
        off = ~np.eye(p, dtype=bool)
        comp = np.broadcast_to(u[None, :, :], (p, p, d))[off].reshape(p, p - 1, d)
    else:
        comp = problem.competitors.double().cpu().numpy()
    diff = u[:, None, :] - comp  # (p, p-1, d)
    A = -(diff[:, :, :, None] * e[:, None, None, :]).reshape(p * (p - 1), d * d)
    n = p * (p - 1)
    b = np.full(n, -margin)
    # interior point decides (in)feasibility reliably here; dual simplex as a second opinion
    for method in ("highs-ipm", "highs-ds"):
        res = linprog(np.zeros(d * d), A_ub=A, b_ub=b, bounds=(None, None), method=method)
        if res.status == 0:
            return True
        if res.status == 2:
            return False
    # last resort: max-margin LP with |W_ij| <= 1 (always feasible and bounded); t* > 0 iff
    # the strict system is feasible
    A2 = np.hstack([A, np.ones((n, 1))])
    cost = np.zeros(d * d + 1)
    cost[-1] = -1.0
    bounds = [(-1.0, 1.0)] * (d * d) + [(None, 1.0)]
    res = linprog(cost, A_ub=A2, b_ub=np.zeros(n), bounds=bounds, method="highs")
    if res.status == 0:
        return bool(res.x[-1] > 1e-7)
    raise RuntimeError(f"HiGHS did not decide feasibility (status {res.status}): {res.message}")
