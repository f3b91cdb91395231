"""Tests of assocmem.linear.measure.capacity_comparison."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from _sweep_tables import synthetic_sweep
from assocmem.estimate import Estimate, Result, Verdict, verdict
from assocmem.linear.measure.capacity_comparison import (
    TransitionComparison,
    TransitionEntry,
    op_dp_gaps,
    transition_comparison,
)
from assocmem.linear.measure.sweeps import COLUMNS
from assocmem.linear.measure.transitions import (
    transition_load,
)
from assocmem.linear.theory.finite_size import PredictedLoad, predicted_transition
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load


def _lp_table(successes: list[tuple[float, int]], n: int = 8, d: int = 12) -> pd.DataFrame:
    """A DP exact-LP sweep table with k of n instances stored at each load."""
    rows = []
    for alpha, k in successes:
        p = pairs_for_load(alpha, d)
        rows += [{"method": "lp", "problem": "dp", "d": d, "rank": d, "kappa": 1.0,
                  "factored": False,
                  "alpha": alpha, "load": load_for_pairs(p, d), "p": p, "seed": s,
                  "recalled_all": s < k, "accuracy": math.nan, "steps": 0, "seconds": 0.0}
                 for s in range(n)]  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_transition_comparison_against_the_finite_size_prediction() -> None:
    table = _lp_table([(0.8, 8), (0.9, 8), (1.0, 6), (1.1, 2), (1.2, 0)])
    loads = sorted(set(table["load"]))
    est = transition_load(table)
    # 6/8 -> 2/8 between the 3rd and 4th loads: the crossing lies half-way
    assert est.value == pytest.approx((loads[2] + loads[3]) / 2, rel=1e-12)
    comp = transition_comparison({"DP, exact LP": table})
    e = comp["DP, exact LP"]
    assert e.d == 12 and e.measured == est and e.measured.n == 8
    # the crossing must lie between the 2nd load (8/8 stored) and the 5th (0/8)
    assert loads[1] < est.low < est.value < est.high < loads[4]
    pred = predicted_transition(12, seed=0)
    assert e.predicted == pred and pred.alpha.method == "Monte Carlo"
    assert e.p_measured * math.log(e.p_measured) / 144 == pytest.approx(est.value, rel=1e-9)
    # the difference: posterior draws minus normal draws of the prediction's error
    assert e.difference.value == pytest.approx(est.value - pred.alpha.value, rel=1e-12)
    sd = math.hypot(np.nanstd(est.draws, ddof=1), pred.alpha.stderr)
    assert e.difference.stderr == pytest.approx(sd, rel=0.1)
    assert e.verdict is verdict(e.difference) and e.z == pytest.approx(
        e.difference.value / math.hypot(est.stderr, pred.alpha.stderr), rel=1e-12)  # fmt: skip
    row = comp.table().iloc[0]
    assert row["measured alpha_c"] == est and row["verdict"] == str(e.verdict)
    with pytest.raises(KeyError, match="no sweep 'OP'"):
        comp["OP"]


def _entry(sweep: str, d: int, diff: tuple[float, float, float]) -> TransitionEntry:
    """A hand-made entry whose difference from the prediction has the interval ``diff``."""
    m = Estimate(1.0, 0.9, 1.1, 16, "Jeffreys posterior", stderr=0.05)
    pred = PredictedLoad(Estimate(0.9, 0.89, 0.91, 4000, "Monte Carlo", stderr=0.005), 40)
    return TransitionEntry(sweep, d, m, 40.0, pred, Estimate(*diff, 16, "test"))


def test_transition_summary_counts_verdicts() -> None:
    comp = TransitionComparison((
        _entry("a", 12, (0.1, 0.02, 0.2)), _entry("b", 32, (0.05, -0.01, 0.1)),
        _entry("c", 16, (-0.1, -0.2, -0.05)), _entry("d", 32, (0.2, 0.1, 0.3)),
    ))  # fmt: skip
    assert isinstance(comp, Result) and comp.table()["verdict"].tolist()[2] == "below"
    s = comp.summary()
    assert (s["n_sweeps"], s["n_above"], s["n_below"], s["n_unresolved"]) == (4, 2, 1, 1)
    # the largest d: the first such entry, "b" (not resolved, its low end below 0)
    assert s["largest_sweep"] == "b" and s["largest_verdict"] is Verdict.UNRESOLVED
    assert s["largest_p"] == 40 and s["largest_difference"].low == -0.01
    assert comp.findings() == {"a": Verdict.ABOVE, "b": Verdict.UNRESOLVED,
                               "c": Verdict.BELOW, "d": Verdict.ABOVE}  # fmt: skip


def test_no_crossing_has_no_error() -> None:
    t = transition_load(synthetic_sweep({0.5: [True] * 3, 0.9: [True, True, False]}))
    assert math.isnan(t.value) and math.isnan(t.stderr) and math.isnan(t.low)
    with pytest.raises(TypeError, match="tables"):
        transition_comparison([])  # type: ignore[arg-type]
    rank_table = synthetic_sweep({0.5: [True] * 2, 0.9: [False] * 2}).assign(rank=20, kappa=0.5)
    with pytest.raises(ValueError, match="unconstrained"):
        transition_comparison({"rank": rank_table})


def _staggered(d: int, centre: float, problem: str, scale: float = 1.0, shift: int = 0):
    """A sweep whose instance ``s`` is stored below load ``centre + 0.01 (s - 7.5)`` (16 seeds,
    loads multiplied by ``scale``); ``shift`` rotates which seed holds which threshold."""
    loads = centre * np.linspace(0.85, 1.15, 7)
    t = synthetic_sweep({float(a): [a < centre + 0.01 * ((s + shift) % 16 - 7.5) for s in range(16)]
                    for a in loads}, d=d, method="lp")  # fmt: skip
    return t.assign(problem=problem, load=t["load"] * scale)


def test_op_dp_gaps_exact_scaling_gives_the_line() -> None:
    # OP = DP with every load scaled by 1 + c/d: the relative gap is c/d in every draw (the
    # crossing is equivariant under scaling the load), so the unweighted fit is exact
    c = 0.4
    tables = {}
    for d in (10, 20, 40):
        dp = _staggered(d, 1.0, "dp", shift=d)
        tables[f"DP {d}"] = dp
        tables[f"OP {d}"] = dp.assign(problem="op", load=dp["load"] * (1 + c / d))
    g = op_dp_gaps(tables, weighted=False, n_boot=200)
    assert isinstance(g, Result) and g.findings() == {10: Verdict.ABOVE, 20: Verdict.ABOVE,
                                                      40: Verdict.ABOVE}  # fmt: skip
    assert g.gaps["d"].tolist() == [10, 20, 40] and g.n_positive == 3
    # zero-width intervals at c/d > 0: every size resolved; a gap of 0 at one size is not
    assert g.n_resolved == 3 and g.summary()["resolved"] == 3
    one_open = dataclasses.replace(g, gaps=g.gaps.copy())
    one_open.gaps.at[0, "gap"] = Estimate(0.01, -0.02, 0.05, 8, "test")
    assert one_open.n_resolved == 2 and one_open.n_positive == 3
    assert np.allclose([e.value for e in g.gaps["gap"]], c / g.gaps["d"], rtol=1e-9)
    assert g.slope.value == pytest.approx(c, rel=1e-9)
    assert g.slope.low == pytest.approx(c, rel=1e-9) and g.slope.high == pytest.approx(c, rel=1e-9)
    assert g.intercept.value == pytest.approx(0.0, abs=1e-12)
    # absolute gaps: OP - DP = DP * c / d
    ga = op_dp_gaps(tables, relative=False, weighted=False, n_boot=200)
    gap_a = np.array([e.value for e in ga.gaps["gap"]])
    assert np.allclose(gap_a, ga.gaps["DP"] * c / ga.gaps["d"], rtol=1e-9)
    # zero spread cannot be weighted
    with pytest.raises(ValueError, match="spread"):
        op_dp_gaps(tables, n_boot=200)


def test_op_dp_gaps_weighted_fit_matches_polyfit_and_pairs_the_seeds() -> None:
    tables = {}
    for d in (10, 16, 24, 32):
        tables[f"OP {d}"] = _staggered(d, 1.0 + 0.5 / d, "op", shift=3 * d)
        tables[f"DP {d}"] = _staggered(d, 1.0, "dp", shift=5 * d)
        tables[f"trained {d}"] = _staggered(d, 0.9, "op").assign(method="train")  # ignored
    g = op_dp_gaps(tables, x="log d", n_boot=400)
    gp = g.gaps.assign(stderr=[e.stderr for e in g.gaps["gap"]],
                       gap=[e.value for e in g.gaps["gap"]])  # fmt: skip
    assert gp["d"].tolist() == [10, 16, 24, 32]
    for r in gp.itertuples():  # the crossings are transition_load's
        assert r.OP == pytest.approx(transition_load(tables[f"OP {r.d}"]).value, rel=1e-12)
        assert r.DP == pytest.approx(transition_load(tables[f"DP {r.d}"]).value, rel=1e-12)
    # independent WLS: numpy's polyfit weights residuals by 1 / sigma
    b, a = np.polyfit(np.log(gp["d"]), gp["gap"], 1, w=1 / gp["stderr"])
    assert g.slope.value == pytest.approx(b, rel=1e-9)
    assert g.intercept.value == pytest.approx(a, rel=1e-9, abs=1e-12)
    w = 1 / gp["stderr"] ** 2
    assert g.mean.value == pytest.approx(float((w * gp["gap"]).sum() / w.sum()), rel=1e-9)
    assert g.slope.low < g.slope.value < g.slope.high and g.slope.n == 4
    # identical OP and DP outcomes: the paired bootstrap gives a gap of 0 in every draw
    same = {f"{k} {d}": _staggered(d, 1.0, k, shift=d) for d in (10, 20) for k in ("op", "dp")}
    z = op_dp_gaps(same, weighted=False, n_boot=200)
    assert all((e.value, e.low, e.high) == (0, 0, 0) for e in z.gaps["gap"])
    with pytest.raises(ValueError, match=">= 2 sizes"):
        op_dp_gaps({k: v for k, v in tables.items() if k.endswith(" 10")})
    with pytest.raises(ValueError, match="method"):
        op_dp_gaps(tables, method="hebbian")
