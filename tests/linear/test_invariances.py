"""Invariances of Part I's engine as properties (issue 29, item 4).

- Recall depends on the associations, not on their order: relabelling the inputs (and, in the
  OP, the outputs with them) relabels the recall vector the same way.
- Recall is unchanged when the inputs and the outputs are rescaled by positive factors (every
  score scales by their product).
- The same seed gives the same numbers (instances, trained memories, sweep tables).
- A sweep's per-instance results do not depend on which other instances were trained in the
  same batch.

Examples per property: :data:`_properties.MAX_EXAMPLES` (derandomised); the exact LP's
invariances are in tests/linear/storage/test_lp.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import torch
from _properties import PROPERTY_SETTINGS
from assocmem.linear.instances.problems import MemoryProblem, recalled
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.measure.sweeps import capacity_sweep
from assocmem.linear.storage.training import hebbian_memory, train_memory
from hypothesis import given
from hypothesis import strategies as st

_sizes = st.tuples(st.integers(2, 14), st.integers(2, 8))


def _permuted(prob: MemoryProblem, perm: torch.Tensor) -> MemoryProblem:
    """The same associations listed in another order (a DP's private competitors move along)."""
    c = None if prob.competitors is None else prob.competitors[perm]
    return MemoryProblem(prob.inputs[perm], prob.targets[perm], c)


def _scaled(prob: MemoryProblem, a: float, b: float) -> MemoryProblem:
    """Inputs times ``a``, outputs (targets and competitors) times ``b``."""
    c = None if prob.competitors is None else prob.competitors * b
    return MemoryProblem(prob.inputs * a, prob.targets * b, c)


@PROPERTY_SETTINGS
@given(
    size=_sizes,
    decoupled=st.booleans(),
    seed=st.integers(0, 10**6),
    order=st.randoms(use_true_random=False),
    memory=st.sampled_from(["random", "hebbian"]),
)
def test_recall_follows_a_relabelling_of_the_associations(
    size: tuple[int, int], decoupled: bool, seed: int, order: Any, memory: str
) -> None:
    p, d = size
    prob = sample_problem(p, d, decoupled=decoupled, seed=seed)
    perm_list = list(range(p))
    order.shuffle(perm_list)
    perm = torch.tensor(perm_list)
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d, d, generator=g) if memory == "random" else hebbian_memory(prob)
    moved = _permuted(prob, perm)
    W_moved = W if memory == "random" else hebbian_memory(moved)
    torch.testing.assert_close(W_moved, W, rtol=1e-5, atol=1e-6)  # Hebb: a sum, order-free
    assert torch.equal(recalled(W, moved), recalled(W, prob)[perm])


@PROPERTY_SETTINGS
@given(
    size=_sizes,
    decoupled=st.booleans(),
    seed=st.integers(0, 10**6),
    ka=st.integers(-30, 30),
    kb=st.integers(-30, 30),
)
def test_recall_is_unchanged_by_positive_rescaling(
    size: tuple[int, int], decoupled: bool, seed: int, ka: int, kb: int
) -> None:
    # powers of two: exact in floating point, so the property holds bit for bit (any other
    # factor scales every score by a*b as well, up to one rounding per score)
    p, d = size
    prob = sample_problem(p, d, decoupled=decoupled, seed=seed)
    W = torch.randn(d, d, generator=torch.Generator().manual_seed(seed))
    assert torch.equal(recalled(W, _scaled(prob, 2.0**ka, 2.0**kb)), recalled(W, prob))


@PROPERTY_SETTINGS
@given(size=_sizes, decoupled=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_instance_in_any_batch(
    size: tuple[int, int], decoupled: bool, seed: int
) -> None:
    p, d = size
    a = sample_problem(p, d, decoupled=decoupled, seed=seed)  # instance 0 of the root seed
    b = sample_problem(p, d, decoupled=decoupled, seed=seed)
    batch = sample_problems(p, d, [1, 0], seed=seed, decoupled=decoupled)[1]
    for x in (b, batch):
        assert torch.equal(a.inputs, x.inputs) and torch.equal(a.targets, x.targets)
        if decoupled:
            assert torch.equal(a.competitors, x.competitors)  # type: ignore[arg-type]


def test_training_is_reproducible_and_independent_of_its_batch() -> None:
    """One instance trained alone, twice, and inside a batch of others: the same W."""
    d, p, seeds = 6, 14, [3, 5, 8]
    for rank in (None, 3):
        alone = [train_memory(sample_problems(p, d, [s])[0], rank=rank, steps=60) for s in seeds]
        again = train_memory(sample_problems(p, d, [seeds[0]])[0], rank=rank, steps=60)
        torch.testing.assert_close(again.weights, alone[0].weights, rtol=0, atol=0)
        batch = train_memory(sample_problems(p, d, seeds), rank=rank, steps=60)
        for i, res in enumerate(alone):
            # bit for bit for a few steps; later, float32 rounding of the batched products
            # (measured: 8e-6 of max|W| full rank, 5e-5 factored, after 60 steps)
            scale = float(res.weights.abs().max())
            torch.testing.assert_close(batch.weights[i], res.weights, rtol=0, atol=3e-4 * scale)
            assert batch.perfect_step[i] == res.perfect_step  # type: ignore[index]


def _sweep(seeds: list[int], method: str) -> pd.DataFrame:
    return capacity_sweep(
        4, [0.6, 1.2], method=method, seeds=seeds, steps=200, progress=False
    ).sort_values(["alpha", "seed"], ignore_index=True)


def test_a_sweep_table_does_not_depend_on_how_its_instances_were_batched() -> None:
    """Same decisions per instance whichever instances share its batch.

    Decisions (stored or not, accuracy) must agree exactly. The step at which training first
    stores everything agrees up to float32 rounding of the batched products, which can move a
    first-perfect step that sits near the threshold (measured at d = 5: 239 against 246 of 300
    steps, one instance of eight); a coupling of the instances (a shared step size, a shared stop)
    would move far more.
    """
    for method in ("train", "hebbian"):
        whole = _sweep([0, 1, 2, 3], method)
        parts = pd.concat([_sweep([0, 2], method), _sweep([3], method), _sweep([1], method)])
        parts = parts.sort_values(["alpha", "seed"], ignore_index=True)
        keep = [c for c in whole.columns if c != "seconds"]  # wall-clock time: not a result
        assert whole[keep].equals(_sweep([0, 1, 2, 3], method)[keep])  # same seeds, same table
        exact = [c for c in keep if c != "steps"]
        pd.testing.assert_frame_equal(whole[exact], parts[exact])
        np.testing.assert_allclose(whole["steps"], parts["steps"], rtol=0.05)
