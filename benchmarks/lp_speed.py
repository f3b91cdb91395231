"""Exact perfect-storage LP: CPU time per instance against d, dense vs constraint generation.

For each d, instances at loads around the transition (OP and DP, seeds 0..n-1) are decided by
``lp_decide(method="cg")`` (constraint generation, one highspy model) and, where the dense LP
fits (``d <= --dense-max-d``), by ``method="dense"`` (every constraint at once through scipy).
Prints, per (d, problem): CPU seconds per instance (median and max, ``time.process_time``, one
thread), rounds, constraints used / p(p-1), the certified margin range, and the count of
instances where both methods ran and gave the same answer. A disagreement is printed with the
certificate of the constraint-generation answer (a W checked on every constraint, or a dual
bound), which is a proof; the dense method returns no certificate.

Run (one core): ``OMP_NUM_THREADS=1 python benchmarks/lp_speed.py --d 10 12 16 20 --seeds 4``;
add ``--d 24 32`` for the large sizes (d = 32 takes minutes per instance on one core).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from assocmem.linear.load import pairs_for_load
from assocmem.linear.lp import lp_decide
from assocmem.linear.problems import sample_problem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[10, 12, 16])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.9, 1.0, 1.1])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--dense-max-d", type=int, default=16)
    ap.add_argument("--problems", nargs="+", default=["op", "dp"], choices=["op", "dp"])
    args = ap.parse_args()
    print("d  prob  n  cg_cpu_s(median/max)  dense_cpu_s(median/max)  rounds  rows/p(p-1)  "
          "feasible  margin(feasible min)  agree/both")  # fmt: skip
    for d in args.d:
        for name in args.problems:
            t_cg, t_dense, rounds, frac, feas, margins = [], [], [], [], [], []
            agree = both = 0
            for alpha in args.alphas:
                p = pairs_for_load(alpha, d)
                for seed in range(args.seeds):
                    prob = sample_problem(p, d, decoupled=name == "dp", seed=seed)
                    t0 = time.process_time()
                    r = lp_decide(prob)
                    t_cg.append(time.process_time() - t0)
                    rounds.append(r.rounds)
                    frac.append(r.constraints / (p * (p - 1)))
                    feas.append(r.feasible)
                    if r.feasible:
                        margins.append(r.margin)
                    if d <= args.dense_max_d:
                        t0 = time.process_time()
                        ok = lp_decide(prob, method="dense").feasible
                        t_dense.append(time.process_time() - t0)
                        both += 1
                        agree += ok == r.feasible
                        if ok != r.feasible:
                            print(f"  disagreement d={d} {name} alpha={alpha} seed={seed}: "
                                  f"cg {r.feasible} (certified margin {r.margin:.3g}), "
                                  f"dense {ok}")  # fmt: skip
            dense = (f"{np.median(t_dense):7.2f}/{max(t_dense):7.2f}" if t_dense
                     else "      -/      -")  # fmt: skip
            mtxt = f"{min(margins):.2e}" if margins else "-"
            cg = f"{np.median(t_cg):8.2f}/{max(t_cg):8.2f}"
            print(f"{d:<3d}{name:>4s} {len(t_cg):3d}  {cg}  {dense}  {np.median(rounds):5.1f}  "
                  f"{np.median(frac):9.3f}  {sum(feas):3d}/{len(feas):<3d} {mtxt:>10s}  "
                  f"{agree}/{both}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
