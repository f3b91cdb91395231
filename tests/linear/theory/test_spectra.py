"""Tests of assocmem.linear.theory.spectra (quarter circle, truncated quarter circle,
alpha_c(kappa)), of the finite-size heuristic for rank-constrained memories and of rank-constrained
training (chapter 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assocmem.linear.measure.measured_spectra import (
    fourth_moment_ratio,
)
from assocmem.linear.theory.finite_size import (
    finite_size_capacity_estimate,
    finite_size_critical_load,
)
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load
from assocmem.linear.theory.spectra import (
    critical_load,
    critical_load_marchenko_pastur,
    critical_load_quadrature,
    gaussian_fourth_moment,
    hebbian_critical_load,
    hebbian_fourth_moment,
    marchenko_pastur_cdf,
    marchenko_pastur_pdf,
    quarter_circle_cdf,
    quarter_circle_pdf,
    quarter_circle_quantile,
    small_kappa_limit,
    truncated_quarter_circle_cdf,
    truncated_quarter_circle_pdf,
    truncated_quarter_circle_quantile,
    truncated_second_moment,
    truncation_point,
)
from scipy.integrate import quad

KAPPAS = [
    1e-9,
    1e-6,
    1e-3,
    0.01,
    0.1,
    0.25,
    0.3,
    0.4,
    0.45,
    0.5,
    0.55,
    0.6,
    0.75,
    0.9,
    0.99,
    1 - 1e-9,
]


def test_alpha_c_full_rank_is_one_half():
    assert critical_load(1.0) == 0.5
    assert critical_load_quadrature(1.0) == 0.5
    for k in (1.5, 3, 1e6):
        assert critical_load(k) == 0.5
    # continuity at kappa = 1 from below
    assert critical_load(1 - 1e-6) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("kappa", KAPPAS)
def test_closed_form_equals_quadrature(kappa):
    a = critical_load(kappa)
    b = critical_load_quadrature(kappa)
    c = critical_load_marchenko_pastur(kappa)
    assert abs(a - b) < 1e-10 * max(1.0, a) and abs(a - b) <= 1e-12 * a + 1e-300
    assert abs(a - c) <= 1e-12 * a + 1e-300


def test_known_values():
    # kappa = 1/2: the edge solves x - sin x = pi/2 (x = 2.309881460010057),
    # alpha = (2x - sin 2x)/(4 pi) -- values computed independently by mpmath to 30 digits
    assert critical_load(0.5) == pytest.approx(0.4468653969390270, abs=1e-14)
    assert truncation_point(0.5) == pytest.approx(2 * math.cos(2.309881460010057 / 2), abs=1e-13)
    # the median of the quarter circle is the kappa = 1/2 edge
    assert quarter_circle_cdf(truncation_point(0.5)) == pytest.approx(0.5, abs=1e-14)


def test_alpha_c_vectorised_and_increasing():
    k = np.linspace(1e-4, 1.2, 2001)
    a = critical_load(k)
    assert a.shape == k.shape and a.dtype == np.float64
    assert np.all(np.diff(a[k < 1]) > 0)
    assert np.all(a[k >= 1] == 0.5)
    assert np.all(a <= 2 * k + 1e-15)  # alpha_c(kappa) <= 2 kappa (singular values <= 2)
    # concave (decreasing marginal gain): second differences negative below kappa = 1
    assert np.all(np.diff(a[k < 1], 2) < 0)
    # elementwise agreement with the scalar path
    for i in (0, 500, 1500):
        assert a[i] == pytest.approx(critical_load(float(k[i])), rel=1e-15)


def test_small_kappa_asymptote():
    ks = np.array([1e-2, 1e-4, 1e-6, 1e-8])
    ratio = critical_load(ks) / ks
    assert np.all(np.diff(np.abs(ratio - 2)) < 0)
    assert abs(ratio[-1] - 2) < 1e-4
    # next order: 2 - alpha/kappa ~ c kappa^{2/3} (edge distance ~ kappa^{2/3})
    c = (2 - ratio) / ks ** (2 / 3)
    assert c[-1] == pytest.approx(c[-2], rel=1e-3)


def test_small_kappa_limit_matches_the_leading_correction() -> None:
    for rel in (0.01, 0.1, 0.5):
        k = small_kappa_limit(rel)
        assert 2 * k / critical_load(k) == pytest.approx(1 + rel, rel=1e-10)
    # alpha_c = 2k - c k^{5/3}: 2k / alpha_c - 1 ~ (c / 2) k^{2/3}, c = (6 pi)^{5/3} / (20 pi)
    c = (6 * math.pi) ** (5 / 3) / (20 * math.pi)
    rel = 1e-4
    assert small_kappa_limit(rel) == pytest.approx((2 * rel / c) ** 1.5, rel=0.01)
    with pytest.raises(ValueError, match=r"rel_error must lie in \(0, 3\), got 3\.0"):
        small_kappa_limit(3.0)


def test_hebbian_is_quarter():
    assert hebbian_critical_load(1.0) == 0.125
    assert hebbian_critical_load(0.5) == pytest.approx(0.4468653969390270 / 4, abs=1e-14)
    k = np.array([0.1, 0.3, 0.9])
    np.testing.assert_allclose(hebbian_critical_load(k), critical_load(k) / 4)


@pytest.mark.parametrize("bad", [0.0, -0.1, -1, math.inf, -math.inf, math.nan])
def test_bad_kappa_raises(bad):
    with pytest.raises(ValueError, match="kappa"):
        critical_load(bad)
    with pytest.raises(ValueError, match="kappa"):
        critical_load_quadrature(bad)
    with pytest.raises(ValueError, match="kappa"):
        critical_load_marchenko_pastur(bad)
    with pytest.raises(ValueError, match="kappa"):
        hebbian_critical_load(bad)
    with pytest.raises(ValueError, match="kappa"):
        truncated_quarter_circle_pdf(1.0, bad)
    with pytest.raises(ValueError, match="kappa"):
        critical_load(np.array([0.5, bad]))


def test_bad_kappa_types():
    with pytest.raises(TypeError, match=r"kappa must be a real number or array .*, got 'half'"):
        critical_load("half")
    with pytest.raises(TypeError, match=r"kappa must be a real number in \(0, inf\), got a bool"):
        critical_load(True)
    with pytest.raises(TypeError, match=r"kappa must be a scalar here, got an array"):
        critical_load_marchenko_pastur(np.array([0.2, 0.3]))
    with pytest.raises(TypeError, match=r"kappa must be a scalar here, got an array"):
        critical_load_quadrature(np.array([0.2, 0.3]))


def test_quarter_circle_normalised_and_unit_second_moment():
    mass, _ = quad(quarter_circle_pdf, 0, 2)
    m2, _ = quad(lambda s: s * s * quarter_circle_pdf(s), 0, 2)
    assert mass == pytest.approx(1.0, abs=1e-9)
    assert m2 == pytest.approx(1.0, abs=1e-9)
    assert quarter_circle_pdf(0.0) == pytest.approx(2 / math.pi)
    assert quarter_circle_pdf(np.array([-0.1, 2.1])).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("kappa", [0.05, 0.25, 0.5, 0.75, 1.0, 2.0])
def test_truncated_density_integrates_to_one_with_mass_kappa_above_edge(kappa):
    s_k = truncation_point(kappa)
    mass, _ = quad(lambda s: truncated_quarter_circle_pdf(s, kappa), s_k, 2, limit=200)
    assert mass == pytest.approx(1.0, abs=1e-9)
    # the full quarter circle has mass kappa above s_kappa
    tail, _ = quad(quarter_circle_pdf, s_k, 2)
    assert tail == pytest.approx(min(kappa, 1.0), abs=1e-9)
    assert truncated_quarter_circle_pdf(s_k - 1e-9, kappa) == 0.0 or kappa >= 1
    # mean square 2 alpha_c / kappa
    m2, _ = quad(lambda s: s * s * truncated_quarter_circle_pdf(s, kappa), s_k, 2, limit=200)
    assert m2 == pytest.approx(truncated_second_moment(kappa), abs=1e-9)
    # unit-rms version: mass 1 and mean square 1
    hi = 2 / math.sqrt(truncated_second_moment(kappa))
    lo = s_k / math.sqrt(truncated_second_moment(kappa))
    f = lambda s: truncated_quarter_circle_pdf(s, kappa, unit_rms=True)  # noqa: E731
    assert quad(f, lo, hi, limit=200)[0] == pytest.approx(1.0, abs=1e-9)
    assert quad(lambda s: s * s * f(s), lo, hi, limit=200)[0] == pytest.approx(1.0, abs=1e-9)


def test_cdfs_and_quantiles_are_inverse():
    q = np.linspace(0, 1, 101)
    np.testing.assert_allclose(quarter_circle_cdf(quarter_circle_quantile(q)), q, atol=1e-13)
    s = np.linspace(0, 2, 41)
    np.testing.assert_allclose(quarter_circle_quantile(quarter_circle_cdf(s)), s, atol=1e-7)
    for k in (0.1, 0.5, 0.8):
        for unit in (False, True):
            x = truncated_quarter_circle_quantile(q, k, unit_rms=unit)
            np.testing.assert_allclose(
                truncated_quarter_circle_cdf(x, k, unit_rms=unit), q, atol=1e-12
            )
            assert np.all(np.diff(x) > 0)
        assert truncated_quarter_circle_quantile(0.0, k) == pytest.approx(
            truncation_point(k), abs=1e-13
        )
        assert truncated_quarter_circle_quantile(1.0, k) == pytest.approx(2.0, abs=1e-13)
    # CDF = integral of the pdf (checked by quadrature at a few points)
    for s0 in (0.3, 1.0, 1.7):
        assert quarter_circle_cdf(s0) == pytest.approx(
            quad(quarter_circle_pdf, 0, s0)[0], abs=1e-10
        )
        val = quad(lambda s: truncated_quarter_circle_pdf(s, 0.7), truncation_point(0.7), s0)[0]
        if s0 > truncation_point(0.7):
            assert truncated_quarter_circle_cdf(s0, 0.7) == pytest.approx(val, abs=1e-10)
    with pytest.raises(ValueError, match="q"):
        quarter_circle_quantile(1.2)


def test_marchenko_pastur_is_image_of_quarter_circle():
    mass = quad(marchenko_pastur_pdf, 0, 4, limit=200)[0]
    mean = quad(lambda x: x * marchenko_pastur_pdf(x), 0, 4)[0]
    assert mass == pytest.approx(1.0, abs=1e-7)
    assert mean == pytest.approx(1.0, abs=1e-9)
    x = np.linspace(0.05, 3.95, 30)
    np.testing.assert_allclose(
        marchenko_pastur_pdf(x), quarter_circle_pdf(np.sqrt(x)) / (2 * np.sqrt(x)), rtol=1e-13
    )
    np.testing.assert_allclose(marchenko_pastur_cdf(x), quarter_circle_cdf(np.sqrt(x)), rtol=1e-13)


def _spectral_map(G: np.ndarray, f) -> np.ndarray:
    U, s, Vt = np.linalg.svd(G)
    return (U * f(s)) @ Vt


def test_daleckii_krein_first_order_change_of_a_spectral_map():
    # chapter 4, eq-rank-dk: in the singular bases of G, the first-order change of f(G) in the
    # direction E is sym(E) (f(s_i) - f(s_j))/(s_i - s_j) + antisym(E) (f(s_i) + f(s_j))/(s_i + s_j)
    rng = np.random.default_rng(3)
    d, h = 30, 1e-6
    G, E = rng.standard_normal((d, d)) / math.sqrt(d), rng.standard_normal((d, d))

    def f(s):
        return 0.3 * s + s**2 * (s > 0.8)

    change = (_spectral_map(G + h * E, f) - _spectral_map(G - h * E, f)) / (2 * h)
    U, s, Vt = np.linalg.svd(G)
    Eb, Lb = U.T @ E @ Vt.T, U.T @ change @ Vt.T
    si, sj = np.meshgrid(s, s, indexing="ij")
    off = ~np.eye(d, dtype=bool)
    minus = np.where(off, (f(si) - f(sj)) / np.where(off, si - sj, 1.0), 0.0)
    minus[~off] = 0.3 + 2 * s * (s > 0.8)  # f'(s_i) on the diagonal
    plus = (f(si) + f(sj)) / (si + sj)
    predicted = (Eb + Eb.T) / 2 * minus + (Eb - Eb.T) / 2 * plus
    np.testing.assert_allclose(predicted, Lb, atol=1e-6)
    # the symmetric (eigenvalue) formula alone is wrong for singular values
    assert np.abs(Eb * minus - Lb).max() > 0.1


def test_the_signal_of_a_spectral_map_is_the_second_moment_on_the_kept_values():
    # chapter 4, eq-rank-signal: u^T [f(G' + eps u e^T) - f(G')] e / eps averages to
    # int rho_QC f w with w(s) = s; for f(s) = s on the top kappa fraction that is 2 alpha_c(kappa)
    w = [
        quad(quarter_circle_pdf, 0, 2, weight="cauchy", wvar=s)[0] * -1
        + quad(lambda x, s=s: quarter_circle_pdf(x) / (s + x), 0, 2)[0]
        for s in (0.3, 1.0, 1.7)
    ]
    np.testing.assert_allclose(w, [0.3, 1.0, 1.7], atol=1e-8)  # the Hilbert transform: w(s) = s
    rng = np.random.default_rng(0)
    d, n, eps, kappa = 200, 60, 1e-4, 0.25
    edge = truncation_point(kappa)

    def f(s):
        return s * (s > edge)

    signal = []
    for _ in range(n):
        G = rng.standard_normal((d, d)) / math.sqrt(d)
        u, e = rng.standard_normal((2, d)) / math.sqrt(d)
        shifted = _spectral_map(G + eps * np.outer(u, e), f) - _spectral_map(G, f)
        signal.append(u @ shifted @ e / eps)
    mean, se = float(np.mean(signal)), float(np.std(signal) / math.sqrt(n))
    assert abs(mean - 2 * critical_load(kappa)) < 4 * se
    # a flat weight w(s) = 1 would give int_A rho_QC s, far from the measurement
    flat = quad(lambda s: quarter_circle_pdf(s) * s, edge, 2)[0]
    assert abs(mean - flat) > 8 * se


def test_finite_size_critical_load_heuristic():
    c1, c_half = finite_size_critical_load(1.0, 32), finite_size_critical_load(0.5, 32)
    (a1, p1), (a_half, p_half) = (c1.alpha.value, c1.p), (c_half.alpha.value, c_half.p)
    # self-consistent: alpha is the load of p, and the full-rank value exceeds the asymptote 1/2
    assert load_for_pairs(p1, 32) == pytest.approx(a1, rel=0.02)
    assert 0.6 < a1 < 1.2
    # kappa = 1/2 keeps the fraction 2 alpha_c(1/2) = 0.894 of the second moment
    assert a_half < a1 and a_half / a1 == pytest.approx(0.8937, rel=0.05)
    # a fixed point of alpha -> 2 alpha_c(kappa) alpha_c(pairs_for_load(alpha, d))
    for kappa, (a, p) in ((1.0, (a1, p1)), (0.5, (a_half, p_half))):
        assert pairs_for_load(a, 32) == p
        est = finite_size_capacity_estimate(p, seed=0, rel_error=0.01).value
        assert a == pytest.approx(2 * critical_load(kappa) * est, rel=1e-15)
    with pytest.raises(ValueError, match="d"):
        finite_size_critical_load(0.5, 1)
    with pytest.raises(TypeError, match="d"):
        finite_size_critical_load(0.5, 32.0)


def test_fourth_moment_ratio_quarter_circle_hebbian_and_exact_cases() -> None:
    # a matrix with singular values 1 and 3: (1 + 81) / 2 / ((1 + 9) / 2)^2 = 41 / 25
    assert fourth_moment_ratio(np.diag([1.0, 3.0])) == pytest.approx(41 / 25, abs=1e-14)
    assert fourth_moment_ratio(np.eye(4)) == pytest.approx(1.0, abs=1e-14)  # all equal
    rng = np.random.default_rng(0)
    d = 300
    G = rng.standard_normal((4, d, d)) / math.sqrt(d)
    m = fourth_moment_ratio(G)
    assert m.shape == (4,)
    # quarter circle: 2 (+ 1/d); sd of one matrix's value is O(1/d)
    assert abs(m.mean() - (2 + 1 / d)) < 0.02
    # Hebbian W = U^T E with p = 3d: 2 + d/p = 2.333 (i.i.d. would give 2)
    p = 3 * d // 2
    d2 = d // 2
    U = rng.standard_normal((4, p, d2)) / math.sqrt(d2)
    E = rng.standard_normal((4, p, d2)) / math.sqrt(d2)
    W = np.einsum("bpi,bpj->bij", U, E)
    assert abs(fourth_moment_ratio(W).mean() - hebbian_fourth_moment(p, d2)) < 0.03
    assert hebbian_fourth_moment(p, d2) == pytest.approx(2 + 1 / 3)
    with pytest.raises(ValueError, match=r"p must be a finite number > 0, got 0"):
        hebbian_fourth_moment(0, 4)


def test_gaussian_fourth_moment_is_exact_at_small_d() -> None:
    # d(2d+1)/(d^2+2): 1 at d = 1 (m_4 of a 1 x 1 matrix is 1), 2.0548 at d = 12 (not 2 + 1/d)
    assert gaussian_fourth_moment(1) == 1.0
    assert gaussian_fourth_moment(4) == 2.0
    assert gaussian_fourth_moment(12) == pytest.approx(12 * 25 / 146, rel=1e-15)
    assert gaussian_fourth_moment(12) == pytest.approx(2.0548, abs=5e-5)
    rng = np.random.default_rng(11)
    for d, n in ((3, 400_000), (12, 100_000)):
        m = fourth_moment_ratio(rng.standard_normal((n, d, d)))
        se = m.std(ddof=1) / math.sqrt(n)
        assert abs(m.mean() - gaussian_fourth_moment(d)) < 4 * se  # sd/√n: ~0.002 and ~0.0005
    assert abs(gaussian_fourth_moment(12) - (2 + 1 / 12)) > 50 * 0.0005  # 2 + 1/d is resolved away
    with pytest.raises(ValueError, match=r"d must be an integer >= 1, got 0"):
        gaussian_fourth_moment(0)
    with pytest.raises(TypeError, match=r"d must be an integer, got float"):
        gaussian_fourth_moment(12.0)
