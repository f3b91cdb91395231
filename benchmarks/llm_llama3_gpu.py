"""GPU time of chapter 6's experiments at Llama-3-8B's real size, without the weights.

Builds a randomly initialised ``LlamaForCausalLM`` with Llama-3-8B's exact configuration (32
layers, d = 4096, GQA 32/8 heads, FFN 14336, vocabulary 128,256, rope theta 500000, untied) in
bfloat16 on the GPU, with the real Llama-3 tokenizer, injects it into
``load_model(PAPER_MODEL, loader=...)`` and runs the chapter's experiments with the registry's
Llama-3-8B sizes (those of ``python -m assocmem.llm``). The accuracies are meaningless (random
weights); the times are those of the real model's forward passes and decoding.

Usage::

    python benchmarks/llm_llama3_gpu.py --tokenizer ../shared/llama3_tokenizer [--json out.json]

Data: ``$ASSOCMEM_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from assocmem.llm.data import load_task
from assocmem.llm.experiments import run_classification, run_lama
from assocmem.llm.models import load_model
from assocmem.llm.prompts import make_split
from assocmem.llm.registry import MODELS, PAPER_MODEL


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    t0 = time.perf_counter()
    cfg = LlamaConfig(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, rope_theta=500000.0,
        max_position_embeddings=8192, rms_norm_eps=1e-5, tie_word_embeddings=False,
        bos_token_id=128000, eos_token_id=128001,
    )  # fmt: skip
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg).to(torch.bfloat16).eval()
    tok = AutoTokenizer.from_pretrained(args.tokenizer)
    lm = load_model(PAPER_MODEL, loader=lambda *_: (model, tok, "random-llama3-8b-shape"))
    times: dict[str, float] = {"build": time.perf_counter() - t0}
    lambdas = np.logspace(-2, 1, 13)
    for name, (n_ctx, n_sel, n_test) in MODELS[PAPER_MODEL].sizes.items():
        t = time.perf_counter()
        task = load_task(name)
        k = {"sst2": 4, "ag_news": 4, "trec": 6}[name]  # chapter 6's K and N_SETS = 8
        split = make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=n_test, n_pool=8 * k,
                           pool_per_class=8 * k // len(task.label_words), seed=0,
                           stratify=name == "ag_news")  # fmt: skip
        run_classification(lm, task, split, ks=(k,), n_prefixes=8, lambdas=lambdas,
                           cache=False, batch_size=args.batch_size)  # fmt: skip
        torch.cuda.synchronize()
        times[name] = time.perf_counter() - t
        print(f"{name}: {times[name]:.1f} s", flush=True)
    t = time.perf_counter()
    run_lama(lm, load_task("lama_p36"), k=4, lambdas=[1.0, 1.5, 2.0], n_prefixes=8,
             cache=False, batch_size=args.batch_size)  # fmt: skip
    torch.cuda.synchronize()
    times["lama_p36"] = time.perf_counter() - t
    times["total"] = sum(times.values())
    times["peak_gib"] = torch.cuda.max_memory_allocated() / 2**30
    print(json.dumps(times, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(times, f, indent=1)


if __name__ == "__main__":
    main()
