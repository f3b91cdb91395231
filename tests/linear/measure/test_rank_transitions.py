"""Tests of assocmem.linear.measure.rank_transitions."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from _sweep_tables import sweep_rows
from assocmem.estimate import Estimate, render
from assocmem.linear.measure.rank_transitions import ratio_comparison, truncated_hebbian_transitions
from assocmem.linear.measure.sweeps import COLUMNS
from assocmem.pages import table


def test_ratio_comparison_lists_measurement_then_predictions() -> None:
    r = Estimate(0.61234, 0.5, 0.7049, 16, "x")
    t = ratio_comparison(r, {"a": 0.75, "b": 0.4375})
    assert list(t.columns) == ["α(1/4) / α(1)", "value"]
    assert t["α(1/4) / α(1)"].tolist() == ["measured", "a", "b"]
    assert t["value"].tolist() == [r, 0.75, 0.4375]
    shown = table(t, {"value": "{:.3f}"})._formatted()["value"].tolist()
    assert shown == ["0.612 [0.500, 0.705]", "0.750", "0.438"]
    with pytest.raises(TypeError, match=r"measured must be an Estimate, got tuple"):
        ratio_comparison((0.6, 0.5, 0.7), {"a": 1.0})  # type: ignore[arg-type]


def _hebbian_steps(d: int) -> pd.DataFrame:
    # sharp steps: rank d/4 stored up to load 1 and none from 2 (crossing 1.5), rank d/2 up to 2
    # (crossing 2.5), full rank up to 2 (crossing 2.5); 6 seeds
    grid = [1.0, 2.0, 3.0]
    rows = []
    for rank, last in ((d // 4, 1.0), (d // 2, 2.0), (d, 2.0)):
        rows += sweep_rows({a: [1.0 if a <= last else 0.0] * 6 for a in grid}, method="hebbian",
                      d=d, rank=rank)  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_truncated_hebbian_transitions_table_and_summary() -> None:
    t = pd.concat([_hebbian_steps(8), _hebbian_steps(16)], ignore_index=True)
    h = truncated_hebbian_transitions(t, n_boot=200)
    # the steps are sharp, so every draw crosses at the midpoint: no spread
    assert h.crossing(8, 0.25).value == pytest.approx(1.5)
    q = h.ratio(16, 0.25)
    assert (q.value, q.low, q.high) == pytest.approx((0.6, 0.6, 0.6))  # 1.5 / 2.5
    tab = h.table()
    assert len(tab) == 6 and "α_H 95 % interval" not in tab.columns
    row = tab[(tab["d"] == 8) & (tab["κ"] == 0.25)].iloc[0]
    assert render(row["measured α_H"], ".4f") == "1.5000 [1.5000, 1.5000]"
    assert render(row["α_H(κ)/α_H(1)"]) == "0.600 [0.600, 0.600]"
    full = tab[(tab["d"] == 16) & (tab["κ"] == 1.0)].iloc[0]
    # kappa = 1: x = pi in pi kappa = x - sin x, alpha_c = (2 pi - sin 2 pi) / (4 pi) = 1/2
    assert full["α_c(κ)/4"] == pytest.approx(0.125) and full["2α_c(κ)"] == pytest.approx(1.0)
    assert full["α_H(κ)/α_H(1)"] == 1.0
    s = h.summary()
    assert (s["d_small"], s["d_big"], s["n"]) == (8, 16, 6)
    assert s["a_full"].value == pytest.approx(2.5) and s["ratio_half"].value == pytest.approx(1.0)
    p = s["p_quarter"]  # p log p = 1.5 * 16^2 = 384
    assert p * math.log(p) <= 384 < (p + 1) * math.log(p + 1)
    with pytest.raises(ValueError, match=r"d must be one of \[8, 16\], got 32"):
        h.crossing(32, 0.25)
    with pytest.raises(ValueError, match=r"kappas must .* include 1\.0, got \(0\.25, 0\.5\)"):
        truncated_hebbian_transitions(t, kappas=(0.25, 0.5))
