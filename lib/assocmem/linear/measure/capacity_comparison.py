"""Measured capacity against theory (chapter 2): transitions against RS, OP against DP.

:func:`transition_comparison` sets the measured perfect-storage transitions of sweeps
(:func:`~.transitions.transition_load`) against the finite-size prediction of
:mod:`assocmem.linear.theory.finite_size`; :func:`op_dp_gaps` measures the OP-minus-DP gap of paired
sweeps per ``d`` (:func:`~.transitions.bootstrap_transitions`, the seeds resampled jointly) and
its trend with ``d``. Every measured number is an :class:`assocmem.estimate.Estimate`.

Source: the finite-size capacity ``alpha_c(p) = log p / E[C_p]`` and the OP/DP comparison are a
reconstruction (digest of arXiv:2605.10795, §4.3; chapter 2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_int
from assocmem.estimate import Estimate, Verdict, difference, from_draws, verdict
from assocmem.linear.measure.sweeps import GROUP_COLUMNS
from assocmem.linear.measure.tables import check_table
from assocmem.linear.measure.transitions import bootstrap_transitions, transition_load
from assocmem.linear.theory.finite_size import (
    PredictedLoad,
    finite_size_capacity_curve,
    predicted_transition,
)
from assocmem.linear.theory.load import pairs_at_load
from assocmem.streams import Seed, child, streams

__all__ = [
    "TransitionEntry",
    "TransitionComparison",
    "transition_comparison",
    "OpDpGaps",
    "op_dp_gaps",
]


@dataclass(frozen=True)
class TransitionEntry:
    """One sweep's measured transition against the finite-size prediction.

    Attributes
    ----------
    sweep : str
        The sweep's label.
    d : int
        Embedding dimension.
    measured : Estimate
        The measured transition (:func:`~.transitions.transition_load`, Jeffreys posterior).
    p_measured : float
        Real ``p`` with ``p log p = alpha d^2`` at the measured transition (NaN if none).
    predicted : PredictedLoad
        :func:`assocmem.linear.theory.finite_size.predicted_transition` at ``d`` (Monte Carlo).
    difference : Estimate
        ``measured - predicted`` (:func:`assocmem.estimate.difference`): the posterior draws
        minus normal draws of the prediction's Monte Carlo error.
    """

    sweep: str
    d: int
    measured: Estimate
    p_measured: float
    predicted: PredictedLoad
    difference: Estimate

    @property
    def verdict(self) -> Verdict:
        """Whether the measurement lies above, below or not resolved from the prediction."""
        return verdict(self.difference)

    @property
    def z(self) -> float:
        """The difference in units of the two standard errors combined (an effect size)."""
        return self.difference.value / math.hypot(self.measured.stderr, self.predicted.alpha.stderr)


@dataclass(frozen=True)
class TransitionComparison:
    """Measured perfect-storage transitions against the finite-size RS prediction.

    Attributes
    ----------
    entries : tuple of TransitionEntry
        One per sweep, in the order given; ``comparison[label]`` looks one up by its label.
    """

    entries: tuple[TransitionEntry, ...]

    def __getitem__(self, label: str) -> TransitionEntry:
        """Return the entry of the sweep ``label`` (KeyError naming the labels otherwise)."""
        found = [e for e in self.entries if e.sweep == label]
        if not found:
            raise KeyError(f"no sweep {label!r}; the sweeps are {[e.sweep for e in self.entries]}")
        return found[0]

    def table(self) -> pd.DataFrame:
        """One row per sweep: the estimates as cells, the verdict, and z as an effect size."""
        return pd.DataFrame([{
            "sweep": e.sweep, "d": e.d, "seeds per load": e.measured.n,
            "measured alpha_c": e.measured, "p at measured": e.p_measured,
            "predicted alpha_c": e.predicted.alpha, "p at predicted": e.predicted.p,
            "difference": e.difference, "verdict": str(e.verdict), "z": e.z,
        } for e in self.entries])  # fmt: skip

    def summary(self) -> dict[str, Estimate | Verdict | float | int | str]:
        """Return what chapter 2 quotes: verdict counts, and the sweep at the largest ``d``.

        Returns
        -------
        dict
            ``n_sweeps``; ``n_above``, ``n_below``, ``n_unresolved`` (sweeps whose difference
            from the prediction lies above, below or not resolved from 0); for the sweep at the
            largest ``d`` (the first such): ``largest_sweep``, ``largest_p`` (``p`` at the
            prediction), ``largest_measured``, ``largest_predicted`` (Estimates),
            ``largest_difference`` and ``largest_verdict``.
        """
        v = [e.verdict for e in self.entries]
        top = max(self.entries, key=lambda e: e.d)
        return {
            "n_sweeps": len(v), "n_above": v.count(Verdict.ABOVE),
            "n_below": v.count(Verdict.BELOW), "n_unresolved": v.count(Verdict.UNRESOLVED),
            "largest_sweep": top.sweep, "largest_p": top.predicted.p,
            "largest_measured": top.measured, "largest_predicted": top.predicted.alpha,
            "largest_difference": top.difference, "largest_verdict": top.verdict,
        }  # fmt: skip

    def findings(self) -> dict[str, Verdict]:
        """Each sweep's verdict against the prediction, by label."""
        return {e.sweep: e.verdict for e in self.entries}


def transition_comparison(
    tables: dict[str, pd.DataFrame], *, seed: int = 0
) -> TransitionComparison:
    """Measured perfect-storage transitions against the finite-size RS prediction.

    Parameters
    ----------
    tables : dict of str -> pandas.DataFrame
        Label -> one group of a :func:`~.sweeps.capacity_sweep` table (unconstrained ``W``).
    seed : int
        Seed of the Monte Carlo prediction, of the posterior draws and of the prediction's error
        in the difference.

    Returns
    -------
    TransitionComparison
        One entry per label, in the order of ``tables``.

    Raises
    ------
    TypeError
        If ``tables`` is not a dict of sweep tables.
    ValueError
        If it is empty, a table mixes groups, or a table is rank-constrained or Hebbian (the
        prediction is that of the optimal unconstrained memory).

    Notes
    -----
    Reconstruction: the finite-size capacity ``alpha_c(p) = log p / E[C_p]`` (digest of
    arXiv:2605.10795, §4.3); see chapter 2.
    """
    if not isinstance(tables, dict):
        raise TypeError(f"tables must be a dict label -> sweep table, got {type(tables).__name__}")
    if not tables:
        raise ValueError("tables must hold at least one sweep")
    entries = []
    for label, table in tables.items():
        t = transition_load(table, seed=seed)
        if bool((table["kappa"] < 1).any()) or bool((table["method"] == "hebbian").any()):
            raise ValueError(
                f"sweep {label!r}: the prediction is the optimal unconstrained memory's; pass "
                "trained (rank=None) or exact-LP sweeps"
            )
        d = int(table["d"].iloc[0])
        pred = predicted_transition(d, seed=seed)
        p_meas = pairs_at_load(t.value, d) if math.isfinite(t.value) else math.nan
        diff = difference(t, pred.alpha, seed=child(seed, "prediction", d))
        entries.append(TransitionEntry(label, d, t, p_meas, pred, diff))
    return TransitionComparison(tuple(entries))


def capacity_curves(
    measured: TransitionComparison | None = None,
    *,
    p_values: ArrayLike | None = None,
    n_samples: int | None = None,
    seed: Seed = 0,
) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """Return the theory curves of chapter 2's capacity figure: ``alpha_c(p)`` and its error.

    ``"full"``: :func:`~assocmem.linear.theory.finite_size.finite_size_capacity_curve` on
    ``p_values`` (default 15 values log-spaced from 10 to 1e8); with ``measured``, ``"zoom"``: a
    denser curve over the measured ``p`` (0.4 to 2.5 times their range). Each is ``(p, alpha_c,
    stderr)``; the two draw from the streams ``streams(seed, 2)``. ``n_samples`` as in
    :func:`~assocmem.linear.theory.finite_size.finite_size_capacity`.

    Raises
    ------
    ValueError
        If a ``p`` is < 2 or the Monte Carlo settings are out of range.
    """
    ps = np.logspace(1, 8, 15) if p_values is None else np.asarray(p_values, dtype=np.float64)
    full, zoom = streams(seed, 2)
    out = {"full": (ps, *finite_size_capacity_curve(ps, n_samples=n_samples, seed=full))}
    if measured is not None and measured.entries:
        pm = np.array([e.p_measured for e in measured.entries])
        lo, hi = max(3.0, 0.4 * np.nanmin(pm)), 2.5 * np.nanmax(pm)
        pz = np.unique(np.rint(np.geomspace(lo, hi, 12)))
        out["zoom"] = (pz, *finite_size_capacity_curve(pz, n_samples=n_samples, seed=zoom))
    return out


@dataclass(frozen=True)
class OpDpGaps:
    """Gap between the OP and the DP transitions per ``d``, and its trend with ``d``.

    Attributes
    ----------
    gaps : pandas.DataFrame
        One row per ``d``, sorted: ``d``, ``OP``, ``DP`` (the crossings of 1/2), ``gap`` (an
        Estimate of ``OP / DP - 1``, or ``OP - DP`` if not relative: the percentile interval of
        the bootstrap draws, ``n`` = instance seeds per load) and ``gap / stderr`` (an effect
        size).
    slope : assocmem.estimate.Estimate
        Slope of the weighted least-squares line ``gap = a + b x`` (``x = 1/d`` or ``log d``,
        weights ``1 / stderr^2``), with the percentile interval of the same fit over the joint
        bootstrap draws. With ``x = 1/d`` a gap that shrinks as ``d`` grows has ``b > 0``.
    intercept : assocmem.estimate.Estimate
        ``a``: with ``x = 1/d`` the gap extrapolated to ``d -> inf``.
    mean : assocmem.estimate.Estimate
        Inverse-variance weighted mean gap over the sizes.
    x : str
        The regressor, ``"1/d"`` or ``"log d"``.
    relative : bool
        Whether the gap is ``OP / DP - 1`` (True) or ``OP - DP``.
    """

    gaps: pd.DataFrame
    slope: Estimate
    intercept: Estimate
    mean: Estimate
    x: str = "1/d"
    relative: bool = True

    @property
    def n_positive(self) -> int:
        """Number of sizes at which the OP transition lies above the DP one."""
        return sum(e.value > 0 for e in self.gaps["gap"])

    @property
    def n_resolved(self) -> int:
        """Number of sizes whose gap alone is resolved above 0 (:func:`verdict`)."""
        return sum(verdict(e) is Verdict.ABOVE for e in self.gaps["gap"])

    def findings(self) -> dict[int, Verdict]:
        """Return each size's verdict on its gap against 0, by ``d``."""
        return {int(d): verdict(e) for d, e in zip(self.gaps["d"], self.gaps["gap"], strict=True)}

    def table(self) -> pd.DataFrame:
        """Return the gaps per ``d`` (Estimate cells)."""
        return self.gaps

    def summary(self) -> dict[str, Estimate | float | int]:
        """Return the numbers a sentence about the gaps quotes, by label.

        Returns
        -------
        dict
            ``mean``, ``slope``, ``icpt`` (Estimates: weighted mean gap, slope and intercept of
            the line against :attr:`x`), ``min``/``max`` (smallest and largest gap over the
            sizes), ``sizes`` (number of sizes), ``above`` (:attr:`n_positive`) and
            ``resolved`` (:attr:`n_resolved`).
        """
        gap = [e.value for e in self.gaps["gap"]]
        return {"mean": self.mean, "slope": self.slope, "icpt": self.intercept,
                "min": min(gap), "max": max(gap), "sizes": len(gap),
                "above": self.n_positive, "resolved": self.n_resolved}  # fmt: skip


def _wls(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit ``y`` (shape (B, k)) on ``x`` (k,) by WLS: intercepts, slopes, weighted means (B,)."""
    sw = w.sum()
    xm = (w * x).sum() / sw
    ym = (y * w).sum(axis=-1) / sw
    slope = ((y - ym[..., None]) * w * (x - xm)).sum(axis=-1) / (w * (x - xm) ** 2).sum()
    return ym - slope * xm, slope, ym


def op_dp_gaps(
    tables: Mapping[str, pd.DataFrame],
    *,
    method: str = "lp",
    x: str = "1/d",
    relative: bool = True,
    weighted: bool = True,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> OpDpGaps:
    """OP-minus-DP transition gap per ``d`` from paired sweeps, and a test of its trend with ``d``.

    For every ``d`` at which ``tables`` holds an OP and a DP sweep of ``method`` (the same seeds
    and loads), both crossings of 1/2 are bootstrapped together (:func:`bootstrap_transitions`:
    one draw of seeds for both, since the OP and DP instance of a seed share inputs and targets),
    and the gap is formed draw by draw. The sizes are independent (their own instances; the
    bootstrap at size ``d`` draws from the stream ``child(seed, d)``). The trend is the weighted
    least-squares line of the gap against ``x`` (weights ``1 / stderr^2``); its interval refits
    the line on every joint draw (draws in which some crossing leaves its grid are left out) and
    takes percentiles.

    Parameters
    ----------
    tables : mapping of str -> pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` tables (one group each, e.g. the page's sweeps by label);
        those of other methods, rank-constrained or unpaired are ignored.
    method : {"lp", "train"}
        Which sweeps to pair: the exact LP (default) or trained memories.
    x : {"1/d", "log d"}
        The regressor of the trend.
    relative : bool
        Gap ``OP / DP - 1`` (default) or ``OP - DP``.
    weighted : bool
        Weights ``1 / stderr^2`` (default) or equal weights.
    n_boot : int
        Bootstrap draws, >= 100.
    seed : int
        Seed of the resampling.

    Returns
    -------
    OpDpGaps
        Per-``d`` gaps and the slope, intercept and weighted mean as
        :class:`~assocmem.estimate.Estimate` (``n`` = number of sizes; the method names the seeds
        per load that each size's bootstrap resamples).

    Raises
    ------
    TypeError
        If ``tables`` is not a mapping of DataFrames.
    ValueError
        If fewer than 2 sizes have both an OP and a DP sweep of ``method`` with crossings inside
        their grids, ``method`` or ``x`` is unknown, ``n_boot`` is out of range, or (weighted) a
        gap has no bootstrap spread.

    Notes
    -----
    The paper's claim that OP and DP share one capacity is asymptotic
    (Giorlandino, Goldt & Maillard, arXiv:2605.10795); this measures the finite-``d`` gap.
    """
    if not isinstance(tables, Mapping):
        raise TypeError(f"tables must be a mapping label -> sweep table, got {type(tables)}")
    if method not in ("lp", "train"):
        raise ValueError(f"method must be 'lp' or 'train', got {method!r}")
    if x not in ("1/d", "log d"):
        raise ValueError(f"x must be '1/d' or 'log d', got {x!r}")
    nb = check_int("n_boot", n_boot, 100)
    by_d: dict[int, dict[str, pd.DataFrame]] = {}
    for label, table in tables.items():
        t = check_table(table)
        if t[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
            raise ValueError(f"sweep {label!r} mixes groups; pass one group per label")
        if t["method"].iloc[0] != method or bool((t["kappa"] < 1).any()):
            continue
        by_d.setdefault(int(t["d"].iloc[0]), {})[str(t["problem"].iloc[0])] = t
    rows, draws = [], []
    for d in sorted(by_d):
        pair = by_d[d]
        if set(pair) != {"op", "dp"}:
            continue
        boot = bootstrap_transitions(pd.concat([pair["op"], pair["dp"]], ignore_index=True),
                                     n_boot=nb, seed=child(seed, d))  # fmt: skip
        prob = list(boot.summary["problem"])
        op, dp = boot.estimates[prob.index("op")], boot.estimates[prob.index("dp")]
        if not (math.isfinite(op.value) and math.isfinite(dp.value)):
            continue
        a, b = np.asarray(op.draws), np.asarray(dp.draws)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = a / b - 1.0 if relative else a - b
        value = op.value / dp.value - 1.0 if relative else op.value - dp.value
        ge = from_draws(value, g, op.n, f"percentile bootstrap over {op.n} seeds")
        err = float(ge.stderr)
        z = value / err if err > 0 else math.nan
        rows.append({"d": d, "OP": op.value, "DP": dp.value, "gap": ge, "gap / stderr": z})
        draws.append(g)
    if len(rows) < 2:
        raise ValueError(
            f"need OP and DP sweeps of method {method!r} crossing 1/2 at >= 2 sizes, got "
            f"{len(rows)}"
        )
    gaps = pd.DataFrame(rows)
    d_arr = gaps["d"].to_numpy(float)
    xs = 1.0 / d_arr if x == "1/d" else np.log(d_arr)
    errs = np.array([e.stderr for e in gaps["gap"]])
    if weighted and not np.all(errs > 1e-12):  # zero up to rounding
        raise ValueError("a gap has no bootstrap spread (stderr 0): pass weighted=False")
    w = 1.0 / errs**2 if weighted else np.ones_like(errs)
    y = np.array([e.value for e in gaps["gap"]])
    a0, b0, m0 = (float(v[0]) for v in _wls(xs, y[None, :], w))
    joint = np.stack(draws, axis=1)  # (n_boot, k); sizes resampled independently
    joint = joint[np.all(np.isfinite(joint), axis=1)]
    a_b, b_b, m_b = _wls(xs, joint, w)
    n_seeds = min(e.n for e in gaps["gap"])
    unit = f"WLS over {len(rows)} sizes, percentile bootstrap over {n_seeds} seeds each"

    def est(v: float, bs: np.ndarray) -> Estimate:
        return from_draws(v, bs, len(rows), unit, n_total=nb)

    return OpDpGaps(gaps, est(b0, b_b), est(a0, a_b), est(m0, m_b), x, bool(relative))
