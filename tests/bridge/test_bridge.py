"""Chapter 7: the three memories, bits per parameter, and chapter 6's tools on the toy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from assocmem.bridge import __main__ as sweep
from assocmem.bridge.capacity import (
    COLUMNS,
    TABLE_PATH,
    bits_difference,
    capacity_point,
    capacity_summary,
    check_in_band,
    stored_table,
)
from assocmem.bridge.facts import (
    HEBBIAN_BITS_PER_PARAMETER,
    OPTIMAL_BITS_PER_PARAMETER,
    bits_per_parameter,
    fact_set,
)
from assocmem.bridge.memories import MEMORIES, n_parameters
from assocmem.bridge.overrides import (
    OverrideTask,
    measure_controls,
    measure_transition,
    probe_prompts,
    repetitions,
)
from assocmem.bridge.toy import WordTokenizer
from assocmem.estimate import Verdict, verdict
from assocmem.llm.models import LanguageModel
from assocmem.llm.probes import decode
from assocmem.llm.states import prompt_states


@pytest.mark.parametrize("memory", list(MEMORIES))
def test_each_memory_stores_a_small_fact_set(memory: str) -> None:
    facts = fact_set(32, 16, seed=3)
    assert MEMORIES[memory](facts, 16, 4, 2000) == 1.0


def test_linear_memory_fails_far_above_capacity() -> None:
    # p log p / d^2 = 128 ln 128 / 64 = 9.7, twenty times the capacity: recall far below 1
    assert MEMORIES["linear"](fact_set(128, 8, seed=3), 8, 0, 500) < 0.5


def test_bits_per_parameter_hand_case() -> None:
    # 16 facts over 16 answers = 64 bits; on a d = 8 linear memory (64 parameters): 1 bit each
    assert bits_per_parameter(16, 16, 64) == 1.0
    # 100 facts over 32 answers = 500 bits on 250 parameters
    assert bits_per_parameter(100, 32, 250) == pytest.approx(2.0)
    # the load alpha = p ln p / d^2 in bits per parameter is alpha / ln 2
    p, d = 100, 30
    alpha = p * math.log(p) / d**2
    assert bits_per_parameter(p, p, d * d) == pytest.approx(alpha / math.log(2))


def test_reference_lines() -> None:
    assert OPTIMAL_BITS_PER_PARAMETER == pytest.approx(0.7213, abs=1e-4)
    assert HEBBIAN_BITS_PER_PARAMETER == pytest.approx(0.1803, abs=1e-4)
    assert OPTIMAL_BITS_PER_PARAMETER / HEBBIAN_BITS_PER_PARAMETER == pytest.approx(4.0)


def test_parameter_counts_and_bad_input() -> None:
    assert n_parameters("linear", 10, 3) == 100
    assert n_parameters("mlp", 10, 3) == 63
    assert n_parameters("transformer", 10, 3) == 463
    with pytest.raises(ValueError, match="memory must be one of"):
        n_parameters("lstm", 10, 3)
    with pytest.raises(ValueError, match="n must be a multiple of 4"):
        fact_set(18, 8, seed=0)
    with pytest.raises(ValueError, match="n_facts and n_answers must be >= 1"):
        bits_per_parameter(0, 4, 10)


def _table() -> pd.DataFrame:
    rows = [("linear", 8, 8, 64, s, c, c * math.log2(c) / 64) for s, c in enumerate([20, 24])]
    rows += [("mlp", 8, 8, 136, s, c, c * math.log2(c) / 136) for s, c in enumerate([32, 40])]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def test_summary_difference_and_band() -> None:
    table = _table()
    summary = capacity_summary(table)
    assert summary["capacity"].iloc[0].value == 22.0
    diff = bits_difference(table, "mlp", "linear")
    lin = [20 * math.log2(20) / 64, 24 * math.log2(24) / 64]
    want = np.mean([32 * 5 / 136 - lin[0], 40 * math.log2(40) / 136 - lin[1]])
    assert diff.value == pytest.approx(want)
    check_in_band(table, {"memory": "linear", "d": 8, "capacity": 28})  # max 24 + one step
    with pytest.raises(RuntimeError, match="outside the stored band"):
        check_in_band(table, {"memory": "linear", "d": 8, "capacity": 32})


def test_tokenizer_refuses_unknown_words() -> None:
    tok = WordTokenizer(["a", "b", "<eos>"])
    assert tok.encode("b a") == [1, 0]
    with pytest.raises(ValueError, match="not in the toy vocabulary"):
        tok.encode("a c")


def test_chapter6_states_are_the_toys_own(
    task: OverrideTask, toys: dict[str, LanguageModel]
) -> None:
    """prompt_states' hooks and the logit lens read the toy exactly: the last layer's decode is
    the model's own logits, and layer 0 is the embedding."""
    lm = toys["toy"]
    ids = probe_prompts(task, 8, seed=1).override
    h = prompt_states(lm, [[]], [list(r) for r in ids], cache=False).h
    assert h.shape == (8, lm.n_layers + 1, lm.d_model)
    with torch.no_grad():
        logits = lm.model(torch.as_tensor(ids))[:, -1]
        emb = lm.model.body.embed(torch.as_tensor(ids), torch.arange(ids.shape[1]).expand(8, -1))
    assert torch.allclose(decode(lm, h[:, -1]), logits, atol=1e-4)
    assert torch.allclose(h[:, 0], emb[:, -1], atol=1e-6)


def test_chapter6_verdicts_on_the_toy(task: OverrideTask, toys: dict[str, LanguageModel]) -> None:
    """Each chapter-6 measurement returns the verdict the construction implies."""
    prompts = probe_prompts(task, 120, seed=5)
    toy = measure_controls(toys["toy"], task, prompts, seed=6)
    assert verdict(toy.stored_recall, 1 / task.n_attr) is Verdict.ABOVE
    assert toy.override.verdict is Verdict.ABOVE
    assert toy.unknown.verdict is Verdict.ABOVE
    assert toy.support.verdict is Verdict.ABOVE
    assert verdict(toy.collapse) is Verdict.ABOVE
    control = measure_controls(toys["control"], task, prompts, seed=6)
    assert verdict(control.stored_recall, 1 / task.n_attr) is Verdict.ABOVE
    assert control.override.verdict is not Verdict.ABOVE
    assert control.unknown.verdict is not Verdict.ABOVE
    assert control.support.verdict is not Verdict.ABOVE
    assert verdict(control.collapse) is not Verdict.ABOVE


def test_additive_transition_on_the_toy(task: OverrideTask, toys: dict[str, LanguageModel]) -> None:
    lams = np.linspace(0.0, 3.0, 7)
    tr = measure_transition(toys["toy"], task, 40, lams, seed=8, target=0)
    assert tr.fraction[0].value < 0.2  # lambda = 0: the stored answer, never the target
    assert tr.fraction[-1].value > 0.8
    assert 0.0 < tr.lambda_crit.value < 3.0
    # layer 0 is never chosen: at the last token both prompts share the embedding, c-bar = 0
    assert 1 <= tr.layer <= toys["toy"].n_layers
    assert np.all(tr.selection[0] == tr.selection[0, 0])
    fixed = measure_transition(toys["control"], task, 40, lams, seed=8, target=0, layer=tr.layer)
    assert fixed.layer == tr.layer and all(f.value < 0.5 for f in fixed.fraction)
    with pytest.raises(ValueError, match=r"layer must be an integer >= 1, got 0"):
        measure_transition(toys["toy"], task, 40, lams, seed=8, layer=0)


def test_stored_table_is_what_the_script_makes() -> None:
    """The stored table names its command and version, and seed 0 at d = 8 reproduces exactly."""
    head = TABLE_PATH.read_text().splitlines()[:2]
    assert head[0] == "# made by: python -m assocmem.bridge"
    assert head[1].startswith("# assocmem ")
    table = stored_table()
    assert set(table.memory) == set(MEMORIES)
    assert sorted(set(table.d)) == sorted(sweep.SIZES)
    for memory in ("linear", "mlp"):
        row = capacity_point(memory, 8, 8, 0, sweep.ROOT, steps=sweep.STEPS)
        stored = table[(table.memory == memory) & (table.d == 8) & (table.seed == 0)]
        assert row["capacity"] == int(stored["capacity"].iloc[0])


def test_repetitions_switch_the_toy_not_the_control(
    task: OverrideTask, toys: dict[str, LanguageModel]
) -> None:
    toy = repetitions(toys["toy"], task, 60, (0, 1, 2), seed=9)
    assert toy["reps_0"].value < 0.1  # no statement: the stored fact, never a'
    assert toy["reps_1"].value > 0.8 and toy["reps_2"].value > 0.8
    control = repetitions(toys["control"], task, 60, (0, 2), seed=9)
    assert control["reps_2"].value < 0.1
    with pytest.raises(ValueError, match="copies must lie in"):
        repetitions(toys["toy"], task, 10, (task.n_ctx + 1,), seed=9)
