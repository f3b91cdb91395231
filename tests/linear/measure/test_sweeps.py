"""Tests of assocmem.linear.measure.sweeps: the tidy sweep table (trained, Hebbian, LP, truncated
Hebbian), success by load, the transition and crossings bootstrapped over instances
(.transitions)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import all_recalled
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.sweeps import COLUMNS, capacity_sweep, truncated_hebbian_sweep
from assocmem.linear.measure.transitions import (
    transition_load,
)
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load


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
    alone = sample_problems(p, 16, [1], seed=0)[0]
    torch.testing.assert_close(sample_problems(p, 16, [0, 1], seed=0)[1].inputs, alone.inputs,
                               rtol=0, atol=0)  # fmt: skip
    # trained in the sweep's batch (the same path: the engine's bits are promised for the same
    # batch; alone, float32 rounding of the batched products may move the step near a tie)
    r = train_memory(sample_problems(p, 16, [0, 1], seed=0), steps=1500, patience=300)
    assert t.loc[(t["alpha"] == 0.4) & (t["seed"] == 1), "steps"].item() == np.asarray(r.steps)[1]
