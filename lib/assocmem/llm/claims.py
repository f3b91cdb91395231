"""The paper's claims on one task and on LAMA: typed estimates, each with its verdict.

Every verdict here comes from :func:`assocmem.estimate.verdict` (strict inequalities: an interval
with an end exactly on the reference resolves nothing), so the words are the enum's
(:class:`assocmem.estimate.Verdict`: "above", "below", "not resolved").

Derived verdicts are built from the verdicts of the intervals they summarise, never from an
interval of their own, so that one table cannot call one piece of evidence two ways:

- the **share** of ICL's gain that the additive score recovers, ``(add - zero) / (icl - zero)``,
  is testable only where ICL's gain over zero-shot is :attr:`~Verdict.ABOVE` 0. Then (dividing
  by a positive gain keeps signs) the share lies above 0 exactly when ``add - zero`` does, and
  below 1 exactly when ``add - ICL`` lies below 0: :func:`share_verdict` returns the pair
  ``(verdict(add - zero), verdict(add - ICL))`` and the table writes it "above 0, below 1". The
  share's own interval (a ratio bootstrapped on the same resamples) says the same wherever every
  resample has a positive gain; the table prints it only where it does, so no row of the table
  contradicts another or its own interval.
- the **collapse** onto the label set: the label mass rises (its gain :attr:`~Verdict.ABOVE` 0)
  and the ICL mass lies :attr:`~Verdict.ABOVE` the protocol's ``collapse_mass``.
- the **reading** of a collapse (:func:`collapse_reading`): the paper reads the collapse as better
  retrieval, which needs ICL's gain over zero-shot :attr:`~Verdict.ABOVE` 0 as well. A collapse
  whose gain is :attr:`~Verdict.BELOW` 0 or not resolved is not that reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from assocmem._validate import check_fraction
from assocmem.estimate import Estimate, Verdict, render, verdict
from assocmem.llm.evaluation import SetBootstrap

__all__ = [
    "ClassificationClaims",
    "LamaClaims",
    "share_verdict",
    "share_words",
    "against",
    "ClaimRow",
    "classification_claims",
    "collapse_reading",
    "READINGS",
]

#: What a model-task pair's collapse onto the labels says about the paper's reading (better
#: retrieval), by the verdict of ICL's gain over zero-shot; the last: the mass did not collapse.
#: Only the first is the paper's reading of the collapse as better retrieval.
READINGS: dict[Verdict | None, str] = {
    Verdict.ABOVE: "collapse, gain above 0",
    Verdict.UNRESOLVED: "collapse, gain not resolved",
    Verdict.BELOW: "collapse, gain below 0",
    None: "no collapse",
}


def collapse_reading(collapsed: bool, gain: Estimate) -> str:
    """Return the reading of one model-task pair (:data:`READINGS`).

    Parameters
    ----------
    collapsed : bool
        Whether the label mass collapses (:attr:`ClassificationClaims.collapsed`).
    gain : Estimate
        ICL minus zero-shot accuracy.

    Returns
    -------
    str
        ``READINGS[verdict(gain)]`` for a collapse, ``READINGS[None]`` otherwise: only a collapse
        with a gain above 0 is the paper's reading of it as better retrieval.
    """
    return READINGS[verdict(gain)] if collapsed else READINGS[None]


def against(v: Verdict, reference: float) -> str:
    """Write a verdict with its reference in the enum's words (``"not resolved vs 1"``).

    Its reference is written with ``:g``.
    """
    ref = f"{reference:g}"
    return f"{v} vs {ref}" if v is Verdict.UNRESOLVED else f"{v} {ref}"


class ClaimRow(NamedTuple):
    """One row of the verdict table: label, estimate (None: not measured), its spec, words."""

    label: str
    estimate: Estimate | None
    spec: str
    words: str


def share_verdict(
    gain: Estimate, add_zero: Estimate, add_icl: Estimate
) -> tuple[Verdict, Verdict] | None:
    """Return the share's verdict against 0 and against 1, from the differences it summarises.

    Parameters
    ----------
    gain : Estimate
        ICL minus zero-shot accuracy.
    add_zero, add_icl : Estimate
        Additive minus zero-shot, additive minus ICL.

    Returns
    -------
    (Verdict, Verdict) or None
        ``(verdict(add_zero), verdict(add_icl))``: the share against 0 and against 1 (ABOVE 1:
        more than all of the gain); None when ``verdict(gain)`` is not ABOVE (not testable).
    """
    if verdict(gain) is not Verdict.ABOVE:
        return None
    return verdict(add_zero), verdict(add_icl)


def share_words(pair: tuple[Verdict, Verdict] | None) -> str:
    """Write :func:`share_verdict` in the enum's words: ``"above 0, below 1"``.

    ``"not resolved vs 1"`` for an unresolved end; ``Verdict.NOT_TESTABLE``'s words for None
    (ICL's gain is not above zero: nothing to recover).
    """
    if pair is None:
        return str(Verdict.NOT_TESTABLE)
    return f"{against(pair[0], 0)}, {against(pair[1], 1)}"


#: The differences' labels in the verdict table (at most 22 columns).
_LABELS = {
    "mass_gain": "label mass, ICL - zero",
    "gain_zero": "acc. ICL - zero-shot",
    "gain_cal": "acc. ICL - calibrated",
    "labels": "correct - wrong labels",
    "add_zero": "additive - zero-shot",
    "add_cal": "additive - calibrated",
    "add_icl": "additive - ICL",
    "shots": "acc. ICL - 1-shot ICL",
}


@dataclass(frozen=True)
class ClassificationClaims:
    """The paper's claims on one classification task, each an Estimate (bootstrap over sets).

    Attributes
    ----------
    mass_gain : Estimate
        Label mass at the last layer, ICL minus zero-shot.
    mass_icl : Estimate
        Label mass at the last layer with ICL.
    gain_zero, gain_cal : Estimate
        ICL minus zero-shot, minus calibrated zero-shot accuracy.
    labels : Estimate
        ICL with correct minus with wrong demonstration labels.
    add_zero, add_cal, add_icl : Estimate
        The additive score minus zero-shot, calibrated zero-shot and ICL.
    recovered : Estimate or None
        The share ``(add - zero) / (icl - zero)`` of ICL's gain the additive score recovers;
        None where the gain is not above 0 (not testable).
    collapse_mass : float
        The label mass above which the ICL mass counts as a collapse.
    shots : Estimate or None
        k-shot minus 1-shot ICL accuracy, the 1-shot prompts showing the first demonstration of
        each k-shot set (the same sets); None where the 1-shot prompts were not run.
    """

    mass_gain: Estimate
    mass_icl: Estimate
    gain_zero: Estimate
    gain_cal: Estimate
    labels: Estimate
    add_zero: Estimate
    add_cal: Estimate
    add_icl: Estimate
    recovered: Estimate | None
    collapse_mass: float
    shots: Estimate | None = None

    #: The differences, in the verdict table's order.
    DIFFERENCES = ("mass_gain", "gain_zero", "shots", "gain_cal", "labels", "add_zero",
                   "add_cal", "add_icl")  # fmt: skip

    def differences(self) -> dict[str, Estimate]:
        """Return the differences by name (:attr:`DIFFERENCES`; ``shots`` where measured)."""
        return {name: getattr(self, name) for name in self.DIFFERENCES
                if getattr(self, name) is not None}  # fmt: skip

    def verdicts(self) -> dict[str, Verdict]:
        """Return each difference's verdict against 0 (:func:`assocmem.estimate.verdict`)."""
        return {name: verdict(e) for name, e in self.differences().items()}

    @property
    def collapse(self) -> Verdict:
        """The ICL label mass against ``collapse_mass``."""
        return verdict(self.mass_icl, self.collapse_mass)

    @property
    def collapsed(self) -> bool:
        """Whether the mass rises (gain above 0) and the ICL mass lies above ``collapse_mass``."""
        return verdict(self.mass_gain) is Verdict.ABOVE and self.collapse is Verdict.ABOVE

    @property
    def reading(self) -> str:
        """:func:`collapse_reading` of this task: the collapse read against ICL's gain."""
        return collapse_reading(self.collapsed, self.gain_zero)

    @property
    def share(self) -> tuple[Verdict, Verdict] | None:
        """:func:`share_verdict` of this task's differences."""
        return share_verdict(self.gain_zero, self.add_zero, self.add_icl)

    @property
    def shown_share(self) -> Estimate | None:
        """The share's estimate where its own interval says what its verdicts say, else None.

        Its verdicts come from the differences (:attr:`share`); the share's own interval, a
        ratio on the same resamples, agrees with them wherever every resample has a positive
        gain, and can differ at the margin otherwise: it is shown only where it agrees.
        """
        pair, rec = self.share, self.recovered
        if pair is None or rec is None:
            return None
        return rec if (verdict(rec, 0), verdict(rec, 1)) == pair else None

    def rows(self) -> list[ClaimRow]:
        """Return the verdict table's rows: every claim, its estimate and its verdict in words.

        Each difference is written against 0 (:func:`against`), the ICL label mass against
        ``collapse_mass``; the share takes two rows, its verdict against 0 and against 1 being
        those of additive - zero-shot and additive - ICL (:func:`share_verdict`), so no two rows
        can call the same evidence two ways.
        """
        v = self.verdicts()
        diff = {name: ClaimRow(label, getattr(self, name), "+.3f", against(v[name], 0))
                for name, label in _LABELS.items() if name in v}  # fmt: skip
        mass = ClaimRow("label mass with ICL", self.mass_icl, ".3f",
                        against(self.collapse, self.collapse_mass))  # fmt: skip
        pair = self.share
        if pair is None:
            share = [ClaimRow("share of ICL's gain", None, ".2f", str(Verdict.NOT_TESTABLE))]
        else:  # the words are the differences'; the interval only where it agrees with them
            share = [ClaimRow("share of ICL's gain", self.shown_share, ".2f",
                              against(pair[0], 0)),
                     ClaimRow("", None, ".2f", against(pair[1], 1))]  # fmt: skip
        return [
            diff["mass_gain"],
            mass,
            *(diff[n] for n in self.DIFFERENCES[1:] if n in diff),
            *share,
        ]

    def summary(self) -> dict[str, Estimate | Verdict | str | float]:
        """Return the claims by the labels the page glues.

        Returns
        -------
        dict
            Each difference (Estimate) and ``v_<name>`` (its Verdict); ``mass_icl``,
            ``v_collapse`` (the ICL mass against ``collapse_mass``), ``collapse_mass``,
            ``reading`` (:attr:`reading`);
            ``recovered`` (:attr:`shown_share`, only where testable and shown),
            ``v_recovered`` (:func:`share_words`) and ``share_text``, the sentence's words for
            the share: ``"1.53 [1.10, 4.01] (<words>)"`` where shown, else the words.
        """
        out: dict[str, Estimate | Verdict | str | float] = dict(self.differences())
        out.update({f"v_{name}": v for name, v in self.verdicts().items()})
        out.update({"mass_icl": self.mass_icl, "v_collapse": self.collapse,
                    "collapse_mass": self.collapse_mass, "reading": self.reading,
                    "v_recovered": share_words(self.share)})  # fmt: skip
        words = str(share_words(self.share))
        out["share_text"] = words
        if self.shown_share is not None:
            out["recovered"] = self.shown_share
            out["share_text"] = f"{render(self.shown_share, '.2f')} ({words})"
        return out


def classification_claims(b: SetBootstrap, collapse_mass: float) -> ClassificationClaims:
    """Build the claims from the two-stage bootstrap of one task's per-query outcomes.

    Parameters
    ----------
    b : SetBootstrap
        Over the columns ``zero``, ``cal``, ``icl``, ``wrong``, ``add``, ``mass_zero``,
        ``mass_icl`` (:meth:`TaskResult.bootstrap`).
    collapse_mass : float
        In (0, 1].

    Returns
    -------
    ClassificationClaims
        Differences by :meth:`SetBootstrap.difference` (the exact bound where two methods agree
        on every query); ``shots`` (``icl - one``) where ``b`` has the column ``one``. The share
        is the ratio on the same resamples, or, where the additive
        score and zero-shot agree on every query, ``[-u, u]`` with ``u`` the exact bound on
        ``add - zero`` over the lower end of ICL's gain; None where the gain is not above 0.

    Raises
    ------
    ValueError
        If ``collapse_mass`` is outside (0, 1].
    """
    collapse = check_fraction("collapse_mass", collapse_mass)
    gain = b.difference("icl", "zero", "ICL - zero-shot")
    add_zero = b.difference("add", "zero", "additive - zero-shot")

    def share(m: Mapping[str, np.ndarray]) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return (m["add"] - m["zero"]) / (m["icl"] - m["zero"])

    recovered: Estimate | None
    if verdict(gain) is not Verdict.ABOVE:
        recovered = None
    elif np.array_equal(b.columns["add"], b.columns["zero"]):  # no query discordant
        # |add - zero| <= add_zero.high and icl - zero >= gain.low each fail with probability
        # at most about 2.5 % (one end of each 95 % interval is used): jointly about 95 %
        u = add_zero.high / gain.low
        how = "exact bound on additive - zero-shot over the lower end of ICL's gain"
        recovered = Estimate(0.0, -u, u, add_zero.n, how)
    else:
        recovered = b.estimate(share, "share recovered")
    return ClassificationClaims(
        mass_gain=b.estimate(lambda m: m["mass_icl"] - m["mass_zero"], "mass gain"),
        mass_icl=b.mean("mass_icl"),
        gain_zero=gain,
        gain_cal=b.difference("icl", "cal", "ICL - calibrated"),
        labels=b.difference("icl", "wrong", "correct - wrong labels"),
        add_zero=add_zero,
        add_cal=b.difference("add", "cal", "additive - calibrated"),
        add_icl=b.difference("add", "icl", "additive - ICL"),
        recovered=recovered,
        collapse_mass=collapse,
        shots=b.difference("icl", "one", "k-shot - 1-shot ICL") if "one" in b.columns else None,
    )


@dataclass(frozen=True)
class LamaClaims:
    """LAMA P36: supportive against adversarial context, paired query by query.

    Attributes
    ----------
    demos : Estimate
        Whole-word top-1 after k correct minus after k wrong demonstrations (two-stage bootstrap
        over sets and queries, or the exact bound where the two agree on every query).
    vector : Estimate
        Whole-word target probability under the supportive minus the adversarial context
        vector, per query averaged over the late context layers and every lambda (percentile
        bootstrap over queries).
    """

    demos: Estimate
    vector: Estimate

    def rows(self) -> list[ClaimRow]:
        """Return the verdict table's rows: each difference against 0 (:func:`against`)."""
        return [ClaimRow("top-1 correct - wrong", self.demos, "+.3f",
                         against(verdict(self.demos), 0)),
                ClaimRow("p(target) c+ - c-", self.vector, "+.4f",
                         against(verdict(self.vector), 0))]  # fmt: skip

    def summary(self) -> dict[str, Estimate | Verdict]:
        """``demos``, ``vector`` and their verdicts against 0, ``v_demos`` and ``v_vector``."""
        return {"demos": self.demos, "vector": self.vector, "v_demos": verdict(self.demos),
                "v_vector": verdict(self.vector)}  # fmt: skip
