"""Regression tests of the hidden-state cache key (issue 14, item 4).

Each fails on a cache keyed by (model name, task, template, n, seed) only, the key of main
57c67b3: the states served must be those of the prompts, weights, dtype and device asked for.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from assocmem.llm.data import load_task
from assocmem.llm.models import LanguageModel, wrap_model
from assocmem.llm.prompts import encode, make_split
from assocmem.llm.states import prompt_states


def _queries(lm: LanguageModel, seed: int) -> list[list[int]]:
    task = load_task("sst2", source="examples", n=12, seed=seed)
    sp = make_split(task, n_ctx=2, n_sel=2, n_test=6, seed=0)
    return [encode(lm, task.template.format(x=task.texts[i], y="")) for i in sp.test]


def _states(lm: LanguageModel, queries: list[list[int]], path: Path):  # type: ignore[no-untyped-def]
    return prompt_states(lm, [[]], queries, cache=True, cache_path=path, progress=False)


def test_cache_misses_on_a_different_query_subset(tiny: LanguageModel, tmp_path: Path) -> None:
    qa, qb = _queries(tiny, 0), _queries(tiny, 1)  # same sizes and seed, other subset
    assert qa != qb
    sa = _states(tiny, qa, tmp_path)
    assert _states(tiny, qa, tmp_path).from_cache
    sb = _states(tiny, qb, tmp_path)
    assert not sb.from_cache
    fresh = prompt_states(tiny, [[]], qb, cache=False, progress=False).h
    torch.testing.assert_close(sb.h, fresh)
    assert not torch.equal(sa.h, sb.h)


def test_cache_misses_on_dtype_and_weights(
    tiny: LanguageModel, byte_tokenizer: Callable[[], Any], tmp_path: Path
) -> None:
    q = _queries(tiny, 0)
    s32 = _states(tiny, q, tmp_path)
    bf16 = copy.deepcopy(tiny.model).to(torch.bfloat16)
    # eager attention: torch's bf16 SDPA kernel on the CPU fails with ATEN_CPU_CAPABILITY=default
    # on an AVX-512 machine ("pack_vnni2 is only supported when avx512 is supported"), and this
    # test is about the cache key, not the attention kernel (issue 51: tests hold on any kernels)
    bf16.set_attn_implementation("eager")
    bf = wrap_model(bf16, byte_tokenizer(), name=tiny.name)  # same name, other dtype
    s16 = _states(bf, q, tmp_path)
    assert not s16.from_cache and not torch.equal(s16.h, s32.h)
    torch.testing.assert_close(s16.h, prompt_states(bf, [[]], q, cache=False).h)
    other = copy.deepcopy(tiny.model)
    with torch.no_grad():
        other.model.norm.weight.mul_(2.0)
        other.model.layers[0].mlp.down_proj.weight.mul_(2.0)  # same name and dtype, other weights
    s2 = _states(wrap_model(other, byte_tokenizer(), name=tiny.name), q, tmp_path)
    assert not s2.from_cache and not torch.equal(s2.h, s32.h)


def test_cache_misses_on_a_prompt_or_prefix_change(tiny: LanguageModel, tmp_path: Path) -> None:
    q = _queries(tiny, 0)
    kw = {"cache": True, "cache_path": tmp_path, "progress": False}
    a = prompt_states(tiny, [encode(tiny, "A\n")], q, **kw)
    b = prompt_states(tiny, [encode(tiny, "B\n")], q, **kw)
    assert not b.from_cache and not torch.equal(a.h, b.h)
    c = prompt_states(tiny, [encode(tiny, "A\n")], q, targets=[[65]] * len(q), **kw)
    assert not c.from_cache and c.target_logprob is not None


def test_cache_misses_after_an_in_place_edit_of_the_weights(
    tiny: LanguageModel, byte_tokenizer: Callable[[], Any], tmp_path: Path
) -> None:
    """Issue 29, item 1: on d8f35f4 an in-place head ablation was served the pre-edit states.

    The model is wrapped with a fixed identity, as a registry model is (its file hash): the
    identity alone cannot see an edit; the key's digest of every weight value must.
    """
    lm = wrap_model(
        copy.deepcopy(tiny.model), byte_tokenizer(), name=tiny.name, identity="file-sha256:abc"
    )
    q = _queries(lm, 0)
    before = _states(lm, q, tmp_path)
    assert _states(lm, q, tmp_path).from_cache
    o_proj = lm.model.model.layers[1].self_attn.o_proj.weight
    saved = o_proj.detach().clone()
    with torch.no_grad():
        o_proj[:, :8] = 0  # zero one head's output (head size 8)
    ablated = _states(lm, q, tmp_path)
    assert not ablated.from_cache
    torch.testing.assert_close(ablated.h, prompt_states(lm, [[]], q, cache=False).h)
    assert not torch.equal(ablated.h, before.h)
    # an edit through .data (no version-counter bump) beyond the first 4096 values of a tensor
    emb = lm.model.model.embed_tokens.weight
    assert emb.numel() > 4096
    with torch.no_grad():
        o_proj.copy_(saved)
    restored = _states(lm, q, tmp_path)
    assert restored.from_cache  # the same weights again: the pre-edit entry is the right one
    torch.testing.assert_close(restored.h, before.h)
    emb.data[-1, -1] += 1.0  # the last value of the last token's embedding (a token q uses)
    late = _states(lm, q, tmp_path)
    assert not late.from_cache


def test_weights_digest_reads_every_value(tiny: LanguageModel) -> None:
    from assocmem.llm.models import _device_checksum, weights_digest

    model = copy.deepcopy(tiny.model)
    d0 = weights_digest(model)
    assert weights_digest(copy.deepcopy(model)) == d0  # a copy: same values, same digest
    w = model.model.embed_tokens.weight
    for index in [(0, 0), (w.shape[0] - 1, w.shape[1] - 1), (200, 17)]:
        old = float(w.data[index])
        w.data[index] = old + 2.0**-20
        assert weights_digest(model) != d0, index
        w.data[index] = old
    assert weights_digest(model) == d0
    # the on-device checksum (used off the CPU), exercised here on CPU tensors
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16, torch.float64):
        x = torch.randn(3 * 2**15 + 11, generator=g).to(dtype)
        c0 = _device_checksum(x)
        assert _device_checksum(x.clone()) == c0
        y = x.clone()
        y[-1] = -y[-1]
        assert _device_checksum(y) != c0  # one word changed (the last, in the padded row)
        z = x.clone()
        z[[5, 2**15 + 7]] = x[[2**15 + 7, 5]]
        assert _device_checksum(z) != c0  # two words swapped across rows
        z = x.clone()
        z[[5, 9]] = x[[9, 5]]
        assert _device_checksum(z) != c0  # two words swapped within a row
