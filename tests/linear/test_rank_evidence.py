"""Tests of chapter 4's rank evidence: truncated Hebbian sweeps (assocmem.linear.sweeps), crossings
bootstrapped over instances (.transitions), rank-m max-margin memories (.max_margin), spectrum
summaries (.measured_spectra), and the chapter-4 figures' layout."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from assocmem.linear.load import load_for_pairs  # noqa: E402
from assocmem.linear.max_margin import (  # noqa: E402
    train_max_margin,
    truncate_rank,
)
from assocmem.linear.measured_spectra import spectrum_summary  # noqa: E402
from assocmem.linear.plots_rank import (  # noqa: E402
    plot_critical_load,
    plot_rank_success,
    plot_singular_values,
)
from assocmem.linear.problems import (  # noqa: E402
    all_recalled,
    normalised_margins,
    score_matrix,
)
from assocmem.linear.sampling import sample_problems  # noqa: E402
from assocmem.linear.spectra import (  # noqa: E402
    critical_load,
    hebbian_critical_load,
    small_kappa_limit,
)
from assocmem.linear.sweeps import COLUMNS, truncated_hebbian_sweep  # noqa: E402
from assocmem.linear.training import hebbian_memory  # noqa: E402
from assocmem.linear.transitions import (  # noqa: E402
    bootstrap_transitions,
    transition_ratio,
)


def _table(outcomes: dict[float, list[bool]], *, rank: int = 4, d: int = 8,
           method: str = "train") -> pd.DataFrame:  # fmt: skip
    """A sweep table with given outcomes per load (seed i = position i)."""
    rows = []
    for a, oks in outcomes.items():
        for s, ok in enumerate(oks):
            rows.append({"method": method, "problem": "op", "d": d, "rank": rank,
                         "kappa": rank / d, "factored": True, "alpha": a, "load": a,
                         "p": 10, "seed": s, "recalled_all": ok, "accuracy": float(ok),
                         "steps": 1, "seconds": 0.0})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


# --- truncation -------------------------------------------------------------------------------


def test_truncate_rank_is_the_eckart_young_projection() -> None:
    g = torch.Generator().manual_seed(0)
    W = torch.randn(3, 10, 10, generator=g, dtype=torch.float64)
    s = torch.linalg.svdvals(W)
    for m in (1, 4, 10):
        Wm = truncate_rank(W, m)
        assert torch.all(torch.linalg.matrix_rank(Wm) == m)
        err = torch.linalg.matrix_norm(W - Wm) ** 2
        assert torch.allclose(err, (s[:, m:] ** 2).sum(-1), atol=1e-10)
        assert torch.allclose(truncate_rank(Wm, m), Wm, atol=1e-10)  # a projection
    with pytest.raises(ValueError):
        truncate_rank(W, 11)
    with pytest.raises(TypeError):
        truncate_rank(W.numpy(), 2)  # type: ignore[arg-type]


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


# --- crossings and their bootstrap ------------------------------------------------------------


def test_bootstrap_of_a_sharp_step_has_no_spread() -> None:
    # every instance stored below 2 and none above: each resample crosses at the midpoint
    t = _table({1.0: [True] * 8, 2.0: [True] * 8, 3.0: [False] * 8})
    b = bootstrap_transitions(t, n_boot=200)
    row = b.summary.iloc[0]
    assert row["alpha_c"] == pytest.approx(2.0 + 0.5)  # interpolated from 1 to 0 between 2 and 3
    assert row["ci_low"] == pytest.approx(2.5) and row["ci_high"] == pytest.approx(2.5)
    assert row["draws_crossing"] == 1.0 and row["n"] == 8


def test_bootstrap_crossing_and_interval_of_a_known_curve() -> None:
    # fractions 1, 3/4, 1/4, 0: the data cross 1/2 at 2.5; resamples stay inside [2, 3]
    t = _table({1.0: [True] * 4, 2.0: [True, True, True, False],
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
    a = _table(outcomes, rank=2, d=8)
    b = _table({2 * k: v for k, v in outcomes.items()}, rank=8, d=8)
    boot = bootstrap_transitions(pd.concat([a, b], ignore_index=True), n_boot=300)
    r = transition_ratio(boot, 0.25, 1.0)
    assert r.value == pytest.approx(0.5)
    assert r.low == pytest.approx(0.5) and r.high == pytest.approx(0.5)
    assert r.used == pytest.approx(boot.summary["draws_crossing"].min())
    with pytest.raises(ValueError):
        transition_ratio(boot, 0.5, 1.0)


def test_bootstrap_rejects_missing_instances() -> None:
    t = _table({1.0: [True] * 4, 2.0: [False] * 4})
    with pytest.raises(ValueError):
        bootstrap_transitions(t.iloc[:-1], n_boot=100)
    with pytest.raises(ValueError):
        bootstrap_transitions(t, n_boot=10)


# --- margins and the max-margin trainer -------------------------------------------------------


def test_gardner_normalised_margin_by_brute_force_and_invariances() -> None:
    b = sample_problems(12, 6, 3)
    W = torch.randn(3, 6, 6, generator=torch.Generator().manual_seed(1))
    got = normalised_margins(W, b, norm="gardner")
    S = score_matrix(W, b).double()
    for i in range(3):
        sigma = torch.linalg.matrix_norm(W[i].double()) / 6
        gaps = [float(S[i, mu, mu] - S[i, mu, nu]) for mu in range(12) for nu in range(12)
                if nu != mu]  # fmt: skip
        assert got[i] == pytest.approx(min(gaps) / float(sigma), rel=1e-5)
    assert np.allclose(normalised_margins(3.7 * W, b, norm="gardner"), got, rtol=1e-5)
    assert np.array_equal(got > 0, all_recalled(W, b))


def test_max_margin_trainer_raises_the_margin_and_keeps_rank_and_norm() -> None:
    d, m = 12, 4
    b = sample_problems(20, d, 3)
    start = normalised_margins(truncate_rank(hebbian_memory(b), m), b, norm="gardner")
    res = train_max_margin(b, m, steps=300, lr=0.02, beta=50.0, check_every=100)
    assert res.weights.shape == (3, d, d)
    s = torch.linalg.svdvals(res.weights.double())
    assert torch.all(s[:, m:] < 1e-4 * s[:, :1])
    assert torch.allclose(torch.linalg.matrix_norm(res.weights), torch.full((3,), float(d)),
                          rtol=1e-5)  # fmt: skip
    assert np.all(res.margin > start + 0.5)
    assert res.history["margin"].shape == (4, 3)
    assert np.allclose(res.history["margin"][0], start, atol=1e-5)
    # the best iterate is returned: never below any checked margin
    assert np.all(res.margin >= res.history["margin"].max(axis=0) - 1e-5)


def test_max_margin_full_rank_stores_an_easy_load() -> None:
    # far below capacity (alpha ~ 0.15 at d = 16) a maximum-margin memory stores everything
    b = sample_problems(30, 16, 2)
    res = train_max_margin(b, 16, steps=300, lr=0.02, beta=50.0)
    assert np.all(res.margin > 0) and np.all(all_recalled(res.weights, b))


def test_spectrum_summary_fields() -> None:
    b = sample_problems(40, 16, 2)
    W = hebbian_memory(b)
    row = spectrum_summary("Hebbian", W, b, 16)
    assert row["values"] == 32 and row["memories"] == 2
    assert row["KS 5 % level"] == pytest.approx(1.36 / math.sqrt(32))
    assert 0 <= row["KS"] <= 1 and row["stored"] == int(
        np.sum(normalised_margins(W, b, norm="gardner") > 0)
    )


# --- theory helper ----------------------------------------------------------------------------


def test_small_kappa_limit_matches_the_leading_correction() -> None:
    for rel in (0.01, 0.1, 0.5):
        k = small_kappa_limit(rel)
        assert 2 * k / critical_load(k) == pytest.approx(1 + rel, rel=1e-10)
    # alpha_c = 2k - c k^{5/3}: 2k / alpha_c - 1 ~ (c / 2) k^{2/3}, c = (6 pi)^{5/3} / (20 pi)
    c = (6 * math.pi) ** (5 / 3) / (20 * math.pi)
    rel = 1e-4
    assert small_kappa_limit(rel) == pytest.approx((2 * rel / c) ** 1.5, rel=0.01)
    with pytest.raises(ValueError):
        small_kappa_limit(3.0)


# --- figures ----------------------------------------------------------------------------------


def _legend_below_axes(ax) -> bool:  # type: ignore[no-untyped-def]
    fig = ax.figure
    fig.canvas.draw()
    leg = ax.get_legend()
    lb = leg.get_window_extent()
    return bool(lb.y1 <= ax.get_window_extent().y0 + 1)


def test_rank_success_legend_off_the_data_and_hebbian_lines() -> None:
    t = pd.concat([_table({0.02: [True] * 3, 0.2: [False] * 3}, rank=2, d=8, method="hebbian"),
                   _table({0.05: [True] * 3, 0.3: [False] * 3}, rank=8, d=8,
                          method="hebbian")], ignore_index=True)  # fmt: skip
    fig = plot_rank_success(t, theory="hebbian")
    ax = fig.axes[0]
    xs = sorted(
        {
            round(float(ln.get_xdata()[0]), 12)
            for ln in ax.lines
            if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]
        }
    )
    assert xs == sorted(round(float(hebbian_critical_load(k)), 12) for k in (0.25, 1.0))
    assert _legend_below_axes(ax)
    assert fig.get_size_inches()[0] <= 7.0
    with pytest.raises(ValueError):
        plot_rank_success(t, theory="other")


def test_critical_load_figure_takes_intervals_and_keeps_its_legend_below() -> None:
    fig = plot_critical_load(measured={0.5: (0.7, 0.6, 0.8), 1.0: (0.9, 0.05)},
                             hebbian={0.25: (0.05, 0.04, 0.06)})  # fmt: skip
    ax = fig.axes[0]
    assert _legend_below_axes(ax)
    with pytest.raises(ValueError):
        plot_critical_load(measured={0.5: (0.7, 0.8, 0.9)})  # value outside its interval


def test_singular_value_figure_is_one_row_per_kappa_at_page_width() -> None:
    rng = np.random.default_rng(0)
    spectra = {k: np.abs(rng.standard_normal(40)) + 0.5 for k in (0.25, 0.5, 1.0)}
    fig = plot_singular_values(spectra, references={"Hebbian": {0.25: spectra[0.25]}})
    assert len(fig.axes) == 6 and fig.get_size_inches()[0] <= 7.0
    fig.canvas.draw()
    for ax in fig.axes:  # two panels per row: each at least 3 in wide
        assert ax.get_position().width * fig.get_size_inches()[0] >= 2.5
        for t in ax.get_xticklabels() + ax.get_yticklabels():
            assert t.get_fontsize() >= 9
    assert "KS" in fig.axes[1].get_title()
    assert len(fig.legends) == 1
