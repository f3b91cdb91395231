"""Partial storage above capacity: how many associations a linear memory can still store.

Above the capacity no ``W`` recalls all ``p`` associations, but a memory may give up some and
store the rest. The cost argument of the replica-symmetric (RS) theory (chapter 2, the q -> 1
cost ``C_p`` of :mod:`assocmem.linear.theory.replica`) says how many: a set of ``n`` associations,
each with its ``p - 1`` competitors (the *other* outputs stay in the dictionary, stored or not), can
be stored while the summed cost fits the ``d^2`` weights, ``sum_{mu in S} C_mu <= d^2``.

* :func:`random_subset_fraction`: a subset chosen *at random* (costs i.i.d. like ``C_p``):
  ``n E[C_p] = d^2``, so ``f = n / p = alpha_c(p) / alpha`` with the finite-size capacity
  ``alpha_c(p) = log p / E[C_p]``; it tends to ``1 / (2 alpha)``.
* :func:`cheapest_subset_fraction` / :func:`give_up_fraction`: the subset chosen to be the
  cheapest (give up the costliest associations), ``p E[C 1{C <= c*}] = d^2``,
  ``f = P(C <= c*)``; the RS estimate of what a memory maximising the number of recalled
  associations stores (the q -> 1 limit of an RS count of the fewest errors; a
  reconstruction, not read from a source). Never below the random-subset value; equal to it
  when costs do not fluctuate (the large-p limit, where ``C_p / (2 log p) -> 1``).
* :func:`small_problem_fraction`: the subset treated as a *fresh* problem of ``n`` pairs with
  only ``n - 1`` competitors each, ``n log n / d^2 = alpha_c(n)``: ``n`` is the capacity count
  ``p_c(d)`` at this ``d`` whatever ``p``, and ``f = p_c(d) / p``. It ignores the ``p - n``
  outputs that still compete, so it is *not* a bound for the memory (see chapter 3).

Also :class:`AboveCapacity`, chapter 3's comparison of the Hebbian, trained and subset-trained
memories with these curves at one ``d``, :func:`accuracy_by_load`, the mean accuracy per load of
a sweep with a t-interval over instances, and :func:`subset_problem`, the problem restricted to a
subset of inputs with every output still competing (a constructive check of the cost argument).

Reconstruction for the course (chapter 3), built on the paper digest of Giorlandino, Goldt &
Maillard (arXiv:2605.10795), sections 4.2-4.3 (the cost ``C_p`` and ``alpha_c(p)``); the
partial-storage argument itself is not read from the paper.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import (
    as_float_array,
    check_int,
    check_loads,
    check_p,
    check_positive,
    check_samples,
    seed_list,
)
from assocmem.estimate import Estimate, monte_carlo, render
from assocmem.linear.instances.problems import MemoryProblem, stack_problems
from assocmem.linear.instances.sampling import instance_stream, sample_problems
from assocmem.linear.storage.training import train_memory
from assocmem.linear.theory.finite_size import finite_size_capacity_estimate, predicted_transition
from assocmem.linear.theory.hebbian import recall_probability
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load
from assocmem.linear.theory.replica import sample_cost_solutions
from assocmem.stats import mean_interval, rate, t_interval
from assocmem.streams import Seed, child, numpy_rng


def random_subset_fraction(p: int, d: int, *, seed: int = 0, rel_error: float = 0.005) -> Estimate:
    """Storable fraction of a random subset, ``f = min(1, alpha_c(p) / alpha)``.

    Parameters
    ----------
    p : int
        Number of associations (and of outputs), >= 2.
    d : int
        Embedding dimension, >= 2.
    seed : int
        Seed of the Monte Carlo estimate of ``E[C_p]``.
    rel_error : float
        Relative standard error of that estimate, in (0, 1).

    Returns
    -------
    Estimate
        Fraction in (0, 1] with its Monte Carlo interval, cut at 1 (the point 1 where
        ``f = 1``).

    Raises
    ------
    TypeError, ValueError
        If ``p < 2`` or ``d < 2`` or ``rel_error`` is outside (0, 1).

    Notes
    -----
    ``n`` random associations with ``p - 1`` competitors each are storable while
    ``n E[C_p] <= d^2`` (RS volume condition, digest section 4.3, with ``n`` patterns instead
    of ``p``); with ``alpha = p log p / d^2`` this is ``n / p <= alpha_c(p) / alpha``.
    Reconstruction (chapter 3).
    """
    p = check_p(p)
    d = check_int("d", d, 2)
    alpha_c = finite_size_capacity_estimate(p, seed=seed, rel_error=rel_error)
    load = load_for_pairs(p, d)
    f = alpha_c.value / load
    if f >= 1.0:
        return monte_carlo(1.0, 0.0, alpha_c.n)
    e = monte_carlo(f, alpha_c.stderr / load, alpha_c.n)
    return replace(e, high=min(e.high, 1.0))


def cheapest_subset_fraction(costs: ArrayLike, budget: float) -> float:
    """Largest fraction of associations whose cheapest members fit a mean-cost budget.

    Solves ``E[C 1{C <= c*}] = budget`` on the empirical law of ``costs`` and returns
    ``f = P(C <= c*)``, linear in the last (partly affordable) sample, so that ``f`` is
    continuous in ``budget``.

    Parameters
    ----------
    costs : array_like, shape (n,), float
        Independent draws of the per-association cost, each finite and >= 0.
    budget : float
        Affordable mean cost per association, > 0 (``d^2 / p`` for the memory).

    Returns
    -------
    float
        Fraction in (0, 1]; 1 when ``mean(costs) <= budget``.

    Raises
    ------
    ValueError
        If ``costs`` is empty, not finite or negative, or ``budget <= 0``.

    Notes
    -----
    With constant costs ``c`` the answer is ``min(1, budget / c)``: no subset is cheaper than
    another. Reconstruction (chapter 3): the fewest-errors rule of the RS theory at q -> 1.
    """
    c = np.sort(as_float_array(costs, "costs").ravel())
    if c.size == 0 or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("costs must be a non-empty array of finite numbers >= 0")
    b = check_positive("budget", budget)
    n = c.size
    cum = np.cumsum(c) / n  # contribution of the k cheapest to the mean cost
    if cum[-1] <= b:
        return 1.0
    k = int(np.searchsorted(cum, b, side="right"))  # the k cheapest fit, the (k+1)-th does not
    spent = cum[k - 1] if k > 0 else 0.0
    part = (b - spent) / (c[k] / n) if c[k] > 0 else 0.0
    return float((k + min(part, 1.0)) / n)


def give_up_fraction(p: int, d: int, *, n_samples: int = 20_000, seed: Seed = 0) -> float:
    """RS storable fraction when the memory gives up its costliest associations.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 2.
    n_samples : int
        Draws of the q -> 1 cost ``C_p`` (margin 0), >= 2.
    seed : int or numpy.random.SeedSequence
        Seed of the draws.

    Returns
    -------
    float
        ``f = P(C_p <= c*)`` with ``p E[C_p 1{C_p <= c*}] = d^2``; 1 below capacity.

    Raises
    ------
    TypeError, ValueError
        If ``p < 2``, ``d < 2`` or ``n_samples < 2``.

    Notes
    -----
    An RS estimate, not a bound: choosing the subset makes the problem non-convex, where RS is
    usually optimistic. Reconstruction (chapter 3), costs from digest section 4.2.
    """
    p = check_p(p)
    d = check_int("d", d, 2)
    rng = numpy_rng(seed)
    costs = sample_cost_solutions(p, check_samples(n_samples), 0.0, rng).cost
    return cheapest_subset_fraction(costs, d**2 / p)


def small_problem_fraction(p: ArrayLike, d: int, *, seed: Seed = 0) -> NDArray[np.float64]:
    """Fraction ``f`` solving ``f p log(f p) / d^2 = alpha_c(f p)``: ``min(1, p_c(d) / p)``.

    Parameters
    ----------
    p : array_like of int, shape (m,) or scalar
        Numbers of associations, each >= 2.
    d : int
        Embedding dimension, >= 2.
    seed : int or numpy.random.SeedSequence
        Seed of the Monte Carlo ``alpha_c``.

    Returns
    -------
    numpy.ndarray, float64, shape of ``p``
        ``min(1, n / p)`` with ``n = p_c(d)`` the RS capacity count at ``d``
        (:func:`assocmem.linear.theory.finite_size.predicted_transition`, computed once).

    Raises
    ------
    TypeError, ValueError
        If a ``p < 2`` or ``d < 2``.

    Notes
    -----
    The equation does not contain ``p``: the subset is a fresh problem of ``n`` pairs with
    ``n - 1`` competitors each, so its solution is the capacity count at ``d``. The memory's
    real subset problem keeps all ``p - 1`` competitors, which costs more: this value lies
    above :func:`random_subset_fraction`. Tends to ``1 / (2 alpha)`` like it, since
    ``log p_c / log p -> 1``. Reconstruction (chapter 3).
    """
    arr = as_float_array(p, "p")
    if not np.all(np.isfinite(arr)) or np.any(arr < 2):
        raise ValueError(f"p must be finite and >= 2, got {p!r}")
    d = check_int("d", d, 2)
    n = predicted_transition(d, seed=seed).p
    return np.minimum(1.0, n / arr)


def accuracy_by_load(table: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Mean accuracy per (method, d, load) of a sweep, with a t-interval over instances.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`assocmem.linear.measure.sweeps.capacity_sweep` (columns ``method``, ``d``,
        ``alpha``, ``load``, ``p``, ``accuracy``), one row per instance.
    level : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per (method, d, alpha), sorted: ``method``, ``d``, ``alpha``, ``load``, ``p``,
        ``n`` (instances), ``accuracy`` (mean fraction recalled), ``ci_low``, ``ci_high``
        (Student-t interval of the mean over the ``n`` instances, cut to [0, 1]; NaN for
        ``n = 1``).

    Raises
    ------
    ValueError
        If a column is missing, an accuracy is NaN, or ``level`` is outside (0, 1).
    """
    need = ["method", "d", "alpha", "load", "p", "accuracy"]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks the columns {missing}")
    if table["accuracy"].isna().any():
        raise ValueError("accuracy has missing values (the LP records none)")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    out = (
        table.groupby(["method", "d", "alpha"], sort=True)
        .agg(load=("load", "first"), p=("p", "first"), n=("accuracy", "size"),
             accuracy=("accuracy", "mean"), sem=("accuracy", "sem"))
        .reset_index()
    )  # fmt: skip
    low, high = t_interval(out["accuracy"], out["sem"].fillna(0.0), out["n"], level=level)
    out["ci_low"] = np.clip(low, 0.0, 1.0)
    out["ci_high"] = np.clip(high, 0.0, 1.0)
    return out.drop(columns="sem")


def subset_problem(problem: MemoryProblem, n_keep: int, *, seed: Seed = 0) -> MemoryProblem:
    """Restrict a problem to ``n_keep`` random inputs, every output still competing.

    The other inputs are set to zero: their scores are all 0, so they are never recalled (a tie
    is not a recall) and they add a constant ``log p`` to the cross-entropy with zero gradient.
    Training on the result is training on the subset with all ``p`` outputs in the softmax.

    Parameters
    ----------
    problem : MemoryProblem
        An unbatched original problem (OP), ``inputs`` of shape (p, d).
    n_keep : int
        Number of inputs kept, in ``1..p``.
    seed : int or numpy.random.SeedSequence
        Stream of the choice of the kept inputs (:func:`subset_sweep` passes the child
        ``child(stream, 1)`` of the instance's own stream).

    Returns
    -------
    MemoryProblem
        Same ``targets``; ``inputs`` float32 (p, d) with ``p - n_keep`` rows zero.

    Raises
    ------
    ValueError
        If ``problem`` is batched or decoupled, or ``n_keep`` is outside ``1..p``.

    Notes
    -----
    A constructive check of :func:`random_subset_fraction` (chapter 3).
    """
    if problem.batched or problem.decoupled:
        raise ValueError("subset_problem needs one unbatched original problem")
    n_keep = check_int("n_keep", n_keep, 1)
    if n_keep > problem.p:
        raise ValueError(f"n_keep must be <= p = {problem.p}, got {n_keep}")
    rng = numpy_rng(seed)
    drop = rng.permutation(problem.p)[n_keep:]
    inputs = problem.inputs.clone()
    inputs[torch.as_tensor(drop, device=inputs.device)] = 0.0
    return MemoryProblem(inputs, problem.targets, None, problem.stream)


def subset_sweep(
    d: int,
    alphas: Sequence[float],
    *,
    share: float = 1.0,
    seeds: Sequence[int] = (0,),
    seed: Seed = 0,
    steps: int = 300,
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Train memories on a random subset of the inputs, sized by the random-subset fraction.

    At each load the instance ``s`` of the root ``seed``
    (:func:`assocmem.linear.instances.sampling.sample_problems`, the same instances as
    :func:`assocmem.linear.measure.sweeps.capacity_sweep` with that root) keeps
    ``n = round(share * f * p)`` inputs, ``f`` from :func:`random_subset_fraction`; every output
    stays in the softmax (:func:`subset_problem`, the kept inputs drawn from the child
    ``child(stream, 1)`` of the instance's stream). Trained by cross-entropy and Adam at the
    default rate (:func:`assocmem.linear.storage.training.train_memory`) for the whole ``steps``
    budget (the zeroed inputs are never recalled, so no early stop) and scored on all ``p``.

    Parameters
    ----------
    d : int
        Embedding dimension, >= 2.
    alphas : sequence of float
        Loads above capacity (``f < 1`` there), each > 0.
    share : float
        Share of the random-subset fraction that is kept, in (0, 1].
    seeds : sequence of int
        Instance labels (trained together, one batch per load), distinct, each >= 0 (an int
        ``n`` means ``range(n)``, the book's rule).
    seed : int or numpy.random.SeedSequence
        The sweep's root.
    steps : int
        Adam budget, >= 1.
    device : str, torch.device or None
        Where to train.

    Returns
    -------
    pandas.DataFrame
        One row per (alpha, seed): ``method`` (``"subset"``), ``d``, ``alpha``, ``load``,
        ``p``, ``seed``, ``kept`` (``n``), ``subset_recalled`` (fraction of the kept inputs
        recalled) and ``accuracy`` (fraction of all ``p`` recalled, float).

    Raises
    ------
    TypeError, ValueError
        Bad sizes, ``share`` outside (0, 1], or a load where ``n < 1``.

    Notes
    -----
    A constructive check of the cost argument (chapter 3): a memory with accuracy ``n / p``
    exists when the subset is stored.
    """
    d = check_int("d", d, 2)
    share = check_positive("share", share)
    if share > 1:
        raise ValueError(f"share must lie in (0, 1], got {share}")
    alpha_list = check_loads(alphas)
    seeds = seed_list(seeds)
    steps = check_int("steps", steps, 1)
    rows = []
    for alpha in alpha_list:
        p = pairs_for_load(alpha, d)
        f = random_subset_fraction(p, d).value
        n = round(share * f * p)
        if n < 1:
            raise ValueError(f"no input kept at alpha = {alpha}")
        batch = sample_problems(p, d, seeds, seed=seed, device=device)
        probs = [subset_problem(batch[i], n, seed=child(instance_stream(seed, p, d, s), 1))
                 for i, s in enumerate(seeds)]  # fmt: skip
        res = train_memory(stack_problems(probs), steps=steps, early_stop=False, device=device)
        acc = np.atleast_1d(np.asarray(res.accuracy, dtype=np.float64))
        for i, s in enumerate(seeds):
            k = round(float(acc[i]) * p)  # recalled inputs (exact count, float32 accuracy)
            rows.append({"method": "subset", "d": d, "alpha": float(alpha),
                         "load": load_for_pairs(p, d), "p": p, "seed": int(s), "kept": n,
                         "subset_recalled": k / n, "accuracy": k / p})  # fmt: skip
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class AboveCapacity:
    """Accuracies of memories above ``alpha = 1/2`` at one ``d``, next to the cost curves.

    Chapter 3's comparison: Hebbian, trained (``method = "train"``) and subset-trained
    (``"subset"``, :func:`subset_sweep`) memories, looked up by load and method (:meth:`at`),
    with the random-subset and give-up fractions and the Hebbian theory ``P_1`` at the same
    loads.

    Attributes
    ----------
    runs : pandas.DataFrame
        The rows of :func:`assocmem.linear.measure.sweeps.capacity_sweep` (Hebbian and trained) and
        of :func:`subset_sweep`, concatenated; one row per instance.
    d : int
        The dimension compared (``runs`` may hold other ``d`` too, e.g. for a figure).
    budget : int
        Adam budget of the trained memories (steps).
    accuracy : pandas.DataFrame
        :func:`accuracy_by_load` of ``runs`` (set on creation).

    Raises
    ------
    ValueError
        If ``runs`` lacks a column of :func:`accuracy_by_load` or holds no row at ``d``.
    """

    runs: pd.DataFrame
    d: int
    budget: int
    accuracy: pd.DataFrame = field(init=False, repr=False)
    _cache: dict[tuple[str, float], float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the sizes and compute :attr:`accuracy`."""
        check_int("d", self.d, 2)
        check_int("budget", self.budget, 1)
        object.__setattr__(self, "accuracy", accuracy_by_load(self.runs))
        object.__setattr__(self, "_cache", {})
        if not (self.runs["d"] == self.d).any():
            raise ValueError(f"runs hold no row at d = {self.d}")

    def _rows(self, alpha: float, method: str) -> pd.DataFrame:
        r = self.runs
        sel = r[(r["method"] == method) & (r["d"] == self.d)
                & np.isclose(r["alpha"].to_numpy(float), float(alpha))]  # fmt: skip
        if len(sel) == 0:
            raise ValueError(f"no {method!r} memory at alpha = {alpha}, d = {self.d}")
        return sel

    def has(self, alpha: float, method: str) -> bool:
        """Whether memories of ``method`` were run at load ``alpha``."""
        try:
            self._rows(alpha, method)
        except ValueError:
            return False
        return True

    def at(self, alpha: float, method: str = "train") -> Estimate:
        """Mean accuracy of ``method``'s memories at the requested load ``alpha``.

        Returns
        -------
        assocmem.estimate.Estimate
            Mean fraction recalled with its Student-t interval over the instances
            (:func:`assocmem.stats.mean_interval`), cut to [0, 1] (as :func:`accuracy_by_load`).

        Raises
        ------
        ValueError
            If no memory of ``method`` ran at ``alpha``.
        """
        return _mean_accuracy(self._rows(alpha, method)["accuracy"].to_numpy(float))

    def pairs(self, alpha: float) -> int:
        """Return the number of associations ``p`` at load ``alpha`` and this ``d``."""
        return int(pairs_for_load(float(alpha), self.d))

    def _cached(self, name: str, alpha: float) -> float:
        key = (name, float(alpha))
        if key not in self._cache:
            p = self.pairs(alpha)
            self._cache[key] = float(
                random_subset_fraction(p, self.d).value if name == "random"
                else give_up_fraction(p, self.d) if name == "give_up"
                else recall_probability(p, self.d, criterion="typical")
            )  # fmt: skip
        return self._cache[key]

    def random_fraction(self, alpha: float) -> float:
        """:func:`random_subset_fraction` at load ``alpha`` (default precision)."""
        return self._cached("random", alpha)

    def give_up(self, alpha: float) -> float:
        """:func:`give_up_fraction` at load ``alpha`` (default samples)."""
        return self._cached("give_up", alpha)

    def hebbian_theory(self, alpha: float) -> float:
        """Hebbian recall probability ``P_1`` (criterion "typical") at load ``alpha``."""
        return self._cached("p1", alpha)

    def table(self) -> pd.DataFrame:
        """One row per Hebbian load at ``d``: the three memories and the three predictions.

        Columns ``load``, ``p``, ``Hebbian [95 % CI] (n)``, ``Hebbian P_1``, ``trained``,
        ``subset-trained`` (cells ``"acc [low, high] (n = 8)"``, :func:`assocmem.estimate.render`;
        ``"-"`` where not run),
        ``random subset f`` and ``give up f``.
        """

        def cell(a: float, method: str) -> str:
            if not self.has(a, method):
                return "-"
            e = self.at(a, method)
            if math.isnan(e.low):  # all instances equal: no interval (see _mean_accuracy)
                return f"{e.value:.3f} (all {e.n} equal)"
            return render(e, n=True)

        heb = self.accuracy[(self.accuracy["method"] == "hebbian") & (self.accuracy["d"] == self.d)]
        alphas = heb["alpha"].to_list()
        return pd.DataFrame({
            "load": heb["load"].to_numpy(float), "p": heb["p"].to_numpy(),
            "Hebbian [95 % CI] (n)": [cell(a, "hebbian") for a in alphas],
            "Hebbian P_1": [self.hebbian_theory(a) for a in alphas],
            "trained": [cell(a, "train") for a in alphas],
            "subset-trained": [cell(a, "subset") for a in alphas],
            "random subset f": [self.random_fraction(a) for a in alphas],
            "give up f": [self.give_up(a) for a in alphas],
        })  # fmt: skip

    def summary(self, alphas: Sequence[float]) -> dict[str, Estimate | float | int]:
        """Return the numbers chapter 3 quotes, by label.

        Parameters
        ----------
        alphas : sequence of float
            Loads of the trained memories; entry ``i`` gives the labels ``"{i}_..."``.

        Returns
        -------
        dict
            ``d``, ``budget``; per load ``i``: ``{i}_load`` (actual load), ``{i}_tr``,
            ``{i}_hb`` and, where run, ``{i}_sub`` (:meth:`at` of the trained, Hebbian and
            subset-trained memories; no interval where all instances are equal), ``{i}_p1``,
            ``{i}_frand``, ``{i}_fgive`` (the predictions), ``{i}_stored`` (trained instances
            that stored every association) and ``{i}_stored_rate`` (their fraction, Wilson);
            ``sub_all`` and ``sub_n`` (subset-trained instances that recalled every kept input,
            of all), ``n_stalled`` (trained instances without perfect recall) and ``steps_hi``
            (the most steps one of them ran).
        """
        out: dict[str, Estimate | float | int] = {"d": self.d, "budget": self.budget}
        for i, a in enumerate(alphas):
            tr = self._rows(a, "train")
            out |= {f"{i}_load": float(tr["load"].iloc[0]), f"{i}_tr": self.at(a, "train"),
                    f"{i}_hb": self.at(a, "hebbian"), f"{i}_p1": self.hebbian_theory(a),
                    f"{i}_frand": self.random_fraction(a), f"{i}_fgive": self.give_up(a),
                    f"{i}_stored": int(tr["recalled_all"].sum()),
                    f"{i}_stored_rate": rate(tr["recalled_all"].to_numpy(bool))}  # fmt: skip
            if self.has(a, "subset"):
                out[f"{i}_sub"] = self.at(a, "subset")
        r = self.runs[self.runs["d"] == self.d]
        sub = r[r["method"] == "subset"]
        trained = r[r["method"] == "train"]
        stalled = trained[~trained["recalled_all"].astype(bool)]
        out |= {"sub_all": int((sub["subset_recalled"] == 1.0).sum()), "sub_n": len(sub),
                "n_stalled": len(stalled),
                "steps_hi": int(stalled["steps"].max()) if len(stalled) else 0}  # fmt: skip
        return out


def accuracy_at(
    table: pd.DataFrame, *, load: float | None = None, level: float = 0.95
) -> dict[str, float | Estimate]:
    """Mean accuracy of one sweep group at one load, with its Student-t interval.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of one (method, d) group of :func:`assocmem.linear.measure.sweeps.capacity_sweep` (as
        for :func:`accuracy_by_load`), one row per instance.
    load : float, optional
        Actual load ``p log p / d^2``; the grid load nearest to it is used. Default: the largest
        load of the table.
    level : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    dict
        ``load`` (the grid's actual load, float) and ``acc`` (:class:`assocmem.estimate.Estimate`:
        mean fraction recalled over the instances at that load, the :func:`accuracy_by_load`
        interval cut to [0, 1], ``n`` instances, ``method = "Student t"``).

    Raises
    ------
    ValueError
        If the table holds more than one (method, d) group, lacks a column, or ``load`` is not
        a finite positive number.
    """
    acc = accuracy_by_load(table, level=level)
    if acc[["method", "d"]].drop_duplicates().shape[0] != 1:
        raise ValueError("table must hold one (method, d) group")
    if load is None:
        row = acc.iloc[-1]
    else:
        x = check_positive("load", load)
        row = acc.loc[(acc["load"] - x).abs().idxmin()]
    values = table.loc[table["alpha"] == row["alpha"], "accuracy"].to_numpy(float)
    return {"load": float(row["load"]), "acc": _mean_accuracy(values, level)}


def _mean_accuracy(values: NDArray[np.float64], level: float = 0.95) -> Estimate:
    """Mean of instance accuracies with its Student-t interval cut to [0, 1].

    When every instance has the same accuracy (e.g. 3 of 3 stored everything) the spread is 0
    and a t-interval would be the point [a, a]: no interval is formed then (``low`` and ``high``
    NaN, ``method`` says why); quote the count of instances instead (e.g. a Wilson interval of
    the fraction of instances that stored everything).
    """
    e = mean_interval(values, level=level)
    assert isinstance(e, Estimate)  # 1-d values give an Estimate
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if np.all(x == x[0]):
        return replace(e, low=math.nan, high=math.nan, stderr=math.nan,
                       method="Student t: all instances equal, no interval")  # fmt: skip
    lo, hi = np.clip([e.low, e.high], 0.0, 1.0)
    return replace(e, low=float(lo), high=float(hi))
