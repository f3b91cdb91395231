"""Exact perfect-storage decisions by linear programming.

:func:`lp_decide` decides whether some ``W`` recalls every association of an instance, i.e.
whether the homogeneous system ``(u_mu - v)^T W e_mu > 0`` (every input ``mu``, every competitor
``v``) has a solution, and returns the certificates of its answer. Every method bounds the best
margin ``t* = max min_k a_k . W`` over ``|W_ij| <= 1`` of the *row-normalised* instance
(each input scaled to unit norm, the targets to unit RMS norm: :func:`normalise_rows`) from both
sides, in float64, independently of the solver:

* from below by a matrix ``W`` whose margin is checked on *every* one of the ``p (p - 1)``
  constraints (a direct proof that the instance can be stored with that margin);
* from above by nonnegative multipliers ``y`` on the constraints: every ``W`` with
  ``|W_ij| <= 1`` has some margin ``<= ||G||_1 / sum(y)``, ``G = sum_k y_k (u_mu - v_k) e_mu^T``
  (weak duality; Gordan's alternative with the solver's tolerance made explicit);

and one rule, :func:`~.constraints.storage_outcome`, turns the two bounds into one of three
answers (:class:`~.constraints.LPOutcome`): **stored** (``t* > tol``), **not stored**
(``t* <= FEASIBLE_FLOOR``, zero to rounding) or **undecided at tolerance** (``FEASIBLE_FLOOR <
t* <= tol``: a ``W`` exists, with a margin that a rounding of the data could remove). The three
need disjoint ranges of ``t*``, so every method answers alike on the same instance; and since a
positive factor on one input scales only its own constraints, and row normalisation removes it,
the answer is the same at every positive scale of any input (or of the targets).

Four methods: ``"ipm"`` (the default: one primal-dual interior-point solve of the max-margin LP
over *all* ``p (p - 1)`` constraints, its normal matrix built from the Kronecker structure of
the constraints, ``sum_mu U_mu (x) e_mu e_mu^T``, in ``O(p d^4)`` flops whatever the number of
constraints), ``"cg"`` (:func:`constraint_generation` on the max-margin LP, each restricted LP
solved by a dense interior-point method; the previous default, kept as a second solver and as
the fallback of ``"ipm"``), ``"highs"`` (the same constraint generation with one ``highspy``
dual-simplex model kept across rounds; slower, an independent third solver and the fallback of
``"cg"``) and ``"dense"`` (every constraint at once through :func:`scipy.optimize.linprog`, the
reference for small instances). A solver inaccuracy can make a method hand the instance to the
next one or fail (``RuntimeError``), but not answer wrong.

The constraints, the row normalisation, the arithmetic of both certificates and the decision
rule are in :mod:`.constraints`, the one interior-point method (on the dense rows of a
restricted LP or on the structured operators of the full one) in :mod:`.interior_point`; this
module holds the decisions.

Source: the perfect-storage condition of the digest of arXiv:2605.10795, §3.2-3.3
(reconstruction, see chapter 1); constraint generation and Gordan's theorem are textbook LP
(e.g. Bertsimas & Tsitsiklis, *Introduction to Linear Optimization*, §4.6 and §6.1); the
interior-point method is Mehrotra's predictor-corrector (Nocedal & Wright, *Numerical
Optimization*, 2nd ed., Algorithm 14.3).
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import linprog
from threadpoolctl import threadpool_limits

from assocmem._validate import check_int, check_positive
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.linear.storage.constraints import (
    FEASIBLE_FLOOR,
    INFEASIBLE_TOL,
    LPOutcome,
    check_instance,
    constraint_arrays,
    constraint_differences,
    constraint_margins,
    constraint_matrix,
    constraint_rows,
    dual_bound,
    lp_size,
    normalise_rows,
    storage_outcome,
)
from assocmem.linear.storage.interior_point import (
    DenseConstraints,
    StructuredConstraints,
    max_margin_ipm,
)

#: Largest LP handled by the ``"dense"`` method: (p(p-1) constraints) x (d^2 variables).
#: 2.5e7 dense coefficients is about 200 MB in float64 (HiGHS copies it into a sparse matrix);
#: e.g. d = 16 up to alpha ~ 4, d = 20 up to alpha ~ 2.2, d = 24 up to alpha ~ 1.3.
LP_MAX_ENTRIES: int = 25_000_000

#: The optimum ``t*`` of :func:`max_margin_linf` above which callers treat an instance as
#: storable (the dense simplex's own precision is its feasibility tolerance, 1e-9).
DENSE_THRESHOLD: float = 1e-7

LP_METHODS = ("ipm", "cg", "highs", "dense")


@dataclass(frozen=True)
class LPDecision:
    """The answer of :func:`lp_decide` with its certificates.

    Margins, bounds and multipliers refer to the row-normalised instance of
    :func:`~.constraints.normalise_rows` (inputs of unit norm, targets of unit RMS norm), whose
    margins of a ``W`` are those on the instance as given divided by ``scales[mu]`` row by row;
    a certifying ``W`` stores the instance as given too (same signs).

    Attributes
    ----------
    feasible : bool or None
        True: stored (some ``W`` has every margin > ``tol``); False: not stored (no ``W`` has a
        margin > ``floor``); None: undecided at tolerance (the best margin lies in
        ``(floor, tol]``). See :attr:`outcome`.
    margin : float
        Stored or undecided: the smallest margin ``(u_mu - v)^T W e_mu`` of the certifying ``W``
        (``|W_ij| <= 1``) over all ``p (p-1)`` constraints (a lower bound on ``t*``). Not stored:
        the dual upper bound on the best such margin of any ``W`` (``<= floor``).
    rounds : int
        LP solves (1 for ``"ipm"`` and ``"dense"`` unless they handed the instance on).
    constraints : int
        Constraints in the last LP (``p (p-1)`` for ``"ipm"`` and ``"dense"``).
    weights : numpy.ndarray or None
        float64, shape (d, d): the certifying ``W`` when stored or undecided, else None.
    multipliers : numpy.ndarray or None
        float64, shape (p, p-1), >= 0: the certifying multipliers ``y`` when not stored or
        undecided (and whenever a method computed them), indexed like
        :func:`~.constraints.constraint_margins` (zero off the last restricted LP);
        ``bound == dual_bound(multipliers, normalised)``.
    iterations : int
        Interior-point iterations, summed over rounds (``"ipm"``, ``"cg"``; 0 otherwise).
    flops : float
        The dominant floating-point operations of those iterations (normal matrices and their
        Cholesky factors), for rates in ``benchmarks/lp_speed.py``.
    bound : float
        The smallest dual upper bound on ``t*`` found (``inf`` if none was computed).
    tol : float
        The margin tolerance the decision used (the bound between stored and undecided).
    floor : float
        The zero level the decision used (the bound between undecided and not stored,
        :data:`~.constraints.FEASIBLE_FLOOR`).
    scales : numpy.ndarray or None
        float64, shape (p,): ``||e_mu|| s_u`` of :func:`~.constraints.normalise_rows`.
    """

    feasible: bool | None
    margin: float
    rounds: int
    constraints: int
    weights: NDArray[np.float64] | None = None
    multipliers: NDArray[np.float64] | None = None
    iterations: int = 0
    flops: float = 0.0
    bound: float = math.inf
    tol: float = INFEASIBLE_TOL
    floor: float = FEASIBLE_FLOOR
    scales: NDArray[np.float64] | None = None

    @property
    def outcome(self) -> LPOutcome:
        """The three-way answer: stored, not stored or undecided at tolerance."""
        if self.feasible is None:
            return LPOutcome.UNDECIDED
        return LPOutcome.STORED if self.feasible else LPOutcome.NOT_STORED

    def __str__(self) -> str:
        """One line: the decision, the work it took and the certificate's number.

        ``stored after 3 rounds, 245 constraints; its W has margin 0.0123`` (a certifying ``W``),
        ``not stored after 5 rounds, 400 constraints; no |W_ij| <= 1 has margin > 1.0e-11``
        (a dual certificate), ``undecided at tolerance after 1 round, 30 constraints; best
        margin in [3.0e-10, 1.1e-09], within tol = 1e-07 of 0`` (both).
        """
        rounds = f"{self.rounds} round{'s' * (self.rounds != 1)}"
        head = f"{self.outcome} after {rounds}, {self.constraints} constraints"
        if self.feasible is None:
            return (f"{head}; best margin in [{self.margin:.1e}, {self.bound:.1e}], within "
                    f"tol = {self.tol:g} of 0")  # fmt: skip
        if self.feasible and self.weights is not None:
            return f"{head}; its W has margin {self.margin:.3g}"
        if not self.feasible and self.multipliers is not None:
            return f"{head}; no |W_ij| <= 1 has margin > {self.margin:.1e}"
        return f"{head}; max margin t* = {self.margin:.3g} (no certificate)"


class _Bounds:
    """The best certificates found so far on a normalised instance, checked in float64."""

    def __init__(self, problem: MemoryProblem, tol: float) -> None:
        self.problem, self.tol = problem, tol
        self.lower, self.upper = -math.inf, math.inf
        self.W: NDArray[np.float64] | None = None
        self.Y: NDArray[np.float64] | None = None

    def add_w(self, W: NDArray[np.float64]) -> float:
        """Check ``W`` (clipped to the box) on every constraint; keep it if it is the best."""
        W = np.clip(W, -1.0, 1.0)
        m = float(constraint_margins(W, self.problem).min())
        if m > self.lower:
            self.lower, self.W = m, W.copy()
        return m

    def add_y(self, Y: NDArray[np.float64]) -> None:
        """Keep the multipliers ``Y`` (p, p-1) if their dual bound is the best."""
        if np.all(np.isfinite(Y)) and np.all(Y >= 0) and Y.sum() > 0:
            b = dual_bound(Y, self.problem)
            if b < self.upper:
                self.upper, self.Y = b, Y.copy()

    def decision(
        self, rounds: int, constraints: int, work: tuple[float, float] = (0, 0)
    ) -> LPDecision | None:
        """Return the decision of :func:`~.constraints.storage_outcome` (None: not reached)."""
        out = storage_outcome(self.lower, self.upper, self.tol)
        if out is None:
            return None
        feasible = {LPOutcome.STORED: True, LPOutcome.NOT_STORED: False}.get(out)
        margin = self.upper if out is LPOutcome.NOT_STORED else self.lower
        W = None if out is LPOutcome.NOT_STORED else self.W
        Y = None if out is LPOutcome.STORED else self.Y
        return LPDecision(feasible, margin, rounds, constraints, W, Y, int(work[0]), work[1],
                          self.upper, self.tol)  # fmt: skip


def _dense_max_margin(
    problem: MemoryProblem, max_entries: int, t_max: float | None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Solve ``max t`` s.t. ``A w >= t``, ``|w_i| <= 1``, ``t <= t_max``; return ``(w, t)``, ``y``.

    Every constraint at once (scipy's HiGHS dual simplex, tolerances 1e-9); ``y >= 0`` are the
    duals of the margin constraints, shape (p, p-1).
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
    y = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    return np.asarray(res.x, dtype=np.float64), y.reshape(p, p - 1)


def _dense_decide(problem: MemoryProblem, tol: float, max_entries: int) -> LPDecision | None:
    """Every constraint at once (scipy's HiGHS): the reference decision for small instances.

    The max-margin LP ``max t`` s.t. ``A w >= t``, ``|w_i| <= 1``, ``t <= 1`` (bounded, so no
    badly scaled ``W`` is needed near capacity) by dual simplex with tolerances 1e-9; its ``W``
    and its duals are the two certificates. None if they do not decide (``t*`` within the
    simplex's tolerance of a threshold).
    """
    x, y = _dense_max_margin(problem, max_entries, 1.0)
    d, p = problem.d, problem.p
    bounds = _Bounds(problem, tol)
    bounds.add_w(x[: d * d].reshape(d, d))
    bounds.add_y(y)
    return bounds.decision(1, p * (p - 1))


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
    x, _ = _dense_max_margin(problem, check_int("max_entries", max_entries, 1), None)
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
    h.setOptionValue("primal_feasibility_tolerance", 1e-10)
    h.setOptionValue("dual_feasibility_tolerance", 1e-10)
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
    bounds = _Bounds(problem, tol)
    have = np.zeros((p, p - 1), dtype=bool)
    rows_mu: list[NDArray[np.intp]] = []
    rows_j: list[NDArray[np.intp]] = []
    t = np.inf
    kk = min(per_round, p - 1)
    for rounds in range(max_rounds + 1):
        M = constraint_margins(W, problem)
        if rounds > 0:
            bounds.add_w(W)
            # the duals of this restricted LP bound t* of the full one (zeros elsewhere)
            y = np.abs(np.asarray(h.getSolution().row_dual))[p * d :]
            mu_all, j_all = np.concatenate(rows_mu), np.concatenate(rows_j)
            Y = np.zeros((p, p - 1))
            Y[mu_all, j_all] = y
            bounds.add_y(Y)
            if bounds.upper <= tol and bounds.lower <= FEASIBLE_FLOOR and y.sum() > 0:
                # near t* = 0 the simplex's duals cancel to its tolerance only: polish them
                op = DenseConstraints(constraint_rows(e, u, c, mu_all, j_all))
                _sharpener(bounds, op, mu_all, j_all)(y)
            dec = bounds.decision(rounds, int(have.sum()))
            if dec is not None:
                return dec
        # add, per input, the kk lowest-margin constraints the current LP solution violates
        Mm = np.where(have, np.inf, M)
        cand = np.argpartition(Mm, kk - 1, axis=1)[:, :kk]
        sel_mu = np.repeat(np.arange(p), kk)
        sel_j = cand.ravel()
        keep = Mm[sel_mu, sel_j] < t - 1e-12
        sel_mu, sel_j = sel_mu[keep], sel_j[keep]
        if sel_mu.size == 0 or rounds == max_rounds:
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
    raise RuntimeError(
        f"LP undecided after {rounds} rounds: the best W has margin {bounds.lower:.3g} and the "
        f"dual bound is {bounds.upper:.3g}, which decide nothing at tol={tol:g} and floor="
        f"{FEASIBLE_FLOOR:g} (p={p}, d={d}); raise max_rounds"
    )


def _check_tol(tol: object) -> float:
    """Return the margin tolerance (a real number > :data:`FEASIBLE_FLOOR`), else raise."""
    t = check_positive("tol", tol)
    if not t > FEASIBLE_FLOOR:
        raise ValueError(
            f"tol must exceed the zero level FEASIBLE_FLOOR={FEASIBLE_FLOOR:g}, got {tol}"
        )
    return t


def constraint_generation(
    problem: MemoryProblem,
    *,
    per_round: int = 8,
    tol: float = INFEASIBLE_TOL,
    max_rounds: int = 200,
) -> LPDecision:
    """Decide perfect storage by constraint generation on the max-margin LP (``method="cg"``).

    Maximise ``t`` subject to ``(u_mu - v)^T W e_mu >= t`` and ``|W_ij| <= 1`` over a growing
    subset of the ``p (p - 1)`` constraints of the row-normalised instance
    (:func:`~.constraints.normalise_rows`): each round adds, for each input, up to ``per_round``
    constraints that the current ``W`` meets below the restricted optimum (round 1: those closest
    to the target under the Hebbian ``W``), solves the restricted LP by an interior-point method
    and checks its iterates in float64 on *all* constraints. See :func:`lp_decide` for the
    certificates, the three answers and the solver.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance (read exactly as float64).
    per_round : int
        Constraints added per input and round (>= 1).
    tol : float
        The margin tolerance (> :data:`~.constraints.FEASIBLE_FLOOR`): the bound between
        "stored" and "undecided at tolerance".
    max_rounds : int
        Most restricted LPs before the instance goes to ``"highs"`` (>= 1).

    Returns
    -------
    LPDecision
        As :func:`lp_decide`. Should the interior-point method stall, fail or run out of
        rounds, the instance is decided by the simplex-based ``lp_decide(..., method="highs")``
        instead.

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem or an argument is out of range.
    RuntimeError
        If the simplex fallback does not decide either within ``max_rounds``.

    Notes
    -----
    Decides the strict systems of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP); the
    algorithm is described in chapter 2, section "Theory vs simulation". Source: constraint
    generation and weak duality are textbook LP (Bertsimas & Tsitsiklis §4.6, §6.1); the
    perfect-storage condition is the digest's §3.2-3.3 (reconstruction).
    """
    check_instance(problem)
    per_round = check_int("per_round", per_round, 1)
    tol = _check_tol(tol)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    return _decide(problem, lambda q: _cg_decide(q, per_round, tol, max_rounds))


def _full_margin(problem: MemoryProblem) -> Callable[[NDArray[np.float64]], float]:
    """``w -> min`` of all ``p (p-1)`` margins of ``W = w.reshape(d, d)`` (in the box)."""
    d = problem.d

    def margin(w: NDArray[np.float64]) -> float:
        return float(constraint_margins(np.clip(w.reshape(d, d), -1.0, 1.0), problem).min())

    return margin


def _cg_decide(problem: MemoryProblem, per_round: int, tol: float, max_rounds: int) -> LPDecision:
    """Run the loop of :func:`constraint_generation` on an already normalised instance."""
    e, u, c = constraint_arrays(problem)
    p, d = e.shape
    margin = _full_margin(problem)
    bounds = _Bounds(problem, tol)
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
        # 2. solve the restricted LP: max t s.t. A vec(W) >= t, |W_ij| <= 1; its iterates are
        # checked on all constraints, its duals bound t* of the full LP (zeros elsewhere)
        op = DenseConstraints(A)
        sharpen = _sharpener(bounds, op, np.concatenate(rows_mu), np.concatenate(rows_j))
        res = max_margin_ipm(op, tol, margin, sharpen=sharpen, rel=1e-3, max_iter=100)
        work[0] += res.iterations
        work[1] += op.flops
        if res.witness is not None:
            bounds.add_w(res.witness.reshape(d, d))
        Y = np.zeros((p, p - 1))
        Y[np.concatenate(rows_mu), np.concatenate(rows_j)] = res.y
        bounds.add_y(Y)
        # 3. the one rule decides on the float64 certificates
        dec = bounds.decision(rounds, int(have.sum()), (work[0], work[1]))
        if dec is not None:
            return dec
        if res.status in ("stalled", "failed"):
            break
        W = res.w.reshape(d, d)
        t = float(np.min(A @ res.w))  # the restricted LP's margin (to the gap 1e-3)
    # numerical trouble, no progress or out of rounds: the independent simplex method decides
    return _highs_decide(problem, per_round, tol, max_rounds)


def _polish_duals(
    L: StructuredConstraints | DenseConstraints, y: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Project the duals ``y`` onto ``A^T z = 0`` in the metric ``diag(y)^-1``; clip at 0.

    Near ``t* = 0`` the interior-point method can stall with a dual bound a little above
    :data:`FEASIBLE_FLOOR`, ``||A^T y||_1`` small but not cancelled. The step
    ``z = y - diag(y) A lam`` with ``(A^T diag(y) A) lam = A^T y`` (one normal matrix and one
    Cholesky factor, as one interior-point iteration; two refinements) moves each ``y_k`` by a
    small fraction of itself, so ``z`` stays nonnegative, and cancels ``A^T z`` to rounding
    when the instance cannot be stored. The result is only a candidate:
    :func:`~.constraints.dual_bound` checks it.
    """
    n = L.n
    z = y.copy()
    diag = np.arange(n)
    for _ in range(3):
        K = L.normal(z)
        K[diag, diag] += 1e-14 * (1.0 + K[diag, diag])
        try:
            F = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
        except LinAlgError:
            break
        lam = cho_solve(F, L.rmat(z), check_finite=False)
        z = np.maximum(z - z * L.margins(lam), 0.0)
        if not np.all(np.isfinite(z)):
            return y
    return z


def _sharpener(
    bounds: _Bounds, L: StructuredConstraints | DenseConstraints, mu: NDArray[np.intp],
    j: NDArray[np.intp],
) -> Callable[[NDArray[np.float64]], float]:  # fmt: skip
    """``y -> `` the best certified bound after polishing ``y`` (duals of rows ``(mu, j)``)."""
    p = bounds.problem.p

    def sharpen(y: NDArray[np.float64]) -> float:
        Y = np.zeros((p, p - 1))
        Y[mu, j] = _polish_duals(L, y)
        bounds.add_y(Y)
        return bounds.upper

    return sharpen


def _ipm_decide(
    problem: MemoryProblem, per_round: int, tol: float, max_rounds: int, max_iter: int = 150
) -> LPDecision:
    """One structured interior-point solve of the full max-margin LP (``method="ipm"``).

    ``problem`` is already normalised (:func:`~.constraints.normalise_rows`). Falls back to
    ``"cg"`` (which falls back to ``"highs"``) when the interior-point method stalls or fails,
    so that only the certificates decide.
    """
    e, u, c = constraint_arrays(problem)
    p, d = e.shape
    L = StructuredConstraints(e, u, c)
    bounds = _Bounds(problem, tol)
    mu, j = np.divmod(np.arange(p * (p - 1)), p - 1)
    sharpen = _sharpener(bounds, L, mu, j)  # near t* = 0: polished multipliers
    res = max_margin_ipm(L, tol, _full_margin(problem), sharpen=sharpen, max_iter=max_iter)
    if res.witness is not None:
        bounds.add_w(res.witness.reshape(d, d))
    bounds.add_y(res.y.reshape(p, p - 1))
    dec = bounds.decision(1, p * (p - 1), (res.iterations, L.flops))
    return dec if dec is not None else _cg_decide(problem, per_round, tol, max_rounds)


def _decide(
    problem: MemoryProblem, solve: Callable[[MemoryProblem], LPDecision | None]
) -> LPDecision:
    """Run ``solve`` on the row-normalised instance; attach its row scales to the decision.

    The thresholds of :func:`~.constraints.storage_outcome` apply to the normalised instance
    (:func:`~.constraints.normalise_rows`), so that a decision does not change when an input or
    the targets are rescaled by positive factors. The solver runs with one BLAS thread.
    """
    norm, scales = normalise_rows(problem)
    # one BLAS thread: on a loaded machine (or beside torch's OpenMP threads) a threaded BLAS
    # spent 6x the CPU time on the d = 32 interior-point steps (chapter 2, 2 cores)
    with threadpool_limits(limits=1, user_api="blas"):
        dec = solve(norm)
        if dec is None:  # "dense" at a threshold within the simplex's tolerance
            p = problem.p
            dec = _ipm_decide(norm, 8, INFEASIBLE_TOL, 200)
            dec = dataclasses.replace(dec, rounds=dec.rounds + 1, constraints=p * (p - 1))
    return dataclasses.replace(dec, scales=scales)


def lp_decide(
    problem: MemoryProblem,
    *,
    method: str = "ipm",
    per_round: int = 8,
    tol: float = INFEASIBLE_TOL,
    max_rounds: int = 200,
    max_entries: int = LP_MAX_ENTRIES,
) -> LPDecision:
    """Decide exactly whether some ``W`` recalls every association: stored, not, or undecided.

    The instance is first row-normalised (:func:`~.constraints.normalise_rows`: each input to
    unit norm, the targets and competitors to unit RMS norm, in float64), which changes no
    answer (a positive factor on an input scales only its own constraints) and makes the
    thresholds below absolute. Every method then bounds the best margin
    ``t* = max_{|W_ij| <= 1} min_k (u_mu - v_k)^T W e_mu`` from below by a ``W`` checked in
    float64 on every constraint and from above by a dual bound recomputed in float64 from
    multipliers ``y >= 0`` (:func:`~.constraints.dual_bound`), until one rule,
    :func:`~.constraints.storage_outcome`, decides:

    * **stored** (``feasible = True``) if a ``W`` has every margin > ``tol``;
    * **not stored** (``feasible = False``) if the dual bound is <= :data:`FEASIBLE_FLOOR`
      (1e-10: ``t* = 0`` to float64 rounding);
    * **undecided at tolerance** (``feasible = None``) if a ``W`` has every margin >
      ``FEASIBLE_FLOOR`` and the dual bound is <= ``tol``: the instance as given can be stored,
      but only with a margin within ``tol`` (default 1e-7, in units of unit-norm inputs) of
      zero, which rounding the embeddings (e.g. to float32, 6e-8 relative) could remove.

    The three answers need disjoint ranges of ``t*``, so every method gives the same one on the
    same instance (the regression tests of issue 42 check it on instances where they did not).

    ``"ipm"`` (the default) maximises ``t`` subject to ``(u_mu - v)^T W e_mu >= t`` and
    ``|W_ij| <= 1`` over every one of the ``p (p - 1)`` constraints in one LP, by Mehrotra's
    predictor-corrector interior-point method on the ``d^2 + 1`` unknowns. Constraint row
    ``(mu, v)`` is ``a = vec((u_mu - v) e_mu^T)``, so the normal matrix is
    ``A^T D A = sum_mu U_mu (x) e_mu e_mu^T`` with ``U_mu = sum_v D_{mu v} (u_mu - v)(u_mu - v)^T``:
    one product of two ``(p, d (d + 1) / 2)`` matrices and one Cholesky factor of order
    ``d^2 + 1`` per iteration, and ``A w``, ``A^T y`` are products with the embeddings (the
    ``p (p - 1) x d^2`` matrix is never formed). Each iterate with ``t > FEASIBLE_FLOOR`` is
    checked on every constraint and each dual iterate gives a bound; it stops as soon as they
    decide, and hands the instance to ``"cg"`` if it stalls or meets singular normal equations.

    ``"cg"`` maximises the margin over a growing subset of the constraints. Round 1 takes, for
    each input, the ``per_round`` competitors closest to its target under the Hebbian matrix;
    each later round adds, for each input, up to ``per_round`` constraints that the current
    ``W`` violates or meets below the restricted optimum. Each restricted LP is solved by a dense
    primal-dual interior-point method (the same algorithm), stopped at a relative gap of 1e-3 —
    enough to choose the next constraints, since no answer rests on the solver's accuracy: its
    iterates are checked on all constraints, and multipliers on a subset are multipliers on the
    full set with zeros elsewhere. Should it stall or run out of rounds, ``"cg"`` hands the
    instance to ``"highs"``, the same constraint generation with a ``highspy`` dual-simplex
    model kept across rounds (the scores ``W e_mu`` as auxiliary columns), whose primal
    solution and row duals are the two certificates of each round.

    ``"dense"`` passes all constraints at once to :func:`scipy.optimize.linprog`: the same
    max-margin LP (with ``t <= 1``) by dual simplex; its solution and its duals are the
    certificates. It is the reference for small instances; should they decide nothing (``t*``
    within the simplex's tolerance 1e-9 of a threshold), ``"ipm"`` decides. (The bounded form
    matters: the unbounded feasibility LP ``A w >= 1`` needs ``|W_ij|`` up to ``1 / t*``, and
    HiGHS's interior-point solver called feasible instances with ``t*`` of order 1e-4
    infeasible.)

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance (read exactly as float64).
    method : {"ipm", "cg", "highs", "dense"}
        Algorithm (default ``"ipm"``).
    per_round : int
        Constraints added per input and round (>= 1; ``"cg"`` and ``"highs"``).
    tol : float
        The margin tolerance (> :data:`FEASIBLE_FLOOR`; default :data:`INFEASIBLE_TOL` = 1e-7),
        in units of the row-normalised instance: the bound between "stored" and "undecided at
        tolerance" (``"dense"`` uses the default).
    max_rounds : int
        Most LP solves of ``"cg"`` and ``"highs"`` (>= 1; then ``"cg"`` hands on to
        ``"highs"``, and ``"highs"`` raises :class:`RuntimeError`).
    max_entries : int
        Size limit on ``p (p-1) d^2`` (``"dense"`` only).

    Returns
    -------
    LPDecision
        ``feasible`` (True, False or None: undecided), :attr:`LPDecision.outcome`, the
        certified ``margin`` and ``bound``, ``tol`` and ``floor`` (the two thresholds),
        ``rounds``, ``constraints``, the certifying ``weights`` and ``multipliers``, and the
        ``scales`` of the normalisation.

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or a numeric argument has the wrong type.
    ValueError
        If the problem is batched, ``method`` is unknown, an argument is out of range, or (dense)
        ``p (p-1) d^2 > max_entries``.
    RuntimeError
        If the solver fails, or the last fallback decides nothing within ``max_rounds``.

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
    per_round = check_int("per_round", per_round, 1)
    max_rounds = check_int("max_rounds", max_rounds, 1)
    tol = _check_tol(tol)
    if method == "dense":
        return _decide(problem, lambda q: _dense_decide(q, INFEASIBLE_TOL, max_entries))
    if method == "highs":
        return _decide(problem, lambda q: _highs_decide(q, per_round, tol, max_rounds))
    if method == "cg":
        return _decide(problem, lambda q: _cg_decide(q, per_round, tol, max_rounds))
    return _decide(problem, lambda q: _ipm_decide(q, per_round, tol, max_rounds))


def lp_feasible(
    problem: MemoryProblem, *, method: str = "ipm", max_entries: int = LP_MAX_ENTRIES
) -> bool | None:
    """Decide exactly whether some ``W`` recalls every association of an instance.

    The decision of :func:`lp_decide` without its certificates.

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
    bool or None
        True if stored, False if not, None if undecided at tolerance (the best margin lies
        within :data:`INFEASIBLE_TOL` of zero; see :func:`lp_decide`). ``if lp_feasible(...)``
        therefore counts an undecided instance as not stored.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`lp_decide`.

    Notes
    -----
    Decides the strict systems of chapter 1, eqs. ``eq-op`` (OP) and ``eq-dp`` (DP).
    """
    return lp_decide(problem, method=method, max_entries=max_entries).feasible
