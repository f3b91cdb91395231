"""Fixtures shared by several test folders' conftest files (imported there by name), and helpers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from assocmem.estimate import Estimate


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    """These tensors are tiny: one torch thread avoids spin-waiting on a shared 2-core machine."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def value_and_stderr(e: Estimate) -> tuple[float, float]:
    """A Monte Carlo :class:`~assocmem.estimate.Estimate` as ``(value, standard error)``."""
    return e.value, e.stderr
