"""Tests of assocmem.linear.storage.interior_point."""

from __future__ import annotations

import numpy as np
import pytest
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.storage.constraints import (
    constraint_matrix,
)
from assocmem.linear.storage.interior_point import (
    StructuredConstraints,
)


@pytest.mark.parametrize("decoupled", [False, True])
def test_structured_operators_match_the_dense_matrix(decoupled: bool) -> None:
    # A w, A^T y and A^T diag(D) A of the ipm's operators against constraint_matrix's rows
    d = 5
    prob = sample_problem(11, d, decoupled=decoupled, seed=2)
    A = constraint_matrix(prob)
    e, u = prob.inputs.double().numpy(), prob.targets.double().numpy()
    c = None if prob.competitors is None else prob.competitors.double().numpy()
    op = StructuredConstraints(e, u, c)
    rng = np.random.default_rng(1)
    w, y = rng.standard_normal(d * d), rng.random(A.shape[0])
    np.testing.assert_allclose(op.margins(w), A @ w, atol=1e-12)
    np.testing.assert_allclose(op.rmat(y), A.T @ y, atol=1e-12)
    np.testing.assert_allclose(op.normal(y), A.T @ (y[:, None] * A), atol=1e-12)
