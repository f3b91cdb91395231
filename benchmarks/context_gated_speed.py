"""Speed of the separation experiment of chapter 5 at the paper's full size.

12 query-noise levels x 6 couplings λ x 6000 trials (paper App. D.1), for the two score models:
first-order closed form r = b + λA⁻¹u, and the integrated gate–retrieval dynamics with feedback
(the chapter's choice). Target: < 30 s on 2 CPU cores.

Usage::

    python benchmarks/context_gated_speed.py [--trials 6000] [--threads N] [--device cpu|cuda]
                                             [--only first_order|dynamics]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from assocmem.context_gated.experiments import separation_experiment
from assocmem.device import configure_threads, describe_device, get_device


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=6000, help="trials per (σ_q, λ) cell")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all)")
    ap.add_argument("--device", default=None, help="cpu, cuda or auto (default)")
    ap.add_argument("--noise", default="unit", choices=["unit", "per_component"])
    ap.add_argument("--only", default=None, choices=["first_order", "dynamics"])
    args = ap.parse_args()
    configure_threads(args.threads)
    dev = get_device(args.device)
    print(f"device: {describe_device(dev)} | torch {torch.__version__}")
    print(f"size: 12 σ_q levels x 6 λ x {args.trials} trials, noise={args.noise}")
    modes = {"first_order": False, "dynamics": True}
    if args.only is not None:
        modes = {args.only: modes[args.only]}
    for name, feedback in modes.items():
        t0, c0 = time.perf_counter(), time.process_time()
        res = separation_experiment(
            trials=args.trials, noise=args.noise, feedback=feedback, device=dev, progress=False
        )
        if dev.type == "cuda":
            torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        n = res.accuracy.size * args.trials
        print(
            f"{name:12s} wall {wall:7.2f} s | process CPU {cpu:7.2f} s | "
            f"{n / wall:,.0f} trials/s | target < 30 s: {'met' if wall < 30 else 'NOT met'}"
        )
        cols = [0, 2, 4, 8, 11]
        print("   accuracy at σ_q =", np.round(res.sigma_q[cols], 2))
        for li, lam in enumerate(res.lambdas):
            print(f"   λ = {lam:4g}:", np.round(res.accuracy[li, cols], 3))
        if feedback:
            print(f"   largest polishing residual: {res.params['max_polish_residual']:.2e}")


if __name__ == "__main__":
    main()
