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

from assocmem._validate import check_int
from assocmem.estimate import Estimate, Verdict, from_draws, verdict
from assocmem.linear.measure.sweeps import GROUP_COLUMNS
from assocmem.linear.measure.tables import check_table
from assocmem.linear.measure.transitions import bootstrap_transitions, transition_load
from assocmem.linear.theory.finite_size import predicted_transition
from assocmem.linear.theory.load import pairs_at_load
from assocmem.streams import Seed, child

__all__ = ["transition_comparison", "OpDpGaps", "op_dp_gaps"]


def transition_comparison(tables: dict[str, pd.DataFrame], *, seed: int = 0) -> pd.DataFrame:
    """Measured perfect-storage transitions against the finite-size RS prediction.

    Parameters
    ----------
    tables : dict of str -> pandas.DataFrame
        Label -> one group of a :func:`~.sweeps.capacity_sweep` table (unconstrained ``W``).
    seed : int
        Seed of the Monte Carlo prediction and of the posterior draws.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``sweep``, ``d``, ``seeds per load``, ``measured alpha_c``,
        ``measured +-`` (standard error), ``95% low`` and ``95% high`` (the 95 % interval of
        the posterior draws; :func:`transition_load`), ``p at measured`` (real ``p`` with
        ``p log p = alpha d^2``), ``predicted alpha_c``, ``predicted +-`` and ``p at predicted``
        (:func:`assocmem.linear.theory.finite_size.predicted_transition`), ``difference`` (measured
        - predicted) and ``difference / error`` (in units of the two errors in quadrature).

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
    rows = []
    for label, table in tables.items():
        t = transition_load(table, seed=seed)
        alpha = t.value
        if bool((table["kappa"] < 1).any()) or bool((table["method"] == "hebbian").any()):
            raise ValueError(
                f"sweep {label!r}: the prediction is the optimal unconstrained memory's; pass "
                "trained (rank=None) or exact-LP sweeps"
            )
        d = int(table["d"].iloc[0])
        pred, p_pred, pred_err = predicted_transition(d, seed=seed)
        diff = alpha - pred
        rows.append({
            "sweep": label, "d": d, "seeds per load": t.n,
            "measured alpha_c": alpha, "measured +-": t.stderr,
            "95% low": t.low, "95% high": t.high,
            "p at measured": pairs_at_load(alpha, d) if math.isfinite(alpha) else math.nan,
            "predicted alpha_c": pred, "predicted +-": pred_err, "p at predicted": p_pred,
            "difference": diff, "difference / error": diff / math.hypot(t.stderr, pred_err),
        })  # fmt: skip
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class OpDpGaps:
    """Gap between the OP and the DP transitions per ``d``, and its trend with ``d``.

    Attributes
    ----------
    gaps : pandas.DataFrame
        One row per ``d``, sorted: ``d``, ``OP``, ``DP`` (the crossings of 1/2), ``gap`` (``OP / DP
        - 1``, or ``OP - DP`` if not relative), ``stderr`` (standard deviation of the gap over the
        bootstrap draws), ``95% low``, ``95% high`` (percentile interval), ``gap / stderr`` and
        ``n`` (instance seeds per load).
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
        return int((self.gaps["gap"] > 0).sum())

    @property
    def n_resolved(self) -> int:
        """Number of sizes whose gap alone is resolved above 0 (:func:`verdict`)."""
        return sum(
            verdict(Estimate(r["gap"], r["95% low"], r["95% high"], int(r["n"]), "bootstrap"))
            is Verdict.ABOVE
            for _, r in self.gaps.iterrows()
        )

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
        gap = self.gaps["gap"]
        return {"mean": self.mean, "slope": self.slope, "icpt": self.intercept,
                "min": float(gap.min()), "max": float(gap.max()), "sizes": len(gap),
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
        rows.append({"d": d, "OP": op.value, "DP": dp.value, "gap": value, "stderr": err,
                     "95% low": ge.low, "95% high": ge.high, "gap / stderr": z,
                     "n": op.n})  # fmt: skip
        draws.append(g)
    if len(rows) < 2:
        raise ValueError(
            f"need OP and DP sweeps of method {method!r} crossing 1/2 at >= 2 sizes, got "
            f"{len(rows)}"
        )
    gaps = pd.DataFrame(rows)
    d_arr = gaps["d"].to_numpy(float)
    xs = 1.0 / d_arr if x == "1/d" else np.log(d_arr)
    errs = gaps["stderr"].to_numpy(float)
    if weighted and not np.all(errs > 1e-12):  # zero up to rounding
        raise ValueError("a gap has no bootstrap spread (stderr 0): pass weighted=False")
    w = 1.0 / errs**2 if weighted else np.ones_like(errs)
    y = gaps["gap"].to_numpy(float)
    a0, b0, m0 = (float(v[0]) for v in _wls(xs, y[None, :], w))
    joint = np.stack(draws, axis=1)  # (n_boot, k); sizes resampled independently
    joint = joint[np.all(np.isfinite(joint), axis=1)]
    a_b, b_b, m_b = _wls(xs, joint, w)
    n_seeds = int(gaps["n"].min())
    unit = f"WLS over {len(rows)} sizes, percentile bootstrap over {n_seeds} seeds each"

    def est(v: float, bs: np.ndarray) -> Estimate:
        return from_draws(v, bs, len(rows), unit, n_total=nb)

    return OpDpGaps(gaps, est(b0, b_b), est(a0, a_b), est(m0, m_b), x, bool(relative))
