"""Prompts, batched last-token hidden states at every layer, and their disk cache.

Templates (a choice of this book; the paper's templates were not recovered, see the digest §6.2):
a demonstration is ``template.format(x=input, y=" " + label_word)``, the query is the same line
with ``y=""``; a k-shot prompt joins k demonstrations and the query with the task's separator,
e.g. for SST-2::

    Review: a dull , plodding mess
    Sentiment: negative

    Review: <query>
    Sentiment:

Demonstrations are sampled, seeded, from the items that are not queries.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from .data import Task
from .models import MODELS, LanguageModel

__all__ = [
    "PromptSet",
    "TaskStates",
    "build_prompts",
    "last_token_states",
    "task_states",
    "cache_dir",
]

DEMO_KINDS = ("supportive", "adversarial")


@dataclass(frozen=True)
class PromptSet:
    """Zero-shot and k-shot prompts for n queries of a task.

    Attributes
    ----------
    task : str
    k, n, seed : int
    demos : {"supportive", "adversarial"}
        Correct demonstration labels, or a wrong label drawn uniformly from the other classes.
    zero, icl : tuple of str, length n
        Zero-shot prompt and k-shot prompt of each query.
    labels : numpy.ndarray, int64, shape (n,)
        Correct label index of each query.
    query_index : numpy.ndarray, int64, shape (n,)
        Index of each query in the task.
    """

    task: str
    k: int
    n: int
    seed: int
    demos: str
    zero: tuple[str, ...]
    icl: tuple[str, ...]
    labels: np.ndarray
    query_index: np.ndarray


def build_prompts(
    task: Task, *, k: int, n: int, seed: int = 0, demos: str = "supportive"
) -> PromptSet:
    """Build seeded zero-shot and k-shot prompts.

    Parameters
    ----------
    task : Task
    k : int
        Demonstrations per prompt, >= 0 (k = 0 gives ICL prompts equal to the zero-shot ones).
    n : int
        Number of queries, 1 <= n <= len(task) - k.
    seed : int
        Seed of the query choice (a permutation of the task) and of the demonstrations.
    demos : {"supportive", "adversarial"}

    Returns
    -------
    PromptSet

    Raises
    ------
    ValueError
        If k, n or demos are out of range.
    """
    if demos not in DEMO_KINDS:
        raise ValueError(f"demos must be one of {DEMO_KINDS}, got {demos!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(task) - k:
        raise ValueError(f"n must be an integer in [1, {len(task) - k}] for {task.name}, got {n!r}")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(task))
    queries, pool = perm[:n], perm[n:]
    n_labels = len(task.label_words)
    zero, icl = [], []
    for q in queries:
        query = task.template.format(x=task.texts[q], y="")
        zero.append(query)
        chosen = rng.choice(pool, size=k, replace=False) if k else np.zeros(0, dtype=np.int64)
        lines = []
        for j in chosen:
            y = int(task.labels[j])
            if demos == "adversarial":
                y = int((y + rng.integers(1, n_labels)) % n_labels)
            lines.append(task.template.format(x=task.texts[j], y=" " + task.label_words[y]))
        icl.append(task.separator.join([*lines, query]))
    return PromptSet(
        task=task.name,
        k=k,
        n=n,
        seed=seed,
        demos=demos,
        zero=tuple(zero),
        icl=tuple(icl),
        labels=task.labels[queries].copy(),
        query_index=queries.astype(np.int64),
    )


def last_token_states(
    lm: LanguageModel,
    prompts: list[str] | tuple[str, ...],
    *,
    batch_size: int = 16,
    progress: bool = True,
    desc: str = "hidden states",
) -> torch.Tensor:
    """Residual-stream state at the last prompt token, at every layer.

    Prompts are sorted by length, left-padded with the pad (EOS) token, and run through the decoder
    stack (no LM head) under ``torch.inference_mode`` with the attention mask and position ids
    that count only real tokens; forward hooks keep the last position of each block's output.

    Parameters
    ----------
    lm : LanguageModel
    prompts : sequence of str, length n
    batch_size : int
        Prompts per forward pass (>= 1).
    progress : bool
        Show a tqdm bar over batches.

    Returns
    -------
    torch.Tensor, float32, CPU, shape (n, L + 1, d)
        Index 0 is the embedding output, index l the output of block l (before the final norm;
        apply :func:`assocmem.llm.probes.final_norm` to decode).

    Raises
    ------
    ValueError
        If prompts is empty or batch_size < 1.
    """
    if len(prompts) == 0:
        raise ValueError("prompts must be a non-empty sequence of strings")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    tok = lm.tokenizer
    ids = [tok.encode(p) for p in prompts]
    order = np.argsort([-len(x) for x in ids], kind="stable")
    out = torch.empty(len(prompts), lm.n_layers + 1, lm.d_model, dtype=torch.float32)
    base = lm.base
    captured: list[torch.Tensor] = []

    def hook(_module: torch.nn.Module, _inp: object, output: object) -> None:
        h = output[0] if isinstance(output, tuple) else output
        assert isinstance(h, torch.Tensor)
        captured.append(h[:, -1, :].float().cpu())

    handles = [base.embed_tokens.register_forward_hook(hook)]
    handles += [layer.register_forward_hook(hook) for layer in base.layers]
    pad = tok.pad_token_id
    try:
        batches = range(0, len(prompts), batch_size)
        for start in tqdm(batches, desc=desc, disable=not progress, leave=False):
            idx = order[start : start + batch_size]
            width = max(len(ids[i]) for i in idx)
            input_ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros((len(idx), width), dtype=torch.long)
            for row, i in enumerate(idx):
                input_ids[row, width - len(ids[i]) :] = torch.tensor(ids[i])
                mask[row, width - len(ids[i]) :] = 1
            position_ids = (mask.cumsum(-1) - 1).clamp(min=0)
            captured.clear()
            with torch.inference_mode():
                base(
                    input_ids=input_ids.to(lm.device),
                    attention_mask=mask.to(lm.device),
                    position_ids=position_ids.to(lm.device),
                    use_cache=False,
                )
            out[torch.as_tensor(idx)] = torch.stack(captured, dim=1)
    finally:
        for handle in handles:
            handle.remove()
    return out


@dataclass(frozen=True)
class TaskStates:
    """Last-token hidden states of a prompt set.

    Attributes
    ----------
    prompts : PromptSet
    h_zero, h_icl : torch.Tensor, float32, shape (n, L + 1, d)
        States of the zero-shot and k-shot prompts.
    from_cache : bool
    """

    prompts: PromptSet
    h_zero: torch.Tensor
    h_icl: torch.Tensor
    from_cache: bool = False


def cache_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Cache directory: the argument, else ``$ASSOCMEM_CACHE_DIR``, else ``~/.cache/assocmem``.

    Parameters
    ----------
    path : path or None
        Explicit directory.

    Returns
    -------
    pathlib.Path
        With ``~`` expanded; not created here.
    """
    value = path or os.environ.get("ASSOCMEM_CACHE_DIR") or "~/.cache/assocmem"
    return Path(value).expanduser()


EXTRACTION_VERSION = 2  # bump when the extraction code changes what it returns


def states_key(lm: LanguageModel, prompts: list[str] | tuple[str, ...]) -> dict[str, object]:
    """Everything that determines the hidden states of ``prompts``: the cache key.

    Parameters
    ----------
    lm : LanguageModel
        The model.
    prompts : sequence of str
        The prompts, in order.

    Returns
    -------
    dict
        The model's identity (file hash, hub revision or weight fingerprint), dtype, device type,
        number of layers, the SHA-1 of the exact token ids of every prompt (so a change of
        prompts, queries, seed or tokenizer behaviour changes the key) and
        :data:`EXTRACTION_VERSION`.
    """
    digest = hashlib.sha1()
    for p in prompts:
        digest.update(np.asarray(lm.tokenizer.encode(p), dtype=np.int64).tobytes())
        digest.update(b"|")
    return {
        "model": lm.identity,
        "dtype": str(lm.dtype),
        "device": lm.device.type,
        "layers": lm.n_layers + 1,
        "token_ids": digest.hexdigest(),
        "n_prompts": len(prompts),
        "version": EXTRACTION_VERSION,
    }


def task_states(
    lm: LanguageModel,
    task: Task,
    *,
    k: int,
    n: int,
    seed: int = 0,
    demos: str = "supportive",
    cache: bool | None = None,
    cache_path: str | os.PathLike[str] | None = None,
    batch_size: int = 16,
    progress: bool = True,
) -> TaskStates:
    """Zero-shot and k-shot states of n seeded queries, cached on disk.

    Cached in ``cache_dir(cache_path) / "llm"``: the zero-shot states under (model, task, data
    source, template, n, seed), shared by every k and kind of demonstrations, the k-shot states
    under that key plus (demos, k). ``cache=None`` caches registry models only (a wrapped
    custom model has no stable name).

    Parameters
    ----------
    lm : LanguageModel
        The model.
    task : Task
        The task whose items become queries and demonstrations.
    k, n, seed, demos
        As :func:`build_prompts`.
    cache : bool or None
        Read and write the disk cache; ``None``: registry models only.
    cache_path : path or None
        See :func:`cache_dir`.
    batch_size : int
        Prompts per forward pass.
    progress : bool
        Show progress bars.

    Returns
    -------
    TaskStates
        States of shape (n, L + 1, d), float32, CPU.

    Raises
    ------
    ValueError
        As :func:`build_prompts` and :func:`last_token_states`.
    """
    prompts = build_prompts(task, k=k, n=n, seed=seed, demos=demos)
    use_cache = (lm.name in MODELS) if cache is None else cache
    folder = cache_dir(cache_path) / "llm"

    def states(
        texts: tuple[str, ...], key: dict, stem: str, desc: str
    ) -> tuple[torch.Tensor, bool]:
        key = {**states_key(lm, texts), **key}
        digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
        file = folder / f"{stem}_{digest}.pt"
        if use_cache and file.is_file():
            return torch.load(file, weights_only=True)["h"], True
        h = last_token_states(lm, texts, batch_size=batch_size, progress=progress, desc=desc)
        if use_cache:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = file.with_suffix(".tmp")
            torch.save({"h": h, "key": key}, tmp)
            os.replace(tmp, file)
        return h, False

    h_zero, hit_zero = states(
        prompts.zero,
        {"states": "zero"},
        f"{lm.name}_{task.name}_zero_n{n}",
        f"{task.name} zero-shot",
    )
    h_icl, hit_icl = states(
        prompts.icl,
        {"states": "icl"},
        f"{lm.name}_{task.name}_icl_{demos}_k{k}_n{n}",
        f"{task.name} {k}-shot",
    )
    return TaskStates(prompts, h_zero, h_icl, from_cache=hit_zero and hit_icl)
