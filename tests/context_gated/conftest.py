"""Fixtures of the chapter-5 tests."""

from __future__ import annotations

from _fixtures import _one_thread  # noqa: F401  (autouse: one torch thread)
