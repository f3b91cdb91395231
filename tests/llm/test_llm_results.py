"""Chapter 6's measured numbers: paired comparisons and the results' summaries (no model needed).

Every rate is an :class:`assocmem.estimate.Estimate` made by :func:`assocmem.stats.rate` (Wilson);
a paired comparison's difference is an Estimate with the paired-bootstrap interval; the results'
``summary()`` mappings hold the labels the page glues (``glue_all``). Expected values are worked
out by hand here, or computed independently (scipy's Wilson interval, the bootstrap written out).
"""

from __future__ import annotations

import dataclasses
import itertools
import re

import numpy as np
import pytest
from assocmem.estimate import Estimate, Result, Verdict, verdict
from assocmem.llm.claims import (
    READINGS,
    ClassificationClaims,
    collapse_reading,
    share_verdict,
    share_words,
)
from assocmem.llm.evaluation import PairedComparison, paired_comparison
from assocmem.llm.plots import claim_lines, findings_table, verdict_table
from assocmem.llm.probes import LamaEffect
from assocmem.llm.prompts import Split
from assocmem.llm.protocol import Chapter6Protocol
from assocmem.llm.results import (
    Chapter6Run,
    LamaResult,
    ProbeResult,
    TaskResult,
    format_share,
    format_words,
    order_words,
)
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

    assert comp(0.01, 0.09).verdict is Verdict.ABOVE
    assert comp(-0.09, -0.01).verdict is Verdict.BELOW
    assert comp(-0.01, 0.09).verdict is Verdict.UNRESOLVED
    assert comp(0.0, 0.09).verdict is Verdict.UNRESOLVED  # an end on 0 resolves nothing
    assert str(comp(0.02, 0.08)) == "+0.050 [+0.020, +0.080], McNemar p = 0.0021"
    s = comp(0.02, 0.08).summary()
    assert s["verdict"] == "above" and s["p"] == 0.0021 and (s["only_a"], s["only_b"]) == (30, 10)
    assert s["diff"].value == 0.05
    # no discordant pair: the McNemar p-value is 1
    same = paired_comparison(A, A)  # no discordant pair: p = 1 and the exact bound, not [0, 0]
    assert same.p_mcnemar == 1.0 and same.verdict is Verdict.UNRESOLVED
    assert same.difference.high == pytest.approx(1 - 0.025 ** (1 / len(A)))


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
    within = "not resolved (within 2 layers)"  # one layer apart: the page's rule, 2 layers
    assert (s["probe_peak"], s["probe_reach"], s["align_half"], s["order"]) == (2, 1, 2, within)
    assert pr.summary(0.05, order_layers=0)["order"] == "separability first"
    best = s["probe_best"]
    assert best.value == 0.9 and best.n == 50 and best.method == "Wilson"
    assert (best.low, best.high) == pytest.approx(_wilson(45, 50))
    assert pr.summary(0.0, order_layers=0)["order"] == "not resolved (within 0 layers)"  # 2, 2
    with pytest.raises(ValueError, match="order_layers must be an integer >= 0, got -1"):
        pr.summary(order_layers=-1)
    with pytest.raises(ValueError, match="tol"):
        pr.reach_layer(-0.1)


def test_order_words_by_one_rule() -> None:
    # more than order_layers apart: ordered; at most: not resolved; onset 0: none seen
    assert order_words(7, 10, 2) == "separability first"  # 3 layers earlier
    assert order_words(8, 10, 2) == "not resolved (within 2 layers)"  # exactly 2
    assert order_words(12, 10, 2) == "not resolved (within 2 layers)"
    assert order_words(13, 10, 2) == "alignment first"
    assert order_words(10, 10, 0) == "not resolved (within 0 layers)"
    assert order_words(9, 10, 0) == "separability first"
    assert order_words(5, 0, 2) == "no onset seen"
    assert order_words(np.int64(3), np.int64(9), 2) == "separability first"
    with pytest.raises(ValueError, match="order_layers must be an integer >= 0, got -1"):
        order_words(1, 5, -1)
    with pytest.raises(TypeError, match="reach must be an integer, got float"):
        order_words(1.0, 5, 2)
    with pytest.raises(ValueError, match="onset must be an integer >= 0, got -2"):
        order_words(1, -2, 2)
    with pytest.raises(ValueError, match="order_layers must be an integer >= 0, got -1"):
        Chapter6Protocol(order_layers=-1)
    with pytest.raises(TypeError, match="order_layers must be an integer, got float"):
        Chapter6Protocol(order_layers=2.0)


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


def test_task_summary_without_sets_gives_wilson_rates() -> None:
    """A result without a set assignment (a hand-made one) still summarises, with Wilson."""
    s = _task_result().summary(protocol=Chapter6Protocol(reach_tol=0.05))
    assert s["n"] == 20 and s["k"] == 4
    assert s["neff_zero"] == 3.5 and s["neff_icl"] == 1.75
    for key, k in (("zero", 10), ("icl", 14), ("add", 18)):
        e = s[key]
        assert e.value == k / 20 and e.n == 20 and e.method == "Wilson"
        assert (e.low, e.high) == pytest.approx(_wilson(k, 20))
    # additive (4-shot c) against zero-shot and 4-shot ICL: nested outcomes, so every
    # discordant pair favours the additive score
    assert s["diff_zero_p"] == pytest.approx(2 * 0.5**8)  # 8 discordant, all one way
    assert s["diff_icl_p"] == pytest.approx(2 * 0.5**4)
    assert s["chosen"] == "ℓ = 19, λ = 0.178"
    assert s["probe_reach"] == 1 and s["order"] == "not resolved (within 2 layers)"
    s0 = _task_result().summary(protocol=Chapter6Protocol(reach_tol=0.05, order_layers=0))
    assert s0["order"] == "separability first"
    assert all(isinstance(v, (Estimate, int, float, str)) for v in s.values())
    assert _task_result().summary(1)["chosen"] == "ℓ = 1, λ = 0.1"
    with pytest.raises(KeyError, match="k must be one of"):
        _task_result().summary(2)
    with pytest.raises(ValueError, match="claims need"):
        _task_result().claims()


def _controls_result(zero: int, icl: int, add: int, wrong: int) -> TaskResult:
    """32 test queries in 4 demonstration sets (query i in set i mod 4), outcomes by count."""
    n = 32

    def spread(k: int) -> np.ndarray:  # the first k queries correct, for every method
        out = np.zeros(n, bool)
        out[:k] = True
        return out

    base = _task_result()
    return dataclasses.replace(
        base, ks=(4,), correct_zero=spread(zero), correct_icl={4: spread(icl)},
        correct_add={4: spread(add)}, chosen={4: (19, 0.1778279410038923)},
        sets=np.arange(n) % 4, correct_cal=spread(zero), correct_wrong=spread(wrong),
        vocab_zero=spread(0), vocab_icl=spread(icl), mass_zero=np.full(n, 0.1),
        mass_icl=np.linspace(0.5, 0.9, n),
        split=Split("sst2", 0, np.arange(2), np.arange(2, 4), np.arange(4, 4 + n),
                    np.arange(40, 46)),
    )  # fmt: skip


def test_claims_with_sets_give_the_known_differences_and_verdicts() -> None:
    r = _controls_result(zero=4, icl=28, add=16, wrong=8)
    c = r.claims()
    v = c.verdicts()
    assert c.gain_zero.value == pytest.approx(24 / 32) and v["gain_zero"] is Verdict.ABOVE
    assert c.labels.value == pytest.approx(20 / 32) and v["labels"] is Verdict.ABOVE
    assert c.mass_gain.value == pytest.approx(0.6) and v["mass_gain"] is Verdict.ABOVE
    assert c.collapsed and c.collapse is Verdict.ABOVE
    # mass 0.5 .. 0.9 (mean 0.7): a collapse above 0.5, not above 0.8
    assert not r.claims(collapse_mass=0.8).collapsed
    assert c.add_cal.value == pytest.approx(12 / 32)  # calibrated = zero-shot here
    rec = c.recovered  # (add - zero) / (icl - zero) = 12 / 24
    assert isinstance(rec, Estimate) and rec.value == pytest.approx(0.5)
    assert 0 < rec.low < 0.5 < rec.high < 1
    assert c.share == (Verdict.ABOVE, Verdict.BELOW)
    assert c.summary()["v_recovered"] == "above 0, below 1"
    assert "two-stage" in c.gain_zero.method and c.gain_zero.n == 32
    s = r.summary()
    assert s["zero"].method == "Wilson" and "two-stage" in s["icl"].method  # set-free: Wilson
    assert s["sets"] == 4 and s["icl_sets"].count(",") == 3
    assert [e.value for e in r.per_set()] == [7 / 8] * 4  # 28 correct: the first 28 queries
    # no gain, nothing to recover: the claim is not tested, and says so
    flat = _controls_result(zero=16, icl=16, add=20, wrong=8).claims()
    assert flat.recovered is None and flat.summary()["v_recovered"] == "not testable"
    assert "recovered" not in flat.summary()
    assert flat.verdicts()["gain_zero"] is Verdict.UNRESOLVED
    worse = _controls_result(zero=28, icl=4, add=20, wrong=8).claims()
    assert worse.verdicts()["gain_zero"] is Verdict.BELOW
    # the verdict table fits the page's output box (82 columns at 1280 px; test_html)
    run = Chapter6Run(Chapter6Protocol(), {"a-model": [r, _controls_result(16, 16, 20, 8)]})
    table = verdict_table(run)
    assert max(map(len, table.splitlines())) <= 80 and "not resolved vs 0" in table
    assert table.splitlines()[0] == "m"  # headed by the model that ran, not the mapping's key


def test_methods_that_agree_on_every_query_get_an_interval_not_a_point() -> None:
    """Additive = zero-shot on all 32 queries: every resample gives 0, so the bootstrap's [0, 0]
    is replaced by the exact bound 1 - 0.025 ** (1 / 32) on the discordance rate (the rule of
    three's value 3.69 / n at this n), and the share of ICL's gain recovered is bounded by it over
    the gain's lower end."""
    c = _controls_result(zero=4, icl=28, add=4, wrong=8).claims()
    u = 1 - 0.025 ** (1 / 32)
    add_zero = c.add_zero
    assert (add_zero.value, add_zero.low, add_zero.high) == pytest.approx((0.0, -u, u))
    assert add_zero.n == 32 and "no discordant" in add_zero.method
    assert c.verdicts()["add_zero"] is Verdict.UNRESOLVED
    rec, gain = c.recovered, c.gain_zero
    assert isinstance(rec, Estimate) and rec.value == 0.0 and rec.level == 0.95
    assert rec.high == pytest.approx(u / gain.low) and rec.low == -rec.high
    assert c.share == (Verdict.UNRESOLVED, Verdict.BELOW)
    # methods that differ somewhere keep the two-stage bootstrap
    assert "two-stage" in c.add_icl.method and c.add_icl.low < c.add_icl.high


def test_one_shot_on_the_same_sets_gives_the_paired_difference_of_more_shots() -> None:
    r = _controls_result(zero=4, icl=28, add=16, wrong=8)
    assert r.claims().shots is None and "shots" not in r.claims().summary()
    one = np.zeros(32, bool)
    one[:12] = True  # 1-shot: the first 12 queries right; 4-shot: the first 28
    r1 = dataclasses.replace(r, correct_one=one)
    c = r1.claims()
    assert c.shots is not None and c.shots.value == pytest.approx(16 / 32)
    assert c.shots.low > 0 and c.verdicts()["shots"] is Verdict.ABOVE
    assert "two-stage" in c.shots.method
    s = r1.summary()
    assert s["v_shots"] is Verdict.ABOVE and s["one"].value == pytest.approx(12 / 32)
    labels = [row.label for row in c.rows()]
    assert labels.index("acc. ICL - 1-shot ICL") == labels.index("acc. ICL - zero-shot") + 1
    assert "1-shot ICL (same sets)" in r1.rates()


def test_the_collapse_is_the_papers_reading_only_with_a_gain_above_zero() -> None:
    """Issue 39 item 12: a collapse whose gain is not resolved is not the paper's reading."""
    assert collapse_reading(True, _est(0.05, 0.3)) == READINGS[Verdict.ABOVE]
    assert collapse_reading(True, _est(-0.293, 0.017)) == "collapse, gain not resolved"
    assert collapse_reading(True, _est(0.0, 0.3)) == "collapse, gain not resolved"
    assert collapse_reading(True, _est(-0.3, -0.05)) == "collapse, gain below 0"
    assert collapse_reading(False, _est(0.05, 0.3)) == "no collapse"
    c = _controls_result(zero=4, icl=28, add=16, wrong=8).claims()
    assert c.collapsed and c.reading == READINGS[Verdict.ABOVE] == c.summary()["reading"]
    flat = _controls_result(zero=16, icl=16, add=16, wrong=8).claims()  # ICL = zero-shot
    assert flat.collapsed and flat.reading == "collapse, gain not resolved"


def _run() -> Chapter6Run:
    """Two tasks of one model: ICL helps on SST-2, not on TREC (the same outcomes otherwise)."""
    r = _controls_result(zero=4, icl=28, add=16, wrong=8)
    flat = dataclasses.replace(_controls_result(zero=16, icl=16, add=16, wrong=8), task="trec")
    return Chapter6Run(Chapter6Protocol(), {"m": [r, flat]})


def test_findings_table_writes_each_estimate_with_its_verdict() -> None:
    run = _run()
    r = run.tasks["m"][0]
    t = findings_table(run, {"ICL - zero": "gain_zero", "reading": "reading"})
    lines = str(t).splitlines()
    assert len(lines) == 3 and lines[0].split() == ["model", "task", "ICL", "-", "zero", "reading"]
    assert lines[1].split()[:2] == ["m", "SST-2"] and lines[2].split()[:2] == ["m", "TREC"]
    gain = r.claims().gain_zero
    assert f"+{gain.value:.3f} [+{gain.low:.3f}, +{gain.high:.3f}] above" in lines[1]
    assert lines[1].endswith("collapse, gain above 0")
    assert "+0.000" in lines[2] and lines[2].endswith("collapse, gain not resolved")
    with pytest.raises(KeyError, match="has no 'shots'"):
        findings_table(run, {"more shots": "shots"})


def test_the_run_answers_the_pages_questions_across_models_and_tasks() -> None:
    """The counts the page states: pairs, collapses by the verdict of ICL's gain, testable shares,
    the protocol's thresholds; and each result keeps the protocol that made it."""
    run = _run()
    assert isinstance(run, Result)
    s = run.summary()
    assert (s["pairs"], s["mass_rises"], s["collapses"], s["shares"]) == (2, 2, 2, 1)
    assert (s["collapse_gain"], s["collapse_unresolved"], s["collapse_loss"]) == (1, 1, 0)
    assert s["reading_gain"] == READINGS[Verdict.ABOVE] and s["not_testable"] == "not testable"
    assert s["collapse_mass"] == run.protocol.collapse_mass and s["late_pct"] == 25
    assert run.findings()[("m", "sst2")]["v_gain_zero"] is Verdict.ABOVE
    assert run.findings()[("m", "trec")]["v_gain_zero"] is Verdict.UNRESOLVED
    # a stricter collapse threshold in the run's protocol reaches every summary
    strict = Chapter6Run(Chapter6Protocol(collapse_mass=0.8), run.tasks)
    assert strict.summary()["collapses"] == 0 and strict.summary()["collapse_mass"] == 0.8
    # a result that holds its protocol uses it by default
    r = dataclasses.replace(run.tasks["m"][0], protocol=Chapter6Protocol(collapse_mass=0.8))
    assert not r.claims().collapsed and r.claims(collapse_mass=0.5).collapsed


def test_format_share_and_its_words_follow_the_number() -> None:
    assert format_share(0.1, 0.5, 0.4) == pytest.approx(0.75)
    assert format_share(0.1, 0.5, 0.2) == pytest.approx(0.25)
    assert format_share(0.1, 0.5, 0.0) == pytest.approx(-0.25)  # wrong capitals hurt
    assert format_share(0.5, 0.5, 0.9) is None and format_share(0.5, 0.4, 0.9) is None
    assert format_words(0.75) == format_words(0.5)
    assert format_words(0.5).startswith("mostly the format of the answer")
    assert format_words(0.25) == format_words(-0.25) == "mostly the facts shown"
    assert format_words(None).startswith("undefined")


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
    assert s["p0"] == 0.12 and s["pplus"] == pytest.approx(0.27)
    assert s["late"] == "24, 27, 30"  # layers 0 .. 30 in steps of 3, late: >= 22.5
    # wrong capitals: 0.2 against 0.5 zero-shot and 0.7 correct: (0.2 - 0.5) / (0.7 - 0.5)
    assert (
        s["format_share"] == pytest.approx(-1.5) and s["format_words"] == "mostly the facts shown"
    )
    lo, hi = _wilson(5, 10)
    lines = str(lama).splitlines()
    assert lines[0] == f"whole-word top-1, zero-shot        0.500 [{lo:.3f}, {hi:.3f}]  (n = 10)"
    assert lines[1].startswith("whole-word top-1, 4 correct demos  0.700 [0.397, 0.892]")
    assert lines[3] == "  queries                    10"
    with pytest.raises(ValueError, match="top"):
        lama.late_prob(0.0)


#: Made-up intervals of a difference: wholly below, ends exactly on 0, across 0, wholly above.
_DIFFS = [(-0.2, -0.05), (-0.1, 0.0), (0.0, 0.281), (-0.1, 0.1), (0.05, 0.3)]
#: Made-up intervals of the share: ends exactly on 0 and on 1, inside, across, beyond.
_SHARES = [(1.0, 4.01), (0.0, 1.0), (0.2, 0.9), (1.1, 2.0), (-0.5, 0.5), (0.0, 0.5), (-0.4, -0.1)]
_LINE = re.compile(r"^  .{8} (?P<label>.{22}) (?P<text>\S+(?: \[\S+, \S+\])?)?\s+(?P<words>.+)$")


def _est(low: float, high: float) -> Estimate:
    return Estimate((low + high) / 2, low, high, 32, "made up")


def _words_of(text: str, words: str) -> Verdict | None:
    """The verdict the printed interval allows against the reference its words name."""
    m = re.fullmatch(r"\S+ \[(\S+), (\S+)\]", text or "")
    ref = float(words.split()[-1])
    if m is None:
        return None
    lo, hi = float(m.group(1)), float(m.group(2))
    return verdict(Estimate((lo + hi) / 2, lo, hi, 2, "printed"), ref)


def test_no_row_of_the_verdict_table_calls_one_piece_of_evidence_two_ways() -> None:
    """Every combination of made-up intervals (ends exactly on 0 and on 1 included): each line's
    words are the strict verdict of its own printed interval, and the share's two verdicts are
    those of additive - zero-shot and additive - ICL. Regression: the share 1.53 [1.00, 4.01] was
    "all, or more" beside additive - ICL +0.125 [+0.000, +0.281] "not distinguishable"."""
    checked = 0
    for gain, add_zero, add_icl, share, mass in itertools.product(
        _DIFFS, _DIFFS, _DIFFS, _SHARES, [(0.4, 0.5), (0.5, 0.7), (0.55, 0.9)]
    ):
        c = ClassificationClaims(
            mass_gain=_est(*add_zero), mass_icl=_est(*mass), gain_zero=_est(*gain),
            gain_cal=_est(*gain), labels=_est(*add_icl), add_zero=_est(*add_zero),
            add_cal=_est(*add_icl), add_icl=_est(*add_icl), recovered=_est(*share),
            collapse_mass=0.5,
        )  # fmt: skip
        lines = claim_lines("SST-2", c.rows())
        parsed = [_LINE.match(line) for line in lines]
        assert all(parsed), lines
        by_label = {m["label"].strip(): m for m in parsed if m["label"].strip()}
        for m in parsed:  # a line's words never contradict its own printed interval
            if m["words"] == "not testable":
                continue
            own = _words_of(m["text"], m["words"])
            if own is not None:
                assert m["words"].startswith(own.value), (m["text"], m["words"])
        share_lines = [m for m in parsed if m["label"].strip() in ("share of ICL's gain", "")]
        if verdict(_est(*gain)) is not Verdict.ABOVE:
            assert [m["words"] for m in share_lines] == ["not testable"]
            continue
        vs_zero, vs_one = (m["words"] for m in share_lines)
        # the share against 0 is additive - zero-shot against 0; against 1, additive - ICL
        assert vs_zero == by_label["additive - zero-shot"]["words"]
        assert vs_one.rsplit(" ", 1)[0] == by_label["additive - ICL"]["words"].rsplit(" ", 1)[0]
        assert vs_one.endswith(" 1") and vs_zero.endswith(" 0")
        assert c.summary()["v_recovered"] == f"{vs_zero}, {vs_one}"
        checked += 1
    assert checked == 1 * 5 * 5 * 7 * 3  # every combination with a gain above 0 was checked
    # the regression case: the share's end on 1 and additive - ICL's end on 0 agree
    assert share_words(share_verdict(_est(0.05, 0.3), _est(0.1, 0.4), _est(0.0, 0.281))) == (
        "above 0, not resolved vs 1"
    )
    assert share_words(share_verdict(_est(0.0, 0.3), _est(0.1, 0.4), _est(0.0, 0.281))) == (
        "not testable"  # a gain with its end on 0 is not above 0
    )
