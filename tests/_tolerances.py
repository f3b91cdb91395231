"""How far two computations of the same floats may differ: tolerances derived, not guessed.

Two code paths that compute the same products (one matrix product or chunked ones, a batch or a
single row, AVX-512 or SSE kernels) round differently: the bits depend on the CPU's kernels, not on
the library, so tests compare such results within a bound derived from the precision and the size
of the computation, and assert bit-equality only where the library promises it (the same path on
the same inputs; each such promise is written in the docstring the test checks).

The bound: for any order of summation, with or without fused multiply-adds, a dot product of
length ``n`` computed in floating point with unit roundoff ``u`` satisfies
``|fl(x . y) - x . y| <= gamma_n |x| . |y|`` with ``gamma_n = n u / (1 - n u)`` (Higham, *Accuracy
and Stability of Numerical Algorithms*, 2nd ed., eq. 3.5). Two paths each within that bound of
the exact value differ by at most twice it.
"""

from __future__ import annotations

import numpy as np
import torch

#: Unit roundoff of IEEE float32 and float64 (half the machine epsilon).
UNIT_ROUNDOFF = {torch.float32: 2.0**-24, torch.float64: 2.0**-53}


def gamma(n: int, dtype: torch.dtype = torch.float32) -> float:
    """``gamma_n = n u / (1 - n u)``: the relative error bound of a length-``n`` dot product."""
    nu = n * UNIT_ROUNDOFF[dtype]
    assert nu < 1, "the bound needs n u < 1"
    return nu / (1 - nu)


def product_tolerance(x: torch.Tensor, w: torch.Tensor, extra_ops: int = 0) -> torch.Tensor:
    """Elementwise bound on how much two paths' ``x @ w.T`` may differ, shape ``(..., V)``.

    ``2 gamma_{d + extra_ops} |x| @ |w|.T`` in float64, where ``d`` is the length of the dot
    products; ``extra_ops`` counts roundings before the product that the two paths may also do
    differently (for instance a normalisation of ``x``: each such rounding moves every term by at
    most one more relative ``u``).
    """
    n = x.shape[-1] + extra_ops
    return 2 * gamma(n, x.dtype) * (x.abs().double() @ w.abs().double().T)


def top_two_gap(scores: torch.Tensor | np.ndarray) -> np.ndarray:
    """The gap between the largest and the second-largest score along the last axis.

    An argmax is the same on two paths wherever this gap exceeds twice their largest difference.
    """
    top = np.sort(np.asarray(scores, dtype=np.float64), axis=-1)
    return top[..., -1] - top[..., -2]
