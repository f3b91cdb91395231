"""The Hebbian (correlation-matrix) memory: score statistics and recall thresholds.

The Hebbian memory stores ``p`` associations ``e_mu -> u_mu`` as
``W_Hebb = sum_mu u_mu e_mu^T``; the score of candidate ``nu`` for input ``mu`` is
``s_{mu nu} = u_nu^T W_Hebb e_mu``. This module gives the exact mean and variance of the target
(``nu = mu``) and non-target scores, a Gaussian / extreme-value theory of the probability of
recall, and the loads at which that probability crosses 1/2 under the two recall criteria:

* ``"all"``: every one of the ``p`` associations is recalled (perfect storage); the threshold
  tends to ``alpha = 1/8``;
* ``"typical"``: one given association is recalled (the expected accuracy); the threshold tends
  to ``alpha = 1/2``.

Sources: Giorlandino, Goldt & Maillard (arXiv:2605.10795), abstract (the Hebbian baseline);
Barnfield et al. (arXiv:2605.05189), Prop. 1 (``d^2 = 8 p log p``). The moments, the Gaussian
theory and the finite-size thresholds are reconstructions, see chapter 3 and the digest §5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import log_ndtr
from scipy.stats import chi2, gamma

from assocmem._validate import as_float_array, check_finite_array
from assocmem.linear.theory.load import dimension_for_load

#: Embedding laws understood by this module. ``"gaussian"``: i.i.d. N(0, I_d/d) (the book's
#: convention); ``"spherical"``: uniform on the unit sphere; ``"leading"``: the leading-order
#: idealisation in which both scores have variance p/d^2 (no 1/d terms).
EMBEDDINGS = ("gaussian", "spherical", "leading")


#: Recall criteria: ``"all"`` = all p associations recalled, ``"typical"`` = one association.
CRITERIA = ("all", "typical")


_Z = np.linspace(-12.0, 12.0, 1601)  # quadrature grid for the target fluctuation (units of std)


_N_NODES = 8  # quantile nodes per norm variable in the conditional model


def _check_embedding(embedding: str) -> str:
    if embedding not in EMBEDDINGS:
        raise ValueError(f"embedding must be one of {EMBEDDINGS}, got {embedding!r}")
    return embedding


def _check_criterion(criterion: str) -> str:
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    return criterion


def _as_positive(name: str, value: Any, minimum: float) -> np.ndarray:
    """Return ``value`` as a float array, each entry finite and >= ``minimum`` (no bools)."""
    if isinstance(value, (bool, np.bool_)) or getattr(value, "dtype", None) == np.bool_:
        raise TypeError(f"{name} must be a real number or array of real numbers, got {value!r}")
    arr = as_float_array(value, name)
    if not np.all(np.isfinite(arr)) or np.any(arr < minimum):
        raise ValueError(f"{name} must be finite and >= {minimum}, got {value!r}")
    return arr


def score_moments(
    p: float | np.ndarray, d: float | np.ndarray, *, embedding: str = "gaussian"
) -> dict[str, Any]:
    """Exact mean and variance of Hebbian target and non-target scores.

    Parameters
    ----------
    p : float or ndarray
        Number of stored associations, >= 2 (non-integers are accepted for smooth curves).
    d : float or ndarray
        Embedding dimension, >= 1 (broadcast against ``p``).
    embedding : {"gaussian", "spherical", "leading"}
        Law of the i.i.d. input and output embeddings: N(0, I_d/d), uniform on the unit sphere,
        or the leading-order idealisation (both variances p/d^2).

    Returns
    -------
    dict
        ``target_mean``, ``target_var``, ``nontarget_mean``, ``nontarget_var`` (float or ndarray,
        float64, in the units of the scores themselves) and ``sigma_w2`` = E||W||_F^2 / d^2 = p/d^2.
        Gaussian: target mean 1, variance (p+3)/d^2 + 4/d; non-target mean 0, variance
        (p+2)/d^2 + 2/d. Spherical: target variance (p-1)/d^2, non-target (p-2)/d^2 + 2/d.

    Raises
    ------
    ValueError
        If ``p < 2``, ``d < 1``, either is not finite, or ``embedding`` is unknown.

    Notes
    -----
    Reconstruction (chapter 3, eq. ``eq-hebb-moments``). Writing
    ``s_{mu nu} = sum_lambda (u_nu . u_lambda)(e_lambda . e_mu)``, all terms are uncorrelated;
    a cross term has variance 1/d^2, a term with one squared norm (lambda = nu or lambda = mu in a
    non-target score) has variance E||u||^4 / d = (1 + 2/d)/d, and the target's
    ``||u_mu||^2 ||e_mu||^2`` has variance (1 + 2/d)^2 - 1 = 4/d + 4/d^2. The issue text and the
    digest (§5.2) drop the O(1/d^2) parts ((p-1)/d^2 + 4/d and (p-2)/d^2 + 2/d); simulation
    (tests/linear/theory/test_hebbian.py) resolves the difference at small d in favour of the exact
    values.
    """
    _check_embedding(embedding)
    p_arr = _as_positive("p", p, 2.0)
    d_arr = _as_positive("d", d, 1.0)
    return _moments(p_arr, d_arr, embedding)


def _moments(p: np.ndarray, d: np.ndarray, embedding: str) -> dict[str, Any]:
    """Unchecked core of :func:`score_moments` (d may be any positive real here)."""
    p_arr, d_arr = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(d, dtype=float))
    if embedding == "gaussian":
        t_var = (p_arr + 3.0) / d_arr**2 + 4.0 / d_arr
        n_var = (p_arr + 2.0) / d_arr**2 + 2.0 / d_arr
    elif embedding == "spherical":
        t_var = (p_arr - 1.0) / d_arr**2
        n_var = (p_arr - 2.0) / d_arr**2 + 2.0 / d_arr
    else:
        t_var = p_arr / d_arr**2
        n_var = p_arr / d_arr**2

    def out(a: np.ndarray) -> Any:
        return float(a) if a.ndim == 0 else a

    return {
        "target_mean": out(np.ones_like(t_var)),
        "target_var": out(t_var),
        "nontarget_mean": out(np.zeros_like(n_var)),
        "nontarget_var": out(n_var),
        "sigma_w2": out(p_arr / d_arr**2),
    }


def _quantile_nodes(dist: Any, n: int) -> np.ndarray:
    """Midpoint quantiles of a scipy distribution: an n-point equal-weight quadrature."""
    return np.asarray(dist.ppf((np.arange(n) + 0.5) / n), dtype=float)


def _conditional_model(
    p: float, d: float, embedding: str, z: np.ndarray = _Z
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Target score, competitor variance and quadrature weight on the nodes of the model.

    Returns arrays broadcast to a common shape (..., len(z)); the weights sum to 1.
    """
    dz = np.gradient(z)
    w_z = np.exp(-0.5 * z**2) * dz
    w_z = w_z / w_z.sum()
    if embedding == "leading":
        s = math.sqrt(p) / d
        return 1.0 + s * z, np.full_like(z, s * s), w_z
    if embedding == "gaussian":
        q = _quantile_nodes(chi2(d), _N_NODES) / d  # ||u_mu||^2 and ||e_mu||^2
    else:
        q = np.ones(1)
    k = 1.0 / (2.0 / d + 2.0 / p)  # ||v||^2 fluctuates like a Gamma of mean 1, var 1/k
    r = _quantile_nodes(gamma(k), _N_NODES) / k
    a = q[:, None, None, None]
    b = q[None, :, None, None]
    v2 = r[None, None, :, None] * b * (p - 1.0) / d  # ||sum_{l != mu} u_l (e_l . e_mu)||^2
    x = np.sqrt(a * v2 / d) * z  # target cross-talk u_mu . v
    t = a * b + x  # target score
    var_c = np.maximum(a * b * b + 2.0 * b * x + v2, 0.0) / d + b / d  # competitor variance
    t, var_c = np.broadcast_arrays(t, var_c)
    n_outer = t.size // z.size
    w = np.broadcast_to(w_z / n_outer, t.shape)
    return t, var_c, w


def _log_recall_one(p: float, d: float, embedding: str) -> float:
    """Return log P(one input recalled) in the conditional Gaussian model (scalar p, d)."""
    t, var_c, w = _conditional_model(p, d, embedding)
    log_phi = log_ndtr(t / np.sqrt(var_c))
    fail = -np.expm1((p - 1.0) * log_phi)
    f = float(np.sum(w * fail))
    with np.errstate(divide="ignore"):
        return float(np.log1p(-min(max(f, 0.0), 1.0)))


def score_densities(
    x: np.ndarray, p: float, d: float, *, embedding: str = "gaussian"
) -> dict[str, np.ndarray]:
    """Theory densities of the target score and of the maximum competitor score of one input.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Score values (units of the scores, not of sigma_W).
    p : float
        Number of associations, >= 2.
    d : float
        Embedding dimension, >= 1.
    embedding : {"gaussian", "spherical", "leading"}
        As for :func:`score_moments`.

    Returns
    -------
    dict of ndarray, shape (n,)
        ``target`` and ``max_competitor``: densities of the conditional Gaussian model of
        :func:`recall_probability` (mixtures over the norms and the cross-talk).

    Raises
    ------
    TypeError
        If ``x``, ``p`` or ``d`` is not made of real numbers.
    ValueError
        If ``x`` is not 1-D or holds NaN or inf, ``p < 2``, ``d < 1`` or the embedding is
        unknown.

    Notes
    -----
    Reconstruction (chapter 3, eq. ``eq-hebb-recall``): the target density is the node
    histogram of the conditional model smoothed with a Gaussian of a tenth of its spread; the
    maximum of ``p - 1`` competitors of variance ``sigma_c^2`` has density
    ``(p - 1) phi(x / sigma_c) Phi(x / sigma_c)^(p - 2) / sigma_c``, averaged over the nodes.
    """
    _check_embedding(embedding)
    pf = float(_as_positive("p", p, 2.0))
    df = float(_as_positive("d", d, 1.0))
    xs = check_finite_array("x", x, ndim=1)
    z = np.linspace(-6.0, 6.0, 121)
    t, var_c, w = _conditional_model(pf, df, embedding, z)
    t, var_c, w = t.ravel(), var_c.ravel(), w.ravel()
    # target: a mixture of narrow Gaussians around the nodes' targets is the node histogram;
    # smooth it with the node spacing of the cross-talk (its own conditional spread is 0 here)
    sd_c = np.sqrt(var_c)[:, None]
    zc = xs[None, :] / sd_c
    log_max = (
        math.log(pf - 1.0) - 0.5 * zc**2 - 0.5 * math.log(2 * math.pi) - np.log(sd_c)
        + (pf - 2.0) * log_ndtr(zc)
    )  # fmt: skip
    dens_max = np.sum(w[:, None] * np.exp(log_max), axis=0)
    bw = max(float(np.sqrt(np.sum(w * (t - np.sum(w * t)) ** 2))) * 0.1, 1e-6)
    dens_t = np.sum(w[:, None] * np.exp(-0.5 * ((xs[None, :] - t[:, None]) / bw) ** 2), axis=0) / (
        bw * math.sqrt(2 * math.pi)
    )
    return {"target": dens_t, "max_competitor": dens_max}


def recall_probability(
    p: float | np.ndarray,
    d: float | np.ndarray,
    *,
    criterion: str = "all",
    embedding: str = "gaussian",
) -> Any:
    """Gaussian / extreme-value theory of Hebbian recall.

    For input mu write ``m = W e_mu = u_mu ||e_mu||^2 + v`` with
    ``v = sum_{l != mu} u_l (e_l . e_mu)``.
    Given ``a = ||u_mu||^2``, ``b = ||e_mu||^2`` and ``V = ||v||^2``, the target score is
    ``T = a b + X`` with cross-talk ``X ~ N(0, a V / d)``, and the ``p - 1`` competitor scores
    ``u_nu . m`` are independent ``N(0, (a b^2 + 2 b X + V)/d + b/d)``: a low target comes with
    weaker competitors. ``a, b ~ chi2_d / d`` (Gaussian embeddings; 1 for spherical ones) and
    ``V ~ b (p - 1)/d`` times a Gamma factor of variance 2/d + 2/p are integrated out by quadrature.
    Inputs are treated as independent. ``embedding="leading"`` uses T ~ N(1, p/d^2) and
    competitors N(0, p/d^2) (the idealisation of the digest §5.4). All three give the same
    asymptotic thresholds 1/8 ("all") and 1/2 ("typical").

    Parameters
    ----------
    p : float or ndarray
        Number of associations, >= 2.
    d : float or ndarray
        Embedding dimension, >= 1 (broadcast against ``p``).
    criterion : {"all", "typical"}
        ``"all"``: probability that all p associations are recalled, ``P1**p``;
        ``"typical"``: probability ``P1`` that one given association is recalled (= expected
        accuracy).
    embedding : {"gaussian", "spherical", "leading"}
        As for :func:`score_moments`.

    Returns
    -------
    float or ndarray (float64)
        Probability in [0, 1], shape of ``p`` and ``d`` broadcast.

    Raises
    ------
    ValueError
        If an argument is out of range or an option is unknown.

    Notes
    -----
    ``P1 = E_{a,b,V} int Dz Phi(T / sigma_c)^(p-1)``; reconstruction, chapter 3
    (eq. ``eq-hebb-recall``). Against simulation at d = 64 (Gaussian embeddings, 600 instances
    per load, :func:`assocmem.linear.measure.scores.hebbian_recall_check`, chapter 3) ``P1`` lies
    above the measured accuracy by a few standard errors (a few thousandths), so ``P1**p`` lies
    above the measured P(all) by a few standard errors of that fraction; the measured P(all) equals
    the measured accuracy to the power p within its interval (the inputs fail independently, as
    assumed here), so the gap is in ``P1``'s tail. For spherical embeddings the theory is
    slightly pessimistic (it ignores the light tails of projections on the sphere).
    """
    _check_criterion(criterion)
    _check_embedding(embedding)
    p_arr = _as_positive("p", p, 2.0)
    d_arr = _as_positive("d", d, 1.0)
    p_arr, d_arr = np.broadcast_arrays(p_arr, d_arr)
    log1 = np.array(
        [
            _log_recall_one(float(pp), float(dd), embedding)
            for pp, dd in zip(p_arr.ravel(), d_arr.ravel(), strict=True)
        ]
    ).reshape(p_arr.shape)
    out = np.exp(p_arr * log1) if criterion == "all" else np.exp(log1)
    return float(out) if out.ndim == 0 else out


def threshold(p: float, *, criterion: str = "all", embedding: str = "gaussian") -> float:
    """Load alpha = p log p / d^2 at which the theory's recall probability equals 1/2.

    Parameters
    ----------
    p : float
        Number of associations, in [3, 1e30] (d is then sqrt(p log p / alpha)).
    criterion : {"all", "typical"}
        ``"all"``: P(all p associations recalled) = 1/2 (tends to 1/8 as p -> inf);
        ``"typical"``: P(one association recalled) = 1/2 (tends to 1/2).
    embedding : {"gaussian", "spherical", "leading"}
        As for :func:`score_moments`.

    Returns
    -------
    float
        The threshold load.

    Raises
    ------
    TypeError
        If ``p`` is not a real number.
    ValueError
        If ``p`` is outside [3, 1e30] or not finite, or an option is unknown.

    Notes
    -----
    Reconstruction (chapter 3, eq. ``eq-hebb-threshold``); asymptotes (``"all"``: 1/8, eq.
    ``eq-hebb-eighth``) from the digest §5.3 and Barnfield et al. Prop. 1. The approach is slow:
    corrections are O(log log p / log p).
    """
    _check_criterion(criterion)
    _check_embedding(embedding)
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"p must be a number, got {type(p).__name__}")
    if not math.isfinite(float(p)) or not 3 <= p <= 1e30:
        raise ValueError(f"p must be in [3, 1e30] (quadrature range), got {p!r}")
    pf = float(p)
    target = math.log(0.5)

    def gap(log_alpha: float) -> float:
        d = dimension_for_load(math.exp(log_alpha), pf)
        log1 = _log_recall_one(pf, d, embedding)
        return (pf * log1 if criterion == "all" else log1) - target

    return float(math.exp(brentq(gap, math.log(1e-4), math.log(50.0), xtol=1e-7)))


def threshold_table(
    p_values: Sequence[float],
    criteria: Sequence[str] = ("all", "typical"),
    *,
    embedding: str = "gaussian",
) -> pd.DataFrame:
    """:func:`threshold` of each criterion at a few ``p``, as a table.

    Parameters
    ----------
    p_values : sequence of float
        Numbers of associations, each in [3, 1e30].
    criteria : sequence of {"all", "typical"}
        The criteria, one column each.
    embedding : {"gaussian", "spherical", "leading"}
        As for :func:`score_moments`.

    Returns
    -------
    pandas.DataFrame
        Column ``p``, then one column ``criterion "<name>"`` per criterion: the load at which
        its recall probability equals 1/2 (eq. eq-hebb-threshold).

    Raises
    ------
    ValueError
        As :func:`threshold`.
    """
    raw = as_float_array(p_values, "p_values")
    if raw.ndim != 1:
        raise ValueError(f"p_values must be a 1-D sequence of numbers, got shape {raw.shape}")
    if raw.size == 0:
        raise ValueError("p_values must hold at least one p")
    ps = [float(p) for p in raw]
    cols = {f'criterion "{c}"': [threshold(p, criterion=_check_criterion(c), embedding=embedding)
                                 for p in ps] for c in criteria}  # fmt: skip
    return pd.DataFrame({"p": ps, **cols})
