"""Tests of the shared input checks (assocmem._validate) as the public functions meet them."""

from __future__ import annotations

import numpy as np
import pytest
from assocmem._validate import (
    as_float_array,
    check_directory,
    check_outcomes,
    check_token_ids,
    seed_list,
)
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.measure.measured_spectra import spectrum_ks_distance
from assocmem.linear.theory.hebbian import recall_probability
from assocmem.linear.theory.spectra import critical_load


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


# --- issue 42: outcomes, token ids, paths --------------------------------------------------------


def test_outcomes_are_zero_one_never_cast() -> None:
    np.testing.assert_array_equal(check_outcomes("a", [1, 0, 1.0]), [True, False, True])
    assert check_outcomes("a", np.array([True, False])).dtype == bool
    with pytest.raises(ValueError, match=r"a must hold outcomes 0/1.*0\.2 at index 0"):
        check_outcomes("a", np.array([0.2, 0.9, 0.4]))
    with pytest.raises(ValueError, match="b must hold outcomes 0/1.*2 at index 2"):
        check_outcomes("b", [0, 1, 2])
    with pytest.raises(ValueError, match="a must hold outcomes"):
        check_outcomes("a", [0.0, np.nan])
    with pytest.raises(TypeError, match="a must hold right/wrong outcomes"):
        check_outcomes("a", ["1", "0"])
    with pytest.raises(ValueError, match="a must be a 1-D array"):
        check_outcomes("a", [[0, 1]])


def test_token_ids_are_integers_in_the_vocabulary() -> None:
    assert check_token_ids("q", [[5, 6], np.array([7]), []], 10) == [[5, 6], [7], []]
    with pytest.raises(ValueError, match=r"q\[0\]\[1\] = 300 is no token id.*< 257"):
        check_token_ids("q", [[5, 300]], 257)
    with pytest.raises(ValueError, match=r"q\[0\]\[1\] = -1 is no token id: ids must be >= 0"):
        check_token_ids("q", [[5, -1]], 257)
    with pytest.raises(TypeError, match=r"q\[0\] must be a 1-D sequence of integer token ids"):
        check_token_ids("q", [[5.0, 6.0]], 257)
    with pytest.raises(TypeError, match="q must be a sequence"):
        check_token_ids("q", "abc", 257)


def test_paths_name_the_argument(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert check_directory("data_dir", tmp_path) == tmp_path
    with pytest.raises(ValueError, match="data_dir = .*nowhere.* does not exist"):
        check_directory("data_dir", tmp_path / "nowhere")
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="data_dir = .* is not a directory"):
        check_directory("data_dir", tmp_path / "f")
    with pytest.raises(TypeError, match="data_dir must be a path"):
        check_directory("data_dir", 3)
    assert (
        check_directory("--out", tmp_path / "new" / "deeper", must_exist=False)
        == tmp_path / "new" / "deeper"
    )
    with pytest.raises(ValueError, match="--out = .* cannot be a directory: it is a file"):
        check_directory("--out", tmp_path / "f", must_exist=False)
    with pytest.raises(ValueError, match="--out = .* cannot be a directory: its parent"):
        check_directory("--out", tmp_path / "f" / "sub", must_exist=False)
    with pytest.raises(ValueError, match="--out must name a directory"):
        check_directory("--out", "", must_exist=False)
