"""Tests of assocmem.linear.storage.training (CE + Adam engine, Hebbian rule); the LP is in
test_lp.py."""

from __future__ import annotations

import assocmem.linear.storage.training as training
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from _tolerances import gamma
from assocmem.linear.instances.problems import (
    MemoryProblem,
    all_recalled,
    recall_accuracy,
    score_matrix,
)
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.storage.training import (
    _BatchAdam,
    _forward,
    _fused_adam_available,
    hebbian_memory,
    train_memory,
    training_flops,
)
from assocmem.linear.theory.load import pairs_for_load
from assocmem.streams import child, torch_generator


def test_rank_one_cannot_store_many_pairs():
    # a rank-1 memory W = q r^T scores candidate nu for input mu as (u_nu . q)(r . e_mu): every
    # input picks either the argmax or the argmin of u . q, so at most 2 associations are recalled
    problem = sample_problem(12, 16, seed=3)
    res = train_memory(problem, rank=1, steps=300, lr=0.02)
    assert not res.perfect
    assert res.accuracy <= 2 / 12 + 1e-6


@pytest.fixture(params=["fused", "foreach"])
def adam_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the engine's fused Adam, and again with the foreach fallback forced."""
    if request.param == "fused":
        if not _fused_adam_available(torch.device("cpu")):
            pytest.skip("this torch build has no fused Adam on the CPU")
    else:
        monkeypatch.setitem(training._FUSED_ADAM, "cpu", False)
    return request.param


@pytest.mark.parametrize(("decoupled", "p"), [(False, 20), (True, 20), (False, 700)])
def test_analytic_gradient_matches_autograd(decoupled: bool, p: int) -> None:
    # p = 700 > 512: the OP score matrix is processed in several row blocks on the CPU
    batch = sample_problems(p, 6, [0, 1], decoupled=decoupled)
    W = torch.randn(2, 6, 6, generator=torch.Generator().manual_seed(0), requires_grad=True)
    S = score_matrix(W, batch)
    target = torch.arange(p).repeat(2)
    loss = F.cross_entropy(S.reshape(-1, p), target, reduction="none").view(2, p).mean(-1)
    loss.sum().backward()
    rec, loss_mu, _, grad = _forward(
        W.detach().clone(), batch.inputs, batch.targets, batch.competitors
    )
    assert grad is not None
    torch.testing.assert_close(grad, W.grad, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(loss_mu.mean(-1), loss.detach(), rtol=1e-5, atol=1e-6)
    # recall from the engine's scores and from score_matrix: two paths of float32 products, so
    # they must agree wherever the target's margin over the best competitor exceeds what the two
    # roundings can move it: each score u^T W e is within gamma_2d |u|^T |W| |e| of exact on
    # either path (d sums of d products, then one of d), so a margin moves by at most 4 times
    # the largest such bound between the paths
    rec_ref = S.detach().argmax(-1) == torch.arange(p)
    we = torch.einsum("bij,bmj->bmi", W.detach().abs(), batch.inputs.abs())  # |W| |e_mu|
    outs = batch.targets if batch.competitors is None else batch.competitors.flatten(1, 2)
    bound = torch.einsum("bnd,bmd->bmn", outs.abs(), we).amax((-2, -1))  # per problem
    tol = 4 * gamma(2 * 6) * bound[:, None]
    Sd = S.detach()
    best_other = Sd.masked_fill(torch.eye(p, dtype=torch.bool), -torch.inf).amax(-1)
    decided = (Sd.diagonal(dim1=-2, dim2=-1) - best_other).abs() > tol
    assert decided.float().mean() > 0.9  # the comparison covers nearly every input
    assert torch.equal(rec[decided], rec_ref[decided])


@pytest.mark.parametrize("decoupled", [False, True])
def test_gradient_keeps_precision_when_every_association_is_stored(decoupled: bool) -> None:
    # Every association stored with a margin of >= 20 nats: 1 - P[mu, mu] < 1e-8 is below float32
    # rounding of 1, so a gradient built from (P - onehot) loses the target's term; the engine
    # must not (the old implementation had a relative error of ~0.7 here).
    p = 40
    batch = sample_problems(p, 64, [0], decoupled=decoupled)
    W = hebbian_memory(batch)
    S = score_matrix(W, batch)[0]
    margin = S.diagonal() - S.masked_fill(torch.eye(p, dtype=torch.bool), -torch.inf).amax(-1)
    assert float(margin.min()) > 0  # the Hebbian memory stores every association here
    W = W * (20.0 / float(margin.min()))
    W64 = W.double().requires_grad_(True)
    c64 = None if batch.competitors is None else batch.competitors.double()
    S64 = score_matrix(W64, MemoryProblem(batch.inputs.double(), batch.targets.double(), c64))
    F.cross_entropy(S64.reshape(-1, p), torch.arange(p)).backward()
    _, loss, _, grad = _forward(W, batch.inputs, batch.targets, batch.competitors)
    assert grad is not None
    ref = W64.grad.float()
    assert float(ref.norm()) > 0
    assert float((grad - ref).norm() / ref.norm()) < 1e-4
    # per-input loss log(1 + sum_{nu != mu} e^{s_mu,nu - s_mu,mu}) ~ e^-20 is kept too (float64
    # reference written with log1p; below e^-80 the engine's clamp leaves < p e^-80 ~ 1e-33)
    S64 = S64.detach()[0]
    gap = (S64 - S64.diagonal()[:, None]).masked_fill(torch.eye(p, dtype=torch.bool), -torch.inf)
    loss_ref = torch.log1p(gap.exp().sum(-1))
    assert float(loss_ref.max()) > 1e-12  # losses below float32 rounding of 1
    torch.testing.assert_close(loss[0].double(), loss_ref, rtol=1e-3, atol=1e-30)


@pytest.mark.parametrize("decoupled", [False, True])
def test_engine_follows_torch_adam_on_autograd(decoupled: bool, adam_kind: str) -> None:
    # the plain loop a user would write: autograd, F.cross_entropy, torch.optim.Adam; compared
    # after every step (a k-step run of the engine applies updates 1..k)
    prob = sample_problem(30, 8, decoupled=decoupled, seed=3)
    W = torch.zeros(8, 8, requires_grad=True)
    opt = torch.optim.Adam([W], lr=0.5)
    for k in range(1, 7):
        loss = F.cross_entropy(score_matrix(W, prob), torch.arange(30))
        opt.zero_grad()
        loss.backward()
        opt.step()
        res = train_memory(prob, steps=k, lr=0.5, early_stop=False)
        torch.testing.assert_close(res.weights, W.detach(), rtol=1e-4, atol=1e-5)
        assert res.steps == k
    assert float(W.detach().norm()) > 1.0  # it moved


def test_factored_engine_follows_torch_adam_on_autograd(adam_kind: str) -> None:
    # rank = m: Adam on Q and R with the chain rule written out, against autograd on Q R^T
    d, m, p = 8, 3, 20
    prob = sample_problem(p, d, seed=1)
    g = torch_generator(child(prob.stream, 0, 5))  # the factors: a child of the instance's stream
    Q = (torch.randn(d, m, generator=g) * (0.1 / d**0.5)).requires_grad_(True)
    R = (torch.randn(d, m, generator=g) * (0.1 / d**0.5)).requires_grad_(True)
    opt = torch.optim.Adam([Q, R], lr=0.5)
    for k in range(1, 6):
        loss = F.cross_entropy(score_matrix(Q @ R.T, prob), torch.arange(p))
        opt.zero_grad()
        loss.backward()
        opt.step()
        res = train_memory(prob, rank=m, steps=k, lr=0.5, seed=5, early_stop=False)
        assert res.factors is not None
        torch.testing.assert_close(res.factors[0], Q.detach(), rtol=1e-4, atol=1e-6)
        torch.testing.assert_close(res.factors[1], R.detach(), rtol=1e-4, atol=1e-6)
        torch.testing.assert_close(res.weights, (Q @ R.T).detach(), rtol=1e-4, atol=1e-6)
    assert float(Q.detach().norm()) > 1.0  # it moved (from norm ~0.1)


def test_batch_adam_slices_state_when_problems_retire(adam_kind: str) -> None:
    # three problems with two parameters each (like Q, R); problem 1 retires after 3 steps.
    # Each survivor must follow its own torch.optim.Adam (the class, per-parameter for-loop
    # implementation) as if it had trained alone.
    gen = torch.Generator().manual_seed(0)
    n_steps, retire_at = 7, 3
    grads = [
        [torch.randn(3, 5, 4, generator=gen), torch.randn(3, 4, 2, generator=gen)]
        for _ in range(n_steps)
    ]
    start = [torch.randn(3, 5, 4, generator=gen), torch.randn(3, 4, 2, generator=gen)]
    eng = _BatchAdam([x.clone() for x in start], 0.3, (0.8, 0.99), 1e-6)
    assert eng.fused == (adam_kind == "fused")
    keep = torch.tensor([True, False, True])
    for t in range(n_steps):
        if t == retire_at:
            eng.select(keep)
        gr = grads[t] if t < retire_at else [g[keep] for g in grads[t]]
        eng.step(gr)
    assert [x.shape[0] for x in eng.params] == [2, 2]
    for x, m, v, step in zip(eng.params, eng.exp_avg, eng.exp_avg_sq, eng.state_steps, strict=True):
        assert m.shape == x.shape and v.shape == x.shape
        assert float(step) == n_steps  # one step count for the whole batch
    for row, i in enumerate([0, 2]):
        ref = [x[i].clone() for x in start]
        opt = torch.optim.Adam(ref, lr=0.3, betas=(0.8, 0.99), eps=1e-6, foreach=False)
        for t in range(n_steps):
            for x, g in zip(ref, grads[t], strict=True):
                x.grad = g[i]
            opt.step()
        for x, r, s0 in zip(eng.params, ref, start, strict=True):
            torch.testing.assert_close(x[row], r, rtol=1e-6, atol=1e-6)
            assert float((r - s0[i]).abs().max()) > 0.5  # it moved


def test_fallback_adam_reproduces_fused_training(monkeypatch: pytest.MonkeyPatch) -> None:
    # the foreach fallback follows the fused path to float32 rounding over a short run (over a
    # long one, rounding differences may move a perfect step), and stores the same problems
    if not _fused_adam_available(torch.device("cpu")):
        pytest.skip("this torch build has no fused Adam on the CPU")
    d = 16
    batch = sample_problems(pairs_for_load(0.8, d), d, [0, 1, 2, 3])

    def runs() -> list:
        short = {"steps": 12, "early_stop": False}
        long = {"steps": 300, "check_every": 10, "patience": 200}
        return [
            train_memory(batch, **short),
            train_memory(batch, rank=8, **short),
            train_memory(batch, **long),
            train_memory(batch, rank=8, **long),
        ]

    fused = runs()
    monkeypatch.setitem(training._FUSED_ADAM, "cpu", False)
    plain = runs()
    for f, r in zip(fused[:2], plain[:2], strict=True):
        torch.testing.assert_close(r.weights, f.weights, rtol=1e-4, atol=1e-4)
        assert float(f.weights.norm()) > 1.0
    for f, r in zip(fused[2:], plain[2:], strict=True):
        assert all(s is not None for s in f.perfect_step)
        assert all(s is not None for s in r.perfect_step)
        np.testing.assert_array_equal(r.accuracy, 1.0)
        assert np.all(all_recalled(r.weights, batch))


def test_hebbian_equals_explicit_sum() -> None:
    prob = sample_problem(9, 5, seed=2)
    W = hebbian_memory(prob)
    ref = sum(torch.outer(prob.targets[m], prob.inputs[m]) for m in range(9))
    torch.testing.assert_close(W, ref)
    batch = sample_problems(9, 5, [0, 3], seed=2)  # instance 0 of root 2 is sample_problem's
    torch.testing.assert_close(hebbian_memory(batch)[0], W)
    with pytest.raises(TypeError, match=r"problem must be a MemoryProblem, got Tensor"):
        hebbian_memory(W)


@pytest.mark.parametrize("decoupled", [False, True])
def test_training_stores_below_capacity(decoupled: bool) -> None:
    d = 32
    p = pairs_for_load(0.5, d)
    batch = sample_problems(p, d, [0, 1], decoupled=decoupled)
    res = train_memory(batch, steps=1000)
    assert all(s is not None for s in res.perfect_step)
    np.testing.assert_array_equal(res.accuracy, 1.0)
    assert np.all(all_recalled(res.weights, batch))
    assert np.all(res.steps == np.array(res.perfect_step))
    assert res.perfect.all()
    # history: accuracy 0 at W_0 = 0, loss log p at W_0 = 0
    assert res.history["accuracy"][0, 0] == 0.0
    assert res.history["loss"][0, 0] == pytest.approx(np.log(p), rel=1e-5)


def test_training_fails_above_capacity() -> None:
    d = 32
    p = pairs_for_load(2.0, d)
    batch = sample_problems(p, d, [0, 1])
    res = train_memory(batch, steps=1500, patience=200)
    assert res.perfect_step == [None, None]
    assert np.all(res.accuracy < 0.5)
    assert np.all(res.steps < 1000)  # stall stop saved most of the budget
    dp = sample_problem(pairs_for_load(2.0, 16), 16, decoupled=True, seed=0)
    r = train_memory(dp, steps=600, patience=300)
    assert r.perfect_step is None and r.accuracy < 0.6


def test_batched_equals_one_at_a_time() -> None:
    d = 24
    p = pairs_for_load(0.8, d)
    seeds = [0, 1, 2]
    batch = sample_problems(p, d, seeds, decoupled=True)
    rb = train_memory(batch, steps=400, check_every=20)
    for i, s in enumerate(seeds):
        one = sample_problems(p, d, [s], decoupled=True)[0]
        r1 = train_memory(one, steps=400, check_every=20)
        assert r1.perfect_step == rb.perfect_step[i]
        assert r1.steps == rb.steps[i]
        torch.testing.assert_close(r1.weights, rb.weights[i], rtol=1e-3, atol=1e-3)
        assert r1.accuracy == pytest.approx(rb.accuracy[i])


def test_perfect_step_is_exact_and_snapshot_is_perfect() -> None:
    d = 16
    p = pairs_for_load(0.8, d)
    prob = sample_problem(p, d, seed=0)
    coarse = train_memory(prob, steps=500, check_every=100)
    fine = train_memory(prob, steps=500, check_every=1)
    assert coarse.perfect_step == fine.perfect_step is not None
    torch.testing.assert_close(coarse.weights, fine.weights)
    assert all_recalled(coarse.weights, prob)
    # one step fewer than the perfect step is not perfect
    before = train_memory(prob, steps=fine.perfect_step - 1, check_every=1)
    assert before.perfect_step is None and before.accuracy < 1.0


def test_early_stop_off_runs_full_budget() -> None:
    prob = sample_problem(pairs_for_load(0.4, 16), 16, seed=0)
    r = train_memory(prob, steps=300, early_stop=False, check_every=50)
    assert r.steps == 300 and r.perfect_step is not None
    assert list(r.history["step"]) == [0, 50, 100, 150, 200, 250, 300]
    # the final W (larger norm than the first perfect one), still perfect on this easy problem
    first = train_memory(prob, steps=300)
    assert float(r.weights.norm()) > float(first.weights.norm())
    assert r.accuracy == 1.0


def test_rank_constrained_training() -> None:
    d, m = 32, 8
    prob = sample_problem(pairs_for_load(0.2, d), d, seed=0)
    r = train_memory(prob, rank=m, steps=2000)
    assert r.factors is not None
    Q, R = r.factors
    assert Q.shape == (d, m) and R.shape == (d, m)
    torch.testing.assert_close(r.weights, Q @ R.T)
    assert int(torch.linalg.matrix_rank(r.weights)) <= m
    assert r.perfect_step is not None
    # reproducible initialisation
    r2 = train_memory(prob, rank=m, steps=2000)
    torch.testing.assert_close(r.weights, r2.weights)
    # rank 1 cannot store many pairs at this load
    r1 = train_memory(prob, rank=1, steps=300, patience=200)
    assert r1.perfect_step is None


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"steps": 0}, ValueError, r"steps must be an integer >= 1, got 0"),
        ({"lr": 0.0}, ValueError, r"lr must be a finite number > 0, got 0\.0"),
        ({"lr": -1.0}, ValueError, r"lr must be a finite number > 0, got -1\.0"),
        ({"check_every": 0}, ValueError, r"check_every must be an integer >= 1, got 0"),
        ({"rank": 0}, ValueError, r"rank must be an integer >= 1, got 0"),
        ({"rank": 9}, ValueError, r"rank must be in \[1, d=8\], got 9"),
        ({"patience": 0}, ValueError, r"patience must be an integer >= 1, got 0"),
        ({"betas": (0.9, 1.0)}, ValueError,
         r"betas must be two numbers in \[0, 1\), got \(0\.9, 1\.0\)"),
        ({"steps": 1.5}, TypeError, r"steps must be an integer, got float"),
    ],
)  # fmt: skip
def test_train_memory_bad_inputs(kwargs: dict, exc: type, match: str) -> None:
    prob = sample_problem(10, 8, seed=0)
    with pytest.raises(exc, match=match):
        train_memory(prob, **kwargs)


def test_train_memory_rejects_mixed_batches() -> None:
    with pytest.raises(ValueError, match=r"all problems must share p, d and decoupled"):
        train_memory([sample_problem(10, 8), sample_problem(11, 8)], steps=5)
    with pytest.raises(TypeError, match=r"problems must be a MemoryProblem or .*, got str"):
        train_memory("problem", steps=5)


def test_training_flops_formula() -> None:
    assert training_flops(100, 10) == 4 * 100**2 * 10 + 4 * 100 * 10**2
    assert training_flops(100, 10, rank=2) == training_flops(100, 10) + 6 * 100 * 2


def test_accuracy_of_trained_weights_matches_recall_accuracy() -> None:
    prob = sample_problem(pairs_for_load(1.5, 16), 16, seed=1)
    r = train_memory(prob, steps=200)
    assert r.accuracy == pytest.approx(recall_accuracy(r.weights, prob))


def test_lr_bound() -> None:
    prob = sample_problem(4, 8, seed=0)
    with pytest.raises(ValueError, match="lr"):
        train_memory(prob, steps=2, lr=1e38, progress=False)


def test_factors_follow_the_problem_seed_not_its_batch_position() -> None:
    p = pairs_for_load(0.3, 12)
    alone = train_memory(sample_problems(p, 12, [1]), rank=3, steps=40, early_stop=False)
    pair = train_memory(sample_problems(p, 12, [0, 1]), rank=3, steps=40, early_stop=False)
    # same start (before the fix: other factors, a different W); batch size only moves rounding
    torch.testing.assert_close(alone.weights[0], pair.weights[1], rtol=1e-3, atol=1e-3)


def test_record_weights_snapshots_are_the_trained_weights() -> None:
    d = 12
    p = pairs_for_load(0.6, d)
    batch = sample_problems(p, d, seeds=[0, 1, 2])
    plain = train_memory(batch, steps=120, early_stop=False, check_every=30)
    rec = train_memory(batch, steps=120, early_stop=False, check_every=30, record_weights=True)
    # recording changes nothing else
    torch.testing.assert_close(rec.weights, plain.weights, rtol=0, atol=0)
    assert rec.perfect_step == plain.perfect_step
    assert "weights" not in plain.history
    snaps = rec.history["weights"]
    assert snaps.shape == (5, 3, d, d) and snaps.dtype == np.float32
    assert np.all(snaps[0] == 0.0)  # W_0 = 0
    np.testing.assert_array_equal(snaps[-1], rec.weights.numpy())
    # the snapshot at step 60 is W after 60 updates (full-rank training is deterministic)
    short = train_memory(batch, steps=60, early_stop=False, check_every=30)
    np.testing.assert_array_equal(snaps[2], short.weights.numpy())


def test_record_weights_nan_after_a_problem_stops() -> None:
    d = 12
    prob = sample_problem(pairs_for_load(0.4, d), d, seed=0)
    r = train_memory(prob, steps=200, check_every=5, record_weights=True)
    assert r.perfect_step is not None
    snaps, steps = r.history["weights"], r.history["step"]
    assert snaps.shape == (len(steps), d, d)
    # the problem retires at the first check step at or after its perfect step
    last = int(np.flatnonzero(np.isfinite(snaps[:, 0, 0]))[-1])
    assert steps[last] >= r.perfect_step and steps[last] - r.perfect_step < 5
    with pytest.raises(TypeError, match="record_weights"):
        train_memory(prob, steps=5, record_weights=1)  # type: ignore[arg-type]
