"""Speed of chapter 5's experiments at the sizes the chapter uses.

The separation experiment at the paper's full size: 12 query-noise levels x 6 couplings λ x 6000
trials (paper App. D.1), for the two score models: first-order closed form r = b + λA⁻¹u, and the
integrated gate–retrieval dynamics with feedback (the chapter's choice). Target: < 30 s on 2 CPU
cores. Then (``--only`` unset or ``extras``) the one-step experiment, the winner-time experiment
(21 α x 100 memory sets) and the hysteresis sweep (5 λ x 50 α x 20 sets). The chapter runs with one
torch thread (``--threads 1``): its tensors are small and thread synchronisation dominates.

Usage::

    python benchmarks/context_gated_speed.py [--trials 6000] [--threads N] [--device cpu|cuda]
                                             [--only first_order|dynamics|extras]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from assocmem.context_gated.experiments import separation_experiment
from assocmem.context_gated.hysteresis import hysteresis_sweep
from assocmem.context_gated.onestep import one_step_experiment
from assocmem.context_gated.winner import winner_time_experiment
from assocmem.device import configure_threads, describe_device, get_device


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=6000, help="trials per (σ_q, λ) cell")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all)")
    ap.add_argument("--device", default=None, help="cpu, cuda or auto (default)")
    ap.add_argument("--noise", default="unit", choices=["unit", "per_component"])
    ap.add_argument("--only", default=None, choices=["first_order", "dynamics", "extras"])
    args = ap.parse_args()
    configure_threads(args.threads)
    dev = get_device(args.device)
    print(f"device: {describe_device(dev)} | torch {torch.__version__}")
    print(f"size: 12 σ_q levels x 6 λ x {args.trials} trials, noise={args.noise}")
    modes = {"first_order": False, "dynamics": True}
    if args.only is not None:
        modes = {args.only: modes[args.only]} if args.only in modes else {}
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
    if args.only not in (None, "extras"):
        return
    alphas_w = [0.9, 0.95, 0.98, 0.99, 1.0, 1.005, 1.01, 1.015, 1.02, 1.025, 1.03, 1.04, 1.05,
                1.075, 1.1, 1.15, 1.2, 1.3, 1.5, 1.75, 2.0]  # fmt: skip
    extras = {
        "one_step": lambda: one_step_experiment(
            sigma_q=(0.25, 0.5, 1.0, 2.0), lambdas=(0, 1, 2, 4, 8, 16), trials=2000
        ),
        "winner_time": lambda: winner_time_experiment(alphas_w, trials=100, t_max=200.0),
        "hysteresis": lambda: hysteresis_sweep(
            np.round(np.arange(0, 0.99, 0.02), 2), (0.5, 1.0, 1.5, 2.0, 2.5), trials=20
        ),
    }
    for name, run in extras.items():
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{name:12s} wall {wall:7.2f} s | process CPU {cpu:7.2f} s")


if __name__ == "__main__":
    main()
