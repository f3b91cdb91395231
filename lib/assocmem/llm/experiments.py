"""Chapter-6 drivers: one call per task returns every number and curve the page shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .data import Task
from .models import LanguageModel
from .probes import (
    LamaEffect,
    additive_accuracy,
    context_vector,
    decode,
    label_accuracy,
    lama_context_effect,
    layer_profile,
)
from .prompts import task_states

__all__ = [
    "TaskResult",
    "LamaResult",
    "run_classification",
    "run_lama",
    "default_layers",
    "fit_split",
]


def fit_split(
    task: Task, k: int, n_ctx: int, n_eval: int, *, verbose: bool = True
) -> tuple[int, int]:
    """Shrink a (context, evaluation) query split to what a task holds, keeping its proportions.

    The drivers need ``n_ctx + n_eval`` queries plus ``k`` demonstrations drawn from the other
    items, i.e. ``n_ctx + n_eval <= len(task) - k``. With the real data the requested sizes fit;
    with the small built-in example sets (no data directory and no hub) they may not, and the page
    should then still run, on fewer queries, and say so.

    Parameters
    ----------
    task : Task
    k : int
        Demonstrations per prompt, >= 0.
    n_ctx, n_eval : int
        Requested numbers of context-vector queries and held-out scored queries, each >= 1.
    verbose : bool
        Print a line when the split is shrunk.

    Returns
    -------
    (int, int)
        ``(n_ctx, n_eval)``, unchanged when they fit, else scaled down (each >= 1).

    Raises
    ------
    ValueError
        If a size is < 1, ``k < 0``, or the task has fewer than ``k + 2`` items.
    """
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task (from load_task), got {type(task).__name__}")
    for name, val in (("k", k), ("n_ctx", n_ctx), ("n_eval", n_eval)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {val!r}")
    if n_ctx < 1 or n_eval < 1:
        raise ValueError(f"n_ctx and n_eval must be >= 1, got {n_ctx}, {n_eval}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    available = len(task) - k
    if available < 2:
        raise ValueError(f"{task.name} has {len(task)} items: too few for k = {k} and two queries")
    if n_ctx + n_eval <= available:
        return n_ctx, n_eval
    new_ctx = min(max(1, available * n_ctx // (n_ctx + n_eval)), available - 1)
    new_eval = available - new_ctx
    if verbose:
        print(
            f"{task.name}: {len(task)} items ({task.source}) hold only {available} queries "
            f"besides k = {k} demonstrations: using n_ctx = {new_ctx}, n_eval = {new_eval} "
            f"instead of {n_ctx}, {n_eval}"
        )
    return new_ctx, new_eval


def default_layers(n_layers: int, count: int = 4) -> list[int]:
    """``count`` context layers spread evenly over the last third of the model, ending at L.

    For Llama-3-8B (L = 32) and count = 4 this gives [22, 25, 29, 32]; the paper used
    {20, 24, 28, 32} (§4).

    Parameters
    ----------
    n_layers : int
        Number of decoder blocks L.
    count : int
        Number of layers wanted, >= 1.

    Returns
    -------
    list of int
        Sorted distinct layers in [L − L//3, L].

    Raises
    ------
    ValueError
        If ``count`` < 1.
    """
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    start = n_layers - n_layers // 3
    return sorted({int(round(x)) for x in np.linspace(start, n_layers, count)})


@dataclass(frozen=True)
class TaskResult:
    """Everything measured on one classification task.

    Attributes
    ----------
    task, source, model : str
    k, n_ctx, n_eval, seed : int
    label_words : tuple of str
    profile_zero, profile_icl : dict of numpy arrays, shape (n_eval, L + 1)
        Logit-lens statistics (:func:`layer_profile`) of the evaluated queries.
    acc_zero, acc_icl : float
        Label-restricted accuracy of the model's own prediction, zero-shot and k-shot.
    layers : list of int
        Context layers of the additive score.
    lambdas : numpy.ndarray, shape (m,)
    acc_additive : numpy.ndarray, shape (len(layers), m)
    """

    task: str
    source: str
    model: str
    k: int
    n_ctx: int
    n_eval: int
    seed: int
    label_words: tuple[str, ...]
    profile_zero: dict[str, np.ndarray]
    profile_icl: dict[str, np.ndarray]
    acc_zero: float
    acc_icl: float
    layers: list[int]
    lambdas: np.ndarray
    acc_additive: np.ndarray

    @property
    def best(self) -> tuple[float, int, float]:
        """(best additive accuracy, its context layer, its lambda)."""
        i, j = np.unravel_index(np.argmax(self.acc_additive), self.acc_additive.shape)
        return float(self.acc_additive[i, j]), self.layers[i], float(self.lambdas[j])


def run_classification(
    lm: LanguageModel,
    task: Task,
    *,
    k: int,
    n_ctx: int,
    n_eval: int,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    seed: int = 0,
    batch_size: int = 16,
    progress: bool = True,
) -> TaskResult:
    """Extract states of n_ctx + n_eval queries and measure N_eff, ICL and the additive score.

    The first n_ctx queries build c-bar^(l); the other n_eval queries are evaluated (held out).
    Paper §4 (Eqs. 6–7, Figs. 4–5); templates and sizes are this book's choices.

    Parameters
    ----------
    lm : LanguageModel
        The model.
    task : Task
        A classification task (not ``lama_p36``).
    k : int
        Demonstrations per ICL prompt.
    n_ctx, n_eval : int
        Queries that build the context vectors, and held-out scored queries (each >= 1).
    lambdas : sequence of float
        Context strengths λ of the additive score.
    layers : sequence of int, optional
        Context layers; default :func:`default_layers`.
    seed : int
        Seed of the queries and demonstrations.
    batch_size : int
        Prompts per forward pass.
    progress : bool
        Show progress bars.

    Returns
    -------
    TaskResult
        Profiles of shape (n_eval, L + 1), accuracies, and ``acc_additive`` of shape
        (len(layers), len(lambdas)).

    Raises
    ------
    ValueError
        If n_ctx or n_eval < 1, or as :func:`assocmem.llm.prompts.task_states`.
    """
    if n_ctx < 1 or n_eval < 1:
        raise ValueError(f"n_ctx and n_eval must be >= 1, got {n_ctx}, {n_eval}")
    st = task_states(
        lm, task, k=k, n=n_ctx + n_eval, seed=seed, batch_size=batch_size, progress=progress
    )
    ids = lm.label_ids(task.label_words)
    labels = st.prompts.labels[n_ctx:]
    c_bar = context_vector(st.h_icl[:n_ctx], st.h_zero[:n_ctx])
    prof_zero = layer_profile(lm, st.h_zero[n_ctx:], ids)
    prof_icl = layer_profile(lm, st.h_icl[n_ctx:], ids)
    layers = list(default_layers(lm.n_layers) if layers is None else layers)
    lam = np.asarray(lambdas, dtype=float)
    acc = additive_accuracy(lm, c_bar, st.h_zero[n_ctx:, -1], labels, ids, layers, lam)
    return TaskResult(
        task=task.name,
        source=task.source,
        model=lm.name,
        k=k,
        n_ctx=n_ctx,
        n_eval=n_eval,
        seed=seed,
        label_words=task.label_words,
        profile_zero=prof_zero,
        profile_icl=prof_icl,
        acc_zero=label_accuracy(prof_zero["label_logits"][:, -1], labels),
        acc_icl=label_accuracy(prof_icl["label_logits"][:, -1], labels),
        layers=layers,
        lambdas=lam,
        acc_additive=acc,
    )


@dataclass(frozen=True)
class LamaResult:
    """LAMA P36 supportive vs adversarial context (see :class:`LamaEffect`).

    Attributes
    ----------
    effect : LamaEffect
    top1_zero, top1_plus, top1_minus : float
        Fraction of evaluated queries whose top next token (whole vocabulary) is the target's
        first token: zero-shot, with k correct and with k wrong demonstrations.
    """

    source: str
    model: str
    k: int
    n_ctx: int
    n_eval: int
    seed: int
    effect: LamaEffect
    top1_zero: float
    top1_plus: float
    top1_minus: float


def run_lama(
    lm: LanguageModel,
    task: Task,
    *,
    k: int,
    n_ctx: int,
    n_eval: int,
    lambdas: Sequence[float] | np.ndarray,
    seed: int = 0,
    batch_size: int = 16,
    progress: bool = True,
) -> LamaResult:
    """Supportive (correct pairs) and adversarial (wrong capitals) context vectors on LAMA P36.

    Paper §4, Fig. 6 (metric: this book's choice, see chapter 6).

    Parameters
    ----------
    lm : LanguageModel
        The model.
    task : Task
        ``load_task("lama_p36")``.
    k, n_ctx, n_eval, seed, batch_size, progress
        As :func:`run_classification`.
    lambdas : sequence of float
        Context strengths λ.

    Returns
    -------
    LamaResult
        The effect arrays of shape (2, L + 1, len(lambdas)) and three top-1 rates.

    Raises
    ------
    ValueError
        If ``task`` is not LAMA P36.
    """
    if task.name != "lama_p36":
        raise ValueError(f"run_lama needs the task 'lama_p36', got {task.name!r}")
    n = n_ctx + n_eval
    plus = task_states(
        lm, task, k=k, n=n, seed=seed, demos="supportive", batch_size=batch_size, progress=progress
    )
    minus = task_states(
        lm, task, k=k, n=n, seed=seed, demos="adversarial", batch_size=batch_size, progress=progress
    )
    words = [task.label_words[i] for i in plus.prompts.labels[n_ctx:]]
    target = torch.tensor([lm.token_id(w) for w in words])
    c_plus = context_vector(plus.h_icl[:n_ctx], plus.h_zero[:n_ctx])
    c_minus = context_vector(minus.h_icl[:n_ctx], minus.h_zero[:n_ctx])
    h_query = plus.h_zero[n_ctx:, -1]
    effect = lama_context_effect(lm, h_query, target, c_plus, c_minus, lambdas)

    def top1(h: torch.Tensor) -> float:
        return float((decode(lm, h).argmax(-1) == target).float().mean())

    return LamaResult(
        source=task.source,
        model=lm.name,
        k=k,
        n_ctx=n_ctx,
        n_eval=n_eval,
        seed=seed,
        effect=effect,
        top1_zero=top1(h_query),
        top1_plus=top1(plus.h_icl[n_ctx:, -1]),
        top1_minus=top1(minus.h_icl[n_ctx:, -1]),
    )
