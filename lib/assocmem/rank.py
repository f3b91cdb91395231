"""Training sweep of the rank-constrained linear memory ``W = Q R^T`` (chapter 4).

:func:`rank_capacity_sweep` trains ``W = Q R^T`` (``Q, R`` of shape ``(d, m)``, rank ratio
``kappa = m / d``) across loads and rank ratios through :func:`assocmem.training.train_memory`
and records perfect recall; :class:`RankSweep` holds the result and estimates the transition
load; :func:`finite_size_critical_load` is the finite-size theory it is compared with. The theory
(quarter-circle densities, ``alpha_c(kappa)``) is in :mod:`assocmem.spectra`, imported at call
time because :mod:`assocmem.spectra` re-exports this module. Reconstruction (Giorlandino, Goldt &
Maillard, arXiv:2605.10795, digest section 7.2); see chapter 4.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["finite_size_critical_load", "RankSweep", "rank_capacity_sweep"]


def finite_size_critical_load(
    kappa: float, d: int, *, seed: int = 0, rel_error: float = 0.01
) -> tuple[float, int]:
    """Heuristic finite-size capacity of a rank-``kappa d`` memory at embedding dimension ``d``.

    Solves ``alpha = 2 alpha_c(kappa) * alpha_c(p)`` with ``p log p = alpha d^2`` by fixed-point
    iteration, where ``alpha_c(p) = log p / E[C_p]`` is the finite-size capacity of the full-rank
    decoupled problem (:func:`assocmem.replica.finite_size_capacity_estimate`, Monte Carlo) and
    ``2 alpha_c(kappa)`` the fraction of the quarter circle's second moment a rank-``kappa d``
    memory keeps.

    Parameters
    ----------
    kappa : float
        Rank ratio in (0, inf).
    d : int
        Embedding dimension, >= 2.
    seed : int
        Seed of the Monte Carlo estimate of ``E[C_p]``.
    rel_error : float
        Relative standard error of that estimate, in (0, 1).

    Returns
    -------
    (alpha, p) : tuple of (float, int)
        Predicted transition load and the number of associations there.

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or not finite, or ``d < 2``.

    Notes
    -----
    A heuristic (digest section 7.2, "by analogy with section 4.3"): neither this product form
    nor the value of ``alpha_c(kappa)`` is read from the paper. Reconstruction, see chapter 4.
    """
    from assocmem.problems import pairs_for_load
    from assocmem.replica import finite_size_capacity_estimate
    from assocmem.spectra import _check_scalar_kappa, critical_load_closed_form

    k = _check_scalar_kappa(kappa)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    factor = 2.0 * float(critical_load_closed_form(k))
    alpha, p = factor, 0
    for _ in range(8):
        p_new = pairs_for_load(alpha, int(d))
        if p_new == p:
            break
        p = p_new
        alpha = factor * finite_size_capacity_estimate(p, seed=seed, rel_error=rel_error)[0]
    return alpha, p


def _crossing_interval(
    alphas: NDArray[np.float64], frac: NDArray[np.float64]
) -> tuple[float, float]:
    """First alpha where the success fraction drops through 1/2 (linear interpolation), and the
    width of the grid interval that brackets it (NaN, NaN if there is no crossing)."""
    if frac[0] < 0.5:
        return float("nan"), float("nan")
    for i in range(len(alphas) - 1):
        if frac[i] >= 0.5 > frac[i + 1]:
            f0, f1 = frac[i], frac[i + 1]
            width = float(alphas[i + 1] - alphas[i])
            return float(alphas[i] + (f0 - 0.5) / (f0 - f1) * width), width
    return float("nan"), float("nan")


def _crossing(alphas: NDArray[np.float64], frac: NDArray[np.float64]) -> float:
    return _crossing_interval(alphas, frac)[0]


class RankSweep:
    """Result of :func:`rank_capacity_sweep`: success of training ``W = Q R^T`` per kappa and load.

    Attributes
    ----------
    d : int
        Embedding dimension.
    kappas : list of float
        Rank ratios ``m / d`` (``m = round(kappa d)``).
    alphas : dict kappa -> ndarray (n_alpha,)
        Loads ``p log p / d^2`` actually used (from the integer ``p``).
    p : dict kappa -> ndarray of int (n_alpha,)
    success : dict kappa -> bool ndarray (n_alpha, n_seeds)
        Perfect recall of all ``p`` associations within the step budget.
    accuracy : dict kappa -> ndarray (n_alpha, n_seeds)
        Fraction recalled at the end.
    steps : dict kappa -> ndarray (n_alpha, n_seeds)
        Adam steps used (the budget for failures).
    singular_values : dict kappa -> ndarray
        Non-zero singular values (top ``m``, normalised to mean square 1 per matrix) of the
        successful memories at the largest load where at least half of the seeds succeeded
        (else the largest load with any success), pooled over those seeds (empty if no seed
        succeeded at any load).
    spectrum_load : dict kappa -> float
        The load at which those memories were trained (NaN if none).
    predicted : dict kappa -> float
        Heuristic finite-size prediction (:func:`finite_size_critical_load`).
    seconds : float
        Wall time of the sweep.
    """

    def __init__(self, d: int, kappas: list[float]) -> None:
        self.d = d
        self.kappas = kappas
        self.alphas: dict[float, NDArray[np.float64]] = {}
        self.p: dict[float, NDArray[np.int64]] = {}
        self.success: dict[float, NDArray[np.bool_]] = {}
        self.accuracy: dict[float, NDArray[np.float64]] = {}
        self.steps: dict[float, NDArray[np.int64]] = {}
        self.singular_values: dict[float, NDArray[np.float64]] = {}
        self.spectrum_load: dict[float, float] = {}
        self.predicted: dict[float, float] = {}
        self.seconds = 0.0

    def success_probability(
        self, kappa: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(alphas, fraction of seeds stored perfectly, binomial standard error)``."""
        s = self.success[kappa].astype(np.float64)
        frac = s.mean(axis=1)
        n = s.shape[1]
        err = np.sqrt(np.maximum(frac * (1 - frac), 0.25 / n) / n)
        return self.alphas[kappa], frac, err

    def capacity(self, kappa: float, *, n_boot: int = 400, seed: int = 0) -> tuple[float, float]:
        """Estimated capacity: load where the success fraction crosses 1/2, with an error.

        Linear interpolation between grid loads. The error combines in quadrature the standard
        deviation over ``n_boot`` resamplings of the seeds and the grid resolution (width of the
        bracketing interval / sqrt(12), the spread of a point known only to lie in it); NaN if
        the crossing is outside the grid.
        """
        a, frac, _ = self.success_probability(kappa)
        est, width = _crossing_interval(a, frac)
        s = self.success[kappa].astype(np.float64)
        rng = np.random.default_rng(seed)
        boots = []
        for _ in range(n_boot):
            cols = rng.integers(0, s.shape[1], s.shape[1])
            boots.append(_crossing(a, s[:, cols].mean(axis=1)))
        b = np.asarray(boots)
        b = b[np.isfinite(b)]
        boot = float(b.std(ddof=1)) if b.size > 1 else 0.0
        err = math.sqrt(boot**2 + width**2 / 12.0) if math.isfinite(est) else float("nan")
        return est, err

    def summary(self) -> str:
        """A small text table: kappa, m, alpha_c(kappa), finite-size estimate, measured capacity."""
        from assocmem.spectra import critical_load_closed_form

        lines = [
            f"d = {self.d}; {self.seconds:.0f} s",
            f"{'kappa':>6} {'m':>4} {'alpha_c(kappa)':>15} {'finite-size est.':>17} "
            f"{'measured':>10} {'+-':>6}",
        ]
        for k in self.kappas:
            est, err = self.capacity(k)
            lines.append(
                f"{k:6.2f} {round(k * self.d):4d} {float(critical_load_closed_form(k)):15.4f} "
                f"{self.predicted[k]:17.3f} {est:10.3f} {err:6.3f}"
            )
        return "\n".join(lines)


def rank_capacity_sweep(
    d: int,
    kappas: list[float],
    relative_loads: ArrayLike = (0.6, 0.8, 1.0, 1.2, 1.4),
    *,
    seeds: int | list[int] = 4,
    steps: int = 1000,
    lr: float = 0.2,
    check_every: int = 25,
    patience: int | None = 200,
    decoupled: bool = False,
    device: Any = None,
    progress: bool = True,
) -> RankSweep:
    """Train ``W = Q R^T`` (rank ``m = round(kappa d)``) across loads and seeds, for each kappa.

    For each kappa the loads are ``relative_loads`` times the heuristic finite-size prediction
    :func:`finite_size_critical_load`, so every grid brackets its own transition. Each load
    trains all seeds as one batch with :func:`assocmem.training.train_memory` (cross-entropy,
    Adam, small random factors, early stop at perfect recall).

    Parameters
    ----------
    d : int
        Embedding dimension (>= 2).
    kappas : list of float
        Rank ratios in (0, 1].
    relative_loads : array_like of float
        Loads in units of the predicted transition (each > 0, increasing).
    seeds : int or list of int
        Number of seeds (``range(seeds)``) or the seeds themselves.
    steps, lr, check_every, patience
        Adam budget, learning rate, check interval and stall stop, passed to ``train_memory``.
        At d = 48, kappa = 1/2 and a load near the transition, lr = 0.2 stored 3 of 4 problems
        within 400 steps where lr = 0.02 needed 370-640 steps and lr = 0.5 stored none in 600.
        ``patience`` stops a problem whose loss has stalled (above capacity), which saves most of
        the budget there; it is a heuristic and may stop a slow, storable problem.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to train (``assocmem.device.get_device``).
    progress : bool
        Show a tqdm bar over (kappa, load) pairs.

    Returns
    -------
    RankSweep

    Raises
    ------
    ValueError
        If a kappa is outside (0, 1], ``relative_loads`` is empty / not positive / not
        increasing, or ``seeds`` is empty.

    Notes
    -----
    A fixed step budget underestimates the capacity near the transition (Adam slows down
    there, digest section 8): the measured value is a finite-size, finite-time estimate.
    """
    import time

    import torch
    from tqdm.auto import tqdm

    from assocmem.problems import load_for_pairs, pairs_for_load, sample_problems
    from assocmem.spectra import _as_float_array, _check_scalar_kappa, singular_values
    from assocmem.training import train_memory

    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    ks = [float(_check_scalar_kappa(k)) for k in kappas]
    if not ks or any(k > 1 for k in ks):
        raise ValueError(f"kappas must be a non-empty list of values in (0, 1], got {kappas!r}")
    rel = _as_float_array(relative_loads, "relative_loads").ravel()
    if rel.size == 0 or np.any(rel <= 0) or np.any(np.diff(rel) <= 0):
        raise ValueError(f"relative_loads must be positive and increasing, got {relative_loads!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not seed_list:
        raise ValueError("seeds must be a positive number or a non-empty list of seeds")
    t0 = time.perf_counter()
    out = RankSweep(int(d), ks)
    bar = tqdm(total=len(ks) * rel.size, desc="rank sweep", disable=not progress)
    for k in ks:
        m = max(1, round(k * d))
        pred, _ = finite_size_critical_load(k, int(d))
        out.predicted[k] = pred
        ps = np.array([pairs_for_load(pred * r, int(d)) for r in rel], dtype=np.int64)
        succ = np.zeros((rel.size, len(seed_list)), dtype=bool)
        acc = np.zeros((rel.size, len(seed_list)))
        nsteps = np.zeros((rel.size, len(seed_list)), dtype=np.int64)
        spec = np.zeros(0)
        spec_load = float("nan")
        for i, p in enumerate(ps):
            problems = sample_problems(
                int(p),
                int(d),
                [1000 * i + s for s in seed_list],
                decoupled=decoupled,
                device=device,
            )
            res = train_memory(
                problems,
                rank=m,
                steps=steps,
                lr=lr,
                check_every=check_every,
                patience=patience,
                seed=7 * i,
            )
            succ[i] = np.asarray(res.perfect)
            acc[i] = np.asarray(res.accuracy)
            nsteps[i] = np.asarray(res.steps)
            # spectra: the largest load where at least half of the seeds succeeded (else any)
            if succ[i].any() and (2 * succ[i].sum() >= succ[i].size or spec.size == 0):
                ok = torch.as_tensor(succ[i], device=res.weights.device)
                spec = singular_values(res.weights[ok], rank=m).ravel()
                spec_load = load_for_pairs(int(p), int(d))
            bar.update(1)
        out.alphas[k] = np.array([load_for_pairs(int(p), int(d)) for p in ps])
        out.p[k] = ps
        out.success[k], out.accuracy[k], out.steps[k] = succ, acc, nsteps
        out.singular_values[k], out.spectrum_load[k] = spec, spec_load
    bar.close()
    out.seconds = time.perf_counter() - t0
    return out
