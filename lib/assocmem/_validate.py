"""Input checks shared by the library's modules (one home for each kind of check).

Every checker takes the argument's name and value, returns the value in a canonical type, and
raises ``TypeError`` for a value of the wrong type or ``ValueError`` for one out of range, with a
message that names the argument and the allowed range (DESIGN.md, conventions).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import torch

#: A numpy array or a torch tensor (the helpers below return the kind they are given).
ArrayOrTensor = TypeVar("ArrayOrTensor", np.ndarray, "torch.Tensor")


def check_int(name: str, value: object, minimum: int) -> int:
    """Return ``value`` as an int (TypeError unless an integer, ValueError below ``minimum``)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_positive(name: str, value: object) -> float:
    """Return ``value`` as a float (TypeError unless real, ValueError unless finite and > 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return v


def check_p(p: float) -> int:
    """Return the number of associations ``p`` as an int; ``ValueError`` unless an integer >= 2."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"p must be an integer >= 2, got {type(p).__name__}")
    if not math.isfinite(float(p)) or p < 2 or int(p) != p:
        raise ValueError(f"p must be an integer >= 2 (number of associations), got {p}")
    return int(p)


def check_margin(margin: float) -> float:
    """Return the margin as a float; ``ValueError`` unless finite and >= 0."""
    if not math.isfinite(float(margin)) or margin < 0:
        raise ValueError(f"margin must be finite and >= 0, got {margin}")
    return float(margin)


def check_samples(n_samples: int) -> int:
    """Return ``n_samples`` as an int; ``ValueError`` unless an integer >= 2."""
    bad_float = isinstance(n_samples, float) and not math.isfinite(n_samples)  # int(inf) overflows
    if isinstance(n_samples, bool) or bad_float or int(n_samples) != n_samples or n_samples < 2:
        raise ValueError(f"n_samples must be an integer >= 2, got {n_samples}")
    return int(n_samples)


def as_float_array(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``x`` as a float64 array; ``TypeError`` if it is not made of real numbers.

    Strings are refused even when numpy could parse them (``"0.5"``): a number given as text is
    more likely a mistake than an intent. A torch tensor is read detached, from the CPU (one
    that requires grad is accepted, issue 42 item 16).
    """
    if hasattr(x, "detach"):  # a torch tensor, possibly requiring grad or on a GPU
        x = x.detach().cpu()
    raw = np.asarray(x)
    if isinstance(raw, np.ndarray) and raw.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a real number or array of real numbers, got {x!r}")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array of real numbers") from exc
    return arr


def check_kappa(kappa: ArrayLike) -> NDArray[np.float64]:
    """Validate the rank ratio: finite and > 0 (values >= 1 mean no rank constraint)."""
    if isinstance(kappa, (bool, np.bool_)):
        raise TypeError("kappa must be a real number in (0, inf), got a bool")
    k = as_float_array(kappa, "kappa")
    if not np.all(np.isfinite(k)) or np.any(k <= 0):
        raise ValueError(f"kappa must be finite and in (0, inf) (rank ratio m/d), got {kappa!r}")
    return k


def check_scalar_kappa(kappa: float) -> float:
    """Validate a scalar rank ratio as :func:`check_kappa` does; ``TypeError`` for an array."""
    k = check_kappa(kappa)
    if k.ndim != 0:
        raise TypeError(f"kappa must be a scalar here, got an array of shape {k.shape}")
    return float(k)


def check_prob(q: ArrayLike, name: str = "q") -> NDArray[np.float64]:
    """Return ``q`` as a float64 array; ``ValueError`` unless every entry is in [0, 1]."""
    arr = as_float_array(q, name)
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{name} must be a probability in [0, 1], got {q!r}")
    return arr


def check_real(name: str, value: object, *, low: float = -math.inf, strict: bool = False) -> float:
    """Check a finite real number above ``low`` (``> low`` if ``strict``, else ``>= low``).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (a bool is refused).
    ValueError
        If it is not finite or below the bound.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or (v <= low if strict else v < low):
        op = ">" if strict else ">="
        raise ValueError(f"{name} must be finite and {op} {low}, got {value!r}")
    return v


def check_fraction(name: str, value: object) -> float:
    """Return ``value`` as a float in (0, 1] (a share, a fraction, a threshold), else raise.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is not finite or lies outside (0, 1], naming ``name``.
    """
    x = check_real(name, value, low=0.0, strict=True)
    if x > 1:
        raise ValueError(f"{name} must lie in (0, 1], got {value}")
    return x


def seed_list(seeds: object, name: str = "seeds") -> list[int]:
    """Apply the book's one rule for ``seeds``: an int ``n`` means ``range(n)``, else an iterable.

    Returns
    -------
    list of int
        The seeds, each >= 0, at least one, no repeats.

    Raises
    ------
    TypeError
        If ``seeds`` is neither an int nor an iterable of ints.
    ValueError
        If the count is < 1, a seed is negative, or a seed repeats.
    """
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        return list(range(check_int(name, seeds, 1)))
    if isinstance(seeds, (str, bytes, float)) or not hasattr(seeds, "__iter__"):
        raise TypeError(
            f"{name} must be an int (a count: range(n)) or an iterable of ints, "
            f"got {type(seeds).__name__}"
        )
    out = [check_int(f"{name}[{i}]", s, 0) for i, s in enumerate(seeds)]  # type: ignore[attr-defined]
    if not out:
        raise ValueError(f"{name} must hold at least one seed")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a seed, got {out}")
    return out


def check_frame(name: str, value: object, columns: Sequence[str], source: str) -> pd.DataFrame:
    """Return ``value`` if it is a non-empty DataFrame holding ``columns`` (those of ``source``).

    TypeError unless a DataFrame; ValueError if empty or missing one of ``columns``.
    """
    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas.DataFrame, got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} is empty")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing} of {source}")
    return value


# --- outcomes, token ids and paths (issue 42) --------------------------------------------------


def check_outcomes(name: str, value: object) -> NDArray[np.bool_]:
    """Return ``value`` as a 1-D bool array of right/wrong outcomes (bool, or numbers 0 and 1).

    A probability, a count or any other number is refused rather than cast to bool (0.2 and 2
    would both read as "right").

    Raises
    ------
    TypeError
        If ``value`` is not an array or sequence of booleans or numbers.
    ValueError
        If it is not 1-D, or an entry is neither 0 nor 1 (the message names the first).
    """
    arr = np.asarray(value) if not isinstance(value, (str, bytes)) else None
    if arr is None or arr.dtype.kind not in "biuf":
        got = type(value).__name__ if arr is None else f"{arr.dtype} array"
        raise TypeError(f"{name} must hold right/wrong outcomes (bool or 0/1), got {got}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of outcomes, got shape {arr.shape}")
    if arr.dtype.kind != "b":
        bad = np.flatnonzero((arr != 0) & (arr != 1))
        if bad.size:
            raise ValueError(
                f"{name} must hold outcomes 0/1 (or bool), got {arr[bad[0]].item()!r} at index "
                f"{int(bad[0])}: a probability or a count is not an outcome"
            )
    return arr.astype(bool)


def check_token_ids(name: str, value: object, vocab: int | None = None) -> list[list[int]]:
    """Return a sequence of token-id sequences as lists of ints, each id in ``[0, vocab)``.

    Raises
    ------
    TypeError
        If ``value`` or an entry is not a sequence, or an id is not an integer (a float or a
        bool is refused).
    ValueError
        If an id is negative or ``>= vocab`` (the message names the sequence, the position, the
        id and the vocabulary size).
    """
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence of token-id sequences, got {value!r}")
    out = []
    for i, seq in enumerate(value):  # type: ignore[attr-defined]
        arr = np.asarray(seq) if not isinstance(seq, (str, bytes)) else None
        if arr is None or arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            got = type(seq).__name__ if arr is None else f"{arr.dtype} array of shape {arr.shape}"
            raise TypeError(f"{name}[{i}] must be a 1-D sequence of integer token ids, got {got}")
        if arr.size:
            bad = np.flatnonzero((arr < 0) | (arr >= vocab if vocab is not None else False))
            if bad.size:
                j = int(bad[0])
                upper = "" if vocab is None else f" < {vocab} (the vocabulary size)"
                raise ValueError(
                    f"{name}[{i}][{j}] = {int(arr[j])} is no token id: ids must be >= 0{upper}"
                )
        out.append([int(t) for t in arr])
    return out


def check_directory(name: str, value: object, *, must_exist: bool = True) -> Path:
    """Return a directory given as a path (``~`` expanded).

    ``must_exist``: the directory must exist (an input); False: it exists or can be made, with
    nothing in its way (an output: no file at the path or at one of its parents).

    Raises
    ------
    TypeError
        If ``value`` is not a ``str`` or ``os.PathLike``.
    ValueError
        If it is empty; with ``must_exist``, if it names nothing or something that is not a
        directory; else, if it or one of its parents is a file.
    """
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__}")
    if str(value) == "":
        raise ValueError(f"{name} must name a directory, got an empty path")
    path = Path(value).expanduser()
    if must_exist and not path.is_dir():
        what = "is not a directory" if path.exists() else "does not exist"
        raise ValueError(f"{name} = {str(value)!r} {what}")
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            what = "it is a file" if p == path else f"its parent {str(p)!r} is a file"
            raise ValueError(f"{name} = {str(value)!r} cannot be a directory: {what}")
    return path


# --- assocmem.linear's property checks (issue 29, item 3) ---------------------------------------


def check_seed(name: str, value: object) -> int | np.random.Generator | np.random.SeedSequence:
    """Return a seed: a numpy ``Generator`` or ``SeedSequence`` as is, else an int >= 0.

    A bool, float or string is refused (``np.random.default_rng`` would take ``False``).
    """
    if isinstance(value, (np.random.Generator, np.random.SeedSequence)):
        return value
    return check_int(name, value, 0)


def check_finite_array(name: str, x: ArrayLike, *, ndim: int | None = None) -> NDArray[np.float64]:
    """Return ``x`` as a float64 array (:func:`as_float_array`) with finite entries.

    ``ndim``: the number of dimensions required (``None``: any). TypeError unless real numbers;
    ValueError for NaN, inf or another number of dimensions.
    """
    arr = as_float_array(x, name)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {x!r}")
    return arr


def check_loads(alphas: object, name: str = "alphas") -> list[float]:
    """Return a 1-d sequence of distinct loads as floats, each finite and > 0.

    TypeError for a single number, a string or a nested array or a bool entry; ValueError if
    empty, not finite, not positive or repeated (the same instances again).
    """
    flat = not isinstance(alphas, np.ndarray) or alphas.ndim == 1
    if isinstance(alphas, (str, bytes)) or not hasattr(alphas, "__iter__") or not flat:
        raise TypeError(f"{name} must be a 1-d sequence of loads (e.g. [0.5, 1.0]), got {alphas!r}")
    items = list(alphas)  # type: ignore[call-overload]
    if any(isinstance(a, (bool, np.bool_, str, bytes)) for a in items):
        raise TypeError(f"{name} must hold loads (real numbers), got {alphas!r}")
    try:
        alpha_arr = np.asarray(items, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must hold real numbers, got {alphas!r}") from exc
    if alpha_arr.ndim != 1:
        raise TypeError(f"{name} must be a 1-d sequence of loads, got shape {alpha_arr.shape}")
    if alpha_arr.size == 0:
        raise ValueError(f"{name} must be non-empty")
    if not np.all(np.isfinite(alpha_arr)) or np.any(alpha_arr <= 0):
        raise ValueError(f"{name} must be finite loads > 0, got {alphas!r}")
    if np.unique(alpha_arr).size != alpha_arr.size:
        raise ValueError(
            f"{name} must not repeat a load (the same instances again), got {alphas!r}"
        )
    return [float(a) for a in alpha_arr]


# --- context_gated and llm.prompts input checks (issue 29, item 3) ---------------------------


def check_index_array(name: str, value: object, n: int | None = None) -> NDArray[np.int64]:
    """Return ``value`` as a 1-D int64 array of indices, each >= 0 (and < ``n`` if given).

    TypeError unless a 1-D array or sequence of integers (floats and bools are refused, even
    integral ones: an index given as a float is more likely a mistake); ValueError for a negative
    index or one >= ``n``.
    """
    arr = np.asarray(value) if not isinstance(value, (str, bytes)) else None
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim != 1:
        got = type(value).__name__ if arr is None else f"{arr.dtype} array of shape {arr.shape}"
        raise TypeError(f"{name} must be a 1-D array of integer indices, got {got}")
    if arr.size and (arr.min() < 0 or (n is not None and arr.max() >= n)):
        upper = "" if n is None else f" and < {n}"
        raise ValueError(f"{name} must hold indices >= 0{upper}, got {value!r}")
    return arr.astype(np.int64)


def check_tensor(
    name: str, value: object, *, ndim: int | tuple[int, ...] | None = None
) -> torch.Tensor:
    """Return ``value`` if it is a real floating-point torch tensor with finite entries.

    ``ndim``: the number (or allowed numbers) of dimensions (``None``: any). TypeError unless a
    floating-point ``torch.Tensor``; ValueError for another number of dimensions, an empty tensor,
    NaN or inf.
    """
    torch = sys.modules.get("torch")  # a tensor exists only once torch is imported
    if torch is None or not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
        is_tensor = torch is not None and isinstance(value, torch.Tensor)
        got = f"a {getattr(value, 'dtype', '')} tensor" if is_tensor else type(value).__name__
        raise TypeError(f"{name} must be a floating-point torch.Tensor, got {got}")
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if dims is not None and value.ndim not in dims:
        want = " or ".join(str(d) for d in dims)
        raise ValueError(f"{name} must have {want} dimension(s), got shape {tuple(value.shape)}")
    if value.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(value.shape)}")
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def check_broadcast(what: str, *shapes: tuple[int, ...]) -> None:
    """ValueError unless the batch shapes (tuples or ``torch.Size``) broadcast together."""
    try:
        np.broadcast_shapes(*(tuple(s) for s in shapes))
    except ValueError as exc:
        raise ValueError(f"the batch shapes of {what} do not broadcast: {shapes}") from exc


# --- unit norms at any magnitude (issue 42, item 13) --------------------------------------------


def row_norms(x: ArrayOrTensor) -> ArrayOrTensor:
    """Euclidean norms of the rows (last axis) of ``x``, exact to rounding at any magnitude.

    Each row is divided by its largest absolute entry before its squares are summed, so a row
    of norm 1e-160 (whose squares would be subnormal) or 1e200 (whose squares would overflow)
    gets its norm to a few units of rounding. Returns the same kind as ``x`` (numpy array or
    torch tensor) with the last axis kept (size 1); a zero row has norm 0.
    """
    if isinstance(x, np.ndarray):
        amax = np.abs(x).max(axis=-1, keepdims=True)
        safe = np.where(amax > 0, amax, 1.0)
        return amax * np.linalg.norm(x / safe, axis=-1, keepdims=True)
    amax_t = x.abs().amax(dim=-1, keepdim=True)
    safe_t = amax_t.where(amax_t > 0, amax_t.new_ones(()))
    torch_ = sys.modules["torch"]
    return amax_t * torch_.linalg.vector_norm(x / safe_t, dim=-1, keepdim=True)


def unit_rows(name: str, x: ArrayOrTensor) -> ArrayOrTensor:
    """Return ``x`` with every row (last axis) scaled to unit Euclidean norm, at any magnitude.

    The row is first divided by its largest absolute entry (exact to rounding), then by the norm
    of the result (between 1 and ``sqrt(d)``), so the output norms are 1 to rounding whether
    the input norms are 1e-300 or 1e300. Numpy array or torch tensor in, the same kind out.

    Raises
    ------
    ValueError
        If a row is zero (it has no direction), naming ``name`` and the row's index.
    """
    if isinstance(x, np.ndarray):
        amax = np.abs(x).max(axis=-1, keepdims=True)
        zero = np.argwhere(amax[..., 0] == 0)
        scaled = x / np.where(amax > 0, amax, 1.0)
        if zero.size:
            raise ValueError(f"{name} row {tuple(int(i) for i in zero[0])} is zero: it has no "
                             "direction and cannot be scaled to unit norm")  # fmt: skip
        return scaled / np.linalg.norm(scaled, axis=-1, keepdims=True)
    amax_t = x.abs().amax(dim=-1, keepdim=True)
    zero_t = (amax_t[..., 0] == 0).nonzero()
    if zero_t.numel():
        raise ValueError(f"{name} row {tuple(int(i) for i in zero_t[0])} is zero: it has no "
                         "direction and cannot be scaled to unit norm")  # fmt: skip
    torch_ = sys.modules["torch"]
    scaled_t = x / amax_t
    return scaled_t / torch_.linalg.vector_norm(scaled_t, dim=-1, keepdim=True)


def check_grid(
    name: str, values: object, *, what: str = "a non-empty 1-D sequence"
) -> NDArray[np.float64]:
    """Return a grid (σ, λ, α levels) as a non-empty 1-D float64 array of finite values >= 0.

    ``what`` words the accepted forms in the message: ValueError "``name`` must be ``what`` of
    finite values >= 0"; TypeError unless real numbers (:func:`as_float_array`).
    """
    arr = as_float_array(values, name)  # type: ignore[arg-type]
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be {what} of finite values >= 0")
    return arr
