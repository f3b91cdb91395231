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

Two independent computations of alpha_c(kappa) are provided and cross-checked in the tests:
:func:`critical_load_closed_form` (vectorised Newton solve of the elementary equation above) and
:func:`critical_load_quadrature` (adaptive quadrature of the density and a bracketing root find);
:func:`critical_load_marchenko_pastur` is a third (quadrature of the eigenvalue form).

The module also holds the chapter-4 experiment: :func:`rank_capacity_sweep` trains ``W = Q R^T``
across loads and rank ratios (through :func:`assocmem.training.train_memory`), and the figures
built on :mod:`assocmem.plotting`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "quarter_circle_pdf",
    "quarter_circle_cdf",
    "quarter_circle_quantile",
    "truncation_point",
    "truncated_second_moment",
    "truncated_quarter_circle_pdf",
    "truncated_quarter_circle_cdf",
    "truncated_quarter_circle_quantile",
    "marchenko_pastur_pdf",
    "marchenko_pastur_cdf",
    "critical_load_closed_form",
    "critical_load_quadrature",
    "critical_load_marchenko_pastur",
    "hebbian_critical_load",
    "singular_values",
    "spectrum_ks_distance",
    "plot_critical_load",
    "plot_singular_values",
    "plot_rank_truncation",
    "finite_size_critical_load",
    "RankSweep",
    "rank_capacity_sweep",
    "plot_rank_success",
]


# ----------------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------------


def _as_float_array(x: ArrayLike, name: str) -> NDArray[np.float64]:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array of real numbers") from exc
    return arr


def _check_kappa(kappa: ArrayLike) -> NDArray[np.float64]:
    """Validate the rank ratio: finite and > 0 (values >= 1 mean no rank constraint)."""
    if isinstance(kappa, (bool, np.bool_)):
        raise TypeError("kappa must be a real number in (0, inf), got a bool")
    k = _as_float_array(kappa, "kappa")
    if not np.all(np.isfinite(k)) or np.any(k <= 0):
        raise ValueError(f"kappa must be finite and in (0, inf) (rank ratio m/d), got {kappa!r}")
    return k


def _check_scalar_kappa(kappa: float) -> float:
    k = _check_kappa(kappa)
    if k.ndim != 0:
        raise TypeError(f"kappa must be a scalar here, got an array of shape {k.shape}")
    return float(k)


def _check_prob(q: ArrayLike, name: str = "q") -> NDArray[np.float64]:
    arr = _as_float_array(q, name)
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must be a probability in [0, 1], got {q!r}")
    return arr


def _out(arr: NDArray[np.float64]) -> Any:
    """Return a Python float for 0-d results, else the array."""
    return float(arr) if arr.ndim == 0 else arr


# ----------------------------------------------------------------------------------------------
# the elementary function h(x) = x - sin x and its inverse on [0, pi]
# ----------------------------------------------------------------------------------------------


def _h(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """x - sin x without cancellation for small x (x >= 0)."""
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


# ----------------------------------------------------------------------------------------------
# quarter circle
# ----------------------------------------------------------------------------------------------


def quarter_circle_pdf(s: ArrayLike) -> Any:
    """Quarter-circle density of singular values, ``rho_QC(s) = sqrt(4 - s^2) / pi`` on [0, 2].

    Parameters
    ----------
    s : float or array_like
        Singular value(s) in units where ``E[s^2] = 1``; any real values (0 outside [0, 2]).

    Returns
    -------
    float or numpy.ndarray (float64, same shape as ``s``)

    Notes
    -----
    Source: the singular values of a square matrix with i.i.d. entries (here the optimal or
    Hebbian memory at ``p >> d``), digest section 7.1; chapter 4, eq. ``eq-rank-qc``.
    """
    s_arr = _as_float_array(s, "s")
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
    """
    s_arr = _as_float_array(s, "s")
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
    """
    q_arr = _check_prob(q)
    x = _h_inverse(math.pi * (1.0 - q_arr))
    return _out(2.0 * np.cos(0.5 * x))


# ----------------------------------------------------------------------------------------------
# truncated quarter circle (rank ratio kappa)
# ----------------------------------------------------------------------------------------------


def _x_of_kappa(k: NDArray[np.float64]) -> NDArray[np.float64]:
    """The angle x in [0, pi] with x - sin x = pi min(kappa, 1)."""
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
        ``s_kappa`` with ``int_{s_kappa}^2 rho_QC = min(kappa, 1)``.

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or is not finite.
    """
    k = _check_kappa(kappa)
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
        In (1, 4]; tends to 4 as ``kappa -> 0`` (all kept singular values near 2).
    """
    k = _check_kappa(kappa)
    keff = np.minimum(k, 1.0)
    return _out(2.0 * np.asarray(critical_load_closed_form(keff)) / keff)


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

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or is not finite.

    Notes
    -----
    Reconstruction (digest section 7.2; chapter 4, eq. ``eq-rank-truncated-qc``).
    """
    k = _check_scalar_kappa(kappa)
    c = _trunc_scale(k, unit_rms)
    s_arr = _as_float_array(s, "s") * c
    s_k = float(truncation_point(k))
    inside = (s_arr >= s_k) & (s_arr <= 2.0)
    dens = np.sqrt(np.clip(4.0 - s_arr**2, 0.0, None)) / (math.pi * min(k, 1.0))
    return _out(np.where(inside, c * dens, 0.0))


def truncated_quarter_circle_cdf(s: ArrayLike, kappa: float, *, unit_rms: bool = False) -> Any:
    """CDF of :func:`truncated_quarter_circle_pdf` (same arguments).

    Returns
    -------
    float or numpy.ndarray (float64)
        ``(kappa - (1 - F_QC(s))) / kappa`` on ``[s_kappa, 2]``, 0 below and 1 above.
    """
    k = _check_scalar_kappa(kappa)
    keff = min(k, 1.0)
    s_arr = _as_float_array(s, "s") * _trunc_scale(k, unit_rms)
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
    ValueError
        If ``q`` is outside [0, 1] or ``kappa <= 0`` / not finite.
    """
    k = _check_scalar_kappa(kappa)
    q_arr = _check_prob(q)
    keff = min(k, 1.0)
    x = _h_inverse(math.pi * keff * (1.0 - q_arr))
    return _out(2.0 * np.cos(0.5 * x) / _trunc_scale(k, unit_rms))


# ----------------------------------------------------------------------------------------------
# Marchenko-Pastur form (eigenvalues of W W^T)
# ----------------------------------------------------------------------------------------------


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
    """
    x_arr = _as_float_array(x, "x")
    inside = (x_arr > 0) & (x_arr <= 4)
    with np.errstate(divide="ignore", invalid="ignore"):
        dens = np.sqrt(np.clip(4.0 - x_arr, 0.0, None)) / (2.0 * math.pi * np.sqrt(x_arr))
    return _out(np.where(inside, dens, 0.0))


def marchenko_pastur_cdf(x: ArrayLike) -> Any:
    """CDF of :func:`marchenko_pastur_pdf`: ``F_MP(x) = F_QC(sqrt(x))``."""
    x_arr = _as_float_array(x, "x")
    return quarter_circle_cdf(np.sqrt(np.clip(x_arr, 0.0, None)))


# ----------------------------------------------------------------------------------------------
# alpha_c(kappa): closed form and quadrature
# ----------------------------------------------------------------------------------------------


def critical_load_closed_form(kappa: ArrayLike) -> Any:
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
        ``alpha_c = lim p log p / d^2`` at the storage transition. Increasing in ``kappa``,
        ``alpha_c ~ 2 kappa`` as ``kappa -> 0``, ``alpha_c(1) = 1/2``. Relative accuracy ~1e-14.

    Raises
    ------
    ValueError
        If any ``kappa <= 0`` or is not finite.
    TypeError
        If ``kappa`` is not numeric.

    Notes
    -----
    Reconstruction of the paper's two-layer result (digest section 7.2): half the second moment
    of the quarter circle held by its top ``kappa`` fraction; chapter 4, eq. ``eq-alpha-kappa``.
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
    k = _check_kappa(kappa)
    x = _x_of_kappa(k)
    alpha = _h(2.0 * x) / (4.0 * math.pi)
    alpha = np.where(k >= 1.0, 0.5, alpha)
    return _out(alpha)


def _qc_tail_mass(t: float) -> float:
    """int_{2-t}^{2} rho_QC(s) ds by adaptive quadrature (t = 2 - s in [0, 2])."""
    from scipy.integrate import quad

    if t <= 0:
        return 0.0
    # rho_QC(2 - t) = sqrt(t) sqrt(4 - t) / pi: algebraic weight t^{1/2} at the lower end
    val, _ = quad(
        lambda u: math.sqrt(4.0 - u) / math.pi,
        0.0,
        t,
        weight="alg",
        wvar=(0.5, 0.0),
        epsabs=0.0,
        epsrel=1e-13,
    )
    return float(val)


def _qc_tail_second_moment(t: float) -> float:
    """int_{2-t}^{2} s^2 rho_QC(s) ds by adaptive quadrature."""
    from scipy.integrate import quad

    if t <= 0:
        return 0.0
    val, _ = quad(
        lambda u: (2.0 - u) ** 2 * math.sqrt(4.0 - u) / math.pi,
        0.0,
        t,
        weight="alg",
        wvar=(0.5, 0.0),
        epsabs=0.0,
        epsrel=1e-13,
    )
    return float(val)


def _lower_mass(s: float) -> float:
    """int_0^{s} rho_QC by adaptive quadrature (used for s <= 1.5, where rho_QC is smooth)."""
    from scipy.integrate import quad

    val, _ = quad(lambda u: math.sqrt(4.0 - u * u) / math.pi, 0.0, s, epsabs=0.0, epsrel=1e-13)
    return float(val)


def _lower_second_moment(s: float) -> float:
    """int_0^{s} s^2 rho_QC by adaptive quadrature (s <= 1.5)."""
    from scipy.integrate import quad

    val, _ = quad(
        lambda u: u * u * math.sqrt(4.0 - u * u) / math.pi, 0.0, s, epsabs=0.0, epsrel=1e-13
    )
    return float(val)


def critical_load_quadrature(kappa: float) -> float:
    """Capacity ``alpha_c(kappa)`` by quadrature of the quarter-circle density (independent check).

    Finds the edge ``s_kappa`` with ``int_{s_kappa}^2 rho_QC = kappa`` by Brent's method on an
    adaptive (QUADPACK) quadrature of ``rho_QC``, then integrates ``s^2 rho_QC / 2`` over
    ``[s_kappa, 2]``. For ``kappa <= 1/2`` it works in ``t = 2 - s`` with the algebraic weight
    ``t^{1/2}`` of the square-root edge; for ``kappa > 1/2`` it integrates the smooth lower part
    ``[0, s_kappa]`` and subtracts it from the (also integrated) total. It uses no closed form,
    so it cross-checks :func:`critical_load_closed_form`.

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
        If ``kappa <= 0`` or is not finite.
    TypeError
        If ``kappa`` is not a real scalar.

    Notes
    -----
    Reconstruction, see :func:`critical_load_closed_form` and chapter 4, eq. ``eq-alpha-kappa``.
    """
    from scipy.optimize import brentq

    k = _check_scalar_kappa(kappa)
    if k >= 1.0:
        return 0.5
    rtol = 4.0 * float(np.finfo(np.float64).eps)
    if k <= 0.5:
        t_k = brentq(lambda t: _qc_tail_mass(t) - k, 0.0, 2.0, xtol=1e-300, rtol=rtol, maxiter=500)
        return 0.5 * _qc_tail_second_moment(t_k)
    # 1 - kappa < 1/2 and the quarter circle's median is below 1.5: s_kappa lies in [0, 1.5]
    s_k = brentq(lambda s: _lower_mass(s) - (1.0 - k), 0.0, 1.5, xtol=1e-300, rtol=rtol)
    total = _qc_tail_second_moment(2.0)
    return 0.5 * (total - _lower_second_moment(s_k))


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

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or is not finite.
    """
    from scipy.integrate import quad
    from scipy.optimize import brentq

    k = _check_scalar_kappa(kappa)
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

    Raises
    ------
    ValueError
        If any ``kappa <= 0`` or is not finite.

    Notes
    -----
    Reconstruction (digest section 7.2): the Hebbian rule loses the same factor 4 in load with
    or without the rank constraint (chapter 3 for kappa = 1, chapter 4 for kappa < 1).
    """
    k = _check_kappa(kappa)
    return _out(np.asarray(critical_load_closed_form(k)) / 4.0)


# ----------------------------------------------------------------------------------------------
# empirical spectra
# ----------------------------------------------------------------------------------------------


def singular_values(
    W: Any, normalize: bool = True, *, rank: int | None = None
) -> NDArray[np.float64]:
    """Singular values of a (batch of) weight matrices, largest first.

    Parameters
    ----------
    W : numpy.ndarray or torch.Tensor, shape (..., d_out, d_in)
        One matrix or a batch (e.g. one per seed, shape ``(n_seeds, d, d)``).
    normalize : bool, default True
        Divide each matrix's singular values by their root mean square, so that
        ``mean(s^2) = 1`` per matrix (the units of :func:`quarter_circle_pdf`).
    rank : int, optional
        Keep only the ``rank`` largest singular values (before normalising): for ``W = Q R^T``
        with ``m`` columns pass ``rank=m`` to drop the ``d - m`` numerical zeros; then compare with
        ``truncated_quarter_circle_pdf(s, m / d, unit_rms=True)``.

    Returns
    -------
    numpy.ndarray, float64, shape (..., k)
        ``k = rank`` or ``min(d_out, d_in)``; sorted in decreasing order along the last axis.

    Raises
    ------
    TypeError
        If ``W`` is not an array or tensor of real numbers.
    ValueError
        If ``W`` has fewer than 2 dimensions, ``rank`` is not in ``[1, min(d_out, d_in)]``, or a
        matrix is zero (or not finite) when ``normalize`` is True.
    """
    try:
        import torch

        if isinstance(W, torch.Tensor):
            arr = W.detach().to("cpu", torch.float64).numpy()
        else:
            arr = np.asarray(W, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"W must be an array or tensor of real numbers, got {type(W).__name__}"
        ) from exc
    if arr.ndim < 2:
        raise ValueError(f"W must have shape (..., d_out, d_in), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("W contains non-finite entries")
    s = np.linalg.svd(arr, compute_uv=False)  # (..., k), descending
    kmax = s.shape[-1]
    if rank is not None:
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise TypeError(f"rank must be an integer, got {type(rank).__name__}")
        if not 1 <= rank <= kmax:
            raise ValueError(f"rank must be in [1, {kmax}] (min(d_out, d_in)), got {rank}")
        s = s[..., : int(rank)]
    if normalize:
        rms = np.sqrt(np.mean(s**2, axis=-1, keepdims=True))
        if np.any(rms <= 0):
            raise ValueError("cannot normalise the singular values of a zero matrix")
        s = s / rms
    return np.ascontiguousarray(s)


def spectrum_ks_distance(s: ArrayLike, kappa: float = 1.0) -> float:
    """Kolmogorov–Smirnov distance between empirical singular values and the (truncated) law.

    Parameters
    ----------
    s : array_like
        Singular values normalised to mean square 1 (any shape; pooled), e.g. the output of
        ``singular_values(W, rank=m)``.
    kappa : float, default 1.0
        Rank ratio; compares with ``truncated_quarter_circle_cdf(., kappa, unit_rms=True)``
        (the quarter circle itself for ``kappa >= 1``).

    Returns
    -------
    float
        ``sup_s |F_emp(s) - F(s)|`` in [0, 1]; about ``1/sqrt(n)`` for ``n`` exact samples.

    Raises
    ------
    ValueError
        If ``s`` is empty or not finite, or ``kappa`` is invalid.
    """
    k = _check_scalar_kappa(kappa)
    x = np.sort(_as_float_array(s, "s").ravel())
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("s must be a non-empty array of finite singular values")
    n = x.size
    F = np.asarray(truncated_quarter_circle_cdf(x, k, unit_rms=True))
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - F), np.max(F - (i - 1) / n)))


# ----------------------------------------------------------------------------------------------
# figures (built on assocmem.plotting)
# ----------------------------------------------------------------------------------------------


def plot_critical_load(
    *,
    measured: dict[float, tuple[float, float]] | None = None,
    finite_size: dict[float, float] | None = None,
    kappa_max: float = 1.25,
) -> Figure:
    """The capacity curve alpha_c(kappa), its small-kappa asymptote, the Hebbian curve and data.

    Parameters
    ----------
    measured : dict, optional
        ``{kappa: (alpha_hat, stderr)}``: capacities estimated from training (simulation
        markers with error bars).
    finite_size : dict, optional
        ``{kappa: alpha}``: a finite-size theory estimate at the simulated size (open markers).
    kappa_max : float, default 1.25
        Right end of the kappa axis (> 0).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``kappa_max <= 0``.
    """
    from assocmem.plotting import color, finish, new_figure, sim_points, theory_line

    if not (np.isfinite(kappa_max) and kappa_max > 0):
        raise ValueError(f"kappa_max must be > 0, got {kappa_max}")
    fig, ax = new_figure()
    k = np.linspace(1e-3, kappa_max, 400)
    theory_line(ax, k, critical_load_closed_form(k), label=r"theory $\alpha_c(\kappa)$ (optimal)",
                color=color(0))  # fmt: skip
    ks = k[k <= 0.35]
    theory_line(ax, ks, 2 * ks, label=r"small-$\kappa$ asymptote $2\kappa$", color=color(6),
                linestyle="--")  # fmt: skip
    theory_line(ax, k, hebbian_critical_load(k), label=r"Hebbian $\alpha_c(\kappa)/4$",
                color=color(1), linestyle=":")  # fmt: skip
    if finite_size:
        kk = np.array(sorted(finite_size))
        ax.plot(kk, [finite_size[x] for x in kk], marker="s", linestyle="none", mfc="none",
                color=color(2), label="finite-size estimate (heuristic)")  # fmt: skip
    if measured:
        kk = np.array(sorted(measured))
        sim_points(ax, kk, [measured[x][0] for x in kk], [measured[x][1] for x in kk],
                   label=r"simulation: trained $W=QR^{T}$", color=color(2))  # fmt: skip
    ax.set_xlabel(r"rank ratio $\kappa = m/d$")
    ax.set_ylabel(r"load $\alpha = p\log p/d^2$")
    ax.set_xlim(0, kappa_max)
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right", fontsize=8)
    return finish(fig)


def plot_singular_values(
    spectra: dict[float, NDArray[np.float64]],
    *,
    bins: int = 24,
) -> Figure:
    """Histograms and quantile–quantile plot of trained singular values against theory.

    Parameters
    ----------
    spectra : dict
        ``{kappa: s}`` with ``s`` the non-zero singular values (pooled over seeds), normalised to
        mean square 1 (``singular_values(W, rank=m)``); empty entries are skipped.
    bins : int, default 24
        Largest number of histogram bins per panel (>= 2); a panel with ``n`` values uses
        ``min(bins, max(6, n // 6))``.

    Returns
    -------
    matplotlib.figure.Figure
        Top row: one histogram per kappa with the theory density (quarter circle for
        ``kappa >= 1``, truncated quarter circle otherwise, both rescaled to mean square 1).
        Bottom row: empirical vs theoretical quantiles, one panel per kappa.

    Raises
    ------
    ValueError
        If ``spectra`` holds no singular values or ``bins < 2``.
    """
    from assocmem.plotting import color, finish, new_figure, sim_points, theory_line

    if not spectra:
        raise ValueError("spectra must contain at least one {kappa: singular values} entry")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2, got {bins!r}")
    kappas = sorted(k for k in spectra if np.asarray(spectra[k]).size > 0)
    if not kappas:
        raise ValueError("spectra holds no singular values (every entry is empty)")
    n = len(kappas)
    fig, axes = new_figure(2, n, width=max(6.4, 2.6 * n), height=5.6)
    axes = np.asarray(axes).reshape(2, n)
    for j, k in enumerate(kappas):
        s = np.sort(np.asarray(spectra[k], dtype=np.float64).ravel())
        ax = axes[0, j]
        nb = int(min(bins, max(6, s.size // 6)))
        hist, edges = np.histogram(s, bins=nb, density=True)
        centres = 0.5 * (edges[1:] + edges[:-1])
        err = np.sqrt(hist / (s.size * np.diff(edges)))
        sim_points(ax, centres, hist, err, label="trained $W$", color=color(j), markersize=3)
        grid = np.linspace(0, 2.0 / math.sqrt(float(truncated_second_moment(k))) * 1.001, 400)
        lab = "quarter circle" if k >= 1 else "truncated q.c."
        theory_line(ax, grid, truncated_quarter_circle_pdf(grid, k, unit_rms=True),
                    label=f"theory: {lab}", color="k", linewidth=1.2)  # fmt: skip
        ax.set_title(rf"$\kappa = {k:g}$")
        ax.set_xlabel(r"singular value $s$ / rms")
        if j == 0:
            ax.set_ylabel("density")
        ax.legend(loc="upper left", fontsize=7)
        ax = axes[1, j]
        q = (np.arange(1, s.size + 1) - 0.5) / s.size
        th = np.asarray(truncated_quarter_circle_quantile(q, k, unit_rms=True))
        ax.plot(th, s, marker=".", linestyle="none", markersize=3, color=color(j),
                label="trained $W$")  # fmt: skip
        lim = [0, max(th.max(), s.max()) * 1.05]
        theory_line(ax, lim, lim, label="theory (y = x)", color="k", linewidth=1.0)
        ax.set_xlabel("theoretical quantile")
        if j == 0:
            ax.set_ylabel("empirical quantile")
        ax.text(0.95, 0.05, f"KS = {spectrum_ks_distance(s, k):.3f}", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=8)  # fmt: skip
        ax.legend(loc="upper left", fontsize=7)
    return finish(fig)


def plot_rank_truncation(kappa: float = 0.5) -> Figure:
    """Explorer view: which part of the quarter circle a rank-``kappa d`` memory keeps.

    Parameters
    ----------
    kappa : float, default 0.5
        Rank ratio in (0, inf).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the quarter circle with the kept top-``kappa`` fraction shaded and the edge
        ``s_kappa``. Right: ``alpha_c(kappa)`` and its Hebbian analogue with the current point.

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or is not finite.
    """
    from assocmem.plotting import color, finish, new_figure, theory_line

    k = _check_scalar_kappa(kappa)
    s_k = float(truncation_point(k))
    a_k = float(critical_load_closed_form(k))
    fig, (ax0, ax1) = new_figure(1, 2)
    s = np.linspace(0, 2, 400)
    theory_line(ax0, s, quarter_circle_pdf(s), label=r"$\rho_{QC}(s)$", color=color(0))
    kept = s >= s_k
    ax0.fill_between(s[kept], 0, quarter_circle_pdf(s[kept]), color=color(0), alpha=0.3,
                     label=rf"kept: mass $\kappa={min(k, 1):.2f}$")  # fmt: skip
    ax0.fill_between(s[kept], 0, s[kept] ** 2 * quarter_circle_pdf(s[kept]), color=color(1),
                     alpha=0.25, label=rf"$s^2\rho$: area $2\alpha_c={2 * a_k:.3f}$")  # fmt: skip
    ax0.plot(s, s**2 * quarter_circle_pdf(s), color=color(1), linewidth=1.0, linestyle="--",
             label=r"$s^2\rho_{QC}(s)$: area 1")  # fmt: skip
    ax0.axvline(s_k, color="k", linewidth=0.8, linestyle="--")
    ax0.set_xlabel(r"singular value $s$ (full-rank rms = 1)")
    ax0.set_ylabel("density")
    ax0.set_title(rf"$s_\kappa = {s_k:.3f}$")
    ax0.legend(loc="upper left", fontsize=8)
    ax0.set_ylim(0, 1.35)
    kk = np.linspace(1e-3, 1.25, 300)
    theory_line(ax1, kk, critical_load_closed_form(kk), label=r"$\alpha_c(\kappa)$",
                color=color(0))  # fmt: skip
    theory_line(ax1, kk, hebbian_critical_load(kk), label=r"Hebbian $\alpha_c/4$",
                color=color(1), linestyle=":")  # fmt: skip
    ax1.plot([k], [a_k], marker="o", color="k", linestyle="none",
             label=rf"$\alpha_c({k:.2f}) = {a_k:.4f}$")  # fmt: skip
    ax1.set_xlabel(r"rank ratio $\kappa = m/d$")
    ax1.set_ylabel(r"critical load $\alpha_c$")
    ax1.set_xlim(0, 1.25)
    ax1.set_ylim(0, 0.55)
    ax1.legend(loc="lower right", fontsize=8)
    return finish(fig, title="Rank constraint: truncated quarter circle (reconstruction)")


# ----------------------------------------------------------------------------------------------
# training sweep over the rank ratio (W = Q R^T)
# ----------------------------------------------------------------------------------------------


def finite_size_critical_load(
    kappa: float, d: int, *, seed: int = 0, rel_error: float = 0.01
) -> tuple[float, int]:
    """Heuristic finite-size capacity of a rank-``kappa d`` memory at embedding dimension ``d``.

    Solves ``alpha = 2 alpha_c(kappa) * alpha_c(p)`` with ``p log p = alpha d^2`` by fixed-point
    iteration, where ``alpha_c(p) = log p / E[C_p]`` is the finite-size capacity of the full-rank
    decoupled problem (:func:`assocmem.replica.finite_size_capacity_estimate`, Monte Carlo) and
    ``2 alpha_c(kappa)`` the fraction of the quarter circle's second moment a rank-``kappa d``
    memory keeps.

    Parameters
    ----------
    kappa : float
        Rank ratio in (0, inf).
    d : int
        Embedding dimension, >= 2.
    seed : int
        Seed of the Monte Carlo estimate of ``E[C_p]``.
    rel_error : float
        Relative standard error of that estimate, in (0, 1).

    Returns
    -------
    (alpha, p) : tuple of (float, int)
        Predicted transition load and the number of associations there.

    Raises
    ------
    ValueError
        If ``kappa <= 0`` or not finite, or ``d < 2``.

    Notes
    -----
    A heuristic (digest section 7.2, "by analogy with section 4.3"): neither this product form
    nor the value of ``alpha_c(kappa)`` is read from the paper. Reconstruction, see chapter 4.
    """
    from assocmem.problems import pairs_for_load
    from assocmem.replica import finite_size_capacity_estimate

    k = _check_scalar_kappa(kappa)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    factor = 2.0 * float(critical_load_closed_form(k))
    alpha, p = factor, 0
    for _ in range(8):
        p_new = pairs_for_load(alpha, int(d))
        if p_new == p:
            break
        p = p_new
        alpha = factor * finite_size_capacity_estimate(p, seed=seed, rel_error=rel_error)[0]
    return alpha, p


def _crossing_interval(
    alphas: NDArray[np.float64], frac: NDArray[np.float64]
) -> tuple[float, float]:
    """First alpha where the success fraction drops through 1/2 (linear interpolation), and the
    width of the grid interval that brackets it (NaN, NaN if there is no crossing)."""
    if frac[0] < 0.5:
        return float("nan"), float("nan")
    for i in range(len(alphas) - 1):
        if frac[i] >= 0.5 > frac[i + 1]:
            f0, f1 = frac[i], frac[i + 1]
            width = float(alphas[i + 1] - alphas[i])
            return float(alphas[i] + (f0 - 0.5) / (f0 - f1) * width), width
    return float("nan"), float("nan")


def _crossing(alphas: NDArray[np.float64], frac: NDArray[np.float64]) -> float:
    return _crossing_interval(alphas, frac)[0]


class RankSweep:
    """Result of :func:`rank_capacity_sweep`: success of training ``W = Q R^T`` per kappa and load.

    Attributes
    ----------
    d : int
        Embedding dimension.
    kappas : list of float
        Rank ratios ``m / d`` (``m = round(kappa d)``).
    alphas : dict kappa -> ndarray (n_alpha,)
        Loads ``p log p / d^2`` actually used (from the integer ``p``).
    p : dict kappa -> ndarray of int (n_alpha,)
    success : dict kappa -> bool ndarray (n_alpha, n_seeds)
        Perfect recall of all ``p`` associations within the step budget.
    accuracy : dict kappa -> ndarray (n_alpha, n_seeds)
        Fraction recalled at the end.
    steps : dict kappa -> ndarray (n_alpha, n_seeds)
        Adam steps used (the budget for failures).
    singular_values : dict kappa -> ndarray
        Non-zero singular values (top ``m``, normalised to mean square 1 per matrix) of the
        successful memories at the largest load where at least half of the seeds succeeded
        (else the largest load with any success), pooled over those seeds (empty if no seed
        succeeded at any load).
    spectrum_load : dict kappa -> float
        The load at which those memories were trained (NaN if none).
    predicted : dict kappa -> float
        Heuristic finite-size prediction (:func:`finite_size_critical_load`).
    seconds : float
        Wall time of the sweep.
    """

    def __init__(self, d: int, kappas: list[float]) -> None:
        self.d = d
        self.kappas = kappas
        self.alphas: dict[float, NDArray[np.float64]] = {}
        self.p: dict[float, NDArray[np.int64]] = {}
        self.success: dict[float, NDArray[np.bool_]] = {}
        self.accuracy: dict[float, NDArray[np.float64]] = {}
        self.steps: dict[float, NDArray[np.int64]] = {}
        self.singular_values: dict[float, NDArray[np.float64]] = {}
        self.spectrum_load: dict[float, float] = {}
        self.predicted: dict[float, float] = {}
        self.seconds = 0.0

    def success_probability(
        self, kappa: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``(alphas, fraction of seeds stored perfectly, binomial standard error)``."""
        s = self.success[kappa].astype(np.float64)
        frac = s.mean(axis=1)
        n = s.shape[1]
        err = np.sqrt(np.maximum(frac * (1 - frac), 0.25 / n) / n)
        return self.alphas[kappa], frac, err

    def capacity(self, kappa: float, *, n_boot: int = 400, seed: int = 0) -> tuple[float, float]:
        """Estimated capacity: load where the success fraction crosses 1/2, with an error.

        Linear interpolation between grid loads. The error combines in quadrature the standard
        deviation over ``n_boot`` resamplings of the seeds and the grid resolution (width of the
        bracketing interval / sqrt(12), the spread of a point known only to lie in it); NaN if
        the crossing is outside the grid.
        """
        a, frac, _ = self.success_probability(kappa)
        est, width = _crossing_interval(a, frac)
        s = self.success[kappa].astype(np.float64)
        rng = np.random.default_rng(seed)
        boots = []
        for _ in range(n_boot):
            cols = rng.integers(0, s.shape[1], s.shape[1])
            boots.append(_crossing(a, s[:, cols].mean(axis=1)))
        b = np.asarray(boots)
        b = b[np.isfinite(b)]
        boot = float(b.std(ddof=1)) if b.size > 1 else 0.0
        err = math.sqrt(boot**2 + width**2 / 12.0) if math.isfinite(est) else float("nan")
        return est, err

    def summary(self) -> str:
        """A small text table: kappa, m, alpha_c(kappa), finite-size estimate, measured capacity."""
        lines = [
            f"d = {self.d}; {self.seconds:.0f} s",
            f"{'kappa':>6} {'m':>4} {'alpha_c(kappa)':>15} {'finite-size est.':>17} "
            f"{'measured':>10} {'+-':>6}",
        ]
        for k in self.kappas:
            est, err = self.capacity(k)
            lines.append(
                f"{k:6.2f} {round(k * self.d):4d} {float(critical_load_closed_form(k)):15.4f} "
                f"{self.predicted[k]:17.3f} {est:10.3f} {err:6.3f}"
            )
        return "\n".join(lines)


def rank_capacity_sweep(
    d: int,
    kappas: list[float],
    relative_loads: ArrayLike = (0.6, 0.8, 1.0, 1.2, 1.4),
    *,
    seeds: int | list[int] = 4,
    steps: int = 1000,
    lr: float = 0.2,
    check_every: int = 25,
    patience: int | None = 200,
    decoupled: bool = False,
    device: Any = None,
    progress: bool = True,
) -> RankSweep:
    """Train ``W = Q R^T`` (rank ``m = round(kappa d)``) across loads and seeds, for each kappa.

    For each kappa the loads are ``relative_loads`` times the heuristic finite-size prediction
    :func:`finite_size_critical_load`, so every grid brackets its own transition. Each load
    trains all seeds as one batch with :func:`assocmem.training.train_memory` (cross-entropy,
    Adam, small random factors, early stop at perfect recall).

    Parameters
    ----------
    d : int
        Embedding dimension (>= 2).
    kappas : list of float
        Rank ratios in (0, 1].
    relative_loads : array_like of float
        Loads in units of the predicted transition (each > 0, increasing).
    seeds : int or list of int
        Number of seeds (``range(seeds)``) or the seeds themselves.
    steps, lr, check_every, patience
        Adam budget, learning rate, check interval and stall stop, passed to ``train_memory``.
        At d = 48, kappa = 1/2 and a load near the transition, lr = 0.2 stored 3 of 4 problems
        within 400 steps where lr = 0.02 needed 370-640 steps and lr = 0.5 stored none in 600.
        ``patience`` stops a problem whose loss has stalled (above capacity), which saves most of
        the budget there; it is a heuristic and may stop a slow, storable problem.
    decoupled : bool
        Original (False) or decoupled (True) problem.
    device : str, torch.device or None
        Where to train (``assocmem.device.get_device``).
    progress : bool
        Show a tqdm bar over (kappa, load) pairs.

    Returns
    -------
    RankSweep

    Raises
    ------
    ValueError
        If a kappa is outside (0, 1], ``relative_loads`` is empty / not positive / not
        increasing, or ``seeds`` is empty.

    Notes
    -----
    A fixed step budget underestimates the capacity near the transition (Adam slows down
    there, digest section 8): the measured value is a finite-size, finite-time estimate.
    """
    import time

    import torch
    from tqdm.auto import tqdm

    from assocmem.problems import load_for_pairs, pairs_for_load, sample_problems
    from assocmem.training import train_memory

    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    ks = [float(_check_scalar_kappa(k)) for k in kappas]
    if not ks or any(k > 1 for k in ks):
        raise ValueError(f"kappas must be a non-empty list of values in (0, 1], got {kappas!r}")
    rel = _as_float_array(relative_loads, "relative_loads").ravel()
    if rel.size == 0 or np.any(rel <= 0) or np.any(np.diff(rel) <= 0):
        raise ValueError(f"relative_loads must be positive and increasing, got {relative_loads!r}")
    seed_list = list(range(seeds)) if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not seed_list:
        raise ValueError("seeds must be a positive number or a non-empty list of seeds")
    t0 = time.perf_counter()
    out = RankSweep(int(d), ks)
    bar = tqdm(total=len(ks) * rel.size, desc="rank sweep", disable=not progress)
    for k in ks:
        m = max(1, round(k * d))
        pred, _ = finite_size_critical_load(k, int(d))
        out.predicted[k] = pred
        ps = np.array([pairs_for_load(pred * r, int(d)) for r in rel], dtype=np.int64)
        succ = np.zeros((rel.size, len(seed_list)), dtype=bool)
        acc = np.zeros((rel.size, len(seed_list)))
        nsteps = np.zeros((rel.size, len(seed_list)), dtype=np.int64)
        spec = np.zeros(0)
        spec_load = float("nan")
        for i, p in enumerate(ps):
            problems = sample_problems(
                int(p),
                int(d),
                [1000 * i + s for s in seed_list],
                decoupled=decoupled,
                device=device,
            )
            res = train_memory(
                problems,
                rank=m,
                steps=steps,
                lr=lr,
                check_every=check_every,
                patience=patience,
                seed=7 * i,
            )
            succ[i] = np.asarray(res.perfect)
            acc[i] = np.asarray(res.accuracy)
            nsteps[i] = np.asarray(res.steps)
            # spectra: the largest load where at least half of the seeds succeeded (else any)
            if succ[i].any() and (2 * succ[i].sum() >= succ[i].size or spec.size == 0):
                ok = torch.as_tensor(succ[i], device=res.weights.device)
                spec = singular_values(res.weights[ok], rank=m).ravel()
                spec_load = load_for_pairs(int(p), int(d))
            bar.update(1)
        out.alphas[k] = np.array([load_for_pairs(int(p), int(d)) for p in ps])
        out.p[k] = ps
        out.success[k], out.accuracy[k], out.steps[k] = succ, acc, nsteps
        out.singular_values[k], out.spectrum_load[k] = spec, spec_load
    bar.close()
    out.seconds = time.perf_counter() - t0
    return out


def plot_rank_success(sweep: RankSweep) -> Figure:
    """Probability of perfect storage vs load for each kappa, with theory markers.

    Parameters
    ----------
    sweep : RankSweep
        Output of :func:`rank_capacity_sweep`.

    Returns
    -------
    matplotlib.figure.Figure
        Simulation markers with binomial error bars (one colour per kappa), the asymptotic
        ``alpha_c(kappa)`` (solid vertical line) and the heuristic finite-size estimate (dashed).
    """
    from assocmem.plotting import color, finish, new_figure, sim_points

    fig, ax = new_figure(width=7.2, height=4.4)
    for j, k in enumerate(sweep.kappas):
        a, frac, err = sweep.success_probability(k)
        sim_points(ax, a, frac, err, label=rf"simulation $\kappa={k:g}$", color=color(j),
                   linestyle=":")  # fmt: skip
        ax.axvline(float(critical_load_closed_form(k)), color=color(j), linewidth=1.2)
        ax.axvline(sweep.predicted[k], color=color(j), linewidth=1.2, linestyle="--")
    ax.plot([], [], color="k", linewidth=1.2, label=r"theory $\alpha_c(\kappa)$, $d\to\infty$")
    ax.plot([], [], color="k", linewidth=1.2, linestyle="--",
            label=f"finite-size estimate, $d={sweep.d}$ (heuristic)")  # fmt: skip
    ax.set_xlabel(r"load $\alpha = p\log p/d^2$")
    ax.set_ylabel("P(all associations stored)")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="lower left", fontsize=8)
    return finish(fig)
