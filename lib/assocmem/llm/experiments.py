"""Chapter-6 drivers: one call per experiment returns its typed result (:mod:`.results`).

Protocol (issues 14 and 26; its numbers: :class:`.protocol.Chapter6Protocol`): per task,
disjoint query sets build c-bar^(l) (``ctx``), select the additive score's (layer, lambda) and
the calibration (``sel``) and are reported (``test``); zero-shot, calibrated zero-shot, k-shot
ICL (correct and wrong demonstration labels), the additive score, whole-vocabulary scoring and
(instruction-tuned models) the chat template are measured on the same test queries. Test query i
sees demonstration set i mod P (P >= 8 class-balanced sets, key/value cache of each computed
once). :func:`run_classification` returns a :class:`.results.TaskResult`, :func:`run_lama` a
:class:`.results.LamaResult`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from assocmem._validate import check_index_array, check_int
from assocmem.llm.data import Task
from assocmem.llm.evaluation import label_alignment, probe_accuracy
from assocmem.llm.models import LanguageModel, weights_digest
from assocmem.llm.probes import (
    additive_accuracy,
    additive_logits,
    context_vector,
    decode,
    final_norm,
    lama_context_effect,
    layer_profile,
    log_partition,
)
from assocmem.llm.prompts import (
    DemoPrefixes,
    Split,
    chat_text,
    demo_prefixes,
    first_demos,
    make_split,
    prompt_ids,
)
from assocmem.llm.protocol import Chapter6Protocol, default_layers
from assocmem.llm.registry import MODELS
from assocmem.llm.results import LamaResult, ProbeResult, TaskResult
from assocmem.llm.states import PromptStates, prompt_states, uses_cache
from assocmem.streams import as_seed_sequence, child, numpy_rng

__all__ = [
    "run_classification",
    "run_lama",
    "protocol_split",
    "run_protocol_task",
    "run_protocol_lama",
    "select_additive",
    "calibrated_predict",
    "lama_target_stats",
]

_PAGE = Chapter6Protocol()


def __getattr__(name: str) -> object:
    """Serve ``SIZES`` (deprecated): chapter 6's sizes live in the protocol now."""
    if name == "SIZES":
        warnings.warn(
            "assocmem.llm.experiments.SIZES is deprecated; use "
            "assocmem.llm.protocol.Chapter6Protocol().sizes",
            DeprecationWarning,
            stacklevel=2,
        )
        return {m: dict(s) for m, s in _PAGE.sizes.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def select_additive(
    acc_sel: np.ndarray, layers: Sequence[int], lambdas: np.ndarray
) -> tuple[int, float]:
    """Return the (layer, lambda) of the best selection-split accuracy (first maximum, layer-major).

    Parameters
    ----------
    acc_sel : numpy.ndarray, shape (len(layers), len(lambdas))
        Accuracies on the selection queries only.
    layers : sequence of int
    lambdas : numpy.ndarray

    Returns
    -------
    (int, float)
    """
    i, j = np.unravel_index(int(np.argmax(acc_sel)), acc_sel.shape)
    return int(layers[int(i)]), float(lambdas[int(j)])


def _query_texts(task: Task, items: np.ndarray) -> list[str]:
    return [task.template.format(x=task.texts[i], y="") for i in items]


def _prompt_states(
    lm: LanguageModel,
    task: Task,
    items: np.ndarray,
    pre: DemoPrefixes | None,
    *,
    chat: bool = False,
    desc: str,
    **kw: Any,
) -> PromptStates:
    """States of the prompts of ``items`` (zero-shot, or each with its set of ``pre``).

    The ids are the tokenization of each prompt's whole text (:func:`.prompts.prompt_ids`),
    optionally wrapped in the chat template (:func:`.prompts.chat_text`).
    """
    texts = _query_texts(task, items)
    if pre is None:
        which = np.zeros(len(items), dtype=np.int64)
    else:
        which = pre.assign(items)
        texts = [pre.texts[w] + t for w, t in zip(which, texts, strict=True)]
    if chat:
        texts = [chat_text(lm, t) for t in texts]
    prefixes, queries = prompt_ids(lm, texts, which)
    return prompt_states(lm, prefixes, queries, which, desc=desc, **kw)


def _last_layer(
    lm: LanguageModel, h_last: torch.Tensor, ids: torch.Tensor, y: np.ndarray, chunk: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Whole-vocabulary correctness and label mass of last-layer states (chunked: V may be 262k)."""
    ok, mass = [], []
    for s in range(0, len(h_last), chunk):
        logits = decode(lm, h_last[s : s + chunk])
        ok.append(logits.argmax(-1).numpy() == ids.numpy()[y[s : s + chunk]])
        on_labels = torch.logsumexp(logits[:, ids].double(), -1)
        mass.append(torch.exp(on_labels - log_partition(logits)).numpy())  # logits overwritten
    return np.concatenate(ok), np.concatenate(mass)


def calibrated_predict(label_logits_sel: torch.Tensor, label_logits: torch.Tensor) -> np.ndarray:
    """Zero-shot predictions with a per-class bias removed, the bias measured on other queries.

    Each label's log-probability (over the label tokens) is centred by its mean over the
    selection queries: ``argmax_y [log p(y | x) - mean_sel log p(y | x')]``. A model that favours
    a label whatever the input, by a constant added to that label's logit, loses exactly that
    favour (the predictions are invariant to any per-label logit offset). This is the idea of
    contextual calibration (divide by the label probabilities of a content-free input), with
    the reference measured as the geometric mean over held-out queries instead; nothing is
    fitted on the queries it is applied to.

    Parameters
    ----------
    label_logits_sel : torch.Tensor, shape (n_sel, K)
        Label logits of the selection queries (estimate the bias).
    label_logits : torch.Tensor, shape (n, K)
        Label logits of the queries to predict.

    Returns
    -------
    numpy.ndarray, int64, shape (n,)
        Predicted class per query.

    Raises
    ------
    ValueError
        If the two have different numbers of classes or ``label_logits_sel`` is empty.
    """
    if label_logits_sel.ndim != 2 or label_logits.ndim != 2 or len(label_logits_sel) == 0:
        raise ValueError("label logits must be 2-d (queries, classes), the sel set non-empty")
    if label_logits_sel.shape[1] != label_logits.shape[1]:
        raise ValueError(
            f"class counts differ: {label_logits_sel.shape[1]} and {label_logits.shape[1]}"
        )
    bias = torch.log_softmax(label_logits_sel.double(), -1).mean(0)
    lp = torch.log_softmax(label_logits.double(), -1)
    return (lp - bias).argmax(-1).numpy()


def _check_run(
    lm: LanguageModel,
    layers: Sequence[int] | None,
    n_prefixes: int,
    batch_size: int,
    max_tokens: int | None,
    seed: int,
) -> list[int]:
    """Check a run's sizes and layers before its first forward pass; return the layers."""
    check_int("n_prefixes", n_prefixes, 1)
    check_int("batch_size", batch_size, 1)
    if max_tokens is not None:
        check_int("max_tokens", max_tokens, 1)
    as_seed_sequence(seed)
    if layers is None:
        return list(default_layers(lm.n_layers))
    return check_index_array("layers", np.asarray(layers), lm.n_layers + 1).tolist()


def run_classification(
    lm: LanguageModel,
    task: Task,
    split: Split,
    *,
    ks: Sequence[int] = (4,),
    n_prefixes: int = 8,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    n_profile: int = 64,
    probe: bool = True,
    balanced: bool = True,
    wrong_demos: bool = True,
    one_shot: bool = False,
    chat: bool = False,
    n_chat: int | None = None,
    seed: int = 0,
    batch_size: int = _PAGE.batch_size,
    max_tokens: int | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> TaskResult:
    """Zero-shot, calibrated zero-shot, k-shot ICL and the additive score on a task (paper §4).

    Every prompt's ids are the tokenization of its text (:func:`.prompts.prompt_ids`). Test query
    i is shown demonstration set ``i mod P`` (:meth:`DemoPrefixes.assign`); with ``balanced``
    each set holds every class ``k / K`` times in random order. For the largest k the same test
    queries are also run with every demonstration label wrong (``wrong_demos``: the same sets,
    labels shifted), and, for an instruction-tuned model, zero-shot and ICL through its chat
    template (``chat``). At the last layer each test query is also scored over the whole
    vocabulary (correct when its label token is the argmax of all V tokens) and its label mass
    recorded.

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        A classification task (not ``lama_p36``).
    split : Split
        From :func:`assocmem.llm.prompts.make_split` (with ``pool_per_class`` for balanced sets).
    ks : sequence of int
        Demonstration counts (multiples of the number of classes when ``balanced``).
    n_prefixes : int
        Demonstration sets per k, >= 2 for the set-aware intervals.
    lambdas : sequence of float
        Context strengths of the additive score.
    layers : sequence of int, optional
        Context layers; default :func:`default_layers`.
    n_profile : int
        Test queries decoded over the whole vocabulary at every layer (N_eff profiles).
    probe : bool
        Run the linear probe and the alignment (App. D.4) on the largest k's test states.
    balanced, wrong_demos, chat : bool
        See above.
    one_shot : bool
        Also run the test queries 1-shot, each shown the first demonstration of its largest-k
        set (:func:`.prompts.first_demos`: the same sets, so k-shot minus 1-shot is paired).
    n_chat : int or None
        Run the chat template on the first ``n_chat`` test queries only (None: all).
    seed : int
        Seed of the demonstrations and the bootstrap.
    batch_size, max_tokens : int, int or None
        Most prompts and most query tokens per forward pass
        (:func:`assocmem.llm.states.prompt_states`).
    cache : bool or None
        Disk cache of the states (:func:`assocmem.llm.states.prompt_states`).
    progress : bool or None

    Returns
    -------
    TaskResult

    Raises
    ------
    ValueError
        If a label word is not one token (:meth:`LanguageModel.label_ids`), a k is not a
        multiple of the classes with ``balanced``, or the pool is too small for the sets.
    """
    layers = _check_run(lm, layers, n_prefixes, batch_size, max_tokens, seed)  # before any pass
    ks = [check_int(f"ks[{i}]", k, 1) for i, k in enumerate(ks)]
    check_int("n_profile", n_profile, 0)
    if n_chat is not None:
        check_int("n_chat", n_chat, 1)
    ids = lm.label_ids(task.label_words)
    lam = np.asarray(lambdas, dtype=float)
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
        "weights": weights_digest(lm.model) if uses_cache(lm, cache) else None,  # once
    }
    n_ctx, n_sel = len(split.ctx), len(split.sel)
    items = np.concatenate([split.ctx, split.sel, split.test])
    zero = _prompt_states(lm, task, items, None, desc=f"{task.name} 0-shot", **kw).h
    h_ctx, h_sel, h_test = zero[:n_ctx], zero[n_ctx : n_ctx + n_sel], zero[n_ctx + n_sel :]
    y_sel, y_test = task.labels[split.sel], task.labels[split.test]

    def predict(h_last: torch.Tensor) -> np.ndarray:
        return decode(lm, h_last, ids).argmax(-1).numpy()

    correct_zero = predict(h_test[:, -1]) == y_test
    correct_cal = calibrated_predict(
        decode(lm, h_sel[:, -1], ids), decode(lm, h_test[:, -1], ids)
    ) == y_test  # fmt: skip
    vocab_zero, mass_zero = _last_layer(lm, h_test[:, -1], ids, y_test)
    correct_icl, correct_add, acc_sel, acc_test, chosen = {}, {}, {}, {}, {}
    h_icl_test: dict[int, torch.Tensor] = {}
    prefixes: dict[int, DemoPrefixes] = {}
    for k in ks:
        pre = demo_prefixes(task, split.pool, k=k, n_prefixes=n_prefixes, seed=seed,
                            balanced=balanced)  # fmt: skip
        prefixes[k] = pre
        icl_items = np.concatenate([split.ctx, split.test])
        st = _prompt_states(lm, task, icl_items, pre, desc=f"{task.name} {k}-shot", **kw).h
        c_bar = context_vector(st[:n_ctx], h_ctx)
        h_icl_test[k] = st[n_ctx:]
        correct_icl[k] = predict(st[n_ctx:, -1]) == y_test
        acc_sel[k] = additive_accuracy(lm, c_bar, h_sel[:, -1], y_sel, ids, layers, lam)
        chosen[k] = select_additive(acc_sel[k], layers, lam)
        ell, lam_star = chosen[k]
        logits = additive_logits(lm, h_test[:, -1], c_bar[ell], [lam_star], ids)[0]
        correct_add[k] = logits.argmax(-1).numpy() == y_test
        acc_test[k] = additive_accuracy(lm, c_bar, h_test[:, -1], y_test, ids, layers, lam)
    k_max = max(ks)
    sets = prefixes[k_max].assign(split.test)
    vocab_icl, mass_icl = _last_layer(lm, h_icl_test[k_max][:, -1], ids, y_test)
    correct_wrong = None
    if wrong_demos:
        wrong = demo_prefixes(task, split.pool, k=k_max, n_prefixes=n_prefixes, seed=seed,
                              demos="adversarial", balanced=balanced)  # fmt: skip
        h_wrong = _prompt_states(lm, task, split.test, wrong,
                                 desc=f"{task.name} {k_max}-shot wrong", **kw).h  # fmt: skip
        correct_wrong = predict(h_wrong[:, -1]) == y_test
    correct_one = None
    if one_shot:
        one = first_demos(task, prefixes[k_max], 1)
        h_one = _prompt_states(lm, task, split.test, one, desc=f"{task.name} 1-shot", **kw).h
        correct_one = predict(h_one[:, -1]) == y_test
    chat_correct: dict[str, np.ndarray] = {}
    if chat:
        m = len(split.test) if n_chat is None else check_int("n_chat", n_chat, 1)
        first = split.test[:m]  # test query i sees set i mod P: every set, in turn
        for tag, pre_or_none in (("zero", None), ("icl", prefixes[k_max])):
            h_chat = _prompt_states(lm, task, first, pre_or_none, chat=True,
                                    desc=f"{task.name} chat {tag}", **kw).h  # fmt: skip
            chat_correct[tag] = predict(h_chat[:, -1]) == y_test[:m]
    n_prof = min(n_profile, len(split.test))
    prof_zero = layer_profile(lm, h_test[:n_prof], ids)
    prof_icl = layer_profile(lm, h_icl_test[k_max][:n_prof], ids)
    probe_res = None
    if probe:
        h = h_icl_test[k_max]
        correct = probe_accuracy(h, y_test, seed=seed)
        align = label_alignment(final_norm(lm, h), lm.unembedding[ids.to(lm.unembedding.device)]
                                .detach().float(), y_test)  # fmt: skip
        probe_res = ProbeResult(k_max, correct, align)
    return TaskResult(
        task=task.name,
        source=task.source,
        model=lm.name,
        split=split,
        ks=tuple(ks),
        n_prefixes=n_prefixes,
        label_words=task.label_words,
        layers=layers,
        lambdas=lam,
        correct_zero=correct_zero,
        correct_icl=correct_icl,
        correct_add=correct_add,
        acc_sel=acc_sel,
        acc_test=acc_test,
        chosen=chosen,
        profile_zero=prof_zero,
        profile_icl=prof_icl,
        probe=probe_res,
        seed=seed,
        sets=sets,
        correct_cal=correct_cal,
        correct_wrong=correct_wrong,
        vocab_zero=vocab_zero,
        vocab_icl=vocab_icl,
        mass_zero=mass_zero,
        mass_icl=mass_icl,
        chat=chat_correct,
        correct_one=correct_one,
    )


def lama_target_stats(lm: LanguageModel, task: Task) -> dict[str, int]:
    """How many LAMA queries have multi-token or colliding targets under ``lm``'s tokenizer.

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        ``load_task("lama_p36")``.

    Returns
    -------
    dict of str to int
        ``queries``, ``capitals``; ``multi_token_capitals``/``multi_token_queries`` (targets of
        several tokens); ``shared_first_capitals``/``shared_first_queries`` (first token shared
        with another capital); ``prefix_capitals``/``prefix_queries`` (the target's tokens are a
        strict prefix of another capital's, e.g. Jackson / Jacksonville).
    """
    words = {w: lm.word_ids(w) for w in task.label_words}
    firsts: dict[int, int] = {}
    for v in words.values():
        firsts[v[0]] = firsts.get(v[0], 0) + 1
    multi = {w for w, v in words.items() if len(v) > 1}
    shared = {w for w, v in words.items() if firsts[v[0]] > 1}
    prefix = {w for w, v in words.items()
              if any(len(u) > len(v) and u[: len(v)] == v for u in words.values())}  # fmt: skip
    targets = [task.label_words[y] for y in task.labels]
    return {
        "queries": len(targets),
        "capitals": len(words),
        "multi_token_capitals": len(multi),
        "multi_token_queries": sum(t in multi for t in targets),
        "shared_first_capitals": len(shared),
        "shared_first_queries": sum(t in shared for t in targets),
        "prefix_capitals": len(prefix),
        "prefix_queries": sum(t in prefix for t in targets),
    }


def run_lama(
    lm: LanguageModel,
    task: Task,
    *,
    k: int,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    n_prefixes: int = 4,
    seed: int = 0,
    n_queries: int | None = None,
    batch_size: int = _PAGE.batch_size,
    max_tokens: int | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> LamaResult:
    """Supportive (correct pairs) and adversarial (wrong capitals) context on LAMA queries.

    Every query is scored (or a seeded subset of ``n_queries``). Targets are whole capitals:
    top-1 means greedy decoding produces the capital's tokens and then leaves the word;
    probabilities are whole-word (teacher forcing).
    Demonstrations come from the other facts (a query is never in its own prefix). c-bar_(+/-)
    of a query is averaged over the other half of the queries (two seeded folds). Paper §4,
    Fig. 6 (metric: this book's choice, see chapter 6).

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        ``load_task("lama_p36")``.
    k : int
        Demonstrations per prompt.
    lambdas : sequence of float
        Context strengths.
    layers : sequence of int, optional
        Context layers of the effect sweep; default all, 0 .. L.
    n_prefixes, seed, batch_size, max_tokens, cache, progress
        As :func:`run_classification`.
    n_queries : int, optional
        Score a seeded random subset of this many queries (sorted), for a quick run; default
        (None) every query. Demonstrations are still drawn from all facts.

    Returns
    -------
    LamaResult

    Raises
    ------
    ValueError
        If ``task`` is not LAMA P36, or ``n_queries`` is not in [2, len(task)].
    """
    if task.name != "lama_p36":
        raise ValueError(f"run_lama needs the task 'lama_p36', got {task.name!r}")
    check_int("k", k, 1)
    every = range(lm.n_layers + 1)  # the default: every layer, 0 .. L; checked before any pass
    layers = _check_run(lm, every if layers is None else layers, n_prefixes, batch_size,
                        max_tokens, seed)  # fmt: skip
    items = np.arange(len(task))
    if n_queries is not None:
        if not 2 <= check_int("n_queries", n_queries, 2) <= len(task):
            raise ValueError(f"n_queries must be in [2, {len(task)}], got {n_queries}")
        pick = numpy_rng(child(seed, "lama queries")).choice(len(task), n_queries, replace=False)
        items = np.sort(pick)
    targets = [lm.word_ids(task.label_words[y]) for y in task.labels[items]]
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
        "targets": targets,
        "weights": weights_digest(lm.model) if uses_cache(lm, cache) else None,  # once
    }
    zero = _prompt_states(lm, task, items, None, desc="lama 0-shot", **kw)
    facts = np.arange(len(task))  # demonstrations: any fact, never the query itself
    states = {}
    sets = np.zeros(len(items), dtype=np.int64)
    for demos in ("supportive", "adversarial"):
        pre = demo_prefixes(task, facts, k=k, n_prefixes=n_prefixes, seed=seed, demos=demos)
        sets = pre.assign(items)  # the same for both: the same items, other labels
        states[demos] = _prompt_states(lm, task, items, pre, desc=f"lama {k}-shot {demos}", **kw)
    fold = numpy_rng(child(seed, "lama folds")).permutation(len(items)) % 2

    def crossfit(h_icl: torch.Tensor) -> torch.Tensor:
        c = torch.empty_like(zero.h)
        for f in (0, 1):
            other = fold != f
            c[fold == f] = context_vector(h_icl[other], zero.h[other])
        return c

    first = torch.tensor([t[0] for t in targets])
    h_last = zero.h[:, -1]
    lp_first = torch.log_softmax(decode(lm, h_last), -1)[torch.arange(len(first)), first]
    assert zero.target_logprob is not None
    continuation = zero.target_logprob - lp_first.double().numpy()
    effect = lama_context_effect(
        lm, h_last, first, continuation,
        crossfit(states["supportive"].h), crossfit(states["adversarial"].h), lambdas,
        layers,
    )  # fmt: skip
    assert zero.target_top1 is not None
    return LamaResult(
        source=task.source,
        model=lm.name,
        k=k,
        n_prefixes=n_prefixes,
        seed=seed,
        items=items,
        correct_zero=zero.target_top1,
        correct_plus=states["supportive"].target_top1,  # type: ignore[arg-type]
        correct_minus=states["adversarial"].target_top1,  # type: ignore[arg-type]
        effect=effect,
        counts=lama_target_stats(lm, task),
        n_layers=lm.n_layers,
        sets=sets,
    )


def protocol_split(task: Task, model: str, protocol: Chapter6Protocol) -> Split:
    """Return the protocol's split of ``task`` for ``model``: its sizes, pool and seed.

    The pool holds ``n_sets`` balanced sets of the task's shots; AG-News is stratified.
    """
    n_ctx, n_sel, n_test = protocol.split_sizes(model, task.name)
    pool = protocol.pool(task.name)
    return make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=n_test, n_pool=pool,
                      pool_per_class=pool // len(task.label_words), seed=protocol.seed,
                      stratify=task.name == "ag_news")  # fmt: skip


def run_protocol_task(
    lm: LanguageModel, task: Task, split: Split, protocol: Chapter6Protocol
) -> TaskResult:
    """Run :func:`run_classification` with the protocol's settings; the result holds the protocol.

    The task's shots, ``n_sets`` sets, the protocol's lambdas and context layers, the seed, the
    chat template for an instruction-tuned model (``n_chat`` queries), the batch size, the
    model's token budget, and 1-shot runs.
    """
    res = run_classification(
        lm, task, split, ks=(protocol.shots[task.name],), n_prefixes=protocol.n_sets,
        lambdas=protocol.lambdas, layers=protocol.layers(lm.n_layers), seed=protocol.seed,
        chat=MODELS[lm.name].instruct if lm.name in MODELS else False, n_chat=protocol.n_chat,
        batch_size=protocol.batch_size, max_tokens=protocol.tokens(lm.name), one_shot=True,
    )  # fmt: skip
    return replace(res, protocol=protocol)


def run_protocol_lama(lm: LanguageModel, task: Task, protocol: Chapter6Protocol) -> LamaResult:
    """Run :func:`run_lama` with the protocol's settings; the result holds the protocol."""
    res = run_lama(lm, task, k=protocol.lama_k, lambdas=protocol.lama_lambdas,
                   layers=protocol.lama_layers(lm.n_layers), n_prefixes=protocol.n_sets,
                   n_queries=protocol.lama_n, batch_size=protocol.batch_size,
                   max_tokens=protocol.tokens(lm.name), seed=protocol.seed)  # fmt: skip
    return replace(res, protocol=protocol)
