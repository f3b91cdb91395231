"""Figures a reader who cannot see them, or cannot tell red from green, can still read (issue 50).

* :func:`assocmem.plotting.describe` writes a figure's alternative text from its title, panel
  titles, axis labels and legends (mathtext read out as text), or returns the text a page gave;
  :func:`~assocmem.plotting.figure_png` puts it in the PNG the kernel sends, beside the retina
  size; the book's Sphinx extension (``book/_ext/figure_alt.py``) copies it into the ``alt`` and
  warns where there is none.
* The palette is Okabe–Ito; simulated for the three kinds of dichromacy (Machado, Oliveira &
  Fernandes 2009, severity 1), every two colours stay apart by more than ``MIN_DELTA_E`` (CIE76
  in CIELAB), which matplotlib's default cycle fails; each colour has its own marker and style.
"""

from __future__ import annotations

import base64
import importlib.util
import io
import itertools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from _book_checks import ROOT
from assocmem import plotting
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from PIL import Image

# ---- alternative text ---------------------------------------------------------------------------


def test_describe_reads_titles_labels_and_legends():
    fig, axes = plotting.new_figure(1, 2)
    plotting.theory_line(axes[0], [0, 1], [0, 1], label=r"theory $\alpha_c(p)$")
    plotting.sim_points(axes[0], [0, 1], [0, 1], label="simulation, $d = 32$")
    axes[0].set(xlabel=r"load $\alpha = p\log p/d^2$", ylabel=r"$P(\mathrm{all})$", title="OP")
    axes[0].legend()
    image = axes[1].imshow([[0, 1], [1, 0]])
    axes[1].set(xlabel=r"output $\nu$", ylabel=r"input $\mu$")
    fig.colorbar(image, ax=axes[1], label=r"score $s_{\mu\nu}$")
    plotting.finish(fig, title="Recall against load")
    assert plotting.describe(fig) == (
        "Recall against load. 2 panels. "
        "Panel 1: OP, P(all) against load α = p log p/d²; legend: theory α_c(p), simulation, "
        "d = 32. Panel 2: map of input μ against output ν. Colour scale: score s_μν."
    )
    plt.close(fig)


def test_math_is_read_out_and_symbols_keep_their_case():
    fig, axes = plotting.new_figure(1, 2)
    axes[0].set(title=r"$p = 100$", xlabel="$q$", ylabel=r"$m_4=\overline{s^4}/(\overline{s^2})^2$")
    axes[1].set(ylabel=r"$\log p/\mathbb{E}[C_p]$, $\ldots$", xlabel=r"load $\alpha$")
    assert plotting.describe(fig) == (
        "2 panels. Panel 1: p = 100, m_4=s⁴/(s²)² against q. "
        "Panel 2: log p/E[C_p], … against load α."
    )
    plt.close(fig)


def test_a_figure_legend_below_is_described_once():
    fig, axes = plotting.new_figure(1, 2)
    for ax in axes:
        plotting.theory_line(ax, [0, 1], [0, 1], label="theory")
        ax.set(xlabel="x (s)")
    plotting.legend_below(fig)
    plotting.finish(fig)
    assert plotting.describe(fig) == "2 panels. Panel 1: x (s). Panel 2: x (s). Legend: theory."
    plt.close(fig)


def test_an_explicit_alt_wins_and_a_bare_figure_has_none():
    fig, ax = plotting.new_figure()
    ax.plot([0, 1])
    assert plotting.describe(fig) is None  # nothing to say: the build will refuse it
    plotting.finish(fig, alt=r"The cone of weights that store all three facts, $d = 2$")
    assert plotting.describe(fig) == "The cone of weights that store all three facts, d = 2"
    with pytest.raises(ValueError, match="say what the figure shows"):
        plotting.set_alt(fig, "  ")
    with pytest.raises(TypeError, match="alt must be a string"):
        plotting.finish(fig, alt=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Figure"):
        plotting.describe("fig")  # type: ignore[arg-type]
    plt.close(fig)


def test_many_legend_entries_are_counted_not_listed():
    fig, ax = plotting.new_figure()
    for i in range(14):
        ax.plot([0, 1], [i, i], label=f"d = {i}")
    ax.legend()
    text = plotting.describe(fig)
    assert text.endswith("d = 9 and 4 more.") and "d = 10" not in text
    plt.close(fig)


def test_the_png_carries_its_description_and_its_display_size():
    fig, ax = plotting.new_figure(width=3.4, height=2.0)
    ax.set(xlabel=r"$\kappa = m/d$", ylabel=r"$\alpha_c(\kappa)$")
    data, meta = plotting.figure_png(fig)
    assert plotting.png_description(data) == "α_c(κ) against κ = m/d."
    with Image.open(io.BytesIO(data)) as im:
        # retina: 2x the shown size (halved and rounded down, as IPython's retina PNG)
        assert (im.size[0] // 2, im.size[1] // 2) == (meta["width"], meta["height"])
        assert abs(meta["width"] - 340) < 20  # about the figure's own 3.4 in at 100 dpi
    text, meta_k = plotting._png_for_kernel(fig)  # what the inline backend sends
    assert base64.b64decode(text) == data and meta_k == meta
    plt.close(fig)
    assert plotting.figure_png(plt.figure()) is None  # nothing drawn: no image, as IPython does
    plt.close("all")


def test_the_kernel_sends_the_described_png(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    monkeypatch.setattr(plotting, "get_ipython", lambda: shell)
    monkeypatch.setattr(plotting.mpl, "get_backend", lambda: "module://matplotlib_inline.inline")
    fig, ax = plotting.new_figure(width=3.4, height=2.0)  # use_book_style registers the formatter
    ax.set(xlabel="x", ylabel="y")
    data, meta = shell.display_formatter.format(fig)
    png = base64.b64decode(data["image/png"])
    assert plotting.png_description(png) == "y against x."  # a symbol keeps its case
    assert meta["image/png"]["width"] == Image.open(io.BytesIO(png)).size[0] // 2
    plt.close("all")


# ---- the build's side: alt from the file -------------------------------------------------------


def _figure_alt():
    path = ROOT / "book" / "_ext" / "figure_alt.py"
    spec = importlib.util.spec_from_file_location("figure_alt", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Env:
    def __init__(self, folder):
        self.docname = "book/page"
        self.folder = folder

    def relfn2path(self, uri, docname):  # as Sphinx: "/x" from the source folder, else the page's
        if uri.startswith("/"):
            return uri[1:], str(self.folder / uri[1:])
        return uri, str(self.folder / Path(docname).parent / uri)


class _App:
    def __init__(self, folder):
        self.env = _Env(folder)
        self.srcdir = folder


def test_the_extension_sets_alt_from_the_png_and_warns_without_one(tmp_path, caplog):
    ext = _figure_alt()
    fig, ax = plotting.new_figure(width=3.4, height=2.0)
    ax.set(xlabel="load", ylabel="recall")
    (tmp_path / "described.png").write_bytes(plotting.figure_png(fig)[0])
    fig.savefig(tmp_path / "bare.png")
    plt.close(fig)
    doc = new_document("page", get_default_settings(Parser))
    collected = nodes.image(uri="out/described.png")  # after Sphinx's image collector, in a
    collected["candidates"] = {"*": "out/described.png"}  # page of a sub-folder (book/page)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "described.png").write_bytes((tmp_path / "described.png").read_bytes())
    images = [
        nodes.image(uri="/described.png"),
        nodes.image(uri="/bare.png"),
        nodes.image(uri="/bare.png", alt="A drawing of the cone of weights"),
        nodes.image(uri="/described.png", alt="_images/3f2b.png"),
        collected,
    ]
    for node in images:
        doc += node
    warnings = []
    ext.logger.warning = lambda msg, **kw: warnings.append(msg)
    ext.describe_images(_App(tmp_path), doc)
    assert [n.get("alt") for n in images] == [
        "Recall against load.",
        None,
        "A drawing of the cone of weights",  # a page's own alt is kept
        "Recall against load.",  # a path-like alt is replaced
        "Recall against load.",  # the collector's path, relative to the source folder
    ]
    assert len(warnings) == 1 and "bare.png has no alt text" in warnings[0]
    assert ext.PATH_LIKE.search("../_images/3f2b.png") and not ext.PATH_LIKE.search("Recall.")


# ---- colours ----------------------------------------------------------------------------------

#: Smallest CIE76 distance between two palette colours under any simulated dichromacy.
MIN_DELTA_E = 12.0
OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"}
# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
_DICHROMACY = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}  # fmt: skip


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear_rgb  # fmt: skip
    t = xyz / np.array([0.9505, 1.0, 1.089])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def closest_pair_under_dichromacy(palette) -> tuple[float, str]:
    """The smallest CIE76 distance between two colours of ``palette``, and under which vision."""
    rgb = [np.array([int(h[i : i + 2], 16) for i in (1, 3, 5)]) / 255 for h in palette]
    linear = [np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) for c in rgb]
    worst = (float("inf"), "")
    for name, m in _DICHROMACY.items():
        labs = [_lab(np.clip(np.asarray(m) @ c, 0, 1)) for c in linear]
        for a, b in itertools.combinations(labs, 2):
            worst = min(worst, (float(np.linalg.norm(a - b)), name))
    return worst


def test_the_palette_is_okabe_ito_and_stays_apart_for_colour_blind_readers():
    assert set(plotting.PALETTE) == OKABE_ITO
    distance, vision = closest_pair_under_dichromacy(plotting.PALETTE)
    assert distance > MIN_DELTA_E, f"two colours {distance:.1f} apart under {vision}"
    # the check can fail: matplotlib's default cycle puts orange and green together for protans
    tab10 = ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2"]
    assert closest_pair_under_dichromacy(tab10)[0] < MIN_DELTA_E


def test_each_colour_has_its_own_marker_and_line_style():
    n = len(plotting.PALETTE)
    assert len(set(plotting.MARKERS)) == len(plotting.MARKERS) == n
    assert len({str(s) for s in plotting.LINESTYLES}) == len(plotting.LINESTYLES) == n
    assert [plotting.marker(i) for i in range(n + 1)] == [*plotting.MARKERS, plotting.MARKERS[0]]
    assert plotting.linestyle(n + 2) == plotting.LINESTYLES[2]
    with pytest.raises(TypeError, match="marker index must be an integer"):
        plotting.marker(0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="line style index must be >= 0"):
        plotting.linestyle(-1)


def test_simulation_markers_follow_their_colour():
    fig, ax = plotting.new_figure()
    a = plotting.sim_points(ax, [0, 1], [0, 1], label="a", color=plotting.color(3))
    b = plotting.sim_points(ax, [0, 1], [0, 1], label="b", color=plotting.color(3), marker="o")
    c = plotting.sim_points(ax, [0, 1], [0, 1], label="c")  # the cycle's next colour
    d = plotting.sim_points(ax, [0, 1], [0, 1], label="d", color="k")
    assert a.lines[0].get_marker() == plotting.marker(3)
    assert b.lines[0].get_marker() == "o"  # a figure's own marker is kept
    index = [h.lower() for h in plotting.PALETTE].index(c.lines[0].get_color().lower())
    assert c.lines[0].get_marker() == plotting.marker(index)
    assert d.lines[0].get_marker() == "o"
    plt.close(fig)
