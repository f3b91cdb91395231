"""Speed of two versions of the training engine, timed in alternating fresh processes.

Times ``train_memory`` on fixed workloads (OP, 4 seeds batched, from ``W = 0``, no early stop;
the d = 64 engine workload of ``train_speed.py`` plus a full-load and a factored ``rank = m``
case) with the library of the OLD tree and of the NEW tree, in fresh processes run alternately
(old, new, old, new, ...), so that slow drifts of a busy machine hit both about equally. Each
process reports ms per batched step for every workload (the time of a ``steps + 1``-step run
minus a 1-step run, which removes set-up and the final recall evaluation; best of ``--reps``).
Prints every run and, per workload, the median new/old speed ratio (> 1: new is faster).

Usage::

    python benchmarks/compare_engines.py [--old /work/baseline/lib] [--new lib] [--pairs 5]
        [--reps 2] [--threads 1] [--device cpu|cuda] [--clock wall|cpu]

Both trees are imported by their ``lib`` folder through ``PYTHONPATH`` (the old tree may still
have the flat layout ``assocmem.training``; both layouts are accepted). The
parent process imports whichever ``assocmem`` its own path finds, but does not use it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

try:  # the layout after the move into assocmem.linear
    from assocmem.linear.instances.sampling import sample_problems
    from assocmem.linear.storage.training import train_memory
    from assocmem.linear.theory.load import pairs_for_load
except ImportError:  # the flat layout before it
    from assocmem.problems import pairs_for_load, sample_problems
    from assocmem.training import train_memory

ROOT = Path(__file__).resolve().parents[1]

# name: (d, alpha, rank, timed steps)
WORKLOADS: dict[str, tuple[int, float, int | None, int]] = {
    "d64 a0.5 full": (64, 0.5, None, 64),  # train_speed.py's d = 64 row
    "d64 a1.0 full": (64, 1.0, None, 64),
    "d64 a1.0 rank16": (64, 1.0, 16, 64),
}


def _child(device: str | None, threads: int, reps: int, clock: str) -> None:
    """Run in a fresh process: time every workload, print one JSON line {name: ms per step}."""
    torch.set_num_threads(threads)
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def sync() -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    timer = time.process_time if clock == "cpu" else time.perf_counter

    def run(batch, n: int, rank: int | None) -> float:
        sync()
        t = timer()
        train_memory(batch, steps=n, rank=rank, early_stop=False, check_every=n)
        sync()
        return timer() - t

    out = {}
    for name, (d, alpha, rank, n) in WORKLOADS.items():
        batch = sample_problems(pairs_for_load(alpha, d), d, [0, 1, 2, 3], device=dev)
        run(batch, 2, rank)  # warm-up
        per_step = min(run(batch, n + 1, rank) - run(batch, 1, rank) for _ in range(reps)) / n
        out[name] = 1e3 * per_step
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", default="/work/baseline/lib", help="lib folder of the old tree")
    ap.add_argument("--new", default=str(ROOT / "lib"), help="lib folder of the new tree")
    ap.add_argument("--pairs", type=int, default=5, help="number of (old, new) process pairs")
    ap.add_argument("--reps", type=int, default=2, help="timed repetitions inside a process")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default=None)
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time, or the process's CPU time (less sensitive to other processes on a busy "
        "CPU; CPU runs only)",
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.device, args.threads, args.reps, args.clock)
        return
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    cmd = [sys.executable, __file__, "--child", "--threads", str(args.threads)]
    cmd += ["--reps", str(args.reps), "--clock", args.clock]
    cmd += ["--device", args.device] if args.device else []
    print(f"old: {trees['old']}\nnew: {trees['new']}")
    print(f"threads {args.threads}, {args.pairs} pairs, {args.reps} reps, {args.clock} clock")
    times: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    names = list(WORKLOADS)
    print(f"{'run':>8} | " + " | ".join(f"{n:>16}" for n in names) + "   (ms per step)")
    for i in range(args.pairs):
        for which in ("old", "new"):
            env = dict(os.environ, PYTHONPATH=trees[which])
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            ms = json.loads(res.stdout.strip().splitlines()[-1])
            times[which].append(ms)
            print(f"{which} {i + 1:>4} | " + " | ".join(f"{ms[n]:>16.3f}" for n in names))
    print("\nspeed ratio new/old (old ms / new ms; >= 1: new as fast or faster)")
    for n in names:
        old = np.array([t[n] for t in times["old"]])
        new = np.array([t[n] for t in times["new"]])
        pairwise = old / new
        print(
            f"  {n:>16}: median of pairs {np.median(pairwise):.3f} "
            f"(range {pairwise.min():.3f}-{pairwise.max():.3f}); "
            f"ratio of medians {np.median(old) / np.median(new):.3f} "
            f"(old {np.median(old):.3f} ms, new {np.median(new):.3f} ms)"
        )


if __name__ == "__main__":
    main()
