"""Figures and the results table of chapter 6 (built on :mod:`assocmem.plotting`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assocmem.estimate import render
from assocmem.llm.claims import ClaimRow
from assocmem.llm.protocol import TASK_TITLES
from assocmem.llm.results import Chapter6Run, LamaResult, TaskResult
from assocmem.pages import Table, table
from assocmem.plotting import color, finish, legend_below, new_figure, sim_points
from assocmem.stats import wilson_interval

__all__ = [
    "plot_neff",
    "plot_neff_task",
    "plot_additive",
    "plot_accuracies",
    "plot_probe",
    "plot_lama",
    "results_table",
    "verdict_table",
    "findings_table",
    "claim_lines",
]


def _mean_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over axis 0."""
    n = x.shape[0]
    return x.mean(0), (x.std(0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(x.shape[1:]))


def plot_neff(results: Sequence[TaskResult], *, kind: str = "entropy") -> Any:
    """N_eff per layer (top) and probability mass on the label tokens (bottom), zero-shot vs ICL.

    Parameters
    ----------
    results : sequence of TaskResult
    kind : {"entropy", "participation"}
        Which N_eff (see :func:`assocmem.llm.probes.effective_number`).

    Returns
    -------
    matplotlib.figure.Figure
        Markers: mean over evaluated queries of log10 N_eff (error bars: one standard error).
    """
    if kind not in ("entropy", "participation"):
        raise ValueError(f"kind must be 'entropy' or 'participation', got {kind!r}")
    fig, axes = new_figure(2, len(results), sharex=True)
    axes = np.asarray(axes, dtype=object).reshape(2, len(results))
    for j, res in enumerate(results):
        top, bottom = axes[0, j], axes[1, j]
        for i, (prof, name) in enumerate(
            ((res.profile_zero, "zero-shot"), (res.profile_icl, "ICL (k shots, in the title)"))
        ):
            layers = np.arange(prof["label_mass"].shape[1])
            m, se = _mean_se(np.log10(prof[f"neff_{kind}"]))
            sim_points(
                top,
                layers,
                m,
                se,
                label=f"{name} (measured)",
                color=color(i),
                linestyle=":",
                markersize=3,
            )
            m, se = _mean_se(prof["label_mass"])
            sim_points(
                bottom, layers, m, se, label=name, color=color(i), linestyle=":", markersize=3
            )
        top.set_title(f"{TASK_TITLES.get(res.task, res.task)} (k = {res.k})")
        bottom.set_xlabel("layer ℓ")
        bottom.set_ylim(-0.02, 1.02)
    axes[0, 0].set_ylabel(r"$\log_{10} N_{\rm eff}$" + f" ({kind})")
    axes[1, 0].set_ylabel("mass on label tokens")
    axes[0, 0].legend(fontsize="small")
    return finish(fig, title=f"Logit lens of the last-token state ({results[0].model})")


def plot_neff_task(
    results: dict[str, TaskResult], task: str = "sst2", kind: str = "entropy"
) -> Any:
    """:func:`plot_neff` for one task picked by name from ``results`` (an explorer's draw).

    Parameters
    ----------
    results : dict of str to TaskResult
        Results by task name.
    task : str
        Key of ``results`` to draw.
    kind : {"entropy", "participation"}
        Which N_eff.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels (N_eff and label mass vs layer), two curves each.

    Raises
    ------
    ValueError
        If ``task`` is not a key of ``results`` or ``kind`` is unknown.
    """
    if task not in results:
        raise ValueError(f"task must be one of {sorted(results)}, got {task!r}")
    return plot_neff([results[task]], kind=kind)


def _band(ax: Any, x: np.ndarray, lo: np.ndarray, hi: np.ndarray, col: str) -> None:
    ax.fill_between(x, lo, hi, color=col, alpha=0.18, lw=0)


def plot_additive(results: Sequence[TaskResult], k: int | None = None) -> Any:
    """Additive-score accuracy vs lambda on the test queries (exploration), per context layer.

    Bands: 95 % Wilson intervals of the exploration curves. The star marks the (layer, lambda)
    chosen on the selection queries; horizontal lines with bands: zero-shot (Wilson) and k-shot
    ICL (bootstrap over demonstration sets) on the same test queries; grey: chance. Paper §4,
    Eq. (7), Fig. 5.

    Parameters
    ----------
    results : sequence of TaskResult
        One panel per task.
    k : int, optional
        Demonstrations behind c-bar (default: the largest).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = new_figure(1, len(results))
    axes = np.asarray(axes, dtype=object).reshape(1, len(results))
    for j, res in enumerate(results):
        kk = res.k if k is None else k
        ax = axes[0, j]
        n = res.n_test
        for i, ell in enumerate(res.layers):
            a = res.acc_test[kk][i]
            ci = np.array(wilson_interval(np.rint(np.asarray(a) * n).astype(int), n))
            col = color(i)
            _band(ax, res.lambdas, ci[0], ci[1], col)
            ax.plot(res.lambdas, a, color=col, marker="o", ms=3, label=f"additive, ℓ = {ell}")
        ell, lam = res.chosen[kk]
        rates = res.rates()
        add = rates[f"additive ({kk}-shot c)"] if kk == res.k else rates["zero-shot"]
        ax.plot([lam], [add.value], marker="*", ms=12, color="k", ls="none",
                label="selected (ℓ, λ)")  # fmt: skip
        refs = ((rates["zero-shot"], "--", "zero-shot"),
                (rates[f"{res.k}-shot ICL"], ":", "ICL (k shots)"))  # fmt: skip
        for est, style, lab in refs:
            ax.axhline(est.value, color="k", linestyle=style, lw=1.2, label=lab)
            ax.axhspan(est.low, est.high, color="k", alpha=0.07, lw=0)
        ax.axhline(1 / len(res.label_words), color="0.6", lw=1, label="chance (1/#classes)")
        ax.set_xscale("log")
        ax.set_xlabel("context strength λ")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{TASK_TITLES.get(res.task, res.task)} (k = {res.k}, test n = {n})")
    axes[0, 0].set_ylabel("test accuracy (label tokens)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    formula = r"$W_U(h_{\rm zero} + \lambda\,\bar c^{(\ell)})$"
    fig = finish(fig, title=f"Additive score {formula} ({results[0].model})")
    rows = 2 if len(results) >= 3 else 1  # new_figure wraps 3+ panels onto two rows
    fig.subplots_adjust(bottom=0.16 if rows == 2 else 0.32, hspace=0.5)
    return fig


def plot_accuracies(results: Sequence[TaskResult]) -> Any:
    """Test accuracy per method with 95 % intervals, one panel per task, per-set ICL beside.

    Parameters
    ----------
    results : sequence of TaskResult

    Returns
    -------
    matplotlib.figure.Figure
        Markers with interval bars, one per method of :meth:`TaskResult.rates` (Wilson for the
        methods without demonstrations, the bootstrap over demonstration sets for the others);
        small grey dots beside the ICL marker: the ICL accuracy of each demonstration set.
    """
    fig, axes = new_figure(1, len(results), sharey=True)
    axes = np.asarray(axes, dtype=object).reshape(-1)
    for ax, res in zip(axes, results, strict=True):
        rates = res.rates()
        names = list(rates)
        for i, name in enumerate(names):
            r = rates[name]
            err = np.array([[r.value - r.low], [r.high - r.value]])
            sim_points(ax, [i], [r.value], err, label=name, color=color(i), markersize=6,
                       capsize=3)  # fmt: skip
        if res.sets is not None:
            i_icl = names.index(f"{res.k}-shot ICL")
            per = [e.value for e in res.per_set()]
            ax.plot(np.full(len(per), i_icl + 0.3), per, ls="none", marker=".", color="0.45",
                    ms=5, label="ICL per demonstration set")  # fmt: skip
        ax.axhline(1 / len(res.label_words), color="0.6", lw=1)
        ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=9)
        ax.set_title(f"{TASK_TITLES.get(res.task, res.task)} (n = {res.n_test})")
        ax.set_ylim(-0.04, 1.02)  # a rate of 0 stays visible
    axes[0].set_ylabel("test accuracy (95 % interval)")
    title = f"Test accuracies ({results[0].model}); grey line: chance, dots: per set"
    return finish(fig, title=title)


def plot_probe(results: Sequence[TaskResult]) -> Any:
    """Linear-probe accuracy (top) and label alignment (bottom) per layer (App. D.4, Fig. 7).

    Parameters
    ----------
    results : sequence of TaskResult
        With ``probe`` set.

    Returns
    -------
    matplotlib.figure.Figure
        Bands: 95 % Wilson intervals (probe) and 95 % Student-t intervals (alignment).
    """
    fig, axes = new_figure(2, len(results), sharex=True)
    axes = np.asarray(axes, dtype=object).reshape(2, len(results))
    for j, res in enumerate(results):
        pr = res.probe
        if pr is None:
            raise ValueError(f"{res.task}: no probe result (run_classification(probe=True))")
        layers = np.arange(pr.correct.shape[0])
        acc = pr.accuracy
        val = np.array([r.value for r in acc])
        _band(axes[0, j], layers, np.array([r.low for r in acc]), np.array([r.high for r in acc]),
              color(0))  # fmt: skip
        axes[0, j].plot(layers, val, color=color(0), marker="o", ms=3, label="linear probe")
        axes[0, j].axhline(1 / len(res.label_words), color="0.6", lw=1, label="chance")
        m, h = pr.alignment_mean_ci
        _band(axes[1, j], layers, m - h, m + h, color(1))
        axes[1, j].plot(layers, m, color=color(1), marker="o", ms=3, label="alignment")
        axes[1, j].axhline(0, color="0.6", lw=1)
        axes[0, j].set_title(f"{TASK_TITLES.get(res.task, res.task)} (n = {pr.correct.shape[1]})")
        axes[0, j].set_ylim(0, 1.02)
        axes[1, j].set_xlabel("layer ℓ")
    axes[0, 0].set_ylabel("held-out probe accuracy")
    axes[1, 0].set_ylabel("cosine margin to label row")
    axes[0, 0].legend(fontsize=9, loc="lower right")
    k = results[0].probe.k if results[0].probe else 0
    return finish(fig, title=f"Separability vs alignment, {k}-shot states ({results[0].model})")


def plot_lama(result: LamaResult) -> Any:
    """LAMA target energy and whole-word probability vs context layer (paper §4, Fig. 6).

    Left: target energy -r_target; right: target probability (bands: one standard error over
    queries); supportive (solid, circles) vs adversarial (dashed, crosses), one colour per lambda;
    the horizontal line is zero-shot (lambda = 0).

    Parameters
    ----------
    result : LamaResult

    Returns
    -------
    matplotlib.figure.Figure
    """
    eff = result.effect
    fig, (ax_e, ax_p) = new_figure(1, 2)
    layers = eff.layers
    for i, lam in enumerate(eff.lambdas):
        for s, (name, style) in enumerate((("supportive", "-"), ("adversarial", "--"))):
            kw: dict[str, Any] = {"color": color(i), "linestyle": style, "markersize": 3,
                                  "marker": "o" if s == 0 else "x"}  # fmt: skip
            lab = f"{name}, λ = {lam:g}"
            sim_points(ax_e, layers, eff.energy[s, :, i], label=lab, **kw)
            sim_points(ax_p, layers, eff.prob[s, :, i], eff.prob_se[s, :, i], label=lab, **kw)
    ax_e.axhline(eff.energy0, color="k", lw=1, label="zero-shot (λ = 0)")
    ax_p.axhline(eff.prob0, color="k", lw=1, label="zero-shot (λ = 0)")
    ax_e.set_ylabel(r"target energy $-r_{\rm target}$ (logit units)")
    ax_p.set_ylabel(r"whole-word target probability")
    for ax in (ax_e, ax_p):
        ax.set_xlabel("context layer ℓ")
    legend_below(fig, ax_p, ncol=3)  # under the panels, off the curves
    return finish(fig, title=f"LAMA P36, n = {result.n} queries ({result.model})")


def results_table(results: Sequence[TaskResult], k: int | None = None) -> str:
    """Fixed-width table: test accuracies with 95 % intervals, the choice, the per-set ICL.

    Every line is under 80 columns (the page's code and output width).

    Parameters
    ----------
    results : sequence of TaskResult
    k : int, optional
        Demonstrations behind the additive score's choice shown (default: the largest).

    Returns
    -------
    str
    """
    rows = []
    for r in results:
        kk = r.k if k is None else k
        data = "examples" if r.source.startswith("examples") else "real"
        sp = r.split
        rows.append(f"{TASK_TITLES.get(r.task, r.task)} ({data} data, model {r.model})")
        rows.append(f"  n_ctx = {len(sp.ctx)}, n_sel = {len(sp.sel)}, n_test = {len(sp.test)}, "
                    f"{r.n_prefixes} demonstration sets of k = {r.k}")  # fmt: skip
        for name, est in r.rates().items():
            rows.append(f"  {name:24s} {render(est)}")
        ell, lam = r.chosen[kk]
        rows.append(f"  {'':24s} additive at l = {ell}, lambda = {lam:.3g} (chosen on sel)")
        if r.sets is not None:
            per = ", ".join(f"{e.value:.2f}" for e in r.per_set())
            rows.append(f"  ICL per set: {per}")
    return "\n".join(rows)


def claim_lines(task: str, rows: Sequence[ClaimRow]) -> list[str]:
    """Lay out claim rows as the verdict table's lines: task, claim, estimate, verdict.

    Parameters
    ----------
    task : str
        Written on the first line only.
    rows : sequence of ClaimRow
        From :meth:`.claims.ClassificationClaims.rows` or :meth:`.claims.LamaClaims.rows`.

    Returns
    -------
    list of str
        One line per row, at most 80 columns: the estimate through
        :func:`assocmem.estimate.render` (``-`` where none is shown, nothing on a row that
        continues the one above), then the row's words.
    """
    lines = []
    for row in rows:
        text = render(row.estimate, row.spec) if row.estimate else "-" if row.label else ""
        lines.append(f"  {task:8s} {row.label:22s} {text:26s} {row.words}".rstrip())
        task = ""
    return lines


def verdict_table(run: Chapter6Run) -> str:
    """Tabulate the paper's claims per model and task: estimate, 95 % interval, verdict.

    Every verdict is :func:`assocmem.estimate.verdict` of the row's interval against the reference
    it names (:meth:`.claims.ClassificationClaims.rows`); the share of ICL's gain takes its two
    verdicts from the rows additive - zero-shot and additive - ICL, so no two rows disagree.

    Parameters
    ----------
    run : Chapter6Run
        Its task results (with the controls run, :meth:`TaskResult.claims`), keyed by the model
        that ran, and its LAMA results, which add two rows per model: whole-word top-1 after
        correct minus after wrong demonstrations, and the target probability under the
        supportive minus the adversarial context vector (:meth:`LamaResult.paired`). The run's
        protocol gives ``late`` (the context-vector row) and ``collapse_mass``.

    Returns
    -------
    str
        One block per model, headed by the name of the model that ran (each result's
        ``model``); every line at most 80 columns. Intervals: bootstrap over demonstration sets
        (ICL claims), over queries (the context-vector row).
    """
    proto = run.protocol
    rows = []
    for model, res in run.tasks.items():
        ran = sorted({r.model for r in res}) or [model]
        rows.append(", ".join(ran))
        for r in res:
            task = TASK_TITLES.get(r.task, r.task)
            rows += claim_lines(task, r.claims(proto.collapse_mass).rows())
        if model in run.lama:
            rows += claim_lines("LAMA", run.lama[model].paired(proto.late).rows())
    return "\n".join(rows)


def findings_table(run: Chapter6Run, columns: dict[str, str], spec: str = "+.3f") -> Table:
    """Show :meth:`Chapter6Run.table` in the book's table style (:func:`assocmem.pages.table`)."""
    return table(run.table(columns, spec))
