"""Speed of the finite-size capacity alpha_c(p) = log p / E[C_p] (chapter 2).

Target (issue 4): p up to 1e6 with <= 1 % relative standard error in < 10 s on 2 cores.
Prints, for each p: alpha_c(p), its relative standard error, the number of Monte Carlo draws and
the wall time; then the throughput of the exact vectorised cost C(t) on full (n, p) arrays and
the time the naive route (sampling all p fields) would need at p = 1e6.

Run: python benchmarks/replica_speed.py
"""

from __future__ import annotations

import math
import time

import numpy as np
from assocmem.device import configure_threads
from assocmem.linear.theory.finite_size import finite_size_capacity_estimate
from assocmem.linear.theory.replica import cost


def main() -> None:
    threads = configure_threads(2)
    print(f"threads: {threads}")
    print("adaptive sample size, target relative standard error 0.5 %")
    print(f"{'p':>12} {'alpha_c(p)':>11} {'rel.err':>8} {'time [s]':>9}")
    for p in (10, 10**2, 10**4, 10**6, 10**8, 10**12):
        t0 = time.perf_counter()
        est = finite_size_capacity_estimate(p, seed=0, rel_error=0.005)
        alpha, err = est.value, est.stderr
        dt = time.perf_counter() - t0
        print(f"{p:>12.0e} {alpha:>11.4f} {err / alpha:>8.2%} {dt:>9.3f}")
    # fixed 1 % target, p = 1e6 (the figure)
    t0 = time.perf_counter()
    est = finite_size_capacity_estimate(10**6, seed=1, rel_error=0.01)
    alpha, err = est.value, est.stderr
    dt = time.perf_counter() - t0
    rel = err / alpha
    print(f"p = 1e6 at 1 % target: alpha_c = {alpha:.4f} +- {err:.4f} ({rel:.2%}) in {dt:.3f} s")

    # exact cost on full arrays (sort + cumulative sums), for reference
    rng = np.random.default_rng(0)
    for n, p in ((10_000, 100), (1_000, 10_000), (20, 10**6)):
        t = rng.standard_normal((n, p))
        t0 = time.perf_counter()
        cost(t)
        dt = time.perf_counter() - t0
        print(
            f"cost() on full array n={n:>6}, p={p:>8}: {dt:.3f} s ({dt / n * 1e3:.3f} ms per draw)"
        )
        if p == 10**6:
            per_draw = dt / n
            draws = 4000
            print(
                f"naive route at p = 1e6 (sample all p fields, {draws} draws for ~0.5 % error): "
                f"~{per_draw * draws:.0f} s (+ sampling), vs the order-statistics route above"
            )
    print(f"(sqrt(2 log 1e6) = {math.sqrt(2 * math.log(1e6)):.3f}: competitor maximum at p = 1e6)")


if __name__ == "__main__":
    main()
