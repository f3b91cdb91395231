"""Chapter 6's measured numbers: paired comparisons and the results' summaries (no model needed).

Every rate is an :class:`assocmem.stats.Estimate` made by :func:`assocmem.stats.rate` (Wilson);
a paired comparison's difference is an Estimate with the paired-bootstrap interval; the results'
``summary()`` mappings hold the labels the page glues (``glue_all``). Expected values are worked
out by hand here, or computed independently (scipy's Wilson interval, the bootstrap written out).
"""

from __future__ import annotations

import numpy as np
import pytest
from assocmem.llm.evaluation import PairedComparison, paired_comparison
from assocmem.llm.experiments import LamaResult, ProbeResult, TaskResult
from assocmem.llm.probes import LamaEffect
from assocmem.llm.prompts import Split
from assocmem.stats import Estimate
from scipy import stats

A = np.array([1, 1, 1, 0, 0, 1, 0, 1, 1, 1], dtype=bool)  # 7 right
B = np.array([1, 0, 0, 0, 1, 1, 0, 0, 1, 1], dtype=bool)  # 5 right


def _wilson(k: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _bools(k: int, n: int) -> np.ndarray:
    return np.arange(n) < k


def test_paired_comparison_counts_discordant_pairs_and_mcnemar() -> None:
    comp = paired_comparison(A, B, seed=3)
    assert isinstance(comp.difference, Estimate)
    assert comp.difference.value == pytest.approx(0.2) and comp.difference.n == 10
    assert (comp.only_a, comp.only_b) == (3, 1)  # queries 1, 2, 7 and query 4
    # exact McNemar: X ~ Bin(4, 1/2), P(X <= 1) + P(X >= 3) = (1 + 4 + 4 + 1) / 16
    assert comp.p_mcnemar == pytest.approx(10 / 16)
    assert "bootstrap" in comp.difference.method and "queries" in comp.difference.method


def test_paired_interval_is_the_bootstrap_of_the_paired_differences() -> None:
    # written out: resample the queries (pairs together), mean difference, 2.5 / 97.5 % points
    d = A.astype(float) - B.astype(float)
    idx = np.random.default_rng(3).integers(0, 10, size=(2000, 10))
    lo, hi = np.quantile(d[idx].mean(1), [0.025, 0.975])
    diff = paired_comparison(A, B, seed=3).difference
    assert diff.low == pytest.approx(lo, abs=1e-12) and diff.high == pytest.approx(hi, abs=1e-12)


def test_paired_comparison_verdict_and_text() -> None:
    def comp(low: float, high: float) -> PairedComparison:
        return PairedComparison(Estimate(0.05, low, high, 400, "bootstrap"), 30, 10, 0.0021)

    assert comp(0.01, 0.09).verdict == "above"
    assert comp(-0.09, -0.01).verdict == "below"
    assert comp(-0.01, 0.09).verdict == "not distinguishable from"
    assert str(comp(0.02, 0.08)) == "+0.050 [+0.020, +0.080], McNemar p = 0.0021"
    s = comp(0.02, 0.08).summary()
    assert s["verdict"] == "above" and s["p"] == 0.0021 and (s["only_a"], s["only_b"]) == (30, 10)
    assert s["diff"].value == 0.05
    # no discordant pair: the McNemar p-value is 1
    assert paired_comparison(A, A).p_mcnemar == 1.0


def test_paired_comparison_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="equal-length"):
        paired_comparison(A, B[:5])
    with pytest.raises(ValueError, match=">= 2"):
        paired_comparison(A[:1], B[:1])
    with pytest.raises(ValueError, match="n_boot"):
        paired_comparison(A, B, n_boot=10)


def _probe() -> ProbeResult:
    n = 50
    correct = np.stack([_bools(k, n) for k in (25, 43, 45, 40)])  # 0.5, 0.86, 0.9, 0.8
    margins = np.array([0.0, 0.1, 0.3, 0.4])  # half the maximum: 0.2
    return ProbeResult(4, correct, np.repeat(margins[:, None], n, axis=1))


def test_probe_layers_by_hand() -> None:
    pr = _probe()
    assert pr.peak_layer() == 2
    assert pr.reach_layer(0.05) == 1  # 0.86 >= 0.9 - 0.05
    assert pr.reach_layer(0.0) == 2
    assert pr.alignment_onset() == 2  # 0.3 and 0.4 are >= 0.2, from layer 2 on
    s = pr.summary(0.05)
    assert (s["probe_peak"], s["probe_reach"], s["align_half"], s["order"]) == (2, 1, 2, "before")
    best = s["probe_best"]
    assert best.value == 0.9 and best.n == 50 and best.method == "Wilson"
    assert (best.low, best.high) == pytest.approx(_wilson(45, 50))
    assert pr.summary(0.0)["order"] == "not before"  # 2 is not before 2
    with pytest.raises(ValueError, match="tol"):
        pr.reach_layer(-0.1)


def test_alignment_onset_counts_from_where_it_stays_above_half() -> None:
    def onset(m: list[float]) -> int:
        a = np.repeat(np.array(m)[:, None], 3, axis=1)
        return ProbeResult(1, np.ones((len(m), 3), bool), a).alignment_onset()

    assert onset([0.3, 0.1, 0.3, 0.4]) == 2  # above at 0, dips at 1, above from 2 on
    assert onset([0.3, 0.35, 0.4]) == 0  # every layer above half the maximum
    assert onset([0.1, 0.4, 0.1]) == 3  # the last layer drops out: no layer from which it stays


def _task_result() -> TaskResult:
    n = 20
    lab = np.tile([[0.2, 0.6]], (4, 1))  # (n_profile, L + 1): mass at the last layer 0.6
    neff = np.array([[9.0, 3.0], [9.0, 5.0], [9.0, 1.0], [9.0, 4.0]])  # median of 3, 5, 1, 4: 3.5
    return TaskResult(
        task="sst2", source="examples", model="m",
        split=Split("sst2", 0, np.arange(2), np.arange(2, 4), np.arange(4, 24), np.arange(24, 30)),
        ks=(1, 4), n_prefixes=4, label_words=("negative", "positive"), layers=[1, 2],
        lambdas=np.array([0.1, 1.0]),
        correct_zero=_bools(10, n),
        correct_icl={1: _bools(12, n), 4: _bools(14, n)},
        correct_add={1: _bools(11, n), 4: _bools(18, n)},
        acc_sel={}, acc_test={}, chosen={1: (1, 0.1), 4: (19, 0.1778279410038923)},
        profile_zero={"label_mass": lab, "neff_entropy": neff},
        profile_icl={"label_mass": 1.5 * lab, "neff_entropy": neff / 2},
        probe=_probe(),
    )  # fmt: skip


def test_task_summary_holds_the_pages_labels() -> None:
    s = _task_result().summary(tol=0.05)
    assert s["n"] == 20
    assert s["mass_zero"] == pytest.approx(0.6) and s["mass_icl"] == pytest.approx(0.9)
    assert s["neff_zero"] == 3.5 and s["neff_icl"] == 1.75
    for key, k in (("zero", 10), ("1icl", 12), ("4icl", 14), ("add1", 11), ("add4", 18)):
        e = s[key]
        assert e.value == k / 20 and e.n == 20 and e.method == "Wilson"
        assert (e.low, e.high) == pytest.approx(_wilson(k, 20))
    # additive (4-shot c) against zero-shot and 4-shot ICL: nested outcomes, so every
    # discordant pair favours the additive score
    assert s["diff_zero"].value == pytest.approx(0.4) and s["diff_icl"].value == pytest.approx(0.2)
    assert s["diff_zero_p"] == pytest.approx(2 * 0.5**8)  # 8 discordant, all one way
    assert s["diff_icl_p"] == pytest.approx(2 * 0.5**4)
    assert s["vs_zero"] == "above" and s["vs_icl"] == "above"
    assert s["chosen"] == "ℓ = 19, λ = 0.178"
    assert s["probe_reach"] == 1 and s["order"] == "before"
    assert all(isinstance(v, (Estimate, int, float, str)) for v in s.values())
    assert _task_result().summary(1)["chosen"] == "ℓ = 1, λ = 0.1"
    with pytest.raises(KeyError, match="k must be one of"):
        _task_result().summary(2)


def _lama() -> LamaResult:
    layers = np.arange(0, 31, 3)  # 0 .. 30; late (>= 22.5): 24, 27, 30
    prob = np.zeros((2, len(layers), 3))
    prob[0] = layers[:, None] / 100  # supportive: late mean (0.24 + 0.27 + 0.30) / 3 = 0.27
    prob[1] = 0.1
    eff = LamaEffect(np.array([1.0, 1.5, 2.0]), layers, -prob, prob, prob / 10, -0.12, 0.12, 0.01)
    return LamaResult(
        source="examples", model="m", k=4, n_prefixes=4, seed=0, items=np.arange(10),
        correct_zero=_bools(5, 10), correct_plus=_bools(7, 10), correct_minus=_bools(2, 10),
        effect=eff, counts={"queries": 10, "capitals": 8}, n_layers=30,
    )  # fmt: skip


def test_lama_summary_and_report() -> None:
    lama = _lama()
    assert lama.late_prob() == pytest.approx((0.27, 0.1))
    s = lama.summary()
    assert (s["n"], s["queries"], s["capitals"]) == (10, 10, 8)
    assert (s["zero"].value, s["plus"].value, s["minus"].value) == (0.5, 0.7, 0.2)
    assert s["p0"] == 0.12 and s["pplus"] == pytest.approx(0.27) and s["sep"] == "above"
    lo, hi = _wilson(5, 10)
    lines = str(lama).splitlines()
    assert lines[0] == f"whole-word top-1, zero-shot        0.500 [{lo:.3f}, {hi:.3f}]  (n = 10)"
    assert lines[1].startswith("whole-word top-1, 4 correct demos  0.700 [0.397, 0.892]")
    assert lines[3] == "  queries                    10"
    with pytest.raises(ValueError, match="top"):
        lama.late_prob(0.0)
