"""The typed results of chapter 6's experiments: one per experiment, named after it.

- :class:`ProbeResult` -- the linear probe and the unembedding alignment per layer (App. D.4).
- :class:`TaskResult` -- everything measured on one classification task: per-query outcomes,
  the additive score's grids and choice, the logit-lens profiles; its pooled rates
  (:meth:`TaskResult.rates`) and claims (:meth:`TaskResult.claims`, :mod:`.claims`) are
  :class:`~assocmem.estimate.Estimate` s with a two-stage bootstrap over demonstration sets.
- :class:`LamaResult` -- LAMA P36: whole-word top-1 rates and the supportive/adversarial effect.

Each result's ``summary()`` maps the labels the page glues to Estimates, Verdicts, numbers and
text; intervals reach text only through :func:`assocmem.estimate.render`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from assocmem._validate import check_fraction, check_int, check_real
from assocmem.estimate import Estimate, Verdict, render
from assocmem.llm.claims import READINGS, ClassificationClaims, LamaClaims, classification_claims
from assocmem.llm.evaluation import PairedComparison, SetBootstrap, paired_comparison, set_bootstrap
from assocmem.llm.probes import LamaEffect
from assocmem.llm.prompts import Split
from assocmem.llm.protocol import TASK_TITLES, Chapter6Protocol
from assocmem.llm.registry import MODELS
from assocmem.stats import bootstrap_interval, mean_interval, rate

__all__ = [
    "ProbeResult",
    "TaskResult",
    "LamaResult",
    "Chapter6Run",
    "format_share",
    "format_words",
    "order_words",
]

#: The page's protocol: the thresholds' defaults.
_PAGE = Chapter6Protocol()


@dataclass(frozen=True)
class ProbeResult:
    """Linear-probe separability and unembedding alignment per layer (App. D.4, Fig. 7).

    Attributes
    ----------
    k : int
        Demonstrations in the prompts whose states are probed.
    correct : numpy.ndarray, bool, shape (L + 1, n)
        Held-out probe correctness per layer and query.
    alignment : numpy.ndarray, shape (L + 1, n)
        Cosine margin towards the label's unembedding row (:func:`label_alignment`).
    """

    k: int
    correct: np.ndarray
    alignment: np.ndarray

    @property
    def accuracy(self) -> list[Estimate]:
        """Probe accuracy with its Wilson interval (:func:`assocmem.stats.rate`), per layer."""
        return [rate(c) for c in self.correct]

    @property
    def alignment_mean_ci(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean cosine margin per layer and the half-width of its 95 % Student-t interval.

        (:func:`assocmem.stats.mean_interval` over the queries.)
        """
        mean, low, high = mean_interval(self.alignment.T)
        return np.asarray(mean), (np.asarray(high) - np.asarray(low)) / 2

    def peak_layer(self) -> int:
        """Layer of the best held-out probe accuracy (the first, if tied)."""
        return int(np.argmax([e.value for e in self.accuracy]))

    def reach_layer(self, tol: float = _PAGE.reach_tol) -> int:
        """First layer whose probe accuracy is within ``tol`` (>= 0) of the best one.

        Raises
        ------
        ValueError
            If ``tol`` is negative.
        """
        tol = check_real("tol", tol, low=0.0)
        acc = np.array([e.value for e in self.accuracy])
        return int(np.argmax(acc >= acc.max() - tol))

    def alignment_onset(self, frac: float = _PAGE.align_frac) -> int:
        """First layer from which the mean alignment margin stays at or above ``frac`` of its max.

        0 when every layer is; ``L + 1`` when none is (a negative maximum).

        Raises
        ------
        ValueError
            If ``frac`` is outside (0, 1].
        """
        frac = check_fraction("frac", frac)
        align = self.alignment_mean_ci[0]
        above = align >= frac * align.max()
        return int(len(above) - np.argmin(above[::-1])) if not above.all() else 0

    def summary(
        self,
        tol: float = _PAGE.reach_tol,
        frac: float = _PAGE.align_frac,
        order_layers: int = _PAGE.order_layers,
    ) -> dict[str, Estimate | float | int | str]:
        """Return the probe's numbers by the labels chapter 6 quotes.

        Parameters
        ----------
        tol : float
            Tolerance of :meth:`reach_layer` (>= 0).
        frac : float
            Fraction of :meth:`alignment_onset`, in (0, 1].
        order_layers : int
            Layers (>= 0) by which the two layers may differ and the order still be read as not
            resolved: the probe's per-layer intervals are wider than ``tol``, so a difference of
            a layer or two is within their uncertainty.

        Returns
        -------
        dict
            ``probe_peak`` (:meth:`peak_layer`), ``probe_best`` (its accuracy, an Estimate),
            ``probe_reach`` (:meth:`reach_layer`), ``align_half`` (:meth:`alignment_onset`) and
            ``order`` (:func:`order_words`).

        Raises
        ------
        ValueError
            If a threshold is out of range.
        """
        peak, reach, half = self.peak_layer(), self.reach_layer(tol), self.alignment_onset(frac)
        order = order_words(reach, half, order_layers)
        return {"probe_peak": peak, "probe_reach": reach, "probe_best": self.accuracy[peak],
                "align_half": half, "order": order}  # fmt: skip


def order_words(reach: int, onset: int, order_layers: int) -> str:
    """Which comes first, separability or alignment, by chapter 6's one rule.

    Parameters
    ----------
    reach : int
        Layer by which the probe reaches its best (:meth:`ProbeResult.reach_layer`).
    onset : int
        Layer from which the alignment has set in (:meth:`ProbeResult.alignment_onset`; 0: no
        onset seen, the margin never falls below the fraction).
    order_layers : int
        Largest difference in layers read as not resolved (>= 0).

    Returns
    -------
    str
        ``"no onset seen"`` when ``onset`` is 0; ``"separability first"`` when ``reach <
        onset - order_layers``; ``"alignment first"`` when ``onset < reach - order_layers``;
        else ``"not resolved (within {order_layers} layers)"``.

    Examples
    --------
    >>> order_words(10, 11, 2), order_words(3, 11, 2), order_words(12, 5, 2)
    ('not resolved (within 2 layers)', 'separability first', 'alignment first')
    """
    for name, v in (("reach", reach), ("onset", onset), ("order_layers", order_layers)):
        check_int(name, v, 0)
    if onset == 0:
        return "no onset seen"
    if reach < onset - order_layers:
        return "separability first"
    if onset < reach - order_layers:
        return "alignment first"
    return f"not resolved (within {order_layers} layers)"


@dataclass(frozen=True)
class TaskResult:
    """Everything measured on one classification task.

    Attributes
    ----------
    task, source, model : str
    split : Split
    ks : tuple of int
        Demonstration counts (e.g. (4,)).
    n_prefixes : int
        Demonstration sets per k.
    label_words : tuple of str
    layers : list of int
        Context layers of the additive score.
    lambdas : numpy.ndarray, shape (m,)
    correct_zero : numpy.ndarray, bool, shape (n_test,)
    correct_icl, correct_add : dict of k to numpy.ndarray, bool, shape (n_test,)
        k-shot ICL, and the additive score at the selected (layer, lambda) with c-bar from k shots.
    acc_sel, acc_test : dict of k to numpy.ndarray, shape (len(layers), m)
        Additive accuracy grid on the selection queries (used to choose) and on the test queries
        (exploration only; never used to choose).
    chosen : dict of k to (int, float)
    profile_zero, profile_icl : dict of numpy arrays, shape (n_profile, L + 1)
        Logit-lens statistics of the first n_profile test queries (ICL: the largest k).
    probe : ProbeResult or None
    seed : int
    sets : numpy.ndarray, int64, shape (n_test,) or None
        Demonstration set of each test query (largest k).
    correct_cal : numpy.ndarray, bool, shape (n_test,) or None
        Calibrated zero-shot (:func:`calibrated_predict`, bias from the ``sel`` queries).
    correct_wrong : numpy.ndarray, bool, shape (n_test,) or None
        Largest-k ICL with every demonstration label wrong (same sets).
    vocab_zero, vocab_icl : numpy.ndarray, bool, shape (n_test,) or None
        Correct over the whole vocabulary: the label token is the argmax of all V tokens.
    mass_zero, mass_icl : numpy.ndarray, float64, shape (n_test,) or None
        Probability mass on the label tokens at the last layer, per test query.
    chat : dict of str to numpy.ndarray, bool, shape (n_chat,)
        ``"zero"`` and ``"icl"`` through the chat template, on the first ``n_chat <= n_test``
        test queries (which cycle through the demonstration sets); empty: not run.
    correct_one : numpy.ndarray, bool, shape (n_test,) or None
        1-shot ICL, each test query shown the first demonstration of its largest-k set (the
        same sets, so k-shot minus 1-shot is paired query by query); None: not run.
    protocol : Chapter6Protocol or None
        The protocol that made the result (:func:`.experiments.run_protocol_task`): its
        thresholds are those of :meth:`claims` and :meth:`summary`; None: the page's defaults.
    """

    task: str
    source: str
    model: str
    split: Split
    ks: tuple[int, ...]
    n_prefixes: int
    label_words: tuple[str, ...]
    layers: list[int]
    lambdas: np.ndarray
    correct_zero: np.ndarray
    correct_icl: dict[int, np.ndarray]
    correct_add: dict[int, np.ndarray]
    acc_sel: dict[int, np.ndarray]
    acc_test: dict[int, np.ndarray]
    chosen: dict[int, tuple[int, float]]
    profile_zero: dict[str, np.ndarray]
    profile_icl: dict[str, np.ndarray]
    probe: ProbeResult | None = None
    seed: int = 0
    sets: np.ndarray | None = None
    correct_cal: np.ndarray | None = None
    correct_wrong: np.ndarray | None = None
    vocab_zero: np.ndarray | None = None
    vocab_icl: np.ndarray | None = None
    mass_zero: np.ndarray | None = None
    mass_icl: np.ndarray | None = None
    chat: dict[str, np.ndarray] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)
    correct_one: np.ndarray | None = None
    protocol: Chapter6Protocol | None = None

    @property
    def n_test(self) -> int:
        """Number of test queries."""
        return len(self.correct_zero)

    @property
    def k(self) -> int:
        """The largest k (used for the profiles, the probe and the controls)."""
        return max(self.ks)

    def columns(self) -> dict[str, np.ndarray]:
        """Per-test-query outcomes of every method measured, by short name.

        ``zero``, ``cal``, ``icl`` (largest k), ``add`` (additive with the largest k's c-bar),
        ``wrong``, ``one`` (1-shot ICL), ``vocab_zero``, ``vocab_icl``, ``mass_zero``,
        ``mass_icl`` (those that were run); the chat-template runs, on a prefix of the test
        queries, are in :attr:`chat`.
        """
        k = self.k
        cols: dict[str, np.ndarray | None] = {
            "zero": self.correct_zero, "cal": self.correct_cal, "icl": self.correct_icl[k],
            "add": self.correct_add[k], "wrong": self.correct_wrong, "one": self.correct_one,
            "vocab_zero": self.vocab_zero, "vocab_icl": self.vocab_icl,
            "mass_zero": self.mass_zero, "mass_icl": self.mass_icl,
        }  # fmt: skip
        return {name: np.asarray(v, float) for name, v in cols.items() if v is not None}

    @functools.cached_property
    def bootstrap(self) -> SetBootstrap:
        """Two-stage bootstrap of :meth:`columns` over demonstration sets and their queries.

        Raises
        ------
        ValueError
            If the result has no set assignment (``sets`` None) or fewer than 2 sets.
        """
        if self.sets is None:
            raise ValueError("this result has no demonstration-set assignment (sets is None)")
        return set_bootstrap(self.columns(), self.sets, seed=self.seed)

    def per_set(self) -> list[Estimate]:
        """ICL accuracy (largest k) of the test queries of each demonstration set (Wilson)."""
        assert self.sets is not None
        icl = self.correct_icl[self.k]
        return [rate(icl[self.sets == s]) for s in np.unique(self.sets)]

    #: Columns that do not depend on the demonstration sets (Wilson intervals over queries).
    SET_FREE = ("zero", "cal", "vocab_zero", "mass_zero")

    def rates(self) -> dict[str, Estimate]:
        """Test accuracy of every method, pooled over the demonstration sets.

        Methods that see no demonstrations (zero-shot, calibrated, whole-vocabulary and chat
        zero-shot) carry Wilson intervals over the queries; those that do (ICL, wrong labels,
        the additive score, whole-vocabulary and chat ICL) the bootstrap over sets
        (:attr:`bootstrap`), which includes the set-to-set spread. Without a set assignment:
        Wilson intervals throughout.
        """
        names = {"zero": "zero-shot", "cal": "calibrated zero-shot",
                 "one": "1-shot ICL (same sets)", "icl": f"{self.k}-shot ICL",
                 "wrong": f"{self.k}-shot, wrong labels", "add": f"additive ({self.k}-shot c)",
                 "vocab_zero": "zero-shot, whole vocab", "vocab_icl": "ICL, whole vocab",
                 "chat_zero": "zero-shot, chat", "chat_icl": "ICL, chat"}  # fmt: skip
        cols = self.columns()
        out = {names[c]: self._rate(c, cols[c]) for c in names if c in cols}
        out.update({names[f"chat_{t}"]: e for t, e in self.chat_rates().items()})
        return out

    def chat_rates(self) -> dict[str, Estimate]:
        """Accuracy through the chat template (``zero``, ``icl``) on its n_chat test queries.

        Zero-shot: Wilson; ICL: the two-stage bootstrap over the sets of those queries (Wilson
        without a set assignment). Empty when the chat template was not run.
        """
        out: dict[str, Estimate] = {}
        for tag, col in self.chat.items():
            m = len(col)
            if tag == "zero" or self.sets is None:
                out[tag] = rate(np.asarray(col, bool))
            else:
                sub = set_bootstrap({tag: col}, self.sets[:m], seed=self.seed)
                out[tag] = sub.mean(tag)
        return out

    def _rate(self, name: str, column: np.ndarray) -> Estimate:
        if self.sets is None or name in self.SET_FREE:
            return rate(column.astype(bool))
        return self.bootstrap.mean(name)

    def comparisons(self, k: int | None = None) -> dict[str, PairedComparison]:
        """Paired comparisons of the additive score (c-bar from k shots) with zero-shot and ICL."""
        k = self.k if k is None else k
        add = self.correct_add[k]
        return {
            "additive - zero-shot": paired_comparison(add, self.correct_zero, seed=self.seed),
            f"additive - {k}-shot ICL": paired_comparison(add, self.correct_icl[k], seed=self.seed),
        }

    def claims(self, collapse_mass: float | None = None) -> ClassificationClaims:
        """Return the paper's claims tested on this task (:func:`.claims.classification_claims`).

        Estimates by the two-stage bootstrap over sets (:attr:`bootstrap`), each with its
        verdict from :func:`assocmem.estimate.verdict`; the share of ICL's gain recovered gets its
        verdict from the differences it summarises (:func:`.claims.share_verdict`).

        Parameters
        ----------
        collapse_mass : float, optional
            Label mass (at the last layer, mean over test queries) that counts as a collapse
            onto the label set, in (0, 1]; default: the result's protocol's.

        Raises
        ------
        ValueError
            If the calibrated or wrong-label runs are missing, or there are no sets.
        """
        if self.correct_cal is None or self.correct_wrong is None or self.mass_zero is None:
            raise ValueError("claims need the calibrated, wrong-label and mass measurements")
        mass = (self.protocol or _PAGE).collapse_mass if collapse_mass is None else collapse_mass
        return classification_claims(self.bootstrap, mass)

    def summary(
        self,
        k: int | None = None,
        *,
        protocol: Chapter6Protocol | None = None,
    ) -> dict[str, Estimate | Verdict | float | int | str]:
        """Return every number chapter 6 quotes about this task, by label.

        Parameters
        ----------
        k : int, optional
            Demonstrations behind the compared additive score (default: the largest).
        protocol : Chapter6Protocol, optional
            Its thresholds: ``reach_tol`` and ``align_frac`` of the probe
            (:meth:`ProbeResult.summary`), ``collapse_mass`` of :meth:`claims`; default: the
            result's own (:attr:`protocol`), else the page's.

        Returns
        -------
        dict
            ``n`` (test queries), ``k``, ``sets``; at the last layer, over the profiled
            queries, the median entropy N_eff ``neff_zero``/``neff_icl``; the pooled accuracies
            (:meth:`rates`, keys ``zero``, ``cal``, ``one``, ``icl``, ``wrong``, ``add``,
            ``vocab_zero``, ``vocab_icl``, ``chat_zero``, ``chat_icl`` where run) and the label
            masses ``mass_zero``/``mass_icl`` (Estimates); ``icl_sets`` (the per-set ICL accuracies,
            as text); :meth:`ClassificationClaims.summary` of :meth:`claims` where the controls
            were run; the McNemar p-values of the
            additive score against zero-shot and ICL (``diff_zero_p``, ``diff_icl_p``);
            ``chosen`` (the selected layer and lambda, as text); and, with a probe,
            :meth:`ProbeResult.summary`.

        Raises
        ------
        KeyError
            If ``k`` is not one of :attr:`ks`.
        """
        k = self.k if k is None else k
        if k not in self.ks:
            raise KeyError(f"k must be one of {self.ks}, got {k}")
        protocol = protocol or self.protocol or _PAGE
        out: dict[str, Estimate | Verdict | float | int | str] = {"n": self.n_test, "k": k}
        for kind, prof in (("zero", self.profile_zero), ("icl", self.profile_icl)):
            out[f"neff_{kind}"] = float(np.median(prof["neff_entropy"][:, -1]))
        if self.sets is not None:
            out["sets"] = len(np.unique(self.sets))
            cols = self.columns()
            out.update({c: self._rate(c, v) for c, v in cols.items() if not c.startswith("mass")})
            out.update({f"chat_{t}": e for t, e in self.chat_rates().items()})
            if self.chat:
                out["n_chat"] = len(next(iter(self.chat.values())))
            out.update({c: self.bootstrap.mean(c) for c in ("mass_zero", "mass_icl") if c in cols})
            out["icl_sets"] = ", ".join(f"{e.value:.2f}" for e in self.per_set())
            if self.correct_cal is not None and self.correct_wrong is not None:
                out.update(self.claims(protocol.collapse_mass).summary())
        else:
            out["zero"] = rate(self.correct_zero)
            out["icl"] = rate(self.correct_icl[k])
            out["add"] = rate(self.correct_add[k])
        comps = self.comparisons(k)
        out["diff_zero_p"] = comps["additive - zero-shot"].p_mcnemar
        out["diff_icl_p"] = comps[f"additive - {k}-shot ICL"].p_mcnemar
        ell, lam = self.chosen[k]
        out["chosen"] = f"ℓ = {ell}, λ = {lam:.3g}"
        if self.probe is not None:
            out.update(self.probe.summary(protocol.reach_tol, protocol.align_frac,
                                          protocol.order_layers))  # fmt: skip
        return out


#: Format specs of the signed differences and the share in :meth:`TaskResult.summary`, for
#: :func:`assocmem.pages.glue_all` (everything else: ``".3f"``).
SIGNED = ("mass_gain", "gain_zero", "shots", "gain_cal", "labels", "add_zero", "add_cal",
          "add_icl")  # fmt: skip


#: Format specs of the LAMA effects in :meth:`LamaResult.summary` (``"+.3f"``: a difference of
#: rates; ``"+.4f"``: a difference of probabilities per query, smaller).
LAMA_SPECS = {"demos": "+.3f", "vector": "+.4f"}


def summary_specs(summary: dict[str, object]) -> dict[str, str]:
    """Return label -> format spec for the estimates of a summary that are not ``".3f"``.

    The signed differences (:data:`SIGNED`) are written ``"+.3f"``, the share ``".2f"``; only
    labels the summary has are returned (what ``glue_all(summary, spec=...)`` accepts).
    """
    specs = {key: "+.3f" for key in SIGNED if key in summary}
    if "recovered" in summary:
        specs["recovered"] = ".2f"
    return specs


def format_share(zero: float, plus: float, minus: float) -> float | None:
    """Share of what correct demonstrations add that wrong ones add too: ``(m - z) / (p - z)``.

    Parameters
    ----------
    zero, plus, minus : float
        Whole-word top-1 rates zero-shot, after k correct and after k wrong demonstrations.

    Returns
    -------
    float or None
        The share (1: the wrong capitals lift the rate as much as the correct ones; 0: not at
        all; it can leave [0, 1]); None where the correct demonstrations add nothing
        (``plus <= zero``).
    """
    gain = plus - zero
    return None if gain <= 0 else (minus - zero) / gain


def format_words(share: float | None) -> str:
    """Return the LAMA sentence's reading of :func:`format_share`, as far as the number goes.

    share >= 0.5: ``"mostly the format of the answer, which wrong capitals carry too, not the
    facts shown"``; share < 0.5: ``"mostly the facts shown"``; None: ``"undefined: the correct
    demonstrations add nothing"``.
    """
    if share is None:
        return "undefined: the correct demonstrations add nothing"
    if share >= 0.5:
        return (
            "mostly the format of the answer, which wrong capitals carry too, not the facts shown"
        )
    return "mostly the facts shown"


@dataclass(frozen=True)
class LamaResult:
    """LAMA P36: whole-word top-1 rates and the supportive/adversarial context effect.

    Attributes
    ----------
    source, model : str
    k, n_prefixes, seed : int
    items : numpy.ndarray, int64, shape (n,)
        Task indices of the queries scored (all, or the seeded subset).
    correct_zero, correct_plus, correct_minus : numpy.ndarray, bool, shape (n,)
        Greedy answer is the whole target capital: zero-shot, after k correct and after k wrong
        demonstrations, on every query.
    effect : LamaEffect
        With c-bar of each query from the other fold (two-fold cross-fitting).
    counts : dict of str to int
        :func:`lama_target_stats`.
    n_layers : int
        Decoder blocks L of the model (the "top quarter" of :meth:`summary` is relative to it).
    sets : numpy.ndarray, int64, shape (n,) or None
        Demonstration set of each query (the same for correct and wrong labels).
    protocol : Chapter6Protocol or None
        The protocol that made the result: its ``late`` is the default ``top`` of
        :meth:`late_prob`, :meth:`paired` and :meth:`summary`; None: the page's.
    """

    source: str
    model: str
    k: int
    n_prefixes: int
    seed: int
    items: np.ndarray
    correct_zero: np.ndarray
    correct_plus: np.ndarray
    correct_minus: np.ndarray
    effect: LamaEffect
    counts: dict[str, int]
    n_layers: int
    sets: np.ndarray | None = None
    protocol: Chapter6Protocol | None = None

    @property
    def n(self) -> int:
        """Number of queries scored."""
        return len(self.correct_zero)

    def rates(self) -> dict[str, Estimate]:
        """Whole-word top-1 rates with Wilson intervals (:func:`assocmem.stats.rate`)."""
        return {
            "zero-shot": rate(self.correct_zero),
            f"{self.k} correct demos": rate(self.correct_plus),
            f"{self.k} wrong demos": rate(self.correct_minus),
        }

    def late_prob(self, top: float | None = None) -> tuple[float, float]:
        """Whole-word target probability, supportive and adversarial, over the late layers.

        Parameters
        ----------
        top : float, optional
            Fraction of the model counted as late, in (0, 1]: context layers
            ``l >= (1 - top) L``; default: the result's protocol's ``late``.

        Returns
        -------
        (float, float)
            Mean of :attr:`LamaEffect.prob` over those context layers and every lambda, for the
            supportive (+) and the adversarial (-) context vector.

        Raises
        ------
        ValueError
            If ``top`` is outside (0, 1] or no context layer of the sweep is late.
        """
        eff = self.effect
        late = self._late(top)
        return float(eff.prob[0][late].mean()), float(eff.prob[1][late].mean())

    def paired(self, top: float | None = None) -> LamaClaims:
        """Supportive against adversarial context, paired query by query, with intervals.

        Parameters
        ----------
        top : float, optional
            Fraction of the model whose context layers count as late (:meth:`late_prob`).

        Returns
        -------
        LamaClaims
            ``demos``: whole-word top-1 after k correct minus after k wrong demonstrations (the
            same items, only the shown capitals differ), with the bootstrap interval over
            demonstration sets and queries (two-stage; :meth:`SetBootstrap.difference`'s exact
            bound where the two agree on every query); ``vector``: the whole-word target
            probability under the supportive minus the adversarial context vector, per query
            averaged over the late context layers and every lambda, with the percentile
            bootstrap interval over queries.

        Raises
        ------
        ValueError
            If the result has no set assignment or per-query probabilities, or no late layer.
        """
        if self.sets is None or self.effect.prob_query is None:
            raise ValueError("paired comparisons need the sets and the per-query probabilities")
        b = set_bootstrap({"plus": self.correct_plus, "minus": self.correct_minus}, self.sets,
                          seed=self.seed)  # fmt: skip
        demos = b.difference("plus", "minus", "correct - wrong demonstrations")
        late = self._late(top)
        pq = self.effect.prob_query[:, late]  # (2, late layers, m, n)
        d = pq[0].mean((0, 1)) - pq[1].mean((0, 1))
        vector = bootstrap_interval(d, n_boot=2000, seed=self.seed, unit="queries (paired)")
        return LamaClaims(demos, vector)

    def _late(self, top: float | None) -> np.ndarray:
        top = check_fraction("top", (self.protocol or _PAGE).late if top is None else top)
        late = self.effect.layers >= (1 - top) * self.n_layers
        if not late.any():
            raise ValueError(f"no context layer >= {(1 - top) * self.n_layers:g} in the sweep")
        return np.asarray(late)

    def summary(
        self, top: float | None = None
    ) -> dict[str, Estimate | Verdict | float | int | str]:
        """Return every number chapter 6 quotes about LAMA, by label.

        Returns
        -------
        dict
            ``n`` (queries scored), the counts of :func:`lama_target_stats`; the whole-word top-1
            rates (Estimates, Wilson) ``zero``, ``plus`` (k correct demonstrations) and
            ``minus`` (k wrong ones); ``format_share`` (:func:`format_share` of the three rates'
            values; NaN where correct demonstrations add nothing) and ``format_words``
            (:func:`format_words`); the whole-word target probability zero-shot ``p0`` and,
            over the top quarter of the layers (:meth:`late_prob`), ``pplus`` and ``pminus``;
            where the sets and per-query probabilities were kept, :meth:`LamaClaims.summary` of
            :meth:`paired` (keys ``demos``, ``vector`` and their verdicts ``v_demos``,
            ``v_vector``); ``late``: the late context layers, as text.

        Parameters
        ----------
        top : float, optional
            Fraction of the model whose context layers count as late; default: the result's
            protocol's ``late``.
        """
        rates = self.rates()
        p_plus, p_minus = self.late_prob(top)
        out: dict[str, Estimate | Verdict | float | int | str] = {
            "n": self.n, **self.counts, "zero": rates["zero-shot"],
            "plus": rates[f"{self.k} correct demos"], "minus": rates[f"{self.k} wrong demos"],
            "p0": float(self.effect.prob0), "pplus": p_plus,
            "pminus": p_minus,
        }  # fmt: skip
        share = format_share(rates["zero-shot"].value, rates[f"{self.k} correct demos"].value,
                             rates[f"{self.k} wrong demos"].value)  # fmt: skip
        out["format_share"] = float("nan") if share is None else share
        out["format_words"] = format_words(share)
        out["late"] = ", ".join(str(int(ell)) for ell in self.effect.layers[self._late(top)])
        if self.sets is not None and self.effect.prob_query is not None:
            out.update(self.paired(top).summary())
        return out

    def __str__(self) -> str:
        """Return the whole-word top-1 rates (95 % Wilson) and the target counts, one a line."""
        rows = [f"whole-word top-1, {name:16s} {render(e)}  (n = {e.n})"
                for name, e in self.rates().items()]  # fmt: skip
        rows += [f"  {key:24s} {val:4d}" for key, val in self.counts.items()]
        return "\n".join(rows)


@dataclass(frozen=True)
class Chapter6Run:
    """Chapter 6's run: its task results per model, its LAMA results, and their protocol.

    The one object that answers the page's questions across models and tasks: each pair's
    summary (:meth:`summaries`), the counts of verdicts and readings over the pairs
    (:meth:`summary`), and the findings tables (:meth:`table`).

    Attributes
    ----------
    protocol : Chapter6Protocol
    tasks : dict of model name -> list of TaskResult
        In the protocol's task order; keyed by the model that ran.
    lama : dict of model name -> LamaResult
    """

    protocol: Chapter6Protocol
    tasks: dict[str, list[TaskResult]]
    lama: dict[str, LamaResult] = field(default_factory=dict)

    def summaries(self) -> dict[tuple[str, str], dict[str, Estimate | Verdict | float | int | str]]:
        """Return each (model, task)'s :meth:`TaskResult.summary` under the run's protocol."""
        return {(m, r.task): r.summary(protocol=self.protocol)
                for m, results in self.tasks.items() for r in results}  # fmt: skip

    def summary(self) -> dict[str, Verdict | float | int | str]:
        """Return what the page says across models and tasks, by label.

        Returns
        -------
        dict
            The protocol's thresholds (``reach_tol``, ``align_frac``, ``order_layers``,
            ``n_sets``, ``late_pct``, ``n_chat``, ``collapse_mass``); ``pairs`` (model-task
            pairs), ``mass_rises`` (pairs whose label mass rises, above 0), ``collapses``
            (pairs read as a collapse), ``collapse_<gain|unresolved|loss>`` (collapses by the
            verdict of ICL's gain) with their words ``reading_<...>`` and ``reading_none``,
            ``shares`` (pairs whose share of ICL's gain is testable), and the verdict words
            ``above``, ``below``, ``unresolved``, ``not_testable``.
        """
        p = self.protocol
        pairs = list(self.summaries().values())
        readings = [c["reading"] for c in pairs]
        out: dict[str, Verdict | float | int | str] = {
            "reach_tol": p.reach_tol, "align_frac": p.align_frac,
            "order_layers": p.order_layers, "n_sets": p.n_sets, "late_pct": round(100 * p.late),
            "n_chat": p.n_chat, "collapse_mass": p.collapse_mass, "pairs": len(pairs),
            "mass_rises": sum(c["v_mass_gain"] is Verdict.ABOVE for c in pairs),
            "collapses": sum(w != READINGS[None] for w in readings),
            "reading_none": READINGS[None],
            "shares": sum(c["v_recovered"] != Verdict.NOT_TESTABLE for c in pairs),
        }  # fmt: skip
        for key, v in (("gain", Verdict.ABOVE), ("unresolved", Verdict.UNRESOLVED),
                       ("loss", Verdict.BELOW)):  # fmt: skip
            out[f"collapse_{key}"] = readings.count(READINGS[v])
            out[f"reading_{key}"] = READINGS[v]
        words = (Verdict.ABOVE, Verdict.BELOW, Verdict.UNRESOLVED, Verdict.NOT_TESTABLE)
        return out | dict(zip(("above", "below", "unresolved", "not_testable"), words, strict=True))

    def findings(self) -> dict[tuple[str, str], dict[str, Verdict]]:
        """Return each (model, task)'s verdicts: the summary's ``v_<claim>`` entries."""
        return {pair: {k: v for k, v in s.items() if isinstance(v, Verdict)}
                for pair, s in self.summaries().items()}  # fmt: skip

    def table(self, columns: dict[str, str], spec: str = "+.3f") -> pd.DataFrame:
        """Return one row per model and task, one column per claim: the estimate and its verdict.

        Parameters
        ----------
        columns : dict of str to str
            Column header -> summary label. An Estimate is written
            through :func:`assocmem.estimate.render` with ``spec``, followed by its verdict
            ``v_<label>`` where the summary has one; anything else as text.
        spec : str
            Format of the estimates.

        Raises
        ------
        KeyError
            If a summary lacks a label of ``columns`` (the message names it).
        """
        rows = []
        for (model, task), summary in self.summaries().items():
            row = {"model": MODELS[model].title if model in MODELS else model,
                   "task": TASK_TITLES.get(task, task)}  # fmt: skip
            for header, label in columns.items():
                if label not in summary:
                    raise KeyError(f"the summary of {model}, {task} has no {label!r}")
                value, words = summary[label], summary.get(f"v_{label}")
                text = render(value, spec) if isinstance(value, Estimate) else str(value)
                row[header] = text if words is None else f"{text} {words}"
            rows.append(row)
        return pd.DataFrame(rows)
