"""Transitions of rank-truncated Hebbian memories against the spectral theory (chapter 4).

:func:`truncated_hebbian_transitions` bootstraps, per ``d``, the perfect-recall transitions of
the truncated Hebbian memories of :func:`~.sweeps.truncated_hebbian_sweep` and their ratios to
the full rank (:func:`~.transitions.bootstrap_transitions`, :func:`~.transitions.transition_ratio`),
next to ``alpha_c(kappa) / 4`` and ``2 alpha_c(kappa)`` of :mod:`assocmem.linear.theory.spectra`;
:func:`ratio_comparison` sets a measured ratio against predictions. Measured numbers are
:class:`assocmem.estimate.Estimate` records (table cells that :func:`assocmem.pages.table` renders).

Source: the Hebbian analogue ``alpha_H(kappa) = alpha_c(kappa) / 4`` is a reconstruction (course
digest section 7); see chapter 4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from assocmem._validate import check_real
from assocmem.estimate import Estimate
from assocmem.linear.measure.tables import check_table
from assocmem.linear.measure.transitions import (
    BootstrapTransitions,
    bootstrap_transitions,
    transition_ratio,
)
from assocmem.linear.theory.load import pairs_for_load
from assocmem.linear.theory.spectra import critical_load, hebbian_critical_load

__all__ = ["ratio_comparison", "TruncatedHebbianTransitions", "truncated_hebbian_transitions"]


def ratio_comparison(measured: Estimate, predictions: Mapping[str, float], *,
                     label: str = "α(1/4) / α(1)") -> pd.DataFrame:  # fmt: skip
    """Tabulate a measured ratio with its interval next to predicted values (chapter 4).

    Parameters
    ----------
    measured : assocmem.estimate.Estimate
        The measured ratio (:func:`transition_ratio`).
    predictions : mapping of str -> float
        Name of each prediction -> its value.
    label : str
        Heading of the first column.

    Returns
    -------
    pandas.DataFrame
        Columns ``label`` (``"measured"``, then the prediction names) and ``value`` (the
        measured :class:`~assocmem.estimate.Estimate`, which :func:`assocmem.pages.table` renders
        with its interval, then the predicted floats).

    Raises
    ------
    TypeError
        If ``measured`` is not an Estimate or ``predictions`` not a mapping.
    """
    if not isinstance(measured, Estimate):
        raise TypeError(f"measured must be an Estimate, got {type(measured).__name__}")
    if not isinstance(predictions, Mapping):
        raise TypeError(f"predictions must be a mapping, got {type(predictions).__name__}")
    return pd.DataFrame({
        label: ["measured", *predictions],
        "value": [measured, *(float(v) for v in predictions.values())],
    })  # fmt: skip


@dataclass(frozen=True)
class TruncatedHebbianTransitions:
    """Perfect-recall transitions of truncated Hebbian memories, per ``d`` and rank ratio.

    Made by :func:`truncated_hebbian_transitions` (chapter 4). Look results up by label:
    :meth:`crossing` (``d``, ``kappa``) and :meth:`ratio` (``alpha_H(kappa) / alpha_H(1)``).

    Attributes
    ----------
    boots : dict of int -> BootstrapTransitions
        One bootstrap per ``d`` (the seeds resampled jointly for every rank).
    kappas : tuple of float
        The rank ratios shown, the full rank 1.0 among them.
    """

    boots: dict[int, BootstrapTransitions]
    kappas: tuple[float, ...]

    def _boot(self, d: int) -> BootstrapTransitions:
        if d not in self.boots:
            raise ValueError(f"d must be one of {sorted(self.boots)}, got {d!r}")
        return self.boots[d]

    def crossing(self, d: int, kappa: float) -> Estimate:
        """Transition load ``alpha_H(kappa)`` at dimension ``d`` (ValueError: no such group)."""
        return self._boot(d).estimate(kappa)

    def ratio(self, d: int, kappa: float) -> Estimate:
        """``alpha_H(kappa) / alpha_H(1)`` at dimension ``d``, with its bootstrap interval."""
        return transition_ratio(self._boot(d), kappa, 1.0)

    def table(self) -> pd.DataFrame:
        """One row per (d, kappa): measured transition and ratio with intervals, and the theory.

        Columns ``d``, ``κ``, ``n per load``, ``measured α_H`` (an
        :class:`~assocmem.estimate.Estimate`), ``α_c(κ)/4``
        (:func:`~.spectra.hebbian_critical_load`), ``α_H(κ)/α_H(1)`` (an Estimate; the float 1.0 at
        full rank) and ``2α_c(κ)`` (the predicted ratio, :func:`~.spectra.critical_load`).
        :func:`assocmem.pages.table` renders the Estimates with their intervals.
        """
        rows = []
        for d in sorted(self.boots):
            for k in self.kappas:
                a = self.crossing(d, k)
                q = self.ratio(d, k) if k < 1 else None
                rows.append({
                    "d": d, "κ": k, "n per load": a.n, "measured α_H": a,
                    "α_c(κ)/4": hebbian_critical_load(k),
                    "α_H(κ)/α_H(1)": q if q else 1.0,
                    "2α_c(κ)": 2 * critical_load(k),
                })  # fmt: skip
        return pd.DataFrame(rows)

    def summary(self) -> dict[str, Estimate | float | int]:
        """Return the numbers chapter 4 quotes, by label.

        ``d_small``, ``d_big`` (smallest and largest ``d``), ``n`` (instances per load),
        ``a_full``, ``a_quarter`` (transitions at ``kappa = 1`` and ``1/4``, largest ``d``),
        ``ratio_big``, ``ratio_half`` (ratios at ``kappa = 1/4`` and ``1/2``, largest ``d``),
        ``ratio_small`` (``kappa = 1/4``, smallest ``d``), ``pred_quarter``, ``pred_half``
        (``2 alpha_c(kappa)``) and ``p_quarter`` (pairs at ``a_quarter`` for the largest ``d``).
        """
        small, big = min(self.boots), max(self.boots)
        a_quarter = self.crossing(big, 0.25)
        return {
            "d_small": small, "d_big": big, "n": a_quarter.n,
            "a_full": self.crossing(big, 1.0), "a_quarter": a_quarter,
            "ratio_big": self.ratio(big, 0.25), "ratio_half": self.ratio(big, 0.5),
            "ratio_small": self.ratio(small, 0.25),
            "pred_quarter": 2 * critical_load(0.25), "pred_half": 2 * critical_load(0.5),
            "p_quarter": pairs_for_load(a_quarter.value, big),
        }  # fmt: skip


def truncated_hebbian_transitions(
    table: pd.DataFrame,
    kappas: Sequence[float] = (0.25, 0.5, 1.0),
    *,
    n_boot: int = 2000,
    seed: int = 1,
) -> TruncatedHebbianTransitions:
    """Bootstrap the transitions of a :func:`~.sweeps.truncated_hebbian_sweep` table per ``d``.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~.sweeps.truncated_hebbian_sweep` output for one or more ``d``, every ``d``
        holding the ranks ``kappa d`` for each of ``kappas``.
    kappas : sequence of float
        Rank ratios in (0, 1], including 1.0 (the reference of the ratios).
    n_boot, seed
        As in :func:`bootstrap_transitions` (one bootstrap per ``d``, the same seed).

    Returns
    -------
    TruncatedHebbianTransitions

    Raises
    ------
    ValueError
        If ``kappas`` lacks 1.0 or holds a value outside (0, 1], or as
        :func:`bootstrap_transitions`.

    Notes
    -----
    The Hebbian analogue ``alpha_H(kappa) = alpha_c(kappa) / 4`` is a reconstruction (course
    digest section 7); see chapter 4.
    """
    ks = tuple(check_real("kappas", k, low=0.0, strict=True) for k in kappas)
    if 1.0 not in ks or max(ks) > 1.0:
        raise ValueError(f"kappas must lie in (0, 1] and include 1.0, got {kappas!r}")
    check_table(table)
    boots = {int(d): bootstrap_transitions(g, n_boot=n_boot, seed=seed)
             for d, g in table.groupby("d", sort=True)}  # fmt: skip
    return TruncatedHebbianTransitions(boots, ks)
