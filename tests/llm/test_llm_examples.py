"""The built-in example sets of chapter 6 (assocmem.llm.examples): sizes, balance, labels,
and no overlap with the real benchmark files when these are present."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from assocmem.llm.data import TASKS, load_task
from assocmem.llm.examples import EXAMPLES

SIZES = {"sst2": 120, "ag_news": 120, "trec": 120, "lama_p36": 100}
BALANCE = {
    "sst2": {"positive": 60, "negative": 60},
    "ag_news": {"World": 30, "Sports": 30, "Business": 30, "Sci/Tech": 30},
    "trec": {k: 20 for k in ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")},
}


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _data_dir() -> Path:
    env = os.environ.get("ASSOCMEM_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def test_tasks_and_sizes() -> None:
    assert set(EXAMPLES) == set(TASKS)
    assert {name: len(items) for name, items in EXAMPLES.items()} == SIZES


@pytest.mark.parametrize("name", sorted(BALANCE))
def test_class_balance(name: str) -> None:
    assert dict(Counter(y for _, y in EXAMPLES[name])) == BALANCE[name]


@pytest.mark.parametrize("name", sorted(SIZES))
def test_labels_are_the_tasks(name: str) -> None:
    labels = {y for _, y in EXAMPLES[name]}
    if name == "lama_p36":
        assert all(isinstance(y, str) and y.strip() == y and y for y in labels)
    else:
        assert labels == set(TASKS[name].label_names)
    assert all(isinstance(t, str) and t.strip() == t and t for t, _ in EXAMPLES[name])


@pytest.mark.parametrize("name", sorted(SIZES))
def test_no_duplicate_texts(name: str) -> None:
    counts = Counter(_norm(t) for t, _ in EXAMPLES[name])
    assert [t for t, c in counts.items() if c > 1] == []


def test_word_limits() -> None:
    ag = [t for t, _ in EXAMPLES["ag_news"] if len(t.split()) > 20]
    assert ag == []  # the chapter cuts articles to 20 words: the examples are never cut
    sst = [t for t, _ in EXAMPLES["sst2"] if not 4 <= len(t.split()) <= 25]
    assert sst == []


def test_loaded_as_examples() -> None:
    for name, size in SIZES.items():
        task = load_task(name, source="examples")
        assert task.is_examples and len(task) == size


# LAMA is left out: its texts are country names, which any set of capital facts shares with
# the benchmark; the check is that the written sentences, articles and questions are our own.
@pytest.mark.parametrize("name", ["sst2", "ag_news", "trec"])
def test_no_text_of_the_real_file(name: str) -> None:
    root = _data_dir()
    if not (root / TASKS[name].local_path).is_file():
        pytest.skip(f"real data file {root / TASKS[name].local_path} not found")
    real = {_norm(t) for t in load_task(name, source="local", data_dir=root).texts}
    assert [t for t, _ in EXAMPLES[name] if _norm(t) in real] == []
