"""Throughput of hidden-state extraction vs the model's plain batched forward (chapter 6).

Measures real (non-pad) prompt tokens per second on the same k-shot SST-2 prompts for

* ``extraction``: :func:`assocmem.llm.states.last_token_states` (length-sorted batches, left
  padding, hooks keeping the last position of every layer, no LM head);
* ``plain forward``: ``model(**tokenizer(batch, padding=True))`` on the same length-sorted
  batches (full logits, as a user would call it);
* ``plain forward, unsorted``: the same on batches in data order;
* ``shared prefixes``: :func:`assocmem.llm.states.prompt_states` with the 4 demonstration
  prefixes' key/value caches computed once; its tokens/s counts the full prompts, so it can
  exceed the plain forward's;
* ``shared prefixes, token budget``: the same with batches of up to 64 prompts holding at most
  ``--max-tokens`` query tokens (what chapter 6 runs on a CPU: each forward pass streams all the
  weights, so the batch size follows the prompts' length).

Target: extraction >= 80% of the plain forward's tokens/s.

Usage::

    python benchmarks/llm_throughput.py [--model auto] [--n 48] [--k 4] [--batch-size 16]
        [--max-tokens 512]

Data: ``$ASSOCMEM_DATA_DIR`` (e.g. ``../shared/data``), else the built-in examples.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch
from assocmem.llm.data import load_task
from assocmem.llm.models import load_model
from assocmem.llm.prompts import demo_prefixes, encode, make_split
from assocmem.llm.states import last_token_states, prompt_states


def plain_forward(lm, prompts: list[str], batch_size: int, sort: bool) -> None:  # type: ignore[no-untyped-def]
    tok = lm.tokenizer
    order = np.arange(len(prompts))
    if sort:
        order = np.argsort([-len(tok.encode(p)) for p in prompts], kind="stable")
    for start in range(0, len(prompts), batch_size):
        batch = [prompts[i] for i in order[start : start + batch_size]]
        enc = tok(batch, padding=True, return_tensors="pt").to(lm.device)
        with torch.inference_mode():
            lm.model(**enc, use_cache=False)


def best_of(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="auto")
    ap.add_argument("--n", type=int, default=48, help="number of prompts")
    ap.add_argument("--k", type=int, default=4, help="demonstrations per prompt")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    lm = load_model(args.model)
    task = load_task("sst2", verbose=True)
    split = make_split(task, n_ctx=1, n_sel=1, n_test=args.n, seed=0, verbose=False)
    pre = demo_prefixes(task, split.pool, k=args.k, n_prefixes=4, seed=0)
    which = pre.assign(split.test)
    queries = [task.template.format(x=task.texts[i], y="") for i in split.test]
    prompts = [pre.texts[j] + q for j, q in zip(which, queries, strict=True)]
    pre_ids = [encode(lm, t) for t in pre.texts]
    q_ids = [encode(lm, q) for q in queries]
    n_tokens = sum(len(lm.tokenizer.encode(p)) for p in prompts)
    print(
        f"{len(prompts)} prompts, {n_tokens} real tokens (mean {n_tokens / len(prompts):.0f}), "
        f"batch size {args.batch_size}, torch threads {torch.get_num_threads()}, "
        f"best of {args.repeats}"
    )
    # warm-up
    last_token_states(lm, prompts[: args.batch_size], batch_size=args.batch_size, progress=False)

    runs = {
        "extraction (all layers, last token)": lambda: last_token_states(
            lm, prompts, batch_size=args.batch_size, progress=False
        ),
        "shared prefixes (KV cache, chapter 6)": lambda: prompt_states(
            lm, pre_ids, q_ids, which, batch_size=args.batch_size, cache=False, progress=False
        ),
        f"shared prefixes, <= {args.max_tokens} tokens/batch": lambda: prompt_states(
            lm,
            pre_ids,
            q_ids,
            which,
            batch_size=64,
            max_tokens=args.max_tokens,
            cache=False,
            progress=False,
        ),
        "plain forward (sorted batches)": lambda: plain_forward(
            lm, prompts, args.batch_size, sort=True
        ),
        "plain forward (unsorted batches)": lambda: plain_forward(
            lm, prompts, args.batch_size, sort=False
        ),
    }
    rates = {}
    for name, fn in runs.items():
        seconds = best_of(fn, args.repeats)
        rates[name] = n_tokens / seconds
        print(f"{name:40s} {seconds:7.2f} s  {rates[name]:8.0f} tokens/s")
    ratio = rates["extraction (all layers, last token)"] / rates["plain forward (sorted batches)"]
    print(f"extraction / plain forward (sorted) = {ratio:.2f}  (target >= 0.80)")


if __name__ == "__main__":
    main()
