"""Tests of assocmem.linear.storage.max_margin: the rank-m projection (truncate_rank), the
normalised margin it maximises and the projected max-margin trainer (chapter 4)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import all_recalled, normalised_margins, score_matrix
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.storage.max_margin import train_max_margin, truncate_rank
from assocmem.linear.storage.training import hebbian_memory


def test_truncate_rank_is_the_eckart_young_projection() -> None:
    g = torch.Generator().manual_seed(0)
    W = torch.randn(3, 10, 10, generator=g, dtype=torch.float64)
    s = torch.linalg.svdvals(W)
    for m in (1, 4, 10):
        Wm = truncate_rank(W, m)
        assert torch.all(torch.linalg.matrix_rank(Wm) == m)
        err = torch.linalg.matrix_norm(W - Wm) ** 2
        assert torch.allclose(err, (s[:, m:] ** 2).sum(-1), atol=1e-10)
        assert torch.allclose(truncate_rank(Wm, m), Wm, atol=1e-10)  # a projection
    with pytest.raises(ValueError, match=r"rank must be in \[1, 10\], got 11"):
        truncate_rank(W, 11)
    with pytest.raises(TypeError, match=r"W must be a floating torch\.Tensor, got ndarray"):
        truncate_rank(W.numpy(), 2)  # type: ignore[arg-type]


def test_gardner_normalised_margin_by_brute_force_and_invariances() -> None:
    b = sample_problems(12, 6, 3)
    W = torch.randn(3, 6, 6, generator=torch.Generator().manual_seed(1))
    got = normalised_margins(W, b, norm="gardner")
    S = score_matrix(W, b).double()
    for i in range(3):
        sigma = torch.linalg.matrix_norm(W[i].double()) / 6
        gaps = [float(S[i, mu, mu] - S[i, mu, nu]) for mu in range(12) for nu in range(12)
                if nu != mu]  # fmt: skip
        assert got[i] == pytest.approx(min(gaps) / float(sigma), rel=1e-5)
    assert np.allclose(normalised_margins(3.7 * W, b, norm="gardner"), got, rtol=1e-5)
    assert np.array_equal(got > 0, all_recalled(W, b))


def test_max_margin_trainer_raises_the_margin_and_keeps_rank_and_norm() -> None:
    d, m = 12, 4
    b = sample_problems(20, d, 3)
    start = normalised_margins(truncate_rank(hebbian_memory(b), m), b, norm="gardner")
    res = train_max_margin(b, m, steps=300, lr=0.02, beta=50.0, check_every=100)
    assert res.weights.shape == (3, d, d)
    s = torch.linalg.svdvals(res.weights.double())
    assert torch.all(s[:, m:] < 1e-4 * s[:, :1])
    assert torch.allclose(torch.linalg.matrix_norm(res.weights), torch.full((3,), float(d)),
                          rtol=1e-5)  # fmt: skip
    assert np.all(res.margin > start + 0.5)
    assert res.history["margin"].shape == (4, 3)
    assert np.allclose(res.history["margin"][0], start, atol=1e-5)
    # the best iterate is returned: never below any checked margin
    assert np.all(res.margin >= res.history["margin"].max(axis=0) - 1e-5)


def test_max_margin_full_rank_stores_an_easy_load() -> None:
    # far below capacity (alpha ~ 0.15 at d = 16) a maximum-margin memory stores everything
    b = sample_problems(30, 16, 2)
    res = train_max_margin(b, 16, steps=300, lr=0.02, beta=50.0)
    assert np.all(res.margin > 0) and np.all(all_recalled(res.weights, b))
