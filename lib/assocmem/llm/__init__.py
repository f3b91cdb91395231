"""Context-gated retrieval inside a language model (chapter 6).

Submodules: :mod:`.models` (registry, loading), :mod:`.data` (tasks), :mod:`.prompts` (templates,
hidden-state extraction, cache), :mod:`.probes` (logit lens, N_eff, context vectors, additive
score, LAMA), :mod:`.experiments` (per-task drivers), :mod:`.plots` (figures, table).

transformers is imported lazily, when a model is loaded; without it :func:`load_model` raises an
ImportError naming ``pip install "assocmem[llm]"``.
"""

from __future__ import annotations

from .data import EXAMPLES_LABEL, TASKS, Task, load_task
from .experiments import (
    LamaResult,
    TaskResult,
    default_layers,
    fit_split,
    run_classification,
    run_lama,
)
from .models import (
    MODELS,
    LanguageModel,
    hub_reachable,
    load_model,
    resolve_model,
    standin_gguf_path,
    wrap_model,
)
from .plots import plot_additive, plot_lama, plot_neff, plot_neff_task, results_table
from .probes import (
    LamaEffect,
    additive_accuracy,
    additive_logits,
    context_vector,
    decode,
    effective_number,
    final_norm,
    label_accuracy,
    lama_context_effect,
    layer_profile,
)
from .prompts import PromptSet, TaskStates, build_prompts, cache_dir, last_token_states, task_states

__all__ = [
    "EXAMPLES_LABEL",
    "MODELS",
    "TASKS",
    "LamaEffect",
    "LamaResult",
    "LanguageModel",
    "PromptSet",
    "Task",
    "TaskResult",
    "TaskStates",
    "additive_accuracy",
    "additive_logits",
    "build_prompts",
    "cache_dir",
    "context_vector",
    "decode",
    "default_layers",
    "fit_split",
    "effective_number",
    "final_norm",
    "hub_reachable",
    "label_accuracy",
    "lama_context_effect",
    "last_token_states",
    "layer_profile",
    "load_model",
    "load_task",
    "plot_additive",
    "plot_lama",
    "plot_neff",
    "plot_neff_task",
    "resolve_model",
    "results_table",
    "run_classification",
    "run_lama",
    "standin_gguf_path",
    "task_states",
    "wrap_model",
]
