"""The paths readers take, executed: chapter 6 on a machine with no data directory and no hub.

A reader's fresh checkout has no ``../shared/data`` and, offline, no Hugging Face hub: chapter 6
then runs on the built-in example sets. This test executes the chapter exactly as README's build
command would there: the page's own parameters (no overrides), ``ASSOCMEM_DATA_DIR`` removed,
the hub switched off, a fresh state cache, in the current environment's ``python3`` kernel, and
fails on any error. It also checks that the page says where its data came from and the sizes it
used, and that every interval it glues is a real one (low < high). (The book build in CI runs
the same chapter with the real data; the Colab emulation runs it with small sizes in both data
modes.) Marked slow: a few minutes on 2 cores.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jupytext
import pytest
from _book_checks import INTERVAL_EXCEPTIONS, ROOT, interval_problems, notebook_glue

CHAPTER = ROOT / "book" / "06_transformers.md"


def _outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            elif "text/plain" in out.get("data", {}):
                parts.append(out["data"]["text/plain"])
    return "\n".join(parts)


@pytest.mark.slow
def test_chapter_6_builds_with_no_data_directory_and_no_hub(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.delenv("ASSOCMEM_DATA_DIR", raising=False)
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("ASSOCMEM_CACHE_DIR", str(tmp_path / "states"))  # cold: no stale states
    nb = jupytext.read(CHAPTER)
    where = {"metadata": {"path": str(CHAPTER.parent)}}  # myst-nb runs a chapter in book/
    client = NotebookClient(nb, timeout=900, kernel_name="python3", resources=where)
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        out
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, json.dumps(errors)[:2000]
    text = _outputs_text(nb)
    assert "examples, not the benchmark" in text  # the page labels its data
    for name in ("sst2", "ag_news", "trec"):
        assert f"{name}: n_ctx = " in text, f"the page does not print the sizes used for {name}"
    # every interval the page glues on the example sets is a real interval (the strict build's
    # tests/book/test_glued_intervals.py checks the real-data page)
    allowed = {key for stem, key in INTERVAL_EXCEPTIONS if stem == CHAPTER.stem}
    glue = notebook_glue(nb)
    assert "llm_smol_sst2_gain_zero_lo" in glue, "no glue data found in the executed chapter"
    problems = interval_problems(glue, allowed)
    assert not problems, "; ".join(problems)
    assert not os.environ.get("ASSOCMEM_DATA_DIR")
    assert Path(tmp_path / "states").is_dir()  # the states were computed here, not reused
