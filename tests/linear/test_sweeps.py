"""Tests of assocmem.linear.measure.sweeps: the tidy sweep table (trained, Hebbian, LP, truncated
Hebbian), success by load, the transition and crossings bootstrapped over instances
(.transitions)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from assocmem.estimate import Estimate, Verdict, verdict
from assocmem.linear.instances.problems import all_recalled
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.capacity_comparison import (
    TransitionComparison,
    TransitionEntry,
    op_dp_gaps,
    transition_comparison,
)
from assocmem.linear.measure.measured_spectra import singular_values, stored_spectra
from assocmem.linear.measure.scores import mechanism_scores
from assocmem.linear.measure.sweeps import COLUMNS, capacity_sweep, truncated_hebbian_sweep
from assocmem.linear.measure.tables import (
    instance_agreement,
    miss_rates,
    paired_instances,
    success_by_load,
)
from assocmem.linear.measure.transitions import (
    accuracy_crossing,
    bootstrap_transitions,
    transition_load,
    transition_loads,
    transition_ratio,
)
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.finite_size import PredictedLoad, predicted_transition
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load

Z95 = 1.959963984540054  # standard normal 97.5 % quantile


def _synthetic(successes: dict[float, list[bool]], d: int = 40, method: str = "train"):
    """A sweep table with given outcomes (the columns of capacity_sweep)."""
    rows = []
    for a, flags in successes.items():
        p = pairs_for_load(a, d)
        for s, f in enumerate(flags):
            rows.append({"method": method, "problem": "op", "d": d, "rank": d, "kappa": 1.0,
                         "factored": False,
                         "alpha": a, "load": load_for_pairs(p, d), "p": p, "seed": s,
                         "recalled_all": f, "accuracy": 1.0 if f else 0.9, "steps": 10,
                         "seconds": 0.0})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Textbook Wilson score interval at 95 % (independent of the library's scipy call)."""
    f, z2 = k / n, Z95**2
    centre = (f + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(f * (1 - f) / n + z2 / (4 * n * n))
    return centre - half, centre + half


def test_success_by_load_counts_and_wilson_interval() -> None:
    t = _synthetic({0.5: [True] * 4, 0.8: [True, True, True, False], 1.1: [False] * 4})
    c = success_by_load(t)
    assert c["n"].tolist() == [4, 4, 4] and c["stored"].tolist() == [4, 3, 0]
    np.testing.assert_allclose(c["fraction"], [1.0, 0.75, 0.0])
    for k, lo, hi in zip(c["stored"], c["ci_low"], c["ci_high"], strict=True):
        assert (lo, hi) == pytest.approx(_wilson(int(k), 4), abs=1e-12)
    # the interval never leaves [0, 1] and keeps a width at 0 and 1
    assert c["ci_low"].min() >= 0 and c["ci_high"].max() <= 1
    assert c["ci_high"].iloc[2] == pytest.approx(Z95**2 / (4 + Z95**2))  # k = 0: z^2/(n + z^2)
    np.testing.assert_allclose(c["accuracy"], [1.0, 0.975, 0.9])
    assert c["accuracy_sem"].iloc[1] == pytest.approx(0.05 / math.sqrt(4) * 1.0, rel=1e-12)


def test_transition_interpolates_the_half_crossing() -> None:
    t = _synthetic({0.5: [True] * 4, 0.8: [True, True, True, False], 1.1: [False] * 4})
    c = success_by_load(t)
    x0, x1, x2 = c["load"]
    est = transition_load(t)
    assert est.value == pytest.approx(x1 + (0.75 - 0.5) / 0.75 * (x2 - x1), rel=1e-12)
    assert 0 < est.stderr < x2 - x0
    assert x0 <= est.low < est.value < est.high <= x2
    assert est.n == 4
    # no crossing in range: NaN
    assert math.isnan(transition_load(_synthetic({0.5: [True] * 3, 0.9: [True] * 3})).value)


def test_transition_error_shrinks_with_instances() -> None:
    four = _synthetic({0.5: [True] * 4, 0.8: [True] * 3 + [False], 1.1: [False] * 4})
    small = transition_load(four)
    n = 400
    big = transition_load(_synthetic({0.5: [True] * n, 0.8: [True] * 300 + [False] * 100,
                                      1.1: [False] * n}))  # fmt: skip
    assert big.value == pytest.approx(small.value, rel=1e-12)  # same fractions, same crossing
    # the posterior sd of the fraction falls like 1/sqrt(n): 10x more instances, ~10x less error
    assert big.stderr < small.stderr / 4
    assert transition_load(four, seed=1).value == small.value  # the draws move only the error


def test_transition_refuses_mixed_groups_and_bad_tables() -> None:
    t = pd.concat([_synthetic({0.5: [True, False], 0.9: [False, False]}),
                   _synthetic({0.5: [True], 0.9: [False]}, d=20)])  # fmt: skip
    with pytest.raises(ValueError, match="groups"):
        transition_load(t)
    per_group = transition_loads(t)
    assert per_group["d"].tolist() == [40, 20] and per_group["n"].tolist() == [2, 1]
    with pytest.raises(ValueError, match="2 grid points"):  # one load: no curve to cross
        transition_load(_synthetic({0.5: [True, False]}))
    with pytest.raises(TypeError, match=r"table must be a pandas\.DataFrame, got dict"):
        success_by_load({"alpha": [0.5]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        success_by_load(_synthetic({}))
    with pytest.raises(ValueError, match="columns"):
        success_by_load(pd.DataFrame({"alpha": [0.5]}))


def test_trained_sweep_is_tidy_and_uses_the_seeding_rule() -> None:
    t = capacity_sweep(16, [0.4, 2.5], seeds=2, steps=1500, patience=300, progress=False)
    assert list(t.columns) == list(COLUMNS) and len(t) == 4
    assert t["seed"].tolist() == [0, 1, 0, 1] and set(t["problem"]) == {"op"}
    assert (t["rank"] == 16).all() and (t["kappa"] == 1.0).all()
    assert t["recalled_all"].tolist() == [True, True, False, False]
    assert t["accuracy"].iloc[2] < 0.6
    assert 0.4 < transition_load(t).value < 2.5
    # the instance at (alpha, label s) of the root 0 is sample_problems(p, d, [s], seed=0)[0]
    p = pairs_for_load(0.4, 16)
    r = train_memory(sample_problems(p, 16, [1], seed=0)[0], steps=1500, patience=300)
    assert t.loc[(t["alpha"] == 0.4) & (t["seed"] == 1), "steps"].item() == r.perfect_step


def test_hebbian_and_lp_sweeps() -> None:
    h = capacity_sweep(24, [0.02, 3.0], seeds=[0, 1], method="hebbian", keep_weights=True,
                       progress=False)  # fmt: skip
    assert h["recalled_all"].tolist() == [True, True, False, False]
    W = hebbian_memory(sample_problems(pairs_for_load(3.0, 24), 24, [1])[0]).numpy()
    np.testing.assert_array_equal(h["weights"].iloc[3], W)
    lp = capacity_sweep(10, [0.5, 1.8], seeds=[0], method="lp", decoupled=True, progress=False)
    assert lp["recalled_all"].tolist() == [True, False] and set(lp["problem"]) == {"dp"}
    assert lp["accuracy"].isna().all() and (lp["steps"] == 0).all()
    assert lp["undecided"].tolist() == [False, False] and not h["undecided"].any()


def test_undecided_instances_count_as_not_stored_and_are_counted() -> None:
    """Issue 42: an LP answer "undecided at tolerance" is in n, not in stored, and counted."""
    t = _synthetic({0.5: [True] * 4, 0.8: [True, True, False, False], 1.1: [False] * 4},
                   method="lp")  # fmt: skip
    t["undecided"] = False
    t.loc[(t["alpha"] == 0.8) & (t["seed"] == 3), "undecided"] = True
    c = success_by_load(t)
    assert c["n"].tolist() == [4, 4, 4] and c["stored"].tolist() == [4, 2, 0]
    assert c["undecided"].tolist() == [0, 1, 0]
    np.testing.assert_allclose(c["fraction"], [1.0, 0.5, 0.0])
    # the crossing reads recalled_all only: the same as with the instance decided "not stored"
    decided = t.assign(undecided=False)
    assert transition_load(t).value == transition_load(decided).value
    # a table built without the column's values (NaN) counts none
    assert success_by_load(t.assign(undecided=np.nan))["undecided"].tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"method": "svm"}, ValueError, "method"),
        ({"alphas": []}, ValueError, "non-empty"),
        ({"alphas": [-0.5]}, ValueError, "alpha"),
        ({"alphas": 0.3}, TypeError, "sequence"),
        ({"method": "lp", "rank": 1}, ValueError, "rank"),
        ({"rank": 13}, ValueError, "rank"),
        ({"seeds": 0}, ValueError, "seeds"),
        ({"seeds": [1, 1]}, ValueError, "repeat"),
        ({"seeds": 2.0}, TypeError, "seeds"),
        ({"decoupled": "yes"}, TypeError, "decoupled"),
    ],
)
def test_sweep_refuses_bad_input(kwargs, exc, match) -> None:  # type: ignore[no-untyped-def]
    args = {"alphas": [0.5], "seeds": [0], "steps": 5, "progress": False} | kwargs
    with pytest.raises(exc, match=match):
        capacity_sweep(12, **args)


def test_rank_sweep_and_stored_spectra() -> None:
    t = capacity_sweep(12, [0.2, 4.0], rank=6, seeds=3, steps=600, lr=0.2, patience=200,
                       keep_weights=True, progress=False)  # fmt: skip
    assert (t["rank"] == 6).all() and (t["kappa"] == 0.5).all()
    c = success_by_load(t)
    assert c["fraction"].tolist() == [1.0, 0.0]
    spec = stored_spectra(t)
    assert len(spec) == 1 and spec["load"].item() == pytest.approx(c["load"].iloc[0])
    s = spec["singular_values"].item()
    assert spec["n_memories"].item() == 3 and s.shape == (3 * 6,)
    # the top-m singular values of each W = Q R^T, normalised per matrix to mean square 1
    W0 = t["weights"].iloc[0]
    np.testing.assert_allclose(s[:6], singular_values(W0, rank=6)[:6], rtol=1e-10)
    assert np.linalg.matrix_rank(W0, tol=1e-4 * np.abs(W0).max()) == 6
    with pytest.raises(ValueError, match="keep_weights"):
        stored_spectra(t.drop(columns="weights"))


def test_mechanism_scores_pools_seeds() -> None:
    st = mechanism_scores(40, 16, seeds=2, steps=200, lr=0.05)
    assert set(st) == {"hebbian", "trained"}
    assert st["trained"]["target"].shape == (2, 40)  # (seeds, p)
    assert 0.0 <= st["hebbian"]["accuracy"] <= st["trained"]["accuracy"] <= 1.0


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
    s = comp.summary()
    assert (s["n_sweeps"], s["n_above"], s["n_below"], s["n_unresolved"]) == (4, 2, 1, 1)
    # the largest d: the first such entry, "b" (not resolved, its low end below 0)
    assert s["largest_sweep"] == "b" and s["largest_verdict"] is Verdict.UNRESOLVED
    assert s["largest_p"] == 40 and s["largest_difference"].low == -0.01
    assert comp.findings() == {"a": Verdict.ABOVE, "b": Verdict.UNRESOLVED,
                               "c": Verdict.BELOW, "d": Verdict.ABOVE}  # fmt: skip


def test_tables_refuse_repeated_instances_and_missing_values() -> None:
    t = _synthetic({0.5: [True, False], 0.9: [False, False]})
    with pytest.raises(ValueError, match="repeats"):
        success_by_load(pd.concat([t, t]))
    bad = t.copy()
    bad.loc[0, "alpha"] = np.nan
    with pytest.raises(ValueError, match="alpha"):
        transition_load(bad)
    with pytest.raises(ValueError, match="repeat"):
        capacity_sweep(8, [0.5, 0.5], seeds=3, method="hebbian", progress=False)
    with pytest.raises(TypeError, match="alphas"):
        capacity_sweep(8, np.float32(0.5), method="hebbian", progress=False)
    with pytest.raises(TypeError, match="alphas"):
        capacity_sweep(8, [True], method="hebbian", progress=False)
    with pytest.raises(ValueError, match="alphas"):
        capacity_sweep(8, [0.5, float("nan")], method="hebbian", progress=False)
    with pytest.raises(ValueError, match="keep_weights"):
        capacity_sweep(8, [0.5], method="lp", keep_weights=True, progress=False)


def test_factored_full_rank_is_its_own_experiment() -> None:
    full = capacity_sweep(8, [0.3, 0.5], seeds=2, steps=50, progress=False)
    fact = capacity_sweep(8, [0.3, 0.5], rank=8, seeds=2, steps=50, progress=False)
    assert not full["factored"].any() and fact["factored"].all()
    both = transition_loads(pd.concat([full, fact]))
    assert len(both) == 2 and both["n"].tolist() == [2, 2]


def test_no_crossing_has_no_error() -> None:
    t = transition_load(_synthetic({0.5: [True] * 3, 0.9: [True, True, False]}))
    assert math.isnan(t.value) and math.isnan(t.stderr) and math.isnan(t.low)
    with pytest.raises(TypeError, match="tables"):
        transition_comparison([])  # type: ignore[arg-type]
    rank_table = _synthetic({0.5: [True] * 2, 0.9: [False] * 2}).assign(rank=20, kappa=0.5)
    with pytest.raises(ValueError, match="unconstrained"):
        transition_comparison({"rank": rank_table})


def test_instance_agreement_counts_matched_instances() -> None:
    def table(method: str, ok: list[bool]) -> pd.DataFrame:
        rows = [
            {
                "method": method,
                "problem": "op",
                "d": 8,
                "rank": 8,
                "kappa": 1.0,
                "factored": False,
                "alpha": a,
                "load": a,
                "p": 10,
                "seed": s,
                "recalled_all": o,
                "accuracy": 1.0,
                "steps": 0,
                "seconds": 0.0,
            }
            for (a, s), o in zip([(0.5, 0), (0.5, 1), (1.0, 0), (1.0, 1)], ok, strict=True)
        ]
        return pd.DataFrame(rows)  # fmt: skip

    t = table("train", [True, False, False, False])
    lp = table("lp", [True, True, False, False])
    out = instance_agreement(t, lp)
    assert out.loc["LP stores", "trained stored"] == 1
    assert out.loc["LP stores", "trained not stored"] == 1
    assert out.loc["LP cannot store", "trained not stored"] == 2
    assert out.loc["LP cannot store", "trained stored"] == 0
    assert int(out.to_numpy().sum()) == 4
    pairs = paired_instances(t, lp)  # the missed instance is (alpha 0.5, seed 1)
    missed = pairs[pairs["lp_stored"] & ~pairs["trained_stored"]]
    assert missed[["alpha", "seed"]].to_numpy().tolist() == [[0.5, 1]]
    assert pairs["load"].is_monotonic_increasing and len(pairs) == 4
    assert pairs["lp_stored"].sum() == out.loc["LP stores"].sum()
    with pytest.raises(ValueError, match="share no"):
        instance_agreement(t, lp.assign(seed=lp["seed"] + 10))
    with pytest.raises(ValueError, match="'d'"):
        instance_agreement(t, lp.assign(d=9))


def _accuracy_table(acc: dict[float, list[float]], d: int = 40, method: str = "hebbian"):
    """A sweep table with given accuracies per load (seed s = position in the list)."""
    t = _synthetic({a: [False] * len(v) for a, v in acc.items()}, d=d, method=method)
    t["accuracy"] = [x for v in acc.values() for x in v]
    return t


def test_accuracy_crossing_interpolates_and_bootstraps_over_seeds() -> None:
    # identical instances: no spread, the interval collapses onto the estimate
    t = _accuracy_table({0.4: [0.9] * 5, 0.6: [0.7] * 5, 0.8: [0.3] * 5})
    loads = sorted(set(t["load"]))
    est = accuracy_crossing(t)
    assert est.value == pytest.approx(loads[1] + 0.5 * (loads[2] - loads[1]), rel=1e-12)
    assert est.low == pytest.approx(est.value) and est.high == pytest.approx(est.value)
    assert est.n == 5 and est.used == 1.0
    # two seeds whose curves cross at different loads: a resample holds seed 0 twice, seed 1
    # twice or both, so the crossings are exactly those three values, each seed's alone at
    # the ends of the interval (P = 1/4 each, far from the 2.5 % tails)
    t = _accuracy_table({0.4: [1.0, 1.0], 0.6: [0.6, 0.2], 0.8: [0.0, 0.0]})
    loads = sorted(set(t["load"]))
    cross0 = loads[1] + (0.6 - 0.5) / 0.6 * (loads[2] - loads[1])  # seed 0: 0.6 -> 0.0
    cross1 = loads[0] + (1.0 - 0.5) / 0.8 * (loads[1] - loads[0])  # seed 1: 1.0 -> 0.2
    mean = loads[0] + (1.0 - 0.5) / 0.6 * (loads[1] - loads[0])  # mean: 1.0 -> 0.4
    est = accuracy_crossing(t, n_boot=4000, seed=1)
    assert est.value == pytest.approx(mean, rel=1e-12)
    assert (est.low, est.high) == pytest.approx((cross1, cross0), rel=1e-12)
    # a curve that stays above the level has no crossing
    t = _accuracy_table({0.4: [0.9, 0.8], 0.6: [0.7, 0.6]})
    assert math.isnan(accuracy_crossing(t).value)


def test_accuracy_crossing_refuses_lp_rows_and_ragged_seeds() -> None:
    t = _accuracy_table({0.4: [0.9, 0.8], 0.6: [0.3, 0.2]}, method="lp")
    t["accuracy"] = np.nan
    with pytest.raises(ValueError, match="no accuracy"):
        accuracy_crossing(t)
    t = _accuracy_table({0.4: [0.9, 0.8, 0.7], 0.6: [0.3, 0.2]})
    with pytest.raises(ValueError, match="same seeds"):
        accuracy_crossing(t)
    with pytest.raises(ValueError, match="level"):
        accuracy_crossing(_accuracy_table({0.4: [0.9], 0.6: [0.3]}), level=1.5)


def test_accuracy_crossing_refuses_one_seed() -> None:
    """Issue 29, item 2: on d8f35f4 one seed gave ci_low == ci_high, stderr 5.6e-17."""
    tab = capacity_sweep(16, [0.1, 0.4, 0.8, 1.2], method="hebbian", seeds=1, progress=False)
    with pytest.raises(ValueError, match="at least 2 units"):
        accuracy_crossing(tab)


def _staggered(d: int, centre: float, problem: str, scale: float = 1.0, shift: int = 0):
    """A sweep whose instance ``s`` is stored below load ``centre + 0.01 (s - 7.5)`` (16 seeds,
    loads multiplied by ``scale``); ``shift`` rotates which seed holds which threshold."""
    loads = centre * np.linspace(0.85, 1.15, 7)
    t = _synthetic({float(a): [a < centre + 0.01 * ((s + shift) % 16 - 7.5) for s in range(16)]
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


def test_miss_rates_count_by_band_with_wilson_intervals() -> None:
    rel = [0.8, 0.9, 0.94, 0.96, 1.0, 1.04, 1.1, 1.2, 1.3]
    lp = [True, True, True, True, True, False, True, True, False]
    tr = [True, False, True, True, False, False, False, True, False]
    pairs = pd.DataFrame({"relative load": rel, "lp_stored": lp, "trained_stored": tr})
    out = miss_rates(pairs, edges=(0.95, 1.05))
    assert out["storable"].tolist() == [3, 2, 2] and out["missed"].tolist() == [1, 1, 1]
    assert out["band"].tolist() == ["0 - 0.95", "0.95 - 1.05", ">= 1.05"]
    assert out["miss rate"].tolist() == pytest.approx([1 / 3, 1 / 2, 1 / 2])
    for _, r in out.iterrows():
        lo, hi = _wilson(int(r["missed"]), int(r["storable"]))
        assert (r["95% low"], r["95% high"]) == pytest.approx((lo, hi), abs=1e-9)
    assert out["relative loads of the missed"].tolist() == [
        "0.900 - 0.900", "1.000 - 1.000", "1.100 - 1.100"
    ]  # fmt: skip
    empty = miss_rates(pairs, edges=(2.0,))  # no storable instance above 2
    assert empty["storable"].tolist() == [7, 0] and np.isnan(empty["miss rate"].iloc[1])
    with pytest.raises(ValueError, match="edges"):
        miss_rates(pairs, edges=(1.0, 0.9))
    with pytest.raises(ValueError, match="relative load"):
        miss_rates(pairs.drop(columns="relative load"))


def test_truncated_hebbian_sweep_full_rank_is_the_hebbian_memory() -> None:
    d, seeds = 16, range(5)
    tab = truncated_hebbian_sweep(d, [0.05, 0.2], [4, 16], seeds=seeds)
    assert list(tab.columns) == list(COLUMNS) and len(tab) == 2 * 2 * 5
    for _, g in tab[tab["rank"] == d].groupby("alpha"):
        p = int(g["p"].iloc[0])
        assert math.isclose(g["load"].iloc[0], load_for_pairs(p, d))
        b = sample_problems(p, d, seeds)
        ref = all_recalled(hebbian_memory(b), b)
        assert list(g.sort_values("seed")["recalled_all"]) == list(ref)
    # truncating removes signal: rank d/4 never stores what rank d does not
    piv = tab.pivot_table(index=["alpha", "seed"], columns="rank", values="recalled_all")
    assert not (piv[4].astype(bool) & ~piv[16].astype(bool)).any()
    assert set(tab["kappa"]) == {0.25, 1.0} and not tab["factored"].any()


# --- crossings bootstrapped over instances -----------------------------------------------------


def _at_loads(outcomes: dict[float, list[bool]], *, rank: int = 4, d: int = 8,
              method: str = "train") -> pd.DataFrame:  # fmt: skip
    """A sweep table with given outcomes at exactly these loads (alpha = load, seed i at i)."""
    rows = []
    for a, oks in outcomes.items():
        for s, ok in enumerate(oks):
            rows.append({"method": method, "problem": "op", "d": d, "rank": rank,
                         "kappa": rank / d, "factored": True, "alpha": a, "load": a,
                         "p": 10, "seed": s, "recalled_all": ok, "accuracy": float(ok),
                         "steps": 1, "seconds": 0.0})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_bootstrap_of_a_sharp_step_has_no_spread() -> None:
    # every instance stored below 2 and none above: each resample crosses at the midpoint
    t = _at_loads({1.0: [True] * 8, 2.0: [True] * 8, 3.0: [False] * 8})
    b = bootstrap_transitions(t, n_boot=200)
    row = b.summary.iloc[0]
    assert row["alpha_c"] == pytest.approx(2.0 + 0.5)  # interpolated from 1 to 0 between 2 and 3
    assert row["ci_low"] == pytest.approx(2.5) and row["ci_high"] == pytest.approx(2.5)
    assert row["draws_crossing"] == 1.0 and row["n"] == 8


def test_bootstrap_crossing_and_interval_of_a_known_curve() -> None:
    # fractions 1, 3/4, 1/4, 0: the data cross 1/2 at 2.5; resamples stay inside [2, 3]
    t = _at_loads({1.0: [True] * 4, 2.0: [True, True, True, False],
                3.0: [True, False, False, False], 4.0: [False] * 4})  # fmt: skip
    b = bootstrap_transitions(t, n_boot=500, seed=2)
    row = b.summary.iloc[0]
    assert row["alpha_c"] == pytest.approx(2.5)
    assert 1.0 <= row["ci_low"] <= 2.5 <= row["ci_high"] <= 4.0
    fin = b.draws[np.isfinite(b.draws[:, 0]), 0]
    assert np.all((fin >= 1.0) & (fin <= 4.0))


def test_ratio_of_a_rescaled_copy_is_exact_in_every_draw() -> None:
    rng = np.random.default_rng(0)
    outcomes = {
        a: list(rng.random(10) < f)
        for a, f in zip([0.2, 0.4, 0.6, 0.8, 1.0], [1.0, 0.9, 0.5, 0.2, 0.0], strict=True)
    }
    outcomes[0.2] = [True] * 10
    outcomes[1.0] = [False] * 10
    a = _at_loads(outcomes, rank=2, d=8)
    b = _at_loads({2 * k: v for k, v in outcomes.items()}, rank=8, d=8)
    boot = bootstrap_transitions(pd.concat([a, b], ignore_index=True), n_boot=300)
    r = transition_ratio(boot, 0.25, 1.0)
    assert r.value == pytest.approx(0.5)
    assert r.low == pytest.approx(0.5) and r.high == pytest.approx(0.5)
    assert r.used == pytest.approx(boot.summary["draws_crossing"].min())
    with pytest.raises(ValueError, match=r"0 groups have kappa = 0\.5"):
        transition_ratio(boot, 0.5, 1.0)


def test_bootstrap_rejects_missing_instances() -> None:
    t = _at_loads({1.0: [True] * 4, 2.0: [False] * 4})
    with pytest.raises(ValueError, match=r"must hold every seed \(0, 1, 2, 3\) at each"):
        bootstrap_transitions(t.iloc[:-1], n_boot=100)
    with pytest.raises(ValueError, match=r"n_boot must be an integer >= 100, got 10"):
        bootstrap_transitions(t, n_boot=10)
