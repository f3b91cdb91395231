"""Chapter-6 drivers: one call per task returns every number and curve the page shows.

Protocol (issues 14 and 26): per task, disjoint query sets build c-bar^(l) (``ctx``), select
the additive score's (layer, lambda) and the calibration (``sel``) and are reported (``test``);
zero-shot, calibrated zero-shot, k-shot ICL (correct and wrong demonstration labels), the additive
score, whole-vocabulary scoring and (instruction-tuned models) the chat template are measured on
the same test queries. Test query i sees demonstration set i mod P (P >= 8 class-balanced sets,
key/value cache of each computed once), and every pooled number that depends on the sets carries
a two-stage bootstrap interval over sets and queries (:class:`.evaluation.SetBootstrap`);
:meth:`TaskResult.claims` turns them into the paper's claims with a verdict each.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from .._validate import check_int, check_real
from ..stats import Estimate, bootstrap_interval, rate
from .data import Task
from .evaluation import (
    PairedComparison,
    SetBootstrap,
    label_alignment,
    paired_comparison,
    probe_accuracy,
    set_bootstrap,
)
from .models import LanguageModel, weights_digest
from .probes import (
    LamaEffect,
    additive_accuracy,
    additive_logits,
    context_vector,
    decode,
    final_norm,
    lama_context_effect,
    layer_profile,
    log_partition,
)
from .prompts import DemoPrefixes, Split, chat_text, demo_prefixes, prompt_ids
from .registry import MODELS
from .states import PromptStates, prompt_states, uses_cache

__all__ = [
    "TaskResult",
    "LamaResult",
    "ProbeResult",
    "run_classification",
    "run_lama",
    "default_layers",
    "select_additive",
    "calibrated_predict",
    "lama_target_stats",
    "REACH_TOL",
    "ALIGN_FRAC",
    "COLLAPSE_MASS",
]

#: "The probe reaches its best accuracy": within this much of it (chapter 6's probe sentence).
REACH_TOL = 0.02
#: "The alignment has set in": the mean margin stays at or above this fraction of its maximum.
ALIGN_FRAC = 0.5
#: "Collapse onto the label set": the ICL label mass's interval lies above this (claims).
COLLAPSE_MASS = 0.5


def __getattr__(name: str) -> object:
    """Serve ``SIZES`` (deprecated): chapter 6's sizes live in :data:`.registry.MODELS` now."""
    if name == "SIZES":
        warnings.warn(
            "assocmem.llm.experiments.SIZES is deprecated; use "
            "assocmem.llm.registry.MODELS[name].sizes",
            DeprecationWarning,
            stacklevel=2,
        )
        return {key: dict(spec.sizes) for key, spec in MODELS.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_layers(n_layers: int, count: int = 4, start: float = 5 / 8) -> list[int]:
    """``count`` context layers evenly spaced from ``start * L`` to L (the paper's 20, 24, 28, 32).

    Parameters
    ----------
    n_layers : int
        Number of decoder blocks L (>= 1).
    count : int
        Number of layers wanted, >= 1.
    start : float
        Where the window begins, as a fraction of L, in [0, 1].

    Returns
    -------
    list of int
        Sorted distinct layers in [round(start L), L]; for L = 32, count = 4 and the default
        start exactly [20, 24, 28, 32], the context layers of the paper's Fig. 5 (§4, digest
        §6.4).

    Raises
    ------
    ValueError
        If ``count`` < 1, ``n_layers`` < 1 or ``start`` is outside [0, 1].
    """
    if count < 1 or n_layers < 1:
        raise ValueError(f"count and n_layers must be >= 1, got {count}, {n_layers}")
    start = check_real("start", start, low=0.0)
    if start > 1:
        raise ValueError(f"start must lie in [0, 1], got {start}")
    return sorted({int(round(x)) for x in np.linspace(start * n_layers, n_layers, count)})


def select_additive(
    acc_sel: np.ndarray, layers: Sequence[int], lambdas: np.ndarray
) -> tuple[int, float]:
    """Return the (layer, lambda) of the best selection-split accuracy (first maximum, layer-major).

    Parameters
    ----------
    acc_sel : numpy.ndarray, shape (len(layers), len(lambdas))
        Accuracies on the selection queries only.
    layers : sequence of int
    lambdas : numpy.ndarray

    Returns
    -------
    (int, float)
    """
    i, j = np.unravel_index(int(np.argmax(acc_sel)), acc_sel.shape)
    return int(layers[int(i)]), float(lambdas[int(j)])


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
        """Mean cosine margin per layer and the half-width of its 95 % interval (1.96 SE)."""
        a = self.alignment
        return a.mean(1), 1.96 * a.std(1, ddof=1) / np.sqrt(a.shape[1])

    def peak_layer(self) -> int:
        """Layer of the best held-out probe accuracy (the first, if tied)."""
        return int(np.argmax([e.value for e in self.accuracy]))

    def reach_layer(self, tol: float = REACH_TOL) -> int:
        """First layer whose probe accuracy is within ``tol`` (>= 0) of the best one.

        Raises
        ------
        ValueError
            If ``tol`` is negative.
        """
        tol = check_real("tol", tol, low=0.0)
        acc = np.array([e.value for e in self.accuracy])
        return int(np.argmax(acc >= acc.max() - tol))

    def alignment_onset(self, frac: float = ALIGN_FRAC) -> int:
        """First layer from which the mean alignment margin stays at or above ``frac`` of its max.

        0 when every layer is; ``L + 1`` when none is (a negative maximum).

        Raises
        ------
        ValueError
            If ``frac`` is outside (0, 1].
        """
        frac = check_real("frac", frac, low=0.0, strict=True)
        if frac > 1:
            raise ValueError(f"frac must lie in (0, 1], got {frac}")
        align = self.alignment_mean_ci[0]
        above = align >= frac * align.max()
        return int(len(above) - np.argmin(above[::-1])) if not above.all() else 0

    def summary(
        self, tol: float = REACH_TOL, frac: float = ALIGN_FRAC
    ) -> dict[str, Estimate | float | int | str]:
        """Return the probe's numbers by the labels chapter 6 quotes.

        Parameters
        ----------
        tol : float
            Tolerance of :meth:`reach_layer` (>= 0).
        frac : float
            Fraction of :meth:`alignment_onset`, in (0, 1].

        Returns
        -------
        dict
            ``probe_peak`` (:meth:`peak_layer`), ``probe_best`` (its accuracy, an Estimate),
            ``probe_reach`` (:meth:`reach_layer`), ``align_half`` (:meth:`alignment_onset`) and
            ``order``: ``"before"`` when separability is reached before the alignment sets in,
            else ``"not before"``.
        """
        peak, reach, half = self.peak_layer(), self.reach_layer(tol), self.alignment_onset(frac)
        order = "before" if reach < half else "not before"
        return {"probe_peak": peak, "probe_reach": reach, "probe_best": self.accuracy[peak],
                "align_half": half, "order": order}  # fmt: skip


def _direction(est: Estimate, up: str, down: str, none: str = "unresolved") -> str:
    """``up`` when the interval lies above 0, ``down`` when below, else ``none``."""
    if est.low > 0:
        return up
    if est.high < 0:
        return down
    return none


def _share_verdict(share: Estimate | str) -> str:
    """Say what the interval of the recovered share of ICL's gain allows (1 = all of it)."""
    if isinstance(share, str):
        return "not testable"
    if share.low >= 1:
        return "all, or more"
    if share.low > 0:
        return "part, not all" if share.high < 1 else "consistent with all"
    return "negative" if share.high < 0 else "unresolved"


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
        ``wrong``, ``vocab_zero``, ``vocab_icl``, ``mass_zero``, ``mass_icl`` (those that were
        run); the chat-template runs, on a prefix of the test queries, are in :attr:`chat`.
        """
        k = self.k
        cols: dict[str, np.ndarray | None] = {
            "zero": self.correct_zero, "cal": self.correct_cal, "icl": self.correct_icl[k],
            "add": self.correct_add[k], "wrong": self.correct_wrong,
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
        names = {"zero": "zero-shot", "cal": "calibrated zero-shot", "icl": f"{self.k}-shot ICL",
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

    def claims(self, collapse: float = COLLAPSE_MASS) -> dict[str, Estimate | str]:
        """Return the paper's claims tested on this task: set-aware intervals, a verdict each.

        Returns
        -------
        dict
            Estimates (bootstrap over sets, :attr:`bootstrap`; a difference of two methods that
            agree on every query gets the exact bound of :meth:`SetBootstrap.difference`, and
            the share recovered then the ratio of the two bounds): ``mass_gain``
            (label mass at the last layer, ICL minus zero-shot: the collapse onto the label
            set), ``gain_zero``
            (ICL minus zero-shot accuracy), ``gain_cal`` (ICL minus calibrated zero-shot),
            ``labels`` (ICL with correct minus with wrong demonstration labels), ``add_zero``
            and ``add_icl`` (additive minus zero-shot, minus ICL) and ``recovered`` (the
            fraction ``(add - zero) / (icl - zero)`` of ICL's gain that the additive score
            recovers), the last only where the gain's interval lies above 0 (else the text
            ``"not testable"``), ``add_cal`` (additive minus calibrated zero-shot); and a
            verdict per claim, ``v_<name>``: for a difference ``"unresolved"`` when its
            interval contains 0 (for the additive score's ``"above"``/``"below"``: ``"not
            distinguishable from"``); for ``mass_gain`` ``"collapse"`` when the mass rises and the
            ICL mass's interval lies above ``collapse``, else ``"rises, no collapse"``; for
            ``recovered`` ``"part, not all"`` when its interval lies in (0, 1),
            ``"consistent with all"`` when it starts above 0 and reaches 1, ``"all, or more"``
            when it lies above 1.

        Parameters
        ----------
        collapse : float
            Label mass (at the last layer, mean over test queries) that counts as a collapse
            onto the label set, in (0, 1].

        Raises
        ------
        ValueError
            If the calibrated or wrong-label runs are missing, or there are no sets.
        """
        if self.correct_cal is None or self.correct_wrong is None or self.mass_zero is None:
            raise ValueError("claims need the calibrated, wrong-label and mass measurements")
        b = self.bootstrap
        out: dict[str, Estimate | str] = {
            "mass_gain": b.estimate(lambda m: m["mass_icl"] - m["mass_zero"], "mass gain"),
            "gain_zero": b.difference("icl", "zero", "ICL - zero-shot"),
            "gain_cal": b.difference("icl", "cal", "ICL - calibrated"),
            "labels": b.difference("icl", "wrong", "correct - wrong labels"),
            "add_zero": b.difference("add", "zero", "additive - zero-shot"),
            "add_cal": b.difference("add", "cal", "additive - calibrated"),
            "add_icl": b.difference("add", "icl", "additive - ICL"),
        }
        gain, add_zero = out["gain_zero"], out["add_zero"]
        assert isinstance(gain, Estimate) and isinstance(add_zero, Estimate)

        def share(m: Mapping[str, np.ndarray]) -> np.ndarray:
            with np.errstate(divide="ignore", invalid="ignore"):
                return (m["add"] - m["zero"]) / (m["icl"] - m["zero"])

        if gain.low <= 0:
            out["recovered"] = "not testable"
        elif np.array_equal(b.columns["add"], b.columns["zero"]):  # no query discordant
            # |add - zero| <= add_zero.high and icl - zero >= gain.low each fail with probability
            # at most about 2.5 % (one end of each 95 % interval is used): jointly about 95 %
            u = add_zero.high / gain.low
            how = "exact bound on additive - zero-shot over the lower end of ICL's gain"
            out["recovered"] = Estimate(0.0, -u, u, add_zero.n, how)
        else:
            out["recovered"] = b.estimate(share, "share recovered")
        collapse = check_real("collapse", collapse, low=0.0, strict=True)
        same = "not distinguishable from"  # reads "the additive score is ... ICL"
        for name, up, down, none in (("mass_gain", "rises, no collapse", "falls", "unresolved"),
                                     ("gain_zero", "ICL helps", "ICL hurts", "unresolved"),
                                     ("gain_cal", "ICL helps", "ICL hurts", "unresolved"),
                                     ("labels", "labels matter", "wrong better", "unresolved"),
                                     ("add_zero", "above", "below", same),
                                     ("add_cal", "above", "below", same),
                                     ("add_icl", "above", "below", same)):  # fmt: skip
            est = out[name]
            assert isinstance(est, Estimate)
            out[f"v_{name}"] = _direction(est, up, down, none)
        if out["v_mass_gain"] == "rises, no collapse" and b.mean("mass_icl").low > collapse:
            out["v_mass_gain"] = "collapse"
        out["v_recovered"] = _share_verdict(out["recovered"])
        return out

    def summary(
        self,
        k: int | None = None,
        *,
        tol: float = REACH_TOL,
        frac: float = ALIGN_FRAC,
        collapse: float = COLLAPSE_MASS,
    ) -> dict[str, Estimate | float | int | str]:
        """Return every number chapter 6 quotes about this task, by label.

        Parameters
        ----------
        k : int, optional
            Demonstrations behind the compared additive score (default: the largest).
        tol : float
            Tolerance of the probe's :meth:`ProbeResult.reach_layer`.
        frac : float
            Fraction of the probe's :meth:`ProbeResult.alignment_onset`.
        collapse : float
            Label mass that counts as a collapse (:meth:`claims`).

        Returns
        -------
        dict
            ``n`` (test queries), ``k``, ``sets``; at the last layer, over the profiled
            queries, the median entropy N_eff ``neff_zero``/``neff_icl``; the pooled accuracies
            (:meth:`rates`, keys ``zero``, ``cal``, ``icl``, ``wrong``, ``add``, ``vocab_zero``,
            ``vocab_icl``, ``chat_zero``, ``chat_icl`` where run) and the label masses
            ``mass_zero``/``mass_icl`` (Estimates); ``icl_sets`` (the per-set ICL accuracies,
            as text); :meth:`claims` where the controls were run; the McNemar p-values of the
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
        out: dict[str, Estimate | float | int | str] = {"n": self.n_test, "k": k}
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
                out.update(self.claims(collapse))
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
            out.update(self.probe.summary(tol, frac))
        return out


def _query_texts(task: Task, items: np.ndarray) -> list[str]:
    return [task.template.format(x=task.texts[i], y="") for i in items]


def _prompt_states(
    lm: LanguageModel,
    task: Task,
    items: np.ndarray,
    pre: DemoPrefixes | None,
    *,
    chat: bool = False,
    desc: str,
    **kw: Any,
) -> PromptStates:
    """States of the prompts of ``items`` (zero-shot, or each with its set of ``pre``).

    The ids are the tokenization of each prompt's whole text (:func:`.prompts.prompt_ids`),
    optionally wrapped in the chat template (:func:`.prompts.chat_text`).
    """
    texts = _query_texts(task, items)
    if pre is None:
        which = np.zeros(len(items), dtype=np.int64)
    else:
        which = pre.assign(items)
        texts = [pre.texts[w] + t for w, t in zip(which, texts, strict=True)]
    if chat:
        texts = [chat_text(lm, t) for t in texts]
    prefixes, queries = prompt_ids(lm, texts, which)
    return prompt_states(lm, prefixes, queries, which, desc=desc, **kw)


def _last_layer(
    lm: LanguageModel, h_last: torch.Tensor, ids: torch.Tensor, y: np.ndarray, chunk: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Whole-vocabulary correctness and label mass of last-layer states (chunked: V may be 262k)."""
    ok, mass = [], []
    for s in range(0, len(h_last), chunk):
        logits = decode(lm, h_last[s : s + chunk])
        ok.append(logits.argmax(-1).numpy() == ids.numpy()[y[s : s + chunk]])
        on_labels = torch.logsumexp(logits[:, ids].double(), -1)
        mass.append(torch.exp(on_labels - log_partition(logits)).numpy())  # logits overwritten
    return np.concatenate(ok), np.concatenate(mass)


def calibrated_predict(label_logits_sel: torch.Tensor, label_logits: torch.Tensor) -> np.ndarray:
    """Zero-shot predictions with a per-class bias removed, the bias measured on other queries.

    Each label's log-probability (over the label tokens) is centred by its mean over the
    selection queries: ``argmax_y [log p(y | x) - mean_sel log p(y | x')]``. A model that favours
    a label whatever the input, by a constant added to that label's logit, loses exactly that
    favour (the predictions are invariant to any per-label logit offset). This is the idea of
    contextual calibration (divide by the label probabilities of a content-free input), with
    the reference measured as the geometric mean over held-out queries instead; nothing is
    fitted on the queries it is applied to.

    Parameters
    ----------
    label_logits_sel : torch.Tensor, shape (n_sel, K)
        Label logits of the selection queries (estimate the bias).
    label_logits : torch.Tensor, shape (n, K)
        Label logits of the queries to predict.

    Returns
    -------
    numpy.ndarray, int64, shape (n,)
        Predicted class per query.

    Raises
    ------
    ValueError
        If the two have different numbers of classes or ``label_logits_sel`` is empty.
    """
    if label_logits_sel.ndim != 2 or label_logits.ndim != 2 or len(label_logits_sel) == 0:
        raise ValueError("label logits must be 2-d (queries, classes), the sel set non-empty")
    if label_logits_sel.shape[1] != label_logits.shape[1]:
        raise ValueError(
            f"class counts differ: {label_logits_sel.shape[1]} and {label_logits.shape[1]}"
        )
    bias = torch.log_softmax(label_logits_sel.double(), -1).mean(0)
    lp = torch.log_softmax(label_logits.double(), -1)
    return (lp - bias).argmax(-1).numpy()


def run_classification(
    lm: LanguageModel,
    task: Task,
    split: Split,
    *,
    ks: Sequence[int] = (4,),
    n_prefixes: int = 8,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    n_profile: int = 64,
    probe: bool = True,
    balanced: bool = True,
    wrong_demos: bool = True,
    chat: bool = False,
    n_chat: int | None = None,
    seed: int = 0,
    batch_size: int = 16,
    max_tokens: int | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> TaskResult:
    """Zero-shot, calibrated zero-shot, k-shot ICL and the additive score on a task (paper §4).

    Every prompt's ids are the tokenization of its text (:func:`.prompts.prompt_ids`). Test query
    i is shown demonstration set ``i mod P`` (:meth:`DemoPrefixes.assign`); with ``balanced``
    each set holds every class ``k / K`` times in random order. For the largest k the same test
    queries are also run with every demonstration label wrong (``wrong_demos``: the same sets,
    labels shifted), and, for an instruction-tuned model, zero-shot and ICL through its chat
    template (``chat``). At the last layer each test query is also scored over the whole
    vocabulary (correct when its label token is the argmax of all V tokens) and its label mass
    recorded.

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        A classification task (not ``lama_p36``).
    split : Split
        From :func:`assocmem.llm.prompts.make_split` (with ``pool_per_class`` for balanced sets).
    ks : sequence of int
        Demonstration counts (multiples of the number of classes when ``balanced``).
    n_prefixes : int
        Demonstration sets per k, >= 2 for the set-aware intervals.
    lambdas : sequence of float
        Context strengths of the additive score.
    layers : sequence of int, optional
        Context layers; default :func:`default_layers`.
    n_profile : int
        Test queries decoded over the whole vocabulary at every layer (N_eff profiles).
    probe : bool
        Run the linear probe and the alignment (App. D.4) on the largest k's test states.
    balanced, wrong_demos, chat : bool
        See above.
    n_chat : int or None
        Run the chat template on the first ``n_chat`` test queries only (None: all).
    seed : int
        Seed of the demonstrations and the bootstrap.
    batch_size, max_tokens : int, int or None
        Most prompts and most query tokens per forward pass
        (:func:`assocmem.llm.states.prompt_states`).
    cache : bool or None
        Disk cache of the states (:func:`assocmem.llm.states.prompt_states`).
    progress : bool or None

    Returns
    -------
    TaskResult

    Raises
    ------
    ValueError
        If a label word is not one token (:meth:`LanguageModel.label_ids`), a k is not a
        multiple of the classes with ``balanced``, or the pool is too small for the sets.
    """
    ids = lm.label_ids(task.label_words)
    layers = list(default_layers(lm.n_layers) if layers is None else layers)
    lam = np.asarray(lambdas, dtype=float)
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
        "weights": weights_digest(lm.model) if uses_cache(lm, cache) else None,  # once
    }
    n_ctx, n_sel = len(split.ctx), len(split.sel)
    items = np.concatenate([split.ctx, split.sel, split.test])
    zero = _prompt_states(lm, task, items, None, desc=f"{task.name} 0-shot", **kw).h
    h_ctx, h_sel, h_test = zero[:n_ctx], zero[n_ctx : n_ctx + n_sel], zero[n_ctx + n_sel :]
    y_sel, y_test = task.labels[split.sel], task.labels[split.test]

    def predict(h_last: torch.Tensor) -> np.ndarray:
        return decode(lm, h_last, ids).argmax(-1).numpy()

    correct_zero = predict(h_test[:, -1]) == y_test
    correct_cal = calibrated_predict(
        decode(lm, h_sel[:, -1], ids), decode(lm, h_test[:, -1], ids)
    ) == y_test  # fmt: skip
    vocab_zero, mass_zero = _last_layer(lm, h_test[:, -1], ids, y_test)
    correct_icl, correct_add, acc_sel, acc_test, chosen = {}, {}, {}, {}, {}
    h_icl_test: dict[int, torch.Tensor] = {}
    prefixes: dict[int, DemoPrefixes] = {}
    for k in ks:
        pre = demo_prefixes(task, split.pool, k=k, n_prefixes=n_prefixes, seed=seed,
                            balanced=balanced)  # fmt: skip
        prefixes[k] = pre
        icl_items = np.concatenate([split.ctx, split.test])
        st = _prompt_states(lm, task, icl_items, pre, desc=f"{task.name} {k}-shot", **kw).h
        c_bar = context_vector(st[:n_ctx], h_ctx)
        h_icl_test[k] = st[n_ctx:]
        correct_icl[k] = predict(st[n_ctx:, -1]) == y_test
        acc_sel[k] = additive_accuracy(lm, c_bar, h_sel[:, -1], y_sel, ids, layers, lam)
        chosen[k] = select_additive(acc_sel[k], layers, lam)
        ell, lam_star = chosen[k]
        logits = additive_logits(lm, h_test[:, -1], c_bar[ell], [lam_star], ids)[0]
        correct_add[k] = logits.argmax(-1).numpy() == y_test
        acc_test[k] = additive_accuracy(lm, c_bar, h_test[:, -1], y_test, ids, layers, lam)
    k_max = max(ks)
    sets = prefixes[k_max].assign(split.test)
    vocab_icl, mass_icl = _last_layer(lm, h_icl_test[k_max][:, -1], ids, y_test)
    correct_wrong = None
    if wrong_demos:
        wrong = demo_prefixes(task, split.pool, k=k_max, n_prefixes=n_prefixes, seed=seed,
                              demos="adversarial", balanced=balanced)  # fmt: skip
        h_wrong = _prompt_states(lm, task, split.test, wrong,
                                 desc=f"{task.name} {k_max}-shot wrong", **kw).h  # fmt: skip
        correct_wrong = predict(h_wrong[:, -1]) == y_test
    chat_correct: dict[str, np.ndarray] = {}
    if chat:
        m = len(split.test) if n_chat is None else check_int("n_chat", n_chat, 1)
        first = split.test[:m]  # test query i sees set i mod P: every set, in turn
        for tag, pre_or_none in (("zero", None), ("icl", prefixes[k_max])):
            h_chat = _prompt_states(lm, task, first, pre_or_none, chat=True,
                                    desc=f"{task.name} chat {tag}", **kw).h  # fmt: skip
            chat_correct[tag] = predict(h_chat[:, -1]) == y_test[:m]
    n_prof = min(n_profile, len(split.test))
    prof_zero = layer_profile(lm, h_test[:n_prof], ids)
    prof_icl = layer_profile(lm, h_icl_test[k_max][:n_prof], ids)
    probe_res = None
    if probe:
        h = h_icl_test[k_max]
        correct = probe_accuracy(h, y_test, seed=seed)
        align = label_alignment(final_norm(lm, h), lm.unembedding[ids.to(lm.unembedding.device)]
                                .detach().float(), y_test)  # fmt: skip
        probe_res = ProbeResult(k_max, correct, align)
    return TaskResult(
        task=task.name,
        source=task.source,
        model=lm.name,
        split=split,
        ks=tuple(ks),
        n_prefixes=n_prefixes,
        label_words=task.label_words,
        layers=layers,
        lambdas=lam,
        correct_zero=correct_zero,
        correct_icl=correct_icl,
        correct_add=correct_add,
        acc_sel=acc_sel,
        acc_test=acc_test,
        chosen=chosen,
        profile_zero=prof_zero,
        profile_icl=prof_icl,
        probe=probe_res,
        seed=seed,
        sets=sets,
        correct_cal=correct_cal,
        correct_wrong=correct_wrong,
        vocab_zero=vocab_zero,
        vocab_icl=vocab_icl,
        mass_zero=mass_zero,
        mass_icl=mass_icl,
        chat=chat_correct,
    )


def lama_target_stats(lm: LanguageModel, task: Task) -> dict[str, int]:
    """How many LAMA queries have multi-token or colliding targets under ``lm``'s tokenizer.

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        ``load_task("lama_p36")``.

    Returns
    -------
    dict of str to int
        ``queries``, ``capitals``; ``multi_token_capitals``/``multi_token_queries`` (targets of
        several tokens); ``shared_first_capitals``/``shared_first_queries`` (first token shared
        with another capital); ``prefix_capitals``/``prefix_queries`` (the target's tokens are a
        strict prefix of another capital's, e.g. Jackson / Jacksonville).
    """
    words = {w: lm.word_ids(w) for w in task.label_words}
    firsts: dict[int, int] = {}
    for v in words.values():
        firsts[v[0]] = firsts.get(v[0], 0) + 1
    multi = {w for w, v in words.items() if len(v) > 1}
    shared = {w for w, v in words.items() if firsts[v[0]] > 1}
    prefix = {w for w, v in words.items()
              if any(len(u) > len(v) and u[: len(v)] == v for u in words.values())}  # fmt: skip
    targets = [task.label_words[y] for y in task.labels]
    return {
        "queries": len(targets),
        "capitals": len(words),
        "multi_token_capitals": len(multi),
        "multi_token_queries": sum(t in multi for t in targets),
        "shared_first_capitals": len(shared),
        "shared_first_queries": sum(t in shared for t in targets),
        "prefix_capitals": len(prefix),
        "prefix_queries": sum(t in prefix for t in targets),
    }


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

    def late_prob(self, top: float = 0.25) -> tuple[float, float]:
        """Whole-word target probability, supportive and adversarial, over the late layers.

        Parameters
        ----------
        top : float
            Fraction of the model counted as late, in (0, 1]: context layers
            ``l >= (1 - top) L``.

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

    def paired(self, top: float = 0.25) -> dict[str, Estimate | str]:
        """Supportive against adversarial context, paired query by query, with intervals.

        Parameters
        ----------
        top : float
            Fraction of the model whose context layers count as late (:meth:`late_prob`).

        Returns
        -------
        dict
            ``demos``: whole-word top-1 after k correct minus after k wrong demonstrations (the
            same items, only the shown capitals differ), with the bootstrap interval over
            demonstration sets and queries (two-stage; :meth:`SetBootstrap.difference`'s exact
            bound where the two agree on every query); ``vector``: the whole-word target
            probability under the supportive minus the adversarial context vector, per query
            averaged over the late context layers and every lambda, with the percentile
            bootstrap interval over queries; ``v_demos`` and ``v_vector``: ``"supportive above"``,
            ``"supportive below"`` or ``"unresolved"``.

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
        out: dict[str, Estimate | str] = {"demos": demos, "vector": vector}
        for name in ("demos", "vector"):
            est = out[name]
            assert isinstance(est, Estimate)
            out[f"v_{name}"] = _direction(est, "supportive above", "supportive below")
        return out

    def _late(self, top: float) -> np.ndarray:
        top = check_real("top", top, low=0.0, strict=True)
        if top > 1:
            raise ValueError(f"top must lie in (0, 1], got {top}")
        late = self.effect.layers >= (1 - top) * self.n_layers
        if not late.any():
            raise ValueError(f"no context layer >= {(1 - top) * self.n_layers:g} in the sweep")
        return np.asarray(late)

    def summary(self, top: float = 0.25) -> dict[str, Estimate | float | int | str]:
        """Return every number chapter 6 quotes about LAMA, by label.

        Returns
        -------
        dict
            ``n`` (queries scored), the counts of :func:`lama_target_stats`; the whole-word top-1
            rates (Estimates, Wilson) ``zero``, ``plus`` (k correct demonstrations) and
            ``minus`` (k wrong ones); the whole-word target probability zero-shot ``p0`` and,
            over the top quarter of the layers (:meth:`late_prob`), ``pplus`` and ``pminus``;
            ``sep``: ``"above"`` when ``pplus > pminus``, else ``"below"``; and, where the sets
            and per-query probabilities were kept, :meth:`paired` (keys ``demos``, ``vector``,
            ``v_demos``, ``v_vector``); ``late``: the late context layers, as text.

        Parameters
        ----------
        top : float
            Fraction of the model whose context layers count as late.
        """
        rates = self.rates()
        p_plus, p_minus = self.late_prob(top)
        out: dict[str, Estimate | float | int | str] = {
            "n": self.n, **self.counts, "zero": rates["zero-shot"],
            "plus": rates[f"{self.k} correct demos"], "minus": rates[f"{self.k} wrong demos"],
            "p0": float(self.effect.prob0), "pplus": p_plus,
            "pminus": p_minus, "sep": "above" if p_plus > p_minus else "below",
        }  # fmt: skip
        out["late"] = ", ".join(str(int(ell)) for ell in self.effect.layers[self._late(top)])
        if self.sets is not None and self.effect.prob_query is not None:
            out.update(self.paired(top))
        return out

    def __str__(self) -> str:
        """Return the whole-word top-1 rates (95 % Wilson) and the target counts, one a line."""
        rows = [f"whole-word top-1, {name:16s} {e.value:.3f} [{e.low:.3f}, {e.high:.3f}]"
                f"  (n = {e.n})" for name, e in self.rates().items()]  # fmt: skip
        rows += [f"  {key:24s} {val:4d}" for key, val in self.counts.items()]
        return "\n".join(rows)


def run_lama(
    lm: LanguageModel,
    task: Task,
    *,
    k: int,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    n_prefixes: int = 4,
    seed: int = 0,
    n_queries: int | None = None,
    batch_size: int = 16,
    max_tokens: int | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> LamaResult:
    """Supportive (correct pairs) and adversarial (wrong capitals) context on LAMA queries.

    Every query is scored (or a seeded subset of ``n_queries``). Targets are whole capitals:
    top-1 means greedy decoding produces the capital's tokens and then leaves the word;
    probabilities are whole-word (teacher forcing).
    Demonstrations come from the other facts (a query is never in its own prefix). c-bar_(+/-)
    of a query is averaged over the other half of the queries (two seeded folds). Paper §4,
    Fig. 6 (metric: this book's choice, see chapter 6).

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        ``load_task("lama_p36")``.
    k : int
        Demonstrations per prompt.
    lambdas : sequence of float
        Context strengths.
    layers : sequence of int, optional
        Context layers of the effect sweep; default all, 0 .. L.
    n_prefixes, seed, batch_size, max_tokens, cache, progress
        As :func:`run_classification`.
    n_queries : int, optional
        Score a seeded random subset of this many queries (sorted), for a quick run; default
        (None) every query. Demonstrations are still drawn from all facts.

    Returns
    -------
    LamaResult

    Raises
    ------
    ValueError
        If ``task`` is not LAMA P36, or ``n_queries`` is not in [2, len(task)].
    """
    if task.name != "lama_p36":
        raise ValueError(f"run_lama needs the task 'lama_p36', got {task.name!r}")
    items = np.arange(len(task))
    if n_queries is not None:
        if not 2 <= n_queries <= len(task):
            raise ValueError(f"n_queries must be in [2, {len(task)}], got {n_queries}")
        pick = np.random.default_rng([seed, 36]).choice(len(task), n_queries, replace=False)
        items = np.sort(pick)
    targets = [lm.word_ids(task.label_words[y]) for y in task.labels[items]]
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
        "targets": targets,
        "weights": weights_digest(lm.model) if uses_cache(lm, cache) else None,  # once
    }
    zero = _prompt_states(lm, task, items, None, desc="lama 0-shot", **kw)
    facts = np.arange(len(task))  # demonstrations: any fact, never the query itself
    states = {}
    sets = np.zeros(len(items), dtype=np.int64)
    for demos in ("supportive", "adversarial"):
        pre = demo_prefixes(task, facts, k=k, n_prefixes=n_prefixes, seed=seed, demos=demos)
        sets = pre.assign(items)  # the same for both: the same items, other labels
        states[demos] = _prompt_states(lm, task, items, pre, desc=f"lama {k}-shot {demos}", **kw)
    fold = np.random.default_rng(seed).permutation(len(items)) % 2

    def crossfit(h_icl: torch.Tensor) -> torch.Tensor:
        c = torch.empty_like(zero.h)
        for f in (0, 1):
            other = fold != f
            c[fold == f] = context_vector(h_icl[other], zero.h[other])
        return c

    first = torch.tensor([t[0] for t in targets])
    h_last = zero.h[:, -1]
    lp_first = torch.log_softmax(decode(lm, h_last), -1)[torch.arange(len(first)), first]
    assert zero.target_logprob is not None
    continuation = zero.target_logprob - lp_first.double().numpy()
    effect = lama_context_effect(
        lm, h_last, first, continuation,
        crossfit(states["supportive"].h), crossfit(states["adversarial"].h), lambdas,
        list(range(lm.n_layers + 1)) if layers is None else list(layers),
    )  # fmt: skip
    assert zero.target_top1 is not None
    return LamaResult(
        source=task.source,
        model=lm.name,
        k=k,
        n_prefixes=n_prefixes,
        seed=seed,
        items=items,
        correct_zero=zero.target_top1,
        correct_plus=states["supportive"].target_top1,  # type: ignore[arg-type]
        correct_minus=states["adversarial"].target_top1,  # type: ignore[arg-type]
        effect=effect,
        counts=lama_target_stats(lm, task),
        n_layers=lm.n_layers,
        sets=sets,
    )
