"""Exact perfect-storage decisions by linear programming.

:func:`lp_decide` decides whether some ``W`` recalls every association of an instance, i.e.
whether the homogeneous system ``(u_mu - v)^T W e_mu > 0`` (every input ``mu``, every competitor
``v``) has a solution, and returns the certificate of its answer:

* **feasible**: a matrix ``W`` whose margin is checked on *every* one of the ``p (p - 1)``
  constraints in float64 (a direct proof that the instance can be stored);
* **infeasible**: nonnegative multipliers ``y`` on the constraints whose weighted sum
  ``G = sum_k y_k (u_mu - v_k) e_mu^T`` is (numerically) zero; by weak duality every ``W`` with
  ``|W_ij| <= 1`` then has some margin ``<= ||G||_1 / sum(y)``, a bound evaluated in float64
  independently of the solver (Gordan's alternative with the solver's tolerance made explicit).

Three methods: ``"cg"`` (:func:`constraint_generation` on the max-margin LP, each restricted LP
solved by a dense primal-dual interior-point method written for this LP; the default),
``"highs"`` (the same constraint generation with one ``highspy`` dual-simplex model kept across
rounds; slower, kept as an independent second solver and as the fallback of ``"cg"``) and
``"dense"`` (every constraint at once through :func:`scipy.optimize.linprog`, the reference for
small instances). The certificates
are computed in float64 from the solver's output by this module, never taken from the solver's
own status, so a solver inaccuracy can make a decision fail (``RuntimeError``) but not wrong.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1); constraint generation and Gordan's theorem are textbook LP
(e.g. Bertsimas & Tsitsiklis, *Introduction to Linear Optimization*, §4.6 and §6.1); the
interior-point method is Mehrotra's predictor-corrector (Nocedal & Wright, *Numerical
Optimization*, 2nd ed., Algorithm 14.3).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk
from scipy.optimize import linprog

from assocmem._validate import check_int, check_positive
from assocmem.linear.problems import MemoryProblem

#: Largest LP handled by the ``"dense"`` method: (p(p-1) constraints) x (d^2 variables).
#: 2.5e7 dense coefficients is about 200 MB in float64 (HiGHS copies it into a sparse matrix);
#: e.g. d = 16 up to alpha ~ 4, d = 20 up to alpha ~ 2.2, d = 24 up to alpha ~ 1.3.
LP_MAX_ENTRIES: int = 25_000_000

#: Default tolerance of an infeasibility certificate: the dual bound on the best margin of any
#: ``W`` with ``|W_ij| <= 1`` must be at most this. Feasible instances near capacity at
#: d <= 32 have best margins of order 1e-3 to 1e-1 on the same scale (measured in
#: ``benchmarks/lp_speed.py``), infeasible ones give bounds of order 1e-12 or below.
INFEASIBLE_TOL: float = 1e-7

#: A feasibility certificate needs every margin of ``W`` above this (float64 rounding of
#: ``(u - v)^T W e`` with ``|W_ij| <= 1`` and unit-scale embeddings is below 1e-12).
FEASIBLE_FLOOR: float = 1e-10

#: The ``"dense"`` reference calls an instance feasible when its max-margin optimum (dual simplex,
#: feasibility tolerances 1e-9) exceeds this.
DENSE_THRESHOLD: float = 1e-7

LP_METHODS = ("cg", "highs", "dense")


@dataclass(frozen=True)
class LPDecision:
    """The answer of :func:`lp_decide` with its certificate.

    Attributes
    ----------
    feasible : bool
        True if some ``W`` recalls every association (perfect storage possible).
    margin : float
        Feasible: the smallest margin ``(u_mu - v)^T W e_mu`` of the certifying ``W``
        (``|W_ij| <= 1``) over all ``p (p-1)`` constraints, > :data:`FEASIBLE_FLOOR`.
        Infeasible: the dual upper bound on the best such margin of any ``W`` with
        ``|W_ij| <= 1`` (<= ``tol``). ``"dense"``: the solver's max-margin optimum ``t*``
        (no certificate; its precision is the solver's tolerance, about 1e-9).
    rounds : int
        LP solves (1 for ``"dense"``).
    constraints : int
        Constraints in the last LP (``p (p-1)`` for ``"dense"``).
    weights : numpy.ndarray or None
        float64, shape (d, d): the certifying ``W`` when feasible (``"cg"``, ``"highs"``), else
        None.
    multipliers : numpy.ndarray or None
        float64, shape (p, p-1), >= 0: the certifying multipliers ``y`` when infeasible
        (``"cg"``, ``"highs"``), indexed like :func:`constraint_margins` (zero off the last
        restricted LP), else None; ``margin == dual_bound(multipliers, problem)``.
    """

    feasible: bool
    margin: float
    rounds: int
    constraints: int
    weights: NDArray[np.float64] | None = None
    multipliers: NDArray[np.float64] | None = None

    def __str__(self) -> str:
        """One line: the decision, the work it took and the certificate's number.

        ``stored after 3 rounds, 245 constraints; its W has margin 0.0123`` (a certifying ``W``),
        ``not stored after 5 rounds, 400 constraints; no |W_ij| <= 1 has margin > 1.0e-07``
        (a dual certificate), or ``... ; max margin t* = 0.01 (no certificate)`` (``"dense"``).
        """
        word = "stored" if self.feasible else "not stored"
        rounds = f"{self.rounds} round{'s' * (self.rounds != 1)}"
        head = f"{word} after {rounds}, {self.constraints} constraints"
        if self.feasible and self.weights is not None:
            return f"{head}; its W has margin {self.margin:.3g}"
        if not self.feasible and self.multipliers is not None:
            return f"{head}; no |W_ij| <= 1 has margin > {self.margin:.1e}"
        return f"{head}; max margin t* = {self.margin:.3g} (no certificate)"


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


def _arrays(
    problem: MemoryProblem,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """Float64 copies (exact) of inputs (p, d), targets (p, d), competitors (p, p-1, d) or None."""
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
        If ``problem`` is not an unbatched MemoryProblem or ``W`` has the wrong shape.

    Notes
    -----
    The left-hand sides of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP).
    """
    _check_problem(problem)
    e, u, c = _arrays(problem)
    W = np.asarray(W, dtype=np.float64)
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
    _check_problem(problem)
    e, u, c = _arrays(problem)
    p = e.shape[0]
    Y = np.asarray(Y, dtype=np.float64)
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


def _check_problem(problem: object) -> MemoryProblem:
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if problem.batched:
        raise ValueError("the LP takes one (unbatched) problem")
    return problem


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
    _check_problem(problem)
    e, u, comp = _arrays(problem)
    p, d = e.shape
    if comp is None:
        off = ~np.eye(p, dtype=bool)
        comp = np.broadcast_to(u[None, :, :], (p, p, d))[off].reshape(p, p - 1, d)
    diff = u[:, None, :] - comp  # (p, p-1, d)
    return (diff[:, :, :, None] * e[:, None, None, :]).reshape(p * (p - 1), d * d)


def _dense_max_margin(
    problem: MemoryProblem, max_entries: int, t_max: float | None
) -> NDArray[np.float64]:
    """Solve ``max t`` s.t. ``A w >= t``, ``|w_i| <= 1``, ``t <= t_max``; return ``(w, t)``.

    Every constraint at once (scipy's HiGHS dual simplex, tolerances 1e-9).
    """
    p, d = problem.p, problem.d
    n_entries = lp_size(p, d)
    if n_entries > max_entries:
        raise ValueError(
            f"LP too large: p(p-1) x d^2 = {p * (p - 1)} x {d * d} = {n_entries:.3g} coefficients "
            f"exceeds max_entries={max_entries:.3g} (p={p}, d={d}); use method='cg', a smaller "
            "d or load, or train_memory"
        )
    A = constraint_matrix(problem)
    n = p * (p - 1)
    cost = np.zeros(d * d + 1)
    cost[-1] = -1.0
    bounds = [(-1.0, 1.0)] * (d * d) + [(None, t_max)]
    opts = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}
    res = linprog(cost, A_ub=np.hstack([-A, np.ones((n, 1))]), b_ub=np.zeros(n), bounds=bounds,
                  method="highs-ds", options=opts)  # fmt: skip
    if res.status != 0:
        raise RuntimeError(f"HiGHS did not solve the dense LP (status {res.status}): {res.message}")
    return np.asarray(res.x, dtype=np.float64)


def _dense_feasible(problem: MemoryProblem, max_entries: int) -> tuple[bool, float]:
    """Every constraint at once (scipy's HiGHS): the reference decision for small instances.

    The max-margin LP ``max t`` s.t. ``A w >= t``, ``|w_i| <= 1``, ``t <= 1`` (bounded, so no
    badly scaled ``W`` is needed near capacity) by dual simplex with tolerances 1e-9; feasible
    iff ``t* > DENSE_THRESHOLD``. Returns the decision and ``t*``.
    """
    t = float(_dense_max_margin(problem, max_entries, 1.0)[-1])
    return t > DENSE_THRESHOLD, t


def max_margin_linf(
    problem: MemoryProblem, *, max_entries: int = LP_MAX_ENTRIES
) -> tuple[float, NDArray[np.float64]]:
    """Find the largest margin of any ``W`` with ``|W_ij| <= 1`` (the entrywise-max max-margin).

    Solves, over every one of the ``p (p - 1)`` constraints at once,

        max_{W, t} t   s.t.  (u_mu - v)^T W e_mu >= t  (all mu, v),   max_ij |W_ij| <= 1,

    the LP that :func:`lp_decide` decides (``"dense"`` method, here without its cap ``t <= 1``).
    Since the constraints are homogeneous, ``t*`` is also the largest value of the normalised
    margin ``min_k a_k . W / max_ij |W_ij|`` over all ``W`` (the l-infinity max-margin).

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.
    max_entries : int
        Size limit on ``p (p-1) d^2`` (default :data:`LP_MAX_ENTRIES`).

    Returns
    -------
    margin : float
        ``min_k a_k . W*``, recomputed in float64 from ``W*`` by :func:`constraint_margins`
        (a lower bound on ``t*`` and equal to it up to the solver's tolerance, about 1e-9);
        <= 0 when the instance cannot be stored.
    W : numpy.ndarray, float64, shape (d, d)
        A maximiser ``W*`` (``|W_ij| <= 1``; not unique in general).

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem or the LP exceeds ``max_entries``.
    RuntimeError
        If HiGHS does not solve the LP.

    Notes
    -----
    Dense simplex: seconds for ``p (p-1) d^2`` of order 1e6 (d = 16 below capacity), see
    :data:`LP_MAX_ENTRIES`. Source: the max-margin LP of :func:`lp_decide` (reconstruction of the
    perfect-storage condition, digest §3.2-3.3; chapter 1, eqs. ``eq-op`` and ``eq-dp``);
    ``t*`` is the largest ``gamma_inf`` of chapter 1, eq. ``eq-normalised-margin``.
    """
    _check_problem(problem)
    x = _dense_max_margin(problem, check_int("max_entries", max_entries, 1), None)
    d = problem.d
    W = x[: d * d].reshape(d, d).copy()
    return float(constraint_margins(W, problem).min()), W


def _new_highs() -> highspy.Highs:
    """Create a HiGHS instance with its one-off C-level banner kept off stdout (and notebooks)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return h


def _highs_decide(
    problem: MemoryProblem, per_round: int, tol: float, max_rounds: int
) -> LPDecision:
    """Constraint generation with one highspy dual-simplex model (``method="highs"``)."""
    e, u, c = _arrays(problem)
    p, d = e.shape
    n = d * d
    inf = highspy.kHighsInf
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("presolve", "off")
    h.setOptionValue("simplex_strategy", 1)  # dual simplex: warm start after adding rows
    # columns: W (d^2, row-major, |W_ij| <= 1), t (free, maximised), z_mu = W e_mu (p d, free)
    h.addVars(n + 1, np.r_[-np.ones(n), -inf], np.r_[np.ones(n), inf])
    h.changeColsCost(1, np.array([n], dtype=np.int32), np.array([-1.0]))
    h.addVars(p * d, np.full(p * d, -inf), np.full(p * d, inf))
    # equality rows z_{mu,i} - sum_j W_ij e_{mu,j} = 0 keep every margin row at d + 1 entries
    k = np.arange(p * d)
    mu_k, i_k = k // d, k % d
    idx = np.hstack([(n + 1 + k)[:, None], i_k[:, None] * d + np.arange(d)[None, :]])
    coef = np.hstack([np.ones((p * d, 1)), -e[mu_k]])
    starts = np.arange(p * d, dtype=np.int32) * (d + 1)
    zeros = np.zeros(p * d)
    h.addRows(p * d, zeros, zeros, coef.size, starts, idx.astype(np.int32).ravel(), coef.ravel())
    W = u.T @ e  # Hebbian start: it only chooses the first constraints
    have = np.zeros((p, p - 1), dtype=bool)
    rows_mu: list[NDArray[np.intp]] = []
    rows_j: list[NDArray[np.intp]] = []
    t = np.inf
    kk = min(per_round, p - 1)
    for rounds in range(max_rounds + 1):
        M = constraint_margins(W, problem)
        if rounds > 0 and M.min() > FEASIBLE_FLOOR:
            return LPDecision(True, float(M.min()), rounds, int(have.sum()), W.copy())
        # add, per input, the kk lowest-margin constraints the current LP solution violates
        Mm = np.where(have, np.inf, M)
        cand = np.argpartition(Mm, kk - 1, axis=1)[:, :kk]
        sel_mu = np.repeat(np.arange(p), kk)
        sel_j = cand.ravel()
        keep = Mm[sel_mu, sel_j] < t - 1e-9
        sel_mu, sel_j = sel_mu[keep], sel_j[keep]
        if sel_mu.size == 0 or rounds == max_rounds or t <= tol:
            break
        have[sel_mu, sel_j] = True
        rows_mu.append(sel_mu)
        rows_j.append(sel_j)
        diff = u[sel_mu] - _competitor(u, c, sel_mu, sel_j)
        m = diff.shape[0]
        vals = np.hstack([diff, -np.ones((m, 1))])
        cols = np.hstack([n + 1 + sel_mu[:, None] * d + np.arange(d)[None, :], np.full((m, 1), n)])
        starts = np.arange(m, dtype=np.int32) * (d + 1)
        h.addRows(m, np.zeros(m), np.full(m, inf), vals.size, starts,
                  cols.astype(np.int32).ravel(), vals.ravel())  # fmt: skip
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS stopped with status {h.getModelStatus()} (round {rounds})")
        x = np.asarray(h.getSolution().col_value)
        W, t = x[:n].reshape(d, d), float(x[n])
    # no W found: certify infeasibility from the last LP's duals (weak duality, float64)
    y = np.abs(np.asarray(h.getSolution().row_dual))[p * d :]
    Y = np.zeros((p, p - 1))
    Y[np.concatenate(rows_mu), np.concatenate(rows_j)] = y
    bound = dual_bound(Y, problem) if y.sum() > 0 else np.inf
    if bound <= tol:
        return LPDecision(False, bound, rounds, int(have.sum()), None, Y)
    raise RuntimeError(
        f"LP undecided after {rounds} rounds: no W with all margins > {FEASIBLE_FLOOR:g} and dual "
        f"bound {bound:.3g} > tol={tol:g} (p={p}, d={d}); raise max_rounds or tol"
    )


def _max_margin_ipm(
    A: NDArray[np.float64],
    tol: float,
    rel: float,
    accept: Callable[[NDArray[np.float64]], bool],
    max_iter: int = 100,
) -> tuple[str, NDArray[np.float64], float, NDArray[np.float64]]:
    """Solve ``max t s.t. A w >= t 1, |w_i| <= 1`` by Mehrotra's predictor-corrector method.

    Feasible start (``w = 0``, ``t = -1``; dual ``y = 1/N``), dense normal equations in the
    ``n + 1`` unknowns ``(w, t)`` (one Cholesky factor per iteration). Every iterate keeps
    ``|w_i| < 1`` and ``y > 0``, so each gives a float64 dual bound ``||A^T y||_1 / sum(y)``
    on the optimum (weak duality) that is checked at every iteration.

    Parameters
    ----------
    A : numpy.ndarray, float64, shape (N, n)
        Constraint rows.
    tol : float
        Stop with ``"infeasible"`` once the dual bound is <= ``1e-3 tol``, or after three more
        iterations once it is <= ``tol``.
    rel : float
        Stop with ``"optimal"`` once ``t > 0`` and ``bound - t <= rel * t``.
    accept : callable
        Called on ``w`` whenever ``t > 0``; True stops with ``"accepted"``.
    max_iter : int
        Iterations before ``"stalled"``.

    Returns
    -------
    status : str
        ``"infeasible"``, ``"optimal"``, ``"accepted"``, ``"stalled"`` or ``"failed"``
        (singular normal equations).
    w : numpy.ndarray, float64, shape (n,)
        The last primal iterate (strictly inside the box).
    bound : float
        The dual bound of the last dual iterate.
    y : numpy.ndarray, float64, shape (N,)
        The last dual iterate (> 0).
    """
    N, n = A.shape
    Ap = np.hstack([A, -np.ones((N, 1))])  # unknowns x = (w, t)
    x = np.zeros(n + 1)
    x[-1] = -1.0
    s = Ap @ x
    y = np.full(N, 1.0 / N)
    g = A.T @ y
    lam, nu = 1.0 + np.maximum(-g, 0.0), 1.0 + np.maximum(g, 0.0)  # duals of w >= -1, w <= 1
    c = np.zeros(n + 1)
    c[-1] = 1.0
    diag = np.arange(n + 1)

    def steplen(v: NDArray[np.float64], dv: NDArray[np.float64]) -> float:
        neg = dv < 0
        return float(min(1.0, np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0

    status, bound, below = "stalled", np.inf, 0
    for _ in range(max_iter):
        w, t = x[:n], float(x[-1])
        a, b = 1.0 + w, 1.0 - w
        bound = float(np.abs(A.T @ y).sum() / y.sum())
        below += bound <= tol
        if bound <= 1e-3 * tol or below > 3:  # a few more steps once below tol: a clear margin
            status = "infeasible"
            break
        if t > 0 and accept(w):
            status = "accepted"
            break
        if t > 0 and bound - t <= rel * t:
            status = "optimal"
            break
        mu = (y @ s + lam @ a + nu @ b) / (N + 2 * n)
        rp = Ap @ x - s
        rd = c + Ap.T @ y - np.r_[nu - lam, 0.0]
        D = y / s
        K = dsyrk(1.0, (Ap * np.sqrt(D)[:, None]).T, lower=1)  # lower triangle of Ap^T D Ap
        K[diag[:n], diag[:n]] += nu / b + lam / a
        K[diag, diag] += 1e-13 * (1.0 + K[diag, diag])
        try:
            F = cho_factor(K, lower=True, check_finite=False)
        except LinAlgError:
            status = "failed"
            break
        if not np.all(np.isfinite(F[0][diag, diag])):
            status = "failed"
            break
        base = rd - Ap.T @ (D * rp)
        ry, rl, rn = -y * s, -lam * a, -nu * b  # affine (predictor) step first
        for corrector in (False, True):
            rhs = base + Ap.T @ (ry / s) - np.r_[rn / b - rl / a, 0.0]
            dx = cho_solve(F, rhs, check_finite=False)
            dw = dx[:n]
            ds = Ap @ dx + rp
            dy, dl, dn = (ry - y * ds) / s, (rl - lam * dw) / a, (rn + nu * dw) / b
            ap = min(steplen(s, ds), steplen(a, dw), steplen(b, -dw))
            ad = min(steplen(y, dy), steplen(lam, dl), steplen(nu, dn))
            if corrector:
                break
            mu_aff = (
                (s + ap * ds) @ (y + ad * dy)
                + (a + ap * dw) @ (lam + ad * dl)
                + (b - ap * dw) @ (nu + ad * dn)
            ) / (N + 2 * n)
            sm = (mu_aff / mu) ** 3 * mu  # centring sigma * mu, sigma = (mu_aff / mu)^3
            ry, rl, rn = sm - y * s - ds * dy, sm - lam * a - dw * dl, sm - nu * b + dw * dn
        ap, ad = 0.995 * ap, 0.995 * ad
        x, s = x + ap * dx, s + ap * ds
        y, lam, nu = y + ad * dy, lam + ad * dl, nu + ad * dn
    return status, x[:n].copy(), bound, y


def _rows(
    e: NDArray[np.float64],
    u: NDArray[np.float64],
    c: NDArray[np.float64] | None,
    mu: NDArray[np.intp],
    j: NDArray[np.intp],
) -> NDArray[np.float64]:
    """Constraint rows ``vec((u_mu - v_j) e_mu^T)`` (row-major ``W``), shape (len(mu), d^2)."""
    diff = u[mu] - _competitor(u, c, mu, j)
    return (diff[:, :, None] * e[mu][:, None, :]).reshape(len(mu), -1)


def constraint_generation(
    problem: MemoryProblem,
    *,
    per_round: int = 8,
    tol: float = INFEASIBLE_TOL,
    max_rounds: int = 200,
) -> LPDecision:
    """Decide perfect storage by constraint generation on the max-margin LP (``method="cg"``).

    Maximise ``t`` subject to ``(u_mu - v)^T W e_mu >= t`` and ``|W_ij| <= 1`` over a growing
    subset of the ``p (p - 1)`` constraints: each round adds, for each input, up to ``per_round``
    constraints that the current ``W`` meets below the restricted optimum (round 1: those closest
    to the target under the Hebbian ``W``), solves the restricted LP by an interior-point method
    and checks its answer in float64 on *all* constraints. See :func:`lp_decide` for the two
    certificates and the solver.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance (float32 tensors; read exactly as float64).
    per_round : int
        Constraints added per input and round (>= 1).
    tol : float
        Largest dual bound accepted as proof of infeasibility (> 0).
    max_rounds : int
        Most restricted LPs before :class:`RuntimeError` (>= 1).

    Returns
    -------
    LPDecision
        Feasible with the certifying ``weights`` (every margin > :data:`FEASIBLE_FLOOR`), or
        infeasible with the certifying ``multipliers`` (dual bound <= ``tol``). Should the
        interior-point method stall or fail, the instance is decided by the simplex-based
        ``lp_decide(..., method="highs")`` instead.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem or an argument is out of range.
    RuntimeError
        If neither certificate is reached within ``max_rounds``.

    Notes
    -----
    Decides the strict systems of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP); the
    algorithm is described in chapter 2, section "Theory vs simulation". Source: constraint
    generation and weak duality are textbook LP (Bertsimas & Tsitsiklis §4.6, §6.1); the
    perfect-storage condition is the digest's §3.2-3.3 (reconstruction).
    """
    _check_problem(problem)
    per_round = check_int("per_round", per_round, 1)
    tol = check_positive("tol", tol)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    e, u, c = _arrays(problem)
    p, d = e.shape

    def passes(w: NDArray[np.float64]) -> bool:  # all p (p - 1) margins > 0?
        margins = constraint_margins(w.reshape(d, d), problem)
        return bool(margins.min() > FEASIBLE_FLOOR)

    W = u.T @ e  # Hebbian start: it only chooses the first constraints
    have = np.zeros((p, p - 1), dtype=bool)  # constraints in the restricted LP
    blocks: list[NDArray[np.float64]] = []
    rows_mu: list[NDArray[np.intp]] = []
    rows_j: list[NDArray[np.intp]] = []
    t = np.inf
    kk = min(per_round, p - 1)
    for rounds in range(1, max_rounds + 1):
        # 1. add, per input, the kk lowest-margin constraints that W meets below t
        M = np.where(have, np.inf, constraint_margins(W, problem))
        cand = np.argpartition(M, kk - 1, axis=1)[:, :kk]
        sel_mu, sel_j = np.repeat(np.arange(p), kk), cand.ravel()
        keep = M[sel_mu, sel_j] < t
        sel_mu, sel_j = sel_mu[keep], sel_j[keep]
        if sel_mu.size == 0:
            break
        have[sel_mu, sel_j] = True
        rows_mu.append(sel_mu)
        rows_j.append(sel_j)
        blocks.append(_rows(e, u, c, sel_mu, sel_j))
        A = np.vstack(blocks)
        blocks = [A]
        # 2. solve the restricted LP: max t s.t. A vec(W) >= t, |W_ij| <= 1
        status, w, _, y = _max_margin_ipm(A, tol, rel=1e-3, accept=passes)
        W = w.reshape(d, d)
        # 3. stored: this W meets all p (p - 1) constraints (checked in float64)
        margin = float(constraint_margins(W, problem).min())
        if margin > FEASIBLE_FLOOR:
            return LPDecision(True, margin, rounds, int(have.sum()), W)
        # 4. not stored: the duals bound the margin of every W with |W_ij| <= 1
        if status == "infeasible":
            Y = np.zeros((p, p - 1))
            Y[np.concatenate(rows_mu), np.concatenate(rows_j)] = y
            bound = dual_bound(Y, problem) if np.all(y >= 0) else np.inf
            if bound <= tol:
                return LPDecision(False, bound, rounds, int(have.sum()), None, Y)
        if status != "optimal":  # failed, stalled, or a certificate that failed
            break
        t = float(np.min(A @ w))  # the restricted LP's margin (to the gap 1e-3)
    else:
        raise RuntimeError(
            f"LP undecided after {max_rounds} rounds: no W with all margins > "
            f"{FEASIBLE_FLOOR:g} and no dual bound <= tol={tol:g} "
            f"(p={p}, d={d}); raise max_rounds"
        )
    # numerical trouble or no progress: the independent simplex method decides
    return _highs_decide(problem, per_round, tol, max_rounds)


def lp_decide(
    problem: MemoryProblem,
    *,
    method: str = "cg",
    per_round: int = 8,
    tol: float = INFEASIBLE_TOL,
    max_rounds: int = 200,
    max_entries: int = LP_MAX_ENTRIES,
) -> LPDecision:
    """Decide exactly whether some ``W`` recalls every association, with a certificate.

    ``"cg"`` maximises the margin ``t`` subject to ``(u_mu - v)^T W e_mu >= t`` and
    ``|W_ij| <= 1`` over a growing subset of the ``p (p - 1)`` constraints. Round 1 takes, for each
    input, the ``per_round`` competitors closest to its target under the Hebbian matrix; each later
    round adds, for each input, up to ``per_round`` constraints that the current ``W`` violates or
    meets below the restricted optimum. Each restricted LP is solved by a dense primal-dual
    interior-point method on the ``d^2 + 1`` unknowns (normal equations, Mehrotra's
    predictor-corrector), stopped at a relative gap of 1e-3 — enough to choose the next
    constraints, since no answer rests on the solver's accuracy. It stops with

    * feasible, as soon as an iterate ``W`` (``|W_ij| < 1``) has every one of the ``p (p - 1)``
      margins > :data:`FEASIBLE_FLOOR`, checked in float64 on the full constraint set (at every
      interior-point iteration with a positive restricted margin);
    * infeasible, when the interior-point duals ``y > 0`` of the restricted LP give the float64
      bound ``||sum_k y_k a_k||_1 / sum(y) <= tol`` on the best margin of any ``|W_ij| <= 1``,
      recomputed by :func:`dual_bound` from ``y`` and the constraint vectors
      ``a_k = vec((u_mu - v_k) e_mu^T)`` over all constraints (weak duality; multipliers on a
      subset are multipliers on the full set with zeros elsewhere); ``y`` is returned.

    Should the interior-point method stall or meet singular normal equations, ``"cg"`` hands the
    instance to ``"highs"``, the same constraint generation with a ``highspy`` dual-simplex model
    kept across rounds (the scores ``W e_mu`` as auxiliary columns) and the same two certificates.

    ``"dense"`` passes all constraints at once to :func:`scipy.optimize.linprog`: the same
    max-margin LP (with ``t <= 1``) by dual simplex, feasible iff its optimum exceeds
    :data:`DENSE_THRESHOLD`; it is the reference for small instances. (The bounded form matters:
    the unbounded feasibility LP ``A w >= 1`` needs ``|W_ij|`` up to ``1 / t*``, and HiGHS's
    interior-point solver called feasible instances with ``t*`` of order 1e-4 infeasible.)

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance (float32 tensors; read exactly as float64).
    method : {"cg", "highs", "dense"}
        Algorithm (default ``"cg"``).
    per_round : int
        Constraints added per input and round (>= 1; ``"cg"`` and ``"highs"``).
    tol : float
        Largest dual bound accepted as proof of infeasibility (> 0; ``"cg"`` and ``"highs"``). The
        margin is on the scale ``|W_ij| <= 1`` with embeddings of norm about 1.
    max_rounds : int
        Most LP solves before :class:`RuntimeError` (>= 1; ``"cg"`` and ``"highs"``).
    max_entries : int
        Size limit on ``p (p-1) d^2`` (``"dense"`` only).

    Returns
    -------
    LPDecision
        ``feasible``, the certified ``margin``, ``rounds``, ``constraints`` and, when feasible,
        the certifying ``weights``.

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or a numeric argument has the wrong type.
    ValueError
        If the problem is batched, ``method`` is unknown, an argument is out of range, or (dense)
        ``p (p-1) d^2 > max_entries``.
    RuntimeError
        If the solver fails, or neither certificate is reached within ``max_rounds`` (no ``W``
        passes the full check and no dual bound is <= ``tol``).

    Notes
    -----
    CPU time on one core near capacity (``benchmarks/lp_speed.py``, ``"cg"``, loads 0.9-1.05):
    median about 0.1 s at d = 12, 0.3 s at d = 16, 3 s at d = 24 and 7-11 s at d = 32 (at most about
    25 s; p = 178-204), against 2 s at d = 16 and minutes at d = 32 for ``"highs"``. Memory: the
    restricted constraint rows, about 5000 x d^2 float64 at d = 32 (40 MB). Source: digest §3.2-3.3
    (reconstruction; chapter 1, eqs. ``eq-op`` and ``eq-dp``) for the constraints; constraint
    generation, the duality bound and the interior-point method are textbook LP.
    """
    _check_problem(problem)
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}, got {method!r}")
    if method == "dense":
        ok, t = _dense_feasible(problem, check_int("max_entries", max_entries, 1))
        return LPDecision(ok, t, 1, problem.p * (problem.p - 1), None)
    per_round = check_int("per_round", per_round, 1)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    tol = check_positive("tol", tol)
    if method == "highs":
        return _highs_decide(problem, per_round, tol, max_rounds)
    return constraint_generation(problem, per_round=per_round, tol=tol, max_rounds=max_rounds)


def lp_feasible(
    problem: MemoryProblem, *, method: str = "cg", max_entries: int = LP_MAX_ENTRIES
) -> bool:
    """Decide exactly whether some ``W`` recalls every association of an instance.

    The decision of :func:`lp_decide` without its certificate.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.
    method : {"cg", "highs", "dense"}
        Constraint generation (default; ``"highs"``: with a simplex solver) or every constraint
        at once (small instances).
    max_entries : int
        Size limit on ``p (p-1) d^2`` for ``"dense"`` (default :data:`LP_MAX_ENTRIES`).

    Returns
    -------
    bool
        True if feasible (perfect storage possible), False if infeasible.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`lp_decide`.

    Notes
    -----
    Decides the strict systems of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP).
    """
    return lp_decide(problem, method=method, max_entries=max_entries).feasible
