"""Chapter 7b: stored facts against in-context overrides, with ground truth.

The task (a reconstruction in the spirit of Bietti et al., arXiv 2306.00802, whose
``ihead_data.py`` plants trigger -> output pairs in a sequence that an induction head must copy):
known subjects ``k*`` each have a stored attribute ``a(s)`` among K attributes ``a*``; a sequence
is ``n_ctx`` (subject, attribute) pairs followed by a query subject, and the model predicts the
next token. Three kinds of training sequence, equally often:

- ``stored``: the query is a known subject absent from the context (distractor pairs only);
  answer a(s);
- ``override``: the context states ``(s, a')`` with a' != a(s); answer a';
- ``unknown``: the query is an unknown subject ``u*`` (no stored fact) stated in the context;
  answer the stated attribute.

The negative control trains on ``stored`` sequences only: context never carries the answer.
Distractor pairs use other subjects with random attributes. Every measurement goes through
chapter 6's functions (:mod:`assocmem.llm.states`, :mod:`assocmem.llm.probes`,
:mod:`assocmem.llm.evaluation`) on the toy wrapped by :func:`~.toy.as_language_model`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
from torch import nn

from assocmem._validate import check_int
from assocmem.bridge.toy import ToyConfig, ToyTransformer, WordTokenizer, as_language_model
from assocmem.device import get_device
from assocmem.estimate import Estimate, Verdict, verdict
from assocmem.keys import glue_key
from assocmem.llm.evaluation import PairedComparison, paired_comparison
from assocmem.llm.models import LanguageModel
from assocmem.llm.probes import (
    additive_accuracy,
    additive_logits,
    context_vector,
    decode,
    layer_profile,
)
from assocmem.llm.states import prompt_states
from assocmem.stats import bootstrap_interval, crossing, rate
from assocmem.streams import Seed, child, numpy_rng

__all__ = [
    "OverrideTask",
    "override_task",
    "train_toy",
    "Prompts",
    "probe_prompts",
    "ToyControls",
    "measure_controls",
    "CONTROL_ROWS",
    "CONTROL_SPEC",
    "controls_frame",
    "repetitions",
    "Transition",
    "measure_transition",
]


@dataclass(frozen=True)
class OverrideTask:
    """Vocabulary and stored facts of the toy.

    Attributes
    ----------
    n_known, n_unknown, n_attr, n_ctx : int
        Known subjects, unknown subjects, attributes K, context pairs per sequence.
    stored : numpy.ndarray, int, shape (n_known,)
        Stored attribute index of each known subject.
    tokenizer : WordTokenizer
        Words ``k0..``, ``u0..``, ``a0..``, then ``<eos>``.
    """

    n_known: int
    n_unknown: int
    n_attr: int
    n_ctx: int
    stored: np.ndarray
    tokenizer: WordTokenizer = field(repr=False)

    @property
    def attr_ids(self) -> torch.Tensor:
        """Token ids of the K attributes, int64 (K,): chapter 6's label ids."""
        start = self.n_known + self.n_unknown
        return torch.arange(start, start + self.n_attr)

    def subject_id(self, s: int, known: bool = True) -> int:
        """Token id of known subject s (or unknown subject s)."""
        return s if known else self.n_known + s


def override_task(n_known: int = 48, n_unknown: int = 48, n_attr: int = 8, n_ctx: int = 4,
                  *, seed: Seed = 0) -> OverrideTask:  # fmt: skip
    """Draw the stored facts (attribute of each known subject, uniform over K) from ``seed``."""
    for name, v, lo in (("n_known", n_known, 2), ("n_unknown", n_unknown, 2),
                        ("n_attr", n_attr, 2), ("n_ctx", n_ctx, 1)):  # fmt: skip
        check_int(name, v, lo)
    words = [f"k{i}" for i in range(n_known)] + [f"u{i}" for i in range(n_unknown)]
    words += [f"a{i}" for i in range(n_attr)] + ["<eos>"]
    stored = numpy_rng(child(seed, "facts")).integers(n_attr, size=n_known)
    return OverrideTask(n_known, n_unknown, n_attr, n_ctx, stored, WordTokenizer(words))


def _sequences(
    task: OverrideTask,
    rng: np.random.Generator,
    n: int,
    kinds: np.ndarray,
    copies: np.ndarray | None = None,
    attr: np.ndarray | None = None,
    subjects: np.ndarray | None = None,
    same_distractors: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sequences (n, 2 n_ctx + 1) of the given kinds (0 stored, 1 override, 2 unknown, 3 support).

    Returns ``(ids, answer, query_subject, stated)``: token ids, the answer's attribute index, the
    query subject's index and the attribute stated in context (-1 if none). ``copies`` (n,) says
    how many of the n_ctx pairs state the query (default 1 for kinds 1-3); ``attr`` fixes the
    stated attribute; ``subjects`` fixes the query subjects.
    """
    n_sub = task.n_known + task.n_unknown
    pos_q = 2 * task.n_ctx
    ids = np.empty((n, pos_q + 1), np.int64)
    answer, stated = np.empty(n, np.int64), np.full(n, -1, np.int64)
    unknown = kinds == 2
    if subjects is None:
        subjects = np.where(unknown, rng.integers(task.n_unknown, size=n),
                            rng.integers(task.n_known, size=n))  # fmt: skip
    q_tok = np.where(unknown, task.n_known + subjects, subjects)
    a0 = task.n_known + task.n_unknown
    dist_rng = np.random.default_rng(rng.integers(2**63)) if same_distractors else rng
    for i in range(n):
        r = np.random.default_rng(dist_rng.integers(2**63)) if same_distractors else rng
        pool = np.delete(np.arange(n_sub), q_tok[i])
        ids[i, 0:pos_q:2] = r.choice(pool, size=task.n_ctx, replace=False)
        ids[i, 1:pos_q:2] = a0 + r.integers(task.n_attr, size=task.n_ctx)
        ids[i, pos_q] = q_tok[i]
        k = int(kinds[i])
        if k == 0:
            answer[i] = task.stored[subjects[i]]
            continue
        if attr is not None:
            a = int(attr[i])
        elif k == 1:
            a = int((task.stored[subjects[i]] + rng.integers(1, task.n_attr)) % task.n_attr)
        elif k == 3:
            a = int(task.stored[subjects[i]])
        else:
            a = int(rng.integers(task.n_attr))
        c = 1 if copies is None else int(copies[i])
        slots = rng.choice(task.n_ctx, size=c, replace=False)
        ids[i, 2 * slots] = q_tok[i]
        ids[i, 2 * slots + 1] = a0 + a
        answer[i], stated[i] = a, a
    return ids, answer, subjects, stated


def train_toy(
    task: OverrideTask,
    *,
    overrides: bool = True,
    d: int = 64,
    n_layers: int = 2,
    steps: int = 1500,
    batch: int = 128,
    lr: float = 3e-3,
    seed: Seed = 0,
    device: str | torch.device | None = None,
) -> tuple[LanguageModel, np.ndarray]:
    """Train the toy on the task; returns it wrapped for chapter 6's tools, and its loss curve.

    Parameters
    ----------
    task : OverrideTask
    overrides : bool
        Train on the three kinds (True) or on ``stored`` sequences only (the negative control).
    d, n_layers, steps, batch, lr : sizes and Adam settings.
    seed : int or numpy.random.SeedSequence
        The model's stream (``child(seed, "model")``) and the batches' (``child(seed, "data")``).
    device : str, torch.device or None

    Returns
    -------
    (LanguageModel, numpy.ndarray of shape (steps,))
        Named ``toy`` or ``toy-no-overrides``; the training loss per step.
    """
    steps = check_int("steps", steps, 1)
    dev = get_device(device)
    cfg = ToyConfig(vocab_size=len(task.tokenizer), hidden_size=check_int("d", d, 4),
                    num_hidden_layers=n_layers, intermediate_size=4 * d,
                    max_position_embeddings=2 * task.n_ctx + 1)  # fmt: skip
    model = ToyTransformer(cfg, child(seed, "model")).to(dev)
    rng = numpy_rng(child(seed, "data"))
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    a0 = task.n_known + task.n_unknown
    losses = np.empty(steps)
    model.train()
    for t in range(steps):
        kinds = rng.integers(3, size=batch) if overrides else np.zeros(batch, np.int64)
        ids, answer, _, _ = _sequences(task, rng, batch, kinds)
        logits = model(torch.as_tensor(ids, device=dev))[:, -1]
        loss = nn.functional.cross_entropy(logits, torch.as_tensor(a0 + answer, device=dev))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses[t] = float(loss.detach())
    name = "toy" if overrides else "toy-no-overrides"
    return as_language_model(model, task.tokenizer, name), losses


def _hide_statement(task: OverrideTask, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Copy of ``ids`` where every context pair about the query subject names another subject.

    The attributes stay where they are, so the two prompts differ only in whether the context
    speaks about the query: the zero-shot partner of an in-context prompt.
    """
    out = ids.copy()
    n_sub = task.n_known + task.n_unknown
    for row in out:
        q = row[-1]
        for j in np.flatnonzero(row[:-1:2] == q):
            free = np.setdiff1d(np.arange(n_sub), row[:-1:2])
            row[2 * j] = rng.choice(free[free != q])
    return out


@dataclass(frozen=True)
class Prompts:
    """Paired prompts of chapter 7b (ids of shape (n, 2 n_ctx + 1)) and their answers.

    ``stored`` (known subjects, no statement), ``override`` (the context states a' != a(s)),
    ``support`` (the same context stating a(s)), ``unknown`` (unknown subject stated) and
    ``unknown_zero`` (its statement hidden); ``stored_attr``, ``override_attr``,
    ``unknown_attr`` the answers.
    """

    stored: np.ndarray
    override: np.ndarray
    support: np.ndarray
    unknown: np.ndarray
    unknown_zero: np.ndarray
    stored_attr: np.ndarray
    override_attr: np.ndarray
    unknown_attr: np.ndarray


def probe_prompts(task: OverrideTask, n: int, seed: Seed) -> Prompts:
    """Draw n paired prompts of each kind from ``seed`` (disjoint from any training stream)."""
    n = check_int("n", n, 2)
    rng = numpy_rng(seed)
    over, a_over, subj, _ = _sequences(task, rng, n, np.ones(n, np.int64))
    support = over.copy()
    stated = over[:, :-1:2] == over[:, -1:]  # (n, n_ctx): the pairs about the query
    a_tok = task.n_known + task.n_unknown + task.stored[subj]
    attrs = support[:, 1::2]  # a view: writing it writes support
    attrs[stated] = np.broadcast_to(a_tok[:, None], stated.shape)[stated]
    unk, a_unk, _, _ = _sequences(task, rng, n, np.full(n, 2, np.int64))
    return Prompts(stored=_hide_statement(task, over, rng), override=over, support=support,
                   unknown=unk, unknown_zero=_hide_statement(task, unk, rng),
                   stored_attr=task.stored[subj], override_attr=a_over,
                   unknown_attr=a_unk)  # fmt: skip


def _states(lm: LanguageModel, ids: np.ndarray) -> torch.Tensor:
    """Chapter 6's :func:`~assocmem.llm.states.prompt_states` on whole prompts: (n, L + 1, d)."""
    return prompt_states(
        lm, [[]], [list(r) for r in ids], cache=False, batch_size=256, progress=False
    ).h


def _correct(lm: LanguageModel, task: OverrideTask, h: torch.Tensor, ans: np.ndarray) -> np.ndarray:
    """Whether the final-layer logit lens over the K attributes picks ``ans``, bool (n,)."""
    return decode(lm, h[:, -1], task.attr_ids).numpy().argmax(-1) == ans


@dataclass(frozen=True)
class ToyControls:
    """Chapter 6's measurements on one toy, each against what the construction implies.

    Attributes
    ----------
    name : str
        The toy (``toy`` or ``toy-no-overrides``).
    stored_recall : Estimate
        Zero-shot accuracy on stored facts (Wilson); chance is 1/K.
    override : PairedComparison
        In-context minus zero-shot accuracy on the override's answer a'.
    unknown : PairedComparison
        In-context minus zero-shot accuracy on unknown subjects.
    support : PairedComparison
        Accuracy on the stored answer with a supportive context minus with an adversarial one.
    collapse : Estimate
        Final-layer N_eff (entropy) zero-shot minus in context, unknown subjects (paired bootstrap).
    label_mass, neff : dict of numpy.ndarray, shape (L + 1,)
        Mean label mass and N_eff per layer (logit lens), for ``"zero"`` and ``"icl"`` prompts of
        unknown subjects.
    """

    name: str
    stored_recall: Estimate
    override: PairedComparison
    unknown: PairedComparison
    support: PairedComparison
    collapse: Estimate
    label_mass: dict[str, np.ndarray]
    neff: dict[str, np.ndarray]

    def summary(self, chance: float) -> dict[str, Estimate | Verdict]:
        """Each measurement (Estimate) and its verdict (``<name>_v``) by label.

        ``recall`` is judged against ``chance`` (1/K), the differences against 0, with the one
        rule :func:`assocmem.estimate.verdict`.
        """
        out: dict[str, Estimate | Verdict] = {
            "recall": self.stored_recall,
            "recall_v": verdict(self.stored_recall, chance),
        }
        for key, pc in (("override", self.override), ("unknown", self.unknown),
                        ("support", self.support)):  # fmt: skip
            out[key], out[f"{key}_v"] = pc.difference, pc.verdict
        out["collapse"], out["collapse_v"] = self.collapse, verdict(self.collapse)
        return out

    def findings(self, chance: float) -> dict[str, Estimate | Verdict | float]:
        """:meth:`summary` plus the final-layer N_eff, ``neff_zero`` and ``neff_icl``."""
        out: dict[str, Estimate | Verdict | float] = dict(self.summary(chance))
        out.update({f"neff_{k}": float(v[-1]) for k, v in self.neff.items()})
        return out


#: Format of each finding in prose (:func:`assocmem.pages.glue_all`'s ``spec``).
CONTROL_SPEC = {"override": "+.3f", "unknown": "+.3f", "support": "+.3f", "collapse": "+.2f"}

#: The rows of :func:`controls_frame`: label, measurement, what the construction implies.
CONTROL_ROWS = (
    ("recall", "zero-shot accuracy, stored facts (vs chance 1/K)", "above"),
    ("override", "ICL − zero-shot accuracy on the override a′", "above (control: not above)"),
    ("unknown", "ICL − zero-shot accuracy, unknown subjects", "above (control: not above)"),
    ("support", "supportive − adversarial accuracy on a(s)", "above (control: not above)"),
    (
        "collapse",
        "zero-shot − ICL final-layer N_eff, unknown subjects",
        "above (control: not above)",
    ),
)


def controls_frame(controls: dict[str, ToyControls], chance: float) -> pd.DataFrame:
    """One row per measurement: what is predicted, then each toy's Estimate and verdict."""
    sums = {name: c.summary(chance) for name, c in controls.items()}
    rows = []
    for key, what, predicted in CONTROL_ROWS:
        row: dict[str, object] = {"measurement": what, "predicted": predicted}
        for name, s in sums.items():
            row[name] = s[key]
            row[f"{name}: verdict"] = str(s[f"{key}_v"])
        rows.append(row)
    return pd.DataFrame(rows)


def measure_controls(lm: LanguageModel, task: OverrideTask, prompts: Prompts,
                     seed: Seed = 0) -> ToyControls:  # fmt: skip
    """Run chapter 6's tools on the toy's paired prompts (see :class:`ToyControls`)."""
    p = prompts
    h = {k: _states(lm, getattr(p, k))
         for k in ("stored", "override", "support", "unknown", "unknown_zero")}  # fmt: skip
    ok_stored = _correct(lm, task, h["stored"], p.stored_attr)
    ok_over = _correct(lm, task, h["override"], p.override_attr)
    ok_over0 = _correct(lm, task, h["stored"], p.override_attr)
    ok_sup = _correct(lm, task, h["support"], p.stored_attr)
    ok_adv = _correct(lm, task, h["override"], p.stored_attr)
    ok_unk = _correct(lm, task, h["unknown"], p.unknown_attr)
    ok_unk0 = _correct(lm, task, h["unknown_zero"], p.unknown_attr)
    prof = {k: layer_profile(lm, h[src], task.attr_ids)
            for k, src in (("zero", "unknown_zero"), ("icl", "unknown"))}  # fmt: skip
    gap = prof["zero"]["neff_entropy"][:, -1] - prof["icl"]["neff_entropy"][:, -1]
    return ToyControls(
        name=lm.name,
        stored_recall=rate(ok_stored),
        override=paired_comparison(ok_over, ok_over0, seed=child(seed, "override")),
        unknown=paired_comparison(ok_unk, ok_unk0, seed=child(seed, "unknown")),
        support=paired_comparison(ok_sup, ok_adv, seed=child(seed, "support")),
        collapse=bootstrap_interval(gap, seed=child(seed, "collapse"), unit="queries (paired)"),
        label_mass={k: v["label_mass"].mean(0) for k, v in prof.items()},
        neff={k: v["neff_entropy"].mean(0) for k, v in prof.items()},
    )


def repetitions(
    lm: LanguageModel, task: OverrideTask, n: int, copies: tuple[int, ...], seed: Seed = 0
) -> dict[str, Estimate]:
    """Fraction of known-subject queries answering the override a' when it is stated r times.

    Parameters
    ----------
    copies : tuple of int in [0, n_ctx]
        Repetitions r of the pair (s, a') among the n_ctx context pairs (0: no statement).

    Returns
    -------
    dict
        ``reps_<r>``: Wilson rate over n prompts (final-layer logit lens over the attributes).

    Raises
    ------
    ValueError
        If a count is outside [0, n_ctx].
    """
    n = check_int("n", n, 2)
    out = {}
    for r in copies:
        if not 0 <= r <= task.n_ctx:
            raise ValueError(f"copies must lie in [0, {task.n_ctx}], got {r}")
        rng = numpy_rng(child(seed, r))
        ids, ans, _, _ = _sequences(
            task, rng, n, np.ones(n, np.int64), copies=np.full(n, max(r, 1))
        )
        if r == 0:
            ids = _hide_statement(task, ids, rng)
        out[f"reps_{r}"] = rate(_correct(lm, task, _states(lm, ids), ans))
    return out


@dataclass(frozen=True)
class Transition:
    """Answer switching from the stored fact to a context attribute a* along h + lambda c-bar.

    Attributes
    ----------
    lambdas : numpy.ndarray, shape (m,)
    layer : int
        Context layer of c-bar, in 1..L (chosen on held-out prompts: highest fraction at
        lambda = 1; or given).
    fraction : list of Estimate, length m
        Fraction of test queries answering a* (Wilson), per lambda.
    lambda_crit : Estimate
        Where that fraction first rises through 1/2 (bootstrap over queries; NaN if never).
    selection : numpy.ndarray, shape (L + 1, m)
        Held-out fraction per context layer and lambda (the layer choice).
    """

    lambdas: np.ndarray
    layer: int
    fraction: list[Estimate]
    lambda_crit: Estimate
    selection: np.ndarray

    def at(self, lam: float) -> Estimate:
        """Return the fraction answering the target at the grid point ``lam``.

        Raises
        ------
        ValueError
            If ``lam`` is not on the grid.
        """
        hit = np.flatnonzero(np.isclose(self.lambdas, lam))
        if hit.size == 0:
            raise ValueError(f"lam must be one of the grid {self.lambdas.tolist()}, got {lam}")
        return self.fraction[int(hit[0])]

    def findings(
        self, at: tuple[float, ...] = (), crossing: bool = True
    ) -> dict[str, Estimate | float | int]:
        """``layer``, ``lam_max``, ``frac_end``, ``frac_<lambda>`` for ``at``, and ``lcrit``.

        ``crossing=False`` leaves out ``lcrit`` (for a curve that never reaches 1/2, whose
        crossing has no interval).
        """
        out: dict[str, Estimate | float | int] = {
            "layer": self.layer,
            "lam_max": float(self.lambdas[-1]),
            "frac_end": self.fraction[-1],
        }
        if crossing:
            out["lcrit"] = self.lambda_crit
        out.update({glue_key("frac", lam): self.at(lam) for lam in at})
        return out


def measure_transition(lm: LanguageModel, task: OverrideTask, n: int, lambdas: np.ndarray,
                       seed: Seed = 0, target: int = 0,
                       layer: int | None = None) -> Transition:  # fmt: skip
    """Additive context vector toward attribute ``target``: c-bar, layer choice, transition.

    c-bar = :func:`~assocmem.llm.probes.context_vector` of prompts overriding known subjects to
    ``target`` against their zero-shot partners (one third of the prompts); the context layer
    maximises :func:`~assocmem.llm.probes.additive_accuracy` at lambda = 1 on a second third,
    among layers 1..L (layer 0 is excluded: at the last token a prompt and its zero-shot partner
    have the same token at the same position, so c-bar at layer 0 is exactly 0), unless
    ``layer`` is given (e.g. another model's choice, to compare two models at one layer); the
    transition is measured on the last third, on subjects whose stored attribute is not the target.
    """
    n = check_int("n", n, 6)
    rng = numpy_rng(seed)
    subjects = rng.choice(np.flatnonzero(task.stored != target), size=3 * n)
    ids, _, _, _ = _sequences(task, rng, 3 * n, np.ones(3 * n, np.int64),
                              attr=np.full(3 * n, target), subjects=subjects)  # fmt: skip
    zero = _hide_statement(task, ids, rng)
    h_zero, h_icl = _states(lm, zero), _states(lm, ids)
    c_bar = context_vector(h_icl[:n], h_zero[:n])
    labels = np.full(n, target)
    lam = np.asarray(lambdas, float)
    sel = additive_accuracy(lm, c_bar, h_zero[n : 2 * n, -1], labels, task.attr_ids,
                            list(range(lm.n_layers + 1)), lam)  # fmt: skip
    one = int(np.argmin(np.abs(lam - 1.0)))
    if layer is None:
        layer = 1 + int(np.argmax(sel[1:, one]))
    else:
        layer = check_int("layer", layer, 1)
        if layer > lm.n_layers:
            raise ValueError(f"layer must lie in [1, {lm.n_layers}], got {layer}")
    test = h_zero[2 * n :, -1]
    logits = additive_logits(lm, test, c_bar[layer], lam, task.attr_ids)
    hits = (logits.numpy().argmax(-1) == target).T  # (n, m)
    crit = crossing(lam, hits.astype(float), 0.5, direction="up", unit="queries",
                    seed=child(seed, "crossing"))  # fmt: skip
    return Transition(lam, layer, [rate(hits[:, j]) for j in range(len(lam))], crit, sel)
