"""Tests of assocmem.pages: glue_all (a summary in one call; an Estimate as four keys) and table
(the one table style: the same formatted values in the HTML and in the plain text of the PDF)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from assocmem import pages
from assocmem.estimate import Estimate, Verdict, verdict
from assocmem.stats import rate


def test_glue_all_expands_an_estimate_into_one_rendered_key_and_its_parts(monkeypatch) -> None:
    got: dict[str, object] = {}
    monkeypatch.setattr(pages, "glue", lambda k, v, display=True: got.__setitem__(k, v))
    pages.glue_all({"acc": rate(8, 10), "k": np.int64(8), "name": "OP"}, prefix="x_")
    lo, hi = rate(8, 10).low, rate(8, 10).high
    assert got == {"x_acc_ci": "0.800 [0.490, 0.943]", "x_acc": 0.8, "x_acc_lo": lo,
                   "x_acc_hi": hi, "x_acc_n": 10, "x_k": 8, "x_name": "OP"}  # fmt: skip
    assert type(got["x_k"]) is int  # numpy scalars become Python numbers
    got.clear()
    diff = Estimate(0.125, 0.0, 0.281, 32, "bootstrap")
    pages.glue_all({"d": diff, "v": verdict(diff), "a": rate(8, 10)}, spec={"d": "+.2f"})
    assert got["d_ci"] == "+0.12 [+0.00, +0.28]" and got["a_ci"] == "0.800 [0.490, 0.943]"
    assert got["v"] == "not resolved" and type(got["v"]) is str
    got.clear()
    pages.glue_all({"a": rate(8, 10), "b": rate(3, 4), "k": 2}, n={"a"}, spec={"a": ".2f"})
    assert got["a_ci"] == "0.80 [0.49, 0.94] (n = 10)" and got["b_ci"].endswith("]")
    pages.glue_all({"b": rate(3, 4)}, n=True)
    assert got["b_ci"].endswith("(n = 4)")
    with pytest.raises(ValueError, match="n names labels that values lacks: \\['z'\\]"):
        pages.glue_all({"d": diff}, n={"z"})
    with pytest.raises(TypeError, match="n must be a bool or a collection of labels"):
        pages.glue_all({"d": diff}, n="d")
    with pytest.raises(ValueError, match="spec names labels that values lacks: \\['z'\\]"):
        pages.glue_all({"d": diff}, spec={"z": ".1f"})
    with pytest.raises(TypeError, match="spec must be a format spec or a mapping"):
        pages.glue_all({"d": diff}, spec=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="mapping"):
        pages.glue_all([("a", 1)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'a'"):
        pages.glue_all({"a": [1, 2]})
    with pytest.raises(TypeError, match="'b'"):
        pages.glue_all({"b": True})


def test_table_formats_html_and_text_alike() -> None:
    df = pd.DataFrame({"κ": [0.25, 1.0], "alpha_c": [0.31415, math.nan], "note": ["a", "b"]})
    t = pages.table(df, {"κ": "{:g}"}, precision=2, caption="Capacity")
    text = repr(t)
    assert text.splitlines()[0] == "Capacity"
    assert "0.31" in text and "0.314" not in text and "0.25" in text and "–" in text
    html = t._repr_html_()
    assert "0.31" in html and "0.314" not in html and "Capacity" in html
    assert "Styler" not in text and 'class="dataframe"' in html
    assert t.data["alpha_c"].iloc[0] == 0.31415  # values kept unformatted
    est = pd.DataFrame({"acc": [rate(8, 10)], "v": [Verdict.ABOVE]})
    t2 = pages.table(est, {"acc": "{:.2f}"})
    assert "0.80 [0.49, 0.94]" in repr(t2) and "0.80 [0.49, 0.94]" in t2._repr_html_()
    assert "above" in repr(t2) and "Verdict" not in t2._repr_html_()
    with pytest.raises(ValueError, match="lacks"):
        pages.table(df, {"missing": "{:g}"})
    with pytest.raises(TypeError, match="DataFrame"):
        pages.table(df.to_dict())  # type: ignore[arg-type]


def test_estimate_glue_values_are_plain_numbers() -> None:
    e = Estimate(np.float64(0.5), np.float64(0.4), np.float64(0.6), np.int64(3), "Student t")
    assert all(type(v) in (float, int) for v in e.glue_values().values())
