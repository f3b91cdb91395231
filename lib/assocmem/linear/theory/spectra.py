"""Singular-value spectra of linear memories and the rank-constrained capacity alpha_c(kappa).

Units: singular values ``s`` are measured in units where the full-rank optimal (or Hebbian)
memory has mean square ``E[s^2] = 1``; its singular values then follow the quarter-circle law

    rho_QC(s) = sqrt(4 - s^2) / pi,    s in [0, 2].

A rank-constrained memory ``W = Q R^T`` (``Q, R`` of shape ``(d, m)``, rank ratio
``kappa = m / d``) keeps only the top ``kappa`` fraction of that spectrum: its non-zero singular
values follow the *truncated quarter circle* ``sqrt(4 - s^2) / (pi kappa)`` on ``[s_kappa, 2]``,
and its capacity is half the second moment held by that top fraction,

    alpha_c(kappa) = 1/2 int_{s_kappa}^2 s^2 rho_QC(s) ds,   int_{s_kappa}^2 rho_QC(s) ds = kappa.

With ``s_kappa = 2 cos(x / 2)``, ``x in [0, pi]``, both integrals are elementary:

    pi kappa = x - sin x,        alpha_c = (2x - sin 2x) / (4 pi),

(equivalent to the digest's ``s_kappa = 2 sin(theta)``, ``x = pi - 2 theta``). This is a
**reconstruction** of the paper's formula (Giorlandino, Goldt, Maillard 2026, arXiv:2605.10795,
two-layer linear networks; digest section 7.2), see chapter 4, eq. ``eq-alpha-kappa``.

Three computations of alpha_c(kappa) are provided and cross-checked in the tests:
:func:`critical_load` (vectorised Newton solve of the elementary equation above; the one to use),
:func:`critical_load_quadrature` (adaptive quadrature of the density and a bracketing root find)
and :func:`critical_load_marchenko_pastur` (quadrature of the eigenvalue form).

The spectra of measured matrices (their singular values, the KS distance to these laws, the
fourth moment ``m_4`` and comparisons of groups of matrices by it) are in
:mod:`assocmem.linear.measure.measured_spectra`; :func:`hebbian_fourth_moment` and
:func:`gaussian_fourth_moment` are the theory of ``m_4``.

One topic, though past 700 lines: the quarter-circle law, its truncation and ``alpha_c(kappa)``,
each with its density, distribution function and quantile, and ``alpha_c(kappa)`` computed three
independent ways that the tests cross-check.

The chapter-4 experiment (training ``W = Q R^T`` across loads and rank ratios) lives in
:mod:`assocmem.linear.measure.sweeps`, its finite-size prediction in
:mod:`assocmem.linear.theory.finite_size` and the figures in
:mod:`assocmem.linear.figures.plots_rank`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.integrate import quad
from scipy.optimize import brentq

from assocmem._validate import (
    check_finite_array,
    check_int,
    check_kappa,
    check_positive,
    check_prob,
    check_scalar_kappa,
)


def _out(arr: NDArray[np.float64]) -> Any:
    """Return a Python float for 0-d results, else the array."""
    return float(arr) if arr.ndim == 0 else arr


def _h(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Compute ``x - sin x`` without cancellation for small x (x >= 0)."""
    x = np.asarray(x, dtype=np.float64)
    shape = x.shape
    x = x.reshape(-1)
    out = x - np.sin(x)
    small = x < 0.5
    if np.any(small):
        xs = x[small]
        x2 = xs * xs
        # x^3/3! - x^5/5! + ... ; 9 terms give full double precision for x < 0.5
        term = xs * x2 / 6.0
        acc = term.copy()
        for k in range(1, 9):
            term = -term * x2 / ((2 * k + 2) * (2 * k + 3))
            acc = acc + term
        out[small] = acc
    return out.reshape(shape)


def _h_inverse(y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Solve x - sin x = y for x in [0, pi], given y in [0, pi] (vectorised safeguarded Newton)."""
    y = np.asarray(y, dtype=np.float64)
    lo = np.zeros_like(y)
    hi = np.full_like(y, math.pi)
    # x^3/6 >= h(x): the cube-root guess lies at or left of the root; h is convex on [0, pi]
    x = np.minimum(np.cbrt(6.0 * y), math.pi)
    for _ in range(60):
        f = _h(x) - y
        lo = np.where(f <= 0, x, lo)
        hi = np.where(f >= 0, x, hi)
        dfdx = 2.0 * np.sin(0.5 * x) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(dfdx > 0, f / dfdx, 0.0)
        x_new = x - step
        # fall back to bisection when Newton leaves the bracket
        outside = ~((x_new > lo) & (x_new < hi))
        x_new = np.where(outside, 0.5 * (lo + hi), x_new)
        converged = np.abs(x_new - x) <= 4e-16 * np.maximum(x, 1e-300)
        x = x_new
        if np.all(converged | (y == 0)):
            break
    return np.where(y == 0, 0.0, np.where(y >= math.pi, math.pi, x))


def _h_scalar(x: float) -> float:
    """Scalar :func:`_h` with the math module (fast path for scalar kappa)."""
    if x >= 0.5:
        return x - math.sin(x)
    x2 = x * x
    term = x * x2 / 6.0
    acc = term
    for k in range(1, 9):
        term = -term * x2 / ((2 * k + 2) * (2 * k + 3))
        acc += term
    return acc


def _h_inverse_scalar(y: float) -> float:
    """Scalar :func:`_h_inverse` (same safeguarded Newton iteration)."""
    if y <= 0.0:
        return 0.0
    if y >= math.pi:
        return math.pi
    lo, hi = 0.0, math.pi
    x = min(math.pow(6.0 * y, 1.0 / 3.0), math.pi)
    for _ in range(60):
        f = _h_scalar(x) - y
        if f <= 0:
            lo = x
        if f >= 0:
            hi = x
        dfdx = 2.0 * math.sin(0.5 * x) ** 2
        x_new = x - f / dfdx if dfdx > 0 else 0.5 * (lo + hi)
        if not lo < x_new < hi:
            x_new = 0.5 * (lo + hi)
        if abs(x_new - x) <= 4e-16 * x:
            return x_new
        x = x_new
    return x


def quarter_circle_pdf(s: ArrayLike) -> Any:
    """Quarter-circle density of singular values, ``rho_QC(s) = sqrt(4 - s^2) / pi`` on [0, 2].

    Parameters
    ----------
    s : float or array_like
        Singular value(s) in units where ``E[s^2] = 1``; any real values (0 outside [0, 2]).

    Returns
    -------
    float or numpy.ndarray (float64, same shape as ``s``)

    Raises
    ------
    TypeError
        If ``s`` is not made of real numbers.
    ValueError
        If ``s`` holds NaN or inf.

    Notes
    -----
    Source: the singular values of a square matrix with i.i.d. entries (here the optimal or
    Hebbian memory at ``p >> d``), digest section 7.1; chapter 4, eq. ``eq-rank-qc``.
    """
    s_arr = check_finite_array("s", s)
    inside = (s_arr >= 0) & (s_arr <= 2)
    out = np.where(inside, np.sqrt(np.clip(4.0 - s_arr**2, 0.0, None)) / math.pi, 0.0)
    return _out(out)


def quarter_circle_cdf(s: ArrayLike) -> Any:
    """Cumulative distribution ``F(s) = P(S <= s)`` of the quarter-circle law.

    With ``s = 2 sin(theta)``: ``F = (2 theta + sin 2 theta) / pi``.

    Parameters
    ----------
    s : float or array_like
        Singular value(s); 0 below 0 and 1 above 2.

    Returns
    -------
    float or numpy.ndarray (float64)
        Same shape as ``s``.

    Raises
    ------
    TypeError
        If ``s`` is not made of real numbers.
    ValueError
        If ``s`` holds NaN or inf.

    Notes
    -----
    Source: the singular values of a square matrix with i.i.d. entries (here the optimal or
    Hebbian memory at ``p >> d``), digest section 7.1; chapter 4, eq. ``eq-rank-qc``.
    """
    s_arr = check_finite_array("s", s)
    sc = np.clip(s_arr, 0.0, 2.0)
    # upper tail 1 - F = h(x) / pi with s = 2 cos(x / 2): accurate near s = 2
    x = 2.0 * np.arccos(sc / 2.0)
    out = 1.0 - _h(x) / math.pi
    return _out(np.clip(out, 0.0, 1.0))


def quarter_circle_quantile(q: ArrayLike) -> Any:
    """Quantile function (inverse CDF) of the quarter-circle law.

    Parameters
    ----------
    q : float or array_like
        Probabilities in [0, 1].

    Returns
    -------
    float or numpy.ndarray (float64)
        ``s`` in [0, 2] with ``F(s) = q``.

    Raises
    ------
    ValueError
        If any ``q`` is outside [0, 1] or not finite.

    Notes
    -----
    Source: the singular values of a square matrix with i.i.d. entries (here the optimal or
    Hebbian memory at ``p >> d``), digest section 7.1; chapter 4, eq. ``eq-rank-qc``.
    """
    q_arr = check_prob(q)
    x = _h_inverse(math.pi * (1.0 - q_arr))
    return _out(2.0 * np.cos(0.5 * x))


def _x_of_kappa(k: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return the angle x in [0, pi] with x - sin x = pi min(kappa, 1)."""
    return _h_inverse(math.pi * np.minimum(k, 1.0))


def truncation_point(kappa: ArrayLike) -> Any:
    """Lower edge ``s_kappa`` of the top-``kappa`` fraction of the quarter circle.

    Parameters
    ----------
    kappa : float or array_like
        Rank ratio ``m / d`` in (0, inf); ``kappa >= 1`` gives ``s_kappa = 0``.

    Returns
    -------
    float or numpy.ndarray (float64)
        ``s_kappa`` with ``int_{s_kappa}^2 rho_QC = min(kappa, 1)``, shape of ``kappa``.

    Raises
    ------
    TypeError
        If ``kappa`` is not numeric.
    ValueError
        If ``kappa <= 0`` or is not finite.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eqs. ``eq-alpha-kappa`` (``s_kappa``),
    ``eq-rank-closed-form`` (computed from its ``x``) and ``eq-rank-truncated-qc``).
    """
    k = check_kappa(kappa)
    return _out(2.0 * np.cos(0.5 * _x_of_kappa(k)))


def truncated_second_moment(kappa: ArrayLike) -> Any:
    """Mean square of the truncated quarter circle, ``E[s^2 | s > s_kappa] = 2 alpha_c / kappa``.

    Parameters
    ----------
    kappa : float or array_like
        Rank ratio in (0, inf); 1 for ``kappa >= 1``.

    Returns
    -------
    float or numpy.ndarray (float64)
        In [1, 4), shape of ``kappa``; tends to 4 as ``kappa -> 0`` (all kept singular values
        near 2).

    Raises
    ------
    TypeError
        If ``kappa`` is not numeric.
    ValueError
        If ``kappa <= 0`` or is not finite.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eqs. ``eq-rank-truncated-qc`` and
    ``eq-alpha-kappa``).
    """
    k = check_kappa(kappa)
    keff = np.minimum(k, 1.0)
    return _out(2.0 * np.asarray(critical_load(keff)) / keff)


def _trunc_scale(k: float, unit_rms: bool) -> float:
    return math.sqrt(float(truncated_second_moment(k))) if unit_rms else 1.0


def truncated_quarter_circle_pdf(s: ArrayLike, kappa: float, *, unit_rms: bool = False) -> Any:
    """Density of the non-zero singular values of the optimal rank-``kappa d`` memory.

    ``rho_kappa(s) = sqrt(4 - s^2) / (pi min(kappa, 1))`` on ``[s_kappa, 2]`` (0 elsewhere): the
    top ``kappa`` fraction of the quarter circle, renormalised to unit mass.

    Parameters
    ----------
    s : float or array_like
        Singular value(s).
    kappa : float
        Rank ratio ``m / d`` in (0, inf); ``kappa >= 1`` gives the full quarter circle.
    unit_rms : bool, default False
        If True, the density of ``s / sqrt(E[s^2])``, i.e. the law rescaled to mean square 1
        (the form to compare with :func:`singular_values` of the top ``m`` values, which removes
        the arbitrary overall scale of a trained ``W``).

    Returns
    -------
    float or numpy.ndarray (float64)
        Same shape as ``s``.

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar or ``s`` not made of real numbers.
    ValueError
        If ``kappa <= 0`` or is not finite, or ``s`` holds NaN or inf.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eq. ``eq-rank-truncated-qc``).
    """
    k = check_scalar_kappa(kappa)
    c = _trunc_scale(k, unit_rms)
    s_arr = check_finite_array("s", s) * c
    s_k = float(truncation_point(k))
    inside = (s_arr >= s_k) & (s_arr <= 2.0)
    dens = np.sqrt(np.clip(4.0 - s_arr**2, 0.0, None)) / (math.pi * min(k, 1.0))
    return _out(np.where(inside, c * dens, 0.0))


def truncated_quarter_circle_cdf(s: ArrayLike, kappa: float, *, unit_rms: bool = False) -> Any:
    """CDF of :func:`truncated_quarter_circle_pdf`.

    Parameters
    ----------
    s : float or array_like
        Singular value(s).
    kappa : float
        Rank ratio ``m / d`` in (0, inf).
    unit_rms : bool, default False
        CDF of the law rescaled to mean square 1.

    Returns
    -------
    float or numpy.ndarray (float64)
        ``(kappa - (1 - F_QC(s))) / kappa`` on ``[s_kappa, 2]``, 0 below and 1 above; same shape
        as ``s``.

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar or ``s`` not made of real numbers.
    ValueError
        If ``kappa <= 0`` or is not finite, or ``s`` holds NaN or inf.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eq. ``eq-rank-truncated-qc``).
    """
    k = check_scalar_kappa(kappa)
    keff = min(k, 1.0)
    s_arr = check_finite_array("s", s) * _trunc_scale(k, unit_rms)
    x = 2.0 * np.arccos(np.clip(s_arr, 0.0, 2.0) / 2.0)
    tail = _h(x) / math.pi  # mass of the quarter circle above s
    out = np.clip((keff - tail) / keff, 0.0, 1.0)
    return _out(out)


def truncated_quarter_circle_quantile(q: ArrayLike, kappa: float, *, unit_rms: bool = False) -> Any:
    """Quantile function of :func:`truncated_quarter_circle_pdf`.

    Parameters
    ----------
    q : float or array_like
        Probabilities in [0, 1].
    kappa : float
        Rank ratio in (0, inf).
    unit_rms : bool, default False
        Quantiles of the law rescaled to mean square 1.

    Returns
    -------
    float or numpy.ndarray (float64)

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar.
    ValueError
        If ``q`` is outside [0, 1] or ``kappa <= 0`` / not finite.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eq. ``eq-rank-truncated-qc``).
    """
    k = check_scalar_kappa(kappa)
    q_arr = check_prob(q)
    keff = min(k, 1.0)
    x = _h_inverse(math.pi * keff * (1.0 - q_arr))
    return _out(2.0 * np.cos(0.5 * x) / _trunc_scale(k, unit_rms))


def marchenko_pastur_pdf(x: ArrayLike) -> Any:
    """Marchenko–Pastur density (ratio 1) of the eigenvalues ``x = s^2`` of ``W W^T``.

    ``rho_MP(x) = sqrt(x (4 - x)) / (2 pi x)`` on (0, 4]; the image of the quarter circle under
    ``x = s^2`` (mean 1, in the units of :func:`quarter_circle_pdf`).

    Parameters
    ----------
    x : float or array_like
        Eigenvalue(s); the density is 0 outside (0, 4] and integrably infinite at 0.

    Returns
    -------
    float or numpy.ndarray (float64)
        Same shape as ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not made of real numbers.
    ValueError
        If ``x`` holds NaN or inf.

    Notes
    -----
    Source: Marchenko & Pastur (1967) at aspect ratio 1; the image of :func:`quarter_circle_pdf`
    (digest section 7.1).
    """
    x_arr = check_finite_array("x", x)
    inside = (x_arr > 0) & (x_arr <= 4)
    with np.errstate(divide="ignore", invalid="ignore"):
        dens = np.sqrt(np.clip(4.0 - x_arr, 0.0, None)) / (2.0 * math.pi * np.sqrt(x_arr))
    return _out(np.where(inside, dens, 0.0))


def marchenko_pastur_cdf(x: ArrayLike) -> Any:
    """CDF of :func:`marchenko_pastur_pdf`: ``F_MP(x) = F_QC(sqrt(x))``.

    Parameters
    ----------
    x : float or array_like
        Eigenvalue(s); 0 below 0 and 1 above 4.

    Returns
    -------
    float or numpy.ndarray (float64)
        Same shape as ``x``.

    Raises
    ------
    TypeError
        If ``x`` is not made of real numbers.
    ValueError
        If ``x`` holds NaN or inf.

    Notes
    -----
    Source: as :func:`marchenko_pastur_pdf`.
    """
    x_arr = check_finite_array("x", x)
    return quarter_circle_cdf(np.sqrt(np.clip(x_arr, 0.0, None)))


def critical_load(kappa: ArrayLike) -> Any:
    """Capacity ``alpha_c(kappa)`` of the rank-constrained memory ``W = Q R^T`` (closed form).

    Solves ``x - sin x = pi kappa`` for ``x in [0, pi]`` (vectorised safeguarded Newton, series
    for small ``x``) and returns ``alpha_c = (2x - sin 2x) / (4 pi)``; ``1/2`` for ``kappa >= 1``.

    Parameters
    ----------
    kappa : float or array_like
        Rank ratio ``m / d`` in (0, inf).

    Returns
    -------
    float or numpy.ndarray (float64)
        ``alpha_c = lim p log p / d^2`` at the storage transition, shape of ``kappa`` (a Python
        float for a scalar). Increasing in ``kappa``,
        ``alpha_c ~ 2 kappa`` as ``kappa -> 0``, ``alpha_c(1) = 1/2``. Relative accuracy ~1e-14.

    Raises
    ------
    ValueError
        If any ``kappa <= 0`` or is not finite.
    TypeError
        If ``kappa`` is not numeric.

    Notes
    -----
    Reconstruction of the paper's two-layer result (digest section 7.2): half the second moment of
    the quarter circle held by its top ``kappa`` fraction; chapter 4, eq. ``eq-alpha-kappa``,
    computed by its closed form, eq. ``eq-rank-closed-form``.

    Examples
    --------
    Full rank gives the full-rank capacity 1/2; at ``kappa = 1/2``, ``x - sin x = pi/2`` has
    ``x = 2.3099`` and ``(2x - sin 2x) / (4 pi) = 0.4469``:

    >>> critical_load(1.0), critical_load(2.0)
    (0.5, 0.5)
    >>> round(critical_load(0.5), 4)
    0.4469
    """
    if isinstance(kappa, (float, int)) and not isinstance(kappa, bool):
        # fast scalar path (math module, no array overhead): ~10 us per call
        if not (math.isfinite(kappa) and kappa > 0):
            raise ValueError(
                f"kappa must be finite and in (0, inf) (rank ratio m/d), got {kappa!r}"
            )
        if kappa >= 1.0:
            return 0.5
        x_s = _h_inverse_scalar(math.pi * kappa)
        return _h_scalar(2.0 * x_s) / (4.0 * math.pi)
    k = check_kappa(kappa)
    x = _x_of_kappa(k)
    alpha = _h(2.0 * x) / (4.0 * math.pi)
    alpha = np.where(k >= 1.0, 0.5, alpha)
    return _out(alpha)


#: Smallest ``kappa`` of the quadrature checks :func:`critical_load_quadrature` and
#: :func:`critical_load_marchenko_pastur`: below it their root finders do not converge (the
#: closed form :func:`critical_load` has no such limit; ``alpha_c = 2 kappa`` there to 1e-60).
QUADRATURE_KAPPA_MIN = 1e-100


def _quadrature_kappa(kappa: float) -> float:
    k = check_scalar_kappa(kappa)
    if k < QUADRATURE_KAPPA_MIN:
        raise ValueError(
            f"kappa must be >= {QUADRATURE_KAPPA_MIN:g} for the quadrature check (its root finder "
            f"fails below; use critical_load), got {kappa!r}"
        )
    return k


def _qc_tail_moment(t: float, power: int) -> float:
    """int_{2-t}^{2} s^power rho_QC(s) ds by adaptive quadrature (t = 2 - s in [0, 2])."""
    if t <= 0:
        return 0.0
    # rho_QC(2 - u) = sqrt(u) sqrt(4 - u) / pi: algebraic weight u^{1/2} at the lower end
    val, _ = quad(
        lambda u: (2.0 - u) ** power * math.sqrt(4.0 - u) / math.pi,
        0.0,
        t,
        weight="alg",
        wvar=(0.5, 0.0),
        epsabs=0.0,
        epsrel=1e-13,
    )
    return float(val)


def _qc_lower_moment(s: float, power: int) -> float:
    """int_0^{s} x^power rho_QC(x) dx by adaptive quadrature (s <= 1.5, where rho_QC is smooth)."""
    val, _ = quad(
        lambda u: u**power * math.sqrt(4.0 - u * u) / math.pi, 0.0, s, epsabs=0.0, epsrel=1e-13
    )
    return float(val)


def critical_load_quadrature(kappa: float) -> float:
    """Capacity ``alpha_c(kappa)`` by quadrature of the quarter-circle density (independent check).

    Finds the edge ``s_kappa`` with ``int_{s_kappa}^2 rho_QC = kappa`` by Brent's method on an
    adaptive (QUADPACK) quadrature of ``rho_QC``, then integrates ``s^2 rho_QC / 2`` over
    ``[s_kappa, 2]``. For ``kappa <= 1/2`` it works in ``t = 2 - s`` with the algebraic weight
    ``t^{1/2}`` of the square-root edge; for ``kappa > 1/2`` it integrates the smooth lower part
    ``[0, s_kappa]`` and subtracts it from the (also integrated) total. It uses no closed form,
    so it cross-checks :func:`critical_load`.

    Parameters
    ----------
    kappa : float
        Rank ratio in (0, inf); ``kappa >= 1`` returns 1/2.

    Returns
    -------
    float
        ``alpha_c(kappa)`` (absolute accuracy ~1e-14; about 1 ms per call).

    Raises
    ------
    ValueError
        If ``kappa`` is not finite or below :data:`QUADRATURE_KAPPA_MIN` (1e-100).
    TypeError
        If ``kappa`` is not a real scalar.

    Notes
    -----
    Reconstruction, see :func:`critical_load` and chapter 4, eq. ``eq-alpha-kappa``.
    """
    k = _quadrature_kappa(kappa)
    if k >= 1.0:
        return 0.5
    rtol = 4.0 * float(np.finfo(np.float64).eps)
    if k <= 0.5:
        t_k = brentq(
            lambda t: _qc_tail_moment(t, 0) - k, 0.0, 2.0, xtol=1e-300, rtol=rtol, maxiter=500
        )
        return 0.5 * _qc_tail_moment(t_k, 2)
    # 1 - kappa < 1/2 and the quarter circle's median is below 1.5: s_kappa lies in [0, 1.5]
    s_k = brentq(lambda s: _qc_lower_moment(s, 0) - (1.0 - k), 0.0, 1.5, xtol=1e-300, rtol=rtol)
    total = _qc_tail_moment(2.0, 2)
    return 0.5 * (total - _qc_lower_moment(s_k, 2))


def critical_load_marchenko_pastur(kappa: float) -> float:
    """Capacity ``alpha_c(kappa)`` in the Marchenko–Pastur form (third, quadrature-based check).

    ``alpha_c = 1/2 int_{x_kappa}^4 x rho_MP(x) dx`` with ``int_{x_kappa}^4 rho_MP = kappa``
    (eigenvalues ``x = s^2`` of ``W W^T``), by quadrature in ``x`` with the square-root weights
    of both spectral edges.

    Parameters
    ----------
    kappa : float
        Rank ratio in (0, inf); ``kappa >= 1`` returns 1/2.

    Returns
    -------
    float
        ``alpha_c(kappa)`` (absolute accuracy ~1e-14).

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar.
    ValueError
        If ``kappa`` is not finite or below :data:`QUADRATURE_KAPPA_MIN` (1e-100).

    Notes
    -----
    Reconstruction, see :func:`critical_load` and chapter 4, eq. ``eq-alpha-kappa``.
    """
    k = _quadrature_kappa(kappa)
    if k >= 1.0:
        return 0.5

    def upper(tau: float, power: int) -> float:
        # int_{4 - tau}^4 x^power rho_MP(x) dx in u = 4 - x: integrand (4 - u)^{power - 1/2}
        # u^{1/2} / (2 pi), with the algebraic weight u^{1/2} of the soft edge at x = 4
        if tau <= 0:
            return 0.0
        val, _ = quad(
            lambda u: (4.0 - u) ** (power - 0.5) / (2.0 * math.pi),
            0.0,
            tau,
            weight="alg",
            wvar=(0.5, 0.0),
            epsabs=0.0,
            epsrel=1e-13,
        )
        return float(val)

    def lower(x0: float, power: int) -> float:
        # same integrand on [0, x0] with the weight x^{-1/2} of the hard edge at 0
        if x0 <= 0:  # an empty interval: scipy < 1.14's weighted quad calls it invalid input
            return 0.0
        val, _ = quad(
            lambda x: x**power * math.sqrt(4.0 - x) / (2.0 * math.pi),
            0.0,
            x0,
            weight="alg",
            wvar=(-0.5, 0.0),
            epsabs=0.0,
            epsrel=1e-13,
        )
        return float(val)

    rtol = 4.0 * float(np.finfo(np.float64).eps)
    if k <= 0.5:
        # mass above x = 0.5 is about 0.56 > kappa, so tau_kappa = 4 - x_kappa is in (0, 3.5)
        tau = brentq(lambda t: upper(t, 0) - k, 0.0, 3.5, xtol=1e-300, rtol=rtol, maxiter=500)
        return 0.5 * upper(tau, 1)
    x_k = brentq(lambda x: lower(x, 0) - (1.0 - k), 0.0, 2.25, xtol=1e-300, rtol=rtol)
    return 0.5 * (lower(4.0, 1) - lower(x_k, 1))


def hebbian_critical_load(kappa: ArrayLike) -> Any:
    """Perfect-recall threshold of the rank-truncated Hebbian memory, ``alpha_c(kappa) / 4``.

    Parameters
    ----------
    kappa : float or array_like
        Rank ratio in (0, inf); ``kappa >= 1`` gives the full-rank Hebbian value 1/8.

    Returns
    -------
    float or numpy.ndarray (float64)
        Shape of ``kappa``.

    Raises
    ------
    TypeError
        If ``kappa`` is not numeric.
    ValueError
        If any ``kappa <= 0`` or is not finite.

    Notes
    -----
    Reconstruction (digest section 7.2): the Hebbian rule loses the same factor 4 in load with
    or without the rank constraint (chapter 3 for kappa = 1, chapter 4 for kappa < 1);
    ``alpha_c(kappa)`` of chapter 4, eq. ``eq-alpha-kappa``; 1/8 at ``kappa >= 1``, chapter 3, eq.
    ``eq-hebb-eighth``.
    """
    k = check_kappa(kappa)
    return _out(np.asarray(critical_load(k)) / 4.0)


def small_kappa_limit(rel_error: float = 0.1) -> float:
    """Largest ``kappa`` up to which the asymptote ``2 kappa`` is within ``rel_error`` of theory.

    ``2 kappa / alpha_c(kappa) - 1`` grows from 0 (at ``kappa -> 0``) to 3 (at ``kappa = 1``);
    this returns the ``kappa`` where it equals ``rel_error``.

    Parameters
    ----------
    rel_error : float, default 0.1
        Relative overestimate allowed, in (0, 3).

    Returns
    -------
    float
        ``kappa`` in (0, 1) with ``2 kappa = (1 + rel_error) alpha_c(kappa)``.

    Raises
    ------
    ValueError
        If ``rel_error`` is not in (0, 3).

    Notes
    -----
    From the closed form :func:`critical_load` (reconstruction; chapter 4, small-kappa
    asymptote ``alpha_c = 2 kappa - c kappa^{5/3} + ...``).
    """
    if isinstance(rel_error, bool) or not (
        isinstance(rel_error, (int, float)) and 0 < rel_error < 3
    ):
        raise ValueError(f"rel_error must lie in (0, 3), got {rel_error!r}")
    return float(brentq(lambda k: 2 * k / critical_load(k) - 1 - rel_error, 1e-12, 1.0, xtol=1e-14))


def hebbian_fourth_moment(p: float, d: float) -> float:
    """Large-size value ``2 + d / p`` of :func:`fourth_moment_ratio` for the Hebbian memory.

    Parameters
    ----------
    p, d : float
        Number of associations and dimension, both > 0.

    Returns
    -------
    float
        ``2 + d / p``.

    Raises
    ------
    TypeError
        If ``p`` or ``d`` is not a real number.
    ValueError
        If ``p`` or ``d`` is not positive and finite.

    Notes
    -----
    For ``W = U^T E`` (``U, E`` of shape (p, d), i.i.d. ``N(0, 1/d)``), ``A = E E^T`` and
    ``B = U U^T`` are asymptotically free with ``tr(A)/p = tr(B)/p = 1`` and
    ``tr(A^2)/p = tr(B^2)/p = 1 + p/d``; the free-product moment
    ``phi(ABAB) = phi(A^2) phi(B)^2 + phi(A)^2 phi(B^2) - phi(A)^2 phi(B)^2 = 1 + 2p/d`` gives
    ``tr((W W^T)^2) d / tr(W W^T)^2 = (1 + 2p/d) d / p = 2 + d/p``. Leading order in ``1/d``
    (derived for this book, chapter 1; not from the paper). An i.i.d. Gaussian ``d x d`` matrix
    has ``E m_4 = d(2d + 1)/(d^2 + 2)`` exactly (:func:`gaussian_fourth_moment`, ``2 + 1/d`` to
    leading order); both tend to the quarter circle's 2.
    """
    return 2.0 + check_positive("d", d) / check_positive("p", p)


def gaussian_fourth_moment(d: int) -> float:
    """Mean of ``m_4 = d tr((W W^T)^2) / tr(W W^T)^2`` for a ``d x d`` i.i.d. Gaussian matrix.

    Parameters
    ----------
    d : int
        Dimension (>= 1).

    Returns
    -------
    float
        ``d (2d + 1) / (d^2 + 2) = 2 + (d - 4)/(d^2 + 2)`` (2.0548 at d = 12; 2 + 1/d to leading
        order in 1/d, 2 as d grows).

    Raises
    ------
    TypeError
        If ``d`` is not an integer.
    ValueError
        If ``d < 1``.

    Notes
    -----
    Exact, not asymptotic. ``m_4`` depends on ``W`` only through its direction ``W/||W||_F``,
    which for i.i.d. Gaussian entries is independent of ``||W||_F^2 = tr(W W^T)``; hence
    ``E m_4 = d E tr((W W^T)^2) / E tr(W W^T)^2``. With ``S = W W^T`` Wishart (d samples in
    dimension d, unit variance), ``E tr(S^2) = d^2 (2d + 1)`` and
    ``E (tr S)^2 = Var tr S + (E tr S)^2 = 2 d^2 + d^4``, so ``E m_4 = d(2d + 1)/(d^2 + 2)``.

    Examples
    --------
    >>> round(gaussian_fourth_moment(12), 4)
    2.0548
    """
    n = check_int("d", d, 1)
    return n * (2 * n + 1) / (n * n + 2)
