"""Tests of the shared input checks (assocmem._validate) as the public functions meet them."""

from __future__ import annotations

import numpy as np
import pytest
from assocmem._validate import as_float_array, seed_list
from assocmem.linear.hebbian import recall_probability
from assocmem.linear.measured_spectra import spectrum_ks_distance
from assocmem.linear.sampling import sample_problem
from assocmem.linear.spectra import critical_load


def test_numbers_as_text_are_refused() -> None:
    for bad in ("0.5", ["0.5"], np.array(["1"]), [None]):
        with pytest.raises(TypeError, match="kappa"):
            critical_load(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="kappa"):
        spectrum_ks_distance([1.0], kappa="1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="p must"):
        recall_probability("10", 8)  # type: ignore[arg-type]
    np.testing.assert_array_equal(as_float_array([1, 2.5, np.float32(3)], "x"), [1.0, 2.5, 3.0])
    assert as_float_array(True, "x") == 1.0  # bools are numbers to numpy; kappa refuses them


def test_seed_messages_name_the_argument() -> None:
    with pytest.raises(TypeError, match="^seed must"):
        sample_problem(5, 4, seed=1.0)  # type: ignore[arg-type]
    assert seed_list(3) == [0, 1, 2] and seed_list(np.arange(2)) == [0, 1]
    assert seed_list(s for s in (4, 2)) == [4, 2]
