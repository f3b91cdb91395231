"""A chapter's heaviest work alone and beside a busy CPU process, under several thread settings.

A reader's machine, a shared runner or a second build on the same cores leaves the book's
processes fewer cores than torch assumes. Worker threads that spin while they wait for each other
(OpenMP's default wait policy) then burn the time slices the other process needs, and a thread
descheduled inside a parallel region holds its partner at the barrier: the run slows down far more
than a fair share of the cores explains. This script measures it.

Workloads (each run in a fresh Python process, so that the settings take effect before torch
starts its thread pool):

* ``ch1-sweep``: part of chapter 1's trained capacity sweep (``capacity_sweep`` at d = 48, the
  page's loads and seeds, 2000 Adam steps, stall stop 400): many small matrix products;
* ``ch6-forward``: chapter 6's hidden-state extraction (SmolLM2, 4-shot SST-2 prompts on shared
  demonstration prefixes, ``prompt_states`` with the page's batching): large matrix products.

Settings, each set in the worker's environment before torch is imported:

* ``default``: torch's own choice (one thread per core, OpenMP's default wait policy);
* ``passive``: ``OMP_WAIT_POLICY=PASSIVE`` (threads sleep instead of spinning while they wait);
* ``one-thread``: ``torch.set_num_threads(1)``;
* ``spin=N``: ``GOMP_SPINCOUNT=N`` (how long OpenMP's workers spin before they sleep);
* ``library``: the library's default (:func:`assocmem.device.share_cores` adapting the thread
  count to the cores other processes leave free).

The first four fix the count (``ASSOCMEM_THREADS``), which turns the library's sharing off. Each
workload runs alone, then beside a competitor started first: ``--rival busy`` (default), one
process spinning on one core, or ``--rival same``, the same workload with torch's defaults in a
second process (a second build on the same cores). On 2 cores a fair share is 2x the time alone.
Prints the seconds and the ratios.

Usage::

    python benchmarks/threads_shared.py [--workloads ch1-sweep ch6-forward] [--loops 15]
        [--settings default passive one-thread library] [--rival busy|same]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

LIB = str(Path(__file__).resolve().parents[1] / "lib")

WORKER = r"""
import json, os, sys, time
sys.path.insert(0, {lib!r})
setting, workload, loops = sys.argv[1], sys.argv[2], int(sys.argv[3])
if setting == "passive":
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
if setting.startswith("spin="):
    os.environ["GOMP_SPINCOUNT"] = setting[5:]
if setting != "library":  # a fixed count: the library's sharing off, torch's defaults
    os.environ["ASSOCMEM_THREADS"] = "1" if setting == "one-thread" else str(
        len(os.sched_getaffinity(0)))
import assocmem  # noqa: F401  (the library's thread policy, unless told to leave torch alone)
import torch
from assocmem.device import configure_threads
configure_threads()  # what every chapter's setup does: ASSOCMEM_THREADS, else the cores


def ch1_sweep():
    from assocmem.linear.measure.sweeps import capacity_sweep
    capacity_sweep(48, [0.8, 1.0, 1.1], seeds=range(4), steps=2000, patience=400,
                   device="cpu", progress=False)


def ch6_setup():
    import numpy as np
    from assocmem.llm.data import load_task
    from assocmem.llm.models import load_model
    from assocmem.llm.prompts import demo_prefixes, make_split, prompt_ids
    lm = load_model("smollm2-135m")
    task = load_task("sst2", verbose=False)
    split = make_split(task, n_ctx=8, n_sel=8, n_test=160, n_pool=32, pool_per_class=16, seed=0)
    pre = demo_prefixes(task, split.pool, k=4, n_prefixes=8, balanced=True)
    which = pre.assign(split.test)
    texts = [pre.texts[w] + task.template.format(x=task.texts[i], y="")
             for w, i in zip(which, split.test)]
    prefixes, queries = prompt_ids(lm, texts, which)
    return lm, prefixes, queries, which


if workload == "ch6-forward":
    from assocmem.llm.states import prompt_states
    lm, prefixes, queries, which = ch6_setup()
    work = lambda: prompt_states(lm, prefixes, queries, which, batch_size=64, max_tokens=512,
                                 cache=False)
else:
    work = ch1_sweep
work()  # warm-up (allocations, thread pool)
print("READY", flush=True)
sys.stdin.readline()  # start together with the competitor
t0 = time.perf_counter()
for _ in range(loops):
    work()
print(json.dumps({{"seconds": time.perf_counter() - t0, "threads": torch.get_num_threads(),
                  "omp": os.environ.get("OMP_WAIT_POLICY", "")}}), flush=True)
"""


def _start(setting: str, workload: str, loops: int, env: dict[str, str]) -> subprocess.Popen:
    code = WORKER.format(lib=LIB)
    proc = subprocess.Popen(
        [sys.executable, "-c", code, setting, workload, str(loops)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:  # the set-up may print (load_model names the model)
        if line.startswith("READY"):
            return proc
    raise RuntimeError(f"worker {setting}/{workload} failed to start (exit {proc.wait()})")


def _finish(proc: subprocess.Popen) -> dict[str, object]:
    assert proc.stdout is not None
    out = proc.stdout.readline()
    while out and not out.startswith("{"):
        out = proc.stdout.readline()
    proc.wait()
    return json.loads(out)


BUSY = "import sys; sys.stdin.readline()\nwhile True: pass"


def run(
    setting: str, workload: str, loops: int, shared: bool, rival_kind: str = "busy"
) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    proc = _start(setting, workload, loops, env)
    rival = None
    if shared and rival_kind == "busy":  # one process spinning on one core
        rival = subprocess.Popen([sys.executable, "-c", BUSY], stdin=subprocess.PIPE, text=True)
    elif shared:  # a second process with torch's defaults, looping the same work meanwhile
        rival = _start("default", workload, 1000, env)
    if rival is not None:
        assert rival.stdin is not None
        rival.stdin.write("\n")
        rival.stdin.flush()
        time.sleep(2.0)  # the rival is busy before the measured run starts
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    result = _finish(proc)
    if rival is not None:
        rival.kill()
        rival.wait()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", nargs="+", default=["ch1-sweep", "ch6-forward"])
    ap.add_argument("--settings", nargs="+", default=["default", "passive", "one-thread",
                                                      "library"])  # fmt: skip
    ap.add_argument("--loops", type=int, default=1)
    ap.add_argument(
        "--rival",
        choices=["busy", "same"],
        default="busy",
        help="busy: one single-threaded busy loop; same: the same workload with "
        "torch's defaults in a second process (a second build)",
    )
    args = ap.parse_args()
    rival = {
        "busy": "one single-threaded busy loop",
        "same": "the same workload with torch's defaults in a second process",
    }[args.rival]
    print(f"cores available: {len(os.sched_getaffinity(0))}; competitor: {rival}")
    print(
        f"{'workload':12s} {'setting':11s} {'threads':>7s} {'alone s':>8s} "
        f"{'shared s':>8s} {'shared/alone':>12s} {'alone/default':>13s}"
    )
    for workload in args.workloads:
        base = None
        for setting in args.settings:
            alone = run(setting, workload, args.loops, shared=False)
            shared = run(setting, workload, args.loops, shared=True, rival_kind=args.rival)
            a, s = float(alone["seconds"]), float(shared["seconds"])  # type: ignore[arg-type]
            base = a if base is None else base
            print(
                f"{workload:12s} {setting:11s} {alone['threads']!s:>7s} {a:8.1f} {s:8.1f} "
                f"{s / a:12.2f} {a / base:13.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
