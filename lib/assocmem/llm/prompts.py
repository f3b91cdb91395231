r"""Prompt design: query splits, demonstration prefixes, prompts as token ids.

Templates (a choice of this book; the paper's templates were not recovered, see the digest §6.2):
a demonstration is ``template.format(x=input, y=" " + label_word)``, the query is the same line
with ``y=""``; a k-shot prompt is k demonstrations, each followed by the task's separator, then
the query, e.g. for SST-2::

    Review: a dull , plodding mess
    Sentiment: negative

    Review: <query>
    Sentiment:

**A prompt's token ids are the tokenization of its text** (issue 26): ``[BOS] + ids(text)``,
with exactly one BOS for models that use one (:attr:`LanguageModel.add_bos`), where the text is
the demonstrations followed by the query (:func:`prompt_ids`). Encoding the demonstrations and the
query separately and concatenating the ids gives other ids under a byte-level BPE tokenizer:
SmolLM2's ends a lone ``"\n\n"`` with the single token ``ĊĊ`` but splits the same characters
before ``"Review"`` into ``Ċ``, ``Ċ``. The key/value cache of a demonstration prefix is still
computed once: the prompts that share a prefix are cut after the longest run of token ids they
all start with (:func:`prompt_ids`), which covers the demonstrations up to the boundary.
A prompt longer than the model's context is refused with its length and the limit, never
truncated (:meth:`LanguageModel.check_fits`), and data text never becomes a control token: a
special-token string in a review is encoded as the characters it is made of (:func:`encode`).
For an instruction-tuned model the same text can be wrapped in its chat template
(:func:`chat_text`): the demonstrations and the query's input in the user turn, the answer line
(``"Sentiment:"``) started in the assistant turn.

Splits: per task, disjoint query sets build the context vector (``ctx``), select the additive
score's (layer, lambda) (``sel``) and measure (``test``); demonstrations come from the pool of
items that are no query at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assocmem._validate import check_index_array, check_int
from assocmem.llm.data import Task
from assocmem.llm.models import LanguageModel
from assocmem.streams import Seed, as_seed_sequence, child, numpy_rng

__all__ = [
    "Split",
    "make_split",
    "DemoPrefixes",
    "demo_prefixes",
    "first_demos",
    "encode",
    "prompt_ids",
    "chat_text",
    "ChatText",
]

DEMO_KINDS = ("supportive", "adversarial")


# --------------------------------------------------------------------------- splits
@dataclass(frozen=True)
class Split:
    """Disjoint query sets of one task, and the demonstration pool.

    Attributes
    ----------
    task : str
    seed : int or numpy.random.SeedSequence
        The root the split was drawn from (a record; the split holds its items).
    ctx, sel, test : numpy.ndarray, int64
        Item indices that build c-bar, select (layer, lambda), and are reported.
    pool : numpy.ndarray, int64
        Items demonstrations may be drawn from: every item that is no query (not in ``ctx``,
        ``sel`` or ``test``), so no query is ever among the demonstrations of any prompt.
    """

    task: str
    seed: Seed
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


def make_split(
    task: Task,
    *,
    n_ctx: int,
    n_sel: int,
    n_test: int,
    n_pool: int = 1,
    seed: Seed = 0,
    stratify: bool = False,
    pool_per_class: int = 0,
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
    seed : int or numpy.random.SeedSequence
        Root of the draw (its children ``"split"`` and ``"split reserve"``,
        :func:`assocmem.streams.child`).
    stratify : bool
        Equal numbers of test queries per class.
    pool_per_class : int
        Items of each class reserved for the demonstration pool before any query is drawn
        (seeded; class-balanced demonstration sets need ``n_sets * k / K`` per class), >= 0.
        A class with fewer items gives them all to the pool. Counted in ``n_pool``.
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
        query set of size >= 1 is left beside the pool; the message names the argument that made
        the pool that large, ``n_pool`` or ``pool_per_class``).
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task (from load_task), got {type(task).__name__}")
    sizes = [check_int(n, v, 1) for n, v in (("n_ctx", n_ctx), ("n_sel", n_sel),
                                               ("n_test", n_test))]  # fmt: skip
    n_pool = check_int("n_pool", n_pool, 1)
    pool_per_class = check_int("pool_per_class", pool_per_class, 0)
    as_seed_sequence(seed)
    n = len(task)
    requested_pool = n_pool
    reserved = np.zeros(0, dtype=np.int64)
    if pool_per_class:
        res_rng = numpy_rng(child(seed, "split reserve"))
        reserved = np.sort(np.concatenate([
            res_rng.permutation(np.flatnonzero(task.labels == c))[:pool_per_class]
            for c in range(len(task.label_words))
        ])).astype(np.int64)  # fmt: skip
        n_pool = max(n_pool, len(reserved))
    room = n - n_pool  # items left for the three query sets
    if room < 3:
        cause = (
            f"n_pool = {n_pool}; lower n_pool"
            if n_pool == requested_pool
            else f"pool_per_class = {pool_per_class} reserves {len(reserved)} items for the pool "
            f"(n_pool = {requested_pool}); lower pool_per_class"
        )
        raise ValueError(
            f"{task.name} has {n} items ({task.source}): a demonstration pool of {n_pool} leaves "
            f"{max(room, 0)} for the three query sets (ctx, sel, test), which need at least 3: "
            f"{cause}"
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
    rng = numpy_rng(child(seed, "split"))
    perm = rng.permutation(n)
    perm = perm[~np.isin(perm, reserved)]
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
    seed: Seed = 0,
    demos: str = "supportive",
    balanced: bool = False,
) -> DemoPrefixes:
    """Draw ``n_prefixes`` seeded k-shot demonstration prefixes (sets) from ``pool``.

    The items drawn do not depend on ``demos``: the adversarial sets show the supportive sets'
    items in the same order, each with a wrong label, so the two are compared pair by pair.

    With ``balanced``, every set shows each of the K classes ``k / K`` times, in a seeded random
    order, and the draw does not depend on ``demos``: the adversarial sets are the supportive
    sets (same items, same order) with every label moved by a per-set shift in 1..K-1 (mod K),
    so each set stays balanced and every shown label is wrong.

    Parameters
    ----------
    task : Task
    pool : numpy.ndarray, int64
        Items allowed as demonstrations (``Split.pool``).
    k : int
        Demonstrations per prefix, >= 1.
    n_prefixes : int
        Number of prefixes P, >= 1; the P prefixes are disjoint, so ``P * k <= len(pool)``.
    seed : int or numpy.random.SeedSequence
        Root of the draw: the sets of ``k`` come from its child ``("prefixes", k)`` (balanced:
        ``("balanced sets", k)``), the adversarial labels from ``("label shift", k)``
        (balanced: ``("set label shift", k)``), so no two uses share a stream.
    demos : {"supportive", "adversarial"}
        True labels, or a wrong label drawn uniformly from the other classes (per set with
        ``balanced``, see above).
    balanced : bool
        Class-balanced sets in random order (``k`` a multiple of the number of classes K).

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
        outside ``[0, len(task))`` or a repeat, or ``n_prefixes * k > len(pool)``; with
        ``balanced``, if K does not divide ``k`` or the pool holds fewer than
        ``n_prefixes * k / K`` items of a class.
    """
    if demos not in DEMO_KINDS:
        raise ValueError(f"demos must be one of {DEMO_KINDS}, got {demos!r}")
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task (from load_task), got {type(task).__name__}")
    pool = check_index_array("pool", pool, len(task))
    if np.unique(pool).size != pool.size:
        raise ValueError("pool must not repeat an item (the prefixes share no demonstration)")
    k = check_int("k", k, 1)
    n_prefixes = check_int("n_prefixes", n_prefixes, 1)
    as_seed_sequence(seed)
    if n_prefixes * k > len(pool):
        raise ValueError(
            f"n_prefixes * k = {n_prefixes} * {k} exceeds the {len(pool)} items of the "
            "demonstration pool (the prefixes share no demonstration): lower n_prefixes or k"
        )
    n_labels = len(task.label_words)
    if balanced:
        items = _balanced_sets(task, pool, k, n_prefixes, seed)
        labels = task.labels[items].copy()
        if demos == "adversarial":
            shift = numpy_rng(child(seed, "set label shift", k)).integers(
                1, n_labels, size=n_prefixes
            )
            labels = (labels + shift[:, None]) % n_labels
    else:
        rng = numpy_rng(child(seed, "prefixes", k))
        # disjoint prefixes: a query that is a demonstration lies in at most one prefix, so
        # with two or more prefixes DemoPrefixes.assign always finds one without it
        items = rng.choice(pool, size=n_prefixes * k, replace=False).reshape(n_prefixes, k)
        labels = task.labels[items].copy()
        if demos == "adversarial":  # the same items: only the shown labels differ
            shift = numpy_rng(child(seed, "label shift", k)).integers(
                1, n_labels, size=labels.shape
            )
            labels = (labels + shift) % n_labels
    texts = _prefix_texts(task, items, labels)
    return DemoPrefixes(k, demos, items.astype(np.int64), labels.astype(np.int64), texts)


def first_demos(task: Task, pre: DemoPrefixes, m: int = 1) -> DemoPrefixes:
    """Cut the same sets to their first ``m`` demonstrations (e.g. 1-shot from the k-shot sets).

    Parameters
    ----------
    task : Task
        The task ``pre`` was drawn from (its template and label words write the texts).
    pre : DemoPrefixes
    m : int
        Demonstrations kept per set, in ``[1, pre.k]``.

    Returns
    -------
    DemoPrefixes
        ``k = m``, the first ``m`` items and shown labels of each set, in order; test query i
        is assigned the same set as with ``pre`` (:meth:`DemoPrefixes.assign`) whenever no query
        is a demonstration.

    Raises
    ------
    ValueError
        If ``m`` is outside ``[1, pre.k]``.
    """
    m = check_int("m", m, 1)
    if m > pre.k:
        raise ValueError(f"m must be at most the sets' k = {pre.k}, got {m}")
    items, labels = pre.items[:, :m], pre.labels[:, :m]
    texts = _prefix_texts(task, items, labels)
    return DemoPrefixes(m, pre.demos, items.copy(), labels.copy(), texts)


def _prefix_texts(task: Task, items: np.ndarray, labels: np.ndarray) -> tuple[str, ...]:
    """Each set's text: its demonstrations with their shown labels, each ended by the separator."""
    return tuple(
        "".join(
            task.template.format(x=task.texts[j], y=" " + task.label_words[y]) + task.separator
            for j, y in zip(row, lab, strict=True)
        )
        for row, lab in zip(items, labels, strict=True)
    )


def _balanced_sets(task: Task, pool: np.ndarray, k: int, n_sets: int, seed: Seed) -> np.ndarray:
    """Items (n_sets, k): k / K of each class per set, disjoint sets, seeded random order."""
    n_labels = len(task.label_words)
    if k % n_labels:
        raise ValueError(
            f"balanced sets need k to be a multiple of the {n_labels} classes of {task.name}, "
            f"got k = {k}"
        )
    per = k // n_labels
    rng = numpy_rng(child(seed, "balanced sets", k))
    columns = []
    for c in range(n_labels):
        members = pool[task.labels[pool] == c]
        if len(members) < n_sets * per:
            raise ValueError(
                f"{task.name}: the demonstration pool holds {len(members)} items of class "
                f"{task.label_words[c]!r}, {n_sets} balanced sets of k = {k} need "
                f"{n_sets * per}: reserve them (make_split(pool_per_class=...)) or lower n_sets"
            )
        columns.append(rng.choice(members, size=n_sets * per, replace=False).reshape(n_sets, per))
    items = np.concatenate(columns, axis=1)
    return np.stack([rng.permutation(row) for row in items])


class ChatText(str):
    """A prompt text rendered by :func:`chat_text`: its special-token strings are control tokens.

    A plain ``str`` is data: :func:`encode` encodes a special-token string in it (``<|im_end|>``,
    ``<|endoftext|>``, ``<|begin_of_text|>``) as the characters it is made of, never as the
    control token. Only the chat template's own markup, in the text :func:`chat_text` returns
    as a ``ChatText``, is encoded as control tokens (and :func:`chat_text` refuses data that
    holds a special-token string). String operations on it return a plain ``str`` (data).
    """

    __slots__ = ()


def _special_strings(lm: LanguageModel) -> list[str]:
    """Return the tokenizer's special-token strings (named ones and added special tokens)."""
    tok = lm.tokenizer
    added = getattr(tok, "added_tokens_decoder", {}) or {}
    found = {str(t.content) for t in added.values() if getattr(t, "special", False)}
    return sorted(found | {str(t) for t in getattr(tok, "all_special_tokens", [])})


def encode(lm: LanguageModel, text: str) -> list[int]:
    """Token ids of a prompt piece, without added special tokens (no BOS, no EOS).

    Data never becomes a control token: in a plain ``str`` a special-token string such as
    ``<|im_end|>`` is encoded as text (``split_special_tokens=True``); only a :class:`ChatText`
    (the output of :func:`chat_text`) is encoded with its template's control tokens.

    Parameters
    ----------
    lm : LanguageModel
    text : str or ChatText

    Returns
    -------
    list of int

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If the text with the model's BOS is longer than its context
        (:meth:`LanguageModel.check_fits`: refused, not truncated).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    split = not isinstance(text, ChatText)
    ids = [int(i) for i in lm.tokenizer.encode(text, add_special_tokens=False,
                                               split_special_tokens=split)]  # fmt: skip
    lm.check_fits(len(lm.bos_ids) + len(ids), f"the text {text[:40]!r}...")
    return ids


def chat_text(lm: LanguageModel, text: str) -> str:
    """Wrap a prompt's text in the model's chat template (instruction-tuned models).

    The text up to its last line goes into the user turn; the last line (the query's answer
    cue, e.g. ``"Sentiment:"``) starts the assistant turn, which the model continues, so the
    label words are scored as in the plain prompt.

    Parameters
    ----------
    lm : LanguageModel
        A model whose tokenizer has a chat template.
    text : str
        Demonstrations and query, as built for the plain prompt (its last line the answer cue).

    Returns
    -------
    ChatText
        The templated text (a ``str``; its special tokens written out, as the template renders
        them, which :func:`encode` encodes as control tokens).

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If the tokenizer has no chat template; if ``text`` has no line break or ends with one
        (the answer cue must be its last line, or the cue would land in the user turn and the
        assistant turn would start empty: refused, not stripped); if ``text`` holds one of the
        tokenizer's special-token strings (data must not become a control token).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not getattr(lm.tokenizer, "chat_template", None):
        raise ValueError(f"{lm.name}'s tokenizer has no chat template")
    if "\n" not in text:
        raise ValueError("text must end with an answer line after a line break")
    body, cue = text.rsplit("\n", 1)
    if not cue.strip():
        raise ValueError(
            f"text must end with its answer cue (e.g. 'Sentiment:'), not with a line break or "
            f"blank line: got ...{text[-30:]!r}"
        )
    special = [t for t in _special_strings(lm) if t and t in text]
    if special:
        raise ValueError(
            f"text holds the special-token string(s) {special} of {lm.name}'s tokenizer: inside "
            "a chat template they would become control tokens; remove them from the data"
        )
    messages = [{"role": "user", "content": body}, {"role": "assistant", "content": cue}]
    return ChatText(lm.tokenizer.apply_chat_template(
        messages, tokenize=False, continue_final_message=True
    ))  # fmt: skip


def prompt_ids(
    lm: LanguageModel,
    texts: list[str],
    which: np.ndarray,
) -> tuple[list[list[int]], list[list[int]]]:
    """Split prompts' token ids into shared prefixes and query parts, exactly as the text tokenizes.

    Prompt i is ``texts[i]``, tokenized whole (:func:`encode`); the prompts of one group
    (``which[i]``, e.g. those that share a demonstration set) are cut after the longest run of
    ids they all start with, one token short of the shortest, so that every query part is
    non-empty. Then ``prefixes[which[i]] + queries[i] == encode(lm, texts[i])`` for every i:
    :func:`assocmem.llm.states.prompt_states` runs exactly the text's tokens (after one BOS for
    a model that wants it) and still computes each group's shared prefix once.

    Parameters
    ----------
    lm : LanguageModel
    texts : list of str, length n
        Whole prompt texts (demonstrations and query).
    which : numpy.ndarray of int, shape (n,)
        Group of each prompt, in ``[0, P)`` (all zeros: one group).

    Returns
    -------
    (list of list of int, list of list of int)
        ``prefixes`` (length P; a group with no prompt gets ``[]``) and ``queries`` (length n).

    Raises
    ------
    TypeError
        If ``texts`` is not a sequence of strings (a numpy array of strings is accepted), or
        ``which`` not a 1-D array of integers.
    ValueError
        If ``texts`` is empty, a text tokenizes to nothing or is longer than the model's context
        (:func:`encode`), or ``which`` is not one index >= 0 per prompt.
    """
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__len__"):
        raise TypeError(f"texts must be a sequence of prompt texts, got {type(texts).__name__}")
    if len(texts) == 0:
        raise ValueError("texts must be a non-empty list of prompt texts")
    which = check_index_array("which", which)  # before any text is encoded
    if which.shape != (len(texts),):
        raise ValueError(f"which must hold one group per prompt, got shape {which.shape}")
    full = [encode(lm, t) for t in texts]
    if any(not f for f in full):
        raise ValueError("every prompt text must tokenize to at least one token")
    n_groups = int(which.max()) + 1
    prefixes: list[list[int]] = [[] for _ in range(n_groups)]
    for g in range(n_groups):
        rows = [full[i] for i in np.flatnonzero(which == g)]
        if not rows:
            continue
        m = min(len(r) for r in rows) - 1
        first = rows[0]
        for r in rows[1:]:
            j = 0
            while j < m and r[j] == first[j]:
                j += 1
            m = j
        prefixes[g] = first[:m]
    queries = [full[i][len(prefixes[int(g)]) :] for i, g in enumerate(which)]
    return prefixes, queries
