"""Figures of the small worked examples that open chapters 1 and 2.

* :func:`plot_storing_cone` — left, the output plane of a ``d = 2`` instance: the wedge of
  directions in which each target wins, and where two memories send each input; right, the cone
  of storing memories cut by the plane of those two memories (one line per constraint, the
  storing wedge shaded).
* :func:`plot_perceptron_fraction` — the fraction of random labellings a perceptron stores
  against ``P / N``: Cover's count at two sizes and Gardner's step at 2 (theory lines), the exact
  LP's fractions (markers with Wilson intervals).

Plot functions take computed results (:mod:`assocmem.linear.storage.cone`,
:mod:`assocmem.linear.storage.perceptron`) and draw them in the book's style
(:mod:`assocmem.plotting`); the only computations here are theory curves for the axes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Wedge
from numpy.typing import ArrayLike

from assocmem._validate import check_finite_array, check_int
from assocmem.estimate import Estimate
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.linear.storage.cone import PlaneSection
from assocmem.linear.theory.perceptron import cover_fraction
from assocmem.plotting import (
    color,
    finish,
    interval_yerr,
    legend_below,
    linestyle,
    marker,
    new_figure,
    sim_points,
    theory_line,
)

__all__ = ["plot_storing_cone", "plot_perceptron_fraction"]

_R = 1.6  # radius of the drawn wedges (data units)


def _sector(ax, wedge: tuple[float, float], radius: float, **kw) -> None:
    lo, hi = (math.degrees(t) for t in wedge)
    ax.add_patch(Wedge((0.0, 0.0), radius, lo, hi, **kw))


def plot_storing_cone(
    problem: MemoryProblem,
    wedges: Sequence[tuple[float, float] | None],
    memories: Mapping[str, ArrayLike],
    section: PlaneSection,
) -> Figure:
    """Draw a ``d = 2`` instance's recall geometry and the cone of its storing memories.

    Parameters
    ----------
    problem : MemoryProblem
        An unbatched instance with ``d = 2`` (its targets are drawn).
    wedges : sequence of (low, high) or None
        One per association, from :func:`assocmem.linear.storage.cone.target_wedges`.
    memories : mapping of str to array_like, shape (2, 2)
        Exactly two named memories, the two that span ``section`` in that order (e.g. the
        Hebbian memory and the max-margin one); their outputs ``W e_mu`` are drawn in the left
        panel (each memory scaled so its longest output has length 1.3: only directions
        matter), their directions in the right one.
    section : PlaneSection
        From :func:`assocmem.linear.storage.cone.plane_section` of the same two memories.

    Returns
    -------
    Figure
        Two panels with an explicit alternative text.

    Raises
    ------
    ValueError
        If ``d != 2``, the wedges do not match the associations, or there are not two memories.
    """
    if problem.d != 2 or problem.batched:
        raise ValueError(f"plot_storing_cone draws one instance with d = 2, got d = {problem.d}")
    p = problem.p
    if len(wedges) != p:
        raise ValueError(f"wedges must hold one entry per association ({p}), got {len(wedges)}")
    if len(memories) != 2:
        raise ValueError(f"memories must name exactly two memories, got {len(memories)}")
    e = problem.inputs.detach().double().cpu().numpy()
    u = problem.targets.detach().double().cpu().numpy()
    fig, (left, right) = new_figure(1, 2, height=3.6)
    for mu in range(p):
        wedge = wedges[mu]
        if wedge is not None:
            _sector(left, wedge, _R, color=color(mu), alpha=0.15, lw=0,
                    label=f"target {mu + 1} wins here")  # fmt: skip
        left.annotate("", xy=tuple(u[mu]), xytext=(0, 0),
                      arrowprops={"arrowstyle": "-|>", "color": color(mu), "lw": 1.8})  # fmt: skip
        side = 0.16 * np.array([-u[mu, 1], u[mu, 0]]) / max(float(np.linalg.norm(u[mu])), 1e-300)
        left.text(*(0.55 * u[mu] + side), rf"$u_{mu + 1}$", color=color(mu), ha="center",
                  va="center")  # fmt: skip
    fills = ("none", None)
    for k, (name, w) in enumerate(memories.items()):
        W = check_finite_array(f"memories[{name!r}]", w, ndim=2)
        out = e @ W.T  # row mu: W e_mu
        out = 1.3 * out / np.linalg.norm(out, axis=1).max()
        for mu in range(p):
            face = color(mu) if fills[k] is None else fills[k]
            left.plot(*out[mu], linestyle="none", marker=marker(k), ms=9, mfc=face,
                      mec=color(mu), mew=1.8, zorder=4)  # fmt: skip
        left.plot([], [], linestyle="none", marker=marker(k), ms=9, mfc="0.5" if k else "none",
                  mec="0.3", label=rf"$W e_\mu$ of the {name} memory")  # fmt: skip
    left.set_xlim(-_R, _R)
    left.set_ylim(-_R, _R)
    left.set_aspect("equal")
    left.axhline(0, color="0.8", lw=0.5)
    left.axvline(0, color="0.8", lw=0.5)
    left.set_xlabel("output coordinate 1")
    left.set_ylabel("output coordinate 2")
    left.set_title("outputs $W e_\\mu$")

    # right: the plane of the two memories
    if section.wedge is not None:
        _sector(right, section.wedge, _R, color="0.6", alpha=0.35, lw=0,
                label="memories that store all three")  # fmt: skip
    normals = section.normals
    for mu in range(normals.shape[0]):
        for j in range(normals.shape[1]):
            n = normals[mu, j]
            edge = np.array([-n[1], n[0]]) / max(float(np.hypot(*n)), 1e-300)
            nu = j if j < mu else j + 1
            label = f"zero margin: input {mu + 1}, target {mu + 1} vs {nu + 1}"
            right.plot([-_R * edge[0], _R * edge[0]], [-_R * edge[1], _R * edge[1]],
                       color=color(mu), linestyle=linestyle(j), lw=1.2, label=label)  # fmt: skip
    for k, name in enumerate(memories):
        t = section.angles[k]
        right.plot(math.cos(t), math.sin(t), linestyle="none", marker=marker(k), ms=9,
                   mfc="none" if k == 0 else "0.3", mec="0.1", mew=1.8, zorder=4)  # fmt: skip
        right.annotate(name, (math.cos(t), math.sin(t)), xytext=(6, 6),
                       textcoords="offset points")  # fmt: skip
    right.set_xlim(-_R, _R)
    right.set_ylim(-_R, _R)
    right.set_aspect("equal")
    names = list(memories)
    right.set_xlabel(f"along the {names[0]} memory")
    right.set_ylabel(f"⊥ part of the {names[1]} memory")
    right.set_title("weights: one plane through them")
    legend_below(fig, ncol=2)
    alt = (
        f"Left: the plane of outputs, split into {p} coloured wedges, one per target, in which "
        "that target scores highest; arrows mark the targets and markers the outputs W e_mu of "
        f"the {names[0]} memory (open) and the {names[1]} memory (filled), each in its "
        "association's colour. Right: a plane through the four-dimensional space of weights, "
        f"spanned by the two memories; one line per constraint where its margin is zero, and "
        "the shaded wedge of memories that store every association."
    )
    return finish(fig, alt=alt)


def plot_perceptron_fraction(
    measured: Mapping[int, Estimate], N: int, *, larger: int | None = None
) -> Figure:
    """Draw the fraction of random labellings a perceptron stores against ``P / N``.

    Parameters
    ----------
    measured : mapping of int to Estimate
        ``P`` -> the stored fraction at ``N`` weights (e.g. from
        :func:`assocmem.linear.storage.perceptron.stored_fraction`), drawn as markers with their
        95 % intervals.
    N : int
        Weights of the measured perceptron, >= 1; Cover's count at this ``N`` is drawn as a line.
    larger : int, optional
        A second, larger ``N`` whose Cover count is drawn too (default ``10 N``), to show the
        approach to Gardner's step at ``alpha = 2``.

    Returns
    -------
    Figure

    Raises
    ------
    ValueError
        If ``measured`` is empty or a size is not an integer >= 1.
    """
    N = check_int("N", N, 1)
    big = check_int("larger", 10 * N if larger is None else larger, 1)
    if not measured:
        raise ValueError("measured must hold at least one (P, Estimate) pair")
    fig, ax = new_figure(height=3.6)
    top = max(4.0, 1.1 * max(measured) / N)
    for k, n_w in enumerate((N, big)):
        P = np.arange(1, int(top * n_w) + 1)
        frac = [cover_fraction(int(P_), n_w) for P_ in P]
        theory_line(ax, P / n_w, frac, color=color(k), linestyle=linestyle(k),
                    label=f"Cover's count, N = {n_w} (theory)")  # fmt: skip
    theory_line(ax, [0.0, 2.0, 2.0, top], [1.0, 1.0, 0.0, 0.0], color="k", lw=0.9,
                linestyle="--", label="Gardner: step at P/N = 2 (N → ∞)")  # fmt: skip
    Ps = sorted(measured)
    est = [measured[P] for P in Ps]
    y = np.array([e.value for e in est])
    yerr = interval_yerr(y, [e.low for e in est], [e.high for e in est])
    label = f"exact LP, N = {N}: {est[0].n} random labellings each, 95 % interval"
    sim_points(ax, np.array(Ps) / N, y, yerr, color=color(0), label=label)
    ax.set_xlim(0.0, top)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("patterns per weight P/N")
    ax.set_ylabel("fraction of labellings stored")
    legend_below(fig, ncol=2)
    return finish(fig)
