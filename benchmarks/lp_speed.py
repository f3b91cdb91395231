"""Exact perfect-storage LP: CPU time per instance against d, new solver beside the old one.

For each d, instances at loads around the *predicted* transition of that d (``--factors`` times
``predicted_transition(d)``, OP and DP, seeds 0..n-1 at every load) are decided by
``lp_decide(method="ipm")`` (the default: one interior-point solve of the full max-margin LP with
structured normal equations) and, where ``d <= --old-max-d``, by ``method="cg"`` (the previous
default: constraint generation with dense restricted LPs) on the same instances. Prints, per
(d, problem) and solver: CPU seconds per instance (median and max, ``time.process_time``),
interior-point iterations and rounds (medians), constraints used / p(p-1), the achieved float64
rate (the dominant flops counted by the solver -- normal matrix and Cholesky factor -- over the
CPU seconds) and its ratio to the machine's float64 matrix-product rate measured at the start of
the same run (the figure of merit), the number of feasible answers, the smallest certified
margin and the largest certified dual bound, and how many old and new answers agree (each answer
carries a certificate checked in float64, so a disagreement would be a bug; it is printed).

Run it one process at a time with one thread, e.g.
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/lp_speed.py`` (defaults: d = 16, 24,
32, 48, 64; loads 0.9, 1.0, 1.1 x the predicted transition; 2 seeds per load; about 15 minutes
on one core, most of it d = 64 and the old solver at d = 32).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from assocmem.linear.instances.sampling import sample_problem
from assocmem.linear.storage.lp import lp_decide
from assocmem.linear.theory.finite_size import predicted_transition
from assocmem.linear.theory.load import pairs_for_load


def _cpu(f):  # type: ignore[no-untyped-def]
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def _gemm_rate(n: int = 2048, repeats: int = 3) -> float:
    """The machine's float64 matrix-product rate, GFLOP/s of CPU time (best of ``repeats``)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    best = min(_cpu(lambda: a @ b)[1] for _ in range(repeats))
    return 2.0 * n**3 / best / 1e9


def _med_max(x: list[float]) -> str:
    return f"{np.median(x):6.2f}/{max(x):6.2f}" if x else "     -/     -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[16, 24, 32, 48, 64])
    ap.add_argument("--factors", type=float, nargs="+", default=[0.9, 1.0, 1.1])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--old-max-d", type=int, default=32)
    ap.add_argument("--problems", nargs="+", default=["op", "dp"], choices=["op", "dp"])
    args = ap.parse_args()
    rate = _gemm_rate()
    print(f"machine float64 matrix product (2048^3, one process): {rate:.1f} GFLOP/s")
    print(f"loads {args.factors} x predicted transition, seeds 0..{args.seeds - 1} per load; "
          "CPU seconds per instance")  # fmt: skip
    print("d   prob  p        solver  n  cpu(med/max)  iters  rounds  rows/p(p-1)  GFLOP/s  "
          "ratio  feasible  min_margin  max_bound  agree")  # fmt: skip
    for d in args.d:
        alpha_c = predicted_transition(d).alpha.value
        for name in args.problems:
            res: dict[str, list] = {"ipm": [], "cg": []}  # type: ignore[type-arg]
            ps = []
            for f in args.factors:
                p = pairs_for_load(alpha_c * f, d)
                ps.append(p)
                for seed in range(args.seeds):
                    prob = sample_problem(p, d, decoupled=name == "dp", seed=seed)
                    for meth in ("ipm", "cg"):
                        if meth == "cg" and d > args.old_max_d:
                            continue
                        r, sec = _cpu(lambda prob=prob, meth=meth: lp_decide(prob, method=meth))
                        res[meth].append((r, sec, p))
            agree = "-"
            if res["cg"]:
                pairs = zip(res["ipm"], res["cg"], strict=True)
                same = [a[0].feasible == b[0].feasible for a, b in pairs]
                agree = f"{sum(same)}/{len(same)}"
                for (a, _, p), ok in zip(res["ipm"], same, strict=True):
                    if not ok:
                        print(f"  disagreement d={d} {name} p={p}: ipm {a}")
            for meth in ("ipm", "cg"):
                rows = res[meth]
                if not rows:
                    continue
                secs = [s for _, s, _ in rows]
                decs = [r for r, _, _ in rows]
                frac = [r.constraints / (p * (p - 1)) for r, _, p in rows]
                gf = sum(r.flops for r in decs) / sum(secs) / 1e9
                margins = [r.margin for r in decs if r.feasible]
                bounds = [r.margin for r in decs if r.feasible is False]  # None: undecided
                mtxt = f"{min(margins):.1e}" if margins else "-"
                btxt = f"{max(bounds):.1e}" if bounds else "-"
                n_feas = sum(r.feasible is True for r in decs)
                print(f"{d:<3d} {name:>3s}  {min(ps)}-{max(ps):<4d} {meth:>6s} {len(rows):2d}  "
                      f"{_med_max(secs)}  {np.median([r.iterations for r in decs]):5.0f}  "
                      f"{np.median([r.rounds for r in decs]):6.0f}  {np.median(frac):11.3f}  "
                      f"{gf:7.1f}  {gf / rate:5.2f}  {n_feas:4d}/{len(rows):<3d}  {mtxt:>10s}  "
                      f"{btxt:>9s}  {agree:>5s}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
