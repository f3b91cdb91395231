"""Paired comparisons of two methods on the same queries, and the linear probe of chapter 6.

A rate with its Wilson interval is :func:`assocmem.stats.rate` (an
:class:`~assocmem.estimate.Estimate`, the book's one value type); a paired comparison
(:func:`paired_comparison`) is the difference of two rates as an Estimate with its
paired-bootstrap interval, the discordant counts and the exact McNemar p-value.

Probe (paper App. D.4, Fig. 7; digest §6.6): per layer, a multinomial logistic regression on the
standardised last-token states, its held-out accuracy by stratified k-fold cross-fitting; beside
it, the cosine alignment of the (final-normed) states with the unembedding rows of the labels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import torch
from scipy import optimize, stats
from threadpoolctl import threadpool_limits

from assocmem._validate import check_index_array, check_int, check_outcomes
from assocmem.estimate import Estimate, Verdict, from_draws, render, resample_id, verdict
from assocmem.stats import bootstrap_interval, constant_difference, wilson_interval
from assocmem.streams import Seed, as_seed_sequence, child, numpy_rng

__all__ = [
    "PairedComparison",
    "paired_comparison",
    "SetBootstrap",
    "set_bootstrap",
    "probe_accuracy",
    "label_alignment",
]


@dataclass(frozen=True)
class PairedComparison:
    """Accuracy difference a - b on the same queries.

    Attributes
    ----------
    difference : Estimate
        Mean of a minus mean of b (``value``), with the 95 % paired-bootstrap interval (queries
        resampled together, :func:`assocmem.stats.bootstrap_interval`), or the exact bound of
        :func:`assocmem.stats.constant_difference` where every query gives the same difference
        (none discordant, or all discordant one way); ``n`` = queries.
    only_a, only_b : int
        Discordant pairs: a right and b wrong, and the reverse.
    p_mcnemar : float
        Exact two-sided McNemar p-value (binomial test on the discordant pairs; 1 when there are
        none).
    """

    difference: Estimate
    only_a: int
    only_b: int
    p_mcnemar: float

    @property
    def verdict(self) -> Verdict:
        """Return a against b: :func:`assocmem.estimate.verdict` of the difference against 0."""
        return verdict(self.difference)

    def summary(self) -> dict[str, Estimate | Verdict | float | int]:
        """Return the numbers a sentence about the comparison quotes, by label.

        Returns
        -------
        dict
            ``diff`` (Estimate), ``p`` (McNemar), ``only_a``, ``only_b`` (discordant counts) and
            ``verdict`` (:attr:`verdict`).
        """
        return {"diff": self.difference, "p": self.p_mcnemar, "only_a": self.only_a,
                "only_b": self.only_b, "verdict": self.verdict}  # fmt: skip

    def __str__(self) -> str:
        """Return ``+0.050 [+0.020, +0.080], McNemar p = 0.003``."""
        return f"{render(self.difference, '+.3f')}, McNemar p = {self.p_mcnemar:.2g}"


def paired_comparison(
    a: np.ndarray, b: np.ndarray, *, n_boot: int = 2000, seed: Seed = 0
) -> PairedComparison:
    """Compare two classifiers' correctness on the same queries.

    Parameters
    ----------
    a, b : numpy.ndarray, bool (or 0/1), shape (n,)
        Correct or not, per query, for the two methods (n >= 2); a probability, a count or any
        other number is refused, never cast to bool.
    n_boot : int
        Bootstrap resamples (>= 100).
    seed : int or numpy.random.SeedSequence
        Root of the resampling.

    Returns
    -------
    PairedComparison
        ``difference`` is :func:`assocmem.stats.bootstrap_interval` of the per-query differences
        ``a_i - b_i`` (percentile interval over queries resampled in pairs); where every query
        gives the same difference (a bootstrap would give a point), the exact bound of
        :func:`assocmem.stats.constant_difference`.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is not an array of booleans or numbers.
    ValueError
        If an entry is not 0/1 (or bool), the shapes differ, the arrays are not 1-d, n < 2 or
        ``n_boot`` < 100.
    """
    a, b = check_outcomes("a", a), check_outcomes("b", b)
    if a.shape != b.shape or a.size < 2:
        raise ValueError(
            f"a and b must be equal-length 1-d arrays of >= 2 outcomes, got {a.shape}, {b.shape}"
        )
    check_int("n_boot", n_boot, 100)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    d = a.astype(float) - b.astype(float)
    if np.all(d == d[0]):  # a bootstrap would give the point [d, d]
        diff = constant_difference(a.size, int(d[0]))
    else:
        diff = bootstrap_interval(d, n_boot=n_boot, seed=seed, unit="queries (paired)")
    p = 1.0 if only_a + only_b == 0 else float(stats.binomtest(only_a, only_a + only_b, 0.5).pvalue)
    return PairedComparison(diff, only_a, only_b, p)


def _fit_logistic(x: np.ndarray, y: np.ndarray, n_classes: int, l2: float) -> np.ndarray:
    """Multinomial logistic regression with an L2 penalty; returns (d + 1, K) weights.

    Minimises ``mean_i CE(x_i W + b, y_i) + l2 * ||W||^2`` (bias unpenalised) with scipy's
    L-BFGS-B on the analytic gradient; the objective is strictly convex in W, so the optimum is
    unique up to the solver's tolerance.
    """
    n, d = x.shape
    xb = np.concatenate([x, np.ones((n, 1))], 1)
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), y] = 1.0

    def loss_grad(flat: np.ndarray) -> tuple[float, np.ndarray]:
        w = flat.reshape(d + 1, n_classes)
        z = xb @ w
        z -= z.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        grad = xb.T @ (np.exp(logp) - onehot) / n
        grad[:-1] += 2 * l2 * w[:-1]
        loss = -(logp * onehot).sum() / n + l2 * float((w[:-1] ** 2).sum())
        return loss, grad.ravel()

    res = optimize.minimize(
        loss_grad, np.zeros((d + 1) * n_classes), jac=True, method="L-BFGS-B",
        options={"maxiter": 500, "gtol": 1e-8, "ftol": 1e-12},
    )  # fmt: skip
    return res.x.reshape(d + 1, n_classes)


def probe_accuracy(
    h: torch.Tensor, labels: np.ndarray, *, n_folds: int = 5, l2: float = 1e-2, seed: Seed = 0
) -> np.ndarray:
    """Held-out correctness of a linear probe at every layer (stratified k-fold cross-fitting).

    Parameters
    ----------
    h : torch.Tensor, shape (n, L + 1, d)
        Last-token states.
    labels : numpy.ndarray, int, shape (n,)
        Class of each state.
    n_folds : int
        Folds (each query is predicted by a probe fitted without it).
    l2 : float
        L2 penalty on the weights of the standardised features (fixed, not tuned).
    seed : int or numpy.random.SeedSequence
        Root of the fold assignment (its child ``"probe folds"``).

    Returns
    -------
    numpy.ndarray, bool, shape (L + 1, n)
        Whether each query's class was predicted correctly at each layer. The same states, labels
        and seed give the same array on every call (the same folds and the same float64 fits).

    Raises
    ------
    TypeError
        If ``labels`` is not a 1-D array of integers (a float is no class index).
    ValueError
        If a label is negative, n < n_folds or the shapes disagree.
    """
    y = check_index_array("labels", labels)  # a float is no class index (never truncated)
    if h.ndim != 3 or h.shape[0] != len(y) or len(y) < n_folds:
        raise ValueError(f"need h of shape (n, L + 1, d) with n = {len(y)} >= n_folds")
    rng = numpy_rng(child(seed, "probe folds"))
    fold = np.empty(len(y), dtype=np.int64)
    for c in np.unique(y):  # stratified: deal each class's shuffled items round the folds
        idx = rng.permutation(np.flatnonzero(y == c))
        fold[idx] = (np.arange(len(idx)) + rng.integers(n_folds)) % n_folds
    out = np.zeros((h.shape[1], len(y)), dtype=bool)
    with threadpool_limits(limits=1, user_api="blas"):  # tiny products: threads only wait
        for layer in range(h.shape[1]):
            _probe_layer(h[:, layer].double().numpy(), y, fold, n_folds, l2, out[layer])
    return out


def _probe_layer(
    x: np.ndarray, y: np.ndarray, fold: np.ndarray, n_folds: int, l2: float, out: np.ndarray
) -> None:
    """Fill ``out`` (n,) with the held-out correctness of the probe on one layer's states."""
    n_classes = int(y.max()) + 1
    for f in range(n_folds):
        train, test = fold != f, fold == f
        if not test.any():
            continue
        mu, sd = x[train].mean(0), x[train].std(0, ddof=1) + 1e-6
        w = _fit_logistic((x[train] - mu) / sd, y[train], n_classes, l2)
        pred = ((x[test] - mu) / sd @ w[:-1] + w[-1]).argmax(1)
        out[test] = pred == y[test]


def label_alignment(
    h_normed: torch.Tensor, w_labels: torch.Tensor, labels: np.ndarray
) -> np.ndarray:
    """Cosine margin of states towards their label's unembedding row, at every layer.

    ``a_i = cos(h_i, zeta^{y_i}) - mean_{y != y_i} cos(h_i, zeta^y)``: positive when the state
    points more towards its own label's memory than towards the others'.

    Parameters
    ----------
    h_normed : torch.Tensor, shape (n, L + 1, d)
        States after the final norm (as decoded).
    w_labels : torch.Tensor, shape (K, d)
        Unembedding rows of the K label tokens.
    labels : numpy.ndarray, int, shape (n,)

    Returns
    -------
    numpy.ndarray, float64, shape (L + 1, n)
    """
    hn = torch.nn.functional.normalize(h_normed.double(), dim=-1)
    wn = torch.nn.functional.normalize(w_labels.double().cpu(), dim=-1)
    cos = hn @ wn.T  # (n, L + 1, K)
    y = torch.as_tensor(check_index_array("labels", labels, cos.shape[-1]))
    if len(y) != cos.shape[0]:
        raise ValueError(f"labels must hold one label per state, got {len(y)} for {cos.shape[0]}")
    own = cos[torch.arange(len(y)), :, y]  # (n, L + 1)
    k = cos.shape[-1]
    others = (cos.sum(-1) - own) / (k - 1)
    return (own - others).T.numpy()


@dataclass(frozen=True)
class SetBootstrap:
    """Per-query outcomes of several methods, resampled by demonstration set, then by query.

    In-context accuracy depends on which demonstrations were shown: query i of chapter 6 uses
    demonstration set ``sets[i]``, and the sets differ (0.66 to 0.86 on Gemma's SST-2). An
    interval over queries alone treats the few sets as fixed. :meth:`estimate` draws the sets with
    replacement, then the queries of each drawn set with replacement (a two-stage bootstrap), and
    evaluates any function of the methods' means on every draw. With P sets of m queries the
    variance of a mean over such draws is ``var(set means) / P + mean(within-set variance) / n``:
    the set-to-set spread plus the query-to-query spread counted a second time, so the interval
    is conservative (for a method the sets do not touch, about 1.4 times as wide as a Wilson
    interval). Resampling the sets alone would count each spread once, but with P = 8 its width
    rests on the 7 degrees of freedom of the set means and varies by a factor of about 2 from
    one draw of the data to the next; the conservative interval is the one reported. All methods
    are measured on the same queries, so a difference or a ratio of two means is paired.

    Attributes
    ----------
    columns : dict of str to numpy.ndarray, float64, shape (n,)
        Per-query outcome of each method (1.0/0.0 for correct/wrong, or any number).
    sets : numpy.ndarray, int64, shape (n,)
        Demonstration set of each query.
    means : dict of str to numpy.ndarray, shape (B,)
        Each column's mean on every draw.
    resample : str or None
        :func:`assocmem.estimate.resample_id` of the draws (which queries each took), carried by
        every estimate made here.
    """

    columns: dict[str, np.ndarray]
    sets: np.ndarray
    means: dict[str, np.ndarray]
    resample: str | None = None

    @property
    def n_sets(self) -> int:
        """Number of distinct demonstration sets."""
        return len(np.unique(self.sets))

    def estimate(
        self, fn: Callable[[Mapping[str, np.ndarray]], np.ndarray], name: str = ""
    ) -> Estimate:
        """Return a function of the methods' means, with its percentile interval over sets.

        Parameters
        ----------
        fn : callable
            Maps a mapping of column name to means (floats or arrays of draws) to the statistic,
            elementwise, e.g. ``lambda m: m["icl"] - m["zero"]``.
        name : str
            What the statistic is, for the method string.

        Returns
        -------
        Estimate
            ``fn`` of the full-sample means, the 95 % percentile interval of ``fn`` over the
            draws (draws where it is not finite, e.g. a ratio over a zero gain, are left out and
            counted in ``used``), ``n`` = queries.

        Raises
        ------
        ValueError
            If ``fn`` is not finite on the full sample (e.g. a share of a gain that is 0 on
            every query: 0 / 0), or on fewer than 2 draws; the message names the statistic.
        """
        point = {k: np.asarray(v.mean()) for k, v in self.columns.items()}
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(fn(point))
            draws = np.asarray(fn(self.means), dtype=float)
        what = repr(name) if name else "the statistic"
        if not np.isfinite(value):
            raise ValueError(
                f"{what} is {value} on the full sample (a ratio over a quantity that is 0 on "
                "these queries?): it has no value to put an interval around"
            )
        draws = np.where(np.isfinite(draws), draws, np.nan)
        if np.isfinite(draws).sum() < 2:
            raise ValueError(
                f"{what} is finite on {int(np.isfinite(draws).sum())} of {draws.size} draws "
                "(a ratio whose denominator is 0 on almost every resample?): no interval"
            )
        method = (f"two-stage percentile bootstrap over {self.n_sets} demonstration sets and "
                  f"their queries{': ' + name if name else ''}")  # fmt: skip
        return from_draws(value, draws, len(self.sets), method, n_total=len(draws),
                          resample=self.resample)  # fmt: skip

    def mean(self, column: str) -> Estimate:
        """Return the mean of one column, with its interval over sets.

        For right/wrong outcomes (a column of 0s and 1s, which is read as outcomes) the interval
        is never narrower than the Wilson interval of the n queries
        (:func:`assocmem.stats.wilson_interval`): the bootstrap of a column that is right on
        every query gives the point [1, 1] whatever n, and near 0 or 1 its percentile interval
        is too narrow in general (the rule of :func:`assocmem.stats.bootstrap_interval` for a
        rate). A widening can only make a verdict more cautious.

        Raises
        ------
        KeyError
            If the column is not measured.
        """
        e = self.estimate(lambda m: m[column], column)
        col = self.columns[column]
        if not np.isin(col, (0.0, 1.0)).all():
            return e
        w_lo, w_hi = wilson_interval(int(col.sum()), col.size, level=e.level)
        return replace(
            e, low=min(e.low, float(w_lo)), high=max(e.high, float(w_hi)),
            method=e.method + ", widened to the Wilson interval where narrower",
        )  # fmt: skip

    def difference(self, a: str, b: str, name: str = "") -> Estimate:
        """Return mean of column ``a`` minus mean of column ``b``, paired, with its interval.

        The two-stage bootstrap of :meth:`estimate`, except where ``a`` and ``b`` are right/wrong
        outcomes (0/1) whose difference is the same on every query (they agree everywhere, or
        one is right wherever the other is wrong): there every draw gives that difference and
        the percentile interval is a point, so the exact bound of
        :func:`assocmem.stats.constant_difference` (over the n queries) is returned instead.

        Raises
        ------
        KeyError
            If a column is not measured.
        """
        x, y = self.columns[a], self.columns[b]
        d = x - y
        if np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all() and np.all(d == d[0]):
            return constant_difference(len(x), int(d[0]))
        return self.estimate(lambda m: m[a] - m[b], name or f"{a} - {b}")


def set_bootstrap(
    columns: Mapping[str, np.ndarray],
    sets: np.ndarray,
    *,
    n_boot: int = 2000,
    seed: Seed = 0,
) -> SetBootstrap:
    """Draw the two-stage bootstrap of :class:`SetBootstrap` (sets, then queries within sets).

    Parameters
    ----------
    columns : mapping of str to array, shape (n,)
        Per-query outcomes (bool or float, finite) of each method, on the same n queries.
    sets : numpy.ndarray of int, shape (n,)
        Demonstration set of each query (>= 2 distinct sets, each with >= 1 query).
    n_boot : int
        Resamples (>= 100).
    seed : int or numpy.random.SeedSequence
        Root of the resampling.

    Returns
    -------
    SetBootstrap

    Raises
    ------
    ValueError
        If a column's shape is not (n,), a value is not finite, fewer than 2 sets, or
        ``n_boot`` < 100.
    """
    sets = np.asarray(sets)
    if sets.ndim != 1 or not np.issubdtype(sets.dtype, np.integer):
        raise ValueError(f"sets must be a 1-d integer array, got {sets.dtype} {sets.shape}")
    cols = {}
    for name, col in columns.items():
        c = np.asarray(col, dtype=float)
        if c.shape != sets.shape or not np.isfinite(c).all():
            raise ValueError(f"column {name!r} must hold {len(sets)} finite values, got {c.shape}")
        cols[name] = c
    check_int("n_boot", n_boot, 100)
    as_seed_sequence(seed)
    groups = [np.flatnonzero(sets == s) for s in np.unique(sets)]
    if len(groups) < 2:
        raise ValueError("a set-aware interval needs queries from at least 2 demonstration sets")
    rng = numpy_rng(child(seed, "set bootstrap"))
    # counts[b, i]: how often query i is drawn in resample b
    counts = np.zeros((n_boot, len(sets)))
    for b in range(n_boot):
        for g in rng.integers(len(groups), size=len(groups)):
            members = groups[g]
            np.add.at(counts[b], members[rng.integers(len(members), size=len(members))], 1.0)
    total = counts.sum(1)
    means = {name: counts @ c / total for name, c in cols.items()}
    return SetBootstrap(cols, sets.astype(np.int64), means, resample_id(counts))
