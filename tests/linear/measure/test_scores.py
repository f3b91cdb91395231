"""Tests of score_statistics (assocmem.linear.instances.problems): hand-built memories, batching,
errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import (
    MemoryProblem,
)
from assocmem.linear.instances.sampling import (
    sample_problem,
    sample_problems,
)
from assocmem.linear.measure.scores import (
    mechanism_report,
    mechanism_scores,
    score_statistics,
    simulate_scores,
    spread_summary,
)
from assocmem.linear.storage.training import hebbian_memory


def test_sigma_w_matches_expectation() -> None:
    sim = simulate_scores(50, 20, n_instances=400, seed=2)
    assert float((sim["sigma_w"] ** 2).mean()) == pytest.approx(50 / 400, rel=0.02)


def test_seed_reproducible() -> None:
    a = simulate_scores(12, 6, n_instances=2, seed=4)
    b = simulate_scores(12, 6, n_instances=2, seed=4)
    assert np.array_equal(a["target"].numpy(), b["target"].numpy())
    assert a["nontarget"].shape == (2, 12, 11)


def test_mechanism_report_prints_the_hand_computed_numbers() -> None:
    def st(target, comp):
        t, m = np.array(target), np.array(comp)
        return {"target": t, "max_competitor": m, "gap": t - m, "p": 100, "d": 32}

    stats = {"hebbian": st([1.0, 3.0], [2.0, 2.0]), "trained": st([4.0, 4.5], [3.0, 3.5])}
    rs = {"level": np.array([3.0, 5.0]), "n_active": np.array([2, 3]), "raw_max": np.array([6.0])}
    cap = {"level": np.array([2.0, 2.0]), "n_active": np.array([4, 4]), "raw_max": np.zeros(1)}
    lines = mechanism_report(stats, rs, cap, margin=0.5).splitlines()
    # alpha = 100 log 100 / 32^2 = 0.450; sqrt(2 log 100) = 3.03
    assert lines[0] == "p = 100, d = 32, alpha = 0.450, sqrt(2 log p) = 3.03"
    # std (ddof 1): Hebbian sqrt 2 = 1.41, trained sqrt(0.125) = 0.35, ratio 4.0
    assert lines[1] == "target std: Hebbian 1.41, trained 0.35, ratio 4.0"
    assert lines[2] == "trained: target mean 4.25, max competitor mean 3.25, gap mean 1.00"
    assert (
        lines[3] == "RS max-margin (kappa0 = 0.50): T* = 4.00 +- 1.00, pushed competitors k = 2.5,"
    )
    assert lines[5] == "RS at capacity (kappa0 = 0): T* = 2.00 +- 0.00, k = 4.0"


def test_score_statistics_units() -> None:
    prob = sample_problem(300, 32, decoupled=True, seed=0)
    q, _ = torch.linalg.qr(torch.randn(32, 32, generator=torch.Generator().manual_seed(0)))
    W = 3.0 * q  # orthogonal W: |W e| = 3 |e| exactly, so only the embeddings fluctuate
    st = score_statistics(W, prob)
    # competitor scores have unit variance in units of sigma_W = |W|_F / d
    assert np.var(st["competitor"]) == pytest.approx(1.0, rel=0.05)
    assert st["target"].shape == (300,) and st["max_competitor"].shape == (300,)
    with pytest.raises(ValueError, match=r"W is identically zero"):
        score_statistics(torch.zeros(32, 32), prob)


def _orthonormal_problem() -> MemoryProblem:
    # p = 3 inputs and targets = standard basis vectors of R^3
    eye = torch.eye(3)
    return MemoryProblem(eye.clone(), eye.clone())


def test_hand_built_identity_memory() -> None:
    prob = _orthonormal_problem()
    w = torch.eye(3)
    st = score_statistics(w, prob)
    sigma = math.sqrt(3) / 3  # ||I||_F / d
    assert st["sigma_w"] == pytest.approx(sigma)
    np.testing.assert_allclose(st["target"], np.full(3, 1 / sigma))
    np.testing.assert_allclose(st["max_competitor"], np.zeros(3), atol=1e-12)
    np.testing.assert_allclose(st["gap"], np.full(3, 1 / sigma))


def test_hand_built_permutation_memory() -> None:
    prob = _orthonormal_problem()
    # W e_mu = 2 u_mu + u_{mu+1}: scores S[mu, mu] = 2, S[mu, mu+1] = 1; one input beaten
    w = 2 * torch.eye(3) + torch.roll(torch.eye(3), 1, dims=0)
    w[0, 2] = 5.0  # input 2 now scores 5 on target 0 > its target score 2
    st = score_statistics(w, prob)
    sigma = float(torch.linalg.norm(w)) / 3
    np.testing.assert_allclose(st["target"] * sigma, [2, 2, 2], rtol=1e-6)
    np.testing.assert_allclose(st["max_competitor"] * sigma, [1, 1, 5], rtol=1e-6)
    s = spread_summary(st)
    assert s["recalled"] == pytest.approx(2 / 3)
    assert s["extreme_value_level"] == pytest.approx(math.sqrt(2 * math.log(3)))


def test_batched_w_and_scale_invariance() -> None:
    prob = sample_problem(30, 12, seed=0)
    w = hebbian_memory(prob)
    st = score_statistics(torch.stack([w, 3.0 * w]), prob)
    assert st["target"].shape == (2, 30) and st["sigma_w"].shape == (2,)
    np.testing.assert_allclose(st["target"][0], st["target"][1], rtol=1e-5)
    np.testing.assert_allclose(st["sigma_w"][1] / st["sigma_w"][0], 3.0, rtol=1e-6)
    single = score_statistics(w.numpy(), prob)
    np.testing.assert_allclose(single["max_competitor"], st["max_competitor"][0], rtol=1e-5)


def test_batched_problem_dp_and_random_w_units() -> None:
    probs = sample_problems(200, 16, [0, 1], decoupled=True)
    g = torch.Generator().manual_seed(0)
    w = torch.randn(2, 16, 16, generator=g)
    st = score_statistics(w, probs)
    assert st["target"].shape == (2, 200)
    # random W: target scores ~ N(0, 1) and the max of p - 1 ~ sqrt(2 log p) minus a correction
    assert abs(st["target"].mean()) < 0.15
    assert st["target"].std() == pytest.approx(1.0, abs=0.15)
    assert 2.0 < st["max_competitor"].mean() < math.sqrt(2 * math.log(200))


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: score_statistics(torch.zeros(3, 3), _orthonormal_problem()), ValueError,
         r"W is identically zero"),
        (lambda: score_statistics(torch.eye(4), _orthonormal_problem()), ValueError,
         r"W must have shape \(d, d\) or \(B, d, d\) with d=3, got \(4, 4\)"),
        (lambda: score_statistics([[1.0]], _orthonormal_problem()), TypeError,
         r"W must be a torch tensor or numpy array, got list"),
        (lambda: score_statistics(torch.eye(3), "problem"), TypeError,
         r"problem must be a MemoryProblem, got str"),
    ],
)  # fmt: skip
def test_bad_inputs_raise(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()


def test_mechanism_scores_pools_seeds() -> None:
    st = mechanism_scores(40, 16, seeds=2, steps=200, lr=0.05)
    assert set(st) == {"hebbian", "trained"}
    assert st["trained"]["target"].shape == (2, 40)  # (seeds, p)
    assert 0.0 <= st["hebbian"]["accuracy"] <= st["trained"]["accuracy"] <= 1.0
