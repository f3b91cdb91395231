"""Tests of assocmem.linear.storage.cone: the storing cone's wedges, plane sections and size."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from assocmem.linear.instances.problems import MemoryProblem, all_recalled
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.measure.implicit_bias import l2_max_margin
from assocmem.linear.storage.cone import (
    MAX_CONSTRAINT_ENTRIES,
    feasible_wedge,
    plane_section,
    stored_direction_fraction,
    target_wedges,
)
from assocmem.linear.storage.constraints import constraint_matrix
from assocmem.linear.storage.training import hebbian_memory

#: chapter 1's worked example: unit inputs and targets in the plane
E_HAND = np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, -0.8]])
U_HAND = np.array([[0.6, 0.8], [-0.6, 0.8], [-0.8, -0.6]])


def _hand() -> MemoryProblem:
    return MemoryProblem(torch.tensor(E_HAND), torch.tensor(U_HAND))


def _inside_by_grid(normals: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.all(normals @ np.stack([np.cos(t), np.sin(t)]) > 0, axis=0)


def test_feasible_wedge_of_simple_half_planes() -> None:
    assert np.allclose(feasible_wedge([[1.0, 0.0], [0.0, 1.0]]), (0.0, math.pi / 2))
    assert np.allclose(feasible_wedge([[1.0, 0.0]]), (-math.pi / 2, math.pi / 2))
    assert feasible_wedge([[1.0, 0.0], [-1.0, 0.0]]) is None  # opposite half-planes
    assert feasible_wedge([[1.0, 0.0], [0.0, 0.0]]) is None  # 0 > 0 fails
    # a wedge around the negative x axis (it crosses the angle pi)
    lo, hi = feasible_wedge([[-1.0, 0.1], [-1.0, -0.1]])
    assert lo < math.pi < hi and np.isclose(hi - lo, math.pi - 2 * math.atan(0.1))


@pytest.mark.parametrize("seed", range(20))
def test_feasible_wedge_matches_a_fine_grid_of_directions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    normals = rng.standard_normal((int(rng.integers(1, 5)), 2))
    grid = np.linspace(-math.pi, 3 * math.pi, 400_001)
    inside = _inside_by_grid(normals, grid)
    wedge = feasible_wedge(normals)
    if wedge is None:
        assert not inside.any()
        return
    lo, hi = wedge
    assert -math.pi < lo <= math.pi and 0 < hi - lo < math.pi + 1e-12
    in_wedge = (grid > lo + 1e-9) & (grid < hi - 1e-9)
    near_edge = (np.abs(grid - lo) < 1e-4) | (np.abs(grid - hi) < 1e-4)
    # every grid direction strictly inside the wedge is feasible; outside it (one period), none
    assert inside[in_wedge].all()
    period = (grid > lo - math.pi) & (grid < lo + math.pi)
    assert not inside[period & ~in_wedge & ~near_edge].any()


def test_feasible_wedge_refuses_bad_normals() -> None:
    with pytest.raises(ValueError, match="shape"):
        feasible_wedge(np.ones((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        feasible_wedge([[np.nan, 1.0]])


def test_target_wedges_of_the_worked_example_are_the_bisector_wedges() -> None:
    # unit targets at 53.13, 126.87 and 216.87 degrees: the wedges end on the bisectors
    wedges = np.degrees(target_wedges(_hand()))
    assert np.allclose(wedges, [[-45.0, 90.0], [90.0, 171.869898], [171.869898, 315.0]])
    with pytest.raises(ValueError, match="d = 2"):
        target_wedges(sample_problem(4, 3, seed=0))


def test_a_target_inside_the_others_hull_has_no_wedge() -> None:
    u = torch.tensor([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [-0.2, 0.0]], dtype=torch.float64)
    e = torch.eye(2, dtype=torch.float64).repeat(2, 1)
    wedges = target_wedges(MemoryProblem(e, u))
    assert wedges[3] is None and all(w is not None for w in wedges[:3])


def test_plane_section_of_the_worked_example() -> None:
    hand = _hand()
    W_h = hebbian_memory(hand).numpy()
    W_s = l2_max_margin(hand).weights
    section = plane_section(hand, W_h, W_s)
    lo, hi = section.wedge
    # the Hebbian memory (angle 0) fails association 2; the max-margin one stores all three
    assert 0 < lo < section.angles[1] < hi
    b1, b2 = section.basis
    assert np.isclose(np.sum(b1 * b2), 0) and np.allclose([np.sum(b1**2), np.sum(b2**2)], 1)
    # the normals give the margins of any memory of the plane
    x, y = 0.3, -1.7
    A = constraint_matrix(hand)
    assert np.allclose(section.normals.reshape(-1, 2) @ [x, y], A @ (x * b1 + y * b2).ravel())
    # inside the wedge every memory stores; just outside either edge, none does
    for t, stores in ((0.5 * (lo + hi), True), (lo - 1e-3, False), (hi + 1e-3, False)):
        assert bool(all_recalled(math.cos(t) * b1 + math.sin(t) * b2, hand)) is stores


def test_plane_section_refuses_a_degenerate_plane() -> None:
    hand = _hand()
    with pytest.raises(ValueError, match="parallel"):
        plane_section(hand, np.eye(2), 3 * np.eye(2))
    with pytest.raises(ValueError, match="non-zero"):
        plane_section(hand, np.zeros((2, 2)), np.eye(2))
    with pytest.raises(ValueError, match="shape"):
        plane_section(hand, np.eye(3), np.eye(2))


def test_stored_fraction_of_two_half_spaces_is_their_solid_angle() -> None:
    # p = 2: two constraints a_1 . w > 0 and a_2 . w > 0; a uniform direction satisfies both
    # with probability (pi - theta) / (2 pi), theta the angle between a_1 and a_2
    prob = sample_problem(2, 2, seed=3)
    A = constraint_matrix(prob)
    theta = math.acos(A[0] @ A[1] / np.linalg.norm(A[0]) / np.linalg.norm(A[1]))
    exact = (math.pi - theta) / (2 * math.pi)
    est = stored_direction_fraction(prob, 40_000, seed=1)
    assert est.n == 40_000 and est.method == "Wilson"
    assert est.low < exact < est.high and est.width < 0.012


def test_stored_fraction_in_one_dimension_is_a_half_or_zero() -> None:
    # d = 1: W is a number w; (u_1 - u_2) w e_1 > 0 and (u_2 - u_1) w e_2 > 0 hold for one sign of
    # w when e_1 e_2 < 0 (fraction 1/2) and never when e_1 e_2 > 0
    u = torch.tensor([[1.0], [-0.5]], dtype=torch.float64)
    half = stored_direction_fraction(MemoryProblem(torch.tensor([[1.0], [-2.0]],
                                     dtype=torch.float64), u), 4000, seed=0)  # fmt: skip
    none = stored_direction_fraction(MemoryProblem(torch.tensor([[1.0], [2.0]],
                                     dtype=torch.float64), u), 4000, seed=0)  # fmt: skip
    assert half.low < 0.5 < half.high and none.value == 0.0


def test_stored_fraction_is_reproducible_and_refuses_large_instances() -> None:
    hand = _hand()
    a = stored_direction_fraction(hand, 3000, seed=5)
    assert a == stored_direction_fraction(hand, 3000, seed=5)
    big = sample_problem(50, 8, seed=0)
    assert 50 * 49 * 64 > MAX_CONSTRAINT_ENTRIES
    with pytest.raises(ValueError, match="hand-sized"):
        stored_direction_fraction(big, 10)
    with pytest.raises(ValueError, match="n must be"):
        stored_direction_fraction(hand, 0)
