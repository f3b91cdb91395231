"""The small transformer of chapter 7b and its adapter to chapter 6's model interface.

:class:`ToyTransformer` is a decoder of L blocks (one causal attention head, then a ReLU MLP, on a
residual stream without norms inside, in the spirit of ``ihead_basic_model.py`` in
``albietz/transformer-birth``: Bietti et al., "Birth of a transformer", arXiv 2306.00802), frozen
random token and position embeddings, a final RMSNorm and a frozen random unembedding. It exposes
the four components chapter 6's probes read (embedding, blocks, final norm, unembedding) under the
:class:`~assocmem.llm.registry.Architecture` :data:`ARCHITECTURE`, a ``config`` with
``num_hidden_layers`` and ``hidden_size``, and a decoder stack ``body`` whose forward takes what
:func:`assocmem.llm.states.prompt_states` passes; :class:`WordTokenizer` is a whitespace tokenizer
with the methods the wrapper calls. :func:`as_language_model` wraps both with
:func:`assocmem.llm.models.wrap_model`, so the functions of :mod:`assocmem.llm.probes`,
:mod:`assocmem.llm.states` and :mod:`assocmem.llm.evaluation` run on it unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from assocmem._validate import check_int
from assocmem.llm.models import LanguageModel, wrap_model
from assocmem.llm.registry import Architecture
from assocmem.streams import Seed, child, torch_generator

__all__ = [
    "ARCHITECTURE",
    "ToyConfig",
    "ToyTransformer",
    "WordTokenizer",
    "as_language_model",
]

#: Where chapter 6's probes find the toy's components.
ARCHITECTURE = Architecture(
    "assocmem_toy",
    embedding="body.embed",
    blocks="body.layers",
    final_norm="body.norm",
    unembedding="head",
)


class WordTokenizer:
    """One token per whitespace-separated word of a fixed vocabulary; the last word pads.

    Provides what :class:`assocmem.llm.models.LanguageModel` and :mod:`assocmem.llm.prompts` call:
    ``encode``, ``__call__``, ``batch_decode``, ``len``, ``pad_token``, ``eos_token``,
    ``bos_token_id`` (None: prompts carry no BOS) and ``padding_side``.
    """

    def __init__(self, words: Sequence[str]) -> None:
        self.words = list(words)
        if len(set(self.words)) != len(self.words) or any(not w or " " in w for w in self.words):
            raise ValueError("words must be distinct non-empty strings without spaces")
        self.ids = {w: i for i, w in enumerate(self.words)}
        self.eos_token = self.pad_token = self.words[-1]
        self.eos_token_id = self.pad_token_id = len(self.words) - 1
        self.bos_token_id: int | None = None
        self.padding_side = "left"

    def __len__(self) -> int:
        """Vocabulary size."""
        return len(self.words)

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        """Ids of the words of ``text``.

        Raises
        ------
        ValueError
            If a word is not in the vocabulary (the message names it).
        """
        unknown = [w for w in text.split() if w not in self.ids]
        if unknown:
            raise ValueError(f"words not in the toy vocabulary: {unknown[:5]}")
        return [self.ids[w] for w in text.split()]

    def __call__(self, text: str) -> dict[str, list[int]]:
        """``{"input_ids": encode(text)}``."""
        return {"input_ids": self.encode(text)}

    def batch_decode(self, batch: Sequence[Sequence[int]]) -> list[str]:
        """Words of each id list, joined by spaces."""
        return [" ".join(self.words[int(i)] for i in ids) for ids in batch]


@dataclass(frozen=True)
class ToyConfig:
    """Sizes of a :class:`ToyTransformer` (names as transformers' configs spell them)."""

    vocab_size: int
    hidden_size: int = 64
    num_hidden_layers: int = 2
    intermediate_size: int = 256
    max_position_embeddings: int = 32
    model_type: str = "assocmem_toy"


class _Embedding(nn.Module):
    """Frozen token + position embeddings; its output is h^(0). ``weight`` is the token table."""

    def __init__(self, cfg: ToyConfig, gen: torch.Generator) -> None:
        super().__init__()
        d = cfg.hidden_size
        tok = torch.randn(cfg.vocab_size, d, generator=gen)
        pos = torch.randn(cfg.max_position_embeddings, d, generator=gen)
        self.weight = nn.Parameter(tok / tok.norm(dim=1, keepdim=True), requires_grad=False)
        self.position = nn.Parameter(pos / pos.norm(dim=1, keepdim=True), requires_grad=False)

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor) -> torch.Tensor:
        """Token plus position embedding, shape (B, T, d)."""
        return self.weight[input_ids] + self.position[position_ids]


class _Block(nn.Module):
    """h + attention(h), then + MLP: one causal head and a ReLU MLP, no norms."""

    def __init__(self, cfg: ToyConfig) -> None:
        super().__init__()
        d, m = cfg.hidden_size, cfg.intermediate_size
        self.q, self.k = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.v, self.o = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)
        self.up, self.down = nn.Linear(d, m), nn.Linear(m, d)

    def forward(self, h: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        """Block output, shape (B, T, d); ``keep`` (B, T, T) bool says who may attend to whom."""
        scores = self.q(h) @ self.k(h).transpose(1, 2) / math.sqrt(h.shape[-1])
        att = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
        h = h + self.o(att @ self.v(h))
        return h + self.down(torch.relu(self.up(h)))


class _Body(nn.Module):
    """The decoder stack: embedding, blocks, final norm (what ``LanguageModel.base`` returns)."""

    def __init__(self, cfg: ToyConfig, gen: torch.Generator) -> None:
        super().__init__()
        self.embed = _Embedding(cfg, gen)
        self.layers = nn.ModuleList(_Block(cfg) for _ in range(cfg.num_hidden_layers))
        self.norm = nn.RMSNorm(cfg.hidden_size, eps=1e-6)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
        use_cache: bool = False,
        **kwargs: Any,
    ) -> SimpleNamespace:
        """Run the stack; returns ``last_hidden_state`` (B, T, d), final norm applied.

        Raises
        ------
        ValueError
            If a key/value cache is asked for (the toy keeps none: give whole prompts).
        """
        if use_cache or kwargs:
            raise ValueError("the toy transformer keeps no key/value cache (use_cache=False)")
        b, t = input_ids.shape
        if position_ids is None:
            position_ids = torch.arange(t, device=input_ids.device).expand(b, t)
        keep = torch.ones(t, t, dtype=torch.bool, device=input_ids.device).tril()[None]
        if attention_mask is not None:
            keep = keep & attention_mask[:, None, -t:].bool()
        keep = keep | torch.eye(t, dtype=torch.bool, device=input_ids.device)[None]
        h = self.embed(input_ids, position_ids)
        for block in self.layers:
            h = block(h, keep)
        return SimpleNamespace(last_hidden_state=self.norm(h))


class ToyTransformer(nn.Module):
    """L-block decoder with frozen embeddings and a frozen unembedding; logits (B, T, V).

    Parameters
    ----------
    cfg : ToyConfig
    seed : int or numpy.random.SeedSequence
        Stream of the frozen embeddings (child ``"embeddings"``) and of the trained weights'
        initialisation (child ``"init"``).
    """

    base_model_prefix = "body"

    def __init__(self, cfg: ToyConfig, seed: Seed) -> None:
        super().__init__()
        check_int("vocab_size", cfg.vocab_size, 2)
        check_int("num_hidden_layers", cfg.num_hidden_layers, 1)
        self.config = cfg
        gen = torch_generator(child(seed, "embeddings"))
        self.body = _Body(cfg, gen)
        self.head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)
        out = torch.randn(cfg.vocab_size, cfg.hidden_size, generator=gen)
        self.head.weight = nn.Parameter(out / out.norm(dim=1, keepdim=True), requires_grad=False)
        init = torch_generator(child(seed, "init"))
        with torch.no_grad():
            for block in self.body.layers:
                for lin in block.modules():
                    if isinstance(lin, nn.Linear):
                        bound = 1.0 / math.sqrt(lin.in_features)
                        lin.weight.uniform_(-bound, bound, generator=init)
                        if lin.bias is not None:
                            lin.bias.zero_()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Logits W_U RMSNorm(h^(L)), shape (B, T, V)."""
        return self.head(self.body(input_ids).last_hidden_state)


def as_language_model(model: ToyTransformer, tokenizer: WordTokenizer, name: str) -> LanguageModel:
    """Wrap the toy in chapter 6's :class:`~assocmem.llm.models.LanguageModel` (no BOS)."""
    return wrap_model(model, tokenizer, name=name, add_bos=False, architecture=ARCHITECTURE,
                      reason="trained in chapter 7 on facts the book chose")  # fmt: skip
