"""Tests of assocmem.linear.instances.sampling."""

from __future__ import annotations

import pytest
import torch
from assocmem.linear.instances.sampling import (
    check_memory,
    dp_memory_bytes,
    instance_stream,
    sample_problem,
    sample_problems,
)
from assocmem.linear.theory.load import load_for_pairs, pairs_for_load


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pairs_for_load("1", 16), r"alpha must be a real number, got str"),
        (lambda: pairs_for_load(0.5, 16.0), r"d must be an integer, got float"),
        (lambda: load_for_pairs(True, 16), r"p must be an integer, got bool"),
        (lambda: sample_problem(8.0, 8), r"p must be an integer, got float"),
    ],
)
def test_bad_types_raise_type_error(call, match) -> None:
    with pytest.raises(TypeError, match=match):
        call()


def test_sampling_is_seeded_and_shapes() -> None:
    a = sample_problem(7, 5, seed=3)
    b = sample_problem(7, 5, seed=3)
    c = sample_problem(7, 5, seed=4)
    dp = sample_problem(7, 5, decoupled=True, seed=3)
    assert a.inputs.shape == (7, 5) and a.targets.shape == (7, 5) and a.competitors is None
    assert dp.competitors is not None and dp.competitors.shape == (7, 6, 5)
    assert a.inputs.dtype == torch.float32
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.targets, b.targets)
    assert not torch.equal(a.inputs, c.inputs)
    # OP and DP with the same seed share inputs and targets
    assert torch.equal(a.inputs, dp.inputs) and torch.equal(a.targets, dp.targets)
    assert (a.p, a.d, a.decoupled, dp.decoupled, a.batched) == (7, 5, False, True, False)
    # a single problem is instance 0 of its root; a batch's problem i is instance seeds[i]
    batch = sample_problems(7, 5, [0, 1], seed=3, decoupled=True)
    assert batch.batched and batch.batch_size == 2
    assert [(s.entropy, s.spawn_key) for s in batch.stream] == [(3, (5, 7, 0)), (3, (5, 7, 1))]
    assert torch.equal(batch[0].competitors, dp.competitors)
    assert not torch.equal(batch[1].inputs, c.inputs)  # instance 1 of root 3 is not root 4's
    assert torch.equal(sample_problems(7, 5, [0], seed=4)[0].inputs, c.inputs)
    # the seeds rule: an int n means range(n)
    keys = [s.spawn_key for s in sample_problems(7, 5, 3).stream]
    assert (
        keys
        == [instance_stream(0, 7, 5, i).spawn_key for i in range(3)]
        == [(5, 7, 0), (5, 7, 1), (5, 7, 2)]
    )


def test_embedding_law_is_n_0_identity_over_d() -> None:
    prob = sample_problem(4000, 50, seed=0)
    x = prob.inputs.double()
    assert float(x.mean()) == pytest.approx(0.0, abs=3e-3)
    assert float(x.var()) == pytest.approx(1 / 50, rel=0.02)
    assert float((x.pow(2).sum(1)).mean()) == pytest.approx(1.0, rel=0.01)  # |e| ~ 1


def test_dp_memory_limit() -> None:
    assert dp_memory_bytes(1000, 64) == 4 * 1000 * 999 * 64
    with pytest.raises(MemoryError, match="GiB"):
        sample_problem(200_000, 512, decoupled=True)
    with pytest.raises(MemoryError, match=r"test needs [\d.]+ GiB but only .* free on cpu"):
        check_memory(10**18, "cpu", what="test")
    check_memory(1024, "cpu")


def test_newcomer_bad_inputs() -> None:
    with pytest.raises(TypeError, match="decoupled"):
        sample_problem(4, 8, decoupled="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seeds"):
        sample_problems(4, 8, 5.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="repeat"):
        sample_problems(4, 8, [3, 3])
    with pytest.raises(ValueError, match="seed"):
        sample_problem(4, 8, seed=-1)
    with pytest.raises(TypeError, match="seed must be an int >= 0 or a numpy.random.SeedSequence"):
        sample_problem(4, 8, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(MemoryError, match="inputs and targets"):
        sample_problem(10**6, 10**5)
