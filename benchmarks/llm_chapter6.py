"""Where chapter 6's time goes: its experiments at the page's sizes, by phase, and the forward rate.

Runs, for each model asked for, chapter 6's classification experiment on each task (the page's
sizes, k, sets, lambda grid, layers, chat variant, batching) and its LAMA experiment, with the
hidden-state disk cache in a new temporary directory (every state computed and written, as in a
first build), and prints

* seconds per phase: forward passes (``states._extract``: prefixes and query batches), the weights
  digest of the cache key, the whole-vocabulary decodes (N_eff profiles, last-layer scoring), the
  linear probe, the additive-score grid and LAMA's context-effect sweep;
* tokens processed per second in the forward passes (every token a block computed, prefixes and
  padding included), the float32 FLOP rate that is (2 x the blocks' parameters per token, the
  attention over the context left out) and its fraction of the machine's float32 matmul rate
  (square 2048 GEMM, best of 3).

The script reads chapter 6's protocol (``assocmem.llm.protocol``, since 0.9.2); an older checkout
needs the script of its own release for a before/after.

Usage::

    python benchmarks/llm_chapter6.py [--models NAME ...] [--tasks sst2 ...] [--no-lama]

(default: the registry's offline models).

Data: ``$ASSOCMEM_DATA_DIR`` (e.g. ``../shared/data``), else the built-in examples.
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import tempfile
import time

import torch
from assocmem.llm import experiments, states
from assocmem.llm.data import load_task
from assocmem.llm.experiments import run_classification, run_lama
from assocmem.llm.models import load_model
from assocmem.llm.prompts import make_split
from assocmem.llm.protocol import Chapter6Protocol
from assocmem.llm.registry import OFFLINE_MODELS, model_spec

P = Chapter6Protocol()  # chapter 6's (book/06_transformers.md's parameters cell)
PHASES = {  # label: the function timed, wherever a module of the experiments calls it by name
    "forward passes": "_extract",
    "weights digest": "weights_digest",
    "N_eff profiles": "layer_profile",
    "last-layer decode": "_last_layer",
    "linear probe": "probe_accuracy",
    "additive grid": "additive_accuracy",
    "LAMA effect": "lama_context_effect",
}


def matmul_rate(n: int = 2048) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=list(OFFLINE_MODELS))
    ap.add_argument("--tasks", nargs="+", default=list(P.tasks))
    ap.add_argument("--no-lama", action="store_true")
    args = ap.parse_args()
    os.environ["ASSOCMEM_CACHE_DIR"] = tempfile.mkdtemp(prefix="assocmem-bench-")  # cold
    seconds: collections.Counter[str] = collections.Counter()
    for label, name in PHASES.items():  # time every call of each phase
        for module in (experiments, states):
            if not hasattr(module, name):
                continue
            original = getattr(module, name)

            def timed(*a, _f=original, _label=label, **kw):  # type: ignore[no-untyped-def]
                t0 = time.perf_counter()
                try:
                    return _f(*a, **kw)
                finally:
                    seconds[_label] += time.perf_counter() - t0

            setattr(module, name, functools.wraps(original)(timed))
    peak = matmul_rate()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; float32 matmul "
          f"(2048^3): {peak / 1e9:.0f} GFLOP/s")  # fmt: skip
    tasks = {t: load_task(t, verbose=False) for t in args.tasks}
    for model in args.models:
        seconds.clear()
        t0 = time.perf_counter()
        lm, spec = load_model(model), model_spec(model)
        load_s = time.perf_counter() - t0
        tokens = [0]

        def count(_m, inp, _tokens=tokens):  # type: ignore[no-untyped-def]
            _tokens[0] += inp[0].numel()

        handle = lm.embedding.register_forward_pre_hook(count)
        blocks = sum(p.numel() for p in lm.blocks.parameters())
        t0 = time.perf_counter()
        for name, task in tasks.items():
            n_ctx, n_sel, n_test = P.split_sizes(model, name)
            split = make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=n_test,
                               n_pool=P.pool(name),
                               pool_per_class=P.pool(name) // len(task.label_words),
                               seed=P.seed, stratify=name == "ag_news")  # fmt: skip
            run_classification(
                lm, task, split, ks=(P.shots[name],), n_prefixes=P.n_sets, lambdas=P.lambdas,
                layers=P.layers(lm.n_layers), seed=P.seed,
                chat=spec.instruct, n_chat=P.n_chat, batch_size=P.batch_size,
                max_tokens=P.tokens(model), progress=False, one_shot=True,
            )  # fmt: skip
        if not args.no_lama:
            run_lama(
                lm, load_task("lama_p36", verbose=False), k=P.lama_k, lambdas=P.lama_lambdas,
                layers=P.lama_layers(lm.n_layers), n_prefixes=P.n_sets, seed=P.seed,
                n_queries=P.lama_n, batch_size=P.batch_size, max_tokens=P.tokens(model),
                progress=False,
            )  # fmt: skip
        total = time.perf_counter() - t0
        handle.remove()
        fwd = seconds["forward passes"]
        rate = tokens[0] / fwd
        flops = 2 * blocks * rate
        print(f"\n{model}: load {load_s:.1f} s; experiments {total:.1f} s "
              f"({', '.join(args.tasks)}{'' if args.no_lama else ', LAMA'})")  # fmt: skip
        for label in PHASES:
            print(f"  {label:18s} {seconds[label]:7.1f} s  {seconds[label] / total:6.1%}")
        print(f"  forward: {tokens[0]:,} tokens in {fwd:.1f} s = {rate:,.0f} tokens/s, "
              f"{flops / 1e9:.0f} GFLOP/s = {flops / peak:.0%} of the matmul rate")  # fmt: skip


if __name__ == "__main__":
    main()
