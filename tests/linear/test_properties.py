"""Property-based input checks of :mod:`assocmem.linear` (issue 29, item 3; harness: _properties).

Each case is a valid call; hypothesis replaces one domain argument at a time by arbitrary values
and the function must return a finite result or raise ValueError/TypeError (tests/_properties.py).
Embeddings reach the library through :class:`MemoryProblem`: the raw-array cases corrupt its
``inputs``/``targets``/``competitors``; the other cases take problems from ``sample_problem``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from _properties import (
    KINDS,
    Case,
    Kind,
    check_outcome,
    non_finite,
    property_tests,
    value_strategy,
)
from _properties import _array_invalid as array_invalid
from _properties import _is_real as is_real
from assocmem.linear.instances import problems, sampling
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.linear.instances.sampling import sample_problem, sample_problems
from assocmem.linear.measure import (
    implicit_bias,
    max_margin_spectra,
    measured_spectra,
    partial_storage,
    rank_transitions,
    scores,
    sweeps,
    tables,
    transitions,
)
from assocmem.linear.storage import cone, constraints, lp, max_margin, perceptron, training
from assocmem.linear.theory import extremes, finite_size, hebbian, load, mechanism, replica, spectra
from assocmem.linear.theory import perceptron as perceptron_theory
from hypothesis import strategies as st

# ------------------------------------------------------------------ local kinds (real p, d)


def _real_min_kind(minimum: float) -> Kind:
    """A real argument >= minimum (``p`` and ``d`` of the Gaussian-model formulas)."""
    base = KINDS["real"]
    return Kind(
        st.one_of(base.draw, st.floats(minimum - 1, minimum + 5)),
        lambda v: base.invalid(v) or float(v) < minimum,
    )


def _optional(kind: str) -> Kind:
    """A harness kind whose argument may also be ``None`` (documented: a default is used)."""
    base = KINDS[kind]
    return Kind(base.draw, lambda v: v is not None and base.invalid(v))


def _or_empty(base: Kind) -> Kind:
    """``base`` for an argument that may also be an array: an empty list is then not surely
    out of the domain (an empty array in, an empty array out)."""
    return Kind(base.draw, lambda v: not (isinstance(v, list) and not v) and base.invalid(v))


LOCAL_KINDS: dict[str, Kind] = {
    "real_p": _or_empty(_real_min_kind(2.0)),  # p and d of the formulas that take arrays too
    "real_d": _or_empty(_real_min_kind(1.0)),
    "positive_or_array": _or_empty(KINDS["positive"]),
    "opt_size": _optional("size"),
    "opt_positive": _optional("positive"),
}

#: Array kinds of arguments that may be ``None`` ("opt_array") or any array_like of real
#: numbers, a list included ("arraylike": elementwise functions, where an empty input gives an
#: empty result); drawn like the harness's "array".
ARRAY_KINDS = ("opt_array", "arraylike")


def _array_like_invalid(v: Any) -> bool:
    if isinstance(v, list):
        try:
            v = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            return True
    return array_invalid(v)


def _check(case: Case, arg: str, value: Any, kind: str) -> None:
    """:func:`_properties.check_outcome` for the harness's kinds and the local ones."""
    if kind not in LOCAL_KINDS and kind not in ARRAY_KINDS:
        check_outcome(case, arg, value, kind)
        return
    if kind == "opt_array":
        bad = value is not None and array_invalid(value)
    elif kind == "arraylike":
        bad = _array_like_invalid(value)
    else:
        bad = LOCAL_KINDS[kind].invalid(value)
    check_outcome(case, arg, value, kind, bad=bad)


def _strategy(case: Case, arg: str, kind: str) -> st.SearchStrategy[Any]:
    if kind in LOCAL_KINDS:
        return LOCAL_KINDS[kind].draw
    return value_strategy(case, arg, "array" if kind in ARRAY_KINDS else kind)


# ------------------------------------------------------------------------ small fixtures

P, D = 4, 3  # a tiny problem: p = 4 associations in d = 3


def _op() -> MemoryProblem:
    return sample_problem(P, D, seed=1)


def _dp() -> MemoryProblem:
    return sample_problem(P, D, decoupled=True, seed=2)


def _raw() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    e = torch.randn(P, D, generator=g, dtype=torch.float64)
    u = torch.randn(P, D, generator=g, dtype=torch.float64)
    c = torch.randn(P, P - 1, D, generator=g, dtype=torch.float64)
    return e, u, c


def _w() -> torch.Tensor:
    return torch.randn(D, D, generator=torch.Generator().manual_seed(4), dtype=torch.float64)


def _shape(want: tuple[int, ...]) -> Any:
    def check(out: Any) -> None:
        assert tuple(np.shape(out)) == want, (np.shape(out), want)

    return check


@functools.cache
def _sweep_cached() -> pd.DataFrame:
    return sweeps.capacity_sweep(
        4, [0.3, 1.2], seeds=2, steps=20, check_every=5, progress=False, keep_weights=True
    )


def _sweep() -> pd.DataFrame:
    return _sweep_cached().copy()


@functools.cache
def _rank_sweep_cached() -> pd.DataFrame:
    return sweeps.truncated_hebbian_sweep(4, [0.2, 0.5, 1.0, 2.0], [1, 4], seeds=4)


def _rank_sweep() -> pd.DataFrame:
    return _rank_sweep_cached().copy()


@functools.cache
def _rank_group_cached() -> pd.DataFrame:
    return sweeps.capacity_sweep(
        4, [0.3, 0.6], rank=2, seeds=2, steps=30, check_every=5, progress=False,
        keep_weights=True,
    )  # fmt: skip


def _rank_group() -> pd.DataFrame:
    return _rank_group_cached().copy()


def _synthetic(d: int = 40) -> pd.DataFrame:
    """A sweep table with a clear transition (the columns of capacity_sweep)."""
    rows = []
    flags = {0.5: [True] * 4, 0.8: [True, True, False, True], 1.1: [False, True, False, False],
             1.4: [False] * 4}  # fmt: skip
    for a, fl in flags.items():
        p = load.pairs_for_load(a, d)
        for s, f in enumerate(fl):
            rows.append({"method": "train", "problem": "op", "d": d, "rank": d, "kappa": 1.0,
                         "factored": False, "alpha": a, "load": load.load_for_pairs(p, d),
                         "p": p, "seed": s, "recalled_all": f, "accuracy": 1.0 if f else 0.9,
                         "steps": 10, "seconds": 0.0})  # fmt: skip
    return pd.DataFrame(rows, columns=list(sweeps.COLUMNS))


_UNI = extremes.sample_top_uniform_spacings(10, 3, 5, np.random.default_rng(0))
_Q_GRID = replica.rs_q_grid(12)

# ------------------------------------------------------------------------------- the cases

CASES: list[Case] = [
    # problems: raw arrays into MemoryProblem, and W against a sampled problem
    Case(
        MemoryProblem,
        lambda: (_raw(), {}),
        {"inputs": "array", "targets": "array", "competitors": "opt_array"},
    ),
    Case(MemoryProblem, lambda: (_raw()[:2], {}), {"inputs": "array", "targets": "array"}),
    Case(problems.score_matrix, lambda: ((_w(), _op()), {}), {"W": "array"}, check=_shape((P, P))),
    Case(problems.score_matrix, lambda: ((_w(), _dp()), {}), {"W": "array"}),
    Case(problems.recall_accuracy, lambda: ((_w(), _op()), {}), {"W": "array"}),
    Case(problems.all_recalled, lambda: ((_w(), _dp()), {}), {"W": "array"}),
    Case(problems.recalled, lambda: ((_w(), _op()), {}), {"W": "array"}, check=_shape((P,))),
    Case(problems.target_competitor_scores, lambda: ((_w(), _dp()), {}), {"W": "array"}),
    Case(problems.stack_problems, lambda: (([_op(), sample_problem(P, D, seed=5)],), {})),
    # sampling
    Case(
        sample_problem, lambda: ((P, D), {"seed": 0}), {"p": "p", "d": "size", "seed": "count0"}
    ),  # fmt: skip
    Case(
        sample_problem,
        lambda: ((P, D), {"seed": 0, "decoupled": True}),
        {"p": "p", "d": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        sample_problems,
        lambda: ((P, D, 2), {"seed": 1}),
        {"p": "p", "d": "size", "seeds": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        sampling.instance_stream,
        lambda: ((0, P, D, 1), {}),
        {"seed": "count0", "p": "p", "d": "size", "instance": "count0"},
    ),  # fmt: skip
    Case(
        sampling.dp_memory_bytes, lambda: ((P, D), {}), {"p": "p", "d": "size", "batch": "size"}
    ),  # fmt: skip
    Case(sampling.check_memory, lambda: ((0,), {}), {"nbytes": "count0", "fraction": "prob"}),
    # load
    Case(load.load_for_pairs, lambda: ((P, D), {}), {"p": "p", "d": "size"}),
    Case(load.pairs_at_load, lambda: ((0.5, 8), {}), {"alpha": "positive", "d": "size"}),
    Case(load.pairs_for_load, lambda: ((0.5, 8), {}), {"alpha": "positive", "d": "size"}),
    Case(load.dimension_for_load, lambda: ((0.5, 1e4), {}), {"alpha": "positive", "p": "positive"}),
    # training
    Case(
        training.train_memory,
        lambda: ((_op(),), {"steps": 20, "check_every": 5}),
        {
            "steps": "size",
            "check_every": "size",
            "lr": "opt_positive",
            "eps": "positive",
            "init_scale": "positive",
            "seed": "count0",
            "patience": "opt_size",
        },
    ),  # fmt: skip
    Case(
        training.train_memory, lambda: ((_dp(),), {"steps": 20, "rank": 2}), {"rank": "opt_size"}
    ),  # fmt: skip
    Case(training.cross_entropy_loss_and_grad, lambda: ((_w(), _op()), {}), {"W": "array"}),
    Case(training.hebbian_memory, lambda: ((_op(),), {}), check=_shape((D, D))),
    Case(
        training.training_flops, lambda: ((P, D), {}), {"p": "p", "d": "size", "rank": "opt_size"}
    ),  # fmt: skip
    # max margin (gradient)
    Case(
        max_margin.train_max_margin,
        lambda: ((sample_problems(P, D, 2), 2), {"steps": 10, "check_every": 5}),
        {
            "rank": "size",
            "steps": "size",
            "lr": "positive",
            "beta": "positive",
            "check_every": "size",
        },
    ),  # fmt: skip
    Case(
        problems.normalised_margins,
        lambda: (
            (torch.stack([_w(), _w()]).float(), sample_problems(P, D, 2)),
            {"norm": "gardner"},
        ),
        {"W": "array"},
    ),  # fmt: skip
    Case(
        max_margin.truncate_rank,
        lambda: ((_w(), 2), {}),
        {"W": "array", "rank": "size"},
        check=_shape((D, D)),
    ),
    # implicit bias (dense LP)
    Case(implicit_bias.l2_max_margin, lambda: ((sample_problem(3, 4, seed=0),), {})),
    Case(implicit_bias.linf_max_margin, lambda: ((sample_problem(3, 4, seed=0),), {})),
    Case(
        implicit_bias.least_distance,
        lambda: ((np.array([[1.0, 0.2], [0.3, 1.0]]),), {}),
        {"A": "array"},
    ),  # fmt: skip
    Case(problems.normalised_margins, lambda: ((_w(), _op()), {}), {"W": "array"}),
    Case(
        implicit_bias.margin_ratios,
        lambda: ((torch.eye(4, dtype=torch.float64), sample_problem(3, 4, seed=0)), {}),
        {"weights": "array"},
    ),  # fmt: skip
    Case(
        implicit_bias.margin_trajectories,
        lambda: ((sample_problems(3, 4, 2),), {"steps": 10, "check_every": 5}),
        {"steps": "size", "check_every": "size"},
    ),  # fmt: skip
    # scores
    Case(
        scores.simulate_scores,
        lambda: ((P, D), {"n_instances": 2}),
        {"p": "p", "d": "size", "n_instances": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        scores.hebbian_recall_check,
        lambda: ((4, [4, 6]), {"n_instances": 4, "n_boot": 100}),
        {
            "d": "size",
            "p_values": "array",
            "n_instances": "size",
            "seed": "count0",
            "n_boot": "size",
        },
        nan_ok="z_p1 is NaN when every instance has the same accuracy (no standard error)",
    ),  # fmt: skip
    Case(
        scores.recall_check_crossing,
        lambda: (
            (scores.hebbian_recall_check(8, [4, 16, 48], n_instances=8, n_boot=100),),
            {"n_draws": 50},
        ),  # fmt: skip
        {"n_draws": "size", "seed": "count0"},
        nan_ok="value is NaN when P(all) does not cross 1/2 between two of the check's loads",
    ),
    Case(scores.score_statistics, lambda: ((_w(), _op()), {}), {"W": "array"}),
    Case(
        scores.mechanism_scores,
        lambda: ((P, D), {"steps": 10}),
        {"p": "p", "d": "size", "seeds": "size", "steps": "size", "lr": "opt_positive"},
    ),
    # extremes
    Case(extremes.expected_max, lambda: ((10,), {}), {"n": "real_d"}),
    Case(extremes.expected_max_expansion, lambda: ((10,), {}), {"n": "real_p"}),
    Case(extremes.gumbel_location, lambda: ((10,), {}), {"n": "real_p"}),
    Case(extremes.gumbel_scale, lambda: ((10,), {}), {"n": "real_p"}),
    Case(
        extremes.sample_max,
        lambda: ((10, 5), {}),
        {"n": "size", "n_samples": "size", "seed": "count0"},
        check=_shape((5,)),
    ),
    Case(
        extremes.sample_top_order_statistics,
        lambda: ((10, 3, 5), {}),
        {"n": "size", "k": "size", "n_samples": "size", "seed": "count0"},
        check=_shape((5, 3)),
    ),  # fmt: skip
    Case(
        extremes.sample_top_uniform_spacings,
        lambda: ((10, 3, 5, np.random.default_rng(0)), {}),
        {"n": "size", "k": "size", "n_samples": "size"},
    ),  # fmt: skip
    Case(
        extremes.gaussians_from_spacings,
        lambda: ((_UNI.partial_sums.copy(), _UNI.total.copy()), {}),
        {"partial_sums": "array", "total": "array"},
        check=_shape((5, 3)),
    ),  # fmt: skip
    # replica
    Case(
        replica.cost,
        lambda: ((np.array([[0.1, 0.5, -0.3], [1.0, 0.0, 0.2]]),), {}),
        {"t": "array", "margin": "nonnegative"},
        check=_shape((2,)),
    ),  # fmt: skip
    Case(
        replica.cost_solution,
        lambda: ((np.array([[0.1, 0.5, -0.3]]),), {}),
        {"t": "array", "margin": "nonnegative"},
    ),  # fmt: skip
    Case(
        replica.expected_cost,
        lambda: ((P,), {"n_samples": 50}),
        {"p": "p", "n_samples": "size", "seed": "count0", "margin": "nonnegative"},
    ),
    Case(
        replica.rs_energetic_term,
        lambda: ((np.array([0.1, 0.5]), P), {"n_samples": 20}),
        {
            "q": "arraylike",
            "p": "p",
            "n_samples": "size",
            "seed": "count0",
            "margin": "nonnegative",
        },
    ),  # fmt: skip
    Case(
        replica.quenched_fields,
        lambda: ((P, 20), {}),
        {"p": "p", "n_samples": "size", "seed": "count0"},
        check=_shape((20, P)),
    ),
    Case(
        replica.rs_draws_capacity,
        lambda: ((P,), {"n_samples": 20, "n_boot": 200}),
        {
            "p": "p",
            "n_samples": "size",
            "seed": "count0",
            "margin": "nonnegative",
            "n_boot": "size",
            "boot_seed": "count0",
        },
        nan_ok="the upper end is inf when a resample of a few draws has zero mean cost",
    ),  # fmt: skip
    Case(
        replica.rs_free_entropy,
        lambda: ((np.array([0.1, 0.5]), 0.5, P), {"n_samples": 20}),
        {
            "q": "arraylike",
            "alpha": "positive",
            "p": "p",
            "n_samples": "size",
            "seed": "count0",
            "margin": "nonnegative",
        },
    ),  # fmt: skip
    Case(replica.rs_q_grid, lambda: ((12,), {}), {"n_grid": "size"}),
    Case(
        replica.rs_interpolants,
        lambda: (
            (_Q_GRID[0].copy(), replica.rs_energetic_term(_Q_GRID[1], P, n_samples=20)[0], P),
            {},
        ),
        {"u": "array", "g": "array", "p": "p"},
    ),  # fmt: skip
    Case(
        replica.rs_saddle,
        lambda: ((0.5, P), {"n_samples": 20, "n_grid": 10}),
        {
            "alpha": "positive",
            "p": "p",
            "n_samples": "size",
            "seed": "count0",
            "margin": "nonnegative",
            "n_grid": "size",
        },
    ),  # fmt: skip
    Case(
        replica.sample_cost_solutions,
        lambda: ((P, 10, 0.0, np.random.default_rng(0)), {}),
        {"p": "p", "n_samples": "size", "margin": "nonnegative", "k0": "size"},
    ),
    Case(
        replica.solve_sorted_fields,
        lambda: ((np.array([0.1, -0.2]), np.array([[0.5, 0.1], [0.3, -0.4]])), {}),
        {"t0": "array", "c": "array"},
    ),  # fmt: skip
    # mechanism
    Case(
        mechanism.margin_for_load,
        lambda: ((0.5, P), {"n_samples": 50}),
        {"alpha": "positive", "p": "p", "n_samples": "size", "seed": "count0"},
    ),
    Case(
        mechanism.optimal_mechanism,
        lambda: ((P,), {"n_samples": 50}),
        {"p": "p", "margin": "nonnegative", "n_samples": "size", "seed": "count0"},
    ),
    # finite size
    Case(
        finite_size.expected_cost_expansion,
        lambda: ((np.array([10.0, 100.0]),), {}),
        {"p": "arraylike"},
    ),  # fmt: skip
    Case(
        finite_size.finite_size_capacity,
        lambda: ((P,), {"n_samples": 50}),
        {"p": "p", "n_samples": "opt_size", "seed": "count0", "margin": "nonnegative"},
    ),
    Case(
        finite_size.finite_size_capacity_curve,
        lambda: ((np.array([4, 8]),), {"n_samples": 50}),
        {
            "p_values": "arraylike",
            "n_samples": "opt_size",
            "seed": "count0",
            "margin": "nonnegative",
        },  # fmt: skip
    ),
    Case(
        finite_size.finite_size_capacity_estimate,
        lambda: ((P,), {"rel_error": 0.2}),
        {"p": "p", "seed": "count0", "margin": "nonnegative", "rel_error": "positive"},
    ),
    Case(
        finite_size.finite_size_capacity_expansion,
        lambda: ((np.array([10.0, 100.0]),), {}),
        {"p": "arraylike"},
    ),  # fmt: skip
    Case(
        finite_size.finite_size_critical_load,
        lambda: ((0.5, 6), {"rel_error": 0.2}),
        {"kappa": "positive", "d": "size", "seed": "count0", "rel_error": "positive"},
    ),
    Case(
        finite_size.finite_size_table,
        lambda: ((np.array([5, 8]),), {"n_samples": 50}),
        {"p_values": "array", "seed": "count0", "n_samples": "size"},
    ),  # fmt: skip
    Case(
        finite_size.gardner_capacity, lambda: ((np.array([0.0, 0.5]),), {}), {"margin": "arraylike"}
    ),  # fmt: skip
    Case(
        finite_size.predicted_transition,
        lambda: ((6,), {"rel_error": 0.2}),
        {"d": "size", "seed": "count0", "margin": "nonnegative", "rel_error": "positive"},
    ),
    Case(
        finite_size.shortcut_capacity, lambda: ((np.array([10.0, 100.0]),), {}), {"p": "arraylike"}
    ),  # fmt: skip
    # hebbian (Gaussian-model formulas: p and d real)
    Case(hebbian.recall_probability, lambda: ((10.0, 8.0), {}), {"p": "real_p", "d": "real_d"}),
    Case(
        hebbian.recall_probability,
        lambda: ((np.array([4.0, 10.0]), np.array([8.0, 8.0])), {}),
        {"p": "arraylike", "d": "arraylike"},
    ),  # fmt: skip
    Case(
        hebbian.score_densities,
        lambda: ((np.linspace(-1, 2, 5), 10.0, 8.0), {}),
        {"x": "arraylike", "p": "real_p", "d": "real_d"},
    ),  # fmt: skip
    Case(hebbian.score_moments, lambda: ((10.0, 8.0), {}), {"p": "real_p", "d": "real_d"}),
    Case(hebbian.threshold, lambda: ((10.0,), {"criterion": "typical"}), {"p": "real_p"}),
    Case(
        hebbian.threshold_table,
        lambda: (([4.0],), {"criteria": ("typical",)}),
        {"p_values": "array"},
    ),  # fmt: skip
    # spectra
    Case(spectra.critical_load, lambda: ((np.array([0.25, 1.0]),), {}), {"kappa": "arraylike"}),
    Case(spectra.critical_load, lambda: ((0.5,), {}), {"kappa": "positive_or_array"}),
    Case(spectra.critical_load_marchenko_pastur, lambda: ((0.5,), {}), {"kappa": "positive"}),
    Case(spectra.critical_load_quadrature, lambda: ((0.5,), {}), {"kappa": "positive"}),
    Case(measured_spectra.fourth_moment_ratio, lambda: ((_w(),), {}), {"W": "array"}),
    Case(
        spectra.hebbian_critical_load,
        lambda: ((np.array([0.25, 1.0]),), {}),
        {"kappa": "arraylike"},
    ),  # fmt: skip
    Case(spectra.gaussian_fourth_moment, lambda: ((12,), {}), {"d": "size"}),
    Case(
        spectra.hebbian_fourth_moment, lambda: ((10.0, 8.0), {}), {"p": "positive", "d": "positive"}
    ),  # fmt: skip
    Case(
        spectra.marchenko_pastur_cdf, lambda: ((np.array([0.0, 1.0, 3.0]),), {}), {"x": "arraylike"}
    ),  # fmt: skip
    Case(
        spectra.marchenko_pastur_pdf, lambda: ((np.array([0.5, 1.0, 3.0]),), {}), {"x": "arraylike"}
    ),  # fmt: skip
    Case(
        spectra.quarter_circle_cdf, lambda: ((np.array([0.0, 1.0, 2.5]),), {}), {"s": "arraylike"}
    ),  # fmt: skip
    Case(
        spectra.quarter_circle_pdf, lambda: ((np.array([0.0, 1.0, 2.5]),), {}), {"s": "arraylike"}
    ),  # fmt: skip
    Case(
        spectra.quarter_circle_quantile,
        lambda: ((np.array([0.0, 0.5, 1.0]),), {}),
        {"q": "arraylike"},
    ),  # fmt: skip
    Case(
        measured_spectra.singular_values,
        lambda: ((_w(),), {"rank": 2}),
        {"W": "array", "rank": "opt_size"},
        check=_shape((2,)),
    ),  # fmt: skip
    Case(spectra.small_kappa_limit, lambda: ((), {}), {"rel_error": "positive"}),
    Case(
        measured_spectra.spectrum_ks_distance,
        lambda: ((np.array([0.5, 1.0, 1.3]),), {}),
        {"s": "array", "kappa": "positive"},
    ),  # fmt: skip
    Case(
        spectra.truncated_quarter_circle_cdf,
        lambda: ((np.array([0.0, 1.0, 1.5]), 0.5), {}),
        {"s": "arraylike", "kappa": "positive"},
    ),  # fmt: skip
    Case(
        spectra.truncated_quarter_circle_pdf,
        lambda: ((np.array([0.1, 1.0, 1.5]), 0.5), {}),
        {"s": "arraylike", "kappa": "positive"},
    ),  # fmt: skip
    Case(
        spectra.truncated_quarter_circle_quantile,
        lambda: ((np.array([0.0, 0.5, 1.0]), 0.5), {}),
        {"q": "arraylike", "kappa": "positive"},
    ),  # fmt: skip
    Case(
        spectra.truncated_second_moment,
        lambda: ((np.array([0.25, 1.0]),), {}),
        {"kappa": "arraylike"},
    ),  # fmt: skip
    Case(spectra.truncation_point, lambda: ((np.array([0.25, 1.0]),), {}), {"kappa": "arraylike"}),
    Case(
        measured_spectra.compare_fourth_moments,
        lambda: (
            (
                {"a W": np.array([1.0, 1.2, 1.1]), "b H": np.array([1.5, 1.6])},
                {"a vs b": ("a W", "b H")},
            ),
            {"n_perm": 50},
        ),
        {"n_perm": "size", "seed": "count0"},
    ),  # fmt: skip
    # partial storage
    Case(
        partial_storage.cheapest_subset_fraction,
        lambda: ((np.array([0.5, 1.0, 2.0, 3.0]), 2.0), {}),
        {"costs": "array", "budget": "nonnegative"},
    ),  # fmt: skip
    Case(
        partial_storage.give_up_fraction,
        lambda: ((8, 3), {"n_samples": 50}),
        {"p": "p", "d": "size", "n_samples": "size", "seed": "count0"},
    ),
    Case(
        partial_storage.random_subset_fraction,
        lambda: ((8, 3), {"rel_error": 0.2}),
        {"p": "p", "d": "size", "seed": "count0", "rel_error": "positive"},
    ),
    Case(
        partial_storage.small_problem_fraction,
        lambda: ((np.array([8, 12]), 3), {}),
        {"p": "arraylike", "d": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        partial_storage.subset_problem,
        lambda: ((_op(), 2), {}),
        {"n_keep": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        partial_storage.subset_sweep,
        lambda: ((4, [1.5]), {"steps": 10}),
        {"d": "size", "alphas": "array", "share": "positive", "steps": "size"},
    ),
    Case(partial_storage.accuracy_by_load, lambda: ((_sweep(),), {}), {"level": "open_unit"}),
    Case(
        partial_storage.accuracy_at,
        lambda: ((_sweep(),), {"load": 0.3}),
        {"load": "opt_positive", "level": "open_unit"},
        nan_ok="no interval (low, high NaN) when every instance has the same accuracy",
    ),  # fmt: skip
    # measured spectra (on a tiny rank-2 sweep group with its weights)
    Case(measured_spectra.stored_spectra, lambda: ((_sweep(),), {})),
    Case(
        measured_spectra.spectrum_fits, lambda: ((measured_spectra.stored_spectra(_sweep()),), {})
    ),  # fmt: skip
    Case(
        measured_spectra.spectrum_summary,
        lambda: (("x", torch.randn(2, D, D, dtype=torch.float64), sample_problems(P, D, 2), 2), {}),
        {"W": "array", "rank": "size"},
    ),  # fmt: skip
    Case(
        measured_spectra.spectrum_causes,
        lambda: ((_rank_group(),), {"n_memories": 2, "long_steps": 10, "margin_steps": 10}),
        {
            "n_memories": "size",
            "long_steps": "size",
            "lr": "positive",
            "margin_steps": "size",
            "margin_lr": "positive",
            "beta": "positive",
            "load": "opt_positive",
        },
    ),  # fmt: skip
    # exact max-margin spectra
    Case(
        max_margin_spectra.max_margin_spectra,
        lambda: ((3, 4), {"seeds": [0, 1], "n_perm": 50}),
        {"p": "p", "d": "size", "n_perm": "size", "seed": "count0"},
    ),  # fmt: skip
    Case(
        max_margin_spectra.spectrum_permutation_test,
        lambda: (
            (np.array([[1.0, 0.5], [1.2, 0.3]]), np.array([[0.9, 0.6], [1.1, 0.4]])),
            {"n_perm": 50},
        ),
        {"a": "array", "b": "array", "n_perm": "size", "seed": "count0"},
    ),  # fmt: skip
    # sweeps and their tables
    Case(
        sweeps.capacity_sweep,
        lambda: ((4, [0.3, 1.2]), {"seeds": 2, "steps": 10, "check_every": 5, "progress": False}),
        {
            "d": "size",
            "alphas": "array",
            "seeds": "size",
            "steps": "size",
            "check_every": "size",
            "lr": "opt_positive",
            "patience": "opt_size",
        },
    ),  # fmt: skip
    Case(
        sweeps.capacity_sweep,
        lambda: ((4, [0.3, 1.2]), {"seeds": 2, "method": "hebbian", "progress": False}),
        {"alphas": "array", "seeds": "size"},
    ),  # fmt: skip
    Case(
        sweeps.truncated_hebbian_sweep,
        lambda: ((4, [0.3, 1.2], [1, 4]), {"seeds": 2}),
        {"d": "size", "alphas": "array", "ranks": "array", "seeds": "size"},
    ),
    Case(tables.check_table, lambda: ((_sweep(),), {})),
    Case(tables.success_by_load, lambda: ((_sweep(),), {})),
    Case(
        transitions.accuracy_crossing,
        lambda: ((_synthetic(), 0.95), {"n_boot": 100}),
        {"level": "open_unit", "n_boot": "size", "seed": "count0"},
        nan_ok="NaN when the mean accuracy does not cross level inside the grid",
    ),
    Case(
        transitions.transition_load,
        lambda: ((_synthetic(),), {"n_draws": 50}),
        {"n_draws": "size", "seed": "count0"},
    ),
    Case(
        transitions.transition_loads,
        lambda: ((_synthetic(),), {"n_draws": 50}),
        {"n_draws": "size", "seed": "count0"},
    ),
    Case(
        transitions.bootstrap_transitions,
        lambda: ((_rank_sweep(),), {"n_boot": 100}),
        {"n_boot": "size", "level": "open_unit", "seed": "count0"},
        nan_ok="NaN crossing in a bootstrap draw that does not cross inside the grid",
    ),
    Case(
        rank_transitions.truncated_hebbian_transitions,
        lambda: ((_rank_sweep(),), {"kappas": (0.25, 1.0), "n_boot": 100}),
        {"n_boot": "size", "seed": "count0"},
        nan_ok="NaN crossing in a bootstrap draw that does not cross inside the grid",
    ),
    # the exact LP (issue 28's solver); embeddings' checks come from MemoryProblem
    Case(constraints.check_instance, lambda: ((_op(),), {})),
    Case(constraints.constraint_arrays, lambda: ((_dp(),), {})),
    Case(constraints.lp_size, lambda: ((6, 4), {}), {"p": "p", "d": "size"}),
    Case(
        constraints.constraint_margins,
        lambda: ((np.eye(D), _op()), {}),
        {"W": "array"},
        check=lambda out: (out.shape == (P, P - 1)) or pytest.fail("shape"),
    ),
    Case(constraints.dual_bound, lambda: ((np.ones((P, P - 1)), _dp()), {}), {"Y": "array"}),
    Case(constraints.constraint_matrix, lambda: ((_op(),), {})),
    Case(constraints.normalise_rows, lambda: ((_dp(),), {})),
    Case(constraints.normalise_rows, lambda: ((_op(),), {})),
    Case(lp.max_margin_linf, lambda: ((_op(),), {})),
    Case(
        lp.constraint_generation,
        lambda: ((_op(),), {}),
        {"per_round": "size", "tol": "positive", "max_rounds": "size"},
    ),
    Case(lp.lp_decide, lambda: ((_dp(),), {}), {"tol": "positive", "max_rounds": "size"}),
    Case(lp.lp_feasible, lambda: ((_op(),), {}), {"max_entries": "size"}),
    # the worked examples of chapters 1 and 2: the storing cone, the perceptron (issue 50)
    Case(
        cone.feasible_wedge,
        lambda: ((np.array([[1.0, 0.2], [0.3, 1.0]]),), {}),
        {"normals": "array"},
    ),  # fmt: skip
    Case(cone.target_wedges, lambda: ((sample_problem(3, 2, seed=6),), {})),
    Case(
        cone.plane_section,
        lambda: ((_op(), np.eye(D), _w().numpy()), {}),
        {"first": "array", "second": "array"},
    ),
    Case(
        cone.stored_direction_fraction,
        lambda: ((_op(), 50), {"seed": 0}),
        {"n": "size", "seed": "count0"},
    ),
    Case(
        perceptron.perceptron_decide,
        lambda: (
            (
                np.random.default_rng(7).standard_normal((6, 4)),
                np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0]),
            ),
            {},
        ),
        {"patterns": "array", "labels": "array"},
    ),  # fmt: skip
    Case(
        perceptron.stored_fraction,
        lambda: ((6, 3, 4), {"seed": 0}),
        {"P": "size", "N": "size", "n": "size", "seed": "count0"},
    ),
    Case(perceptron_theory.cover_fraction, lambda: ((6, 3), {}), {"P": "size", "N": "size"}),
]

EXEMPT: dict[str, str] = {
    "assocmem.linear.storage.lp.LPDecision": "a result record of lp_decide",
    "assocmem.linear.storage.cone.PlaneSection": "a result record of plane_section",
    "assocmem.linear.storage.perceptron.PerceptronDecision": (
        "a result record of perceptron_decide"
    ),
    "assocmem.linear.storage.constraints.LPOutcome": (
        "the three words of lp_decide's answer (an enum)"
    ),
    "assocmem.linear.storage.constraints.storage_outcome": (
        "the decision rule on certified bounds (+-inf documented: no bound yet); "
        "storage/test_lp.py "
        "checks it through every method, on stored, not stored and undecided instances"
    ),
    **{
        f"assocmem.linear.storage.interior_point.{n}": "the LP solver's internals, on checked"
        " float64 arrays (storage/test_lp.py: both operators against constraint_matrix, one solve"
        " on each)"
        for n in (
            "ConstraintOperator",
            "DenseConstraints",
            "StructuredConstraints",
            "IPMResult",
            "max_margin_ipm",
        )
    },  # fmt: skip
    "assocmem.linear.storage.constraints.constraint_differences": (
        "index arithmetic on checked float64 arrays (storage/test_lp.py, against constraint_matrix)"
    ),
    "assocmem.linear.storage.constraints.constraint_rows": (
        "index arithmetic on checked float64 arrays (storage/test_lp.py, against constraint_matrix)"
    ),
    "assocmem.linear.theory.extremes.UniformSpacings": (
        "a result record of sample_top_uniform_spacings"
    ),
    "assocmem.linear.theory.replica.CostSolution": "a result record of cost_solution",
    "assocmem.linear.measure.implicit_bias.MarginTrajectories": (
        "a result record of margin_trajectories"
    ),
    "assocmem.linear.measure.implicit_bias.MaxMargin": "a result record of l2/linf_max_margin",
    "assocmem.linear.storage.max_margin.MaxMarginResult": "a result record of train_max_margin",
    "assocmem.linear.storage.training.TrainResult": "a result record of train_memory",
    "assocmem.linear.measure.measured_spectra.MomentComparison": (
        "a result record of compare_fourth_moments"
    ),
    "assocmem.linear.measure.partial_storage.AboveCapacity": (
        "a result record (runs table, d, budget)"
    ),
    "assocmem.linear.measure.transitions.BootstrapTransitions": (
        "a result record of bootstrap_transitions"
    ),
    "assocmem.linear.measure.rank_transitions.TruncatedHebbianTransitions": (
        "a result record of truncated_hebbian_transitions"
    ),
    "assocmem.linear.measure.scores.mechanism_report": (
        "formats text from result mappings (KeyError)"
    ),
    "assocmem.linear.measure.scores.spread_summary": (
        "summarises a score_statistics mapping (KeyError)"
    ),
    "assocmem.linear.theory.finite_size.PredictedLoad": "a result record of predicted_transition",
    "assocmem.linear.theory.replica.RSProfile": "a result record of rs_profile",
    "assocmem.linear.theory.replica.rs_profile": (
        "runs rs_energetic_term and rs_draws_capacity (cases above) on one set of draws"
    ),
    "assocmem.linear.theory.replica.cost_example": (
        "runs quenched_fields and cost_solution (cases above) on one draw"
    ),
    "assocmem.linear.measure.capacity_comparison.TransitionEntry": "a result record",
    "assocmem.linear.measure.capacity_comparison.TransitionComparison": (
        "a result record of transition_comparison (measure/test_capacity_comparison.py)"
    ),
    "assocmem.linear.measure.capacity_comparison.capacity_curves": (
        "runs finite_size_capacity_curve (a case above) on a comparison's range "
        "(figures/test_plots_capacity.py)"
    ),
    "assocmem.linear.measure.capacity_comparison.transition_comparison": (
        "runs predicted_transition per table (a case above); table checks in "
        "measure/test_capacity_comparison.py"
    ),
    "assocmem.linear.measure.transitions.transition_ratio": "takes a BootstrapTransitions record",
    "assocmem.linear.measure.transitions.crossing_range": (
        "takes Estimate records (measure/test_transitions.py)"
    ),
    "assocmem.linear.measure.rank_transitions.ratio_comparison": (
        "formats an Estimate against predictions"
    ),
    "assocmem.linear.measure.tables.instance_agreement": (
        "takes two sweep tables (measure/test_tables.py)"
    ),
    "assocmem.linear.measure.tables.paired_instances": (
        "takes two sweep tables (measure/test_tables.py)"
    ),
    "assocmem.linear.measure.tables.miss_rates": (
        "takes a paired_instances table (measure/test_tables.py)"
    ),
    "assocmem.linear.measure.capacity_comparison.op_dp_gaps": (
        "takes a mapping of sweep tables (measure/test_capacity_comparison.py)"
    ),
    "assocmem.linear.measure.capacity_comparison.OpDpGaps": "a result record of op_dp_gaps",
    "assocmem.linear.measure.measured_spectra.spectrum_fit_summary": (
        "summarises a spectrum_fits table"
    ),
    "assocmem.linear.measure.measured_spectra.causes_summary": "summarises a spectrum_causes table",
    "assocmem.linear.measure.max_margin_spectra.MaxMarginSpectra": (
        "a result record of max_margin_spectra"
    ),
    **{
        name: "takes result tables/mappings of other functions; added concurrently (issue 27), "
        "not yet covered (time)"
        for name in (
            "assocmem.linear.measure.scores.mechanism_comparison",
            "assocmem.linear.measure.scores.recall_check_summary",
            "assocmem.linear.measure.scores.recall_check_table",
            "assocmem.linear.measure.tables.factored_engine_check",
        )
    },
}


(
    test_valid_call_gives_a_finite_result,
    test_any_value_gives_a_finite_result_or_a_clear_error,
    test_every_public_function_is_covered,
) = property_tests(CASES, EXEMPT, ["assocmem.linear"], check=_check, strategy=_strategy)


def test_local_kinds_refuse_what_they_should() -> None:
    assert LOCAL_KINDS["real_p"].invalid(1.5) and not LOCAL_KINDS["real_p"].invalid(2.5)
    assert LOCAL_KINDS["real_d"].invalid(float("nan")) and is_real(3)


# ------------------------------------------- tensors that require grad (issue 42, item 16)


def _requiring_grad(x: Any) -> Any:
    """``x`` with every floating-point tensor in it (also in lists and tuples) requiring grad."""
    if isinstance(x, torch.Tensor) and x.dtype.is_floating_point:
        return x.detach().clone().requires_grad_(True)
    if isinstance(x, (list, tuple)):
        return type(x)(_requiring_grad(v) for v in x)
    return x


def _takes_tensors(case: Case) -> bool:
    args, kwargs = case.make()
    return any(isinstance(v, torch.Tensor) and v.dtype.is_floating_point
               for v in (*args, *kwargs.values()))  # fmt: skip


@pytest.mark.parametrize("case", [c for c in CASES if _takes_tensors(c)], ids=lambda c: c.name)
def test_tensors_that_require_grad_are_read_or_refused_clearly(case: Case) -> None:
    """Issue 42, item 16: every entry taking tensors reads a ``requires_grad`` one (detached)."""
    args, kwargs = case.make()
    args = _requiring_grad(args)
    kwargs = {k: _requiring_grad(v) for k, v in kwargs.items()}
    try:
        out = case.func(*args, **kwargs)
    except (ValueError, TypeError) as exc:  # a refusal must say why, up front
        assert "requires grad" in str(exc) or "require" in str(exc), exc
        return
    if not case.nan_ok:
        assert not non_finite(out), non_finite(out)


def test_a_problem_built_from_tensors_that_require_grad_is_decided() -> None:
    """Issue 42, item 16: ``MemoryProblem(inputs.requires_grad_(), targets)`` then ``lp_decide``
    raised "Can't call numpy() on Tensor that requires grad" deep inside; the instance is now
    stored detached, and decided as the same data without grad."""
    ref = sample_problem(12, 6, decoupled=True, seed=0)
    e, u = ref.inputs.clone().requires_grad_(), ref.targets.clone().requires_grad_()
    assert ref.competitors is not None
    prob = MemoryProblem(e, u, ref.competitors.clone().requires_grad_())
    assert not (prob.inputs.requires_grad or prob.targets.requires_grad)
    assert prob.competitors is not None and not prob.competitors.requires_grad
    for method in ("ipm", "dense"):
        got, want = lp.lp_decide(prob, method=method), lp.lp_decide(ref, method=method)
        assert got.outcome is want.outcome is lp.LPOutcome.STORED
        assert got.margin == want.margin
    W = torch.eye(6, requires_grad=True)
    assert np.array_equal(constraints.constraint_margins(W, ref),
                          constraints.constraint_margins(W.detach(), ref))  # fmt: skip
