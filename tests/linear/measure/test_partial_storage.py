"""Tests of assocmem.linear.measure.partial_storage: the storable fraction above capacity."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from _fixtures import value_and_stderr
from _sweep_tables import sweep_rows
from assocmem.linear.instances.problems import recall_accuracy
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.measure.partial_storage import (
    AboveCapacity,
    accuracy_at,
    accuracy_by_load,
    cheapest_subset_fraction,
    give_up_fraction,
    random_subset_fraction,
    small_problem_fraction,
    subset_problem,
    subset_sweep,
)
from assocmem.linear.measure.sweeps import COLUMNS
from assocmem.linear.theory.finite_size import finite_size_capacity_estimate
from assocmem.linear.theory.replica import expected_cost

T_975_2 = 4.302652729911275  # Student t quantile 0.975 with 2 degrees of freedom (tables)


def _above() -> AboveCapacity:
    rows = sweep_rows({1.4: [0.1, 0.2, 0.3], 2.0: [0.05, 0.1, 0.15]}, method="hebbian", d=16)
    rows += sweep_rows({1.4: [0.2, 0.4, 0.6], 2.0: [1.0, 0.1, 0.1]}, method="train", d=16,
                  steps=450)  # fmt: skip
    sub = [{"method": "subset", "d": 16, "alpha": 1.4, "load": 1.4, "p": 14, "seed": s,
            "kept": 7, "subset_recalled": 1.0, "accuracy": 0.5} for s in range(2)]  # fmt: skip
    return AboveCapacity(pd.DataFrame(rows + sub), d=16, budget=2000)


def test_above_capacity_accuracy_is_a_clipped_t_interval() -> None:
    ab = _above()
    e = ab.at(1.4, "train")
    # mean 0.4, sd 0.2, half width t_{0.975,2} 0.2 / sqrt 3 = 0.4968: low -0.097 cut to 0
    assert e.value == pytest.approx(0.4) and e.n == 3
    assert e.low == 0.0 and e.high == pytest.approx(0.4 + T_975_2 * 0.2 / math.sqrt(3))
    assert ab.has(1.4, "subset") and not ab.has(2.0, "subset")
    with pytest.raises(ValueError, match=r"no 'train' memory at alpha = 3\.0, d = 16"):
        ab.at(3.0, "train")


def test_above_capacity_table_and_summary() -> None:
    ab = _above()
    tab = ab.table()
    assert tab["trained"].tolist()[0] == "0.400 [0.000, 0.897] (n = 3)"
    # both subset instances recalled 0.5: zero spread, so no (degenerate) interval is shown
    assert tab["subset-trained"].tolist() == ["0.500 (all 2 equal)", "-"]
    assert np.all((tab["random subset f"] > 0) & (tab["random subset f"] <= tab["give up f"]))
    s = ab.summary([1.4, 2.0])
    assert (s["d"], s["budget"], s["0_load"], s["1_stored"]) == (16, 2000, 1.4, 1)
    assert s["0_tr"].value == pytest.approx(0.4) and s["1_hb"].value == pytest.approx(0.1)
    assert "0_sub" in s and "1_sub" not in s
    assert math.isnan(s["0_sub"].low) and math.isnan(s["0_sub"].high) and s["0_sub"].n == 2
    # 1 of 3 trained instances stored everything at 2.0: Wilson, z = 1.96
    z, n, f = 1.959964, 3, 1 / 3
    mid, half = (f + z * z / (2 * n)), z * math.sqrt(f * (1 - f) / n + z * z / (4 * n * n))
    r = s["1_stored_rate"]
    assert (r.value, r.n, r.method) == (pytest.approx(f), 3, "Wilson")
    assert r.low == pytest.approx((mid - half) / (1 + z * z / n), abs=1e-5)
    assert r.high == pytest.approx((mid + half) / (1 + z * z / n), abs=1e-5)
    assert s["0_stored_rate"].value == 0.0 and s["0_stored_rate"].high > 0.5
    # trained rows without perfect recall: 3 at 1.4, 2 at 2.0, each ran 450 steps
    assert (s["sub_all"], s["sub_n"], s["n_stalled"], s["steps_hi"]) == (2, 2, 5, 450)
    assert s["0_frand"] == ab.random_fraction(1.4) and 0 < s["1_p1"] < 1


def test_accuracy_at_picks_the_largest_or_the_nearest_load() -> None:
    t = pd.DataFrame(
        sweep_rows({0.5: [1.0, 0.8], 1.0: [0.4, 0.6], 1.5: [0.1, 0.3]}), columns=COLUMNS
    )
    top = accuracy_at(t)
    assert top["load"] == 1.5 and top["acc"].value == pytest.approx(0.2) and top["acc"].n == 2
    near = accuracy_at(t, load=1.1)["acc"]
    # mean 0.5, sd 0.1414, half width t_{0.975,1} 0.1414 / sqrt 2 = 12.706 * 0.1 = 1.27: cut
    assert near.value == pytest.approx(0.5) and (near.low, near.high) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"load must be a finite number > 0, got -1\.0"):
        accuracy_at(t, load=-1.0)


def test_cheapest_constant_costs_is_budget_over_cost() -> None:
    # equal costs: no subset is cheaper, f = budget / c (the large-p limit of the argument)
    assert cheapest_subset_fraction(np.full(1000, 4.0), 1.0) == pytest.approx(0.25, abs=1e-12)
    assert cheapest_subset_fraction(np.full(10, 4.0), 5.0) == 1.0


def test_cheapest_exponential_costs_closed_form() -> None:
    # C ~ Exp(1): E[C 1{C <= x}] = 1 - e^{-x}(1 + x), f = 1 - e^{-x}
    x = 0.7
    budget = 1.0 - math.exp(-x) * (1.0 + x)
    costs = np.random.default_rng(0).exponential(size=400_000)
    assert cheapest_subset_fraction(costs, budget) == pytest.approx(1.0 - math.exp(-x), abs=3e-3)


def test_cheapest_brute_force_small() -> None:
    costs = np.array([5.0, 1.0, 3.0, 2.0])  # cheapest first: 1, 2, 3, 5; mean contributions /4
    assert cheapest_subset_fraction(costs, 3.0 / 4) == pytest.approx(2 / 4)  # 1 + 2 fit exactly
    assert cheapest_subset_fraction(costs, 4.5 / 4) == pytest.approx((2 + 0.5) / 4)
    with pytest.raises(ValueError, match=r"costs must be a non-empty array of finite numbers"):
        cheapest_subset_fraction([], 1.0)
    with pytest.raises(ValueError, match=r"costs must be a non-empty array of finite numbers >= 0"):
        cheapest_subset_fraction([1.0, -1.0], 1.0)
    with pytest.raises(ValueError, match=r"budget must be a finite number > 0, got 0\.0"):
        cheapest_subset_fraction([1.0], 0.0)


@pytest.mark.parametrize(("p", "d"), [(350, 32), (1161, 64)])
def test_random_subset_is_alpha_c_over_alpha(p: int, d: int) -> None:
    # n E[C_p] = d^2 with an independent estimate of E[C_p]
    mean, err = value_and_stderr(expected_cost(p, n_samples=40_000, seed=5))
    f, f_err = value_and_stderr(random_subset_fraction(p, d))
    assert f < 1
    assert f * p * mean / d**2 == pytest.approx(1.0, abs=4 * (err / mean + f_err / f))


def test_random_subset_below_capacity_is_one() -> None:
    e = random_subset_fraction(100, 64)
    assert (e.value, e.low, e.high, e.stderr) == (1.0, 1.0, 1.0, 0.0)


def test_give_up_between_random_and_one_and_tends_to_it() -> None:
    p, d = 350, 32
    f_rand = random_subset_fraction(p, d).value
    f_cheap = give_up_fraction(p, d, n_samples=20_000, seed=1)
    assert f_rand < f_cheap < 1
    # the gain of choosing the subset comes from the spread of C_p: with the costs replaced by
    # their mean (what happens as p -> infinity, C_p / 2 log p -> 1) it vanishes
    mean, _ = value_and_stderr(expected_cost(p, n_samples=20_000, seed=1))
    assert cheapest_subset_fraction(np.full(20_000, mean), d**2 / p) == pytest.approx(
        f_rand, rel=0.02
    )


def test_small_problem_solves_its_equation() -> None:
    # f p log(f p) / d^2 = alpha_c(f p): check the fixed point with an independent estimate
    d, p = 40, 2000
    f = float(small_problem_fraction(p, d))
    n = f * p
    alpha_c, err = value_and_stderr(
        finite_size_capacity_estimate(round(n), seed=11, rel_error=0.003)
    )
    assert n * math.log(n) / d**2 == pytest.approx(alpha_c, abs=4 * err + 2 * math.log(n) / d**2)
    # it drops the p - n outputs that still compete, so it lies above the random subset
    assert f > random_subset_fraction(p, d).value


def test_all_fractions_tend_to_one_over_two_alpha() -> None:
    # asymptotic limit alpha_c(p) -> 1/2: f alpha -> 1/2 for the random subset, slowly
    # (alpha_c(1e12) ~ 0.6 by chapter 2); check the decrease towards it at fixed alpha = 2
    vals = []
    for d in (64, 512, 4096):
        p = round(2.0 * d**2 / math.log(2.0 * d**2))  # p log p ~ 2 d^2
        for _ in range(20):  # fixed point of p log p = 2 d^2
            p = round(2.0 * d**2 / math.log(p))
        load = p * math.log(p) / d**2
        vals.append(random_subset_fraction(p, d).value * load)
    assert vals[0] > vals[1] > vals[2] > 0.5
    assert vals[2] < 0.75


def test_accuracy_by_load_t_interval() -> None:
    tab = pd.DataFrame({"method": "hebbian", "d": 8, "alpha": 1.0, "load": 1.0, "p": 20,
                        "accuracy": [0.1, 0.2, 0.3]})  # fmt: skip
    out = accuracy_by_load(tab)
    half = 4.302652729911275 * 0.1 / math.sqrt(3)  # t_{0.975, 2} * sd / sqrt(n)
    assert out["n"].iloc[0] == 3
    assert out["accuracy"].iloc[0] == pytest.approx(0.2)
    assert out["ci_low"].iloc[0] == pytest.approx(max(0.0, 0.2 - half))
    assert out["ci_high"].iloc[0] == pytest.approx(0.2 + half)
    with pytest.raises(ValueError, match=r"table lacks the columns \['p'\]"):
        accuracy_by_load(tab.drop(columns="p"))


def test_subset_problem_zero_inputs_never_recalled() -> None:
    prob = sample_problem(30, 8, seed=0)
    sub = subset_problem(prob, 10, seed=1)
    kept = sub.inputs.abs().sum(1) > 0
    assert int(kept.sum()) == 10
    assert torch.equal(sub.targets, prob.targets)
    assert torch.equal(sub.inputs[kept], prob.inputs[kept])
    # orthonormal inputs = targets, W = I: every association is recalled, a zeroed one is not
    q = torch.linalg.qr(torch.randn(8, 6, generator=torch.Generator().manual_seed(0)))[0].T
    same = type(prob)(q.contiguous(), q.clone().contiguous())
    assert recall_accuracy(torch.eye(8), same) == pytest.approx(1.0)
    assert recall_accuracy(torch.eye(8), subset_problem(same, 2, seed=1)) == pytest.approx(2 / 6)
    with pytest.raises(ValueError, match=r"n_keep must be <= p = 30, got 31"):
        subset_problem(prob, 31)


def test_subset_sweep_stores_a_small_subset() -> None:
    tab = subset_sweep(12, [3.0], share=0.3, seeds=[0, 1], steps=200)
    p = int(tab["p"].iloc[0])
    n = int(tab["kept"].iloc[0])
    assert n == round(0.3 * random_subset_fraction(p, 12).value * p)
    # a few inputs far below the subset's capacity are all stored; the rest are never recalled
    assert list(tab["subset_recalled"]) == [1.0, 1.0]  # exact: an integer count over n
    assert tab["accuracy"].to_numpy() == pytest.approx([n / p] * 2)
    with pytest.raises(ValueError, match=r"share must lie in \(0, 1\], got 1\.5"):
        subset_sweep(12, [3.0], share=1.5)
