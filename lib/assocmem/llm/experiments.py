"""Chapter-6 drivers: one call per task returns every number and curve the page shows.

Protocol (issue 14): per task, disjoint query sets build c-bar^(l) (``ctx``), select the additive
score's (layer, lambda) (``sel``) and are reported (``test``); zero-shot, k-shot ICL and the
additive score are measured on the same test queries, with Wilson intervals and paired
comparisons. k-shot prompts share a few fixed demonstration prefixes (key/value cache computed
once); the zero-shot states serve every k.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from .._validate import check_real
from ..stats import Estimate, rate
from .data import Task
from .evaluation import PairedComparison, label_alignment, paired_comparison, probe_accuracy
from .models import LanguageModel
from .probes import (
    LamaEffect,
    additive_accuracy,
    additive_logits,
    context_vector,
    decode,
    final_norm,
    lama_context_effect,
    layer_profile,
)
from .prompts import Split, demo_prefixes, encode
from .registry import MODELS
from .states import prompt_states

__all__ = [
    "TaskResult",
    "LamaResult",
    "ProbeResult",
    "run_classification",
    "run_lama",
    "default_layers",
    "select_additive",
    "lama_target_stats",
    "REACH_TOL",
]

#: "The probe reaches its best accuracy": within this much of it (chapter 6's probe sentence).
REACH_TOL = 0.02


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


def default_layers(n_layers: int, count: int = 4) -> list[int]:
    """``count`` context layers evenly spaced from 5L/8 to L (the paper's {20, 24, 28, 32}).

    Parameters
    ----------
    n_layers : int
        Number of decoder blocks L (>= 1).
    count : int
        Number of layers wanted, >= 1.

    Returns
    -------
    list of int
        Sorted distinct layers in [round(5L/8), L]; for L = 32 and count = 4 exactly
        [20, 24, 28, 32], the context layers of the paper's Fig. 5 (§4, digest §6.4).

    Raises
    ------
    ValueError
        If ``count`` < 1 or ``n_layers`` < 1.
    """
    if count < 1 or n_layers < 1:
        raise ValueError(f"count and n_layers must be >= 1, got {count}, {n_layers}")
    return sorted({int(round(x)) for x in np.linspace(5 * n_layers / 8, n_layers, count)})


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

    def alignment_onset(self) -> int:
        """First layer from which the mean alignment margin stays at or above half its maximum.

        0 when every layer is; ``L + 1`` when none is (a negative maximum).
        """
        align = self.alignment_mean_ci[0]
        above = align >= 0.5 * align.max()
        return int(len(above) - np.argmin(above[::-1])) if not above.all() else 0

    def summary(self, tol: float = REACH_TOL) -> dict[str, Estimate | float | int | str]:
        """Return the probe's numbers by the labels chapter 6 quotes.

        Parameters
        ----------
        tol : float
            Tolerance of :meth:`reach_layer` (>= 0).

        Returns
        -------
        dict
            ``probe_peak`` (:meth:`peak_layer`), ``probe_best`` (its accuracy, an Estimate),
            ``probe_reach`` (:meth:`reach_layer`), ``align_half`` (:meth:`alignment_onset`) and
            ``order``: ``"before"`` when separability is reached before the alignment sets in,
            else ``"not before"``.
        """
        peak, reach, half = self.peak_layer(), self.reach_layer(tol), self.alignment_onset()
        order = "before" if reach < half else "not before"
        return {"probe_peak": peak, "probe_reach": reach, "probe_best": self.accuracy[peak],
                "align_half": half, "order": order}  # fmt: skip


@dataclass(frozen=True)
class TaskResult:
    """Everything measured on one classification task.

    Attributes
    ----------
    task, source, model : str
    split : Split
    ks : tuple of int
        Demonstration counts (e.g. (1, 4)).
    n_prefixes : int
        Demonstration prefixes per k.
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
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def n_test(self) -> int:
        """Number of test queries."""
        return len(self.correct_zero)

    @property
    def k(self) -> int:
        """The largest k (used for the profiles and the probe)."""
        return max(self.ks)

    def rates(self) -> dict[str, Estimate]:
        """Test accuracies with Wilson intervals: zero-shot, each k-shot ICL, each additive."""
        out = {"zero-shot": rate(self.correct_zero)}
        for k in self.ks:
            out[f"{k}-shot ICL"] = rate(self.correct_icl[k])
        for k in self.ks:
            out[f"additive ({k}-shot c)"] = rate(self.correct_add[k])
        return out

    def comparisons(self, k: int | None = None) -> dict[str, PairedComparison]:
        """Paired comparisons of the additive score (c-bar from k shots) with zero-shot and ICL."""
        k = self.k if k is None else k
        add = self.correct_add[k]
        return {
            "additive - zero-shot": paired_comparison(add, self.correct_zero, seed=self.seed),
            f"additive - {k}-shot ICL": paired_comparison(add, self.correct_icl[k], seed=self.seed),
        }

    def summary(
        self, k: int | None = None, *, tol: float = REACH_TOL
    ) -> dict[str, Estimate | float | int | str]:
        """Return every number chapter 6 quotes about this task, by label.

        Parameters
        ----------
        k : int, optional
            Demonstrations behind the compared additive score (default: the largest).
        tol : float
            Tolerance of the probe's :meth:`ProbeResult.reach_layer`.

        Returns
        -------
        dict
            ``n`` (test queries); at the last layer, over the profiled queries, the mean mass on
            the label tokens ``mass_zero``/``mass_icl`` and the median entropy N_eff
            ``neff_zero``/``neff_icl``; test accuracies (Estimates, Wilson) ``zero``,
            ``{k}icl`` and ``add{k}`` for every k; the comparisons of the additive score with
            zero-shot and with k-shot ICL: ``diff_zero``/``diff_icl`` (Estimates of the
            difference, paired bootstrap), ``diff_zero_p``/``diff_icl_p`` (McNemar) and
            ``vs_zero``/``vs_icl`` (:attr:`PairedComparison.verdict`); ``chosen`` (the selected
            layer and lambda, as text); and, with a probe, :meth:`ProbeResult.summary`.

        Raises
        ------
        KeyError
            If ``k`` is not one of :attr:`ks`.
        """
        k = self.k if k is None else k
        if k not in self.ks:
            raise KeyError(f"k must be one of {self.ks}, got {k}")
        out: dict[str, Estimate | float | int | str] = {"n": self.n_test}
        for kind, prof in (("zero", self.profile_zero), ("icl", self.profile_icl)):
            out[f"mass_{kind}"] = float(prof["label_mass"][:, -1].mean())
            out[f"neff_{kind}"] = float(np.median(prof["neff_entropy"][:, -1]))
        out["zero"] = rate(self.correct_zero)
        out.update({f"{kk}icl": rate(self.correct_icl[kk]) for kk in self.ks})
        out.update({f"add{kk}": rate(self.correct_add[kk]) for kk in self.ks})
        comps = self.comparisons(k)
        for tag, comp in (("zero", comps["additive - zero-shot"]),
                          ("icl", comps[f"additive - {k}-shot ICL"])):  # fmt: skip
            out[f"diff_{tag}"] = comp.difference
            out[f"diff_{tag}_p"] = comp.p_mcnemar
            out[f"vs_{tag}"] = comp.verdict
        ell, lam = self.chosen[k]
        out["chosen"] = f"ℓ = {ell}, λ = {lam:.3g}"
        if self.probe is not None:
            out.update(self.probe.summary(tol))
        return out


def _query_ids(lm: LanguageModel, task: Task, items: np.ndarray) -> list[list[int]]:
    return [encode(lm, task.template.format(x=task.texts[i], y="")) for i in items]


def run_classification(
    lm: LanguageModel,
    task: Task,
    split: Split,
    *,
    ks: Sequence[int] = (1, 4),
    n_prefixes: int = 4,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int] | None = None,
    n_profile: int = 64,
    probe: bool = True,
    seed: int = 0,
    batch_size: int = 16,
    max_tokens: int | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> TaskResult:
    """Zero-shot, k-shot ICL and the additive score on a task's test queries (paper §4).

    Parameters
    ----------
    lm : LanguageModel
    task : Task
        A classification task (not ``lama_p36``).
    split : Split
        From :func:`assocmem.llm.prompts.make_split`.
    ks : sequence of int
        Demonstration counts.
    n_prefixes : int
        Demonstration prefixes per k (query i uses prefix i mod P).
    lambdas : sequence of float
        Context strengths of the additive score.
    layers : sequence of int, optional
        Context layers; default :func:`default_layers`.
    n_profile : int
        Test queries decoded over the whole vocabulary at every layer (N_eff profiles).
    probe : bool
        Run the linear probe and the alignment (App. D.4) on the largest k's test states.
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
        If a label word is not one token (:meth:`LanguageModel.label_ids`).
    """
    ids = lm.label_ids(task.label_words)
    layers = list(default_layers(lm.n_layers) if layers is None else layers)
    lam = np.asarray(lambdas, dtype=float)
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
    }
    n_ctx, n_sel = len(split.ctx), len(split.sel)
    items = np.concatenate([split.ctx, split.sel, split.test])
    zero = prompt_states(lm, [[]], _query_ids(lm, task, items), desc=f"{task.name} 0-shot", **kw).h
    h_ctx, h_sel, h_test = zero[:n_ctx], zero[n_ctx : n_ctx + n_sel], zero[n_ctx + n_sel :]
    y_sel, y_test = task.labels[split.sel], task.labels[split.test]

    def predict(h_last: torch.Tensor) -> np.ndarray:
        return decode(lm, h_last, ids).argmax(-1).numpy()

    correct_zero = predict(h_test[:, -1]) == y_test
    correct_icl, correct_add, acc_sel, acc_test, chosen = {}, {}, {}, {}, {}
    h_icl_test: dict[int, torch.Tensor] = {}
    for k in ks:
        pre = demo_prefixes(task, split.pool, k=k, n_prefixes=n_prefixes, seed=seed)
        icl_items = np.concatenate([split.ctx, split.test])
        st = prompt_states(
            lm,
            [encode(lm, t) for t in pre.texts],
            _query_ids(lm, task, icl_items),
            pre.assign(icl_items),
            desc=f"{task.name} {k}-shot",
            **kw,
        ).h
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
        top = check_real("top", top, low=0.0, strict=True)
        if top > 1:
            raise ValueError(f"top must lie in (0, 1], got {top}")
        eff = self.effect
        late = eff.layers >= (1 - top) * self.n_layers
        if not late.any():
            raise ValueError(f"no context layer >= {(1 - top) * self.n_layers:g} in the sweep")
        return float(eff.prob[0][late].mean()), float(eff.prob[1][late].mean())

    def summary(self) -> dict[str, Estimate | float | int | str]:
        """Return every number chapter 6 quotes about LAMA, by label.

        Returns
        -------
        dict
            ``n`` (queries scored), the counts of :func:`lama_target_stats`; the whole-word top-1
            rates (Estimates, Wilson) ``zero``, ``plus`` (k correct demonstrations) and
            ``minus`` (k wrong ones); the whole-word target probability zero-shot ``p0`` and,
            over the top quarter of the layers (:meth:`late_prob`), ``pplus`` and ``pminus``;
            ``sep``: ``"above"`` when ``pplus > pminus``, else ``"below"``.
        """
        rates = self.rates()
        p_plus, p_minus = self.late_prob()
        return {"n": self.n, **self.counts, "zero": rates["zero-shot"],
                "plus": rates[f"{self.k} correct demos"], "minus": rates[f"{self.k} wrong demos"],
                "p0": float(self.effect.prob0), "pplus": p_plus,
                "pminus": p_minus, "sep": "above" if p_plus > p_minus else "below"}  # fmt: skip

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
    queries = _query_ids(lm, task, items)
    targets = [lm.word_ids(task.label_words[y]) for y in task.labels[items]]
    kw: dict[str, Any] = {
        "batch_size": batch_size,
        "max_tokens": max_tokens,
        "progress": progress,
        "cache": cache,
        "targets": targets,
    }
    zero = prompt_states(lm, [[]], queries, desc="lama 0-shot", **kw)
    facts = np.arange(len(task))  # demonstrations: any fact, never the query itself
    states = {}
    for demos in ("supportive", "adversarial"):
        pre = demo_prefixes(task, facts, k=k, n_prefixes=n_prefixes, seed=seed, demos=demos)
        states[demos] = prompt_states(
            lm, [encode(lm, t) for t in pre.texts], queries, pre.assign(items),
            desc=f"lama {k}-shot {demos}", **kw,
        )  # fmt: skip
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
    )
