"""Fixtures of the chapter-7 tests: one trained toy of each kind per session."""

from __future__ import annotations

import pytest
import torch
from _fixtures import _one_thread  # noqa: F401  (autouse: one torch thread)
from assocmem.bridge.overrides import OverrideTask, override_task, train_toy
from assocmem.llm.models import LanguageModel


@pytest.fixture(scope="session")
def task() -> OverrideTask:
    """A small override task: 16 known and 16 unknown subjects, 4 attributes, 3 context pairs."""
    return override_task(16, 16, 4, 3, seed=11)


@pytest.fixture(scope="session")
def toys(task: OverrideTask) -> dict[str, LanguageModel]:
    """The toy trained with overrides and the negative control trained without."""
    torch.set_num_threads(1)
    return {
        name: train_toy(task, overrides=flag, d=32, steps=1200, batch=64, lr=5e-3, seed=12)[0]
        for name, flag in (("toy", True), ("control", False))
    }
