"""``python -m assocmem.bridge``: the capacity sweep of chapter 7a, written to the stored table.

Writes :data:`~.capacity.TABLE_PATH` (or ``--out``) with two comment lines: the command and the
library version that made it. Defaults are the stored table's sizes (630 s on this project's
2-core machine, the time the table's header records); on a GPU or with more time raise
``--sizes`` and ``--seeds``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import assocmem
from assocmem.bridge.capacity import TABLE_PATH, capacity_sweep
from assocmem.device import configure_threads

#: The stored table's settings (chapter 7 reruns one point of each curve against it).
SIZES = (8, 10, 12, 16)
SEEDS = 3
STEPS = 1000
ROOT = 7


def main(argv: list[str] | None = None) -> int:
    """Run the sweep and write the table; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m assocmem.bridge", description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--seeds", type=int, default=SEEDS)
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--root", type=int, default=ROOT)
    ap.add_argument("--out", type=Path, default=TABLE_PATH)
    args = ap.parse_args(argv)
    configure_threads()
    start = time.perf_counter()
    table = capacity_sweep(args.sizes, args.seeds, args.root, steps=args.steps)
    seconds = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = "python -m assocmem.bridge " + " ".join(argv if argv is not None else sys.argv[1:])
    with open(args.out, "w") as fh:
        fh.write(f"# made by: {command.strip()}\n")
        fh.write(f"# assocmem {assocmem.__version__}; {seconds:.0f} s\n")
        table.to_csv(fh, index=False)
    print(table.to_string(index=False))
    print(f"wrote {args.out} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
