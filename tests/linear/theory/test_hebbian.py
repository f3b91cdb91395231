"""Tests of assocmem.linear.theory.hebbian: exact score moments, recall theory, thresholds, bad
inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.estimate import Verdict, verdict
from assocmem.linear.measure.scores import simulate_scores
from assocmem.linear.theory.hebbian import (
    recall_probability,
    score_densities,
    score_moments,
    threshold,
    threshold_table,
)
from assocmem.streams import child


@pytest.mark.parametrize("embedding", ["gaussian", "spherical"])
@pytest.mark.parametrize(("p", "d"), [(10, 8), (40, 16)])
def test_moments_match_simulation(embedding: str, p: int, d: int) -> None:
    sim = simulate_scores(p, d, embedding=embedding, n_instances=3000, seed=1)
    mom = score_moments(p, d, embedding=embedding)
    # instance means are independent: standard errors from the spread of per-instance estimates
    for kind in ("target", "nontarget"):
        x = sim[kind].reshape(3000, -1).numpy()
        mean_i, var_i = x.mean(1), x.var(1)
        se_mean = mean_i.std(ddof=1) / math.sqrt(len(mean_i))
        # pooled variance about the known mean, per instance, then averaged
        m0 = mom[f"{kind}_mean"]
        pooled = ((x - m0) ** 2).mean(1)
        se_var = pooled.std(ddof=1) / math.sqrt(len(pooled))
        assert abs(mean_i.mean() - m0) < 4 * se_mean + 1e-12
        assert abs(pooled.mean() - mom[f"{kind}_var"]) < 4 * se_var, (kind, pooled.mean())
        assert var_i.mean() > 0


def test_moments_exact_values_and_issue_formula_rejected() -> None:
    m = score_moments(10, 8)
    assert m["target_mean"] == 1.0 and m["nontarget_mean"] == 0.0
    assert m["target_var"] == pytest.approx(13 / 64 + 0.5)
    assert m["nontarget_var"] == pytest.approx(12 / 64 + 0.25)
    # the O(1/d^2)-truncated formulas ((p-1)/d^2 + 4/d, (p-2)/d^2 + 2/d) are off by 4/d^2: at
    # d = 8 simulation resolves this (checked in test_moments_match_simulation with 4 s.e.)
    sim = simulate_scores(10, 8, n_instances=6000, seed=3)
    nt = sim["nontarget"].numpy()
    truncated = 8 / 64 + 2 / 8
    assert abs(nt.var() - m["nontarget_var"]) < abs(nt.var() - truncated)
    s = score_moments(10, 8, embedding="spherical")
    assert s["target_var"] == pytest.approx(9 / 64)
    lead = score_moments(np.array([10, 20]), 8, embedding="leading")
    np.testing.assert_allclose(lead["target_var"], [10 / 64, 20 / 64])
    np.testing.assert_allclose(lead["sigma_w2"], [10 / 64, 20 / 64])


def test_recall_theory_against_simulation() -> None:
    # "all" = P_1^p treats the inputs as independent: at p = 60, d = 64 it says 0.711 where 2000
    # instances give 0.622 +- 0.011 (chapter 3 measures this gap); with 400 instances (standard
    # error 0.024) the tolerance is that bias plus 2.5 standard errors, and the sign is checked
    d = 64
    for p, tol_typ, tol_all in [(60, 0.01, 0.15), (200, 0.03, 0.01)]:
        sim = simulate_scores(p, d, n_instances=400, seed=5)
        ok = sim["target"] > sim["nontarget"].max(-1).values
        acc, perfect = ok.double().mean().item(), ok.all(-1).double().mean().item()
        assert recall_probability(p, d, criterion="typical") == pytest.approx(acc, abs=tol_typ)
        assert recall_probability(p, d, criterion="all") == pytest.approx(perfect, abs=tol_all)
        assert recall_probability(p, d, criterion="all") >= perfect


def test_recall_probability_monotone_in_p_and_criteria_ordered() -> None:
    p = np.array([20, 50, 100, 200, 400])
    typ = recall_probability(p, 64, criterion="typical")
    allp = recall_probability(p, 64, criterion="all")
    assert np.all(np.diff(typ) < 0) and np.all(np.diff(allp) <= 0)
    assert np.all(allp <= typ)


def test_thresholds_approach_asymptotes() -> None:
    ps = [1e3, 1e5, 1e8, 1e12]
    for crit, asym in (("all", 1 / 8), ("typical", 1 / 2)):
        lead = [threshold(p, criterion=crit, embedding="leading") for p in ps]
        assert np.all(np.diff(lead) < 0), (crit, lead)
        assert all(x > asym for x in lead)
        assert lead[-1] - asym < (0.012 if crit == "all" else 0.06)
        # with the 1/d terms the thresholds are lower at small p and merge at large p
        gauss = [threshold(p, criterion=crit, embedding="gaussian") for p in (1e3, 1e12)]
        assert gauss[0] < lead[0]
        assert gauss[1] == pytest.approx(lead[-1], abs=2e-3)
        # decreasing toward the asymptote at large p
        assert threshold(1e8, criterion=crit) > gauss[1] > asym
    assert threshold(1e6, criterion="all") < threshold(1e6, criterion="typical") / 3


def test_threshold_is_where_probability_is_one_half() -> None:
    p = 500
    for crit in ("all", "typical"):
        a = threshold(p, criterion=crit)
        d = math.sqrt(p * math.log(p) / a)
        assert recall_probability(p, d, criterion=crit) == pytest.approx(0.5, abs=1e-4)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: score_moments(1, 8), ValueError, r"p must be finite and >= 2\.0, got 1"),
        (lambda: score_moments(10, 0), ValueError, r"d must be finite and >= 1\.0, got 0"),
        (lambda: score_moments(10, 8, embedding="uniform"), ValueError,
         r"embedding must be one of \('gaussian', 'spherical', 'leading'\), got 'uniform'"),
        (lambda: recall_probability(10, 8, criterion="most"), ValueError,
         r"criterion must be one of \('all', 'typical'\), got 'most'"),
        (lambda: threshold(2), ValueError, r"p must be in \[3, 1e30\] \(quadrature range\), got 2"),
        (lambda: threshold(1e40), ValueError, r"p must be in \[3, 1e30\].*, got 1e\+40"),
        (lambda: threshold(float("nan")), ValueError, r"p must be in \[3, 1e30\].*, got nan"),
        (lambda: threshold("100"), TypeError, r"p must be a number, got str"),  # type: ignore[arg-type]
        (lambda: simulate_scores(10, 8, embedding="leading"), ValueError,
         r"embedding must be 'gaussian' or 'spherical', got 'leading'"),
        (lambda: simulate_scores(1, 8), ValueError, r"p must be an integer >= 2, got 1"),
    ],
)  # fmt: skip
def test_bad_inputs_raise(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()


def test_score_densities_normalised_and_match_simulation() -> None:
    p, d = 289, 64
    x = np.linspace(-2.0, 4.0, 601)
    den = score_densities(x, p, d)
    for key in ("target", "max_competitor"):
        assert np.trapezoid(den[key], x) == pytest.approx(1.0, abs=1e-3)
    sim = simulate_scores(p, d, n_instances=20, seed=0)
    m = sim["nontarget"].max(-1).values.numpy().ravel()
    mean_th = np.trapezoid(x * den["max_competitor"], x)
    sd_th = np.sqrt(np.trapezoid((x - mean_th) ** 2 * den["max_competitor"], x))
    assert mean_th == pytest.approx(m.mean(), abs=0.02)
    assert sd_th == pytest.approx(m.std(), rel=0.2)
    with pytest.raises(ValueError, match=r"p must be finite and >= 2\.0, got 1"):
        score_densities(x, 1, d)


def test_recall_check_matches_a_direct_recount() -> None:
    """hebbian_recall_check's rates and pair share, recounted input by input from the scores."""
    from assocmem.linear.measure.scores import hebbian_recall_check

    d, p, n = 12, 30, 40
    row = hebbian_recall_check(d, [p], n_instances=n, seed=3, n_boot=200).iloc[0]
    sim = simulate_scores(p, d, n_instances=n, seed=child(3, p, 0))  # the row's own stream
    t, c = sim["target"].numpy(), sim["nontarget"].numpy()
    fails, pairs, n_all = 0, 0, 0
    recalled = np.zeros((n, p), dtype=bool)
    for b in range(n):
        for mu in range(p):
            recalled[b, mu] = t[b, mu] > c[b, mu].max()
        n_all += recalled[b].all()
        for mu in range(p):
            if not recalled[b, mu]:
                others = [nu for nu in range(p) if nu != mu]
                nu = others[int(np.argmax(c[b, mu]))]
                fails += 1
                pairs += not recalled[b, nu]
    assert row["sim_all"].value == n_all / n and row["sim_all"].method == "Wilson"
    assert row["sim_acc"].value == pytest.approx(recalled.mean())
    assert row["fail_rate"] == pytest.approx(1 - recalled.mean())
    assert row["pair_share"].value == pytest.approx(pairs / fails)
    assert row["pair_share"].n == fails and row["pair_share"].method.startswith("Wilson")
    assert row["indep_all"] == pytest.approx(recalled.mean() ** p)
    assert row["indep_gap"].value == pytest.approx(n_all / n - recalled.mean() ** p)
    # the theory columns are the module's theory; z is in binomial standard errors
    p1 = recall_probability(p, d, criterion="typical")
    assert row["theory_p1"] == pytest.approx(p1)
    assert row["theory_all"] == pytest.approx(recall_probability(p, d, criterion="all"))
    se = math.sqrt(row["theory_all"] * (1 - row["theory_all"]) / n)
    assert row["z_all"] == pytest.approx((row["theory_all"] - n_all / n) / se)
    assert row["load"] == pytest.approx(p * math.log(p) / d**2)


def test_recall_check_without_failures_and_bad_sizes() -> None:
    """No failures: P(all) = 1 and no pair share; one instance gives no interval."""
    from assocmem.linear.measure.scores import hebbian_recall_check

    # at tiny load nothing fails: P(all) = 1, no pair share can be formed
    row = hebbian_recall_check(64, [3], n_instances=20, n_boot=200).iloc[0]
    assert row["sim_all"].value == 1.0 and math.isnan(row["pair_share"].value)
    with pytest.raises(ValueError, match=r"n_instances must be an integer >= 2, got 1"):
        hebbian_recall_check(64, [10], n_instances=1)


def test_mechanism_comparison_numbers() -> None:
    from assocmem.linear.measure.scores import mechanism_comparison

    stats = {"trained": {"target": np.array([[2.0, 4.0], [3.0, 3.0]])},
             "hebbian": {"target": np.array([[0.0, 2.0], [1.0, 1.0]])}}  # fmt: skip
    out = mechanism_comparison(stats, {"level": np.array([3.5, 4.5])})
    assert out["tr_mean"].value == 3.0 and out["tr_mean"].n == 2
    assert out["rs_mean"] == 4.0 and out["rs_sd"] == pytest.approx(math.sqrt(0.5))
    assert out["shortfall"] == pytest.approx(0.25)
    assert out["shortfall_rs_sd"] == pytest.approx(1 / math.sqrt(0.5))
    assert out["tr_sd"] == pytest.approx(np.std([2, 4, 3, 3], ddof=1))
    with pytest.raises(ValueError, match=r"trained targets must have shape .*, got \(1, 3\)"):
        mechanism_comparison({"trained": {"target": np.ones((1, 3))},
                              "hebbian": {"target": np.ones((2, 3))}},
                             {"level": np.ones(3)})  # fmt: skip


def test_recall_check_table_and_summary_read_the_check() -> None:
    from assocmem.linear.measure.scores import (
        hebbian_recall_check,
        recall_check_summary,
        recall_check_table,
    )

    check = hebbian_recall_check(16, [20, 30], n_instances=30, n_boot=200)
    tab = recall_check_table(check)
    assert tab["p"].tolist() == [20, 30] and len(tab.columns) == 14
    e = check["sim_all"].iloc[1]
    assert tab["P(all) simulated [95 %]"].iloc[1] == f"{e.value:.3f} [{e.low:.3f}, {e.high:.3f}]"
    s = recall_check_summary(check)
    assert (s["n"], s["p_lo"], s["p_hi"]) == (30, 20, 30)
    # the comparisons with the theory are verdicts of the differences, counted over the loads
    diff = check["diff_all"].iloc[1]
    assert diff.value == pytest.approx(e.value - check["theory_all"].iloc[1], abs=1e-15)
    assert diff.high - diff.low == pytest.approx(e.high - e.low, rel=1e-12)
    below = [verdict(d) is Verdict.BELOW for d in check["diff_all"]]
    assert s["all_below"] == sum(below) and tab["vs theory"].tolist() == [
        str(verdict(d)) for d in check["diff_all"]]  # fmt: skip
    assert s["p1_below"] == sum(verdict(d) is Verdict.BELOW for d in check["diff_p1"])
    assert s["gap_lo"] <= check["indep_gap"].iloc[0].value <= s["gap_hi"]
    assert s["sim0"] is check["sim_all"].iloc[0]


def test_threshold_table_matches_threshold_and_orders_the_criteria() -> None:
    t = threshold_table([1e3, 1e6])
    assert list(t.columns) == ["p", 'criterion "all"', 'criterion "typical"']
    assert t['criterion "all"'].iloc[1] == threshold(1e6, criterion="all")
    assert np.all(t['criterion "all"'] < t['criterion "typical"'])  # limits 1/8 < 1/2
    with pytest.raises(ValueError, match=r"criterion must be one of .*, got 'most'"):
        threshold_table([1e3], criteria=("most",))


def test_recall_check_crossing_interpolates_the_measured_fractions() -> None:
    """The all-stored crossing of a check: linear interpolation of P(all) between its loads."""
    from assocmem.linear.measure.scores import hebbian_recall_check, recall_check_crossing

    check = hebbian_recall_check(16, [3, 5, 8, 12], n_instances=60, seed=2, n_boot=100)
    x = check["load"].to_numpy()
    y = np.array([e.value for e in check["sim_all"]])
    assert y[0] > 0.5 > y[-1], y  # the loads bracket the crossing (else the test says nothing)
    i = int(np.flatnonzero((y[:-1] >= 0.5) & (y[1:] < 0.5))[0])  # the straddling pair
    by_hand = x[i] + (y[i] - 0.5) / (y[i] - y[i + 1]) * (x[i + 1] - x[i])
    e = recall_check_crossing(check, n_draws=500, seed=0)
    assert e.value == pytest.approx(by_hand, rel=1e-12)
    assert x[0] <= e.low < e.value < e.high <= x[-1]
    assert e.n == 60 and e.method == "Jeffreys posterior"
    # the rows' order does not matter
    assert recall_check_crossing(check.iloc[::-1], n_draws=500, seed=0).value == e.value
    # every instance stored at both loads: no crossing, NaN
    low = hebbian_recall_check(64, [3, 4], n_instances=20, n_boot=100)
    assert [s.value for s in low["sim_all"]] == [1.0, 1.0]
    assert math.isnan(recall_check_crossing(low, n_draws=100).value)
    with pytest.raises(ValueError, match=r"at least 2 loads"):
        recall_check_crossing(check.iloc[:1])
    with pytest.raises(ValueError, match=r"lacks the columns \['sim_all'\]"):
        recall_check_crossing(check.drop(columns="sim_all"))
    with pytest.raises(TypeError, match=r"check must be a DataFrame"):
        recall_check_crossing([1, 2])
