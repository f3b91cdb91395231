"""Speed and accuracy of alpha_c(kappa), the rank-constrained capacity (chapter 4).

Target (issue 6): ``critical_load`` for 100 values of kappa in < 0.1 s, error < 1e-10 against a
high-precision quadrature. The reference here is independent of the library: mpmath at 30 digits,
tanh-sinh quadrature of the quarter-circle density for the edge s_kappa (found by the secant
method on the quadrature) and for the second moment above it.

Run: ``python benchmarks/critical_load_speed.py`` (about 10-30 s, almost all of it mpmath).
"""

from __future__ import annotations

import time

import mpmath as mp
import numpy as np
from assocmem.linear.theory import spectra

mp.mp.dps = 30


def reference_alpha(kappa: float, guess_t: float) -> mp.mpf:
    """alpha_c(kappa) by 30-digit quadrature, in t = 2 - s (mass and second moment above 2 - t)."""
    k = mp.mpf(kappa)

    def mass(t):
        return mp.quad(lambda u: mp.sqrt(u * (4 - u)) / mp.pi, [0, t])

    t_k = mp.findroot(
        lambda t: mass(t) - k, mp.mpf(guess_t), solver="secant", tol=mp.mpf(10) ** -50
    )
    return mp.quad(lambda u: (2 - u) ** 2 * mp.sqrt(u * (4 - u)) / mp.pi, [0, t_k]) / 2


def best_time(fn, repeats: int = 7) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    kappas = np.concatenate([np.logspace(-6, -1, 30, endpoint=False), np.linspace(0.1, 0.999, 70)])
    assert kappas.size == 100

    t_scalar = best_time(lambda: [spectra.critical_load(float(k)) for k in kappas])
    t_vector = best_time(lambda: spectra.critical_load(kappas))
    t_quad = best_time(lambda: [spectra.critical_load_quadrature(float(k)) for k in kappas], 3)

    closed = np.array([spectra.critical_load(float(k)) for k in kappas])
    vector = spectra.critical_load(kappas)
    quadr = np.array([spectra.critical_load_quadrature(float(k)) for k in kappas])

    t0 = time.perf_counter()
    guesses = 2.0 - np.asarray(spectra.truncation_point(kappas))
    ref = np.array(
        [float(reference_alpha(float(k), g)) for k, g in zip(kappas, guesses, strict=True)]
    )
    t_ref = time.perf_counter() - t0

    def errs(x: np.ndarray) -> tuple[float, float]:
        return float(np.max(np.abs(x - ref))), float(np.max(np.abs(x - ref) / ref))

    print("alpha_c(kappa) for 100 values of kappa in [1e-6, 0.999] (30 log-spaced below 0.1)")
    print(f"{'method':42s} {'time (s)':>10s} {'max abs err':>12s} {'max rel err':>12s}")
    for name, t, x in [
        ("spectra.critical_load (scalar loop)", t_scalar, closed),
        ("spectra.critical_load (vector)", t_vector, vector),
        ("spectra.critical_load_quadrature (loop)", t_quad, quadr),
    ]:
        a, r = errs(x)
        print(f"{name:42s} {t:10.2e} {a:12.1e} {r:12.1e}")
    print(f"{'reference: mpmath 30-digit quadrature':42s} {t_ref:10.2e}")
    ok_time = t_scalar < 0.1
    ok_err = errs(closed)[0] < 1e-10
    print(f"target time < 0.1 s for 100 values: {'PASS' if ok_time else 'FAIL'} ({t_scalar:.4f} s)")
    print(f"target error < 1e-10: {'PASS' if ok_err else 'FAIL'} ({errs(closed)[0]:.1e})")


if __name__ == "__main__":
    main()
