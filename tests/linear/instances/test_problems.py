"""Tests of assocmem.linear.instances.problems and .load: load <-> pairs, sampling, score matrices,
recall."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import (
    MemoryProblem,
    all_recalled,
    normalised_margins,
    recall_accuracy,
    score_matrix,
    stack_problems,
)
from assocmem.linear.instances.sampling import (
    sample_problem,
    sample_problems,
)
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load


@pytest.mark.parametrize("decoupled", [False, True])
def test_normalised_margins_by_brute_force_for_every_norm(decoupled: bool) -> None:
    d, p = 5, 7
    batch = sample_problems(p, d, [3, 4, 5], decoupled=decoupled)
    W = torch.randn(3, d, d, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    S = score_matrix(W.float(), batch).double()  # float32 scores: compare to 1e-5
    for norm, scale in [("fro", lambda w: float(torch.linalg.matrix_norm(w))),
                        ("max", lambda w: float(w.abs().max())),
                        ("gardner", lambda w: float(torch.linalg.matrix_norm(w)) / d)]:  # fmt: skip
        got = normalised_margins(W, batch, norm=norm)
        assert got.shape == (3,) and got.dtype == np.float64
        for i in range(3):
            gaps = [float(S[i, m, m] - S[i, m, n]) for m in range(p) for n in range(p) if n != m]
            assert got[i] == pytest.approx(min(gaps) / scale(W[i]), rel=1e-4, abs=1e-6)
        # the same memories as a sequence on each unbatched instance: the same numbers
        one = normalised_margins(W[1:2], batch[1], norm=norm)
        assert one.shape == (1,) and one[0] == pytest.approx(got[1], rel=1e-12)
        assert np.ndim(normalised_margins(W[1], batch[1], norm=norm)) == 0
    assert np.array_equal(normalised_margins(W, batch) > 0, all_recalled(W, batch))
    with pytest.raises(ValueError, match="norm must be one of"):
        normalised_margins(W, batch, norm="l1")
    with pytest.raises(ValueError, match="zero matrix"):
        normalised_margins(torch.zeros(d, d), batch[0])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pairs_for_load(0.0, 16), r"alpha must be a finite number > 0, got 0\.0"),
        (lambda: pairs_for_load(-1.0, 16), r"alpha must be a finite number > 0, got -1\.0"),
        (lambda: pairs_for_load(float("nan"), 16), r"alpha must be a finite number > 0, got nan"),
        (lambda: pairs_for_load(float("inf"), 16), r"alpha must be a finite number > 0, got inf"),
        (lambda: pairs_for_load(0.5, 1), r"d must be an integer >= 2, got 1"),
        (lambda: load_for_pairs(1, 16), r"p must be an integer >= 2, got 1"),
        (lambda: load_for_pairs(10, 1), r"d must be an integer >= 2, got 1"),
        (lambda: sample_problem(1, 8), r"p must be an integer >= 2, got 1"),
        (lambda: sample_problem(8, 1), r"d must be an integer >= 2, got 1"),
        (lambda: sample_problem(8, 8, seed=-1), r"seed must be an integer >= 0, got -1"),
        (lambda: sample_problems(8, 8, []), r"seeds must hold at least one seed"),
        (lambda: stack_problems([]), r"problems must not be empty"),
    ],
)
def test_bad_inputs_raise_value_error(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def _explicit_scores(W: np.ndarray, prob: MemoryProblem) -> np.ndarray:
    e = prob.inputs.double().numpy()
    u = prob.targets.double().numpy()
    p = prob.p
    S = np.zeros((p, p))
    for mu in range(p):
        for nu in range(p):
            if prob.competitors is None or nu == mu:
                v = u[nu]
            else:
                j = nu if nu < mu else nu - 1
                v = prob.competitors[mu, j].double().numpy()
            S[mu, nu] = v @ W @ e[mu]
    return S


@pytest.mark.parametrize("decoupled", [False, True])
def test_score_matrix_equals_explicit_loop(decoupled: bool) -> None:
    prob = sample_problem(6, 4, decoupled=decoupled, seed=1)
    W = torch.randn(4, 4, generator=torch.Generator().manual_seed(0))
    S = score_matrix(W, prob)
    assert S.shape == (6, 6)
    np.testing.assert_allclose(
        S.double().numpy(), _explicit_scores(W.double().numpy(), prob), rtol=1e-5, atol=1e-6
    )
    # numpy W accepted
    np.testing.assert_allclose(score_matrix(W.numpy(), prob).numpy(), S.numpy())
    # recall = strict argmax on the diagonal
    Sn = S.numpy()
    expected = np.mean(Sn.argmax(1) == np.arange(6))
    assert recall_accuracy(W, prob) == pytest.approx(expected)
    assert all_recalled(W, prob) == bool(expected == 1.0)


@pytest.mark.parametrize("decoupled", [False, True])
def test_score_matrix_batched(decoupled: bool) -> None:
    batch = sample_problems(5, 3, [0, 1, 2], decoupled=decoupled)
    W = torch.randn(3, 3, 3, generator=torch.Generator().manual_seed(1))
    S = score_matrix(W, batch)
    assert S.shape == (3, 5, 5)
    for i in range(3):
        torch.testing.assert_close(S[i], score_matrix(W[i], batch[i]))
    # several W on one problem
    S1 = score_matrix(W, batch[0])
    torch.testing.assert_close(S1[2], score_matrix(W[2], batch[0]))
    acc = recall_accuracy(W, batch)
    assert isinstance(acc, np.ndarray) and acc.shape == (3,)
    assert all_recalled(W, batch).dtype == bool


def test_recall_is_strict_and_identity_like_memory_recalls() -> None:
    prob = sample_problem(5, 64, seed=0)
    assert recall_accuracy(torch.zeros(64, 64), prob) == 0.0  # ties are failures
    # few nearly orthogonal pairs: W = U^T E recalls everything (p << d)
    W = prob.targets.T @ prob.inputs
    assert all_recalled(W, prob) is True
    assert recall_accuracy(-W, prob) == 0.0


def test_score_matrix_shape_errors() -> None:
    prob = sample_problem(5, 4, seed=0)
    with pytest.raises(ValueError, match=r"W must have shape .* with d=4, got \(3, 3\)"):
        score_matrix(torch.zeros(3, 3), prob)
    with pytest.raises(ValueError, match=r"W has batch 2 but the problem has batch 3"):
        score_matrix(torch.zeros(2, 4, 4), sample_problems(5, 4, [0, 1, 2]))
    with pytest.raises(TypeError, match=r"W must be a torch tensor or numpy array, got list"):
        score_matrix([[0.0]], prob)
    with pytest.raises(ValueError, match=r"inputs and targets must .*, got \(5, 4\) and \(5, 3\)"):
        MemoryProblem(torch.zeros(5, 4), torch.zeros(5, 3))
    with pytest.raises(ValueError, match=r"competitors must .*\(5, 4, 4\), got \(5, 5, 4\)"):
        MemoryProblem(torch.zeros(5, 4), torch.zeros(5, 4), torch.zeros(5, 5, 4))


def test_non_finite_embeddings_are_refused_before_any_computation() -> None:
    """Issue 29, item 3: on d8f35f4 one NaN gave train_memory 'perfect=False, accuracy=0.0'."""
    from assocmem.linear.storage.training import train_memory

    prob = sample_problem(12, 6, seed=0)
    for name in ("inputs", "targets"):
        bad = getattr(prob, name).clone()
        bad[3, 2] = float("nan")
        kw = {"inputs": prob.inputs, "targets": prob.targets, name: bad}
        with pytest.raises(ValueError, match=f"{name} must be finite"):
            MemoryProblem(**kw)
    dp = sample_problem(6, 4, decoupled=True, seed=0)
    c = dp.competitors.clone()  # type: ignore[union-attr]
    c[1, 2, 0] = float("inf")
    with pytest.raises(ValueError, match="competitors must be finite"):
        MemoryProblem(dp.inputs, dp.targets, c)
    with pytest.raises(TypeError, match="floating-point"):
        MemoryProblem(prob.inputs.to(torch.int64), prob.targets.to(torch.int64))
    edited = sample_problem(12, 6, seed=0)
    edited.inputs[0, 0] = float("nan")  # edited in place after it was built
    with pytest.raises(ValueError, match="inputs must be finite"):
        train_memory(edited, steps=20)
    W = torch.eye(6)
    W[0, 1] = float("nan")
    with pytest.raises(ValueError, match="W must be finite"):
        recall_accuracy(W, prob)
