"""Prompt design: query splits, demonstration prefixes, prompts as token ids.

Templates (a choice of this book; the paper's templates were not recovered, see the digest §6.2):
a demonstration is ``template.format(x=input, y=" " + label_word)``, the query is the same line
with ``y=""``; a k-shot prompt is k demonstrations, each followed by the task's separator, then
the query, e.g. for SST-2::

    Review: a dull , plodding mess
    Sentiment: negative

    Review: <query>
    Sentiment:

**Prompts are defined at the token level**: ``[BOS] + ids(demonstrations) + ids(query)``, the two
pieces encoded separately (without special tokens) and concatenated, with exactly one BOS for
models that use one (:attr:`LanguageModel.add_bos`). This makes the demonstration part a
*prefix* whose key/value cache is computed once and shared by every query that uses it
(:func:`assocmem.llm.states.prompt_states`), and it makes the ids independent of how a
tokenizer would merge across the boundary.

Splits: per task, disjoint query sets build the context vector (``ctx``), select the additive
score's (layer, lambda) (``sel``) and measure (``test``); demonstrations come from the pool of
items that are no query at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assocmem._validate import check_index_array, check_int

from .data import Task
from .models import LanguageModel

__all__ = [
    "Split",
    "make_split",
    "DemoPrefixes",
    "demo_prefixes",
    "encode",
]

DEMO_KINDS = ("supportive", "adversarial")


# --------------------------------------------------------------------------- splits
@dataclass(frozen=True)
class Split:
    """Disjoint query sets of one task, and the demonstration pool.

    Attributes
    ----------
    task : str
    seed : int
    ctx, sel, test : numpy.ndarray, int64
        Item indices that build c-bar, select (layer, lambda), and are reported.
    pool : numpy.ndarray, int64
        Items demonstrations may be drawn from: every item that is no query (not in ``ctx``,
        ``sel`` or ``test``), so no query is ever among the demonstrations of any prompt.
    """

    task: str
    seed: int
    ctx: np.ndarray
    sel: np.ndarray
    test: np.ndarray
    pool: np.ndarray

    def __str__(self) -> str:
        """One line: the four set sizes."""
        return (
            f"{self.task}: n_ctx = {len(self.ctx)}, n_sel = {len(self.sel)}, "
            f"n_test = {len(self.test)}, demonstration pool = {len(self.pool)}"
        )


def _check_size(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return int(value)


def make_split(
    task: Task,
    *,
    n_ctx: int,
    n_sel: int,
    n_test: int,
    n_pool: int = 1,
    seed: int = 0,
    stratify: bool = False,
    verbose: bool = True,
) -> Split:
    """Draw disjoint context, selection and test queries and a demonstration pool (seeded).

    The test queries are drawn first (with ``stratify``, ``n_test // K`` per class, the rest at
    random), then the selection and context queries from what is left; every remaining item
    forms the demonstration pool, which holds at least ``n_pool`` items. When the task holds
    fewer than ``n_ctx + n_sel + n_test + n_pool`` items (the built-in example sets), the three
    query sizes shrink in proportion to fit the ``n - n_pool`` items left for queries, and a line
    says which sizes were used.

    Parameters
    ----------
    task : Task
    n_ctx, n_sel, n_test : int
        Requested query-set sizes, each >= 1.
    n_pool : int
        Fewest items kept out of every query set for demonstrations, >= 1 (e.g. the number of
        prefixes times the largest k, so that no demonstration repeats across prefixes).
    seed : int
        Seed of the draw.
    stratify : bool
        Equal numbers of test queries per class.
    verbose : bool
        Print a line when the sizes shrink.

    Returns
    -------
    Split

    Raises
    ------
    TypeError
        If ``task`` is not a Task or a size or the seed is not an integer.
    ValueError
        If a size is < 1, the seed < 0, or the task has fewer than ``n_pool + 3`` items (then no
        query set of size >= 1 is left beside the pool; the message names ``n_pool``).
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task (from load_task), got {type(task).__name__}")
    sizes = [_check_size(n, v, 1) for n, v in (("n_ctx", n_ctx), ("n_sel", n_sel),
                                               ("n_test", n_test))]  # fmt: skip
    n_pool = _check_size("n_pool", n_pool, 1)
    seed = check_int("seed", seed, 0)
    n = len(task)
    room = n - n_pool  # items left for the three query sets
    if room < 3:
        raise ValueError(
            f"{task.name} has {n} items ({task.source}): n_pool = {n_pool} leaves {max(room, 0)} "
            "for the three query sets (ctx, sel, test), which need at least 3; lower n_pool"
        )
    want = sum(sizes)
    if want > room:
        # largest-remainder apportionment of the room, each set >= 1
        exact = np.array(sizes, dtype=float) * room / want
        scaled = np.maximum(1, np.floor(exact).astype(int))
        for i in np.argsort(-(exact - np.floor(exact)), kind="stable"):
            if scaled.sum() >= room:
                break
            scaled[i] += 1
        while scaled.sum() > room:  # the floors of 1 can overshoot: trim the largest
            scaled[int(np.argmax(scaled))] -= 1
        scaled = [int(v) for v in scaled]
        if verbose:
            print(
                f"{task.name}: only {n} items ({task.source}):\n"
                f"  n_ctx, n_sel, n_test = {scaled[0]}, {scaled[1]}, {scaled[2]} instead of "
                f"{sizes[0]}, {sizes[1]}, {sizes[2]}\n"
                f"  beside a demonstration pool of at least {n_pool}"
            )
        sizes = scaled
    n_ctx, n_sel, n_test = sizes
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    if stratify:
        k_classes = int(task.labels.max()) + 1
        per = n_test // k_classes
        test_list = [perm[task.labels[perm] == c][:per] for c in range(k_classes)]
        test = np.concatenate(test_list)
        rest = perm[~np.isin(perm, test)]
        test = np.concatenate([test, rest[: n_test - len(test)]])
    else:
        test = perm[:n_test]
    rest = perm[~np.isin(perm, test)]
    sel, ctx = rest[:n_sel], rest[n_sel : n_sel + n_ctx]
    pool = np.setdiff1d(np.arange(n), np.concatenate([test, sel, ctx]))
    return Split(task.name, seed, ctx.astype(np.int64), sel.astype(np.int64),
                 np.sort(test).astype(np.int64), pool.astype(np.int64))  # fmt: skip


# --------------------------------------------------------------------------- demonstrations
@dataclass(frozen=True)
class DemoPrefixes:
    """A few fixed demonstration prefixes shared by the queries.

    Attributes
    ----------
    k : int
        Demonstrations per prefix.
    demos : {"supportive", "adversarial"}
    items : numpy.ndarray, int64, shape (P, k)
        Task items of each prefix's demonstrations.
    labels : numpy.ndarray, int64, shape (P, k)
        Label shown with each demonstration (the true one, or a wrong one for adversarial).
    texts : tuple of str, length P
        The prefix strings (each demonstration followed by the separator).
    """

    k: int
    demos: str
    items: np.ndarray
    labels: np.ndarray
    texts: tuple[str, ...]

    def assign(self, queries: np.ndarray) -> np.ndarray:
        """Prefix of each query: ``i mod P``, moved on to the next prefix holding not the query.

        Parameters
        ----------
        queries : numpy.ndarray, int64, shape (n,)
            Task item indices of the queries.

        Returns
        -------
        numpy.ndarray, int64, shape (n,)
            Index of each query's prefix in ``[0, P)``.

        Raises
        ------
        TypeError
            If ``queries`` is not a 1-D array of integers.
        ValueError
            If a query is negative or appears in every prefix.
        """
        queries = check_index_array("queries", queries)
        n_pref = len(self.texts)
        out = np.empty(len(queries), dtype=np.int64)
        for i, q in enumerate(queries):
            for shift in range(n_pref):
                j = (i + shift) % n_pref
                if q not in self.items[j]:
                    out[i] = j
                    break
            else:
                raise ValueError(
                    f"query item {q} is a demonstration in every one of the {n_pref} prefixes: "
                    "draw the demonstrations from items that are no query (Split.pool) or use "
                    "more prefixes (n_prefixes)"
                )
        return out


def demo_prefixes(
    task: Task,
    pool: np.ndarray,
    *,
    k: int,
    n_prefixes: int,
    seed: int = 0,
    demos: str = "supportive",
) -> DemoPrefixes:
    """Draw ``n_prefixes`` seeded k-shot demonstration prefixes from ``pool``.

    Parameters
    ----------
    task : Task
    pool : numpy.ndarray, int64
        Items allowed as demonstrations (``Split.pool``).
    k : int
        Demonstrations per prefix, >= 1.
    n_prefixes : int
        Number of prefixes P, >= 1; the P prefixes are disjoint, so ``P * k <= len(pool)``.
    seed : int
        Seed of the draw.
    demos : {"supportive", "adversarial"}
        True labels, or a wrong label drawn uniformly from the other classes.

    Returns
    -------
    DemoPrefixes

    Raises
    ------
    TypeError
        If ``task`` is not a Task, ``pool`` not a 1-D array of integers, or k, n_prefixes or seed
        not an integer.
    ValueError
        If ``demos`` is unknown, k or n_prefixes is < 1, the seed < 0, ``pool`` holds an index
        outside ``[0, len(task))`` or a repeat, or ``n_prefixes * k > len(pool)``.
    """
    if demos not in DEMO_KINDS:
        raise ValueError(f"demos must be one of {DEMO_KINDS}, got {demos!r}")
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task (from load_task), got {type(task).__name__}")
    pool = check_index_array("pool", pool, len(task))
    if np.unique(pool).size != pool.size:
        raise ValueError("pool must not repeat an item (the prefixes share no demonstration)")
    k = _check_size("k", k, 1)
    n_prefixes = _check_size("n_prefixes", n_prefixes, 1)
    seed = check_int("seed", seed, 0)
    if n_prefixes * k > len(pool):
        raise ValueError(
            f"n_prefixes * k = {n_prefixes} * {k} exceeds the {len(pool)} items of the "
            "demonstration pool (the prefixes share no demonstration): lower n_prefixes or k"
        )
    rng = np.random.default_rng([seed, k, DEMO_KINDS.index(demos)])
    n_labels = len(task.label_words)
    # disjoint prefixes: a query that is a demonstration lies in at most one prefix, so with
    # two or more prefixes DemoPrefixes.assign always finds one without it
    items = rng.choice(pool, size=n_prefixes * k, replace=False).reshape(n_prefixes, k)
    labels = task.labels[items].copy()
    if demos == "adversarial":
        labels = (labels + rng.integers(1, n_labels, size=labels.shape)) % n_labels
    texts = tuple(
        "".join(
            task.template.format(x=task.texts[j], y=" " + task.label_words[y]) + task.separator
            for j, y in zip(row, lab, strict=True)
        )
        for row, lab in zip(items, labels, strict=True)
    )
    return DemoPrefixes(k, demos, items.astype(np.int64), labels.astype(np.int64), texts)


def encode(lm: LanguageModel, text: str) -> list[int]:
    """Token ids of a prompt piece, without special tokens.

    Parameters
    ----------
    lm : LanguageModel
    text : str

    Returns
    -------
    list of int

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return list(lm.tokenizer.encode(text, add_special_tokens=False))
