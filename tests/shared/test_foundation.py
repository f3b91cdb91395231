"""Plotting style, explorer widgets and device selection."""

from __future__ import annotations

import base64
import io
import json
import re

import matplotlib

matplotlib.use("Agg")

import ipywidgets as w
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from assocmem import device as dev
from assocmem import plotting, widgets
from assocmem.keys import PAGE_BUILD_ENV
from assocmem.streams import torch_generator, torch_seed
from matplotlib.figure import Figure

# --- plotting ---


def test_new_figure_applies_style_and_shapes():
    fig, ax = plotting.new_figure()
    assert isinstance(fig, Figure) and not isinstance(ax, np.ndarray)
    assert list(matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]) == list(plotting.PALETTE)
    assert matplotlib.rcParams["axes.spines.top"] is False
    fig2, axes = plotting.new_figure(2, 3)
    assert axes.shape == (2, 3)
    plt.close("all")


def test_new_figure_is_made_at_page_width_and_stacks_narrow_panels():
    """No figure is wider than the page; > 2 panels narrower than 3.3 in become rows of 2."""
    fig, axes = plotting.new_figure(1, 2, width=11.0)
    assert fig.get_size_inches()[0] == pytest.approx(plotting.PAGE_WIDTH)  # capped, not shrunk
    assert len(fig.axes) == 2 and axes.shape == (2,)
    fig, axes = plotting.new_figure(1, 3, height=3.0, sharex=True)
    assert axes.shape == (3,) and len(fig.axes) == 3  # the 4th slot of the 2 x 2 grid is removed
    assert fig.get_size_inches()[1] == pytest.approx(6.0)  # two rows of 3.0 in
    fig.canvas.draw()
    lefts = sorted({round(ax.get_position().x0, 3) for ax in axes})
    assert len(lefts) == 2  # two columns
    panel_in = axes[0].get_position().width * fig.get_size_inches()[0]
    assert panel_in > 2.2  # three panels in a row would get 1.6 in each (default margins)
    # order is kept: panel 0 and 1 on the first row, panel 2 below panel 0
    assert axes[0].get_position().y0 > axes[2].get_position().y0
    assert axes[0].get_position().x0 == pytest.approx(axes[2].get_position().x0)
    # the panel above the removed slot shows its x tick labels again (sharex had hidden them)
    assert any(tick.label1.get_visible() for tick in axes[1].xaxis.get_major_ticks())
    fig, axes = plotting.new_figure(2, 4)
    assert axes.shape == (2, 4) and len(fig.axes) == 8
    rows = sorted({round(ax.get_position().y0, 3) for ax in axes.ravel()})
    assert len(rows) == 4  # each requested row became two rows of two
    assert axes[0, 3].get_position().y0 > axes[1, 0].get_position().y0  # row order kept
    with pytest.raises(ValueError, match="squeeze"):
        plotting.new_figure(1, 2, squeeze=False)
    plt.close("all")


def test_figures_are_saved_on_an_opaque_white_ground():
    from PIL import Image

    fig, ax = plotting.new_figure(width=3.4, height=2.0)
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    im = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA"))
    assert im[..., 3].min() == 255  # no transparent pixel: dark mode shows no black-on-dark text
    assert tuple(im[2, 2, :3]) == (255, 255, 255)  # the ground is white
    plt.close(fig)


def test_theory_and_simulation_are_drawn_differently():
    fig, ax = plotting.new_figure()
    (line,) = plotting.theory_line(ax, [0, 1, 2], [0, 1, 4], label="theory")
    cont = plotting.sim_points(ax, [0, 1, 2], [0, 1.1, 3.9], [0.1, 0.1, 0.2], label="simulation")
    assert line.get_linestyle() == "-" and line.get_marker() in (None, "None", "")
    data_line = cont.lines[0]
    assert data_line.get_color() == plotting.color(1)  # the cycle's next colour, and its marker
    assert data_line.get_linestyle() == "None" and data_line.get_marker() == plotting.marker(1)
    labels = [t.get_text() for t in ax.legend().get_texts()]
    assert labels == ["theory", "simulation"]
    assert plotting.finish(fig, title="t") is fig
    assert fig._suptitle.get_text() == "t"
    plt.close(fig)


def test_plotting_bad_input():
    fig, ax = plotting.new_figure()
    with pytest.raises(ValueError, match="same shape"):
        plotting.theory_line(ax, [0, 1], [0, 1, 2], label="x")
    with pytest.raises(ValueError, match="same shape"):
        plotting.sim_points(ax, [0, 1], [0], label="x")
    with pytest.raises(ValueError, match="nrows"):
        plotting.new_figure(0, 1)
    with pytest.raises(ValueError, match=">= 0"):
        plotting.color(-1)
    with pytest.raises(TypeError, match=r"colour index must be an integer, got float"):
        plotting.color(1.5)  # type: ignore[arg-type]
    assert plotting.color(len(plotting.PALETTE)) == plotting.PALETTE[0]
    plt.close("all")


# --- widgets ---


def _draw(alpha: float = 0.5, d: int = 32, kind: str = "OP") -> Figure:
    fig, ax = plotting.new_figure()
    ax.plot([0, 1], [0, alpha * d])
    ax.set_title(kind)
    return fig


def test_make_control_kinds_and_defaults():
    s = widgets.make_control("alpha", (0.1, 2.0, 0.1))
    assert isinstance(s, w.FloatSlider) and s.min == 0.1 and s.max == 2.0
    assert s.continuous_update is False
    s = widgets.make_control("alpha", (0.1, 2.0, 0.1), default=0.5)
    assert s.value == pytest.approx(0.5)
    i = widgets.make_control("d", (16, 96, 16, 48))
    assert isinstance(i, w.IntSlider) and i.value == 48
    dd = widgets.make_control("kind", ["OP", "DP"], default="DP")
    assert isinstance(dd, w.Dropdown) and dd.value == "DP"
    assert isinstance(widgets.make_control("log", True), w.Checkbox)


def test_make_control_bad_input():
    with pytest.raises(ValueError, match="min < max"):
        widgets.make_control("a", (2.0, 1.0, 0.1))
    with pytest.raises(ValueError, match="step"):
        widgets.make_control("a", (0.0, 1.0, 0.0))
    with pytest.raises(ValueError, match="outside"):
        widgets.make_control("a", (0.0, 1.0, 0.1, 3.0))
    with pytest.raises(ValueError, match="empty"):
        widgets.make_control("a", [])
    with pytest.raises(TypeError, match=r"control 'a': expected a widget"):
        widgets.make_control("a", object())


def test_explorer_redraws_through_the_library_function():
    exp = widgets.build_explorer(_draw, fixed={"kind": "DP"}, alpha=(0.1, 2.0, 0.1), d=(16, 96, 16))
    assert exp.values == {"kind": "DP", "alpha": 0.5, "d": 32}  # draw's own defaults
    mid = widgets.build_explorer(lambda n=1000: _draw(), n=(16, 96, 16))
    assert mid.values == {"n": 48}  # default outside the range: mid-range
    fig = exp.figure()
    assert fig.axes[0].get_title() == "DP"
    plt.close(fig)
    calls = []
    exp.draw = lambda **kw: (calls.append(kw), _draw(**kw))[1]
    exp.controls["alpha"].value = 1.0  # the observer redraws through draw()
    assert calls == [{"kind": "DP", "alpha": 1.0, "d": 32}]
    plt.close("all")


def test_a_live_redraw_is_html_with_an_alt_beside_the_png(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append((obj, kw)))
    exp = widgets.build_explorer(_draw, alpha=(0.1, 2.0, 0.1), d=(16, 96, 16))
    exp.redraw()
    ((data, kw),) = shown
    assert kw["raw"] is True and set(data) == {"text/html", "image/png", "text/plain"}
    alt = re.search(r'\salt="([^"]*)"', data["text/html"]).group(1)
    assert alt == "OP. Shown at alpha = 0.5, d = 32." == data["text/plain"]
    png = base64.b64decode(data["image/png"])
    assert plotting.png_description(png) == "OP."  # the figure's own description
    assert kw["metadata"]["image/png"]["width"] < 720  # shown at 1x, the PNG holds 2x
    plt.close("all")


def test_explorer_rejects_unknown_parameters_and_non_figures():
    with pytest.raises(TypeError, match="not a parameter"):
        widgets.build_explorer(_draw, beta=(0.0, 1.0, 0.1))
    with pytest.raises(ValueError, match="at least one control"):
        widgets.build_explorer(_draw)
    exp = widgets.build_explorer(lambda a=1.0: None, a=(0.0, 2.0, 0.5))
    with pytest.raises(TypeError, match="Figure"):
        exp.figure()


def test_explorer_displays_static_png_then_controls(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    assert widgets.explorer(_draw, alpha=(0.1, 2.0, 0.1)) is None
    assert isinstance(shown[0], Figure)  # the static default figure first
    assert isinstance(shown[1], w.VBox)  # then the live controls and output area
    plt.close("all")


def _draw_level(level: float = 0.5, kind: str = "OP", shade: int = 0) -> Figure:
    """A figure whose background grey is set by level (read back from the frames)."""
    fig, ax = plotting.new_figure(width=3.4, height=2.0)
    ax.set_facecolor((level, level, level))
    ax.set_title(f"{kind} {shade}")
    return fig


def _frame_bytes(frame: w.HTML) -> bytes:
    """The image bytes of a static explorer's frame (an <img> in an HTML widget)."""
    m = re.search(r'<img src="data:image/\w+;base64,([^"]+)"', frame.value)
    assert isinstance(frame, w.HTML) and m, frame
    return base64.b64decode(m.group(1))


def _frame_alt(frame: w.HTML) -> str:
    import html

    m = re.search(r'\salt="([^"]*)"', frame.value)
    assert m, frame.value[:80]
    return html.unescape(m.group(1))


def _grey_at_centre(frame: bytes) -> int:
    from PIL import Image

    im = Image.open(io.BytesIO(frame))
    assert im.mode == "RGB"  # opaque: no alpha channel
    return im.getpixel((im.size[0] // 2, im.size[1] // 2))[0]


def test_static_page_follows_the_page_build_switch(monkeypatch):
    monkeypatch.delenv(PAGE_BUILD_ENV, raising=False)
    assert widgets.static_page() is False
    monkeypatch.setenv(PAGE_BUILD_ENV, "1")
    assert widgets.static_page() is True


def test_static_explorer_saves_one_frame_per_state_linked_to_its_slider():
    calls = []

    def draw(level=0.5, kind="OP", shade=0):
        calls.append((level, kind, shade))
        return _draw_level(level, kind, shade)

    ex = widgets.static_explorer(
        draw, {"level": [0.2, 0.5, 0.9]}, level=(0.0, 1.0, 0.1), kind=["OP", "DP"], shade=(0, 3, 1)
    )
    assert calls == [(0.2, "OP", 0), (0.5, "OP", 0), (0.9, "OP", 0)]  # held at their defaults
    assert ex.default == (1,) and ex.held == {"kind": "OP", "shade": 0}
    assert sorted(ex.frames) == [(0,), (1,), (2,)]
    greys = [_grey_at_centre(ex.frames[(i,)]) for i in range(3)]
    assert greys == pytest.approx([0.2 * 255, 0.5 * 255, 0.9 * 255], abs=2)
    from PIL import Image

    sizes = {Image.open(io.BytesIO(f)).size for f in ex.frames.values()}
    assert sizes == {ex.size}  # every frame the same size: the figure does not jump
    assert ex.size[0] == pytest.approx(340, abs=40)  # 1x: the figure's own 100 dpi
    pdf = Image.open(io.BytesIO(ex.pdf_png))
    assert pdf.size[0] == pytest.approx(2 * ex.pdf_shown[0], abs=4)  # the PDF's 2x PNG
    (slider,) = ex.box.children[0].children
    stack = ex.box.children[2]
    assert isinstance(slider, w.SelectionSlider) and slider.index == 1
    assert slider._options_labels == ("0.2", "0.5", "0.9")
    assert isinstance(stack, w.Stack) and stack.selected_index == 1
    assert [_frame_bytes(c) for c in stack.children] == [ex.frames[(i,)] for i in range(3)]
    # each frame says what it shows and at which state (ipywidgets' Image has no alt)
    alts = [_frame_alt(c) for c in stack.children]
    assert alts == [
        f"OP 0. Shown at level = {v}, kind = OP, shade = 0." for v in ("0.2", "0.5", "0.9")
    ]
    assert ex.alts[(1,)] == alts[1]
    assert [(link.source, link.target) for link in ex.links] == [
        ((slider, "index"), (stack, "selected_index"))
    ]
    assert "kind = OP, shade = 0" in ex.box.children[1].value  # the held values are stated
    assert widgets.STATIC_CLASS in ex.box._dom_classes
    plt.close("all")


def test_static_explorer_nests_stacks_for_two_axes():
    ex = widgets.static_explorer(
        _draw_level, {"shade": [0, 2], "level": [0.1, 0.5, 0.8]},
        level=(0.0, 1.0, 0.1), shade=(0, 3, 1),
    )  # fmt: skip
    assert ex.default == (0, 1)
    s_shade, s_level = ex.box.children[0].children
    outer = ex.box.children[2]
    assert len(outer.children) == 2 and all(len(s.children) == 3 for s in outer.children)
    for i in range(2):
        for j in range(3):
            frame = outer.children[i].children[j]
            assert _frame_bytes(frame) == ex.frames[(i, j)]
            level = ("0.1", "0.5", "0.8")[j]
            assert _frame_alt(frame) == f"OP {2 * i}. Shown at shade = {2 * i}, level = {level}."
    links = [(link.source, link.target) for link in ex.links]
    assert links[0] == ((s_shade, "index"), (outer, "selected_index"))
    assert links[1:] == [((s_level, "index"), (s, "selected_index")) for s in outer.children]
    greys = [_grey_at_centre(ex.frames[(1, j)]) for j in range(3)]
    assert greys == pytest.approx([0.1 * 255, 0.5 * 255, 0.8 * 255], abs=2)
    plt.close("all")


def test_explorer_on_a_static_page_leaves_one_output(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append((obj, kw)))
    monkeypatch.setenv(PAGE_BUILD_ENV, "1")
    built = []
    real = widgets.static_explorer
    monkeypatch.setattr(
        widgets, "static_explorer", lambda *a, **k: built.append(real(*a, **k)) or built[-1]
    )
    widgets.explorer(_draw_level, level=(0.0, 1.0, 0.1), static={"level": [0.2, 0.5]})
    assert len(shown) == 1
    data, kw = shown[0]
    assert kw["raw"] is True and set(data) == {"text/html", "image/png", "text/plain"}
    html_text = data["text/html"]
    view = re.search(r'<script type="application/vnd.jupyter.widget-view\+json">(.*)</script>',
                     html_text)  # fmt: skip
    assert view, html_text[:200]
    assert json.loads(view.group(1))["model_id"] == built[0].box.model_id
    noscript = re.search(
        r'<noscript><img src="data:image/(\w+);base64,([^"]+)" width="\d+" alt="([^"]+)"',
        html_text,
    )
    assert noscript  # a reader without JavaScript sees the default frame, and what it shows
    assert _grey_at_centre(base64.b64decode(noscript.group(2))) == pytest.approx(127, abs=2)
    assert noscript.group(3) == "OP 0. Shown at level = 0.5."
    png = base64.b64decode(data["image/png"])  # the PDF's one figure: the default state
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert plotting.png_description(png) == noscript.group(3)
    assert kw["metadata"]["image/png"]["width"] < 400  # shown at 1x, the PNG holds 2x
    monkeypatch.delenv(PAGE_BUILD_ENV)
    shown.clear()
    widgets.explorer(_draw_level, level=(0.0, 1.0, 0.1), static={"level": [0.2, 0.5]})
    assert isinstance(shown[0][0], Figure) and isinstance(shown[1][0], w.VBox)  # live: as before
    plt.close("all")


def test_static_grid_bad_input():
    ctl = {"level": (0.0, 1.0, 0.1), "kind": ["OP", "DP"]}
    cases = [
        ({"depth": [1]}, r"'depth' is not a control"),
        ({"level": [0.5, 1.5]}, r"static\['level'\]: \[1.5\] not offered"),
        ({"level": [0.5, 0.55]}, r"static\['level'\]: \[0.55\] not offered"),  # between steps
        ({"kind": ["OP", "XP"]}, r"\['XP'\] not offered"),
        ({"level": [0.2, 0.4]}, r"must hold the control's default 0.5"),
        ({"level": []}, r"non-empty list"),
        ({"level": [0.5, 0.5]}, r"repeated values"),
        ({}, r"one or two control names"),
    ]
    for static, match in cases:
        with pytest.raises(ValueError, match=match):
            widgets.explorer(_draw_level, static=static, **ctl)
    with pytest.raises(ValueError, match=r"42 states \(21 x 2\); at most 40"):
        widgets.explorer(
            _draw_level, level=(0.0, 1.0, 0.05), kind=["OP", "DP"],
            static={"level": [k / 20 for k in range(21)], "kind": ["OP", "DP"]},
        )  # fmt: skip
    with pytest.raises(ValueError, match="one or two"):
        widgets.static_explorer(
            _draw_level, {"level": [0.5], "kind": ["OP"], "shade": [0]},
            level=(0.0, 1.0, 0.1), kind=["OP", "DP"], shade=(0, 3, 1),
        )  # fmt: skip


# --- device ---


def test_get_device_auto_and_explicit():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert dev.get_device().type == expected
    assert dev.get_device("auto").type == expected
    assert dev.get_device("cpu") == torch.device("cpu")
    assert dev.get_device(torch.device("cpu")) == torch.device("cpu")


def test_get_device_bad_input(monkeypatch):
    with pytest.raises(ValueError, match="not a torch device"):
        dev.get_device("gpu-please")
    with pytest.raises(TypeError, match=r"device must be None, a string or .*, got int"):
        dev.get_device(3)  # type: ignore[arg-type]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="no CUDA"):
        dev.get_device("cuda")
    assert dev.get_device(None).type == "cpu"


def test_configure_threads(monkeypatch):
    before = torch.get_num_threads()
    try:
        assert dev.configure_threads(1) == 1
        monkeypatch.setenv("ASSOCMEM_THREADS", "2")
        assert dev.configure_threads() == 2
        monkeypatch.setenv("ASSOCMEM_THREADS", "many")
        with pytest.raises(ValueError, match="ASSOCMEM_THREADS"):
            dev.configure_threads()
        with pytest.raises(ValueError, match=r"positive integer number of threads, got 0"):
            dev.configure_threads(0)
    finally:
        torch.set_num_threads(before)
    assert dev.describe_device("cpu").startswith("cpu (")


@pytest.fixture
def share_state(monkeypatch):
    """A fresh state for share_cores, a fake machine of 4 cores, and torch's count restored."""
    before = torch.get_num_threads()
    monkeypatch.delenv("ASSOCMEM_THREADS", raising=False)
    monkeypatch.setattr(dev, "_SHARE", dev._Share())
    monkeypatch.setattr(dev, "_cores", lambda: 4)
    clock = {"wall": 100.0, "busy": 1000.0, "own": 10.0}
    monkeypatch.setattr(dev, "_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(dev.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(dev.time, "process_time", lambda: clock["own"])
    torch.set_num_threads(4)
    yield clock
    torch.set_num_threads(before)


def _tick(clock, wall, own, others):
    clock["wall"] += wall
    clock["own"] += own
    clock["busy"] += own + others


def test_share_cores_leaves_the_cores_other_processes_use(share_state):
    clock = share_state
    assert dev.share_cores() == 4  # a first look decides nothing
    _tick(clock, 1.0, own=4.0, others=0.0)  # alone: keep every core
    assert dev.share_cores() == 4
    _tick(clock, 1.0, own=2.6, others=1.4)  # another process busy on 1.4 cores
    assert dev.share_cores() == 3 and torch.get_num_threads() == 3
    _tick(clock, 0.1, own=0.0, others=0.4)  # sooner than SHARE_INTERVAL: no new look
    assert dev.share_cores() == 3
    _tick(clock, 1.0, own=1.0, others=6.0)  # others want more than the machine: one thread
    assert dev.share_cores() == 1
    _tick(clock, 1.0, own=1.0, others=0.0)  # they are gone: every core again
    assert dev.share_cores() == 4
    dev.configure_threads(2)  # a count fixed by the caller is left alone
    _tick(clock, 1.0, own=0.5, others=3.5)
    assert dev.share_cores() == 2


def test_share_cores_is_off_when_threads_are_fixed_or_off_linux(share_state, monkeypatch):
    clock = share_state
    monkeypatch.setattr(dev, "_SHARE", dev._Share())
    monkeypatch.setattr(dev, "_busy_seconds", lambda: None)  # no /proc/stat
    dev.share_cores()
    _tick(clock, 1.0, own=0.0, others=4.0)
    assert dev.share_cores() == 4
    monkeypatch.setenv("ASSOCMEM_THREADS", "3")
    monkeypatch.setattr(dev, "_SHARE", dev._Share())  # the variable read at import
    assert dev._SHARE.fixed


def test_training_gives_the_same_bits_at_any_thread_count():
    """share_cores changes the thread count mid-run: the engine's numbers must not follow it."""
    from assocmem.linear.instances.sampling import sample_problems
    from assocmem.linear.storage.training import train_memory

    before = torch.get_num_threads()
    runs = []
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            batch = sample_problems(300, 32, seeds=range(4))
            run = train_memory(batch, steps=150, record_weights=False)
            runs.append((run.weights.clone(), run.history["loss"]))
    finally:
        torch.set_num_threads(before)
    assert torch.equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_bad_inputs_found_by_a_newcomer_are_refused():
    with pytest.raises(ValueError, match="finite"):
        widgets.make_control("a", (0.0, float("inf"), 1.0))
    with pytest.raises(ValueError, match="step"):
        widgets.make_control("a", (0, 1, 5))
    s = widgets.make_control("n", (np.int64(0), np.int64(10), np.int64(1)))
    assert isinstance(s, w.IntSlider) and s.max == 10
    for bad in ("xpu", "meta", "cpu:5"):
        with pytest.raises(ValueError, match="device"):
            dev.get_device(bad)


def test_make_generator_is_the_one_seed_to_generator_rule():
    a = torch.randn(5, generator=dev.make_generator(3))
    assert torch.equal(a, torch.randn(5, generator=torch_generator(3)))  # via the stream
    assert not torch.equal(a, torch.randn(5, generator=torch.Generator().manual_seed(3)))
    g = torch.Generator().manual_seed(1)
    assert dev.make_generator(g) is g  # a generator is passed through, keeping its stream
    assert dev.make_generator(np.int64(2)).initial_seed() == torch_seed(2)
    ss = np.random.SeedSequence(5, spawn_key=(1,))
    assert dev.make_generator(ss).initial_seed() == torch_seed(ss)
    with pytest.raises(TypeError, match="seed"):
        dev.make_generator(1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        dev.make_generator(True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        dev.make_generator(-1)


# --- pages ---


def test_glue_works_without_myst_nb(monkeypatch):
    """In Colab (no myst-nb) glue displays the value when asked and never fails."""
    from assocmem import pages

    shown = []
    monkeypatch.setattr(pages, "_myst_glue", None)
    monkeypatch.setattr(pages, "_display", shown.append)
    pages.glue("x", 1.5, display=False)
    assert shown == []
    pages.glue("x", 1.5)
    assert shown == [1.5]
    with pytest.raises(ValueError, match="name"):
        pages.glue("", 1.0)


def test_glue_calls_myst_nb_when_present(monkeypatch):
    from assocmem import pages

    calls = []
    monkeypatch.setattr(pages, "_myst_glue", lambda n, v, display: calls.append((n, v, display)))
    pages.glue("alpha_c", 0.5, display=False)
    assert calls == [("alpha_c", 0.5, False)]
