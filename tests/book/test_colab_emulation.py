"""Colab, emulated: chapters 1 and 6 run top to bottom from their own install cell.

What a Colab user gets, reproduced offline (package registries only):

1. the library is built as a wheel (``pip wheel``), standing in for the pinned git tag;
2. a fresh virtual environment gets Colab-like preinstalls (``COLAB_PREINSTALLED``: Colab's
   ipywidgets 7.7.x and transformers 4.x, no datasets, no gguf, no assocmem);
3. a fake ``google.colab`` package (with ``userdata.get`` raising ``SecretNotFoundError``, as on a
   runtime without an ``HF_TOKEN`` secret) is importable and imported at kernel start (an IPython
   startup file), so each chapter's guarded first cell runs;
4. only the install URL in that first cell is rewritten (``git+<repository.url>@v<version>`` ->
   the local wheel), and the chapter's sizes are lowered by a cell injected right after its
   ``parameters`` cell (papermill's convention; the names must exist in that cell);
5. nbclient executes the chapter in that environment and fails on any error.

After the run the test checks that the install cell left Colab's ipywidgets and transformers
majors in place (the library's ranges respect them). Marked slow (about 3-5 minutes, most of it
installing); CI runs it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jupytext
import nbformat
import pytest
from _book_checks import ROOT, library_version, repository_url

# What the emulated Colab image has before the chapter's first cell (Colab, November 2026:
# ipywidgets 7.7.1 imported at kernel start, transformers 4.57, no datasets/gguf/assocmem).
# torch is the CPU build the lock pins (Colab's own CUDA build plays its role).
COLAB_PREINSTALLED = [
    "torch==2.13.0",
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "tqdm",
    "psutil",
    "scikit-learn",
    "ipykernel",
    "ipython",
    "nbclient",
    "ipywidgets==7.7.1",
    "transformers==4.57.6",
    "accelerate",
    "sentencepiece",
]

# Small sizes injected after each chapter's parameters cell, so that the emulation tests the
# install and the code path, not the physics (the full book build does that).
OVERRIDES: dict[str, dict[str, str]] = {
    "01_linear_memory": {
        "d_op": "[16]",
        "d_dp": "[8]",
        "alphas": "[0.8, 1.2]",
        "seeds": "range(2)",
        "steps, patience": "300, 100",
        "d_lp": "[6]",
        "alphas_lp": "[0.8, 1.2]",
        "d_mech, alpha_mech": "16, 0.85",
        "seeds_mm": "range(100, 106)",
        "seeds_mm_lp": "range(100, 104)",
    },
    "06_transformers": {
        "PROTOCOL": "PROTOCOL.replace(sizes={m: {t: (16, 16, 24) for t in PROTOCOL.tasks} "
        "for m in PROTOCOL.sizes}, n_sets=2, lama_layer_step=15, lama_n=24)",
    },
}

FAKE_COLAB = '''
"""A stand-in for google.colab: importable, with the secrets API of a runtime without secrets."""
'''
FAKE_USERDATA = """
class SecretNotFoundError(Exception):
    pass


class NotebookAccessError(Exception):
    pass


def get(key):
    raise SecretNotFoundError(f"Secret {key} does not exist.")
"""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def colab_env(tmp_path_factory) -> dict[str, Path]:
    """A fresh venv with Colab-like preinstalls, the library's wheel and a fake google.colab."""
    tmp = tmp_path_factory.mktemp("colab")
    # Build from a copy of the sources, so that no build/ folder lands in the repository.
    src = tmp / "src"
    shutil.copytree(
        ROOT / "lib", src / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    wheels = tmp / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)])
    (wheel,) = wheels.glob("assocmem-*.whl")
    assert f"assocmem-{library_version()}-" in wheel.name
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", *COLAB_PREINSTALLED])
    fake = tmp / "fake_colab" / "google" / "colab"
    fake.mkdir(parents=True)  # `google` stays a namespace package (protobuf lives there too)
    (fake / "__init__.py").write_text(FAKE_COLAB + "from . import userdata  # noqa: F401\n")
    (fake / "userdata.py").write_text(FAKE_USERDATA)
    startup = tmp / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-colab.py").write_text("import google.colab  # noqa: F401\n")
    return {"python": python, "wheel": wheel, "fake": tmp / "fake_colab", "ipython": startup}


def _without_asserts(source: str) -> str:
    """The cell's source with its ``assert`` statements replaced by ``pass``.

    Hidden assertion cells check what the prose says of the page's own numbers (e.g. a p-value
    below a threshold); at the emulation's small sizes those need not hold, and the emulation
    tests the install and the code path. Lines starting with ``%``/``!`` stay as they are.
    """
    lines = source.splitlines()
    masked = "\n".join("#" + ln if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
    try:
        tree = ast.parse(masked)
    except SyntaxError:
        return source
    asserts = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Assert)), key=lambda n: n.lineno
    )
    for node in reversed(asserts):
        indent = lines[node.lineno - 1][: node.col_offset]
        lines[node.lineno - 1 : node.end_lineno] = [indent + "pass  # assert (page sizes only)"]
    return "\n".join(lines)


def _prepare(chapter: str, wheel: Path, out: Path) -> Path:
    nb = jupytext.read(ROOT / "book" / f"{chapter}.md")
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = code[0]
    url, version = repository_url(), library_version()
    pinned = f"git+{url}@v{version}"
    assert pinned in first.source, f"{chapter}: first cell does not install {pinned}"
    first.source = first.source.replace(pinned, wheel.resolve().as_uri())
    params = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    lines = []
    for names, value in OVERRIDES[chapter].items():
        assert re.search(rf"^{re.escape(names)}\s*=", nb.cells[params].source, re.M), (
            f"{chapter}: the override {names!r} is not assigned in the parameters cell"
        )
        lines.append(f"{names} = {value}")
    for cell in code:  # the page's assertions state its physics, not true at small sizes
        cell.source = _without_asserts(cell.source)
    injected = nbformat.v4.new_code_cell(
        "# Injected by tests/book/test_colab_emulation.py: small sizes\n" + "\n".join(lines)
    )
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(params + 1, injected)
    path = out / f"{chapter}.ipynb"
    nbformat.write(nb, path)
    return path


RUNNER = textwrap.dedent(
    """
    import sys, nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(sys.argv[1], as_version=4)
    resources = {"metadata": {"path": sys.argv[2]}}
    NotebookClient(nb, timeout=900, kernel_name="python3", resources=resources).execute()
    nbformat.write(nb, sys.argv[1])
    import importlib.metadata as md
    import json
    print(json.dumps({p: md.version(p) for p in ("ipywidgets", "transformers", "assocmem")}))
    """
)


DATA_DIR = Path(os.environ.get("ASSOCMEM_DATA_DIR") or ROOT.parent / "shared" / "data")

# Chapter 6 reads evaluation data: it runs in both data modes, with the data directory (CI's
# ../shared/data) and without it (a reader's Colab or fresh machine, here with the hub offline:
# the built-in example sets). Chapter 1 reads none.
CASES = [
    pytest.param("01_linear_memory", None, id="01_linear_memory"),
    pytest.param("06_transformers", "data", id="06_transformers-data"),
    pytest.param("06_transformers", "no-data", id="06_transformers-no-data"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("chapter", "data_mode"), CASES)
def test_chapter_runs_in_emulated_colab(colab_env, chapter, data_mode, tmp_path):
    assert sorted({c.values[0] for c in CASES}) == sorted(OVERRIDES)
    if data_mode == "data" and not (DATA_DIR / "sst2" / "dev.tsv").is_file():
        pytest.skip(f"no data directory at {DATA_DIR} (set ASSOCMEM_DATA_DIR)")
    notebook = _prepare(chapter, colab_env["wheel"], tmp_path)
    env = dict(os.environ)
    env.pop("ASSOCMEM_DATA_DIR", None)
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        env[var] = "1"  # no hub here: the no-data mode gets the example sets, as offline readers do
    if data_mode == "data":
        env["ASSOCMEM_DATA_DIR"] = str(DATA_DIR)
    env["PYTHONPATH"] = str(colab_env["fake"])
    env["IPYTHONDIR"] = str(colab_env["ipython"].parents[1])
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "VIRTUAL_ENV"):
        env.pop(var, None)
    result = subprocess.run(
        [str(colab_env["python"]), "-c", RUNNER, str(notebook), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    versions = json.loads(result.stdout.strip().splitlines()[-1])
    assert versions["ipywidgets"].startswith("7."), versions  # Colab's 7.x kept
    assert versions["transformers"].startswith("4."), versions  # not dragged to 5.x
    assert versions["assocmem"] == library_version()
    executed = nbformat.read(notebook, as_version=4)
    errors = [
        o
        for c in executed.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, json.dumps(errors)[:2000]
    if data_mode is not None:  # the page says which data it ran on
        shown = json.dumps([c.get("outputs", []) for c in executed.cells])
        assert ("examples, not the benchmark" in shown) == (data_mode == "no-data")
