"""Run every chapter-6 experiment on a chosen model; write one JSON file and the figures.

Usage::

    python -m assocmem.llm --model auto --out results/
    python -m assocmem.llm --model <name> --out results/<name> [--device cpu]

Models: ``--help`` lists them (:data:`assocmem.llm.registry.MODELS`: the paper's model and the
offline stand-in).

Data: ``$ASSOCMEM_DATA_DIR`` (see ``../shared/data/SOURCES.md``), else the hub, else the built-in
examples. Sizes: chapter 6's per-model sizes from the registry (``--n-test`` overrides the test
size). Expected time: measured at Llama-3-8B's size (random weights of its exact architecture in
bf16, ``benchmarks/llm_llama3_gpu.py``) on one H200, the whole run takes about 4 minutes (240 s;
peak 31 GiB; measured with version 0.3.0, whose CPU-side linear probe was about five times
slower than 0.4.0's); the model's download comes on top. An A100
should take about twice as long, an L4 three to four times, a T4 with 4-bit weights about ten
times (estimates from the GPUs' bf16 throughput, not measured). The stand-in on 2 CPU cores: see
chapter 6's build time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from ..stats import Estimate
from .data import load_task
from .experiments import default_layers, run_classification, run_lama
from .models import load_model
from .plots import plot_accuracies, plot_additive, plot_lama, plot_neff, plot_probe
from .prompts import make_split
from .registry import MODELS, PAPER_MODEL, STANDIN

__all__ = ["main"]

K = {"sst2": 4, "ag_news": 4, "trec": 6}  # shots per task, as chapter 6 (balanced)
N_SETS = 8  # demonstration sets, as chapter 6


def _jsonable(x: object) -> object:
    if isinstance(x, Estimate):  # without its resampled draws
        return {"value": x.value, "low": x.low, "high": x.high, "n": x.n, "method": x.method,
                "level": x.level}  # fmt: skip
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _jsonable(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the experiments and write ``results.json`` and PNG figures under ``--out``.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments (None: ``sys.argv``).

    Returns
    -------
    dict
        The summary written to ``results.json`` (rates with their intervals, the per-set ICL
        accuracies, the claims with verdicts, paired comparisons, chosen (layer, lambda), LAMA
        counts, rates and paired comparisons).
    """
    models = "\n".join(f"  {name:14s} {spec.description}" for name, spec in MODELS.items())
    ap = argparse.ArgumentParser(
        prog="python -m assocmem.llm",
        description=__doc__.split("\n")[0],
        epilog=f"models:\n{models}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--model", default="auto", choices=["auto", *MODELS],
                    help=f"auto: {PAPER_MODEL} with a CUDA GPU, a token and the hub, "
                         f"else {STANDIN}")  # fmt: skip
    ap.add_argument("--out", default="llm_results")
    ap.add_argument("--device", default=None, help="GGUF models only: cpu, cuda, ...")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-test", type=int, default=None)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=None,
                    help="most query tokens per forward pass; chapter 6 uses the model's "
                         "registry max_tokens (a budget suits a CPU)")  # fmt: skip
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lm = load_model(args.model, device=args.device)
    layers = default_layers(lm.n_layers)
    lambdas = np.logspace(-2, 1, 13)
    summary: dict[str, object] = {"model": lm.name, "identity": lm.identity, "layers": layers}
    results = []
    for name, (n_ctx, n_sel, n_test) in MODELS[lm.name].sizes.items():
        task = load_task(name)
        per_class = N_SETS * K[name] // len(task.label_words)
        split = make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=args.n_test or n_test,
                           n_pool=N_SETS * K[name], pool_per_class=per_class, seed=args.seed,
                           stratify=name == "ag_news")  # fmt: skip
        res = run_classification(lm, task, split, ks=(K[name],), n_prefixes=N_SETS,
                                 lambdas=lambdas, layers=layers, chat=MODELS[lm.name].instruct,
                                 seed=args.seed, batch_size=args.batch_size,
                                 max_tokens=args.max_tokens)  # fmt: skip
        results.append(res)
        summary[name] = {
            "data": Path(task.source).name,
            "sizes": {
                "ctx": len(split.ctx),
                "sel": len(split.sel),
                "test": len(split.test),
                "pool": len(split.pool),
            },
            "rates": _jsonable(res.rates()),
            "icl_per_set": _jsonable(res.per_set()),
            "claims": _jsonable(res.claims()),
            "comparisons": _jsonable(res.comparisons()),
            "chosen": _jsonable(res.chosen),
            "acc_sel": _jsonable(res.acc_sel),
            "acc_test_exploration": _jsonable(res.acc_test),
            "probe_accuracy": [r.value for r in res.probe.accuracy] if res.probe else None,
            "alignment": _jsonable(res.probe.alignment_mean_ci[0]) if res.probe else None,
        }
        print(name, {k: str(v) for k, v in res.rates().items()})
    lama = run_lama(lm, load_task("lama_p36"), k=4, lambdas=[1.0, 1.5, 2.0],
                    n_prefixes=N_SETS, batch_size=args.batch_size, max_tokens=args.max_tokens,
                    seed=args.seed)  # fmt: skip
    summary["lama_p36"] = {
        "counts": lama.counts,
        "rates": _jsonable(lama.rates()),
        "paired": _jsonable(lama.paired()),
        "effect": _jsonable(lama.effect),
    }
    (out / "results.json").write_text(json.dumps(summary, indent=1))
    figures = {
        "accuracies": plot_accuracies(results),
        "additive": plot_additive(results),
        "neff": plot_neff(results),
        "probe": plot_probe(results),
        "lama": plot_lama(lama),
    }
    for fname, fig in figures.items():
        fig.savefig(out / f"{fname}.png", dpi=100)
    print(f"wrote {out / 'results.json'} and {len(figures)} figures")
    return summary


if __name__ == "__main__":
    main()
