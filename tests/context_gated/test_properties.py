"""Property-based input checks of :mod:`assocmem.context_gated` (issue 29, item 3).

Harness: tests/_properties.py. Each case is a small valid call (N = 4 memories in d = 2 or 3,
a few trials, short horizons); hypothesis replaces one domain argument at a time by arbitrary
values and the function must return a finite result or raise ValueError/TypeError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from _properties import (
    KINDS,
    PROPERTY_SETTINGS,
    Case,
    Kind,
    _array_invalid,
    _int_kind,
    _real_kind,
    corrupt_array,
    property_tests,
)
from assocmem.context_gated import (
    experiments,
    fixed_point,
    hysteresis,
    instances,
    model,
    onestep,
    theory,
    transitions,
    winner,
)
from hypothesis import given
from hypothesis import strategies as st

# an optional size: None (the documented default) or an integer >= 1
_size = _int_kind(1)
KINDS.setdefault(
    "size_or_none",
    Kind(_size.draw, lambda v: v is not None and _size.invalid(v)),
)
# a time step or horizon of an ODE integration (dt, t_end, t_max, kappa): positive like
# "positive", but the in-range draws are kept within [0.05, 5] so that no example integrates
# for millions of steps (t_end = 1e6 or dt = 1e-300 are valid and only slow); zero, negative,
# non-finite and non-real values are drawn as in "positive"
_pos = KINDS["positive"]
KINDS.setdefault(
    "duration",
    Kind(
        st.one_of(
            st.floats(0.05, 5.0),
            st.floats(-1e6, 0.0),
            st.sampled_from([0.0, -1e-300, math.nan, math.inf, -math.inf, True, None, "1"]),
        ),
        _pos.invalid,
    ),
)


# the damping of the fixed-point map: in (0, 1]
KINDS.setdefault("unit_right_closed", _real_kind(0.0, 1.0, lo_open=True, hi_open=False))


def _array_or_none(name: str, valid: Any) -> str:
    """Register (once) a kind: arrays like ``valid`` corrupted as kind "array", or None (the
    documented default of an optional array argument); return its name."""
    KINDS.setdefault(
        name,
        Kind(st.one_of(corrupt_array(valid), st.none()),
             lambda v: v is not None and _array_invalid(v)),
    )  # fmt: skip
    return name


def _z(N: int = 4, d: int = 3, seed: int = 0) -> torch.Tensor:
    """Unit-norm memories (N, d), float64."""
    return instances.sample_memories(N, d, seed=seed)


def _a(alpha: float = 0.1, N: int = 4, d: int = 3) -> torch.Tensor:
    return theory.gate_matrix(_z(N, d), alpha)


def _bu(B: int = 3, N: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return (torch.randn(B, N, generator=g, dtype=torch.float64),
            torch.randn(B, N, generator=g, dtype=torch.float64))  # fmt: skip


def _spectrum() -> tuple[torch.Tensor, torch.Tensor]:
    return theory.competition_spectrum(_z())


def _memory() -> model.ContextGatedMemory:
    return model.ContextGatedMemory(_z(), alpha=0.1, lam=1.0, beta=3.0)


def _onestep_result() -> onestep.OneStepResult:
    return onestep.one_step_experiment(
        N=4, d=3, sigma_q=(0.5, 1.0), lambdas=(0.0, 1.0), trials=30, seed=0
    )


def _winner_result() -> winner.WinnerTimeResult:
    return winner.winner_time_experiment((0.5, 1.5, 3.0), N=4, d=2, trials=4, t_max=20.0)


_ONESTEP = _onestep_result()
_WINNER = _winner_result()
_X = np.linspace(0.0, 10.0, 40)
_Y = np.exp(-_X) + 1e-3


def _shape(expected: tuple[int, ...]) -> Any:
    def check(out: Any) -> None:
        assert tuple(out.shape) == expected, (tuple(out.shape), expected)

    return check


_MEM = {"memories": "array"}
CASES: list[Case] = [
    # ------------------------------------------------------------------ instances, experiments
    Case(instances.grid_index, lambda: ((np.array([0.0, 1.0, 4.0]), 4.0, "lam"), {}),
         {"grid": "array", "value": "real"}),
    Case(instances.grid_label, lambda: ((2.5,), {}), {"value": "real"}),
    Case(instances.sample_memories, lambda: ((4, 3), {"seed": 1}),
         {"N": "p", "d": "size", "seed": "count0"}, check=_shape((4, 3))),
    Case(instances.sample_clustered_memories, lambda: ((4, 3), {"trials": 2, "seed": 1}),
         {"N": "p", "d": "size", "trials": "size_or_none", "centroid_norm": "nonnegative",
          "spread": "positive", "seed": "count0"}, check=_shape((2, 4, 3))),
    Case(instances.noisy_cue, lambda: ((_z()[0], 0.5), {"n": 5, "seed": 2}),
         {"memory": "array", "sigma": "nonnegative", "seed": "count0", "n": "size_or_none"},
         check=_shape((5, 3))),
    Case(instances.cued_trials, lambda: ((4, 3, 0.1, 0.3, [0.5, 1.0], 5), {"noise": "unit",
                                                                      "seed": 1}),
         {"N": "p", "d": "size", "alpha": "nonnegative", "sigma_c": "nonnegative",
          "sigma_q": "array", "trials": "size", "seed": "count0"},
         check=lambda c: _shape((2, 5, 3))(c.queries)),
    Case(experiments.relax_gate_retrieval,
         lambda: ((*_bu(), _a(), 1.0, 3.0), {"t_end": 1.0, "max_steps": 200, "polish_iter": 10}),
         {"b": "array", "u": "array", "A": "array", "lam": "nonnegative", "beta": "positive",
          "tau_s": "duration", "tau_r": "duration", "dt": "duration", "kappa": "duration",
          "t_end": "duration", "max_steps": "size", "tol": "positive"},
         check=lambda out: _shape((3, 4))(out[0])),
    Case(experiments.relax_gate_retrieval,
         lambda: ((*_bu(), _a(), 1.0, 3.0), {"t_end": 1.0, "max_steps": 200, "polish_iter": 10}),
         {"polish_iter": "count0"},
         nan_ok="the residual is inf with polish_iter = 0 (no polishing; documented)"),
    Case(experiments.separation_experiment,
         lambda: ((), {"N": 4, "d": 3, "sigma_q": [0.5], "lambdas": [0.0, 1.0], "trials": 4,
                       "t_end": 1.0, "dt": 0.5, "progress": False}),
         {"N": "p", "d": "size", "beta": "positive", "alpha": "nonnegative",
          "sigma_c": "nonnegative",
          "sigma_q": _array_or_none("sigma_q_or_none", np.array([0.5])),
          "lambdas": "array", "trials": "size", "dt": "duration", "kappa": "duration",
          "t_end": "duration", "seed": "count0"},
         nan_ok="accuracy_se is NaN where it cannot be formed (documented on SeparationResult)"),
    # ------------------------------------------------------------------ fixed_point
    Case(fixed_point.fixed_point_trial,
         lambda: ((), {"N": 4, "d": 3, "max_iter": 50}),
         {"alpha": "nonnegative", "lam": "nonnegative", "beta": "positive",
          "noise": "nonnegative", "sigma_c": "nonnegative", "N": "p", "d": "size",
          "seed": "count0", "max_iter": "size"},
         nan_ok="contraction is inf when alpha >= alpha_crit (documented: no stable fixed point)"),
    # ------------------------------------------------------------------ hysteresis
    Case(hysteresis.hysteresis_sweep,
         lambda: ((np.array([0.2, 0.6]), (1.0, 2.0)),
                  {"N": 4, "d": 2, "trials": 2, "max_iter": 30}),
         {"alphas": "array", "lambdas": "array", "N": "p", "d": "size", "beta": "positive",
          "trials": "size", "max_iter": "size", "tol": "positive", "sigma_init": "nonnegative",
          "seed": "count0"}),
    Case(hysteresis.map_jacobian_radius,
         lambda: ((torch.linalg.inv(_a()), torch.full((2, 4), 0.25, dtype=torch.float64)),
                  {"lam": 1.0, "beta": 3.0}),
         {"M": "array", "p": "array", "lam": "nonnegative", "beta": "positive"},
         check=_shape((2,))),
    Case(hysteresis.fixed_point_energy,
         lambda: ((torch.linalg.inv(_a()), *_bu()[::-1]), {"lam": 1.0, "beta": 3.0,
                                                          "b": _bu()[0]}),
         {"M": "array", "u": "array", "r": "array", "lam": "nonnegative", "beta": "positive",
          "b": _array_or_none("b_or_none", _bu()[0])}, check=_shape((3,))),
    # ------------------------------------------------------------------ model
    Case(model.ContextGatedMemory, lambda: ((_z(),), {"alpha": 0.1, "lam": 1.0, "beta": 3.0}),
         {"memories": "array", "alpha": "nonnegative", "lam": "nonnegative",
          "beta": "positive"}),
    Case(model.ContextGatedMemory,
         lambda: ((_z(),), {"alpha": 0.1, "lam": 1.0, "beta": 3.0,
                            "W_h1": torch.eye(4, 2, dtype=torch.float64)}),
         {"W_h1": _array_or_none("W_h1_or_none", torch.eye(4, 2, dtype=torch.float64))}),
    Case(model.ContextGatedMemory.initial_state,
         lambda: ((_memory(), _z()[:2], torch.ones(2, 3, dtype=torch.float64)), {}),
         {"q": "array", "c": "array"}),
    Case(model.ContextGatedMemory.integrate,
         lambda: ((_memory(), _memory().initial_state(_z()[:2], torch.ones(2, 3))),
                  {"t_end": 0.5, "dt": 0.1, "record_every": 2}),
         {"t_end": "duration", "dt": "duration", "record_every": "size"}),
    # ------------------------------------------------------------------ onestep
    Case(onestep.top_gap,
         lambda: ((_bu()[0], torch.tensor([0, 2, 3])), {}),
         {"x": "array", "target": "array"}, check=_shape((3,))),
    Case(onestep.gap_decomposition,
         lambda: ((*_bu(), 1.0, torch.tensor([0, 2, 3])), {}),
         {"b": "array", "s": "array", "lam": "nonnegative", "target": "array"}),
    Case(onestep.one_step_update, lambda: ((_z(), _bu()[0], 3.0), {}),
         {"memories": "array", "r": "array", "beta": "positive"}, check=_shape((3, 3))),
    Case(onestep.one_step_error_bound, lambda: ((np.array([0.0, 1.0, 8.0]), 4), {}),
         {"beta_delta": "array", "N": "p", "M": "positive"}, check=_shape((3,))),
    Case(onestep.one_step_experiment,
         lambda: ((), {"N": 4, "d": 3, "sigma_q": (0.5,), "lambdas": (0.0, 1.0), "trials": 5}),
         {"N": "p", "d": "size", "beta": "positive", "alpha": "nonnegative",
          "sigma_c": "nonnegative", "sigma_q": "array", "lambdas": "array", "trials": "size",
          "seed": "count0"}),
    Case(onestep.binned_quantile,
         lambda: ((_X.copy(), _Y.copy(), np.array([0.0, 5.0, 10.5])),
                  {"min_count": 5, "n_boot": 100}),
         {"x": "array", "y": "array", "edges": "array", "q": "open_unit", "min_count": "size",
          "n_boot": "size", "seed": "count0"},
         nan_ok="bins with fewer than min_count samples are NaN (documented)"),
    Case(onestep.tail_slope, lambda: ((_X.copy(), _Y.copy()), {"x_min": 2.0, "n_boot": 100}),
         {"x": "array", "y": "array", "x_min": "real", "y_min": "nonnegative",
          "n_boot": "size", "seed": "count0"},
         nan_ok="NaN value and interval when fewer than 10 pairs remain (documented)"),
    Case(onestep.summarize_one_step,
         lambda: ((_ONESTEP,), {"sigma_index": 0, "x_min": 2.0,
                                "edges": np.array([-4.0, 0.0, 4.0, 8.0, 12.0])}),
         {"edges": _array_or_none("edges_or_none", np.array([-4.0, 0.0, 4.0, 8.0, 12.0])),
          "sigma_index": "count0", "x_min": "real", "seed": "count0"},
         nan_ok="empty bins and a tail of < 10 pairs are NaN (documented)"),
    # ------------------------------------------------------------------ theory
    Case(theory.as_memories, lambda: ((_z().numpy(),), {"normalize": True}), _MEM,
         check=_shape((4, 3))),
    Case(theory.gram, lambda: ((_z(),), {}), _MEM, check=_shape((4, 4))),
    Case(theory.competition_matrix, lambda: ((_z(),), {}), _MEM, check=_shape((4, 4))),
    Case(theory.competition_spectrum, lambda: ((_z(),), {}), _MEM),
    Case(theory.gate_matrix, lambda: ((_z(), 0.1), {}),
         {"memories": "array", "alpha": "nonnegative"}, check=_shape((4, 4))),
    Case(theory.alpha_crit, lambda: ((_z(),), {}), _MEM),
    Case(theory.alpha_crit_of_spectrum, lambda: ((_spectrum()[0],), {}), {"omega": "array"}),
    Case(theory.eta_min, lambda: ((_z(), 0.1), {}),
         {"memories": "array", "alpha": "nonnegative"}),
    Case(theory.gate_eigenvalues, lambda: ((_spectrum()[0], 0.1), {}),
         {"omega": "array", "alpha": "nonnegative"}, check=_shape((4,))),
    Case(theory.gate_inverse, lambda: ((*_spectrum(), 0.1), {}),
         {"omega": "array", "eigvecs": "array", "alpha": "nonnegative"},
         check=_shape((4, 4))),
    Case(theory.gate_inverse, lambda: ((*_spectrum(), np.array([0.1, 0.2])), {"sqrt": True}),
         {"alpha": "array"}, check=_shape((2, 4, 4))),
    Case(theory.contraction_constant, lambda: ((_z(), 0.1, 1.0, 3.0), {}),
         {"memories": "array", "alpha": "nonnegative", "lam": "nonnegative",
          "beta": "positive"},
         nan_ok="inf when A(alpha) is not positive definite (documented)"),
    Case(theory.coupled_alpha_crit, lambda: ((1.5, 1.0, 3.0, 4), {}),
         {"alpha_c": "positive", "lam": "nonnegative", "beta": "positive", "N": "p"}),
    Case(theory.coupled_alpha_crit, lambda: ((np.array([1.5, 2.0]), np.array([0.5, 1.0]), 3.0,
                                              4), {}),
         {"alpha_c": "array", "lam": "array"}),
    Case(theory.coupled_gain, lambda: ((1.0, 3.0, 4, 0.5), {}),
         {"lam": "nonnegative", "beta": "positive", "N": "p", "eta": "positive"}),
    Case(theory.coupled_gain, lambda: ((np.array([0.5, 1.0]), 3.0, 4, np.array([0.5, 1.0])), {}),
         {"lam": "array", "eta": "array"}),
    Case(theory.retrieval_threshold, lambda: ((4, 3.0, 0.1), {}),
         {"N": "p", "beta": "positive", "eps": "open_unit"}),
    Case(theory.retrieval_bound, lambda: ((np.array([0.0, 0.5, 2.0]), 4, 3.0), {}),
         {"delta": "array", "N": "p", "beta": "positive"}, check=_shape((3,))),
    Case(theory.gate_fixed_point, lambda: ((_bu()[1], _a()), {}), {"u": "array", "A": "array"},
         check=_shape((3, 4))),
    Case(theory.first_order_scores, lambda: ((*_bu(), _a(), 1.0), {}),
         {"b": "array", "u": "array", "A": "array", "lam": "nonnegative"},
         check=_shape((3, 4))),
    Case(theory.self_consistent_fixed_point,
         lambda: ((*_bu(), _a()), {"lam": 1.0, "beta": 3.0, "max_iter": 50}),
         {"b": "array", "u": "array", "A": "array", "lam": "nonnegative", "beta": "positive",
          "damping": "unit_right_closed", "max_iter": "size", "tol": "positive"}),
    Case(theory.decompose_fixed_point,
         lambda: ((*_bu(), _a(), torch.full((3, 4), 0.25, dtype=torch.float64)), {"lam": 1.0}),
         {"b": "array", "u": "array", "A": "array", "p": "array", "lam": "nonnegative"}),
    # ------------------------------------------------------------------ transitions
    Case(transitions.gate_state, lambda: ((*_spectrum(), _bu()[1], 0.5), {"t_end": 5.0}),
         {"eigvals": "array", "eigvecs": "array", "u": "array", "alpha": "nonnegative",
          "t_end": "duration", "eta_floor": "nonnegative"}, check=_shape((3, 4))),
    Case(transitions.gate_transition,
         lambda: ((np.array([0.5, 1.5]),), {"N": 4, "d": 2, "trials": 3, "t_end": 5.0,
                                            "progress": False}),
         {"alphas": "array", "N": "p", "d": "size", "beta": "positive", "trials": "size",
          "t_end": "duration", "eta_floor": "nonnegative", "sigma_init": "nonnegative",
          "seed": "count0"}),
    # ------------------------------------------------------------------ winner
    Case(winner.critical_projector, lambda: ((_z(4, 2),), {}),
         {"memories": "array", "rtol": "nonnegative"}, check=_shape((4, 4))),
    Case(winner.scale_for_winner, lambda: ((_bu()[0], 3.0, 0.05), {}),
         {"direction": "array", "beta": "positive", "delta": "open_unit"},
         check=_shape((3,)),
         nan_ok="inf where the largest entry is not unique (documented)"),
    Case(winner.predicted_winner_time,
         lambda: ((_z(4, 2), _bu()[1][0], np.array([0.5, 1.5])), {"beta": 3.0}),
         {"memories": "array", "u": "array", "alphas": "array", "beta": "positive",
          "delta": "open_unit", "tau_s": "duration"},
         nan_ok="t_kernel inf where never reached, t_eq47 NaN for gamma <= 0 (documented)"),
    Case(winner.winner_time_experiment,
         lambda: ((np.array([0.5, 3.0]),), {"N": 4, "d": 2, "trials": 2, "t_max": 10.0}),
         {"alphas": "array", "N": "p", "d": "size", "beta": "positive", "delta": "open_unit",
          "trials": "size", "t_max": "duration", "dt": "duration", "seed": "count0"},
         nan_ok="t_measured is inf where no winner emerges before t_max (documented)"),
    Case(winner.winner_fraction_crossing, lambda: ((_WINNER, 5.0), {"n_boot": 100}),
         {"horizon": "positive", "n_boot": "size", "seed": "count0"},
         nan_ok="NaN when the fraction does not cross 1/2 inside the grid (documented)"),
]  # fmt: skip

_RECORD = "a result record; its producer is a case above"
EXEMPT: dict[str, str] = {
    "assocmem.context_gated.experiments.SeparationResult": _RECORD,
    "assocmem.context_gated.instances.CuedTrials": _RECORD,
    "assocmem.context_gated.fixed_point.FixedPointTrial": _RECORD,
    "assocmem.context_gated.hysteresis.HysteresisResult": _RECORD,
    "assocmem.context_gated.model.State": "a named tuple of tensors (checked by initial_state)",
    "assocmem.context_gated.model.Trajectory": _RECORD,
    "assocmem.context_gated.onestep.OneStepResult": _RECORD,
    "assocmem.context_gated.onestep.OneStepSummary": _RECORD,
    "assocmem.context_gated.theory.FixedPoint": _RECORD,
    "assocmem.context_gated.transitions.GateTransitionResult": _RECORD,
    "assocmem.context_gated.winner.WinnerTimeResult": _RECORD,
}


(
    test_valid_call_gives_a_finite_result,
    test_any_value_gives_a_finite_result_or_a_clear_error,
    test_every_public_function_is_covered,
) = property_tests(CASES, EXEMPT, ["assocmem.context_gated"])


def test_documented_infinities_are_where_the_docs_say() -> None:
    """scale_for_winner: inf exactly where the largest entry is tied (its nan_ok reason)."""
    out = winner.scale_for_winner(torch.tensor([[1.0, 1.0, 0.0], [2.0, 1.0, 0.0]]), 3.0, 0.05)
    assert math.isinf(float(out[0])) and math.isfinite(float(out[1]))


@PROPERTY_SETTINGS
@given(
    exponent=st.floats(-300, 300),
    d=st.integers(1, 8),
    as_tensor=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_unit_norm_rows_at_any_magnitude(
    exponent: float, d: int, as_tensor: bool, seed: int
) -> None:
    """Issue 42, item 13: ``as_memories(rows of norm 1e-160, normalize=True)`` gave norms of
    1.0000056 (the squares were subnormal); every row is now of unit norm to rounding, whatever
    its magnitude, and a zero row is refused by its index."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((3, d)) * 10.0 ** (exponent + rng.uniform(-3, 3, size=(3, 1)))
    if not np.all(np.abs(z).max(axis=1) > 0) or not np.all(np.isfinite(z)):
        return  # a row underflowed to zero (or overflowed) in the draw itself
    zn = theory.as_memories(torch.as_tensor(z) if as_tensor else z, normalize=True)
    norms = torch.linalg.vector_norm(zn, dim=-1)
    assert torch.allclose(norms, torch.ones(3, dtype=norms.dtype), rtol=0, atol=4e-16), norms
    # the direction is kept: a positive multiple of the input row
    ratio = zn.numpy() / z
    assert np.allclose(ratio[:, :1], ratio, rtol=1e-12, atol=0)


def test_a_zero_memory_row_is_refused_by_its_index() -> None:
    z = np.array([[1e-160, 0.0], [0.0, 0.0], [0.0, 1e200]])
    with pytest.raises(ValueError, match=r"memories row \(1,\) is zero"):
        theory.as_memories(z, normalize=True)
    out = theory.as_memories(np.array([[3e-160, 4e-160], [0.0, 1e200]]), normalize=True)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.0, 1.0]], rtol=1e-15, atol=0)
