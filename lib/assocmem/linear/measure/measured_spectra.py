"""Spectra of measured memories: singular values of stored and trained ``W`` against the theory.

:func:`singular_values` gives a matrix's spectrum in the units of the quarter circle,
:func:`spectrum_ks_distance` its distance to the (truncated) quarter circle of
:mod:`assocmem.linear.theory.spectra`, :func:`fourth_moment_ratio` its normalised fourth moment
``m_4`` and :func:`compare_fourth_moments` compares groups of matrices by it (means with intervals,
permutation tests over instances; chapter 1).

:func:`stored_spectra` pools the singular values of the memories a sweep stored near each
group's transition; :func:`spectrum_summary` measures the Kolmogorov-Smirnov distance of a batch
of memories' top singular values to the truncated quarter circle of
:mod:`assocmem.linear.theory.spectra`; :func:`spectrum_causes` tests causes of a broad trained
spectrum (longer training, a margin-maximising objective, the truncated Hebbian memory, a larger
``d``) on the instances of one rank-``m`` sweep group (chapter 4); :func:`spectrum_fits`,
:func:`spectrum_fit_summary` and :func:`causes_summary` tabulate and label what chapter 4
quotes. Source: a reconstruction of the spectral
argument of Giorlandino, Goldt & Maillard 2026 (arXiv:2605.10795; course digest section 7.2).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from numpy.typing import ArrayLike, NDArray

from assocmem._validate import (
    as_float_array,
    check_int,
    check_positive,
    check_real,
    check_scalar_kappa,
)
from assocmem.estimate import Estimate
from assocmem.linear.instances.problems import (
    MemoryProblem,
    normalised_margins,
    recalled,
    stack_problems,
)
from assocmem.linear.instances.sampling import sample_problems
from assocmem.linear.measure.sweeps import GROUP_COLUMNS
from assocmem.linear.measure.tables import check_table
from assocmem.linear.storage.max_margin import train_max_margin, truncate_rank
from assocmem.linear.storage.training import hebbian_memory, train_memory
from assocmem.linear.theory.load import pairs_for_load
from assocmem.linear.theory.spectra import truncated_quarter_circle_cdf
from assocmem.permutation import permutation_test
from assocmem.stats import mean_interval
from assocmem.streams import Seed, child

__all__ = [
    "stored_spectra",
    "spectrum_summary",
    "spectrum_causes",
    "spectrum_fits",
    "spectrum_fit_summary",
    "causes_summary",
]


def stored_spectra(table: pd.DataFrame) -> pd.DataFrame:
    """Singular values of the stored memories near each group's transition.

    For each group, the largest load at which at least half of the instances were stored
    (else the largest load with any stored instance); the top ``rank`` singular values of each
    stored ``W`` there, normalised to mean square 1 per matrix, pooled.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~.sweeps.capacity_sweep` output made with ``keep_weights=True``.

    Returns
    -------
    pandas.DataFrame
        One row per group: :data:`~.sweeps.GROUP_COLUMNS`, ``kappa``, ``load`` (NaN if nothing was
        stored), ``n_memories`` and ``singular_values`` (a float64 array, empty if none).

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame.
    ValueError
        If the table is not a sweep table or has no ``weights`` column.
    """
    table = check_table(table)
    if "weights" not in table.columns:
        raise ValueError("table has no weights: run capacity_sweep(..., keep_weights=True)")
    rows = []
    for key, g in table.groupby(GROUP_COLUMNS, sort=False):
        frac = g.groupby("load")["recalled_all"].mean().sort_index()
        good = frac[frac >= 0.5]
        anyok = frac[frac > 0]
        load = good.index.max() if len(good) else (anyok.index.max() if len(anyok) else math.nan)
        s = np.zeros(0)
        sel = g[(g["load"] == load) & g["recalled_all"]]
        if len(sel):
            s = singular_values(np.stack(sel["weights"].to_list()), rank=int(key[3])).ravel()
        rows.append(dict(zip(GROUP_COLUMNS, key, strict=True)) | {
            "kappa": float(g["kappa"].iloc[0]), "load": float(load), "n_memories": len(sel),
            "singular_values": s})  # fmt: skip
    return pd.DataFrame(rows)


def spectrum_summary(
    label: str, W: torch.Tensor, problem: MemoryProblem, rank: int
) -> dict[str, Any]:
    """Kolmogorov–Smirnov distance of a batch of memories' top singular values to the theory.

    Parameters
    ----------
    label : str
        Name of the memories (the ``memory`` entry of the result).
    W : torch.Tensor, shape (B, d, d)
        The memories, one per problem of ``problem``.
    problem : MemoryProblem
        The batched instances they store (for the margin and the recall check).
    rank : int
        ``m``: the top ``m`` singular values are compared with the truncated quarter circle at
        ``kappa = m / d`` (the quarter circle for ``m = d``).

    Returns
    -------
    dict
        ``memory``, ``d``, ``m``, ``memories`` (B), ``values`` (n = B m), ``stored`` (memories
        that recall every association), ``KS`` (pooled values, each matrix normalised to mean
        square 1), ``KS 5 % level`` (``1.36 / sqrt(n)``, the level for n independent values)
        and ``margin`` (mean :func:`~.problems.normalised_margins` (``norm="gardner"``)).

    Raises
    ------
    TypeError, ValueError
        As :func:`singular_values` and
        :func:`~.problems.normalised_margins` (``norm="gardner"``).
    """
    d = problem.d
    s = singular_values(W, rank=rank)
    marg = normalised_margins(W, problem, norm="gardner")
    return {"memory": label, "d": d, "m": rank, "memories": int(W.shape[0]),
            "values": int(s.size), "stored": int(np.sum(marg > 0)),
            "KS": spectrum_ks_distance(s, rank / d),
            "KS 5 % level": 1.36 / math.sqrt(s.size),
            "margin": float(np.mean(marg))}  # fmt: skip


def spectrum_causes(
    table: pd.DataFrame,
    *,
    n_memories: int = 6,
    long_steps: int = 2000,
    lr: float = 0.2,
    margin_steps: int = 600,
    margin_lr: float = 0.005,
    beta: float = 300.0,
    large_d: int | None = None,
    large_alpha: float | None = None,
    load: float | None = None,
    seed: Seed = 0,
    device: str | torch.device | None = None,
) -> pd.DataFrame:
    """Test causes of a broad trained spectrum on the instances of one rank-``m`` sweep group.

    On the stored memories at one load of the group (``load``, first ``n_memories`` instances),
    compare with the truncated quarter circle the singular values of: the trained ``Q R^T``
    (stopped at first perfect recall); the same instances trained ``long_steps`` steps without
    early stop (longer training); the trained memories continued by
    :func:`~.max_margin.train_max_margin` (a margin-maximising objective at Gardner's
    normalisation); the rank-``m`` truncated Hebbian memory (the weighted-Hebbian form the
    spectral argument assumes, with equal weights); and, if ``large_d`` is given, ``Q R^T``
    trained at ``large_d`` with the same ``kappa`` at load ``large_alpha`` (larger ``d``).

    Parameters
    ----------
    table : pandas.DataFrame
        One group of :func:`assocmem.linear.measure.sweeps.capacity_sweep` (``rank`` set,
        ``keep_weights=True``).
    n_memories : int
        Stored instances used (>= 1; fewer if fewer were stored).
    long_steps, lr : int, float
        Budget and Adam rate of the longer training (the sweep's rate).
    margin_steps, margin_lr, beta
        Passed to :func:`~.max_margin.train_max_margin` as ``steps``, ``lr``, ``beta``.
    large_d : int, optional
        A larger embedding dimension (>= 2) for the last row.
    large_alpha : float, optional
        Load of the larger-``d`` instances (required with ``large_d``).
    load : float, optional
        Actual load (a value of the table's ``load`` column) whose stored memories are used;
        default the load :func:`assocmem.linear.measure.measured_spectra.stored_spectra` picks.
    seed : int or numpy.random.SeedSequence
        The root the sweep ran with: its instances are drawn again from their streams
        (:func:`assocmem.linear.instances.sampling.instance_stream`, labels from the ``seed``
        column) and checked against the stored weights; the larger-``d`` instances are instances
        ``0, 1, ...`` of the root ``child(seed, 1)``.
    device : str, torch.device or None
        Where to train.

    Returns
    -------
    pandas.DataFrame
        One row per memory, the fields of :func:`spectrum_summary`.

    Raises
    ------
    TypeError
        If ``table`` is not a DataFrame or a size or rate is not a number.
    ValueError
        If the table is not one rank-constrained group with weights, nothing was stored, the
        stored weights do not recall the instances drawn from ``seed`` (another root),
        ``large_d`` comes without ``large_alpha``, a step count is < 1 or a rate or ``beta`` is
        not a finite positive number.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas.DataFrame, got {type(table).__name__}")
    if "weights" not in table.columns or table[GROUP_COLUMNS].drop_duplicates().shape[0] != 1:
        raise ValueError("table must be one sweep group made with keep_weights=True")
    n_memories = check_int("n_memories", n_memories, 1)
    check_int("long_steps", long_steps, 1)
    check_int("margin_steps", margin_steps, 1)
    check_positive("lr", lr)
    check_positive("margin_lr", margin_lr)
    check_positive("beta", beta)
    d, m = int(table["d"].iloc[0]), int(table["rank"].iloc[0])
    if load is None:
        load = float(stored_spectra(table)["load"].iloc[0])
    sel = table[np.isclose(table["load"], load) & table["recalled_all"]].sort_values("seed")
    if len(sel) == 0:
        raise ValueError("no memory of this group stored every association")
    sel = sel.iloc[:n_memories]
    p = int(sel["p"].iloc[0])
    batch = sample_problems(p, d, [int(s) for s in sel["seed"]], seed=seed, device=device)
    W0 = torch.as_tensor(np.stack(sel["weights"].to_list()), device=batch.device)
    if not bool(recalled(W0, batch).all()):
        raise ValueError("the table's stored weights do not recall the instances of this seed: "
                         "pass the root seed the sweep ran with")  # fmt: skip
    rows = [spectrum_summary("trained QR^T, first perfect step", W0, batch, m)]
    longer = train_memory(batch, rank=m, steps=long_steps, lr=lr, early_stop=False)
    rows.append(spectrum_summary(f"trained QR^T, {long_steps} steps", longer.weights, batch, m))
    mm = train_max_margin(batch, m, init=W0, steps=margin_steps, lr=margin_lr, beta=beta)
    rows.append(spectrum_summary("max-margin, from trained QR^T", mm.weights, batch, m))
    heb = truncate_rank(hebbian_memory(batch), m)
    rows.append(spectrum_summary("truncated Hebbian", heb, batch, m))
    if large_d is not None:
        if large_alpha is None:
            raise ValueError("large_d needs large_alpha")
        dl = check_int("large_d", large_d, 2)
        ml = max(1, round(m / d * dl))
        pl = pairs_for_load(check_real("large_alpha", large_alpha, low=0.0, strict=True), dl)
        big = sample_problems(pl, dl, len(sel), seed=child(seed, 1), device=device)
        res = train_memory(big, rank=ml, steps=long_steps, lr=lr, patience=400)
        ok = torch.as_tensor(np.asarray(res.perfect), device=big.device)
        if bool(ok.any()):
            sub = stack_problems([big[i] for i in torch.nonzero(ok).ravel().tolist()])
            rows.append(spectrum_summary("trained QR^T, first perfect step",
                                         res.weights[ok], sub, ml))  # fmt: skip
    return pd.DataFrame(rows)


def spectrum_fits(spectra: pd.DataFrame) -> pd.DataFrame:
    """Kolmogorov–Smirnov distances of pooled stored spectra to the two laws, one row per group.

    Parameters
    ----------
    spectra : pandas.DataFrame
        :func:`stored_spectra` output (columns ``kappa``, ``load``, ``singular_values``).

    Returns
    -------
    pandas.DataFrame
        One row per group with values: ``κ``, ``load α``, ``n values``, ``KS (truncated) law``
        (to the truncated quarter circle at ``κ``), ``KS quarter circle`` and ``5 % level``
        (``1.36 / sqrt(n)``, the level for ``n`` independent values).

    Raises
    ------
    ValueError
        If a column is missing.
    """
    missing = [c for c in ("kappa", "load", "singular_values") if c not in spectra.columns]
    if missing:
        raise ValueError(f"spectra lacks the columns {missing} of stored_spectra's output")
    rows = []
    for k, load, s in zip(spectra["kappa"], spectra["load"], spectra["singular_values"],
                          strict=True):  # fmt: skip
        s = np.asarray(s, dtype=np.float64)
        if s.size:
            rows.append({"κ": float(k), "load α": float(load), "n values": int(s.size),
                         "KS (truncated) law": spectrum_ks_distance(s, float(k)),
                         "KS quarter circle": spectrum_ks_distance(s, 1.0),
                         "5 % level": 1.36 / math.sqrt(s.size)})  # fmt: skip
    return pd.DataFrame(rows)


def spectrum_fit_summary(fits: pd.DataFrame, kappas: dict[str, float]) -> dict[str, float]:
    """Return the distances chapter 4 quotes, by label: ``ks_<name>``, ``ks_<name>_level``.

    Parameters
    ----------
    fits : pandas.DataFrame
        :func:`spectrum_fits` output.
    kappas : dict of str -> float
        Label -> rank ratio of the row to quote (e.g. ``{"full": 1.0}``).

    Returns
    -------
    dict of str -> float
        ``ks_<name>`` (distance to the truncated law) and ``ks_<name>_level`` (its 5 % level).

    Raises
    ------
    ValueError
        If a rank ratio does not select exactly one row.
    """
    out = {}
    for name, k in kappas.items():
        row = fits[np.isclose(fits["κ"].to_numpy(float), float(k))]
        if len(row) != 1:
            raise ValueError(f"{len(row)} rows of fits have κ = {k}; need one")
        out[f"ks_{name}"] = float(row["KS (truncated) law"].iloc[0])
        out[f"ks_{name}_level"] = float(row["5 % level"].iloc[0])
    return out


def causes_summary(causes: pd.DataFrame) -> dict[str, float | int]:
    """Return the numbers chapter 4 quotes from :func:`spectrum_causes`, by label.

    Rows are found by their ``memory`` label and ``d``: ``first`` (trained, first perfect step,
    the sweep's ``d``), ``long`` (trained longer), ``margin`` (max-margin continuation),
    ``hebb`` (truncated Hebbian) and ``large`` (trained at the larger ``d``, if present).

    Parameters
    ----------
    causes : pandas.DataFrame
        :func:`spectrum_causes` output.

    Returns
    -------
    dict
        ``ks_<row>``, ``lvl_<row>`` (its 5 % level) and ``marg_<row>`` (mean margin) for each
        row present; ``spec_n`` (memories of ``first``) and, with a larger ``d``, ``large_n``.

    Raises
    ------
    ValueError
        If ``causes`` lacks a column or one of the first four rows.
    """
    missing = [c for c in ("memory", "d", "memories", "KS", "KS 5 % level", "margin")
               if c not in causes.columns]  # fmt: skip
    if missing:
        raise ValueError(f"causes lacks the columns {missing} of spectrum_causes' output")
    d0 = int(causes["d"].min())
    first = causes["memory"] == "trained QR^T, first perfect step"
    small = causes["d"] == d0
    rows = {
        "first": causes[first & small],
        "long": causes[causes["memory"].str.startswith("trained QR^T, ") & ~first],
        "margin": causes[causes["memory"].str.startswith("max-margin")],
        "hebb": causes[causes["memory"] == "truncated Hebbian"],
        "large": causes[first & ~small],
    }
    out: dict[str, float | int] = {}
    for key, r in rows.items():
        if len(r) != 1:
            if key == "large" and len(r) == 0:
                continue
            raise ValueError(f"causes must hold one {key!r} row, found {len(r)}")
        out |= {f"ks_{key}": float(r["KS"].iloc[0]), f"lvl_{key}": float(r["KS 5 % level"].iloc[0]),
                f"marg_{key}": float(r["margin"].iloc[0])}  # fmt: skip
    out["spec_n"] = int(rows["first"]["memories"].iloc[0])
    if len(rows["large"]):
        out["large_n"] = int(rows["large"]["memories"].iloc[0])
    return out


def singular_values(
    W: Any, normalize: bool = True, *, rank: int | None = None
) -> NDArray[np.float64]:
    """Singular values of a (batch of) weight matrices, largest first.

    Parameters
    ----------
    W : numpy.ndarray or torch.Tensor, shape (..., d_out, d_in)
        One matrix or a batch (e.g. one per seed, shape ``(n_seeds, d, d)``).
    normalize : bool, default True
        Divide each matrix's singular values by their root mean square, so that
        ``mean(s^2) = 1`` per matrix (the units of :func:`quarter_circle_pdf`).
    rank : int, optional
        Keep only the ``rank`` largest singular values (before normalising): for ``W = Q R^T``
        with ``m`` columns pass ``rank=m`` to drop the ``d - m`` numerical zeros; then compare with
        ``truncated_quarter_circle_pdf(s, m / d, unit_rms=True)``.

    Returns
    -------
    numpy.ndarray, float64, shape (..., k)
        ``k = rank`` or ``min(d_out, d_in)``; sorted in decreasing order along the last axis.

    Raises
    ------
    TypeError
        If ``W`` is not an array or tensor of real numbers, or ``rank`` not an integer.
    ValueError
        If ``W`` has fewer than 2 dimensions, ``rank`` is not in ``[1, min(d_out, d_in)]``, or a
        matrix is zero (or not finite) when ``normalize`` is True.

    Notes
    -----
    Computed with :func:`numpy.linalg.svd` in float64; the normalisation puts them in the units
    of the quarter-circle law (chapter 4).
    """
    try:
        if hasattr(W, "detach"):  # a torch.Tensor, taken without importing torch
            W = W.detach().cpu().double().numpy()
        arr = np.asarray(W, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"W must be an array or tensor of real numbers, got {type(W).__name__}"
        ) from exc
    if arr.ndim < 2:
        raise ValueError(f"W must have shape (..., d_out, d_in), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("W contains non-finite entries")
    s = np.linalg.svd(arr, compute_uv=False)  # (..., k), descending
    kmax = s.shape[-1]
    if rank is not None:
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise TypeError(f"rank must be an integer, got {type(rank).__name__}")
        if not 1 <= rank <= kmax:
            raise ValueError(f"rank must be in [1, {kmax}] (min(d_out, d_in)), got {rank}")
        s = s[..., : int(rank)]
    if normalize:
        rms = np.sqrt(np.mean(s**2, axis=-1, keepdims=True))
        if np.any(rms <= 0):
            raise ValueError("cannot normalise the singular values of a zero matrix")
        s = s / rms
    return np.ascontiguousarray(s)


def spectrum_ks_distance(s: ArrayLike, kappa: float = 1.0) -> float:
    """Kolmogorov–Smirnov distance between empirical singular values and the (truncated) law.

    Parameters
    ----------
    s : array_like
        Singular values normalised to mean square 1 (any shape; pooled), e.g. the output of
        ``singular_values(W, rank=m)``.
    kappa : float, default 1.0
        Rank ratio; compares with ``truncated_quarter_circle_cdf(., kappa, unit_rms=True)``
        (the quarter circle itself for ``kappa >= 1``).

    Returns
    -------
    float
        ``sup_s |F_emp(s) - F(s)|`` in [0, 1]; about ``1/sqrt(n)`` for ``n`` exact samples.

    Raises
    ------
    TypeError
        If ``kappa`` is not a real scalar.
    ValueError
        If ``s`` is empty or not finite, or ``kappa`` is invalid.

    Notes
    -----
    The one-sample Kolmogorov–Smirnov statistic against :func:`truncated_quarter_circle_cdf`
    (chapter 4).
    """
    k = check_scalar_kappa(kappa)
    x = np.sort(as_float_array(s, "s").ravel())
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("s must be a non-empty array of finite singular values")
    n = x.size
    F = np.asarray(truncated_quarter_circle_cdf(x, k, unit_rms=True))
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - F), np.max(F - (i - 1) / n)))


def fourth_moment_ratio(W: Any) -> Any:
    """Normalised fourth moment ``mean(s^4) / mean(s^2)^2`` of the singular values of each matrix.

    Parameters
    ----------
    W : numpy.ndarray or torch.Tensor, shape (..., d, d)
        One matrix or a batch.

    Returns
    -------
    float or numpy.ndarray, float64, shape (...)
        Scale free; ``tr((W W^T)^2) d / tr(W W^T)^2``. The quarter circle has exactly 2
        (:func:`quarter_circle_pdf`); see :func:`hebbian_fourth_moment` for the Hebbian memory.

    Raises
    ------
    TypeError, ValueError
        As :func:`singular_values`.

    Notes
    -----
    A single number per matrix, so a test over independent instances can use it (a permutation
    test over instances, :func:`assocmem.permutation.permutation_test`); chapter 1.
    """
    m4 = np.mean(singular_values(W) ** 4, axis=-1)
    return float(m4) if m4.ndim == 0 else m4


def _group_tag(label: str) -> str:
    """``"trained OP"`` -> ``"op"``, ``"i.i.d. Gaussian"`` -> ``"gaussian"``: last word, a-z0-9."""
    return re.sub(r"[^a-z0-9]", "", label.split()[-1].lower()) if label.split() else ""


@dataclass(frozen=True)
class MomentComparison:
    """Fourth singular-value moments of groups of matrices and permutation tests between them.

    Made by :func:`compare_fourth_moments`.

    Attributes
    ----------
    groups : dict of str -> numpy.ndarray
        Label -> :func:`fourth_moment_ratio` of each matrix of the group, float64, shape (n,)
        (what :func:`assocmem.linear.figures.plots_margin.plot_moment_ratio` draws).
    tests : pandas.DataFrame
        One row per test: ``test`` (its name), ``groups`` (``"a vs b"``, pooled groups joined by
        ``" + "``), ``mean difference`` (mean of a minus mean of b) and ``p`` (two-sided
        permutation p-value, :func:`assocmem.permutation.permutation_test`).
    """

    groups: dict[str, np.ndarray]
    tests: pd.DataFrame

    def summary(self) -> dict[str, Estimate | float]:
        """Return the numbers chapter 1 quotes, by label.

        Returns
        -------
        dict of str -> Estimate or float
            ``"m4_<tag>"``: each group's mean ``m_4`` with its 95 % Student-t interval over
            matrices (:func:`assocmem.stats.mean_interval`), ``<tag>`` the last word of the
            group's label, lower case, letters and digits only (``"trained OP"`` -> ``op``,
            ``"i.i.d. Gaussian"`` -> ``gaussian``); ``"perm_<test>"`` and ``"diff_<test>"``:
            each test's p-value and mean difference.
        """
        out: dict[str, Estimate | float] = {}
        for label, v in self.groups.items():
            est = mean_interval(v)
            assert isinstance(est, Estimate)
            out[f"m4_{_group_tag(label)}"] = est
        for row in self.tests.to_dict("records"):
            out[f"perm_{row['test']}"] = float(row["p"])
            out[f"diff_{row['test']}"] = float(row["mean difference"])
        return out


def compare_fourth_moments(
    groups: Mapping[str, ArrayLike],
    tests: Mapping[str, tuple[str | tuple[str, ...], str | tuple[str, ...]]],
    *,
    n_perm: int = 20000,
    seed: int = 0,
) -> MomentComparison:
    """Compare the normalised fourth moment ``m_4`` of groups of matrices by permutation tests.

    Parameters
    ----------
    groups : mapping of str -> array_like, float, shape (n,)
        Label -> one :func:`fourth_moment_ratio` per matrix (an independent instance), finite,
        at least one per group. The labels' tags (last word, lower case, letters and digits;
        :meth:`MomentComparison.summary`) must differ.
    tests : mapping of str -> (a, b)
        Test name -> the two sides, each a group label or a tuple of labels whose values are
        pooled (concatenated in the given order).
    n_perm : int
        As in :func:`assocmem.permutation.permutation_test` (exact when the relabellings number at
        most ``n_perm``), >= 1.
    seed : int
        Seed of the random relabellings, the same for every test.

    Returns
    -------
    MomentComparison
        The groups (float64 arrays) and one row of ``tests`` per test, in the given order.

    Raises
    ------
    TypeError
        If ``groups`` or ``tests`` is not a mapping.
    ValueError
        If a group is empty or not finite, two labels share a tag, a test names an unknown
        group, or ``n_perm`` < 1.

    Notes
    -----
    The matrix is the exchangeable unit (its singular values are dependent), as in
    :func:`assocmem.permutation.permutation_test`; chapter 1, "Spectra of the learnt weights"
    (the statistic ``m_4 = d tr (W W^T)^2 / (tr W W^T)^2``; derived for this book, not from the
    paper).

    Examples
    --------
    >>> c = compare_fourth_moments({"a": [2.0, 2.1], "b": [2.2, 2.3]}, {"ab": ("a", "b")})
    >>> s = c.summary()  # the two values on either side: 2 of 6 relabellings are as extreme
    >>> round(s["diff_ab"], 3), round(s["perm_ab"], 3), round(s["m4_a"].value, 3)
    (-0.2, 0.333, 2.05)
    """
    if not isinstance(groups, Mapping) or not isinstance(tests, Mapping):
        raise TypeError("groups and tests must be mappings")
    g: dict[str, np.ndarray] = {}
    for label, vals in groups.items():
        v = as_float_array(vals, f"groups[{label!r}]").ravel()
        if v.size < 1 or not np.all(np.isfinite(v)):
            raise ValueError(f"group {label!r} must hold at least one finite value")
        g[str(label)] = v
    tags = [_group_tag(k) for k in g]
    if len(set(tags)) != len(tags) or "" in tags:
        raise ValueError(f"the group labels' tags must be non-empty and distinct, got {tags}")

    def side(names: str | tuple[str, ...]) -> tuple[str, np.ndarray]:
        names = (names,) if isinstance(names, str) else tuple(names)
        unknown = [n for n in names if n not in g]
        if unknown or not names:
            raise ValueError(f"tests name unknown groups {unknown}; known: {list(g)}")
        return " + ".join(names), np.concatenate([g[n] for n in names])

    rows = []
    for name, (a, b) in tests.items():
        (la, va), (lb, vb) = side(a), side(b)
        diff, pv = permutation_test(va, vb, n_perm=n_perm, seed=seed)
        rows.append({"test": str(name), "groups": f"{la} vs {lb}", "mean difference": diff,
                     "p": pv})  # fmt: skip
    return MomentComparison(g, pd.DataFrame(rows, columns=["test", "groups", "mean difference",
                                                            "p"]))  # fmt: skip
