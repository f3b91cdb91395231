"""Exact perfect-storage LP: CPU time per instance against d, for each method, and agreement.

For each d, instances at loads around the transition (OP and DP, seeds 0..n-1 at every load) are
decided by ``lp_decide(method="cg")`` (constraint generation, interior-point restricted LPs), by
``method="highs"`` (the same constraint generation with a highspy dual-simplex model) where
``d <= --highs-max-d``, and by ``method="dense"`` (every constraint at once through scipy) where
``d <= --dense-max-d``. Prints, per (d, problem): CPU seconds per instance (median and max,
``time.process_time``), rounds, constraints used / p(p-1), the number of feasible answers, the
smallest certified margin of a feasible answer and the largest dual bound of an infeasible one
(the gap between them is the room the certificates have), and the count of instances where
``"cg"`` and the other methods ran and gave the same answer. A disagreement is printed with the
certificate of the ``"cg"`` answer (a W checked on every constraint, or a dual bound), which is a
proof; the dense method returns no certificate.

Run it one process at a time with one thread, e.g.
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/lp_speed.py`` (defaults: d = 12,
16, 24, 32, loads 0.9, 0.95, 1.0, 1.05, 2 seeds per load; a few minutes on one core).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from assocmem.linear.load import pairs_for_load
from assocmem.linear.lp import lp_decide
from assocmem.linear.sampling import sample_problem


def _cpu(f):  # type: ignore[no-untyped-def]
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def _med_max(x: list[float]) -> str:
    return f"{np.median(x):6.2f}/{max(x):6.2f}" if x else "     -/     -"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[12, 16, 24, 32])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.9, 0.95, 1.0, 1.05])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--dense-max-d", type=int, default=16)
    ap.add_argument("--highs-max-d", type=int, default=16)
    ap.add_argument("--problems", nargs="+", default=["op", "dp"], choices=["op", "dp"])
    args = ap.parse_args()
    print(f"loads {args.alphas}, seeds 0..{args.seeds - 1} per load; CPU seconds per instance")
    head = (
        "d   prob  n  cg_cpu(med/max)  highs_cpu(med/max)  dense_cpu(med/max)  rounds  "
        "rows/p(p-1)  feasible  min_feas_margin  max_infeas_bound  agree_highs  agree_dense"
    )
    print(head)
    for d in args.d:
        for name in args.problems:
            t_cg: list[float] = []
            t_hi: list[float] = []
            t_de: list[float] = []
            rounds, frac, feas, margins, bounds = [], [], [], [], []
            agree_hi = both_hi = agree_de = both_de = 0
            for alpha in args.alphas:
                p = pairs_for_load(alpha, d)
                for seed in range(args.seeds):
                    prob = sample_problem(p, d, decoupled=name == "dp", seed=seed)
                    r, sec = _cpu(lambda prob=prob: lp_decide(prob))
                    t_cg.append(sec)
                    rounds.append(r.rounds)
                    frac.append(r.constraints / (p * (p - 1)))
                    feas.append(r.feasible)
                    (margins if r.feasible else bounds).append(r.margin)
                    others = []
                    if d <= args.highs_max_d:
                        rh, sec = _cpu(lambda prob=prob: lp_decide(prob, method="highs"))
                        t_hi.append(sec)
                        both_hi += 1
                        agree_hi += rh.feasible == r.feasible
                        others.append(("highs", rh.feasible))
                    if d <= args.dense_max_d:
                        rd, sec = _cpu(lambda prob=prob: lp_decide(prob, method="dense"))
                        t_de.append(sec)
                        both_de += 1
                        agree_de += rd.feasible == r.feasible
                        others.append(("dense", rd.feasible))
                    for meth, ok in others:
                        if ok != r.feasible:
                            print(f"  disagreement d={d} {name} alpha={alpha} seed={seed}: "
                                  f"cg {r.feasible} (certified margin/bound {r.margin:.3g}), "
                                  f"{meth} {ok}")  # fmt: skip
            mtxt = f"{min(margins):.2e}" if margins else "-"
            btxt = f"{max(bounds):.2e}" if bounds else "-"
            ahi = f"{agree_hi}/{both_hi}" if both_hi else "-"
            ade = f"{agree_de}/{both_de}" if both_de else "-"
            print(f"{d:<3d} {name:>3s} {len(t_cg):3d}  {_med_max(t_cg):>15s}  "
                  f"{_med_max(t_hi):>18s}  {_med_max(t_de):>18s}  {np.median(rounds):6.1f}  "
                  f"{np.median(frac):11.3f}  {sum(feas):4d}/{len(feas):<3d}  {mtxt:>15s}  "
                  f"{btxt:>16s}  {ahi:>11s}  {ade:>11s}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
