"""The wrapper the probes read (:class:`LanguageModel`) and :func:`load_model`.

:func:`load_model` resolves a request (``"auto"`` or a registry name, :func:`resolve_model`),
loads the weights (:func:`~.loaders.load_weights`, or an injected loader) and wraps them with the
registry entry's BOS rule and architecture. A model is what it says it is: a refused download of
a gated hub model raises :class:`ModelUnavailableError` naming what is missing and how to get
it, unless the caller asks for the offline stand-in in its place (``fallback=True``); the
returned model then carries the stand-in's name, and so does every result computed with it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
from dataclasses import dataclass, field
from typing import Any

import torch

from assocmem.device import get_device
from assocmem.llm.loaders import Loader, hf_token, load_weights, require_transformers
from assocmem.llm.registry import (
    MODELS,
    PAPER_MODEL,
    STANDIN,
    Architecture,
    HubRepo,
    architecture_of,
    model_spec,
)

__all__ = [
    "LanguageModel",
    "ModelUnavailableError",
    "load_model",
    "wrap_model",
    "weights_digest",
    "hub_reachable",
    "resolve_model",
]


@dataclass
class LanguageModel:
    """A causal language model with the pieces the probes need.

    Attributes
    ----------
    name : str
        Registry name, or any label for a model wrapped with :func:`wrap_model`.
    model : transformers.PreTrainedModel
        Causal LM of an architecture in :data:`~.registry.ARCHITECTURES`.
    tokenizer : transformers tokenizer
        Pads on the left with the EOS token.
    reason : str
        Why this model was chosen (printed by :func:`load_model`).
    identity : str
        What the weights were when loaded (file hash, hub revision, or :func:`weights_digest`);
        part of the hidden-state cache key, beside the digest of the weights at each call.
        Empty: filled in with :func:`weights_digest`.
    add_bos : bool or None
        Whether every prompt starts with the tokenizer's BOS token (exactly one; added by the
        prompt code, never by the tokenizer). None: whether the tokenizer adds it by itself.
    architecture : Architecture or None
        Where the components sit; None: looked up by ``model.config.model_type``.
    n_layers : int
        Number of decoder blocks L; hidden states are indexed 0 (embeddings) .. L.
    d_model : int
        Hidden size d.
    device : torch.device
        Device of the input embeddings (where inputs are sent).
    """

    name: str
    model: Any
    tokenizer: Any
    reason: str = ""
    identity: str = ""
    add_bos: bool | None = None
    architecture: Architecture | None = None
    n_layers: int = field(init=False)
    d_model: int = field(init=False)
    device: torch.device = field(init=False)

    def __post_init__(self) -> None:
        """Read sizes and device from the model; make the tokenizer pad on the left with EOS."""
        if self.architecture is None:
            self.architecture = architecture_of(self.model)
        cfg = self.model.config
        self.n_layers = int(cfg.num_hidden_layers)
        self.d_model = int(cfg.hidden_size)
        self.device = self.embedding.weight.device
        if not self.identity:
            self.identity = weights_digest(self.model)
        tok = self.tokenizer
        if tok.pad_token is None:
            tok.pad_token = tok.eos_token
        tok.padding_side = "left"
        if self.add_bos is None:
            ids = tok("a")["input_ids"]
            self.add_bos = tok.bos_token_id is not None and ids[:1] == [tok.bos_token_id]
        if self.add_bos and tok.bos_token_id is None:
            raise ValueError("add_bos=True but the tokenizer has no BOS token")

    @property
    def bos_ids(self) -> list[int]:
        """``[BOS]`` if prompts start with it, else ``[]``."""
        return [int(self.tokenizer.bos_token_id)] if self.add_bos else []

    @functools.cached_property
    def word_continuation(self) -> torch.Tensor:
        """Bool (V,): token mu continues the word before it (decodes to a letter or digit first).

        Used to check that a greedy answer ends where the target word ends (" Jackson" followed
        by "ville" is not the whole word " Jackson").
        """
        n_vocab = self.unembedding.shape[0]
        n_tok = min(n_vocab, len(self.tokenizer))
        text = self.tokenizer.batch_decode([[i] for i in range(n_tok)])
        out = torch.zeros(n_vocab, dtype=torch.bool)
        out[:n_tok] = torch.tensor([bool(t) and t[0].isalnum() for t in text])
        return out

    @property
    def dtype(self) -> torch.dtype:
        """Dtype of the input embeddings (the model's compute dtype)."""
        return self.embedding.weight.dtype

    @property
    def base(self) -> Any:
        """The decoder stack without the LM head (e.g. ``LlamaModel``); returns normed states."""
        return getattr(self.model, self.model.base_model_prefix)

    def _component(self, which: str) -> Any:
        assert self.architecture is not None  # set in __post_init__
        return self.architecture.get(self.model, which)

    @property
    def embedding(self) -> Any:
        """Token embedding module (``torch.nn.Embedding``); its output is h^(0)."""
        return self._component("embedding")

    @property
    def blocks(self) -> Any:
        """The L decoder blocks (``torch.nn.ModuleList``); block l's output is h^(l)."""
        return self._component("blocks")

    @property
    def final_norm(self) -> Any:
        """Final norm module (applied to h^(L) before the unembedding)."""
        return self._component("final_norm")

    @property
    def unembedding(self) -> torch.Tensor:
        """W_U, shape (V, d): row mu is the memory zeta^mu (= the embeddings if tied)."""
        return self._component("unembedding").weight

    @property
    def vocab_size(self) -> int:
        """Rows of the input embedding: token ids run over ``[0, vocab_size)``."""
        return int(self.embedding.weight.shape[0])

    @property
    def context_length(self) -> int | None:
        """Most tokens a prompt may hold: ``config.max_position_embeddings`` (None: not stated)."""
        n = getattr(self.model.config, "max_position_embeddings", None)
        return int(n) if isinstance(n, int) and n > 0 else None

    def check_fits(self, n_tokens: int, what: str = "prompt") -> None:
        """Refuse a prompt longer than the model's context (:attr:`context_length`).

        The rule of the library: a prompt that does not fit is refused, never truncated
        (which end to cut is the caller's choice) nor run past the positions the model was
        trained on (its states would be silently meaningless).

        Raises
        ------
        ValueError
            If ``n_tokens`` exceeds the context; the message names ``what``, the length and
            the limit.
        """
        limit = self.context_length
        if limit is not None and n_tokens > limit:
            raise ValueError(
                f"{what} is {n_tokens} tokens (BOS included), longer than the context of "
                f"{self.name} ({limit} tokens, config.max_position_embeddings): shorten it "
                "(e.g. fewer or shorter demonstrations, or cut the text); prompts are not "
                "truncated"
            )

    def word_ids(self, word: str) -> list[int]:
        """Token ids of ``" " + word`` (without special tokens): the whole word.

        A special-token string in ``word`` is encoded as text (data never becomes a control
        token, as in :func:`assocmem.llm.prompts.encode`).

        Raises
        ------
        ValueError
            If the word encodes to no tokens.
        """
        ids = self.tokenizer.encode(" " + word, add_special_tokens=False, split_special_tokens=True)
        if not ids:
            raise ValueError(f"word {word!r} encodes to no tokens")
        return [int(i) for i in ids]

    def label_ids(self, words: tuple[str, ...] | list[str]) -> torch.Tensor:
        """Ids of single-token label words, int64 tensor of shape (K,).

        Classification scores each class by the one token of ``" " + word``, which is then the
        whole word; this checks it for the loaded tokenizer.

        Raises
        ------
        ValueError
            If a label word is several tokens under this tokenizer, or two share their token
            (the message names them).
        """
        ids = {w: self.word_ids(w) for w in words}
        multi = {w: v for w, v in ids.items() if len(v) != 1}
        if multi:
            raise ValueError(
                f"label words must be single tokens for {self.name}'s tokenizer; "
                f"multi-token: {multi}. Choose other verbalisers (e.g. lower case)."
            )
        flat = [v[0] for v in ids.values()]
        if len(set(flat)) != len(flat):
            raise ValueError(f"label words share a token: {ids}")
        return torch.tensor(flat, dtype=torch.long)


#: Integer views of the parameter dtypes by element size (the checksum sums bit patterns exactly).
_INT_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_CHECK_ROW = 1 << 15  # positions weighted 1..2**15 within a row: |bits| * row * row < 2**63
_CHECK_MOD = (1 << 31) - 1


def _device_checksum(t: torch.Tensor) -> tuple[int, int]:
    """Exact integer checksum of a tensor's bit patterns, computed where the tensor lives.

    The tensor is read as integers of its element size (float bits, not values), padded with
    zeros to rows of ``2**15``; returns ``(sum of all words, sum over rows of
    (row index + 1) * (sum_j (j + 1) * word_j mod 2**31-1) mod 2**31-1)``: a change of any one word
    changes the first number, a swap of two different words changes the second. Integer sums are
    exact, so the result does not depend on the device, the thread count or the summation order.
    Used for tensors off the CPU (a GPU reads 16 GB of Llama-3-8B weights in milliseconds; copying
    them to the CPU to hash them would take tens of seconds per call).
    """
    x = t.detach().reshape(-1)
    if x.dtype == torch.bool:
        x = x.view(torch.uint8)
    x = x.view(_INT_VIEW[x.element_size()])
    w = torch.arange(1, _CHECK_ROW + 1, dtype=torch.int64, device=x.device)
    s1 = s2 = 0
    step = _CHECK_ROW * 64
    for start in range(0, x.numel(), step):
        chunk = x[start : start + step].to(torch.int64)
        pad = (-chunk.numel()) % _CHECK_ROW
        rows = torch.nn.functional.pad(chunk, (0, pad)).view(-1, _CHECK_ROW)
        if x.element_size() == 8:  # 64-bit words: fold to 32 bits first (no overflow)
            rows = (rows >> 32) ^ (rows & 0xFFFFFFFF)
        s1 += int(rows.sum())
        first_row = start // _CHECK_ROW
        r = torch.arange(first_row + 1, first_row + rows.shape[0] + 1, device=x.device)
        per_row = (rows * w).sum(1) % _CHECK_MOD
        s2 = (s2 + int(((per_row * (r % _CHECK_MOD)) % _CHECK_MOD).sum())) % _CHECK_MOD
    return s1, s2


def weights_digest(model: Any) -> str:
    """Return a digest of every value of every parameter and buffer of ``model``.

    The key of the hidden-state cache (:func:`assocmem.llm.states.states_key`) holds it, so a
    model whose weights were edited in place (an ablated head, ``w.data[...] = 0``, a loaded
    state dict) never gets the states of the unedited one. All values are read on every call:
    edits through ``.data`` do not move PyTorch's version counters, so nothing cheaper is safe.
    CPU tensors are hashed with SHA-256 (about 0.5 s per GB here); tensors on an accelerator go
    through an exact integer checksum computed on the device (:func:`_device_checksum`).

    Parameters
    ----------
    model : torch.nn.Module
        Any model.

    Returns
    -------
    str
        ``"<class>:<n_params>:<dtype>:<hex digest>"``; the hex digest covers every tensor's
        name, dtype, shape and values, so models that differ in any value differ here.
    """
    digest = hashlib.sha256()
    n_params = 0
    dtype = ""
    with torch.no_grad():
        tensors = [*model.named_parameters(), *model.named_buffers()]
        for name, p in tensors:
            if isinstance(p, torch.nn.Parameter):
                n_params += p.numel()
                dtype = dtype or str(p.dtype)
            digest.update(f"{name}|{p.dtype}|{tuple(p.shape)}|".encode())
            if p.device.type == "cpu":
                x = p.detach().contiguous().reshape(-1)
                x = x.view(torch.uint8) if x.dtype != torch.bool else x.to(torch.uint8)
                digest.update(memoryview(x.numpy()))
            else:
                digest.update(repr(_device_checksum(p)).encode())
    return f"{type(model).__name__}:{n_params}:{dtype}:{digest.hexdigest()[:24]}"


def wrap_model(
    model: Any,
    tokenizer: Any,
    *,
    name: str = "custom",
    reason: str = "",
    identity: str = "",
    add_bos: bool | None = None,
    architecture: Architecture | None = None,
) -> LanguageModel:
    """Wrap an already loaded causal LM (e.g. a tiny random ``LlamaConfig`` model).

    Parameters
    ----------
    model : transformers.PreTrainedModel
        Causal LM of a registry architecture (put in eval mode here).
    tokenizer : transformers tokenizer
        Its tokenizer (set to pad on the left with EOS).
    name : str
        Label of the model (also the cache key, see :func:`assocmem.llm.states.prompt_states`).
    reason : str
        Why this model is used.
    identity : str
        What the weights are (e.g. a file hash); default :func:`weights_digest` at wrap time.
    add_bos : bool or None
        See :class:`LanguageModel`.
    architecture : Architecture or None
        Where its components sit; default the registry's entry for ``model.config.model_type``.

    Returns
    -------
    LanguageModel

    Raises
    ------
    TypeError
        If the model's architecture is not in the registry, or a component is missing.
    """
    arch = architecture or architecture_of(model)
    for which in ("embedding", "blocks", "final_norm", "unembedding"):
        arch.get(model, which)  # TypeError naming the missing component
    model.eval()
    return LanguageModel(
        name=name,
        model=model,
        tokenizer=tokenizer,
        reason=reason,
        identity=identity,
        add_bos=add_bos,
        architecture=arch,
    )


def hub_reachable(host: str = "huggingface.co", timeout: float = 2.0) -> bool:
    """Check whether a TCP connection to ``host:443`` opens within ``timeout`` seconds.

    Parameters
    ----------
    host : str
        Host name.
    timeout : float
        Seconds to wait.

    Returns
    -------
    bool
        ``False`` at once when ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is set (no socket is
        opened), else whether the connection opened.
    """
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return False
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def resolve_model(name: str = "auto") -> tuple[str, str]:
    """Resolve a model request to a registry name, with the reason.

    Parameters
    ----------
    name : str
        ``"auto"`` or a key of :data:`~.registry.MODELS`.

    Returns
    -------
    (str, str)
        Registry name and a one-line reason.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones).

    Notes
    -----
    Checks, cheapest first, so that nothing hangs: CUDA GPU, then a token (environment or the
    ``huggingface_hub`` store), then a 2-second TCP check of huggingface.co (skipped when
    ``HF_HUB_OFFLINE`` is set).
    """
    if name != "auto":
        model_spec(name)  # ValueError listing the valid names
        return name, "requested explicitly"
    if not torch.cuda.is_available():
        return STANDIN, "offline stand-in; no CUDA GPU found"
    if hf_token() is None:
        return STANDIN, "offline stand-in; no Hugging Face token (set HF_TOKEN)"
    if not hub_reachable():
        return STANDIN, "offline stand-in; huggingface.co unreachable or HF_HUB_OFFLINE set"
    return PAPER_MODEL, "CUDA GPU, Hugging Face token and hub all available"


def _access_error(exc: BaseException) -> bool:
    """Whether ``exc`` says the hub refused access (gated repo, 401/403, missing token)."""
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(w in text for w in ("gated", "401", "403", "unauthorized", "access", "token"))


class ModelUnavailableError(RuntimeError):
    """The requested model cannot be loaded here.

    The message says what is missing and how to get it, and that ``fallback=True`` runs the
    offline stand-in instead.
    """


#: Dtypes a model's weights can be loaded in and computed with (integer, bool, complex and
#: float8 dtypes are storage formats: a forward pass in them fails after the load).
COMPUTE_DTYPES = ("float32", "bfloat16", "float16", "float64")


def _compute_dtype(dtype: object) -> str | None:
    """Return a compute dtype's name (:data:`COMPUTE_DTYPES`), None for None.

    A ``torch.dtype`` or an alias such as ``"half"`` is accepted; ValueError/TypeError naming
    ``dtype`` otherwise.
    """
    if dtype is None:
        return None
    if isinstance(dtype, str):
        dt = getattr(torch, dtype, None)
    elif isinstance(dtype, torch.dtype):
        dt = dtype
    else:
        raise TypeError(f"dtype must be a torch dtype name such as 'float32', got {dtype!r}")
    name = str(dt).removeprefix("torch.") if isinstance(dt, torch.dtype) else None
    if name not in COMPUTE_DTYPES:
        raise ValueError(f"dtype must be one of {COMPUTE_DTYPES} (a dtype the model can compute "
                         f"in), got {dtype!r}")  # fmt: skip
    return name


def load_model(
    name: str = "auto",
    *,
    device: str | torch.device | None = None,
    dtype: str | None = None,
    verbose: bool = True,
    loader: Loader | None = None,
    fallback: bool = False,
) -> LanguageModel:
    """Load a registry model once per process (cached) and set it up for the probes.

    Parameters
    ----------
    name : str
        ``"auto"`` or a key of :data:`~.registry.MODELS`; see :func:`resolve_model`.
    device : str, torch.device or None
        GGUF models only (hub models use ``device_map="auto"`` over all GPUs); default CPU.
    dtype : str, torch.dtype or None
        A compute dtype (:data:`COMPUTE_DTYPES`: float32, bfloat16, float16, float64; checked
        before anything is loaded); default the source's (float32 for a GGUF, bfloat16 from the
        hub, with 4-bit weights through bitsandbytes when the GPU is smaller than the entry says).
    verbose : bool
        Print the model chosen and why.
    loader : callable or None
        ``loader(name, device, dtype) -> (model, tokenizer, identity)`` in place of the download
        (tests inject a small random model of the same architecture here); everything after the
        loading (BOS policy, label checks, layers) is the same code path.
    fallback : bool
        When the hub refuses the requested model (gated repository, no or wrong token), load
        the offline stand-in instead, with one line saying so; the returned model's ``name`` is
        the stand-in's and its ``reason`` says what was requested. Default: raise.

    Returns
    -------
    LanguageModel

    Raises
    ------
    TypeError
        If ``dtype`` is neither a string nor a ``torch.dtype``.
    ValueError
        Unknown model name, a dtype that is no compute dtype (int8, bool, complex64,
        float8_e4m3fn, ...), or a model that needs CUDA requested without a CUDA GPU.
    ImportError
        transformers, the stand-in package or (for 4-bit) bitsandbytes missing, with the command.
    ModelUnavailableError
        The hub refused the model (gated repository, no or wrong token) and ``fallback`` is
        False: the message names the repository, the licence to accept and the token to set.
    """
    dtype = _compute_dtype(dtype)  # before anything is loaded
    resolved, reason = resolve_model(name)
    require_transformers()
    dev = get_device(device if device is not None else "cpu")
    load = loader or load_weights
    try:
        model, tok, identity = load(resolved, str(dev), dtype)
    except (OSError, ValueError, RuntimeError) as exc:
        spec = MODELS[resolved]
        if not isinstance(spec.source, HubRepo) or not _access_error(exc):
            raise
        missing = (
            f"{spec.title} not loaded ({type(exc).__name__}): no access to "
            f"{spec.source.repo} with this token. Accept the licence on "
            f"https://huggingface.co/{spec.source.repo} and set HF_TOKEN to a token of that "
            f"account (huggingface-cli login)"
        )
        if not fallback:
            raise ModelUnavailableError(
                f"{missing}; or pass fallback=True to run the stand-in {STANDIN} instead"
            ) from exc
        print(f"{missing}; falling back to the stand-in {STANDIN}, whose name the results carry")
        resolved, reason = STANDIN, f"fallback: {spec.title} requested, no access"
        model, tok, identity = load(resolved, str(dev), dtype)
    spec = MODELS[resolved]
    lm = wrap_model(model, tok, name=resolved, reason=reason, identity=identity,
                    add_bos=spec.add_bos, architecture=spec.architecture)  # fmt: skip
    if verbose:
        print(f"model: {resolved} ({reason}); {lm.n_layers} layers, d = {lm.d_model}")
    return lm
