"""Device and thread selection for the book's torch computations.

Every heavy function in :mod:`assocmem` takes a ``device=`` argument and passes it through
:func:`get_device`, so the same chapter runs on a laptop CPU, in CI and on a Colab GPU.
"""

from __future__ import annotations

import os

import numpy as np
import torch

from assocmem._validate import check_int

__all__ = ["get_device", "configure_threads", "describe_device", "make_generator"]


def get_device(device: str | torch.device | None = None) -> torch.device:
    """Resolve a device request to a :class:`torch.device`.

    Parameters
    ----------
    device : str, torch.device or None
        ``None`` or ``"auto"`` picks CUDA when a CUDA device is available, else the CPU.
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"`` or a :class:`torch.device` are taken as given
        after checking that the device exists.

    Returns
    -------
    torch.device
        The resolved device.

    Raises
    ------
    TypeError
        If ``device`` is not ``None``, a string or a :class:`torch.device`.
    ValueError
        If the string does not name a torch device, or names CUDA/MPS when none is available.
    """
    if device is None or (isinstance(device, str) and device.strip().lower() == "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if isinstance(device, torch.device):
        dev = device
    elif isinstance(device, str):
        try:
            dev = torch.device(device.strip())
        except RuntimeError as exc:
            raise ValueError(
                f"device={device!r} is not a torch device; use None, 'auto', 'cpu' or 'cuda[:i]'"
            ) from exc
    else:
        raise TypeError(
            f"device must be None, a string or a torch.device, got {type(device).__name__}"
        )
    if dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(
            f"device={str(dev)!r}: the book runs on None, 'auto', 'cpu', 'cuda[:i]' or 'mps'"
        )
    if dev.type == "cpu" and dev.index not in (None, 0):
        raise ValueError(f"device={str(dev)!r}: use 'cpu' (there is one CPU device)")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device={str(dev)!r} requested but no CUDA device is available")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(
                f"device={str(dev)!r}: only {torch.cuda.device_count()} CUDA device(s) exist"
            )
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError("device='mps' requested but MPS is not available on this machine")
    return dev


def configure_threads(n: int | None = None) -> int:
    """Set the number of CPU threads torch uses for intra-op parallelism.

    Parameters
    ----------
    n : int or None
        Number of threads. ``None`` uses the environment variable ``ASSOCMEM_THREADS`` if set,
        else the number of CPU cores available to this process (``os.sched_getaffinity``).

    Returns
    -------
    int
        The number of threads now in use.

    Raises
    ------
    ValueError
        If ``n`` (or ``ASSOCMEM_THREADS``) is not a positive integer.
    """
    if n is None:
        env = os.environ.get("ASSOCMEM_THREADS")
        if env is not None:
            try:
                n = int(env)
            except ValueError as exc:
                raise ValueError(f"ASSOCMEM_THREADS={env!r} is not an integer") from exc
        else:
            try:
                n = len(os.sched_getaffinity(0))
            except AttributeError:  # not on Linux
                n = os.cpu_count() or 1
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer number of threads, got {n!r}")
    torch.set_num_threads(n)
    return torch.get_num_threads()


def describe_device(device: str | torch.device | None = None) -> str:
    """One line naming the resolved device, for a chapter's printed set-up line.

    Parameters
    ----------
    device : str, torch.device or None
        As for :func:`get_device`.

    Returns
    -------
    str
        E.g. ``"cpu (2 threads)"`` or ``"cuda:0 (NVIDIA A100, 40.0 GiB)"``.
    """
    dev = get_device(device)
    if dev.type == "cuda":
        idx = dev.index if dev.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(idx)
        return f"cuda:{idx} ({props.name}, {props.total_memory / 2**30:.1f} GiB)"
    if dev.type == "cpu":
        return f"cpu ({torch.get_num_threads()} threads)"
    return str(dev)


def make_generator(seed: int | torch.Generator) -> torch.Generator:
    """Return a CPU :class:`torch.Generator` for ``seed``, or ``seed`` itself if it is one.

    The book's one way to turn a ``seed`` argument into a torch random stream: the same seed gives
    the same numbers (DESIGN.md, conventions). A generator passed in is returned unchanged, so a
    caller can draw several things from one stream in a fixed order.

    Parameters
    ----------
    seed : int or torch.Generator
        An integer >= 0 (``torch.Generator().manual_seed(seed)``) or an existing generator.

    Returns
    -------
    torch.Generator
        On the CPU (draw on the CPU and move the result with ``.to(device)``, so that CPU and GPU
        runs see the same numbers).

    Raises
    ------
    TypeError
        If ``seed`` is neither an integer (a bool is refused) nor a :class:`torch.Generator`.
    ValueError
        If ``seed`` is a negative integer.
    """
    if isinstance(seed, torch.Generator):
        return seed
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int >= 0 or a torch.Generator, got {type(seed).__name__}")
    return torch.Generator().manual_seed(check_int("seed", seed, 0))
