"""Speed of the batched training engine against a plain PyTorch loop and the matmul peak.

Prints, at d = 64, 128, 256 (load alpha = 0.5 by default):

* ``train_memory`` with 4 seeds batched (analytic gradients, PyTorch's public Adam with the fused
  kernel where the device has it, float32): steps/s per problem and achieved GFLOP/s (counting
  4 p^2 d + 4 p d^2 flops per problem-step);
* a plain PyTorch loop as a user would write it (one problem at a time, autograd,
  ``torch.optim.Adam``, ``F.cross_entropy``, accuracy checked every 32 steps): steps/s;
* on the CPU, the same plain loop with flush-to-zero (``torch.set_flush_denormal(True)`` set
  before PyTorch starts its threads, in a fresh process): the user-side remedy for subnormals;
* the machine's float32 matmul throughput (square GEMM), and the engine's share of it.

Both codes start from W = 0 on the same problems and are timed over the same steps. At d = 64
the cost per step is also printed by window of steps: below capacity the plain loop slows down
several-fold after ~10 steps (its softmax fills with subnormal floats), the engine does not, so a
ratio over the first few steps alone understates the plain loop's cost, and the plain+FTZ column
separates what batching and analytic gradients gain from what avoiding subnormals gains. At
d = 128 and 256 only the first few steps are timed (the plain loop is slow there).

Then the time to result of a capacity sweep (d = 64, 10 loads, 4 seeds) with ``capacity_sweep``
(early stop at perfect recall, stall stop) against the plain loop with a fixed 4096-step budget and
no early stop (the protocol of Nichani, Lee & Bietti's public notebook); unless ``--full``, the
plain loop's time is extrapolated: its first 64 steps are timed for one seed per load, the rest
of the budget at the rate of steps 32-63. Finally the DP's memory: the competitor tensor's size,
the measured peak, and the error raised before allocating a DP that cannot fit.

Usage::

    python benchmarks/train_speed.py [--device cpu|cuda] [--threads N] [--quick] [--full]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

from assocmem.device import configure_threads, describe_device, get_device  # noqa: E402
from assocmem.linear.instances.problems import MemoryProblem  # noqa: E402
from assocmem.linear.instances.sampling import dp_memory_bytes, sample_problems  # noqa: E402
from assocmem.linear.measure.sweeps import capacity_sweep  # noqa: E402
from assocmem.linear.storage.training import train_memory, training_flops  # noqa: E402
from assocmem.linear.theory.load import pairs_for_load  # noqa: E402


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def matmul_gflops(dev: torch.device, n: int = 2048, reps: int = 10) -> float:
    """Float32 GEMM throughput (GFLOP/s) of an n x n product."""
    a = torch.randn(n, n, device=dev)
    b = torch.randn(n, n, device=dev)
    c = a @ b
    _sync(dev)
    t = time.perf_counter()
    for _ in range(reps):
        torch.matmul(a, b, out=c)
    _sync(dev)
    return 2 * n**3 * reps / (time.perf_counter() - t) / 1e9


def plain_loop(prob: MemoryProblem, steps: int, lr: float, check_every: int = 32) -> np.ndarray:
    """One problem, autograd + torch.optim.Adam + F.cross_entropy, from W = 0; returns the
    seconds of each step (shape (steps,))."""
    e, u = prob.inputs, prob.targets
    d, p = prob.d, prob.p
    target = torch.arange(p, device=e.device)
    W = torch.zeros(d, d, device=e.device, requires_grad=True)
    opt = torch.optim.Adam([W], lr=lr)
    times = np.empty(steps)
    for step in range(steps):
        _sync(e.device)
        t = time.perf_counter()
        logits = (e @ W.T) @ u.T
        loss = F.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % check_every == 0:
            _ = (logits.argmax(1) == target).float().mean().item()
        _sync(e.device)
        times[step] = time.perf_counter() - t
    return times


def engine_time(batch: MemoryProblem, steps: int, lr: float) -> float:
    """Seconds for ``steps`` batched steps: a (steps + 1)-step run minus a 1-step run, which
    removes the set-up and the final recall evaluation."""
    times = []
    for n in (1, steps + 1):
        _sync(batch.device)
        t = time.perf_counter()
        train_memory(batch, steps=n, lr=lr, early_stop=False, check_every=n)
        _sync(batch.device)
        times.append(time.perf_counter() - t)
    return times[1] - times[0]


def plain_ftz_rate(d: int, steps: int, alpha: float, threads: int | None) -> float:
    """Problem-steps/s of the plain loop with flush-to-zero set before PyTorch starts its
    threads (``torch.set_flush_denormal(True)``; threads created later inherit it, threads that
    already exist do not), measured in a fresh process on the same problems; NaN if this CPU
    cannot flush subnormals."""
    cmd = [sys.executable, __file__, "--plain-ftz-child", str(d), str(steps), "--alpha", str(alpha)]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return float(out[-1])


def _plain_ftz_child(d: int, steps: int, alpha: float, threads: int | None) -> None:
    ok = torch.set_flush_denormal(True)  # first: before any op starts the thread pool
    configure_threads(threads)
    batch = sample_problems(pairs_for_load(alpha, d), d, [0, 1, 2, 3])
    plain_loop(batch[0], 2, 5.0)  # warm-up
    per_step = np.stack([plain_loop(batch[i], steps, 5.0) for i in range(4)])
    print(per_step.size / per_step.sum() if ok else math.nan)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--alpha", type=float, default=0.5)
    ap.add_argument("--quick", action="store_true", help="fewer timed steps")
    ap.add_argument("--full", action="store_true", help="run the whole plain-loop sweep")
    ap.add_argument("--plain-ftz-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plain_ftz_child:
        _plain_ftz_child(*args.plain_ftz_child, args.alpha, args.threads)
        return
    dev = get_device(args.device)
    if dev.type == "cpu":
        configure_threads(args.threads)
    print(f"device: {describe_device(dev)}; torch {torch.__version__}")
    peak = matmul_gflops(dev)
    print(f"float32 matmul peak (2048^3 GEMM): {peak:8.1f} GFLOP/s\n")

    seeds = [0, 1, 2, 3]
    lr = 5.0
    # steps timed for both codes, from W = 0 on the same problems (the same window: the plain
    # loop's cost per step grows as the scores spread, see the note under the table)
    timed = {64: 64, 128: 16, 256: 4}
    if args.quick:
        timed = {64: 24, 128: 4, 256: 2}
    if dev.type == "cuda":
        timed = {64: 400, 128: 200, 256: 100}
    ftz = dev.type == "cpu"
    hdr = (
        f"{'d':>4} {'p':>6} {'steps':>5} | {'engine steps/s/prob':>19} {'GFLOP/s':>8} "
        f"{'% peak':>6} | {'plain steps/s':>13} {'GFLOP/s':>8} | {'speed-up':>8}"
        + (f" | {'plain+FTZ steps/s':>17} {'speed-up':>8}" if ftz else "")
    )
    print(hdr)
    print("-" * len(hdr))
    windows = {}
    for d, n in timed.items():
        p = pairs_for_load(args.alpha, d)
        batch = sample_problems(p, d, seeds, device=dev)
        engine_time(batch, 1, lr)  # warm-up
        t_eng = engine_time(batch, n, lr)
        eng_rate = n * len(seeds) / t_eng  # problem-steps per second
        plain_loop(batch[0], 2, lr)  # warm-up
        per_step = np.stack([plain_loop(batch[i], n, lr) for i in range(len(seeds))])
        plain_rate = per_step.size / per_step.sum()
        windows[d] = per_step.mean(0)
        fl = training_flops(p, d)
        g_eng, g_plain = eng_rate * fl / 1e9, plain_rate * fl / 1e9
        row = (
            f"{d:>4} {p:>6} {n:>5} | {eng_rate:>19.1f} {g_eng:>8.1f} {100 * g_eng / peak:>5.0f}% | "
            f"{plain_rate:>13.1f} {g_plain:>8.1f} | {eng_rate / plain_rate:>7.1f}x"
        )
        if ftz:
            del batch
            r_ftz = plain_ftz_rate(d, n, args.alpha, args.threads)
            row += f" | {r_ftz:>17.1f} {eng_rate / r_ftz:>7.1f}x"
        print(row)
    larger = ", ".join(map(str, list(timed)[1:]))
    print(
        f"(all rows: steps 1-n from W = 0 for both codes. At d = {larger} only these few steps "
        "are timed: they miss part of the plain loop's slowdown shown below.)"
    )
    # cost per step by window at the smallest d, both codes (engine: median of 3 runs)
    d0 = min(windows)
    w = windows[d0]
    cuts = [1, 10, 20, len(w)] if len(w) > 20 else [1, len(w)]
    batch = sample_problems(pairs_for_load(args.alpha, d0), d0, seeds, device=dev)
    run_t: dict[int, list[float]] = {c: [] for c in cuts}
    for _ in range(3):
        for c in cuts:  # a c-step run applies updates 1..c, like plain steps 0..c-1
            _sync(dev)
            t = time.perf_counter()
            train_memory(batch, steps=c, lr=lr, early_stop=False, check_every=c)
            _sync(dev)
            run_t[c].append(time.perf_counter() - t)
    print(f"\nms per problem-step by window of steps at d = {d0}:")
    for a, b in zip(cuts, cuts[1:], strict=False):
        eng = float(np.median(np.subtract(run_t[b], run_t[a]))) / (b - a) / len(seeds)
        print(
            f"  steps {a + 1:>2}-{b:<2}  engine {1e3 * eng:6.3f}   plain {1e3 * w[a:b].mean():6.3f}"
        )
    print(
        "  (below capacity W keeps growing and the plain loop slows down: its softmax then holds "
        "subnormal floats (< 1.2e-38),\n   on which CPUs run exp() and the backward matmul many "
        "times slower. The engine clamps exp's argument at -80,\n   so its weights stay normal "
        "floats; plain+FTZ is the user-side remedy, flush-to-zero set before PyTorch starts\n   "
        "its threads (torch.set_flush_denormal(True)), measured in a fresh process.)"
    )

    # ---- capacity sweep: time to result ------------------------------------------------------
    d = 64
    alphas = np.linspace(0.5, 1.4, 10)
    print(f"\ncapacity sweep d = {d}, 10 loads {alphas.round(2).tolist()}, 4 seeds")
    t = time.perf_counter()
    table = capacity_sweep(d, alphas, seeds=seeds, device=dev, progress=False)
    t_sweep = time.perf_counter() - t
    steps_run = np.asarray(table["steps"])  # capacity_sweep returns a DataFrame, one row/instance
    print(
        f"  capacity_sweep (lr 5, early stop, stall stop 1000): {t_sweep:7.1f} s "
        f"({int(steps_run.sum())} problem-steps in total)"
    )
    budget = 4096
    if args.full:
        t = time.perf_counter()
        for a in alphas:
            batch = sample_problems(pairs_for_load(float(a), d), d, seeds, device=dev)
            for i in range(len(seeds)):
                plain_loop(batch[i], budget, lr)
        t_plain_sweep = time.perf_counter() - t
        how = "measured"
    else:
        # time the first n steps of one seed per load and extrapolate the rest of the budget at
        # the rate of the last half of those (the plain loop's steady cost per step)
        n = 64
        t_plain_sweep = 0.0
        for a in alphas:
            batch = sample_problems(pairs_for_load(float(a), d), d, seeds[:1], device=dev)
            plain_loop(batch[0], 2, lr)
            ts = plain_loop(batch[0], n, lr)
            t_plain_sweep += (ts.sum() + (budget - n) * ts[n // 2 :].mean()) * len(seeds)
        how = f"first {n} steps timed per load, the rest at the rate of steps {n // 2}-{n - 1}"
    print(f"  plain loop, fixed {budget} steps, no early stop:     {t_plain_sweep:7.1f} s ({how})")
    print(f"  time-to-result ratio: {t_plain_sweep / t_sweep:.1f}x")

    # ---- DP memory ---------------------------------------------------------------------------
    print("\nDP memory (competitor tensor = 4 B p (p-1) d bytes for a batch of B problems)")
    for dd, a in ((64, 1.0), (128, 1.0), (256, 1.0)):
        pp = pairs_for_load(a, dd)
        print(
            f"  d = {dd:3d}, alpha = {a}: p = {pp:5d}, one problem "
            f"{dp_memory_bytes(pp, dd) / 2**20:9.1f} MiB, batch of 4 "
            f"{dp_memory_bytes(pp, dd, 4) / 2**30:7.2f} GiB"
        )
    pp = pairs_for_load(1.0, 64)
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)
    proc = psutil.Process()
    rss0 = proc.memory_info().rss
    batch = sample_problems(pp, 64, seeds, decoupled=True, device=dev)
    rss1 = proc.memory_info().rss
    train_memory(batch, steps=5, early_stop=False)
    rss2 = proc.memory_info().rss
    comp_mib = dp_memory_bytes(pp, 64, 4) / 2**20
    if dev.type == "cuda":
        peak_mb = torch.cuda.max_memory_allocated(dev) / 2**20
        print(
            f"  peak GPU memory, DP d = 64, alpha = 1, 4 seeds, 5 steps: {peak_mb:.0f} MiB "
            f"(competitors {comp_mib:.0f} MiB)"
        )
    else:
        print(
            f"  DP d = 64, alpha = 1, 4 seeds: process memory +{(rss1 - rss0) / 2**20:.0f} MiB "
            f"after sampling, +{(rss2 - rss0) / 2**20:.0f} MiB after 5 training steps "
            f"(competitor tensor {comp_mib:.0f} MiB)"
        )
    del batch
    try:
        sample_problems(pairs_for_load(1.0, 256), 256, seeds, decoupled=True, device=dev)
        print("  DP d = 256, alpha = 1, 4 seeds: allocated (fits on this device)")
    except MemoryError as exc:
        print(f"  DP d = 256, alpha = 1, 4 seeds refused before allocating: MemoryError: {exc}")
    print(f"\n(speed table at load alpha = {args.alpha}; flops per problem-step 4 p^2 d + 4 p d^2)")


if __name__ == "__main__":
    main()
