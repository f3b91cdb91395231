"""GPU time of chapter 6's experiments at Llama-3-8B's real size, without the weights.

Builds a randomly initialised ``LlamaForCausalLM`` with Llama-3-8B's exact configuration (32
layers, d = 4096, GQA 32/8 heads, FFN 14336, vocabulary 128,256, rope theta 500000, untied) in
bfloat16 on the GPU, with the real Llama-3 tokenizer, injects it into
``load_model(PAPER_MODEL, loader=...)`` and runs the chapter's experiments with its protocol's
Llama-3-8B sizes (``assocmem.llm.protocol.Chapter6Protocol``, as ``python -m assocmem.llm``).
The accuracies are meaningless (random weights); the times are those of the real model's forward
passes and decoding.

Usage::

    python benchmarks/llm_llama3_gpu.py --tokenizer ../shared/llama3_tokenizer [--json out.json]

Data: ``$ASSOCMEM_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import json
import time

import torch
from assocmem.llm.data import load_task
from assocmem.llm.experiments import run_classification, run_lama
from assocmem.llm.models import load_model
from assocmem.llm.prompts import make_split
from assocmem.llm.protocol import Chapter6Protocol
from assocmem.llm.registry import PAPER_MODEL

P = Chapter6Protocol()  # chapter 6's


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--batch-size", type=int, default=P.batch_size)
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
    for name in P.tasks:
        n_ctx, n_sel, n_test = P.split_sizes(PAPER_MODEL, name)
        t = time.perf_counter()
        task = load_task(name)
        k = P.shots[name]
        split = make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=n_test, n_pool=P.pool(name),
                           pool_per_class=P.pool(name) // len(task.label_words), seed=P.seed,
                           stratify=name == "ag_news")  # fmt: skip
        run_classification(lm, task, split, ks=(k,), n_prefixes=P.n_sets, lambdas=P.lambdas,
                           layers=P.layers(lm.n_layers), n_chat=P.n_chat, seed=P.seed,
                           cache=False, batch_size=args.batch_size,
                           max_tokens=P.tokens(PAPER_MODEL))  # fmt: skip
        torch.cuda.synchronize()
        times[name] = time.perf_counter() - t
        print(f"{name}: {times[name]:.1f} s", flush=True)
    t = time.perf_counter()
    run_lama(lm, load_task("lama_p36"), k=P.lama_k, lambdas=P.lama_lambdas,
             n_prefixes=P.n_sets, seed=P.seed, cache=False, batch_size=args.batch_size,
             max_tokens=P.tokens(PAPER_MODEL))  # fmt: skip
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
