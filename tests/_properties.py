"""Property-based checks of the public API's input handling (issue 29, item 3).

One harness for every package: a :class:`Case` names a public function, a valid call of it, and
the *domain arguments* of that call (embeddings, weights, loads, probabilities, sizes, levels,
seeds) with their :data:`KINDS`. For each domain argument, hypothesis draws values of every sort
(in range, on the edge, out of range, NaN, inf, wrong type, wrong shape) and the function must
either

- return a result that holds no NaN or inf (unless the case says where NaN is documented, e.g.
  "no crossing inside the grid") and, for the valid call, has the shape the case expects; or
- raise ``ValueError`` or ``TypeError`` (the library's two error types for bad input),

and it must raise for a value that is surely out of its domain (NaN, inf, a negative size, a
probability above 1, ...): never a silent NaN, never another exception type.

The example budget is fixed (:data:`MAX_EXAMPLES` per domain argument, derandomised: the same
draws on every run), so README's test command runs it in a fixed time.

:func:`public_functions` lists what the packages export; ``test_every_public_function_is_covered``
in each package's ``test_properties.py`` fails when a public function is neither a case nor
exempt with a stated reason, so a new function cannot skip the checks.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Examples drawn per (function, domain argument); with derandomize the draws are the same on
#: every run. Stated in the closing note of issue 29 with what they found.
MAX_EXAMPLES = 30

PROPERTY_SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NAN, INF = math.nan, math.inf

# ------------------------------------------------------------------------ value strategies

_junk = st.sampled_from([None, "1", "0.5", b"x", [], {}, object()])
_nonfinite = st.sampled_from([NAN, INF, -INF])


def _reals(lo: float = -1e6, hi: float = 1e6) -> st.SearchStrategy[float]:
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


@dataclass(frozen=True)
class Kind:
    """A domain: a strategy of arbitrary values and a test of 'surely out of the domain'."""

    draw: st.SearchStrategy[Any]
    invalid: Callable[[Any], bool]


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _not_finite_real(v: Any) -> bool:
    return not _is_real(v) or not math.isfinite(float(v))


def _int_kind(minimum: int) -> Kind:
    """An integer argument >= minimum (sizes, counts, seeds)."""
    return Kind(
        st.one_of(
            st.integers(minimum - 3, minimum + 6),
            st.integers(-(10**6), -1),
            _nonfinite,
            st.booleans(),
            _junk,
            st.floats(minimum + 0.25, minimum + 0.75),
        ),
        lambda v: not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < minimum,
    )


def _real_kind(lo: float, hi: float, *, lo_open: bool, hi_open: bool) -> Kind:
    """A real argument in an interval (open or closed at each end)."""
    edges = [lo, hi, 0.0, -1.0, 1.0, 1e-300, -1e-300]
    edges = [e for e in edges if math.isfinite(e)]

    def invalid(v: Any) -> bool:
        if _not_finite_real(v):
            return True
        x = float(v)
        return x < lo or x > hi or (lo_open and x == lo) or (hi_open and x == hi)

    return Kind(
        st.one_of(_reals(), st.sampled_from(edges), _nonfinite, st.booleans(), _junk), invalid
    )


#: The kinds of domain argument, by the name a :class:`Case` gives them.
KINDS: dict[str, Kind] = {
    "p": _int_kind(2),  # number of associations
    "size": _int_kind(1),  # d, m, n, counts >= 1
    "count0": _int_kind(0),  # counts >= 0, seeds
    "positive": _real_kind(0.0, INF, lo_open=True, hi_open=True),  # loads, kappa, beta, scales
    "nonnegative": _real_kind(0.0, INF, lo_open=False, hi_open=True),
    "prob": _real_kind(0.0, 1.0, lo_open=False, hi_open=False),  # probabilities, fractions
    "open_unit": _real_kind(0.0, 1.0, lo_open=True, hi_open=True),  # coverage levels
    "real": _real_kind(-INF, INF, lo_open=True, hi_open=True),  # any finite real
}


# --- array kinds of issue 42: outcomes, indices (a value's class decides, not its shape) -------


def _not_outcomes(v: Any) -> bool:
    """Surely not right/wrong outcomes: not an array of bools or of the numbers 0 and 1."""
    arr = np.asarray(v) if isinstance(v, (np.ndarray, list)) else None
    if arr is None or arr.dtype.kind not in "biuf" or arr.ndim != 1:
        return True
    return arr.dtype.kind != "b" and not bool(np.all((arr == 0) | (arr == 1)))


def _not_indices(v: Any) -> bool:
    """Surely not indices: not a 1-D array of integers (floats, even 0.0, and bools refused),
    or holding a negative index."""
    arr = np.asarray(v) if isinstance(v, (np.ndarray, list)) else None
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim != 1:
        return True
    return bool(arr.size and arr.min() < 0)


_small_arrays = st.integers(2, 6).flatmap(
    lambda n: st.one_of(
        st.lists(st.booleans(), min_size=n, max_size=n).map(np.array),
        st.lists(st.integers(0, 1), min_size=n, max_size=n).map(np.array),
        st.lists(st.integers(-2, 3), min_size=n, max_size=n).map(np.array),
        st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n).map(np.array),
        st.lists(st.floats(0, 1), min_size=n, max_size=n).map(np.array),
        st.lists(st.sampled_from([0.0, 0.9, 1.0, NAN]), min_size=n, max_size=n).map(np.array),
    )
)
KINDS["outcomes"] = Kind(st.one_of(_small_arrays, _junk), _not_outcomes)  # 0/1 or bool
KINDS["indices"] = Kind(st.one_of(_small_arrays, _junk), _not_indices)  # integer indices >= 0


def corrupt_array(valid: Any) -> st.SearchStrategy[Any]:
    """Arrays like ``valid`` with NaN/inf injected, a wrong shape, or a wrong type.

    Returns values of the same container type (torch tensor or numpy array) as ``valid``.
    """
    arr = valid.detach().cpu().numpy() if isinstance(valid, torch.Tensor) else np.asarray(valid)
    arr = np.array(arr, dtype=np.float64)

    def back(a: np.ndarray) -> Any:
        if isinstance(valid, torch.Tensor):
            return torch.as_tensor(a, dtype=valid.dtype if a.dtype.kind == "f" else None)
        return a

    @st.composite
    def inject(draw: st.DrawFn) -> Any:
        a = arr.copy()
        if a.size == 0:
            return back(a)
        i = draw(st.integers(0, a.size - 1))
        a.reshape(-1)[i] = draw(_nonfinite)
        return back(a)

    @st.composite
    def reshape(draw: st.DrawFn) -> Any:
        a = arr.reshape(-1)
        cut = draw(st.integers(0, max(0, a.size - 1)))
        shape = draw(st.sampled_from(["flat", "cut", "extra", "scalar"]))
        if shape == "flat":
            return back(a)
        if shape == "cut":
            return back(a[:cut])
        if shape == "extra":
            return back(np.stack([arr, arr]))
        return back(np.asarray(a[0] if a.size else 0.0))

    @st.composite
    def scaled(draw: st.DrawFn) -> Any:  # a valid-looking array: must not fail oddly
        return back(arr * draw(st.floats(1e-3, 1e3)))

    return st.one_of(inject(), reshape(), scaled(), _junk)


def _array_invalid(v: Any, nan_is_missing: bool = False) -> bool:
    """Surely invalid array values: holding inf or NaN (unless NaN marks a missing value, kind
    ``"array_missing"``), or not an array at all."""
    if isinstance(v, torch.Tensor):
        v = v.detach().cpu().numpy()
    if isinstance(v, np.ndarray):
        if v.dtype.kind != "f":
            return False
        return bool(np.isinf(v).any()) or (not nan_is_missing and bool(np.isnan(v).any()))
    return True


# ------------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One public function with a valid call and its domain arguments.

    Attributes
    ----------
    func : callable
        The public function (or class).
    make : callable
        Returns ``(args, kwargs)`` of a valid call (built fresh each time: tensors are not shared
        between examples).
    domain : mapping of argument name -> kind
        A key of :data:`KINDS` (scalars), ``"array"`` (embeddings, weights, probabilities,
        curves: corrupted by :func:`corrupt_array`) or ``"array_missing"`` (an array in which
        NaN documentedly marks a missing value). Positional arguments are named by their
        parameter name.
    nan_ok : str
        Empty, or why a NaN in the result is documented for some valid input.
    check : callable or None
        Extra check of the valid call's result (e.g. its shape).
    """

    func: Callable[..., Any]
    make: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]
    domain: Mapping[str, str] = field(default_factory=dict)
    nan_ok: str = ""
    check: Callable[[Any], None] | None = None

    @property
    def name(self) -> str:
        return f"{self.func.__module__}.{self.func.__qualname__}"


def call(case: Case, override: Mapping[str, Any] | None = None) -> Any:
    """Call ``case.func`` on its valid arguments with ``override`` replacing some of them."""
    args, kwargs = case.make()
    if override:
        names = list(inspect.signature(case.func).parameters)
        args = list(args)
        for k, v in override.items():
            i = names.index(k)
            if i < len(args):
                args[i] = v
            else:
                kwargs[k] = v
    return case.func(*args, **kwargs)


def non_finite(x: Any, depth: int = 0) -> list[str]:
    """Where ``x`` (a result: number, array, tensor, DataFrame, dataclass, tuple, dict) holds
    NaN or inf; an empty list if nowhere. Draws and bootstrap samples are not searched."""
    if depth > 4:
        return []
    if isinstance(x, (bool, str, bytes)) or x is None:
        return []
    if isinstance(x, (int, float, np.integer, np.floating)):
        return [] if math.isfinite(float(x)) else [repr(x)]
    if isinstance(x, torch.Tensor):
        if not (x.dtype.is_floating_point or x.dtype.is_complex):
            return []
        return [] if bool(torch.isfinite(x).all()) else [f"tensor {tuple(x.shape)}"]
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "fc":
            return []
        return [] if bool(np.isfinite(x).all()) else [f"array {x.shape}"]
    if isinstance(x, pd.DataFrame):
        num = x.select_dtypes("number")
        bad = [c for c in num.columns if not np.isfinite(num[c].to_numpy(float)).all()]
        return [f"column {c}" for c in bad]
    if isinstance(x, pd.Series):
        return non_finite(x.to_numpy(), depth + 1) if x.dtype.kind in "fc" else []
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        out = []
        for f in dataclasses.fields(x):
            if f.name in ("draws", "stderr"):  # resamples; stderr is NaN where not defined
                continue
            out += [f"{f.name}: {w}" for w in non_finite(getattr(x, f.name), depth + 1)]
        return out
    if isinstance(x, Mapping):
        out = []
        for k, v in x.items():
            out += [f"{k}: {w}" for w in non_finite(v, depth + 1)]
        return out
    if isinstance(x, (tuple, list)):
        out = []
        for i, v in enumerate(x[:50]):
            out += [f"[{i}]: {w}" for w in non_finite(v, depth + 1)]
        return out
    return []


def check_outcome(case: Case, arg: str, value: Any, kind: str, *, bad: bool | None = None) -> None:
    """The property: a finite result or ValueError/TypeError; an error for a surely bad value.

    ``bad``: whether ``value`` is surely out of the domain, for a kind the harness does not
    know (a test file's local kind); None: decided from ``kind``.
    """
    if bad is None and kind in ("array", "array_missing"):
        bad = _array_invalid(value, nan_is_missing=kind == "array_missing")
    elif bad is None:
        bad = KINDS[kind].invalid(value)
    try:
        out = call(case, {arg: value})
    except (ValueError, TypeError):
        return
    assert not bad, f"{case.name}({arg}={value!r}) accepted a value out of its domain"
    if not case.nan_ok:
        where = non_finite(out)
        assert not where, f"{case.name}({arg}={value!r}) returned NaN/inf at {where[:3]}"


def value_strategy(case: Case, arg: str, kind: str) -> st.SearchStrategy[Any]:
    """Values to try for one domain argument."""
    if kind in ("array", "array_missing"):
        args, kwargs = case.make()
        names = list(inspect.signature(case.func).parameters)
        i = names.index(arg)
        valid = args[i] if i < len(args) else kwargs[arg]
        return corrupt_array(valid)
    return KINDS[kind].draw


def domain_params(cases: list[Case]) -> list[tuple[Case, str, str]]:
    """One (case, argument, kind) per domain argument, for ``pytest.mark.parametrize``."""
    return [(c, a, k) for c in cases for a, k in c.domain.items()]


def public_functions(package: str, *, skip_modules: tuple[str, ...] = ()) -> list[str]:
    """Qualified names of the public functions and classes defined in a package's modules.

    Modules whose name starts with ``plots`` (figures) and those in ``skip_modules`` are left
    out; a module is searched when it is a package's submodule (at any depth) or the package itself.
    """
    pkg = importlib.import_module(package)
    names = [package]
    if hasattr(pkg, "__path__"):
        names = [m.name for m in pkgutil.walk_packages(pkg.__path__, f"{package}.") if not m.ispkg]
    out = []
    for name in names:
        short = name.rsplit(".", 1)[-1]
        if short.startswith("plots") or short.startswith("_") or name in skip_modules:
            continue
        mod = importlib.import_module(name)
        for attr, obj in vars(mod).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.append(f"{name}.{attr}")
    return sorted(out)


def property_tests(
    cases: list[Case],
    exempt: Mapping[str, str],
    packages: list[str],
    *,
    check: Callable[[Case, str, Any, str], None] = check_outcome,
    strategy: Callable[[Case, str, str], st.SearchStrategy[Any]] = value_strategy,
) -> tuple[Callable[..., None], Callable[..., None], Callable[[], None]]:
    """The three tests every property module runs, for its ``cases`` (bind them to test_ names).

    A valid call gives a finite result (unless the case documents a NaN) and passes its check;
    any value of a domain argument gives a finite result or a clear error (``check`` of a value
    drawn by ``strategy``); every public function of ``packages`` has a case or a reason in
    ``exempt``.
    """

    @pytest.mark.parametrize("case", cases, ids=lambda c: c.name)
    def valid_call(case: Case) -> None:
        out = call(case)
        if not case.nan_ok:
            assert not non_finite(out), non_finite(out)
        if case.check is not None:
            case.check(out)

    @pytest.mark.parametrize(
        ("case", "arg", "kind"), domain_params(cases), ids=lambda v: getattr(v, "name", str(v))
    )
    @PROPERTY_SETTINGS
    @given(data=st.data())
    def any_value(case: Case, arg: str, kind: str, data: Any) -> None:
        check(case, arg, data.draw(strategy(case, arg, kind), label=arg), kind)

    def covered() -> None:
        known = {c.name for c in cases} | set(exempt)
        missing = [n for pkg in packages for n in public_functions(pkg) if n not in known]
        assert not missing, f"public functions with neither a property case nor a reason: {missing}"

    return valid_call, any_value, covered
