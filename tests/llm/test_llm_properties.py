"""Property-based input checks of the data/prompt layer of :mod:`assocmem.llm` (issue 29, item 3).

Harness: tests/_properties.py. The modules covered are :mod:`assocmem.llm.data` and
:mod:`assocmem.llm.prompts`, with cases of :func:`assocmem.llm.states.prompt_states` (token ids,
prefix indices) and :func:`assocmem.llm.evaluation.paired_comparison` (0/1 outcomes) for the
input classes of issue 42; every case runs without data files (the built-in example sets,
``source="examples"``), so the file passes with or without ``$ASSOCMEM_DATA_DIR``. Prompts are
encoded with a tiny random Llama and an in-memory byte tokenizer (as the ``tiny`` fixture of
conftest.py), built once for the module.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import numpy as np
import pytest
import torch
from _properties import (
    KINDS,
    Case,
    Kind,
    _int_kind,
    _junk,
    property_tests,
)
from assocmem.llm import data, evaluation, prompts, states
from assocmem.llm.models import LanguageModel, wrap_model
from hypothesis import strategies as st

# local kinds: an optional size (None is the documented default), a text, a path or None
_size = _int_kind(1)
KINDS.setdefault(
    "size_or_none",
    Kind(_size.draw, lambda v: v is not None and _size.invalid(v)),
)
KINDS.setdefault(
    "text",
    Kind(st.one_of(st.text(max_size=20), _junk, st.integers()), lambda v: not isinstance(v, str)),
)
KINDS.setdefault(
    "path_or_none",
    Kind(
        st.one_of(st.text(max_size=20), st.none(), _junk, st.integers()),
        lambda v: v is not None and not isinstance(v, (str, os.PathLike)),
    ),
)

VOCAB = 260  # the tiny model's embedding rows


def _bad_token_ids(v: Any) -> bool:
    """Surely no token-id lists: not a list of lists of ints in [0, VOCAB)."""
    if not isinstance(v, list):
        return True
    for seq in v:
        if not isinstance(seq, list) or any(
            isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < VOCAB for t in seq
        ):
            return True
    return False


KINDS.setdefault(
    "token_ids",
    Kind(
        st.one_of(
            st.lists(
                st.lists(st.integers(-3, VOCAB + 3), min_size=1, max_size=4), min_size=1, max_size=3
            ),
            st.lists(st.lists(st.floats(0, 300), min_size=1, max_size=3), min_size=1, max_size=2),
            st.lists(st.lists(st.booleans(), min_size=1, max_size=3), min_size=1, max_size=2),
            _junk,
        ),
        _bad_token_ids,
    ),
)

KINDS.setdefault(  # an input directory: None, or one that exists (issue 42, item 7)
    "dir_or_none",
    Kind(
        st.one_of(st.text(max_size=12), st.none(), _junk, st.integers(),
                  st.sampled_from([os.getcwd(), os.path.join(os.getcwd(), "no-such-dir")])),
        lambda v: v is not None
        and not (isinstance(v, (str, os.PathLike)) and os.path.isdir(os.path.expanduser(v))),
    ),
)  # fmt: skip

_indices = KINDS["indices"]
KINDS.setdefault(  # None: every query uses prefix 0 (prompt_states)
    "indices_or_none", Kind(_indices.draw, lambda v: v is not None and _indices.invalid(v))
)


def _byte_tokenizer() -> Any:
    """A 259-token byte-level tokenizer built in memory (as tests/llm/conftest.py)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    vocab["<eos>"] = len(vocab)
    vocab["Ġn"], vocab["Ġp"] = 257, 258
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[("Ġ", "n"), ("Ġ", "p")]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>")


@cache
def _tiny() -> LanguageModel:
    """A randomly initialised 1-layer Llama (hidden size 32) with the byte tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=260, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
        tie_word_embeddings=True, eos_token_id=256, pad_token_id=256, bos_token_id=256,
    )  # fmt: skip
    return wrap_model(LlamaForCausalLM(cfg).eval(), _byte_tokenizer(), name="tiny-llama")


@cache
def _task(name: str = "sst2") -> data.Task:
    return data.load_task(name, source="examples")


def _split() -> prompts.Split:
    return prompts.make_split(_task(), n_ctx=10, n_sel=5, n_test=10, n_pool=8, verbose=False)


def _prefixes() -> prompts.DemoPrefixes:
    return prompts.demo_prefixes(_task(), _split().pool, k=2, n_prefixes=3, seed=1)


def _len(n: int) -> Any:
    def check(out: Any) -> None:
        assert len(out) == n, (len(out), n)

    return check


CASES: list[Case] = [
    Case(data.load_task, lambda: (("sst2",), {"source": "examples", "n": 7, "seed": 3}),
         {"n": "size_or_none", "seed": "count0", "data_dir": "dir_or_none"}, check=_len(7)),
    Case(data.load_task, lambda: (("lama_p36",), {"source": "examples", "n": 5}),
         {"n": "size_or_none", "seed": "count0"}, check=_len(5)),
    Case(data.data_dir_from_env, lambda: (("~/data",), {}), {"data_dir": "path_or_none"}),
    Case(prompts.make_split,
         lambda: ((_task(),), {"n_ctx": 10, "n_sel": 5, "n_test": 10, "n_pool": 8,
                               "verbose": False}),
         {"n_ctx": "size", "n_sel": "size", "n_test": "size", "n_pool": "size",
          "seed": "count0"},
         check=lambda s: len(s.test) == 10 or pytest.fail("n_test")),
    Case(prompts.make_split,
         lambda: ((_task("ag_news"),), {"n_ctx": 4, "n_sel": 4, "n_test": 8, "stratify": True,
                                        "verbose": False}),
         {"n_test": "size", "seed": "count0"}),
    Case(prompts.demo_prefixes, lambda: ((_task(), _split().pool), {"k": 2, "n_prefixes": 3}),
         {"pool": "array", "k": "size", "n_prefixes": "size", "seed": "count0"},
         check=lambda d: d.items.shape == (3, 2) or pytest.fail("shape")),
    Case(prompts.demo_prefixes,
         lambda: ((_task(), _split().pool), {"k": 2, "n_prefixes": 3, "demos": "adversarial"}),
         {"seed": "count0"}),
    Case(prompts.DemoPrefixes.assign, lambda: ((_prefixes(), _split().test), {}),
         {"queries": "array"}, check=_len(10)),
    Case(prompts.encode, lambda: ((_tiny(), "Review: fine\nSentiment:"), {}), {"text": "text"}),
    Case(prompts.make_split,
         lambda: ((_task("trec"),), {"n_ctx": 4, "n_sel": 4, "n_test": 8, "n_pool": 12,
                                     "pool_per_class": 2, "verbose": False}),
         {"pool_per_class": "count0", "seed": "count0"}),
    Case(prompts.demo_prefixes,
         lambda: ((_task(), _split().pool), {"k": 2, "n_prefixes": 3, "balanced": True}),
         {"k": "size", "n_prefixes": "size", "seed": "count0"},
         check=lambda d: d.items.shape == (3, 2) or pytest.fail("shape")),
    Case(prompts.first_demos, lambda: ((_task(), _prefixes()), {"m": 1}), {"m": "size"},
         check=lambda d: d.items.shape == (3, 1) or pytest.fail("shape")),
    Case(prompts.prompt_ids,
         lambda: ((_tiny(), ["Review: a\nSentiment:", "Review: bc\nSentiment:"]),
                  {"which": np.array([0, 1])}),
         {"which": "array"}, check=lambda out: len(out[1]) == 2 or pytest.fail("queries")),
    # issue 42: indices are integers (never a float truncated), token ids lie in the vocabulary
    Case(prompts.prompt_ids,
         lambda: ((_tiny(), ["Review: a\nSentiment:", "Review: bc\nSentiment:"]),
                  {"which": np.array([0, 1])}),
         {"which": "indices"}),
    Case(prompts.DemoPrefixes.assign, lambda: ((_prefixes(), _split().test), {}),
         {"queries": "indices"}),
    Case(states.prompt_states,
         lambda: ((_tiny(), [[5, 6], [7]], [[8, 9], [10]]),
                  {"which": np.array([0, 1]), "cache": False, "progress": False}),
         {"prefixes": "token_ids", "queries": "token_ids", "which": "indices_or_none",
          "batch_size": "size"},
         check=lambda out: tuple(out.h.shape) == (2, 2, 32) or pytest.fail("shape")),
    Case(evaluation.paired_comparison,
         lambda: ((np.array([1, 0, 1, 1]), np.array([0, 0, 1, 0])), {"n_boot": 100}),
         {"a": "outcomes", "b": "outcomes", "n_boot": "size"}),
]  # fmt: skip

_RECORD = "a record (a frozen dataclass); its producers are the cases above"
EXEMPT: dict[str, str] = {
    "assocmem.llm.data.HubSource": "a registry record of pinned constants (TASKS), no user input",
    "assocmem.llm.data.WebSource": "a registry record of pinned constants (TASKS), no user input",
    "assocmem.llm.data.TaskSpec": "a registry record of pinned constants (TASKS), no user input",
    "assocmem.llm.data.Task": _RECORD,
    "assocmem.llm.prompts.Split": _RECORD,
    "assocmem.llm.prompts.DemoPrefixes": _RECORD + " (its method assign is a case)",
    "assocmem.llm.prompts.ChatText": "a str marking chat_text's output (its control tokens are "
    "the template's); made by chat_text, tested in test_llm_inputs.py",
    "assocmem.llm.prompts.chat_text": "needs an Instruct model's chat template (the tiny model "
    "has none, a ValueError); tested on SmolLM2 in test_llm_prompt_text.py",
}


(
    test_valid_call_gives_a_finite_result,
    test_any_value_gives_a_finite_result_or_a_clear_error,
    test_every_public_function_is_covered,
) = property_tests(CASES, EXEMPT, ["assocmem.llm.data", "assocmem.llm.prompts"])


def test_split_and_prefixes_are_disjoint_and_in_range() -> None:
    """The valid calls' results are what the docs promise, not only finite."""
    split, task = _split(), _task()
    sets = [split.ctx, split.sel, split.test, split.pool]
    allidx = np.concatenate(sets)
    assert len(np.unique(allidx)) == len(allidx) == len(task)
    pre = _prefixes()
    assert set(pre.items.ravel()) <= set(split.pool)
    assert len(np.unique(pre.items)) == pre.items.size
