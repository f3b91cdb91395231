"""Tests of assocmem.linear.measure.tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _sweep_tables import synthetic_sweep
from assocmem.linear.measure.sweeps import capacity_sweep
from assocmem.linear.measure.tables import (
    instance_agreement,
    miss_rates,
    paired_instances,
    success_by_load,
)


def test_factored_engine_check_counts_and_retrains_disagreements() -> None:
    from assocmem.linear.measure.tables import factored_engine_check

    d, loads = 8, [0.3]
    full = capacity_sweep(d, loads, seeds=3, steps=300, progress=False)
    fac = capacity_sweep(d, loads, rank=d, seeds=3, steps=300, lr=0.2, progress=False)
    assert full["recalled_all"].all() and fac["recalled_all"].all()  # a low load: all stored
    # pretend the factored engine missed seed 1 and the unconstrained one seed 2
    fac.loc[fac["seed"] == 1, "recalled_all"] = False
    full.loc[full["seed"] == 2, "recalled_all"] = False
    out = factored_engine_check(fac, full, steps=300, lr=0.2)
    # seed 1 is storable (it was stored): the retrained factored engine stores it again
    assert out == {"pairs": 3, "full_only": 1, "factored_only": 1, "steps": 300, "reached": 1}
    with pytest.raises(ValueError, match=r"the sweeps must hold one d, got \[8, 12\]"):
        factored_engine_check(fac, capacity_sweep(12, loads, seeds=3, steps=10, progress=False),
                              steps=10, lr=0.2)  # fmt: skip


Z95 = 1.959963984540054  # standard normal 97.5 % quantile


def _wilson(k: int, n: int) -> tuple[float, float]:
    """Textbook Wilson score interval at 95 % (independent of the library's scipy call)."""
    f, z2 = k / n, Z95**2
    centre = (f + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(f * (1 - f) / n + z2 / (4 * n * n))
    return centre - half, centre + half


def test_success_by_load_counts_and_wilson_interval() -> None:
    t = synthetic_sweep({0.5: [True] * 4, 0.8: [True, True, True, False], 1.1: [False] * 4})
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


def test_miss_rates_count_by_band_with_wilson_intervals() -> None:
    rel = [0.8, 0.9, 0.94, 0.96, 1.0, 1.04, 1.1, 1.2, 1.3]
    lp = [True, True, True, True, True, False, True, True, False]
    tr = [True, False, True, True, False, False, False, True, False]
    pairs = pd.DataFrame({"relative load": rel, "lp_stored": lp, "trained_stored": tr})
    out = miss_rates(pairs, edges=(0.95, 1.05))
    assert out["storable"].tolist() == [3, 2, 2] and out["missed"].tolist() == [1, 1, 1]
    assert out["band"].tolist() == ["0 - 0.95", "0.95 - 1.05", ">= 1.05"]
    assert [e.value for e in out["miss rate"]] == pytest.approx([1 / 3, 1 / 2, 1 / 2])
    for _, r in out.iterrows():
        lo, hi = _wilson(int(r["missed"]), int(r["storable"]))
        assert (r["miss rate"].low, r["miss rate"].high) == pytest.approx((lo, hi), abs=1e-9)
    assert out["relative loads of the missed"].tolist() == [
        "0.900 - 0.900", "1.000 - 1.000", "1.100 - 1.100"
    ]  # fmt: skip
    empty = miss_rates(pairs, edges=(2.0,))  # no storable instance above 2
    assert empty["storable"].tolist() == [7, 0] and np.isnan(empty["miss rate"].iloc[1].value)
    with pytest.raises(ValueError, match="edges"):
        miss_rates(pairs, edges=(1.0, 0.9))
    with pytest.raises(ValueError, match="relative load"):
        miss_rates(pairs.drop(columns="relative load"))
