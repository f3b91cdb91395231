"""Tests for the labelled summaries of chapter 5's results (what the page glues in one call).

Every result here is made by hand, so each expected number is computed independently of the
library: a mean, a median, a count, a linear interpolation, the Wilson formula or an explicit
bootstrap loop.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.context_gated.experiments import SeparationResult
from assocmem.context_gated.hysteresis import HysteresisResult
from assocmem.context_gated.instances import grid_index, grid_label
from assocmem.context_gated.onestep import OneStepResult, summarize_one_step, tail_slope
from assocmem.context_gated.transitions import GateTransitionResult
from assocmem.context_gated.winner import WinnerTimeResult, winner_fraction_crossing
from assocmem.estimate import Estimate, render

Z95 = 1.959963984540054  # standard normal 0.975 quantile


def _wilson(k: int, n: int) -> tuple[float, float]:
    p = k / n
    den = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n**2)) / den
    return centre - half, centre + half


def _first_up(x: np.ndarray, y: np.ndarray, level: float) -> float:
    """First upward crossing by a plain loop (x[0] if y starts at or above the level)."""
    if y[0] >= level:
        return float(x[0])
    for i in range(len(y) - 1):
        if y[i] < level <= y[i + 1]:
            return float(x[i] + (level - y[i]) / (y[i + 1] - y[i]) * (x[i + 1] - x[i]))
    return math.nan


# --------------------------------------------------------------------------- labels
def test_grid_index_finds_a_value_by_label_not_position() -> None:
    assert grid_index([0.0, 0.5, 1.0, 16.0], 16, "lam") == 3
    assert grid_index(np.array([1.0, 1.1, 1.5]), 1.1, "alpha") == 1  # 1.1 is not exact
    with pytest.raises(ValueError, match=r"alpha must be one of the grid's values \[1.0, 1.5\]"):
        grid_index([1.0, 1.5], 1.2, "alpha")
    with pytest.raises(TypeError, match="lam"):
        grid_index([1.0], "1", "lam")  # type: ignore[arg-type]


def test_grid_label_drops_the_point() -> None:
    assert [grid_label(v) for v in (0.5, 1.0, 2.5, 16.0, 0.95, 1.075, -1.5)] == [
        "0p5", "1", "2p5", "16", "0p95", "1p075", "m1p5"]  # fmt: skip


# --------------------------------------------------------------------------- separation
def _separation() -> SeparationResult:
    acc = np.array([[1.0, 0.3], [0.7, 0.9]])  # (L = 2: λ 0, 16) x (S = 2: σ 0, 3); n = 10
    z = np.zeros((2, 2, 10))
    return SeparationResult(np.array([0.0, 3.0]), np.array([0.0, 16.0]), acc, acc, z, z,
                            {"trials": 10})  # fmt: skip


def test_separation_accuracy_at_is_the_wilson_rate_of_the_cell() -> None:
    e = _separation().accuracy_at(16, 0.0)
    assert isinstance(e, Estimate) and e.n == 10 and e.method == "Wilson"
    assert e.value == pytest.approx(0.7)
    lo, hi = _wilson(7, 10)
    assert (e.low, e.high) == (pytest.approx(lo), pytest.approx(hi))
    with pytest.raises(ValueError, match="sigma_q"):
        _separation().accuracy_at(16, 1.5)
    with pytest.raises(ValueError, match="lam"):
        _separation().accuracy_at(4, 0.0)


def test_separation_summary_labels_accuracy_and_error() -> None:
    s = _separation().summary(lambdas=(16,), sigmas=(0, 3))
    assert set(s) == {"acc_l16_s0", "err_l16_s0", "acc_l16_s3", "err_l16_s3"}
    assert s["acc_l16_s3"].value == pytest.approx(0.9)
    assert s["err_l16_s0"].value == pytest.approx(0.3)
    lo, hi = _wilson(3, 10)
    assert (s["err_l16_s0"].low, s["err_l16_s0"].high) == (pytest.approx(lo), pytest.approx(hi))
    assert len(_separation().summary()) == 2 * 2 * 2  # every cell by default


# --------------------------------------------------------------------------- one step
def test_tail_slope_is_an_estimate_over_the_pairs_in_the_tail() -> None:
    x = np.linspace(0, 20, 201)  # step 0.1: x >= 2 keeps 181 pairs
    e = tail_slope(x, 3.0 * np.exp(-0.8 * x), x_min=2.0)
    assert isinstance(e, Estimate) and e.n == 181 and "pairs" in e.method
    assert e.value == pytest.approx(-0.8)
    few = tail_slope(x[:20], np.exp(-x[:20]), x_min=1.5)  # x in [1.5, 1.9]: 5 pairs, too few
    assert few.n == 5 and math.isnan(few.value) and math.isnan(few.low)


def _one_step() -> OneStepResult:
    # L = 2 (λ 0, 4) x S = 1 (σ_q = 1) x T = 3 trials, β = 2, N = 3
    full = np.array([[[1.0, 2.0, 4.0]], [[3.0, 5.0, 10.0]]])
    paper = np.array([[[1.0, 2.0, 4.0]], [[3.0, 4.0, 7.0]]])  # full > paper in 2 of 6 trials
    # bound 2/(1 + e^{βΔ - ln 2}) at βΔ = 2: 2/(1 + e²/2) = 0.4261; error 0.5 is above it
    err = np.array([[[0.5, 1e-3, 1e-5]], [[1e-4, 1e-6, 1e-9]]])
    z = np.zeros_like(full)
    return OneStepResult(np.array([0.0, 4.0]), np.array([1.0]), full, z, z, paper, err, z,
                         {"N": 3, "beta": 2.0})  # fmt: skip


def test_one_step_summary_quotes_counts_gaps_and_slope() -> None:
    sm = summarize_one_step(_one_step(), sigma_index=0, x_min=7.0)
    s = sm.summary(lambdas=(4,))
    assert set(s) == {"n", "above", "slope", "n_tail", "frac_strict", "gap_full_l4",
                      "gap_paper_l4"}  # fmt: skip
    assert s["n"] == 6 and s["above"] == 1
    assert s["n_tail"] == 3  # βΔ = 2Δ >= 7: Δ in {4, 5, 10}
    assert s["frac_strict"] == pytest.approx(2 / 6)
    assert isinstance(s["slope"], Estimate) and math.isnan(s["slope"].value)  # 3 < 10 pairs
    assert s["gap_full_l4"].value == pytest.approx(6.0) and s["gap_full_l4"].n == 3
    assert s["gap_paper_l4"].value == pytest.approx(14 / 3)
    assert s["gap_full_l4"].low <= 6.0 <= s["gap_full_l4"].high
    with pytest.raises(ValueError, match="lam"):
        sm.summary(lambdas=(2,))


# --------------------------------------------------------------------------- winner time
def _winner() -> WinnerTimeResult:
    a = np.array([0.9, 1.0, 1.1, 1.3])
    meas = np.array([[np.inf, np.inf, np.inf, np.inf],
                     [30.0, np.inf, 50.0, 70.0],
                     [10.0, 12.0, 20.0, 40.0],
                     [2.0, 3.0, 4.0, 5.0]])  # fmt: skip
    pred = np.where(np.isfinite(meas), meas * 1.01, np.inf)
    pred[3] = [2.0, 3.0, 4.0, 4.0]  # largest deviation 5/4 - 1 = 0.25 at α = 1.3
    eq47 = np.full((4, 4), 7.0)
    match = np.isfinite(meas)
    match[2, 0] = False
    return WinnerTimeResult(a, meas, pred, eq47, match)


def test_winner_fraction_crossing_goes_through_the_bootstrap_over_sets() -> None:
    res = _winner()
    e = winner_fraction_crossing(res, 15.0, n_boot=300, seed=3)
    hit = (res.t_measured <= 15.0).T.astype(float)  # (sets, α): fractions 0, 0, 1/2, 1
    assert isinstance(e, Estimate) and e.n == 4 and "memory sets" in e.method
    assert e.value == pytest.approx(1.1)
    rng = np.random.default_rng(3)  # the same resampling, by a plain loop
    idx = rng.integers(0, 4, size=(300, 4))
    boots = np.array([_first_up(res.alphas, hit[i].mean(axis=0), 0.5) for i in idx])
    lo, hi = np.quantile(boots[np.isfinite(boots)], [0.025, 0.975])
    assert (e.low, e.high) == (pytest.approx(lo), pytest.approx(hi))


def test_winner_summary_quotes_the_page_numbers() -> None:
    s = _winner().summary(alphas=(1.1,), horizons=(15.0,), seed=3)
    assert s["alpha_min"] == pytest.approx(1.1)
    assert s["ratio_max"] == pytest.approx(0.25)
    assert s["n_fin"] == 11 and s["match"] == pytest.approx(10 / 11)
    assert s["below"] == 0 and s["n_below"] == 4
    assert s["meas_1p1"].value == pytest.approx(16.0)  # median of 10, 12, 20, 40
    assert s["pred_1p1"] == pytest.approx(16.16) and s["eq47_1p1"] == pytest.approx(7.0)
    assert s["cross_15"].value == pytest.approx(1.1)
    with pytest.raises(ValueError, match="alpha"):
        _winner().summary(alphas=(1.2,))


# --------------------------------------------------------------------------- hysteresis
def _hysteresis() -> HysteresisResult:
    a = np.array([0.0, 0.1, 0.2, 0.3])
    up = np.zeros((1, 4, 2))
    up[0, :, 0] = [0.02, 0.02, 0.9, 1.0]  # jumps at α = 0.2
    up[0, :, 1] = [0.02, 0.8, 0.9, 1.0]  # jumps at α = 0.1
    down = np.zeros((1, 4, 2))
    down[0, :, 0] = [0.02, 0.8, 0.9, 1.0]  # stays up down to α = 0.1
    down[0, :, 1] = [0.9, 0.9, 0.9, 1.0]  # never drops: the grid's lower end
    fresh = up.copy()
    fresh[0, 1, 1] = 0.02  # one of 8 cases ends elsewhere than the upward sweep
    radius = np.arange(8.0).reshape(1, 4, 2) / 10
    gain = np.array([[0.1, 0.2, 0.3, 0.4]])
    conv = np.array([[1.0, 0.5, 1.0, 1.0]])
    return HysteresisResult(a, np.array([1.0]), up, down, fresh, radius, gain, conv, {},
                            np.array([0.9]))  # fmt: skip


def test_hysteresis_summary_quotes_jumps_radius_and_gain() -> None:
    s = _hysteresis().summary(seed=1)
    assert s["up_1"].value == pytest.approx(0.15) and s["up_1"].n == 2
    assert s["down_1"].value == pytest.approx(0.05) and s["down_1"].n == 2
    assert s["up_1"].low <= 0.15 <= s["up_1"].high
    assert s["pred_1"] == pytest.approx(0.9)
    # last grid point before the jump: α index 1 for set 0, index 0 for set 1
    assert s["rad_1"] == pytest.approx((0.2 + 0.1) / 2)
    assert s["gain_1"] == pytest.approx((0.2 + 0.1) / 2)
    assert s["same"] == pytest.approx(7 / 8)
    assert s["conv"] == pytest.approx(0.5) and s["T"] == 2
    # one coupling here: the radius 0.15 is above a threshold of 0.1, not above 0.2
    assert s["rad_min"] == s["rad_max"] == pytest.approx(0.15)
    near = _hysteresis().summary(seed=1, near_one=0.1)
    assert (near["near_lams"], near["far_lams"], near["near_one"]) == ("1", "", 0.1)
    far = _hysteresis().summary(seed=1, near_one=0.2)
    assert (far["near_lams"], far["far_lams"]) == ("", "1")
    with pytest.raises(ValueError, match=r"near_one must lie in \(0, 1\), got 1\.0"):
        _hysteresis().summary(near_one=1.0)


def test_hysteresis_table_rows_are_the_summary_numbers() -> None:
    h = _hysteresis()
    s, t = h.summary(seed=1), h.table(seed=1)
    assert t["λ"].tolist() == [1.0] and len(t) == 1
    row = t.iloc[0]
    assert row["upward jump α"] == s["up_1"]  # the same Estimate, interval and n
    assert row["downward drop α"] == render(s["down_1"])  # drops at 0.05, above the grid's 0
    assert (row["radius before jump"], row["formula gain"], row["formula α"]) == (
        s["rad_1"], s["gain_1"], s["pred_1"])  # fmt: skip
    # every set still a winner at the grid's smallest α: the drop is a bound, not a mean
    h.down[0, :, :] = 1.0
    assert h.table(seed=1).iloc[0]["downward drop α"] == f"below the grid (< {h.alphas[0]:g})"


def test_hysteresis_jump_of_a_single_set_has_no_interval() -> None:
    h = _hysteresis()
    h.up[0, :, 1] = 0.02  # set 1 never jumps: one finite point left
    e = h.jump_intervals()["up"][0]
    assert e.n == 1 and e.value == pytest.approx(0.2) and math.isnan(e.low)


# --------------------------------------------------------------------------- gate transition
def test_gate_crossing_is_the_bootstrap_crossing_over_memory_sets() -> None:
    a = np.array([0.0, 1.0, 2.0])
    peak = np.array([[0.02, 0.02, 0.02, 0.02], [0.0, 0.0, 0.5, 0.5], [0.5, 1.0, 0.5, 1.0]])
    g = GateTransitionResult(a, peak, np.ones(4), np.zeros((3, 5)))
    s = g.summary(levels=(0.5, 0.95), n_boot=200, seed=2)
    assert set(s) == {"0p5", "0p95"}
    e = s["0p5"]  # mean 0.02, 0.25, 0.75: crosses 1/2 half-way between α = 1 and 2
    assert e.value == pytest.approx(1.5) and e.n == 4 and "memory sets" in e.method
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 4, size=(200, 4))
    boots = np.array([_first_up(a, peak[:, i].mean(axis=1), 0.5) for i in idx])
    boots[boots == a[0]] = np.nan  # start="nan": a curve already past 1/2 at α = 0 (none here)
    lo, hi = np.quantile(boots[np.isfinite(boots)], [0.025, 0.975])
    assert (e.low, e.high) == (pytest.approx(lo), pytest.approx(hi))
    assert math.isnan(s["0p95"].value)  # the mean never reaches 0.95
