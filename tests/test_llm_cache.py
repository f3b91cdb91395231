"""Regression tests of the hidden-state cache key (issue 14, item 4).

Each test fails on a cache keyed by (model name, task, template, n, seed) only: the states served
must be those of the prompts, weights, dtype and device actually asked for.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch
from assocmem.llm.data import load_task
from assocmem.llm.models import LanguageModel, wrap_model
from assocmem.llm.prompts import last_token_states, task_states
from test_llm import _byte_tokenizer, tiny  # noqa: F401  (fixture)


def _kw(tmp_path: Path) -> dict:
    return {"cache": True, "cache_path": tmp_path, "progress": False}


def test_cache_misses_on_a_different_query_subset(tiny: LanguageModel, tmp_path: Path) -> None:  # noqa: F811
    a = load_task("sst2", source="examples", n=12, seed=0)
    b = load_task("sst2", source="examples", n=12, seed=1)
    assert a.texts != b.texts
    sa = task_states(tiny, a, k=2, n=6, **_kw(tmp_path))
    sb = task_states(tiny, b, k=2, n=6, **_kw(tmp_path))
    assert not sb.from_cache
    fresh = last_token_states(tiny, sb.prompts.zero, progress=False)
    torch.testing.assert_close(sb.h_zero, fresh)
    assert not torch.equal(sa.h_zero, sb.h_zero)


def test_cache_misses_on_dtype_and_weights(tiny: LanguageModel, tmp_path: Path) -> None:  # noqa: F811
    task = load_task("sst2", source="examples")
    s32 = task_states(tiny, task, k=2, n=5, **_kw(tmp_path))
    bf = wrap_model(
        copy.deepcopy(tiny.model).to(torch.bfloat16), _byte_tokenizer(), name=tiny.name
    )  # same name, other dtype
    s16 = task_states(bf, task, k=2, n=5, **_kw(tmp_path))
    assert not s16.from_cache
    torch.testing.assert_close(s16.h_zero, last_token_states(bf, s16.prompts.zero, progress=False))
    assert not torch.equal(s16.h_zero, s32.h_zero)
    other = copy.deepcopy(tiny.model)
    with torch.no_grad():
        other.model.norm.weight.mul_(2.0)  # same name, same dtype, other weights
    s2 = task_states(
        wrap_model(other, _byte_tokenizer(), name=tiny.name), task, k=2, n=5, **_kw(tmp_path)
    )
    assert not s2.from_cache


def test_cache_misses_on_a_prompt_change(
    tiny: LanguageModel,
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = load_task("sst2", source="examples")
    first = task_states(tiny, task, k=2, n=5, **_kw(tmp_path))
    assert task_states(tiny, task, k=2, n=5, **_kw(tmp_path)).from_cache
    edited = type(task)(**{**task.__dict__, "template": "Text: {x}\nLabel:{y}"})
    second = task_states(tiny, edited, k=2, n=5, **_kw(tmp_path))
    assert not second.from_cache and not torch.equal(first.h_zero, second.h_zero)
