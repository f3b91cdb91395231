#!/usr/bin/env python3
"""Re-fetch the vendored JavaScript at its pinned npm versions and check its SHA-256 sums.

The book serves require.js and the Jupyter widget manager from its own ``_static/vendor/`` so that
a page read offline (file://, behind a firewall) still renders its widgets; see README.md here.

    python _static/vendor/update.py            # fetch the pinned versions with `npm pack`, compare
                                               # them with SHA256SUMS and the committed files
    python _static/vendor/update.py --check    # offline: committed files against SHA256SUMS
    python _static/vendor/update.py --write    # after changing a pin below: fetch, overwrite the
                                               # files and rewrite SHA256SUMS

Only the maintainer who bumps a version needs npm (its ordinary client checks each tarball's
registry integrity); readers and builders use the committed files. The licence texts
(``*/LICENSE``) are not in the npm tarballs and are committed by hand (see README.md).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMS = HERE / "SHA256SUMS"

IPYWIDGETS = "8.1.9"  # the ipywidgets of requirements-lock.txt these pins serve (a test compares)

# npm package -> (pinned version, {path inside the tarball: path under _static/vendor/}).
# html-manager 1.0.15 is the release of ipywidgets 8.1.9 (requirements-lock.txt): it bundles
# @jupyter-widgets/base 6.0.12, controls 5.0.13 and output 6.0.12, as jupyterlab_widgets 3.0.17.
PINS: dict[str, tuple[str, dict[str, str]]] = {
    "requirejs": ("2.3.8", {"package/require.js": "requirejs/require.js"}),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        {
            "package/dist/embed-amd.js": "jupyter-widgets/embed-amd.js",
            "package/dist/embed.js.LICENSE.txt": "jupyter-widgets/embed.js.LICENSE.txt",
        },
    ),
}


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_sums(path: Path = SUMS) -> dict[str, str]:
    """``sha256sum`` format: ``<hex>  <relative path>`` per line."""
    sums = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split(maxsplit=1)
            sums[name.strip().lstrip("*")] = digest
    return sums


def check_committed() -> list[str]:
    """Problems with the committed files (empty when each matches SHA256SUMS)."""
    problems = []
    sums = read_sums()
    wanted = {dest for _, files in PINS.values() for dest in files.values()}
    if set(sums) != wanted:
        problems.append(f"SHA256SUMS lists {sorted(sums)}, the pins name {sorted(wanted)}")
    for name, digest in sums.items():
        path = HERE / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif sha256(path) != digest:
            problems.append(f"{name}: sha256 {sha256(path)} != {digest} in SHA256SUMS")
    return problems


def fetch(workdir: Path) -> dict[str, Path]:
    """Download each pinned tarball with `npm pack`; return {vendor path: extracted file}."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed to fetch the packages (it is not needed to build the book)")
    out: dict[str, Path] = {}
    for package, (version, files) in PINS.items():
        spec = f"{package}@{version}"
        name = subprocess.run(
            [npm, "pack", spec, "--silent", "--pack-destination", str(workdir)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        target = workdir / package.replace("/", "__")
        with tarfile.open(workdir / name) as tar:
            tar.extractall(target, filter="data")
        for inner, dest in files.items():
            src = target / inner
            if not src.is_file():
                sys.exit(f"{spec}: no {inner} in the tarball")
            out[dest] = src
    return out


def main() -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="offline check of committed files")
    mode.add_argument("--write", action="store_true", help="overwrite files and SHA256SUMS")
    args = parser.parse_args()

    if args.check:
        problems = check_committed()
        print("\n".join(problems) or "vendored files match SHA256SUMS")
        return 1 if problems else 0

    with tempfile.TemporaryDirectory() as tmp:
        fetched = fetch(Path(tmp))
        if args.write:
            for dest, src in fetched.items():
                (HERE / dest).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, HERE / dest)
            lines = [f"{sha256(HERE / d)}  {d}" for d in sorted(fetched)]
            SUMS.write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"wrote {len(fetched)} files and SHA256SUMS; update README.md's table")
            return 0
        sums = read_sums()
        problems = [
            f"{dest}: fetched sha256 {sha256(src)} != {sums.get(dest)} in SHA256SUMS"
            for dest, src in fetched.items()
            if sha256(src) != sums.get(dest)
        ]
        problems += check_committed()
    print("\n".join(problems) or "fetched packages and committed files match SHA256SUMS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
