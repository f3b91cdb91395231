"""Mehrotra's interior-point method for the max-margin LP, on dense or structured constraints.

One algorithm, :func:`max_margin_ipm`, solves ``max t s.t. A w >= t 1, |w_i| <= 1`` through
three products with the constraint matrix, ``A w``, ``A^T y`` and ``A^T diag(D) A``, supplied by
an operator: :class:`DenseConstraints` holds ``A`` (the restricted LPs of constraint
generation, :func:`~.lp.constraint_generation`), :class:`StructuredConstraints` never forms it
and builds the normal matrix from the Kronecker structure of the rows (every constraint at once,
:func:`~.lp.lp_decide`'s default). Every iterate keeps ``|w_i| < 1`` and ``y > 0``, so each gives
a float64 dual bound ``||A^T y||_1 / sum(y)`` on the optimum, and it stops on the one decision
rule of :func:`~.constraints.storage_outcome`; the certificates themselves are checked by
:mod:`.lp` from :mod:`.constraints`, never taken from this solver.

Source: Mehrotra's predictor-corrector (Nocedal & Wright, *Numerical Optimization*, 2nd ed.,
Algorithm 14.3); the structured normal matrix is a reconstruction (chapter 2, "Theory vs
simulation").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk

from assocmem.linear.storage.constraints import FEASIBLE_FLOOR, storage_outcome


class ConstraintOperator(Protocol):
    """What :func:`max_margin_ipm` reads of the constraint matrix ``A`` (N, n)."""

    n: int
    N: int
    flops: float

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A w``, (N,)."""
        ...

    def rmat(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A^T y``, (n,)."""
        ...

    def normal(self, D: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A^T diag(D) A`` (at least its lower triangle), (n, n)."""
        ...


class DenseConstraints:
    """Constraint rows held as one dense matrix: the operators of :func:`max_margin_ipm`.

    Parameters
    ----------
    A : numpy.ndarray, float64, shape (N, n)
        Constraint rows (e.g. :func:`~.constraints.constraint_rows`).
    """

    def __init__(self, A: NDArray[np.float64]) -> None:
        self.A = A
        self.N, self.n = A.shape
        self.flops = 0.0  # the dominant flops spent (normal matrix, Cholesky)

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A w``, (N,)."""
        return self.A @ w

    def rmat(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A^T y``, (n,)."""
        return self.A.T @ y

    def normal(self, D: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return the lower triangle of ``A^T diag(D) A``, (n, n) (one BLAS ``syrk``)."""
        self.flops += self.N * (self.n + 1) ** 2
        return dsyrk(1.0, (self.A * np.sqrt(D)[:, None]).T, lower=1)


class StructuredConstraints:
    """All ``p (p - 1)`` constraints of an instance as structured operators (never the matrix).

    Row ``(mu, j)`` is ``a = vec((u_mu - v_j) e_mu^T)`` (row-major ``W``, as
    :func:`~.constraints.constraint_matrix`), so ``A w`` are the margins, ``A^T y = vec(g^T e)``
    with
    ``g_mu = sum_j y_{mu j} (u_mu - v_j)``, and ``A^T diag(D) A = sum_mu U_mu (x) E_mu`` with
    ``U_mu = sum_j D_{mu j} (u_mu - v_j)(u_mu - v_j)^T`` and ``E_mu = e_mu e_mu^T``: entry
    ``((i, k), (j, l))`` is ``sum_mu U_mu[i, j] E_mu[k, l]``, one product of two ``(p, d^2)``
    matrices, ``2 p m^2`` flops with ``m = d (d + 1) / 2`` (both are symmetric), instead of
    ``N d^4`` for the dense rows.

    Parameters
    ----------
    e, u : numpy.ndarray, float64, shape (p, d)
        Inputs and targets.
    c : numpy.ndarray, float64, shape (p, p-1, d), or None
        The DP's private competitors (None: the OP).
    """

    def __init__(
        self, e: NDArray[np.float64], u: NDArray[np.float64], c: NDArray[np.float64] | None
    ) -> None:
        self.e, self.u, self.c = e, u, c
        p, d = e.shape
        self.p, self.d, self.n, self.N = p, d, d * d, p * (p - 1)
        self.off = ~np.eye(p, dtype=bool)
        # U_mu and E_mu are symmetric: the product runs on their d (d + 1) / 2 upper entries
        self.iu = np.triu_indices(d)
        m = len(self.iu[0])
        pair = np.zeros((d, d), dtype=np.int64)
        pair[self.iu] = np.arange(m)
        pair = np.maximum(pair, pair.T)  # pair[i, j]: packed index of {i, j}
        # K[(i, k), (j, l)] = Mp[pair[i, j], pair[k, l]], as one gather from the packed product
        self.gather = (pair[:, None, :, None] * m + pair[None, :, None, :]).reshape(-1)
        self.gather = self.gather.astype(np.int32 if m * m < 2**31 else np.int64)
        self.Ep = e[:, self.iu[0]] * e[:, self.iu[1]]  # (p, m)
        if c is None:
            self.UU = (u[:, :, None] * u[:, None, :]).reshape(p, d * d)
            self.diff = None
        else:
            self.diff = u[:, None, :] - c  # (p, p-1, d)
        self.flops = 0.0  # the dominant flops spent (normal matrix, Cholesky)

    def full(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Spread (p, p-1) to (p, p) with zero diagonal (OP: column nu is competitor u_nu)."""
        out = np.zeros((self.p, self.p))
        out[self.off] = y.ravel()
        return out

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A w`` (the margins), flat (N,)."""
        We = self.e @ w.reshape(self.d, self.d).T
        if self.diff is None:
            S = We @ self.u.T
            return (np.diag(S)[:, None] - S)[self.off]
        return np.einsum("mjd,md->mj", self.diff, We).ravel()

    def g(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``g_mu = sum_j y_{mu j} (u_mu - v_j)``, (p, d), from flat y (N,)."""
        Y = y.reshape(self.p, self.p - 1)
        if self.diff is None:
            return Y.sum(axis=1)[:, None] * self.u - self.full(Y) @ self.u
        return np.einsum("mj,mjd->md", Y, self.diff)

    def rmat(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A^T y``, (n,)."""
        return (self.g(y).T @ self.e).ravel()

    def normal(self, D: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return ``A^T diag(D) A``, (n, n), from the ``p`` matrices ``U_mu`` (see the class)."""
        p, d = self.p, self.d
        if self.diff is None:
            Df = self.full(D.reshape(p, p - 1))
            h = Df @ self.u
            uh = self.u[:, :, None] * h[:, None, :]
            U = (Df @ self.UU).reshape(p, d, d) - uh - uh.transpose(0, 2, 1)
            U += Df.sum(axis=1)[:, None, None] * self.UU.reshape(p, d, d)
        else:
            Dd = D.reshape(p, p - 1)
            U = np.matmul(self.diff.transpose(0, 2, 1) * Dd[:, None, :], self.diff)
        Up = U[:, self.iu[0], self.iu[1]]  # (p, m)
        Mp = Up.T @ self.Ep  # Mp[{i, j}, {k, l}] = sum_mu U_mu[i, j] E_mu[k, l]
        self.flops += 2.0 * p * Up.shape[1] ** 2
        return np.take(Mp, self.gather).reshape(d * d, d * d)


@dataclass(frozen=True)
class IPMResult:
    """Outcome of :func:`max_margin_ipm`.

    Attributes
    ----------
    status : str
        A decision of :func:`~.constraints.storage_outcome` reached on the bounds below
        (``"stored"``, ``"not stored"`` or ``"undecided at tolerance"``), else ``"optimal"``
        (relative gap reached), ``"stalled"`` (``max_iter`` iterations) or ``"failed"``
        (singular normal equations).
    w : numpy.ndarray, float64, shape (n,)
        The last primal iterate (strictly inside the box).
    witness : numpy.ndarray or None
        float64, shape (n,): the iterate with the largest ``margin`` seen (None if no iterate
        had ``t > floor``).
    lower : float
        ``margin(witness)`` (``-inf`` if None).
    bound : float
        The dual bound ``||A^T y||_1 / sum(y)`` of the last dual iterate (an upper bound on the
        LP's optimum, and on ``t*`` of every LP whose constraints include these).
    y : numpy.ndarray, float64, shape (N,)
        The last dual iterate (> 0).
    iterations : int
        Iterations run.
    """

    status: str
    w: NDArray[np.float64]
    witness: NDArray[np.float64] | None
    lower: float
    bound: float
    y: NDArray[np.float64]
    iterations: int


def max_margin_ipm(
    L: ConstraintOperator,
    tol: float,
    margin: Callable[[NDArray[np.float64]], float],
    *,
    floor: float = FEASIBLE_FLOOR,
    sharpen: Callable[[NDArray[np.float64]], float] | None = None,
    rel: float | None = None,
    max_iter: int = 150,
) -> IPMResult:
    """Solve ``max t s.t. A w >= t 1, |w_i| <= 1`` by Mehrotra's predictor-corrector method.

    Feasible start (``w = 0``, ``t = -1``; dual ``y = 1/N``), normal equations in the ``n + 1``
    unknowns ``(w, t)`` with one Cholesky factor per iteration; the products with ``A`` are the
    operator's. Every iterate keeps ``|w_i| < 1`` and ``y > 0``, so each gives a float64 dual
    bound ``||A^T y||_1 / sum(y)`` on the optimum (weak duality), checked at every iteration,
    and each iterate with ``t > floor`` is scored by ``margin``. The method stops as soon as the
    best score and the bound decide the instance by :func:`~.constraints.storage_outcome` (the
    rule every method of :mod:`.lp` applies).

    Parameters
    ----------
    L : DenseConstraints or StructuredConstraints
        The constraint operator (its ``flops`` is incremented by the normal matrices and their
        factors).
    tol : float
        The margin tolerance of :func:`~.constraints.storage_outcome`, > ``floor``.
    margin : callable
        ``margin(w)``: a certified lower bound on the best margin of the problem being decided
        (e.g. the smallest of *all* its constraint margins, when ``L`` holds a subset); called
        on every iterate with ``t > floor``.
    floor : float
        The zero level of :func:`~.constraints.storage_outcome`.
    sharpen : callable, optional
        ``sharpen(y)``: a certified upper bound on the best margin derived from the duals ``y``
        (e.g. by polishing them, :func:`~.lp.lp_decide`), tighter than their own bound; called
        when the bound first falls to ``tol``, and again each time it has fallen tenfold, while
        no iterate has a margin > ``floor`` (near ``t* = 0``, where the iterates approach the
        optimum slowly).
    rel : float, optional
        Stop with ``"optimal"`` once ``t > 0`` and ``bound - t <= rel * t`` (None: never).
    max_iter : int
        Iterations before ``"stalled"``.

    Returns
    -------
    IPMResult
    """
    n, N = L.n, L.N
    w, t = np.zeros(n), -1.0
    s = np.ones(N)  # A w - t
    y = np.full(N, 1.0 / N)
    g = L.rmat(y)
    lam, nu = 1.0 + np.maximum(-g, 0.0), 1.0 + np.maximum(g, 0.0)  # duals of w >= -1, w <= 1
    diag = np.arange(n + 1)

    def steplen(v: NDArray[np.float64], dv: NDArray[np.float64]) -> float:
        neg = dv < 0
        return float(min(1.0, np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0

    def rmat_t(v: NDArray[np.float64]) -> NDArray[np.float64]:  # Ap^T v, Ap = [A, -1]
        return np.r_[L.rmat(v), -v.sum()]

    status, bound, it = "stalled", np.inf, 0
    best_w: NDArray[np.float64] | None = None
    lower = -np.inf
    next_sharpen = tol
    while it < max_iter:
        it += 1
        a, b = 1.0 + w, 1.0 - w
        Aty = L.rmat(y)
        bound = float(np.abs(Aty).sum() / y.sum())
        if t > floor:
            m = margin(w)
            if m > lower:
                best_w, lower = w, m
        if sharpen is not None and bound <= next_sharpen and lower <= floor:
            next_sharpen = bound / 10  # again once the bound has fallen tenfold
            bound = min(bound, sharpen(y))
        outcome = storage_outcome(lower, bound, tol, floor)
        if outcome is not None:
            status = outcome.value
            break
        if rel is not None and t > 0 and bound - t <= rel * t:
            status = "optimal"
            break
        mu = (y @ s + lam @ a + nu @ b) / (N + 2 * n)
        rp = L.margins(w) - t - s
        rd = np.r_[Aty - nu + lam, 1.0 - y.sum()]
        D = y / s
        K = np.empty((n + 1, n + 1))  # Ap^T D Ap, Ap = [A, -1]; the lower triangle is read
        K[:n, :n] = L.normal(D)
        K[n, :n] = K[:n, n] = -L.rmat(D)
        K[n, n] = D.sum()
        K[diag[:n], diag[:n]] += nu / b + lam / a
        K[diag, diag] += 1e-13 * (1.0 + K[diag, diag])
        L.flops += (n + 1) ** 3 / 3
        try:
            F = cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
        except LinAlgError:
            status = "failed"
            break
        if not np.all(np.isfinite(F[0][diag, diag])):
            status = "failed"
            break
        base = rd - rmat_t(D * rp)
        ry, rl, rn = -y * s, -lam * a, -nu * b  # affine (predictor) step first
        for corrector in (False, True):
            rhs = base + rmat_t(ry / s) - np.r_[rn / b - rl / a, 0.0]
            dx = cho_solve(F, rhs, check_finite=False)
            dw = dx[:n]
            ds = L.margins(dw) - dx[n] + rp
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
        w, t, s = w + ap * dw, t + ap * float(dx[n]), s + ap * ds
        y, lam, nu = y + ad * dy, lam + ad * dl, nu + ad * dn
    witness = None if best_w is None else best_w.copy()
    return IPMResult(status, w.copy(), witness, lower, bound, y, it)
