"""The reference cross-entropy that chapter 1 shows (assocmem.linear.storage.training).

``cross_entropy_loss_and_grad`` (chapter 1, eq. ``eq-ce``) is checked against finite differences,
against autograd on the float64 score matrix, and against the engine (``_forward`` and the loss
``train_memory`` records), for the OP and the DP. The page's listing of it is checked in
tests/book/test_taught_code.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from assocmem.linear.instances.problems import MemoryProblem, score_matrix
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.storage.training import _forward, cross_entropy_loss_and_grad, train_memory


def _random_w(d: int, scale: float, seed: int = 0) -> np.ndarray:
    """A memory whose scores have standard deviation ~ ``scale`` (entries N(0, scale^2))."""
    return scale * np.random.default_rng(seed).standard_normal((d, d))


@pytest.mark.parametrize("decoupled", [False, True])
@pytest.mark.parametrize("scale", [1.0, 4.0])
def test_gradient_matches_finite_differences(decoupled: bool, scale: float) -> None:
    problem = sample_problem(9, 5, decoupled=decoupled, seed=3)
    W = _random_w(5, scale)
    _, grad = cross_entropy_loss_and_grad(W, problem)
    h = 1e-6
    fd = np.zeros_like(W)
    for i in range(5):
        for j in range(5):
            step = np.zeros_like(W)
            step[i, j] = h
            plus, _ = cross_entropy_loss_and_grad(W + step, problem)
            minus, _ = cross_entropy_loss_and_grad(W - step, problem)
            fd[i, j] = (plus - minus) / (2 * h)
    # central differences in float64: error ~ h^2 L''' + 1e-16 L / h ~ 1e-9 here
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    assert np.abs(grad).max() > 1e-3  # a gradient that tests something


@pytest.mark.parametrize("decoupled", [False, True])
def test_matches_autograd_on_the_float64_score_matrix(decoupled: bool) -> None:
    problem = sample_problem(12, 6, decoupled=decoupled, seed=1)
    W = _random_w(6, 2.0, seed=1)
    c = None if problem.competitors is None else problem.competitors.double()
    p64 = MemoryProblem(problem.inputs.double(), problem.targets.double(), c)
    W64 = torch.tensor(W, requires_grad=True)
    loss = F.cross_entropy(score_matrix(W64, p64), torch.arange(problem.p))  # mean over mu
    loss.backward()
    ref_loss, ref_grad = cross_entropy_loss_and_grad(W, problem)
    assert ref_loss == pytest.approx(float(loss.detach()), rel=1e-12)
    assert W64.grad is not None
    np.testing.assert_allclose(ref_grad, W64.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize(("decoupled", "p"), [(False, 20), (True, 20), (False, 700)])
def test_matches_the_engine_forward(decoupled: bool, p: int) -> None:
    # p = 700 > 512: the engine scores the OP in several row blocks on the CPU
    batch = sample_problems(p, 6, [0, 1], decoupled=decoupled)
    W = torch.randn(2, 6, 6, generator=torch.Generator().manual_seed(0))
    _, loss_mu, _, grad = _forward(W, batch.inputs, batch.targets, batch.competitors)
    assert grad is not None
    for b in range(2):
        loss, g = cross_entropy_loss_and_grad(W[b], batch[b])
        # the engine's loss is the mean over mu of its per-input loss, its gradient that mean's
        assert float(loss_mu[b].double().mean()) == pytest.approx(loss, rel=1e-6)
        np.testing.assert_allclose(
            grad[b].double().numpy(), g, rtol=1e-4, atol=1e-5 * np.abs(g).max()
        )


@pytest.mark.parametrize("decoupled", [False, True])
def test_matches_the_loss_train_memory_records(decoupled: bool) -> None:
    problem = sample_problem(30, 8, decoupled=decoupled, seed=2)
    res = train_memory(problem, steps=7, check_every=1, early_stop=False)
    # history step t holds the loss of W_t; without early stop the returned W is W_7
    loss, _ = cross_entropy_loss_and_grad(res.weights, problem)
    assert res.history["loss"][-1] == pytest.approx(loss, rel=1e-5)
    assert res.history["loss"][0] == pytest.approx(np.log(30), rel=1e-6)  # W_0 = 0
    assert abs(loss - np.log(30)) > 0.01  # W_7 is not W_0


@pytest.mark.parametrize("decoupled", [False, True])
def test_at_zero_the_loss_is_log_p_and_the_gradient_a_centred_hebbian_sum(decoupled: bool) -> None:
    problem = sample_problem(11, 7, decoupled=decoupled, seed=4)
    loss, grad = cross_entropy_loss_and_grad(np.zeros((7, 7)), problem)
    assert loss == pytest.approx(np.log(11), rel=1e-14)
    e, u = problem.inputs.double().numpy(), problem.targets.double().numpy()
    if problem.competitors is None:
        mean_cand = np.broadcast_to(u.mean(0), u.shape)  # uniform softmax over every target
    else:
        mean_cand = (u + problem.competitors.double().numpy().sum(1)) / 11
    np.testing.assert_allclose(grad, (mean_cand - u).T @ e / 11, rtol=1e-12, atol=1e-15)


def test_accepts_float32_tensors_and_numpy_alike() -> None:
    problem = sample_problem(10, 6, seed=0)
    W = torch.randn(6, 6, generator=torch.Generator().manual_seed(5))
    a = cross_entropy_loss_and_grad(W, problem)
    b = cross_entropy_loss_and_grad(W.numpy(), problem)
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[1], b[1])
    assert a[1].dtype == np.float64 and a[1].shape == (6, 6)


@pytest.mark.parametrize(
    ("W", "problem", "exc", "match"),
    [
        (np.zeros((6, 6)), sample_problems(10, 6, [0, 1]), ValueError,
         r"problem must be one unbatched MemoryProblem"),
        (np.zeros((5, 6)), sample_problem(10, 6, seed=0), ValueError,
         r"W must be a finite matrix of shape \(d, d\) = \(6, 6\), got \(5, 6\)"),
        (np.full((6, 6), np.nan), sample_problem(10, 6, seed=0), ValueError,
         r"W must be a finite matrix"),  # not finite
        ([[0.0] * 6] * 6, sample_problem(10, 6, seed=0), TypeError,
         r"W must be a numpy array or torch tensor, got list"),
        (np.zeros((6, 6)), "problem", TypeError, r"problem must be a MemoryProblem, got str"),
    ],
)  # fmt: skip
def test_bad_inputs(W: object, problem: object, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        cross_entropy_loss_and_grad(W, problem)  # type: ignore[arg-type]
