"""Tests of assocmem.linear.measure.transitions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _sweep_tables import synthetic_sweep
from assocmem.estimate import Estimate
from assocmem.linear.measure.sweeps import COLUMNS, capacity_sweep
from assocmem.linear.measure.tables import (
    success_by_load,
)
from assocmem.linear.measure.transitions import (
    accuracy_crossing,
    bootstrap_transitions,
    crossing_range,
    transition_load,
    transition_loads,
    transition_ratio,
)


def test_crossing_range_spans_values_and_intervals() -> None:
    a = Estimate(1.0, 0.5, 1.5, 4, "x")
    b = Estimate(2.0, 1.8, 2.6, 6, "x")
    assert crossing_range([a, b]) == {"lo": 1.0, "hi": 2.0, "ci_lo": 0.5, "ci_hi": 2.6, "n": 4}
    with pytest.raises(ValueError, match=r"estimates must hold at least one Estimate"):
        crossing_range([])
    with pytest.raises(TypeError, match=r"estimates must be Estimates, got tuple"):
        crossing_range([(1.0, 0.5, 1.5)])  # type: ignore[list-item]


def test_exceed_fraction_counts_joint_draws_with_both_crossings() -> None:
    from assocmem.linear.measure.transitions import BootstrapTransitions

    def est(draws: list[float]) -> Estimate:
        return Estimate(1.0, 0.9, 1.1, 4, "percentile bootstrap over seeds", 0.95,
                        draws=np.array(draws))  # fmt: skip

    summary = pd.DataFrame({"kappa": [0.75, 1.0], "method": ["train", "train"]})
    boot = BootstrapTransitions(
        summary, (est([1.0, 2.0, np.nan, 0.5, 3.0]), est([1.5, 1.0, 1.0, np.nan, 2.0]))
    )
    # joint finite draws: (1.0, 1.5), (2.0, 1.0), (3.0, 2.0): 2 of 3 exceed
    assert boot.exceed_fraction(0.75, 1.0) == pytest.approx(2 / 3)
    assert boot.exceed_fraction(1.0, 0.75) == pytest.approx(1 / 3)


def test_transition_interpolates_the_half_crossing() -> None:
    t = synthetic_sweep({0.5: [True] * 4, 0.8: [True, True, True, False], 1.1: [False] * 4})
    c = success_by_load(t)
    x0, x1, x2 = c["load"]
    est = transition_load(t)
    assert est.value == pytest.approx(x1 + (0.75 - 0.5) / 0.75 * (x2 - x1), rel=1e-12)
    assert 0 < est.stderr < x2 - x0
    assert x0 <= est.low < est.value < est.high <= x2
    assert est.n == 4
    # no crossing in range: NaN
    assert math.isnan(transition_load(synthetic_sweep({0.5: [True] * 3, 0.9: [True] * 3})).value)


def test_transition_error_shrinks_with_instances() -> None:
    four = synthetic_sweep({0.5: [True] * 4, 0.8: [True] * 3 + [False], 1.1: [False] * 4})
    small = transition_load(four)
    n = 400
    big = transition_load(synthetic_sweep({0.5: [True] * n, 0.8: [True] * 300 + [False] * 100,
                                      1.1: [False] * n}))  # fmt: skip
    assert big.value == pytest.approx(small.value, rel=1e-12)  # same fractions, same crossing
    # the posterior sd of the fraction falls like 1/sqrt(n): 10x more instances, ~10x less error
    assert big.stderr < small.stderr / 4
    assert transition_load(four, seed=1).value == small.value  # the draws move only the error


def test_transition_refuses_mixed_groups_and_bad_tables() -> None:
    t = pd.concat([synthetic_sweep({0.5: [True, False], 0.9: [False, False]}),
                   synthetic_sweep({0.5: [True], 0.9: [False]}, d=20)])  # fmt: skip
    with pytest.raises(ValueError, match="groups"):
        transition_load(t)
    per_group = transition_loads(t)
    assert per_group["d"].tolist() == [40, 20] and per_group["n"].tolist() == [2, 1]
    with pytest.raises(ValueError, match="2 grid points"):  # one load: no curve to cross
        transition_load(synthetic_sweep({0.5: [True, False]}))
    with pytest.raises(TypeError, match=r"table must be a pandas\.DataFrame, got dict"):
        success_by_load({"alpha": [0.5]})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        success_by_load(synthetic_sweep({}))
    with pytest.raises(ValueError, match="columns"):
        success_by_load(pd.DataFrame({"alpha": [0.5]}))


def test_undecided_instances_count_as_not_stored_and_are_counted() -> None:
    """Issue 42: an LP answer "undecided at tolerance" is in n, not in stored, and counted."""
    t = synthetic_sweep({0.5: [True] * 4, 0.8: [True, True, False, False], 1.1: [False] * 4},
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


def test_tables_refuse_repeated_instances_and_missing_values() -> None:
    t = synthetic_sweep({0.5: [True, False], 0.9: [False, False]})
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


def _accuracy_table(acc: dict[float, list[float]], d: int = 40, method: str = "hebbian"):
    """A sweep table with given accuracies per load (seed s = position in the list)."""
    t = synthetic_sweep({a: [False] * len(v) for a, v in acc.items()}, d=d, method=method)
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
