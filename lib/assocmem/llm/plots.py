"""Figures and the results table of chapter 6 (built on :mod:`assocmem.plotting`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..plotting import color, finish, new_figure, sim_points
from .experiments import LamaResult, TaskResult

__all__ = [
    "plot_neff",
    "plot_neff_task",
    "plot_additive",
    "plot_lama",
    "results_table",
    "TASK_TITLES",
]

TASK_TITLES = {"sst2": "SST-2", "ag_news": "AG-News", "trec": "TREC", "lama_p36": "LAMA P36"}


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
            ((res.profile_zero, "zero-shot"), (res.profile_icl, f"{res.k}-shot ICL"))
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
        top.set_title(TASK_TITLES.get(res.task, res.task))
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


def plot_additive(results: Sequence[TaskResult]) -> Any:
    """Accuracy of the additive score vs lambda, one curve per context layer, with references.

    Error bars are binomial standard errors sqrt(a(1-a)/n_eval). Dashed: zero-shot accuracy;
    dotted: full k-shot ICL; grey: chance, 1 / number of classes. Paper §4, Eq. (7), Fig. 5.

    Parameters
    ----------
    results : sequence of TaskResult
        One panel per task.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per result, x-axis "context strength λ" (log scale), one curve per context layer
        and three horizontal reference lines.
    """
    fig, axes = new_figure(1, len(results))
    axes = np.asarray(axes, dtype=object).reshape(1, len(results))
    for j, res in enumerate(results):
        ax = axes[0, j]
        for i, ell in enumerate(res.layers):
            a = res.acc_additive[i]
            se = np.sqrt(a * (1 - a) / res.n_eval)
            sim_points(
                ax,
                res.lambdas,
                a,
                se,
                label=f"additive, ℓ = {ell}",
                color=color(i),
                linestyle="-",
                markersize=3,
            )
        ax.axhline(res.acc_zero, color="k", linestyle="--", lw=1.2, label="zero-shot")
        ax.axhline(res.acc_icl, color="k", linestyle=":", lw=1.6, label=f"{res.k}-shot ICL")
        ax.axhline(1 / len(res.label_words), color="0.6", lw=1, label="chance (1/#classes)")
        ax.set_xscale("log")
        ax.set_xlabel("context strength λ")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{TASK_TITLES.get(res.task, res.task)} (n = {res.n_eval})")
    axes[0, 0].set_ylabel("accuracy (argmax over label tokens)")
    axes[0, 0].legend(fontsize="x-small", loc="lower left", ncol=2)
    formula = r"$W_U(h_{\rm zero} + \lambda\,\bar c^{(\ell)})$"
    return finish(fig, title=f"Additive score {formula} ({results[0].model})")


def plot_lama(result: LamaResult) -> Any:
    """Plot the LAMA target energy and probability vs context layer (paper §4, Fig. 6).

    Left: target energy -r_target; right: target probability; supportive (solid, circles) vs
    adversarial (dashed, crosses) context, one colour per lambda; the horizontal line is the
    zero-shot value (lambda = 0).

    Parameters
    ----------
    result : LamaResult
        From :func:`assocmem.llm.experiments.run_lama`.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels, x-axis "context layer ℓ", 2 · len(lambdas) curves each.
    """
    eff = result.effect
    fig, (ax_e, ax_p) = new_figure(1, 2)
    layers = np.arange(eff.energy.shape[1])
    for i, lam in enumerate(eff.lambdas):
        for s, (name, style) in enumerate((("supportive", "-"), ("adversarial", "--"))):
            kw: dict[str, Any] = {
                "color": color(i),
                "linestyle": style,
                "markersize": 3,
                "marker": "o" if s == 0 else "x",
            }
            sim_points(ax_e, layers, eff.energy[s, :, i], label=f"{name}, λ = {lam:g}", **kw)
            sim_points(ax_p, layers, eff.prob[s, :, i], label=f"{name}, λ = {lam:g}", **kw)
    ax_e.axhline(eff.energy0, color="k", lw=1, label="zero-shot (λ = 0)")
    ax_p.axhline(eff.prob0, color="k", lw=1, label="zero-shot (λ = 0)")
    ax_e.set_ylabel(r"target energy $-r_{\rm target}$ (logit units)")
    ax_p.set_ylabel(r"target probability $\hat r_{\rm target}$")
    for ax in (ax_e, ax_p):
        ax.set_xlabel("context layer ℓ")
    ax_p.legend(fontsize="x-small")
    return finish(fig, title=f"LAMA P36, n = {result.n_eval} queries ({result.model})")


def results_table(results: Sequence[TaskResult]) -> str:
    """Fixed-width text table: zero-shot, full ICL and best additive accuracy per task.

    Parameters
    ----------
    results : sequence of TaskResult
        One row per task.

    Returns
    -------
    str
        A header, a rule and one line per task (data kind, model, k, n_ctx, n_eval, accuracies
        and the (layer, λ) of the best additive score).
    """
    head = (
        f"{'task':8s} {'data':8s} {'model':13s} {'k':>2s} {'n_ctx':>5s} {'n_eval':>6s} "
        f"{'zero-shot':>9s} {'ICL':>6s} {'additive':>8s} {'at (l, lambda)':>15s}"
    )
    rows = [head, "-" * len(head)]
    for r in results:
        acc, ell, lam = r.best
        data = "examples" if r.source.startswith("examples") else "real"
        rows.append(
            f"{TASK_TITLES.get(r.task, r.task):8s} {data:8s} {r.model:13s} {r.k:2d} {r.n_ctx:5d} "
            f"{r.n_eval:6d} {r.acc_zero:9.3f} {r.acc_icl:6.3f} {acc:8.3f} "
            f"{f'({ell}, {lam:.3g})':>15s}"
        )
    return "\n".join(rows)
