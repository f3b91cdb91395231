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

Four methods: ``"ipm"`` (the default: one primal-dual interior-point solve of the max-margin LP
over *all* ``p (p - 1)`` constraints, its normal matrix built from the Kronecker structure of
the constraints, ``sum_mu U_mu (x) e_mu e_mu^T``, in ``O(p d^4)`` flops whatever the number of
constraints), ``"cg"`` (:func:`constraint_generation` on the max-margin LP, each restricted LP
solved by a dense interior-point method; the previous default, kept as a second solver and as
the fallback of ``"ipm"``), ``"highs"`` (the same constraint generation with one ``highspy``
dual-simplex model kept across rounds; slower, an independent third solver and the fallback of
``"cg"``) and ``"dense"`` (every constraint at once through :func:`scipy.optimize.linprog`, the
reference for small instances). The certificates are computed in float64 from the solver's
output by this module, never taken from the solver's own status, so a solver inaccuracy can make
a decision fail (``RuntimeError``) but not wrong.

The constraints and the arithmetic of both certificates are in :mod:`.constraints`, the one
interior-point method (on the dense rows of a restricted LP or on the structured operators of
the full one) in :mod:`.interior_point`; this module holds the decisions.

Every decision is invariant to rescaling the inputs and the targets by positive factors: each
method works on the instance rescaled by powers of two to an RMS norm near 1 (exact in
floating point), so the floors :data:`FEASIBLE_FLOOR` and ``tol`` are relative to
``scale = s_u s_e`` (:attr:`LPDecision.scale`); the certificate is then checked again on the
instance as given.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1); constraint generation and Gordan's theorem are textbook LP
(e.g. Bertsimas & Tsitsiklis, *Introduction to Linear Optimization*, §4.6 and §6.1); the
interior-point method is Mehrotra's predictor-corrector (Nocedal & Wright, *Numerical
Optimization*, 2nd ed., Algorithm 14.3).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np
import torch
from numpy.typing import NDArray
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from assocmem._validate import check_int, check_positive
from assocmem.linear.constraints import (
    check_instance,
    constraint_arrays,
    constraint_differences,
    constraint_margins,
    constraint_matrix,
    constraint_rows,
    dual_bound,
    lp_size,
)
from assocmem.linear.interior_point import DenseConstraints, StructuredConstraints, max_margin_ipm
from assocmem.linear.problems import MemoryProblem

#: Largest LP handled by the ``"dense"`` method: (p(p-1) constraints) x (d^2 variables).
#: 2.5e7 dense coefficients is about 200 MB in float64 (HiGHS copies it into a sparse matrix);
#: e.g. d = 16 up to alpha ~ 4, d = 20 up to alpha ~ 2.2, d = 24 up to alpha ~ 1.3.
LP_MAX_ENTRIES: int = 25_000_000

#: Default tolerance of an infeasibility certificate: the dual bound on the best margin of any
#: ``W`` with ``|W_ij| <= 1`` must be at most this. Feasible instances near capacity at
#: d <= 32 have best margins of order 1e-3 to 1e-1 on the same scale (measured in
#: ``benchmarks/lp_speed.py``), infeasible ones give bounds of order 1e-12 or below.
INFEASIBLE_TOL: float = 1e-7  # in units of LPDecision.scale

#: A feasibility certificate needs every margin of ``W`` above this (float64 rounding of
#: ``(u - v)^T W e`` with ``|W_ij| <= 1`` and unit-scale embeddings is below 1e-12).
FEASIBLE_FLOOR: float = 1e-10  # in units of LPDecision.scale

#: The ``"dense"`` reference calls an instance feasible when its max-margin optimum (dual simplex,
#: feasibility tolerances 1e-9) exceeds this.
DENSE_THRESHOLD: float = 1e-7

LP_METHODS = ("ipm", "cg", "highs", "dense")


@dataclass(frozen=True)
class LPDecision:
    """The answer of :func:`lp_decide` with its certificate.

    Attributes
    ----------
    feasible : bool
        True if some ``W`` recalls every association (perfect storage possible).
    margin : float
        Feasible: the smallest margin ``(u_mu - v)^T W e_mu`` of the certifying ``W``
        (``|W_ij| <= 1``) over all ``p (p-1)`` constraints, > ``FEASIBLE_FLOOR * scale``.
        Infeasible: the dual upper bound on the best such margin of any ``W`` with
        ``|W_ij| <= 1`` (<= ``tol * scale``). ``"dense"``: the solver's max-margin optimum ``t*``
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
        (``"ipm"``, ``"cg"``, ``"highs"``), indexed like :func:`constraint_margins` (zero off the
        last restricted LP), else None; ``margin == dual_bound(multipliers, problem)``.
    iterations : int
        Interior-point iterations, summed over rounds (``"ipm"``, ``"cg"``; 0 otherwise).
    flops : float
        The dominant floating-point operations of those iterations (normal matrices and their
        Cholesky factors), for rates in ``benchmarks/lp_speed.py``.
    scale : float
        ``s_u s_e``: the powers of two nearest the RMS norms of the targets (with the DP's
        competitors) and of the inputs. The floors :data:`FEASIBLE_FLOOR` and ``tol`` are in
        these units (1 for embeddings of norm about 1), so decisions are scale-invariant;
        ``margin`` is in the instance's own units.
    """

    feasible: bool
    margin: float
    rounds: int
    constraints: int
    weights: NDArray[np.float64] | None = None
    multipliers: NDArray[np.float64] | None = None
    iterations: int = 0
    flops: float = 0.0
    scale: float = 1.0

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
    check_instance(problem)
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
    e, u, c = constraint_arrays(problem)
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
        diff = constraint_differences(u, c, sel_mu, sel_j)
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
    check_instance(problem)
    per_round = check_int("per_round", per_round, 1)
    tol = check_positive("tol", tol)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    return _in_units(problem, tol, lambda q: _cg_decide(q, per_round, tol, max_rounds))


def _cg_decide(problem: MemoryProblem, per_round: int, tol: float, max_rounds: int) -> LPDecision:
    """Run the loop of :func:`constraint_generation` on an already normalised instance."""
    e, u, c = constraint_arrays(problem)
    p, d = e.shape

    def passes(w: NDArray[np.float64]) -> bool:  # all p (p - 1) margins > 0?
        margins = constraint_margins(w.reshape(d, d), problem)
        return bool(margins.min() > FEASIBLE_FLOOR)

    W = u.T @ e  # Hebbian start: it only chooses the first constraints
    work = [0.0, 0.0]  # interior-point iterations and flops, reported in the decision
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
        blocks.append(constraint_rows(e, u, c, sel_mu, sel_j))
        A = np.vstack(blocks)
        blocks = [A]
        # 2. solve the restricted LP: max t s.t. A vec(W) >= t, |W_ij| <= 1
        op = DenseConstraints(A)
        res = max_margin_ipm(op, tol, passes, rel=1e-3, linger=3, max_iter=100)
        status, w, y = res.status, res.w, res.y
        work[0] += res.iterations
        work[1] += op.flops
        W = w.reshape(d, d)
        # 3. stored: this W meets all p (p - 1) constraints (checked in float64)
        margin = float(constraint_margins(W, problem).min())
        if margin > FEASIBLE_FLOOR:
            return LPDecision(True, margin, rounds, int(have.sum()), W, None, int(work[0]), work[1])
        # 4. not stored: the duals bound the margin of every W with |W_ij| <= 1
        if status == "infeasible":
            Y = np.zeros((p, p - 1))
            Y[np.concatenate(rows_mu), np.concatenate(rows_j)] = y
            bound = dual_bound(Y, problem) if np.all(y >= 0) else np.inf
            if bound <= tol:
                n_it = int(work[0])
                return LPDecision(False, bound, rounds, int(have.sum()), None, Y, n_it, work[1])
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


def _ipm_decide(
    problem: MemoryProblem, per_round: int, tol: float, max_rounds: int, max_iter: int = 150
) -> LPDecision:
    """One structured interior-point solve of the full max-margin LP (``method="ipm"``).

    ``problem`` is already normalised (see :func:`_normalised`); the floors are absolute here.
    Falls back to ``"cg"`` (which falls back to ``"highs"``) when the interior-point method
    stalls or fails, so that only the certificates decide.
    """
    e, u, c = constraint_arrays(problem)
    p, d = e.shape
    L = StructuredConstraints(e, u, c)

    def passes(w: NDArray[np.float64]) -> bool:
        return bool(constraint_margins(w.reshape(d, d), problem).min() > FEASIBLE_FLOOR)

    res = max_margin_ipm(L, tol, passes, max_iter=max_iter)
    status, w, y, it = res.status, res.w, res.y, res.iterations
    N = p * (p - 1)
    if status == "accepted":
        W = w.reshape(d, d).copy()
        margin = float(constraint_margins(W, problem).min())
        return LPDecision(True, margin, 1, N, W, iterations=it, flops=L.flops)
    if status == "infeasible" and np.all(y >= 0):
        Y = y.reshape(p, p - 1).copy()
        bound = dual_bound(Y, problem)
        if bound <= tol:
            return LPDecision(False, bound, 1, N, None, Y, iterations=it, flops=L.flops)
    return _cg_decide(problem, per_round, tol, max_rounds)


def _pow2(x: float) -> float:
    """Return the power of two nearest to ``x`` in log scale (1 for 0 or non-finite ``x``)."""
    return float(2.0 ** np.round(np.log2(x))) if x > 0 and np.isfinite(x) else 1.0


def _normalised(problem: MemoryProblem) -> tuple[MemoryProblem, float]:
    """Rescale inputs and targets (and competitors) to an RMS norm near 1, by powers of two.

    Both factors are powers of two (``e / s_e``, ``u / s_u``, ``c / s_u``), so the float32 data
    are rescaled exactly (outside the subnormal range) and every margin of a ``W`` is exactly
    ``s_u s_e`` times the normalised one. Returns the rescaled instance and ``s_u s_e``.
    """
    e, u, c = problem.inputs, problem.targets, problem.competitors
    s_e = _pow2(float(e.double().square().sum(dim=1).mean().sqrt()))
    vs = u if c is None else torch.cat([u, c.reshape(-1, c.shape[-1])])
    s_u = _pow2(float(vs.double().square().sum(dim=1).mean().sqrt()))
    if s_e == 1.0 and s_u == 1.0:
        return problem, 1.0
    out = MemoryProblem(e / s_e, u / s_u, None if c is None else c / s_u)
    return out, s_e * s_u


def _in_units(
    problem: MemoryProblem, tol: float, solve: Callable[[MemoryProblem], LPDecision]
) -> LPDecision:
    """Run ``solve`` on the normalised instance; re-certify its answer on ``problem`` itself.

    The floors :data:`FEASIBLE_FLOOR` and ``tol`` apply to the normalised instance, i.e. to
    ``problem`` in units of ``scale = s_u s_e``, so that a decision does not change when the
    inputs or the targets are rescaled by positive factors (exactly so for powers of two).
    The certificate is checked again in float64 on ``problem`` (margins and dual bound
    recomputed there, against the floors times ``scale``). The solver runs with one BLAS
    thread.
    """
    norm, scale = _normalised(problem)
    # one BLAS thread: on a loaded machine (or beside torch's OpenMP threads) a threaded BLAS
    # spent 6x the CPU time on the d = 32 interior-point steps (chapter 2, 2 cores)
    with threadpool_limits(limits=1, user_api="blas"):
        dec = solve(norm)
    if dec.weights is not None:
        margin = float(constraint_margins(dec.weights, problem).min())
        if not margin > FEASIBLE_FLOOR * scale:
            raise RuntimeError(f"the certifying W lost its margin on rescaling ({margin:.3g})")
    elif dec.multipliers is not None:
        margin = dual_bound(dec.multipliers, problem)
        if not margin <= tol * scale:
            raise RuntimeError(f"the dual bound grew on rescaling ({margin:.3g})")
    else:
        margin = dec.margin * scale
    return dataclasses.replace(dec, margin=margin, scale=scale)


def lp_decide(
    problem: MemoryProblem,
    *,
    method: str = "ipm",
    per_round: int = 8,
    tol: float = INFEASIBLE_TOL,
    max_rounds: int = 200,
    max_entries: int = LP_MAX_ENTRIES,
) -> LPDecision:
    """Decide exactly whether some ``W`` recalls every association, with a certificate.

    ``"ipm"`` (the default) maximises the margin ``t`` subject to ``(u_mu - v)^T W e_mu >= t``
    and ``|W_ij| <= 1`` over every one of the ``p (p - 1)`` constraints in one LP, by Mehrotra's
    predictor-corrector interior-point method on the ``d^2 + 1`` unknowns. Constraint row
    ``(mu, v)`` is ``a = vec((u_mu - v) e_mu^T)``, so the normal matrix is
    ``A^T D A = sum_mu U_mu (x) e_mu e_mu^T`` with ``U_mu = sum_v D_{mu v} (u_mu - v)(u_mu - v)^T``:
    one product of two ``(p, d (d + 1) / 2)`` matrices and one Cholesky factor of order
    ``d^2 + 1`` per iteration, and ``A w``, ``A^T y`` are products with the embeddings (the
    ``p (p - 1) x d^2`` matrix is never formed). It stops feasible as soon as an iterate has
    ``t > 0`` and its ``W`` passes the full float64 check, infeasible as soon as the duals give
    the float64 bound below ``tol`` (the two certificates below), and hands the instance to
    ``"cg"`` if it stalls or meets singular normal equations.

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
    method : {"ipm", "cg", "highs", "dense"}
        Algorithm (default ``"ipm"``).
    per_round : int
        Constraints added per input and round (>= 1; ``"cg"`` and ``"highs"``).
    tol : float
        Largest dual bound accepted as proof of infeasibility (> 0), in units of ``scale`` (the
        margin of ``|W_ij| <= 1`` with embeddings of norm about 1).
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
    CPU time on one core near the predicted transition (``benchmarks/lp_speed.py``): ``"ipm"``
    about 0.04 s at d = 16 and about 1 s at d = 32, against 0.1 s and 7-12 s for ``"cg"`` and
    2 s and minutes for ``"highs"``; d = 48 and 64 take seconds to tens of seconds with ``"ipm"``.
    Memory (``"ipm"``): the normal matrix, ``8 d^4`` bytes (134 MB at d = 64), and for the DP the
    differences ``u_mu - c_{mu j}``, ``8 p^2 d`` bytes. Source: digest §3.2-3.3
    (reconstruction; chapter 1, eqs. ``eq-op`` and ``eq-dp``) for the constraints; constraint
    generation, the duality bound and the interior-point method are textbook LP.
    """
    check_instance(problem)
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}, got {method!r}")
    max_entries = check_int("max_entries", max_entries, 1)  # checked for every method
    if method == "dense":

        def dense(q: MemoryProblem) -> LPDecision:
            ok, t = _dense_feasible(q, max_entries)
            return LPDecision(ok, t, 1, q.p * (q.p - 1), None)

        return _in_units(problem, INFEASIBLE_TOL, dense)
    per_round = check_int("per_round", per_round, 1)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    tol = check_positive("tol", tol)
    if method == "highs":
        return _in_units(problem, tol, lambda q: _highs_decide(q, per_round, tol, max_rounds))
    if method == "cg":
        return _in_units(problem, tol, lambda q: _cg_decide(q, per_round, tol, max_rounds))
    return _in_units(problem, tol, lambda q: _ipm_decide(q, per_round, tol, max_rounds))


def lp_feasible(
    problem: MemoryProblem, *, method: str = "ipm", max_entries: int = LP_MAX_ENTRIES
) -> bool:
    """Decide exactly whether some ``W`` recalls every association of an instance.

    The decision of :func:`lp_decide` without its certificate.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance.
    method : {"ipm", "cg", "highs", "dense"}
        See :func:`lp_decide` (default ``"ipm"``).
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
