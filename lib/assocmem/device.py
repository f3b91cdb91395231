"""Device and thread selection for the book's torch computations.

Every heavy function in :mod:`assocmem` takes a ``device=`` argument and passes it through
:func:`get_device`, so the same chapter runs on a laptop CPU, in CI and on a Colab GPU.

Threads that yield. torch runs one worker thread per core, and its OpenMP workers spin while
they wait for each other. On a machine where another process is busy (a second build, a browser,
a shared runner) a worker that is descheduled inside a parallel region holds its partner spinning
at the barrier, on the core the descheduled worker needs: on 2 cores beside one busy process,
chapter 1's training (many small products) ran 20 to 28 times slower and chapter 6's forward passes
9 times slower (``benchmarks/threads_shared.py``), where a fair share of the cores is 2 times.
Sleeping instead of spinning (``OMP_WAIT_POLICY=PASSIVE``) or one thread per process avoid that,
but made chapter 1's training 2.5 and 1.8 times slower on an idle machine. The library therefore
*shares the cores*: the heavy loops (training steps, hidden-state batches) call
:func:`share_cores` between units of work, which looks at how much CPU the other processes used
since its last look (``/proc/stat`` on the cores it may run on, against this process's own CPU
time, at most every 0.25 s)
and sets torch's thread count to the cores they leave free (at least one). Measured: 1.8 times
the time alone beside a busy process, and within 3 % of torch's default alone. The training
engine gives the same bits at any thread count (``tests/shared/test_foundation.py``), so its
numbers do not depend on how busy the machine was; a language model's forward pass can differ
in the last bits of a float between thread counts (seen with SmolLM2 at one thread).

``ASSOCMEM_THREADS=N`` (or :func:`configure_threads` with an ``n``) fixes the count instead and
turns the sharing off; off Linux (no ``/proc/stat``) the count stays fixed too.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
import torch

from assocmem.streams import torch_generator

__all__ = [
    "get_device",
    "configure_threads",
    "share_cores",
    "describe_device",
    "make_generator",
]


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
        else the number of CPU cores available to this process (``os.sched_getaffinity``). A
        count given either way is fixed (:func:`share_cores` leaves it alone); with neither, it
        starts at the cores and :func:`share_cores` adapts it to how busy the machine is.

    Returns
    -------
    int
        The number of threads now in use.

    Raises
    ------
    ValueError
        If ``n`` (or ``ASSOCMEM_THREADS``) is not a positive integer.
    """
    fixed = n is not None or "ASSOCMEM_THREADS" in os.environ
    if n is None:
        env = os.environ.get("ASSOCMEM_THREADS")
        if env is not None:
            try:
                n = int(env)
            except ValueError as exc:
                raise ValueError(f"ASSOCMEM_THREADS={env!r} is not an integer") from exc
        else:
            n = _cores()
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer number of threads, got {n!r}")
    torch.set_num_threads(n)
    _SHARE.fixed = fixed
    return torch.get_num_threads()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _busy_seconds() -> float | None:
    """CPU seconds the cores this process may run on have been busy since boot, None off Linux.

    Summed over the ``cpuN`` lines of ``/proc/stat`` for the cores in this process's affinity
    mask (in a container pinned to some cores of a larger machine, the others do not count).
    """
    try:
        with open("/proc/stat", "rb") as f:
            lines = f.read().splitlines()
        mine = {f"cpu{i}".encode() for i in os.sched_getaffinity(0)}
    except (OSError, AttributeError):
        return None
    busy = 0
    for line in lines:
        fields = line.split()
        if fields and fields[0] in mine:  # user nice system idle iowait irq softirq steal
            ticks = [int(x) for x in fields[1:9]]
            busy += sum(ticks) - ticks[3] - ticks[4]
    return busy / _HZ if mine else None


_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Share:
    """The state of :func:`share_cores`: the last look, and whether the count is fixed."""

    def __init__(self) -> None:
        self.fixed = "ASSOCMEM_THREADS" in os.environ
        self.last: tuple[float, float, float] | None = None  # wall, all busy, own CPU seconds
        self.others = 0.0


_SHARE = _Share()
SHARE_INTERVAL = 0.25  # seconds between two looks at the machine (one /proc/stat read each)


def share_cores() -> int:
    """Set torch's thread count to the cores that other processes leave free; return it.

    Called by the library's heavy loops between units of work (a training step, a batch of
    prompts); cheap (a clock read) except at most every :data:`SHARE_INTERVAL` seconds, when it
    reads ``/proc/stat``. Over the time since its last look, the other processes' CPU use is the
    machine's busy time less this process's own CPU time (:func:`time.process_time`), in cores;
    the thread count becomes ``round(cores - others)``, at least 1 and at most the cores this
    process may run on. The first call only takes a first look. Does nothing when the count was
    fixed (``ASSOCMEM_THREADS``, :func:`configure_threads` with ``n``) or off Linux.

    Returns
    -------
    int
        torch's thread count now.

    Examples
    --------
    >>> 1 <= share_cores() <= os.cpu_count()
    True
    """
    if _SHARE.fixed:
        return torch.get_num_threads()
    now = time.monotonic()
    last = _SHARE.last
    if last is not None and now - last[0] < SHARE_INTERVAL:
        return torch.get_num_threads()
    busy = _busy_seconds()
    if busy is None:
        _SHARE.fixed = True
        return torch.get_num_threads()
    own = time.process_time()
    _SHARE.last = (now, busy, own)
    if last is None:
        return torch.get_num_threads()
    wall = now - last[0]
    _SHARE.others = max(0.0, (busy - last[1]) - (own - last[2])) / wall
    cores = _cores()
    n = max(1, min(cores, math.floor(cores - _SHARE.others + 0.5)))
    if n != torch.get_num_threads():
        torch.set_num_threads(n)
    return n


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


def make_generator(seed: int | np.random.SeedSequence | torch.Generator) -> torch.Generator:
    """Return a CPU :class:`torch.Generator` for ``seed``, or ``seed`` itself if it is one.

    The book's one way to turn a ``seed`` argument into a torch random stream: the same seed gives
    the same numbers (DESIGN.md, conventions). A generator passed in is returned unchanged, so a
    caller can draw several things from one stream in a fixed order.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or torch.Generator
        A root seed >= 0 or a stream (seeded by :func:`assocmem.streams.torch_generator`), or an
        existing generator.

    Returns
    -------
    torch.Generator
        On the CPU (draw on the CPU and move the result with ``.to(device)``, so that CPU and GPU
        runs see the same numbers).

    Raises
    ------
    TypeError
        If ``seed`` is neither an integer (a bool is refused), a ``SeedSequence`` nor a
        :class:`torch.Generator`.
    ValueError
        If ``seed`` is a negative integer.
    """
    if isinstance(seed, torch.Generator):
        return seed
    if not isinstance(seed, (int, np.integer, np.random.SeedSequence)) or isinstance(seed, bool):
        raise TypeError(
            "seed must be an int >= 0, a numpy.random.SeedSequence or a torch.Generator, "
            f"got {type(seed).__name__}"
        )
    return torch_generator(seed)
