"""Which max-margin direction does a trained memory approach? Normalised margins over training.

The perfect-storage constraints ``a_k . vec(W) > 0``
(:func:`assocmem.linear.storage.constraints.constraint_matrix`) are homogeneous in ``W``, so only
the direction of ``W`` matters, and a direction is scored by its *normalised margin* ``min_k a_k . W
/ ||W||`` for a chosen norm. Two norms are used here:

* **l-infinity (entrywise max)**: ``gamma_inf(W) = min_k a_k . W / max_ij |W_ij|``. Its largest
  value ``t*`` is the optimum of the exact LP of :mod:`assocmem.linear.storage.lp`
  (:func:`assocmem.linear.storage.lp.max_margin_linf`).
* **Frobenius (l2)**: ``gamma_2(W) = min_k a_k . W / ||W||_F``. Its largest value is
  ``1 / ||W_2||_F`` with ``W_2`` the hard-margin SVM solution ``argmin ||W||_F`` s.t.
  ``a_k . W >= 1`` (:func:`l2_max_margin`).

:func:`margin_ratios` divides the normalised margins of a sequence of memories (e.g. snapshots of
training, :func:`assocmem.linear.storage.training.train_memory` with ``record_weights=True``) by
these maxima, so that each ratio is <= 1 and equals 1 only in a max-margin direction; it also
returns the cosines between each ``W`` and the two max-margin solutions. :func:`margin_trajectories`
follows them over training; :meth:`MarginTrajectories.summary` gives the means over instances
(:class:`assocmem.estimate.Estimate`) that chapter 1 quotes.

Sources: for plain gradient descent on separable data with the logistic or cross-entropy loss,
the direction converges to the l2 max-margin (hard-margin SVM) solution (Soudry, Hoffer, Nacson,
Gunasekar & Srebro, JMLR 2018); the training of chapter 1 is Adam, for which this module only
*measures* the approach. The hard-margin SVM is solved as a least-distance program through
non-negative least squares (Lawson & Hanson, *Solving Least Squares Problems*, 1974, ch. 23).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from scipy.optimize import nnls

from assocmem._validate import check_int, unit_rows
from assocmem.estimate import Estimate
from assocmem.linear.instances.problems import MemoryProblem, normalised_margins
from assocmem.linear.storage.constraints import constraint_matrix
from assocmem.linear.storage.lp import DENSE_THRESHOLD, max_margin_linf
from assocmem.linear.storage.training import train_memory
from assocmem.stats import mean_interval

#: Relative tolerance of the KKT checks of :func:`l2_max_margin` (primal feasibility,
#: stationarity and complementary slackness, relative to the scale of the solution).
KKT_TOL: float = 1e-6


@dataclass(frozen=True)
class MaxMargin:
    """A max-margin memory of one instance.

    Attributes
    ----------
    weights : numpy.ndarray, float64, shape (d, d)
        The max-margin direction ``W*``, scaled as its problem defines it (l2: smallest
        ``||W||_F`` with every constraint >= 1; l-infinity: ``max_ij |W_ij| <= 1``).
    margin : float
        The largest normalised margin over all ``W``: ``1 / ||W*||_F`` (l2) or ``t*``
        (l-infinity).
    multipliers : numpy.ndarray or None
        float64, shape (p (p-1),), >= 0: the KKT multipliers of the l2 problem
        (``W* = sum_k lambda_k a_k``), indexed like the rows of
        :func:`assocmem.linear.storage.constraints.constraint_matrix`; None for l-infinity.
    """

    weights: NDArray[np.float64]
    margin: float
    multipliers: NDArray[np.float64] | None = None


def least_distance(A: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Smallest-norm ``w`` with ``A w >= 1`` and its KKT multipliers (hard-margin SVM, no bias).

    Parameters
    ----------
    A : numpy.ndarray, float64, shape (m, n)
        Constraint rows, finite.

    Returns
    -------
    w : numpy.ndarray, float64, shape (n,)
        ``argmin ||w||_2`` subject to ``A w >= 1``.
    lam : numpy.ndarray, float64, shape (m,)
        Multipliers ``>= 0`` with ``w = A^T lam`` and ``lam_k (a_k . w - 1) = 0``.

    Raises
    ------
    ValueError
        If ``A`` is not a finite 2-D array with at least one row.
    RuntimeError
        If the constraints have no solution (no ``w`` with ``A w > 0``) or the KKT conditions
        of the result fail by more than :data:`KKT_TOL` (relative).

    Notes
    -----
    Lawson & Hanson's least-distance programming (1974, ch. 23): solve the non-negative least
    squares problem ``min_{z >= 0} ||[A^T; 1^T] z - e_{n+1}||`` (:func:`scipy.optimize.nnls`,
    their active-set algorithm, finite and exact up to rounding); with residual ``r``,
    ``w = -r[:n] / r[n]`` and ``lam = z / (1 - 1^T z)``. Infeasible iff ``r = 0``. Every answer
    is then checked against the KKT conditions of the convex problem (which make it the unique
    optimum): ``A w >= 1``, ``lam >= 0``, ``w = A^T lam`` and complementary slackness.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] < 1 or not np.all(np.isfinite(A)):
        raise ValueError(f"A must be a finite 2-D array with at least one row, got {A.shape}")
    m, n = A.shape
    E = np.vstack([A.T, np.ones((1, m))])  # (n + 1, m)
    f = np.zeros(n + 1)
    f[-1] = 1.0
    z, _ = nnls(E, f, maxiter=50 * max(m, n + 1))
    r = E @ z - f
    if not 1.0 - z.sum() > 1e-12:  # r[n] = sum(z) - 1 -> 0: no w separates
        raise RuntimeError("the constraints A w >= 1 have no solution (not separable)")
    lam = z / (1.0 - z.sum())
    w = -r[:n] / r[n]
    scale = max(1.0, float(np.abs(w).max()))
    slack = A @ w - 1.0
    ok = (
        slack.min() >= -KKT_TOL
        and np.abs(w - A.T @ lam).max() <= KKT_TOL * scale
        and float(np.max(lam * np.abs(slack))) <= KKT_TOL * max(1.0, float(lam.max()))
    )
    if not ok:
        raise RuntimeError(
            "KKT check failed: min slack "
            f"{slack.min():.3g}, stationarity {np.abs(w - A.T @ lam).max():.3g}, "
            f"complementarity {np.max(lam * np.abs(slack)):.3g}"
        )
    return w, lam


def l2_max_margin(problem: MemoryProblem) -> MaxMargin:
    """Compute the Frobenius (l2) max-margin memory: ``argmin ||W||_F``, every margin >= 1.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance that can be stored (separable).

    Returns
    -------
    MaxMargin
        ``weights`` (d, d) float64, ``margin = 1 / ||W*||_F`` (the largest
        ``min_k a_k . W / ||W||_F``) and the KKT ``multipliers`` (p (p-1),).

    Raises
    ------
    TypeError, ValueError
        If ``problem`` is not an unbatched MemoryProblem.
    RuntimeError
        If the instance cannot be stored, or the KKT check of :func:`least_distance` fails.

    Notes
    -----
    The hard-margin multiclass SVM without bias on the constraint rows of
    :func:`assocmem.linear.storage.constraints.constraint_matrix`, solved by :func:`least_distance`.
    Cost: one NNLS with ``p (p-1)`` columns and ``d^2 + 1`` rows (well under a second at d = 16, p =
    41). Source: the max-margin direction of gradient descent on separable data (Soudry et al.
    2018); constraints of the digest of arXiv:2605.10795, §3.2-3.3 (reconstruction; chapter 1). ``1
    / ||W||_F`` is the largest ``gamma_2`` of chapter 1, eq. ``eq-normalised-margin``.
    """
    A = constraint_matrix(problem)
    w, lam = least_distance(A)
    d = problem.d
    return MaxMargin(w.reshape(d, d), float(1.0 / np.linalg.norm(w)), lam)


def linf_max_margin(problem: MemoryProblem) -> MaxMargin:
    """Compute the entrywise-max (l-infinity) max-margin memory from the exact LP.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched OP or DP instance that can be stored.

    Returns
    -------
    MaxMargin
        ``weights`` (d, d) float64 with ``max |W_ij| <= 1`` (one maximiser; the LP's optimum need
        not be unique) and ``margin = t*`` (no multipliers).

    Raises
    ------
    TypeError, ValueError
        As :func:`assocmem.linear.storage.lp.max_margin_linf`.
    RuntimeError
        If the LP fails or the instance cannot be stored (``t* <= 0``).

    Notes
    -----
    Wraps :func:`assocmem.linear.storage.lp.max_margin_linf` (the LP of chapter 1's exact test); its
    margin is the largest ``gamma_inf`` of chapter 1, eq. ``eq-normalised-margin``.
    """
    t, W = max_margin_linf(problem)
    if not t > 0:
        raise RuntimeError(f"the instance cannot be stored (l-infinity max margin {t:.3g} <= 0)")
    return MaxMargin(W, t, None)


def margin_ratios(
    weights: Any,
    problem: MemoryProblem,
    *,
    l2: MaxMargin | None = None,
    linf: MaxMargin | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Normalised margins of a sequence of memories relative to the two max-margin optima.

    Parameters
    ----------
    weights : array_like or torch.Tensor, shape (n, d, d)
        Memories of one storable instance (e.g. ``history["weights"][:, i]`` of
        :func:`assocmem.linear.storage.training.train_memory`).
    problem : MemoryProblem
        The unbatched instance.
    l2, linf : MaxMargin, optional
        Precomputed :func:`l2_max_margin` / :func:`linf_max_margin` of ``problem``.

    Returns
    -------
    dict of str to numpy.ndarray, float64, shape (n,)
        ``"ratio_l2"``: ``gamma_2(W) / gamma_2*``; ``"ratio_linf"``: ``gamma_inf(W) / t*``
        (both <= 1 up to solver tolerance, = 1 only in a max-margin direction);
        ``"cos_l2"``, ``"cos_linf"``: Frobenius cosines between ``W`` and ``W_2*``, ``W_inf*``.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`normalised_margins`, :func:`l2_max_margin` and :func:`linf_max_margin`.

    Notes
    -----
    The normalised margins of chapter 1, eq. ``eq-normalised-margin``, over their maxima.
    """
    l2 = l2_max_margin(problem) if l2 is None else l2
    linf = linf_max_margin(problem) if linf is None else linf
    if hasattr(weights, "detach"):
        weights = weights.detach().cpu().double().numpy()
    W = np.asarray(weights, dtype=np.float64)
    g2 = np.atleast_1d(normalised_margins(W, problem, norm="fro"))
    ginf = np.atleast_1d(normalised_margins(W, problem, norm="max"))
    flat = W.reshape(len(g2), -1)
    unit = unit_rows("weights", flat)  # unit norm at any magnitude

    def cosine(ref: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(unit @ unit_rows("reference", ref.reshape(1, -1))[0], dtype=np.float64)

    return {
        "ratio_l2": g2 / l2.margin,
        "ratio_linf": ginf / linf.margin,
        "cos_l2": cosine(l2.weights),
        "cos_linf": cosine(linf.weights),
    }


@dataclass(frozen=True)
class MarginTrajectories:
    """Normalised margins of trained memories over training time (:func:`margin_trajectories`).

    Attributes
    ----------
    step : numpy.ndarray, int, shape (n,)
        Adam steps at which ``W`` was recorded (step 0, ``W = 0``, left out).
    ratio_l2, ratio_linf, cos_l2, cos_linf : numpy.ndarray, float64, shape (B, n)
        :func:`margin_ratios` of problem ``i`` at each step; rows of instances that cannot be
        stored are NaN.
    separable : numpy.ndarray, bool, shape (B,)
        Whether the exact LP finds a positive margin (``t* > DENSE_THRESHOLD``).
    perfect_step : list of (int or None)
        First step with perfect recall of each problem (``train_memory``).
    margin_l2, margin_linf : numpy.ndarray, float64, shape (B,)
        The maxima ``1 / ||W_2*||_F`` and ``t*`` (NaN where not separable).
    d, p : int
        Size of the instances (embedding dimension, associations).
    """

    step: NDArray[np.int64]
    ratio_l2: NDArray[np.float64]
    ratio_linf: NDArray[np.float64]
    cos_l2: NDArray[np.float64]
    cos_linf: NDArray[np.float64]
    separable: NDArray[np.bool_]
    perfect_step: list[int | None]
    margin_l2: NDArray[np.float64]
    margin_linf: NDArray[np.float64]
    d: int
    p: int

    #: The per-instance curves that :meth:`summary` averages.
    CURVES = ("ratio_l2", "ratio_linf", "cos_l2", "cos_linf")

    def column(self, step: int) -> int:
        """Index of the first recorded step ``>= step`` (the snapshot that :meth:`summary` reads).

        Parameters
        ----------
        step : int
            An Adam step, ``1 <= step <= self.step[-1]``.

        Returns
        -------
        int
            Column of :attr:`step` (and of the ``(B, n)`` curves).

        Raises
        ------
        ValueError
            If ``step`` is not an integer in that range.
        """
        step = check_int("step", step, 1)
        if step > int(self.step[-1]):
            raise ValueError(f"step must be <= the last recorded step {int(self.step[-1])}, "
                             f"got {step}")  # fmt: skip
        return int(np.searchsorted(self.step, step))

    def summary(self, mid: int) -> dict[str, Estimate | int]:
        """Return the numbers chapter 1 quotes: sizes, counts and the mean curves at two steps.

        Parameters
        ----------
        mid : int
            An intermediate Adam step; the curves are read at the first recorded step
            ``>= mid`` (:meth:`column`) and at the last one.

        Returns
        -------
        dict of str -> Estimate or int
            ``"d"``, ``"p"``; ``"steps"`` (last recorded step); ``"n"`` (instances the exact LP
            can store, the units of every mean); ``"first"`` (median first perfect step of those
            instances, truncated to an int; -1 if none reached perfect recall); ``"t_mid"`` (the
            recorded step read as ``mid``); and for each curve of :attr:`CURVES`
            (``ratio_l2``, ...) ``"<curve>_end"`` and ``"<curve>_mid"``: its mean over the
            storable instances with the 95 % Student-t interval
            (:func:`assocmem.stats.mean_interval`).

        Raises
        ------
        ValueError
            If ``mid`` is out of range (:meth:`column`) or no instance is storable.

        Notes
        -----
        The normalised-margin ratios and cosines of chapter 1, eq. ``eq-normalised-margin``.
        """
        col = self.column(mid)
        ok = np.asarray(self.separable, dtype=bool)
        if not ok.any():
            raise ValueError("no instance can be stored: the curves are all NaN")
        first = [s for s, k in zip(self.perfect_step, ok, strict=True) if k and s is not None]
        out: dict[str, Estimate | int] = {
            "d": int(self.d), "p": int(self.p), "steps": int(self.step[-1]), "n": int(ok.sum()),
            "first": int(np.median(first)) if first else -1, "t_mid": int(self.step[col]),
        }  # fmt: skip
        for key in self.CURVES:
            curves = getattr(self, key)[ok]
            for tag, c in (("end", -1), ("mid", col)):
                est = mean_interval(curves[:, c])
                assert isinstance(est, Estimate)
                out[f"{key}_{tag}"] = est
        return out


def margin_trajectories(
    problems: MemoryProblem,
    *,
    steps: int,
    check_every: int = 10,
    device: str | torch.device | None = None,
) -> MarginTrajectories:
    """Train memories past perfect recall and follow their normalised margins.

    Trains every problem of the batch with :func:`assocmem.linear.storage.training.train_memory`
    (its defaults: cross-entropy, Adam, lr 5, ``W_0 = 0``) for the whole budget
    (``early_stop=False``), records ``W`` every ``check_every`` steps and compares each
    snapshot with the l2 and l-infinity max-margin memories of its instance
    (:func:`margin_ratios`).

    Parameters
    ----------
    problems : MemoryProblem
        A batch (B, ...) of OP or DP instances, small enough for the dense LP (e.g. d <= 16).
    steps : int
        Adam steps (>= 1).
    check_every : int
        Recording interval (>= 1).
    device : str, torch.device or None
        Training device.

    Returns
    -------
    MarginTrajectories

    Raises
    ------
    TypeError, ValueError
        If ``problems`` is not a batched MemoryProblem or a size is out of range.
    RuntimeError
        If a solver fails (the LP, or the KKT check of the l2 solution).

    Notes
    -----
    Measurement only: what Adam's direction approaches is not known from a theorem here (chapter 1;
    the margins of eq. ``eq-normalised-margin``). Memory ``(steps / check_every) B d^2`` float32 for
    the snapshots.
    """
    if not isinstance(problems, MemoryProblem) or not problems.batched:
        raise TypeError("problems must be a batched MemoryProblem (sample_problems)")
    steps = check_int("steps", steps, 1)
    check_every = check_int("check_every", check_every, 1)
    res = train_memory(
        problems,
        steps=steps,
        check_every=check_every,
        early_stop=False,
        record_weights=True,
        device=device,
    )
    assert isinstance(res.perfect_step, list)
    step = np.asarray(res.history["step"])[1:]
    snaps = res.history["weights"][1:]  # (n, B, d, d)
    B, n = problems.batch_size, len(step)
    out = {k: np.full((B, n), np.nan) for k in ("ratio_l2", "ratio_linf", "cos_l2", "cos_linf")}
    sep = np.zeros(B, dtype=bool)
    m2, minf = np.full(B, np.nan), np.full(B, np.nan)
    for i in range(B):
        inst = problems[i].to("cpu")
        t_star, W_inf = max_margin_linf(inst)
        if not t_star > DENSE_THRESHOLD:
            continue
        sep[i] = True
        l2 = l2_max_margin(inst)
        r = margin_ratios(snaps[:, i], inst, l2=l2, linf=MaxMargin(W_inf, t_star))
        for k, v in r.items():
            out[k][i] = v
        m2[i], minf[i] = l2.margin, t_star
    return MarginTrajectories(
        step, out["ratio_l2"], out["ratio_linf"], out["cos_l2"], out["cos_linf"], sep,
        res.perfect_step, m2, minf, problems.d, problems.p,
    )  # fmt: skip
