"""Spectra of the exact max-margin memories of OP and DP instances, compared by permutation tests.

The paper's spectral claim (the decoupled problem matches the original one in its spectra) is a
claim about optimal weights. :func:`max_margin_spectra` computes, for independent OP and DP
instances of one size, the two exact max-margin memories of
:mod:`assocmem.linear.measure.implicit_bias` (Frobenius: the hard-margin SVM; entrywise max: the LP
optimum) and compares their singular values between the problems with two statistics, each tested by
relabelling whole matrices (:func:`spectrum_permutation_test`): the mean normalised fourth moment
``m_4`` (:func:`~.measured_spectra.fourth_moment_ratio`) and the Kolmogorov-Smirnov distance between
the pooled normalised singular values.

Sources: the constraints and the OP/DP setting of the digest of arXiv:2605.10795 (reconstruction,
chapter 1); permutation tests over exchangeable units (e.g. Good, *Permutation Tests*).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import check_int, seed_list
from assocmem.estimate import Estimate
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.implicit_bias import l2_max_margin
from assocmem.linear.measure.measured_spectra import fourth_moment_ratio, singular_values
from assocmem.linear.storage.lp import DENSE_THRESHOLD, max_margin_linf
from assocmem.permutation import permutation_pvalue, permutation_test
from assocmem.stats import mean_interval
from assocmem.streams import Seed, as_seed_sequence, child

#: The two max-margin norms: label used in keys -> name used in prose.
NORMS = {"l2": "Frobenius", "linf": "entrywise max"}


def _ks_curves(z: NDArray[np.float64], labels: NDArray[np.bool_], k: int) -> NDArray[np.float64]:
    """KS distances for label rows (m, n_mat) over matrices whose values ``z`` are (n_mat, k)."""
    flat = z.ravel()
    order = np.argsort(flat, kind="stable")
    owner = np.repeat(np.arange(z.shape[0]), k)[order]  # matrix of each sorted value
    ends = np.append(np.diff(flat[order]) != 0, True)  # last position of each run of ties
    in_a = labels[:, owner]  # (m, n_mat k)
    n_a = labels.sum(1, keepdims=True) * k
    n_b = (labels.shape[1] - labels.sum(1, keepdims=True)) * k
    cdf_a = np.cumsum(in_a, axis=1) / n_a
    cdf_b = np.cumsum(~in_a, axis=1) / n_b
    return np.abs(cdf_a - cdf_b)[:, ends].max(axis=1)


def spectrum_permutation_test(
    a: ArrayLike, b: ArrayLike, *, n_perm: int = 20000, seed: Seed = 0
) -> tuple[float, float]:
    """Two-sample test of equal singular-value laws: KS distance, matrices relabelled.

    Parameters
    ----------
    a, b : array_like, float, shapes (n_a, k) and (n_b, k)
        One row per matrix (an independent instance): its ``k`` values, e.g. normalised singular
        values (:func:`~.measured_spectra.singular_values`); finite, at least one row each.
    n_perm : int
        If the relabellings ``C(n_a + n_b, n_a)`` number at most this, all are enumerated (exact
        p-value); otherwise ``n_perm`` random relabellings are drawn, >= 1.
    seed : int or numpy.random.SeedSequence
        Stream of the random relabellings (an int >= 0 or a ``SeedSequence``).

    Returns
    -------
    ks : float
        Kolmogorov-Smirnov distance ``sup_x |F_a(x) - F_b(x)|`` between the pooled values of
        ``a`` and of ``b``, in [0, 1].
    pvalue : float
        Fraction of relabellings of the ``n_a + n_b`` matrices (group sizes kept) whose distance
        is at least ``ks`` (1e-12 tolerance); ``(count + 1) / (n_perm + 1)`` when sampled.

    Raises
    ------
    ValueError
        If an input is not a finite 2-D array with at least one row, the two have different
        numbers of columns, or ``n_perm``/``seed`` is out of range.

    Notes
    -----
    The values of one matrix are dependent, so the matrix, not the single value, is the
    exchangeable unit: the textbook KS p-value over pooled values would be far too small. The
    statistic is the two-sample KS distance (both empirical CDFs read after each run of tied
    values); ``scipy.stats.ks_2samp`` gives the same statistic.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    for name, v in (("a", x), ("b", y)):
        if v.ndim != 2 or v.shape[0] < 1 or v.shape[1] < 1 or not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be a finite 2-D array with at least one row, got "
                             f"shape {v.shape}")  # fmt: skip
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"a and b must have the same number of columns, got {x.shape[1]} and "
                         f"{y.shape[1]}")  # fmt: skip
    n_perm = check_int("n_perm", n_perm, 1)
    z = np.concatenate([x, y])
    k = z.shape[1]
    return permutation_pvalue(z, x.shape[0], lambda u, labels: _ks_curves(u, labels, k),
                              n_perm=n_perm, seed=seed)  # fmt: skip


@dataclass(frozen=True)
class MaxMarginSpectra:
    """Exact max-margin memories of OP and DP instances and the tests between them.

    Made by :func:`max_margin_spectra`.

    Attributes
    ----------
    weights : dict of (str, str) -> numpy.ndarray
        ``(norm, problem)`` (norm ``"l2"`` or ``"linf"``, those computed; problem ``"op"`` or
        ``"dp"``) ->
        float64 array (n, d, d) of the max-margin memories of the storable instances.
    m4 : dict of (str, str) -> numpy.ndarray
        The same keys -> :func:`~.measured_spectra.fourth_moment_ratio` of each memory, (n,).
    tests : pandas.DataFrame
        One row per (norm, statistic): ``norm``, ``statistic`` (``"m4"``: difference of the mean
        ``m_4``, OP minus DP; ``"ks"``: KS distance of the pooled normalised singular values),
        ``value`` and ``p`` (two-sided permutation p-value over matrices).
    skipped : dict of str -> int
        ``"op"``/``"dp"`` -> instances the exact LP could not store (left out).
    d, p : int
        Size of every instance.
    """

    weights: dict[tuple[str, str], NDArray[np.float64]]
    m4: dict[tuple[str, str], NDArray[np.float64]]
    tests: pd.DataFrame
    skipped: dict[str, int]
    d: int
    p: int

    def summary(self) -> dict[str, Estimate | float | int]:
        """Return the numbers chapter 1 quotes, by label.

        Returns
        -------
        dict of str -> Estimate, float or int
            ``"d"``, ``"p"``; ``"n_op"``, ``"n_dp"`` (storable instances per problem);
            ``"skipped_op"``, ``"skipped_dp"``; per computed norm ``<n>`` (``l2``, ``linf``):
            ``"m4_<n>_op"``, ``"m4_<n>_dp"`` (mean ``m_4`` over the memories with its 95 %
            Student-t interval, :func:`assocmem.stats.mean_interval`), ``"diff_<n>"``,
            ``"perm_m4_<n>"`` (the ``m4`` test's value and p), ``"ks_<n>"``,
            ``"perm_ks_<n>"`` (the KS test's value and p); ``"min_p"`` (the smallest p-value)
            and ``"n_tests"`` (two per norm).
        """
        out: dict[str, Estimate | float | int] = {"d": self.d, "p": self.p}
        norms = [n for n in NORMS if (n, "op") in self.m4]
        for prob in ("op", "dp"):
            out[f"n_{prob}"] = int(len(self.m4[norms[0], prob]))
            out[f"skipped_{prob}"] = int(self.skipped[prob])
        for norm in norms:
            for prob in ("op", "dp"):
                est = mean_interval(self.m4[norm, prob])
                assert isinstance(est, Estimate)
                out[f"m4_{norm}_{prob}"] = est
        for row in self.tests.to_dict("records"):
            tag = "diff" if row["statistic"] == "m4" else "ks"
            out[f"{tag}_{row['norm']}"] = float(row["value"])
            out[f"perm_{row['statistic']}_{row['norm']}"] = float(row["p"])
        out["min_p"] = float(self.tests["p"].min())
        out["n_tests"] = int(len(self.tests))
        return out


def max_margin_spectra(
    p: int,
    d: int,
    *,
    seeds: int | Iterable[int],
    norms: Sequence[str] = ("l2", "linf"),
    n_perm: int = 20000,
    seed: Seed = 0,
) -> MaxMarginSpectra:
    """Exact max-margin memories of independent OP and DP instances and their spectral tests.

    For each instance label, samples one OP and one independent DP instance
    (:func:`assocmem.linear.instances.sampling.sample_problems`, the OP under the root ``child(seed,
    0)``, the DP under ``child(seed, 1)``, so the two groups share no stream) and computes each
    one's entrywise-max (the maximiser of the
    exact LP, :func:`assocmem.linear.storage.lp.max_margin_linf`) and Frobenius
    (:func:`assocmem.linear.measure.implicit_bias.l2_max_margin`) max-margin memories. An instance
    that cannot be stored is skipped: with ``"linf"`` among the norms, when the LP finds
    ``t* <= DENSE_THRESHOLD``; with ``"l2"`` alone, when the SVM reports no solution. Then,
    per norm, compares OP with DP by two permutation tests over matrices: the mean ``m_4``
    (:func:`assocmem.permutation.permutation_test`) and the KS distance of the pooled normalised
    singular values (:func:`spectrum_permutation_test`).

    Parameters
    ----------
    p, d : int
        Associations (>= 2) and dimension (>= 2); small enough for the dense LP and the NNLS of
        the SVM (d = 12: about 0.3 s per instance for both norms; d = 16: about 3 s).
    seeds : int or iterable of int
        Instance labels, the same for both problems (an int ``n`` means ``range(n)``; distinct,
        each >= 0).
    norms : sequence of {"l2", "linf"}
        The max-margin memories to compute (the SVM costs about a tenth of the LP at d = 12).
    n_perm : int
        Random relabellings per test (:func:`spectrum_permutation_test`).
    seed : int or numpy.random.SeedSequence
        The root: instances as above; the relabellings of the tests of norm ``n`` from
        ``child(seed, 2, i_n, 0)`` (m4) and ``child(seed, 2, i_n, 1)`` (KS), ``i_n`` the norm's
        place in :data:`NORMS` (so one norm alone gives the same p-values).

    Returns
    -------
    MaxMarginSpectra

    Raises
    ------
    ValueError
        If a size is out of range, ``norms`` is empty or names an unknown norm, a label repeats,
        or fewer than two instances of a problem can be stored.
    RuntimeError
        If a solver fails (the LP, or the KKT check of the SVM).

    Notes
    -----
    The LP's maximiser need not be unique, so its spectrum is that of one maximiser (HiGHS's);
    the SVM solution is unique. Chapter 1, "Spectra of the learnt weights".
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 2)
    labels = seed_list(seeds)
    as_seed_sequence(seed)
    use = [n for n in NORMS if n in tuple(norms)]
    if not use or any(n not in NORMS for n in norms):
        raise ValueError(f"norms must be a non-empty subset of {tuple(NORMS)}, got {norms!r}")
    weights: dict[tuple[str, str], list[NDArray[np.float64]]] = {
        (n, pr): [] for n in use for pr in ("op", "dp")
    }
    skipped = {"op": 0, "dp": 0}
    for k, prob in enumerate(("op", "dp")):
        for s in labels:
            inst = sample_problems(p, d, [s], seed=child(seed, k), decoupled=prob == "dp")[0]
            found: dict[str, NDArray[np.float64]] = {}
            if "linf" in use:
                t_star, W_inf = max_margin_linf(inst)
                if not t_star > DENSE_THRESHOLD:
                    skipped[prob] += 1
                    continue
                found["linf"] = np.asarray(W_inf, dtype=np.float64)
            if "l2" in use:
                try:
                    found["l2"] = l2_max_margin(inst).weights
                except RuntimeError as err:  # no solution: skip; a failed KKT check: raise
                    if "linf" in use or "not separable" not in str(err):
                        raise
                    skipped[prob] += 1
                    continue
            for n, w in found.items():
                weights[n, prob].append(w)
    if min(len(weights[use[0], pr]) for pr in ("op", "dp")) < 2:
        raise ValueError(f"fewer than two storable instances of a problem (skipped {skipped})")
    W = {key: np.stack(v) for key, v in weights.items()}
    m4 = {key: np.asarray(fourth_moment_ratio(v), dtype=np.float64) for key, v in W.items()}
    rows = []
    for norm in use:
        tests = child(seed, 2, list(NORMS).index(norm))
        diff, pv = permutation_test(m4[norm, "op"], m4[norm, "dp"], n_perm=n_perm,
                                    seed=child(tests, 0))  # fmt: skip
        rows.append({"norm": norm, "statistic": "m4", "value": diff, "p": pv})
        ks, pk = spectrum_permutation_test(singular_values(W[norm, "op"]),
                                           singular_values(W[norm, "dp"]),
                                           n_perm=n_perm, seed=child(tests, 1))  # fmt: skip
        rows.append({"norm": norm, "statistic": "ks", "value": ks, "p": pk})
    return MaxMarginSpectra(W, m4, pd.DataFrame(rows), skipped, d, p)
