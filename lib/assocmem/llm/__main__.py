"""Run every chapter-6 experiment on a chosen model; write one JSON file and the figures.

Usage::

    python -m assocmem.llm --model auto --out results/
    python -m assocmem.llm --model <name> --out results/<name> [--device cpu]

Models: ``--help`` lists them (:data:`assocmem.llm.registry.MODELS`: the paper's model and the
offline stand-in).

Data: ``$ASSOCMEM_DATA_DIR`` (see ``../shared/data/SOURCES.md``), else the hub, else the built-in
examples. Protocol: chapter 6's, :class:`assocmem.llm.protocol.Chapter6Protocol` (tasks, shots,
sets, sizes per model, batching, layers, thresholds); the options' defaults are its values
(``--n-test`` overrides the test size, ``--lama-layer-step 1`` suits a GPU). A model that cannot
be loaded stops the run with the reason, unless ``--fallback`` lets the stand-in run in its place
(the results then carry the stand-in's name).

Expected time: measured at Llama-3-8B's size (random weights of its exact architecture in bf16,
``benchmarks/llm_llama3_gpu.py``) on one H200, chapter 6's earlier protocol (1- and 4-shot, four
sets, no controls; version 0.3.0) took about 4 minutes (240 s, peak 31 GiB); the present
protocol runs more prompts and has not been timed on a GPU. The model's download comes on top.
The stand-in on 2 CPU cores: see chapter 6's build time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from assocmem._validate import check_directory, check_int
from assocmem.estimate import Estimate
from assocmem.llm.data import load_task
from assocmem.llm.experiments import protocol_split, run_protocol_lama, run_protocol_task
from assocmem.llm.models import load_model
from assocmem.llm.plots import plot_accuracies, plot_additive, plot_lama, plot_neff, plot_probe
from assocmem.llm.protocol import Chapter6Protocol
from assocmem.llm.registry import MODELS, PAPER_MODEL, STANDIN

__all__ = ["main", "build_parser", "protocol_from_args"]

#: The page's protocol: the options' defaults.
_PAGE = Chapter6Protocol()


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


def _count(name: str, minimum: int) -> Callable[[str], int]:
    """Return an argparse ``type``: an integer >= ``minimum`` (``_validate.check_int``)."""

    def parse(text: str) -> int:
        try:
            return check_int(name, int(text), minimum)
        except ValueError as exc:  # int("x") or below the minimum: argparse prints usage
            raise argparse.ArgumentTypeError(
                f"{name} must be an integer >= {minimum}, got {text!r}"
            ) from exc

    return parse


def build_parser() -> argparse.ArgumentParser:
    """Return the command line's parser; its defaults are the page's protocol.

    Every option is checked while parsing (sizes >= 1, ``--n-sets`` >= 2, ``--seed`` >= 0), so
    a bad value stops the run with argparse's usage message before any model is loaded.
    """
    models = "\n".join(f"  {name:14s} {spec.description}" for name, spec in MODELS.items())
    ap = argparse.ArgumentParser(
        prog="python -m assocmem.llm",
        description=(__doc__ or "").split("\n")[0],
        epilog=f"models:\n{models}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--model", default="auto", choices=["auto", *MODELS],
                    help=f"auto: {PAPER_MODEL} with a CUDA GPU, a token and the hub, "
                         f"else {STANDIN}")  # fmt: skip
    ap.add_argument("--fallback", action="store_true",
                    help=f"run the stand-in {STANDIN} when the model cannot be loaded "
                         "(default: stop with the reason)")  # fmt: skip
    ap.add_argument("--out", default="llm_results")
    ap.add_argument("--device", default=None, help="GGUF models only: cpu, cuda, ...")
    ap.add_argument("--seed", type=_count("--seed", 0), default=_PAGE.seed)
    ap.add_argument("--n-test", type=_count("--n-test", 1), default=None,
                    help="test queries per task (default: the protocol's size for the "
                         "model)")  # fmt: skip
    ap.add_argument("--n-sets", type=_count("--n-sets", 2), default=_PAGE.n_sets)
    ap.add_argument("--batch-size", type=_count("--batch-size", 1), default=_PAGE.batch_size)
    ap.add_argument("--max-tokens", type=_count("--max-tokens", 1), default=None,
                    help="most query tokens per forward pass (default: the protocol's budget "
                         "for the model; a budget suits a CPU)")  # fmt: skip
    ap.add_argument("--lama-layer-step", type=_count("--lama-layer-step", 1),
                    default=_PAGE.lama_layer_step)  # fmt: skip
    return ap


def protocol_from_args(args: argparse.Namespace) -> Chapter6Protocol:
    """Return the page's protocol with the options that differ from its defaults applied.

    ``--n-test`` replaces the test size of every task of every model, ``--max-tokens`` the
    budget of every model.
    """
    proto = _PAGE.replace(seed=args.seed, n_sets=args.n_sets, batch_size=args.batch_size,
                          lama_layer_step=args.lama_layer_step)  # fmt: skip
    if args.n_test is not None:
        sizes = {m: {t: (c, s, args.n_test) for t, (c, s, _) in by_task.items()}
                 for m, by_task in proto.sizes.items()}  # fmt: skip
        proto = proto.replace(sizes=sizes)
    if args.max_tokens is not None:
        proto = proto.replace(max_tokens={m: args.max_tokens for m in proto.max_tokens})
    return proto


def main(argv: list[str] | None = None) -> dict[str, object]:
    """Run the experiments and write ``results.json`` and PNG figures under ``--out``.

    Parameters
    ----------
    argv : list of str or None
        Command-line arguments (None: ``sys.argv``).

    Returns
    -------
    dict
        The summary written to ``results.json``: the model that ran (its registry name and
        identity), the protocol, and per task the rates with their intervals, the per-set ICL
        accuracies, the claims with verdicts, paired comparisons, chosen (layer, lambda); LAMA
        counts, rates and paired comparisons.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # every check before the model is loaded (30 s for the stand-in, minutes from the hub)
        out = check_directory("--out", args.out, must_exist=False)
        proto = protocol_from_args(args)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    out.mkdir(parents=True, exist_ok=True)
    lm = load_model(args.model, device=args.device, fallback=args.fallback)
    layers = proto.layers(lm.n_layers)
    summary: dict[str, object] = {"model": lm.name, "requested": args.model,
                                  "identity": lm.identity, "layers": layers,
                                  "protocol": proto.as_dict()}  # fmt: skip
    results = []
    for name in proto.tasks:
        task = load_task(name)
        split = protocol_split(task, lm.name, proto)
        res = run_protocol_task(lm, task, split, proto)
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
            "claims": _jsonable(res.claims().summary()),
            "comparisons": _jsonable(res.comparisons()),
            "chosen": _jsonable(res.chosen),
            "acc_sel": _jsonable(res.acc_sel),
            "acc_test_exploration": _jsonable(res.acc_test),
            "probe_accuracy": [r.value for r in res.probe.accuracy] if res.probe else None,
            "alignment": _jsonable(res.probe.alignment_mean_ci[0]) if res.probe else None,
        }
        print(name, {k: str(v) for k, v in res.rates().items()})
    lama = run_protocol_lama(lm, load_task("lama_p36"), proto)
    summary["lama_p36"] = {
        "counts": lama.counts,
        "rates": _jsonable(lama.rates()),
        "paired": _jsonable(lama.paired().summary()),
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
    print(f"wrote {out / 'results.json'} and {len(figures)} figures ({lm.name})")
    return summary


if __name__ == "__main__":
    main()
