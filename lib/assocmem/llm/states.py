"""Hidden states of prompts: batched extraction on shared prefixes, and its disk cache.

A prompt is ``[BOS] + prefixes[which[i]] + queries[i]`` in token ids (built by
:mod:`.prompts`); :func:`prompt_states` runs the queries that share a prefix in batches on top of
that prefix's key/value cache (computed once) and keeps the last query token's residual state at
every layer, optionally scoring target words by teacher forcing. The states are cached on disk
under a key (:func:`states_key`) that hashes the exact token ids, the model's identity, every value
of its weights (an in-place edit gets its own entry), dtype and device, and
:data:`EXTRACTION_VERSION`; :func:`.loaders.cache_dir` says where.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from assocmem._validate import check_directory, check_index_array, check_int, check_token_ids
from assocmem.device import share_cores
from assocmem.keys import show_progress
from assocmem.llm.loaders import cache_dir
from assocmem.llm.models import LanguageModel, weights_digest
from assocmem.llm.prompts import encode
from assocmem.llm.registry import MODELS

__all__ = [
    "PromptStates",
    "prompt_states",
    "last_token_states",
    "states_key",
    "uses_cache",
    "EXTRACTION_VERSION",
]

EXTRACTION_VERSION = 4  # bump when the extraction code changes what it returns


@dataclass(frozen=True)
class PromptStates:
    """Last-query-token states of n prompts, and optional teacher-forced target scores.

    Attributes
    ----------
    h : torch.Tensor, float32, CPU, shape (n, L + 1, d)
        Index 0 is the embedding output, index l the output of block l (before the final norm).
    target_logprob : numpy.ndarray, float64, shape (n,) or None
        Sum over the target's tokens of log p(token | prompt, earlier target tokens).
    target_top1 : numpy.ndarray, bool, shape (n,) or None
        Whether greedy decoding produces the target as a whole word: every target token is the
        argmax at its position, and the argmax after the last one does not continue the word.
    from_cache : bool
    """

    h: torch.Tensor
    target_logprob: np.ndarray | None = None
    target_top1: np.ndarray | None = None
    from_cache: bool = False


def states_key(
    lm: LanguageModel,
    prefixes: Sequence[Sequence[int]],
    queries: Sequence[Sequence[int]],
    which: np.ndarray,
    targets: Sequence[Sequence[int]] | None,
    weights: str | None = None,
) -> dict[str, object]:
    """Everything that determines :func:`prompt_states`' output: the cache key.

    Parameters
    ----------
    lm : LanguageModel
    prefixes, queries, which, targets, weights
        As :func:`prompt_states`.

    Returns
    -------
    dict
        The model's identity (file hash, hub revision or weight digest at load), the digest of
        its weights now (:func:`~.models.weights_digest`: every value, so weights edited in place
        after loading get their own entry), dtype, device type,
        number of layers, the SHA-1 of the exact token ids (BOS included) and
        :data:`EXTRACTION_VERSION`.
    """
    digest = hashlib.sha1()
    for seq in (lm.bos_ids, *prefixes, b"#", *queries, b"#", np.asarray(which), b"#",
                *(targets or ())):  # fmt: skip
        data = seq if isinstance(seq, bytes) else np.asarray(seq, dtype=np.int64).tobytes()
        digest.update(data + b"|")
    return {
        "model": lm.identity,
        "weights": weights_digest(lm.model) if weights is None else weights,
        "dtype": str(lm.dtype),
        "device": lm.device.type,
        "layers": lm.n_layers + 1,
        "token_ids": digest.hexdigest(),
        "n_prompts": len(queries),
        "targets": targets is not None,
        "version": EXTRACTION_VERSION,
    }


def uses_cache(lm: LanguageModel, cache: bool | None) -> bool:
    """Tell whether :func:`prompt_states` reads and writes the disk cache.

    ``cache`` if given, else whether ``lm`` is a registry model.
    """
    return (lm.name in MODELS) if cache is None else bool(cache)


def _cache_kwarg(base: torch.nn.Module) -> str:
    """Name of the forward's cache argument: ``cache`` (transformers >= 5.x) or the older one."""
    params = inspect.signature(base.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _prefix_cache(lm: LanguageModel, ids: list[int]) -> object:
    """Key/value cache of one prefix (batch 1)."""
    with torch.inference_mode():
        out = lm.base(
            input_ids=torch.tensor([ids], device=lm.device),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long, device=lm.device),
            use_cache=True,
        )
    cache = getattr(out, "cache", None)  # transformers >= 5.x; older: past_key_values
    return cache if cache is not None else out.past_key_values


def _extract(
    lm: LanguageModel,
    prefixes: list[list[int]],
    queries: list[list[int]],
    which: np.ndarray,
    targets: list[list[int]] | None,
    batch_size: int,
    max_tokens: int | None,
    progress: bool | None,
    desc: str,
) -> tuple[torch.Tensor, np.ndarray | None, np.ndarray | None]:
    n = len(queries)
    out = torch.empty(n, lm.n_layers + 1, lm.d_model, dtype=torch.float32)
    logprob = np.zeros(n) if targets is not None else None
    top1 = np.zeros(n, dtype=bool) if targets is not None else None
    base = lm.base
    rows_now: list[torch.Tensor] = []  # gather positions of the current batch
    captured: list[torch.Tensor] = []
    active = [False]

    def hook(_module: torch.nn.Module, _inp: object, output: object) -> None:
        if not active[0]:
            return
        h = output[0] if isinstance(output, tuple) else output
        assert isinstance(h, torch.Tensor)
        captured.append(h[torch.arange(h.shape[0], device=h.device), rows_now[0]].float().cpu())

    handles = [lm.embedding.register_forward_hook(hook)]
    handles += [block.register_forward_hook(hook) for block in lm.blocks]
    pad = lm.tokenizer.pad_token_id
    w_u = lm.unembedding
    cont = lm.word_continuation if targets is not None else None
    batches = []
    for p in np.unique(which):
        rows = np.flatnonzero(which == p)
        suffix = [queries[i] + (targets[i] if targets is not None else []) for i in rows]
        order = np.argsort([-len(s) for s in suffix], kind="stable")
        rows, lens = rows[order], [len(suffix[j]) for j in order]
        start = 0
        while start < len(rows):  # longest first: the first row sets the batch's width
            size = batch_size
            if max_tokens is not None:
                size = max(1, min(size, max_tokens // lens[start]))
            batches.append((int(p), rows[start : start + size]))
            start += size
    caches: dict[int, object] = {}
    try:
        for p, rows in tqdm(batches, desc=desc, disable=not show_progress(progress), leave=False):
            if lm.device.type == "cpu":
                share_cores()  # threads that yield to other processes (assocmem.device)
            pre = lm.bos_ids + prefixes[p]
            if pre and p not in caches:
                caches.clear()
                caches[p] = _prefix_cache(lm, pre)
            suffix = [queries[i] + (targets[i] if targets is not None else []) for i in rows]
            width = max(len(s) for s in suffix)
            ids = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), len(pre) + width), dtype=torch.long)
            mask[:, : len(pre)] = 1
            for r, s in enumerate(suffix):
                ids[r, : len(s)] = torch.tensor(s)
                mask[r, len(pre) : len(pre) + len(s)] = 1
            last = torch.tensor([len(queries[i]) - 1 for i in rows])
            position_ids = (len(pre) + torch.arange(width)).expand(len(rows), width)
            kw: dict[str, object] = {}
            if pre:
                cache = copy.deepcopy(caches[p])
                cache.batch_repeat_interleave(len(rows))  # type: ignore[attr-defined]
                kw[_cache_kwarg(base)] = cache
            rows_now[:] = [last.to(lm.device)]
            captured.clear()
            active[0] = True
            try:
                with torch.inference_mode():
                    res = base(
                        input_ids=ids.to(lm.device),
                        attention_mask=mask.to(lm.device),
                        position_ids=position_ids.to(lm.device),
                        use_cache=bool(pre),
                        **kw,
                    )
            finally:
                active[0] = False
            out[torch.as_tensor(rows)] = torch.stack(captured, dim=1)
            if targets is not None:
                assert logprob is not None and top1 is not None and cont is not None
                hidden = res.last_hidden_state  # final norm applied
                # logits at the last query token and at each target token: they predict
                # t_0 .. t_{m-1} and the token after the word; one product for the batch
                n_t = [len(targets[i]) for i in rows]  # target tokens per row
                r_idx = torch.repeat_interleave(torch.arange(len(rows)), torch.tensor(n_t) + 1)
                pos = torch.cat([torch.arange(m + 1) + int(last[r]) for r, m in enumerate(n_t)])
                with torch.inference_mode():
                    logits = hidden[r_idx.to(hidden.device), pos.to(hidden.device)] @ w_u.T
                    logits = logits.float()
                    lp_all = torch.log_softmax(logits, -1)
                greedy_all = logits.argmax(-1).cpu()
                start = 0
                for i in rows:
                    t = targets[i]
                    sl = slice(start, start + len(t) + 1)
                    start = sl.stop
                    tt = torch.tensor(t, device=lp_all.device)
                    logprob[i] = float(lp_all[sl][torch.arange(len(t)), tt].sum())
                    greedy = greedy_all[sl]
                    ok = bool((greedy[: len(t)] == tt.cpu()).all())
                    top1[i] = ok and not bool(cont[int(greedy[len(t)])])
    finally:
        for handle in handles:
            handle.remove()
    return out, logprob, top1


def _read_entry(
    file: Path, key: dict[str, object] | None, shape: tuple[int, ...], targets: bool
) -> dict[str, Any] | None:
    """Return a cache entry's contents, or None (with a warning) if it is unreadable or wrong.

    Unreadable: empty, truncated or corrupt (torch's reader fails). Wrong: not the dict that
    :func:`prompt_states` writes, another key, states of another shape, or scores missing where
    targets were asked for. Either way the caller recomputes the entry and overwrites it.
    """
    try:
        saved = torch.load(file, weights_only=False)
    except Exception as exc:  # any failure to read means: recompute (never a crash, never use)
        problem = f"cannot be read ({type(exc).__name__}: {str(exc)[:120]})"
    else:
        h = saved.get("h") if isinstance(saved, dict) else None
        if not isinstance(h, torch.Tensor) or tuple(h.shape) != shape:
            problem = f"does not hold states of shape {shape}"
        elif saved.get("key") != key:
            problem = "was written for another key"
        elif targets and (saved.get("logprob") is None or saved.get("top1") is None):
            problem = "lacks the target scores"
        else:
            return saved
    warnings.warn(f"hidden-state cache entry {file} {problem}: recomputing it (the entry is "
                  "overwritten)", RuntimeWarning, stacklevel=3)  # fmt: skip
    return None


def prompt_states(
    lm: LanguageModel,
    prefixes: Sequence[Sequence[int]],
    queries: Sequence[Sequence[int]],
    which: np.ndarray | Sequence[int] | None = None,
    *,
    targets: Sequence[Sequence[int]] | None = None,
    batch_size: int = 16,
    max_tokens: int | None = None,
    cache: bool | None = None,
    cache_path: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    desc: str = "hidden states",
    weights: str | None = None,
) -> PromptStates:
    """Hidden states at the last query token of ``[BOS] + prefixes[which[i]] + queries[i]``.

    Queries sharing a prefix run in batches on top of that prefix's key/value cache (computed
    once); the suffixes are right-padded, so no real token attends to a pad and the positions are
    those of the unpadded prompt. With ``targets``, the target tokens are appended (teacher
    forcing) and scored from the final layer through the final norm and W_U.

    Parameters
    ----------
    lm : LanguageModel
    prefixes : sequence of token-id lists, length P
        Shared prefixes (may be ``[[]]`` for zero-shot prompts); the BOS is added here.
    queries : sequence of token-id lists, length n
        Query pieces (non-empty).
    which : array of int in [0, P), shape (n,), or None
        Prefix of each query; None: all use prefix 0.
    targets : sequence of token-id lists, length n, or None
        Words to score after each query (non-empty).
    batch_size : int
        Most prompts per forward pass.
    max_tokens : int or None
        Most (padded) query-and-target tokens per forward pass: a batch holds
        ``min(batch_size, max_tokens // width)`` prompts, width being its longest suffix; None:
        ``batch_size`` prompts. On a CPU every forward pass streams all the weights from memory,
        so short prompts want large batches and long ones small batches (a few hundred tokens per
        pass suits the stand-in on 2 cores; ``benchmarks/llm_throughput.py``). The batching does
        not change the states beyond float rounding.
    cache : bool or None
        Read and write the disk cache (``cache_dir(cache_path) / "llm"``), keyed by
        :func:`states_key`; None: registry models only.
    cache_path : path or None
    progress : bool or None
        Progress bar; None: live in a terminal or a kernel, never on a built page
        (:func:`assocmem.keys.show_progress`).
    desc : str
        Progress-bar label.
    weights : str or None
        :func:`~.models.weights_digest` of ``lm.model``, for the cache key, when the caller has
        just computed it (an experiment's calls share one: the digest reads every weight, about
        0.5 s per GB); None: computed here. The weights must not have changed since.

    Returns
    -------
    PromptStates

    Raises
    ------
    TypeError
        A token id or an index of ``which`` that is not an integer (a float, even 0.0, or a
        bool), or a size that is not an integer.
    ValueError
        Empty queries or targets, a token id outside ``[0, lm.vocab_size)`` (the message names
        it and the vocabulary size), ``which`` out of range, a prompt (BOS, prefix, query and
        target) longer than the model's context (:meth:`~.models.LanguageModel.check_fits`:
        refused, not truncated), batch_size < 1 or max_tokens < 1, or (with the cache) a
        cache directory that cannot be one (a file in its place).

    Warns
    -----
    RuntimeWarning
        A cache entry that cannot be read (truncated, empty, corrupt) or does not hold what its
        key promises is recomputed and rewritten, with a warning naming the file.
    """
    vocab = lm.vocab_size
    qlist = check_token_ids("queries", queries, vocab)
    plist = check_token_ids("prefixes", prefixes, vocab)
    if not qlist or any(len(q) == 0 for q in qlist):
        raise ValueError("queries must be a non-empty list of non-empty token-id lists")
    if not plist:
        raise ValueError("prefixes must hold at least one prefix (e.g. [[]] for zero-shot)")
    if which is None:
        which_arr = np.zeros(len(qlist), np.int64)
    else:
        which_arr = check_index_array("which", which, len(plist))
    if which_arr.shape != (len(qlist),):
        raise ValueError(f"which must hold one prefix index in [0, {len(plist)}) per query, got "
                         f"shape {which_arr.shape} for {len(qlist)} queries")  # fmt: skip
    tlist = None if targets is None else check_token_ids("targets", targets, vocab)
    if tlist is not None and (len(tlist) != len(qlist) or any(len(t) == 0 for t in tlist)):
        raise ValueError("targets must hold one non-empty token-id list per query")
    batch_size = check_int("batch_size", batch_size, 1)
    if max_tokens is not None:
        max_tokens = check_int("max_tokens", max_tokens, 1)
    n_bos = len(lm.bos_ids)
    for i, (q, p) in enumerate(zip(qlist, which_arr, strict=True)):
        extra = len(tlist[i]) if tlist is not None else 0
        lm.check_fits(n_bos + len(plist[p]) + len(q) + extra, f"prompt {i}")
    use_cache = uses_cache(lm, cache)
    key, file = None, None
    if use_cache:
        key = states_key(lm, plist, qlist, which_arr, tlist, weights)
        digest = hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
        folder = cache_dir(cache_path) / "llm"
        check_directory("cache_path", folder, must_exist=False)  # before the run, not at the save
        file = folder / f"{lm.name}_{digest}.pt"
    if file is not None and file.is_file():
        saved = _read_entry(file, key, (len(qlist), lm.n_layers + 1, lm.d_model), tlist is not None)
        if saved is not None:
            return PromptStates(saved["h"], saved["logprob"], saved["top1"], from_cache=True)
    h, lp, top1 = _extract(
        lm, plist, qlist, which_arr, tlist, batch_size, max_tokens, progress, desc
    )
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(".tmp")
        torch.save({"h": h, "logprob": lp, "top1": top1, "key": key}, tmp)
        os.replace(tmp, file)
    return PromptStates(h, lp, top1)


def last_token_states(
    lm: LanguageModel,
    prompts: Sequence[str],
    *,
    batch_size: int = 16,
    progress: bool | None = None,
    desc: str = "hidden states",
) -> torch.Tensor:
    """Residual-stream states at the last token of ``[BOS] + ids(prompt)``, at every layer.

    Parameters
    ----------
    lm : LanguageModel
    prompts : sequence of str, length n
    batch_size : int
        Prompts per forward pass (>= 1).
    progress : bool or None
        As :func:`prompt_states`.
    desc : str
        Progress-bar label.

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
    ids = [encode(lm, p) for p in prompts]
    return prompt_states(lm, [[]], ids, batch_size=batch_size, cache=False, progress=progress,
                         desc=desc).h  # fmt: skip
