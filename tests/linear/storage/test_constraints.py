"""Tests of assocmem.linear.storage.constraints."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _sweep_tables import margins_by_hand
from assocmem.linear.instances.problems import score_matrix
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.storage.constraints import (
    constraint_margins,
    constraint_matrix,
    dual_bound,
)


@pytest.mark.parametrize("decoupled", [False, True])
def test_constraint_margins_match_score_matrix(decoupled: bool) -> None:
    prob = sample_problem(9, 5, decoupled=decoupled, seed=3)
    W = np.random.default_rng(0).standard_normal((5, 5))
    M = constraint_margins(W, prob)
    S = score_matrix(torch.tensor(W, dtype=torch.float32), prob).double().numpy()
    p = prob.p
    for mu in range(p):
        others = [nu for nu in range(p) if nu != mu]
        np.testing.assert_allclose(M[mu], S[mu, mu] - S[mu, others], atol=1e-5)


def test_dual_bound_by_hand_and_errors() -> None:
    # d = 1, p = 2, e = (1, 1), u = (1, -1): rows 2 W and -2 W; y = (1, 1) gives G = 0, y = (1, 0)
    # gives |2| / 1 = 2 (the margin 2 W of W = 1)
    prob = margins_by_hand([1.0, 1.0], [1.0, -1.0])
    assert dual_bound(np.array([[1.0], [1.0]]), prob) == 0.0
    assert dual_bound(np.array([[1.0], [0.0]]), prob) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="shape"):
        dual_bound(np.ones((3, 1)), prob)
    with pytest.raises(ValueError, match=">= 0"):
        dual_bound(np.array([[1.0], [-1.0]]), prob)
    with pytest.raises(ValueError, match=">= 0"):
        dual_bound(np.zeros((2, 1)), prob)


@pytest.mark.parametrize("decoupled", [False, True])
def test_constraint_matrix_rows_are_the_margins(decoupled: bool) -> None:
    d = 5
    prob = sample_problem(9, d, decoupled=decoupled, seed=4)
    W = np.random.default_rng(0).standard_normal((d, d))
    A = constraint_matrix(prob)
    assert A.shape == (9 * 8, d * d)
    np.testing.assert_allclose(A @ W.ravel(), constraint_margins(W, prob).ravel(), atol=1e-12)
