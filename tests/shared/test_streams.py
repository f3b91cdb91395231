"""Random streams (assocmem.streams): one root per experiment, independent keyed children.

What the book relies on: (a) two instances of a sweep never share a stream, nor do two sweeps
with different roots; (b) a sweep's rows do not change when it is batched differently or its
instances are reordered; (c) the same root gives the same numbers.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import torch
from assocmem.linear.instances.sampling import instance_stream, sample_problems
from assocmem.linear.measure.scores import hebbian_recall_check
from assocmem.linear.measure.sweeps import capacity_sweep
from assocmem.linear.theory.finite_size import finite_size_table
from assocmem.linear.theory.load import pairs_for_load
from assocmem.streams import (
    as_seed_sequence,
    child,
    key_of,
    numpy_rng,
    streams,
    torch_generator,
    torch_seed,
)

D = 8
ALPHAS = [0.4, 0.8, 1.2]


# --- the helper ----------------------------------------------------------------------------------


def test_child_is_exactly_spawns_child() -> None:
    spawned = np.random.SeedSequence(7).spawn(3)
    for i in range(3):
        assert np.array_equal(child(7, i).generate_state(4), spawned[i].generate_state(4))
    grand = np.random.SeedSequence(7).spawn(3)[2].spawn(5)[4]
    assert np.array_equal(child(7, 2, 4).generate_state(4), grand.generate_state(4))
    # streams(root, n) are spawn(n)'s children, and the root passed in is not advanced
    root = np.random.SeedSequence(7)
    a, b = streams(root, 2), streams(root, 2)
    assert root.n_children_spawned == 0
    assert [s.spawn_key for s in a] == [s.spawn_key for s in b] == [(0,), (1,)]
    # a child of a child extends the key
    assert child(child(7, 2), 4).spawn_key == (2, 4)


def test_same_root_same_numbers_other_root_other_numbers() -> None:
    assert np.array_equal(numpy_rng(3).random(5), numpy_rng(3).random(5))
    assert np.array_equal(numpy_rng(3).random(5), np.random.default_rng(3).random(5))
    assert not np.array_equal(numpy_rng(3).random(5), numpy_rng(4).random(5))
    x = torch.randn(6, generator=torch_generator(child(3, 1)))
    assert torch.equal(x, torch.randn(6, generator=torch_generator(child(3, 1))))
    assert not torch.equal(x, torch.randn(6, generator=torch_generator(child(3, 2))))
    assert 0 <= torch_seed(child(3, 1)) < 2**63
    assert torch_generator(5).initial_seed() == torch_seed(np.random.SeedSequence(5))


def test_bad_seeds_name_the_argument() -> None:
    with pytest.raises(TypeError, match="root must be an int >= 0 or a numpy.random.SeedSequence"):
        as_seed_sequence(1.5, "root")
    with pytest.raises(TypeError, match="seed must be an int"):
        child(True, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        numpy_rng(-1)
    with pytest.raises(ValueError, match=r"key\[1\] must be an integer >= 0"):
        child(0, 1, -2)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        streams(0, 0)
    with pytest.raises(TypeError, match="seed must be an int"):
        torch_generator("0")  # type: ignore[arg-type]


# --- (a) no two instances share a stream ---------------------------------------------------------


def _first_draws(seed: int, seeds: range) -> dict[tuple[int, int, int], np.ndarray]:
    """First input row of every instance of a sweep over ALPHAS, keyed (root, p, label)."""
    out = {}
    for alpha in ALPHAS:
        p = pairs_for_load(alpha, D)
        batch = sample_problems(p, D, seeds, seed=seed)
        for i, s in enumerate(seeds):
            out[seed, p, s] = batch.inputs[i, 0].numpy().copy()
    return out


def test_instances_of_sweeps_never_share_a_stream() -> None:
    draws = _first_draws(0, range(5)) | _first_draws(1, range(5))
    assert len(draws) == 2 * len(ALPHAS) * 5
    for (ka, a), (kb, b) in itertools.combinations(draws.items(), 2):
        assert not np.allclose(a, b), f"instances {ka} and {kb} start with the same draws"
    states = {
        tuple(instance_stream(r, pairs_for_load(a, D), D, s).generate_state(2))
        for r in (0, 1)
        for a in ALPHAS
        for s in range(5)
    }
    assert len(states) == len(draws)


def test_one_label_at_two_loads_is_not_one_nested_draw() -> None:
    # with a stream per label (the old torch.manual_seed(s)), instance s at the smaller load was
    # the first rows of instance s at the larger one; now the loads are independent
    small, large = sample_problems(10, D, [0]), sample_problems(20, D, [0])
    assert not torch.allclose(small.inputs[0], large.inputs[0, :10])


# --- (b) batching and order do not change the results -------------------------------------------


def test_sample_problems_in_two_batches_equals_one_batch() -> None:
    one = sample_problems(12, D, [0, 1, 2, 3], seed=5, decoupled=True)
    first, second = (
        sample_problems(12, D, [3, 2], seed=5, decoupled=True),
        sample_problems(12, D, [0, 1], seed=5, decoupled=True),
    )
    for i, (batch, j) in enumerate([(second, 0), (second, 1), (first, 1), (first, 0)]):
        assert torch.equal(one.inputs[i], batch.inputs[j])
        assert torch.equal(one.competitors[i], batch.competitors[j])


def _rows(table: pd.DataFrame) -> pd.DataFrame:
    keep = ["alpha", "p", "seed", "recalled_all", "accuracy", "steps"]
    return table[keep].sort_values(["alpha", "seed"], ignore_index=True)


@pytest.mark.parametrize(
    "kw",
    [{"method": "hebbian"}, {"method": "train", "rank": 3, "steps": 30, "patience": None}],
    ids=["hebbian", "train-factored"],
)
def test_a_sweep_reordered_or_rebatched_gives_the_same_rows(kw: dict) -> None:
    whole = capacity_sweep(D, ALPHAS, seeds=4, seed=2, progress=False, **kw)
    reordered = capacity_sweep(D, ALPHAS[::-1], seeds=[3, 1, 2, 0], seed=2, progress=False, **kw)
    parts = pd.concat(
        [
            capacity_sweep(D, [a], seeds=s, seed=2, progress=False, **kw)
            for a in ALPHAS
            for s in ([2, 0], [3, 1])
        ]  # fmt: skip
    )
    pd.testing.assert_frame_equal(_rows(whole), _rows(reordered))
    pd.testing.assert_frame_equal(_rows(whole), _rows(parts))
    # and another root is another set of instances
    other = capacity_sweep(D, ALPHAS, seeds=4, seed=3, progress=False, **kw)
    assert not _rows(other)["accuracy"].equals(_rows(whole)["accuracy"])


def test_theory_tables_do_not_depend_on_the_order_of_their_grid() -> None:
    check = hebbian_recall_check(6, [8, 12], n_instances=30, seed=4, n_boot=100)
    back = hebbian_recall_check(6, [12, 8], n_instances=30, seed=4, n_boot=100)
    pd.testing.assert_frame_equal(check, back.iloc[::-1].reset_index(drop=True))
    t = finite_size_table([6, 9], n_samples=200, seed=1)
    r = finite_size_table([9, 6], n_samples=200, seed=1)
    for key, col in t.items():
        np.testing.assert_array_equal(col, r[key][::-1], err_msg=key)


def test_named_purposes_are_keys_apart_from_positions() -> None:
    names = ["split", "split reserve", "prefixes", "label shift", "balanced sets",
             "set label shift", "probe folds", "set bootstrap", "subset"]  # fmt: skip
    keys = [key_of(n) for n in names]
    assert len(set(keys)) == len(names) and min(keys) >= 2**32
    assert child(0, "split").spawn_key == (key_of("split"),)
    assert key_of(7) == 7
    with pytest.raises(ValueError, match="non-empty name"):
        key_of("")
    with pytest.raises(TypeError, match="key"):
        key_of(1.0)
