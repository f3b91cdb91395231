"""Tests of the summaries chapters 3 and 4 glue and show (issue 25): crossing ranges, ratio
tables, truncated Hebbian transitions (assocmem.linear.measure.transitions), memories above capacity
(.partial_storage), the threshold table (.hebbian), the mechanism report (.scores) and the spectrum
summary and fits (.measured_spectra). Expected values are computed by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from assocmem.estimate import Estimate, render
from assocmem.linear.instances.problems import normalised_margins
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.measured_spectra import (
    causes_summary,
    spectrum_fit_summary,
    spectrum_fits,
    spectrum_summary,
)
from assocmem.linear.measure.partial_storage import AboveCapacity, accuracy_at
from assocmem.linear.measure.rank_transitions import ratio_comparison, truncated_hebbian_transitions
from assocmem.linear.measure.scores import mechanism_report
from assocmem.linear.measure.sweeps import COLUMNS
from assocmem.linear.measure.transitions import crossing_range
from assocmem.linear.storage.training import hebbian_memory
from assocmem.linear.theory.hebbian import threshold, threshold_table
from assocmem.pages import table

T_975_2 = 4.302652729911275  # Student t quantile 0.975 with 2 degrees of freedom (tables)


def _rows(outcomes: dict[float, list[float]], *, method: str = "train", d: int = 8,
          rank: int | None = None, steps: int = 1) -> list[dict]:  # fmt: skip
    """Sweep rows: accuracy per (load, seed i = position i); load = alpha, p = 10 * alpha."""
    rank = d if rank is None else rank
    return [{"method": method, "problem": "op", "d": d, "rank": rank, "kappa": rank / d,
             "factored": rank < d, "alpha": a, "load": a, "p": int(10 * a), "seed": s,
             "recalled_all": acc == 1.0, "accuracy": float(acc), "steps": steps,
             "seconds": 0.0}
            for a, accs in outcomes.items() for s, acc in enumerate(accs)]  # fmt: skip


# --- transitions ------------------------------------------------------------------------------


def test_crossing_range_spans_values_and_intervals() -> None:
    a = Estimate(1.0, 0.5, 1.5, 4, "x")
    b = Estimate(2.0, 1.8, 2.6, 6, "x")
    assert crossing_range([a, b]) == {"lo": 1.0, "hi": 2.0, "ci_lo": 0.5, "ci_hi": 2.6, "n": 4}
    with pytest.raises(ValueError, match=r"estimates must hold at least one Estimate"):
        crossing_range([])
    with pytest.raises(TypeError, match=r"estimates must be Estimates, got tuple"):
        crossing_range([(1.0, 0.5, 1.5)])  # type: ignore[list-item]


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
        rows += _rows({a: [1.0 if a <= last else 0.0] * 6 for a in grid}, method="hebbian",
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


# --- above capacity ---------------------------------------------------------------------------


def _above() -> AboveCapacity:
    rows = _rows({1.4: [0.1, 0.2, 0.3], 2.0: [0.05, 0.1, 0.15]}, method="hebbian", d=16)
    rows += _rows({1.4: [0.2, 0.4, 0.6], 2.0: [1.0, 0.1, 0.1]}, method="train", d=16,
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
    t = pd.DataFrame(_rows({0.5: [1.0, 0.8], 1.0: [0.4, 0.6], 1.5: [0.1, 0.3]}), columns=COLUMNS)
    top = accuracy_at(t)
    assert top["load"] == 1.5 and top["acc"].value == pytest.approx(0.2) and top["acc"].n == 2
    near = accuracy_at(t, load=1.1)["acc"]
    # mean 0.5, sd 0.1414, half width t_{0.975,1} 0.1414 / sqrt 2 = 12.706 * 0.1 = 1.27: cut
    assert near.value == pytest.approx(0.5) and (near.low, near.high) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"load must be a finite number > 0, got -1\.0"):
        accuracy_at(t, load=-1.0)


# --- hebbian, scores, spectra -----------------------------------------------------------------


def test_threshold_table_matches_threshold_and_orders_the_criteria() -> None:
    t = threshold_table([1e3, 1e6])
    assert list(t.columns) == ["p", 'criterion "all"', 'criterion "typical"']
    assert t['criterion "all"'].iloc[1] == threshold(1e6, criterion="all")
    assert np.all(t['criterion "all"'] < t['criterion "typical"'])  # limits 1/8 < 1/2
    with pytest.raises(ValueError, match=r"criterion must be one of .*, got 'most'"):
        threshold_table([1e3], criteria=("most",))


def test_mechanism_report_prints_the_hand_computed_numbers() -> None:
    def st(target, comp):
        t, m = np.array(target), np.array(comp)
        return {"target": t, "max_competitor": m, "gap": t - m, "p": 100, "d": 32}

    stats = {"hebbian": st([1.0, 3.0], [2.0, 2.0]), "trained": st([4.0, 4.5], [3.0, 3.5])}
    rs = {"level": np.array([3.0, 5.0]), "n_active": np.array([2, 3]), "raw_max": np.array([6.0])}
    cap = {"level": np.array([2.0, 2.0]), "n_active": np.array([4, 4]), "raw_max": np.zeros(1)}
    lines = mechanism_report(stats, rs, cap, margin=0.5).splitlines()
    # alpha = 100 log 100 / 32^2 = 0.450; sqrt(2 log 100) = 3.03
    assert lines[0] == "p = 100, d = 32, alpha = 0.450, sqrt(2 log p) = 3.03"
    # std (ddof 1): Hebbian sqrt 2 = 1.41, trained sqrt(0.125) = 0.35, ratio 4.0
    assert lines[1] == "target std: Hebbian 1.41, trained 0.35, ratio 4.0"
    assert lines[2] == "trained: target mean 4.25, max competitor mean 3.25, gap mean 1.00"
    assert (
        lines[3] == "RS max-margin (kappa0 = 0.50): T* = 4.00 +- 1.00, pushed competitors k = 2.5,"
    )
    assert lines[5] == "RS at capacity (kappa0 = 0): T* = 2.00 +- 0.00, k = 4.0"


def test_spectrum_summary_fields() -> None:
    b = sample_problems(40, 16, 2)
    W = hebbian_memory(b)
    row = spectrum_summary("Hebbian", W, b, 16)
    assert row["values"] == 32 and row["memories"] == 2
    assert row["KS 5 % level"] == pytest.approx(1.36 / math.sqrt(32))
    assert 0 <= row["KS"] <= 1 and row["stored"] == int(
        np.sum(normalised_margins(W, b, norm="gardner") > 0)
    )


def test_spectrum_fits_and_their_labels() -> None:
    s = np.full(100, 1.0)
    spectra = pd.DataFrame({"kappa": [0.25, 1.0, 0.5], "load": [0.4, 0.9, 0.6],
                            "singular_values": [s, s, np.array([])]})  # fmt: skip
    fits = spectrum_fits(spectra)
    assert fits["κ"].tolist() == [0.25, 1.0]  # the empty group is left out
    assert fits["5 % level"].tolist() == pytest.approx([0.136, 0.136])  # 1.36 / sqrt(100)
    assert np.all((fits["KS (truncated) law"] > 0) & (fits["KS (truncated) law"] <= 1))
    out = spectrum_fit_summary(fits, {"full": 1.0})
    assert out == {"ks_full": fits["KS (truncated) law"].iloc[1], "ks_full_level": 0.136}
    with pytest.raises(ValueError, match=r"0 rows of fits have κ = 0\.5; need one"):
        spectrum_fit_summary(fits, {"half": 0.5})


def test_causes_summary_finds_rows_by_label() -> None:
    def row(memory, d, ks, memories=6):
        return {"memory": memory, "d": d, "memories": memories, "KS": ks, "KS 5 % level": 0.1,
                "margin": -ks}  # fmt: skip

    causes = pd.DataFrame([
        row("trained QR^T, first perfect step", 48, 0.3),
        row("trained QR^T, 2000 steps", 48, 0.31),
        row("max-margin, from trained QR^T", 48, 0.2),
        row("truncated Hebbian", 48, 0.05),
        row("trained QR^T, first perfect step", 128, 0.25, memories=4),
    ])  # fmt: skip
    out = causes_summary(causes)
    assert (out["ks_first"], out["ks_long"], out["ks_margin"]) == (0.3, 0.31, 0.2)
    assert (out["ks_hebb"], out["marg_large"], out["spec_n"], out["large_n"]) == (0.05, -0.25, 6, 4)
    assert "large_n" not in causes_summary(causes.iloc[:4])
    with pytest.raises(ValueError, match=r"causes must hold one 'first' row, found 0"):
        causes_summary(causes.iloc[1:])


# --- chapter 4: the kappa = 1 engines ---------------------------------------------------------


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


def test_factored_engine_check_counts_and_retrains_disagreements() -> None:
    from assocmem.linear.measure.sweeps import capacity_sweep
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
