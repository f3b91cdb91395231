"""Chapter 6's protocol as one frozen object: tasks, shots, sizes, batching, layers, thresholds.

:class:`Chapter6Protocol` is the single source of every number that shapes a chapter-6 result.
The page builds it in its parameters cell (``PROTOCOL = Chapter6Protocol()``, overrides shown
there), the command line (``python -m assocmem.llm``) takes its defaults from it, and the
benchmarks read it; the registry (:mod:`.registry`) describes the models only. A test checks that
the command line's defaults and the page's object are equal.

Values: the page's parameters cell as of release 0.9.x (issue 38 moved them here unchanged).
Where the page, the registry and the command line had drifted (the command line ran batches of
16 prompts without a token budget), the page's values won: 64 prompts per pass and 512 query
tokens per pass on the CPU models, no budget on Llama-3-8B (a GPU).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from assocmem._validate import check_int, check_real
from assocmem.llm.registry import MODELS, OFFLINE_BASE, PAPER_MODEL, STANDIN

__all__ = ["Chapter6Protocol", "default_layers", "TASK_TITLES"]

#: The tasks' names as the page writes them.
TASK_TITLES = {"sst2": "SST-2", "ag_news": "AG-News", "trec": "TREC", "lama_p36": "LAMA P36"}


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


def default_layers(n_layers: int, count: int = 4, start: float = 5 / 8) -> list[int]:
    """``count`` context layers evenly spaced from ``start * L`` to L (the paper's 20, 24, 28, 32).

    Parameters
    ----------
    n_layers : int
        Number of decoder blocks L (>= 1).
    count : int
        Number of layers wanted, >= 1.
    start : float
        Where the window begins, as a fraction of L, in [0, 1].

    Returns
    -------
    list of int
        Sorted distinct layers in [round(start L), L]; for L = 32, count = 4 and the default
        start exactly [20, 24, 28, 32], the context layers of the paper's Fig. 5 (§4, digest
        §6.4).

    Raises
    ------
    ValueError
        If ``count`` < 1, ``n_layers`` < 1 or ``start`` is outside [0, 1].
    """
    if count < 1 or n_layers < 1:
        raise ValueError(f"count and n_layers must be >= 1, got {count}, {n_layers}")
    start = check_real("start", start, low=0.0)
    if start > 1:
        raise ValueError(f"start must lie in [0, 1], got {start}")
    return sorted({int(round(x)) for x in np.linspace(start * n_layers, n_layers, count)})


_SIZES = {  # (n_ctx, n_sel, n_test) per task, by model
    OFFLINE_BASE: {"sst2": (48, 100, 400), "ag_news": (48, 100, 320), "trec": (36, 48, 368)},
    PAPER_MODEL: {"sst2": (128, 200, 400), "ag_news": (128, 400, 1000), "trec": (36, 48, 368)},
    STANDIN: {"sst2": (48, 100, 320), "ag_news": (48, 100, 320), "trec": (36, 48, 320)},
}
#: Most query tokens per forward pass, by model: a budget on the CPU models, none on the GPU's.
_MAX_TOKENS = {STANDIN: 512, OFFLINE_BASE: 512, PAPER_MODEL: None}


@dataclass(frozen=True)
class Chapter6Protocol:
    """Every number that shapes a chapter-6 result, fixed before the run.

    Attributes
    ----------
    tasks : tuple of str
        Classification tasks, in the page's order.
    shots : mapping of str to int
        Demonstrations per prompt, per task: a multiple of the task's classes (balanced sets).
    n_sets : int
        Class-balanced demonstration sets; test query i sees set ``i mod n_sets``.
    n_chat : int
        Test queries also run through an instruction-tuned model's chat template.
    sizes : mapping of str to mapping of str to (int, int, int)
        ``(n_ctx, n_sel, n_test)`` per task, by registry model name. The offline sizes keep the
        chapter within its time on 2 CPU cores: SmolLM2 also runs the chat variant, so it gets
        fewer test queries than Gemma, whose SST-2 (where its demonstrations help) keeps 400.
        TREC's 500 questions hold 452 queries beside the pool of 8 balanced six-shot sets.
    lambda_min, lambda_max : float
        Ends of the log-spaced grid of context strengths (the paper's 1e-2 .. 1e1).
    n_lambdas : int
        Points of that grid.
    layers_from : float
        The window of context layers starts at ``layers_from * L`` (the paper's 20..32 of 32);
        fixed 2026-12-02 with the controls (commit 1873468), before the two-model runs.
    n_layers_window : int
        Context layers in the window (4, as the paper's Fig. 5).
    lama_k : int
        Demonstrations per LAMA prompt.
    lama_lambdas : tuple of float
        Context strengths of the LAMA effect (the paper's Fig. 6).
    lama_layer_step : int
        LAMA's context layers are 0, step, 2 step, ... (3 on a CPU; 1 on a GPU).
    lama_n : int or None
        LAMA queries scored: None for all, or a seeded subset of this many.
    batch_size : int
        Most prompts per forward pass (chapter 6's value since 2026-11-30, commit b2872f9).
    max_tokens : mapping of str to int or None
        Most query tokens per forward pass, by model: a CPU streams all weights for every pass,
        so the batch follows the prompts' length there; None: no budget (a GPU).
    seed : int
        Root seed of the splits, the demonstration sets and the bootstraps.
    late : float
        "Late" context layers (LAMA's vector row): ``l >= (1 - late) L``; fixed 2026-12-01
        (commit 97cf3ea), before the two-model runs.
    collapse_mass : float
        "Collapse onto the label set": the ICL label mass's interval lies above this; fixed
        2026-12-02 (commit fb1e84c) after the page's two-model run had been read: not searched
        over, but set knowing that run's label masses.
    reach_tol : float
        The probe "reaches" its best accuracy within this much; fixed with the first version of
        the chapter, 2026-11-30 (commit f916421).
    align_frac : float
        The alignment "has set in" from the first layer after which its mean margin stays at or
        above this fraction of its maximum; fixed 2026-12-02 (commit 1873468).
    order_layers : int
        Separability and alignment more than this many layers apart are ordered; closer, the
        order is "not resolved" (:func:`assocmem.llm.results.order_words`). Fixed 2026-12-03
        after the two-model run had been read by a referee: the page's caution already said
        that an order by one or two layers is within the probe's uncertainty.
    """

    tasks: tuple[str, ...] = ("sst2", "ag_news", "trec")
    shots: Mapping[str, int] = field(
        default_factory=lambda: _frozen({"sst2": 4, "ag_news": 4, "trec": 6})
    )
    n_sets: int = 8
    n_chat: int = 160
    sizes: Mapping[str, Mapping[str, tuple[int, int, int]]] = field(
        default_factory=lambda: _frozen({m: _frozen(s) for m, s in _SIZES.items()})
    )
    lambda_min: float = 1e-2
    lambda_max: float = 10.0
    n_lambdas: int = 13
    layers_from: float = 5 / 8
    n_layers_window: int = 4
    lama_k: int = 4
    lama_lambdas: tuple[float, ...] = (1.0, 1.5, 2.0)
    lama_layer_step: int = 3
    lama_n: int | None = None
    batch_size: int = 64
    max_tokens: Mapping[str, int | None] = field(default_factory=lambda: _frozen(_MAX_TOKENS))
    seed: int = 0
    late: float = 0.25
    collapse_mass: float = 0.5
    reach_tol: float = 0.02
    align_frac: float = 0.5
    order_layers: int = 2

    def __post_init__(self) -> None:
        """Check the values and freeze the mappings (a protocol cannot change after it is made).

        Raises
        ------
        TypeError
            If a count, a size, a budget or the seed is not an integer.
        ValueError
            If a task has no shots or a count is below its minimum (``n_sets`` >= 2, sizes and
            budgets >= 1, ``seed`` >= 0), a threshold is outside its range, or a model's sizes do
            not cover every task.
        """
        for name in ("n_chat", "n_lambdas", "n_layers_window", "lama_k",
                     "lama_layer_step", "batch_size"):  # fmt: skip
            check_int(name, getattr(self, name), 1)
        check_int("n_sets", self.n_sets, 2)  # the bootstrap over sets needs two
        check_int("seed", self.seed, 0)
        check_int("order_layers", self.order_layers, 0)
        for model, by_task in self.sizes.items():
            for task, triple in by_task.items():
                if not isinstance(triple, (tuple, list)) or len(triple) != 3:
                    raise ValueError(f"sizes[{model!r}][{task!r}] must be (n_ctx, n_sel, n_test)")
                for what, v in zip(("n_ctx", "n_sel", "n_test"), triple, strict=True):
                    check_int(f"sizes[{model!r}][{task!r}] {what}", v, 1)
        for model, budget in self.max_tokens.items():
            if budget is not None:
                check_int(f"max_tokens[{model!r}]", budget, 1)
        if self.lama_n is not None:
            check_int("lama_n", self.lama_n, 2)
        for name in ("collapse_mass", "reach_tol", "align_frac", "late", "layers_from"):
            value = check_real(name, getattr(self, name), low=0.0)
            if value > 1:
                raise ValueError(f"{name} must lie in [0, 1], got {value}")
        missing = [t for t in self.tasks if t not in self.shots]
        if missing:
            raise ValueError(f"shots must give k for every task, missing {missing}")
        unknown = sorted((set(self.sizes) | set(self.max_tokens)) - set(MODELS))
        if unknown:
            raise ValueError(f"sizes and max_tokens must name registry models, got {unknown}")
        for model, sizes in self.sizes.items():
            if set(self.tasks) - set(sizes):
                raise ValueError(f"sizes[{model!r}] must cover the tasks {self.tasks}")
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "lama_lambdas", tuple(float(x) for x in self.lama_lambdas))
        object.__setattr__(self, "shots", _frozen(self.shots))
        object.__setattr__(self, "sizes", _frozen({m: _frozen(s) for m, s in self.sizes.items()}))
        object.__setattr__(self, "max_tokens", _frozen(self.max_tokens))

    def replace(self, **changes: Any) -> Chapter6Protocol:
        """Return a copy with ``changes`` (field name -> value), checked as a new protocol."""
        return dataclasses.replace(self, **changes)

    @property
    def lambdas(self) -> np.ndarray:
        """The grid of context strengths, log-spaced from ``lambda_min`` to ``lambda_max``."""
        return np.logspace(np.log10(self.lambda_min), np.log10(self.lambda_max), self.n_lambdas)

    def layers(self, n_layers: int) -> list[int]:
        """Context layers of the additive score for a model of ``n_layers`` blocks."""
        return default_layers(n_layers, self.n_layers_window, self.layers_from)

    def lama_layers(self, n_layers: int) -> list[int]:
        """LAMA's context layers: 0, ``lama_layer_step``, ... up to ``n_layers``."""
        return list(range(0, n_layers + 1, self.lama_layer_step))

    def split_sizes(self, model: str, task: str) -> tuple[int, int, int]:
        """``(n_ctx, n_sel, n_test)`` of ``task`` for ``model``.

        Raises
        ------
        KeyError
            If the protocol has no sizes for that model or task (the message names them).
        """
        if model not in self.sizes or task not in self.sizes[model]:
            raise KeyError(f"no sizes for model {model!r}, task {task!r}; models: "
                           f"{sorted(self.sizes)}")  # fmt: skip
        n_ctx, n_sel, n_test = self.sizes[model][task]
        return n_ctx, n_sel, n_test

    def tokens(self, model: str) -> int | None:
        """Return the token budget per pass of ``model`` (None: no budget; also when unlisted)."""
        return self.max_tokens.get(model)

    def pool(self, task: str) -> int:
        """Items the demonstration pool needs for ``task``: ``n_sets * shots[task]``."""
        return self.n_sets * self.shots[task]

    def as_dict(self) -> dict[str, Any]:
        """Every field, mappings as plain dicts (for JSON and for printing)."""

        def plain(x: Any) -> Any:
            return {k: plain(v) for k, v in x.items()} if isinstance(x, Mapping) else x

        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def __str__(self) -> str:
        """One line per field (a mapping: one line per key), for the page."""
        lines = []
        for name, value in self.as_dict().items():
            if name == "sizes":  # n_ctx/n_sel/n_test per task, one model a line
                lines.append(f"{name:15s} n_ctx/n_sel/n_test per task and model")
                lines += [f"  {m:13s} " + ", ".join(f"{t} {'/'.join(map(str, s))}"
                                                    for t, s in v.items())
                          for m, v in value.items()]  # fmt: skip
            else:
                lines.append(f"{name:15s} {value}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (the mappings compared as dicts)."""
        if not isinstance(other, Chapter6Protocol):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        """Hash of the fields' text."""
        return hash(repr(sorted(self.as_dict().items())))
