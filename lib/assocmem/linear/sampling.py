"""Sampling linear-memory instances: i.i.d. Gaussian OP/DP problems, one seed each.

:func:`sample_problem` draws one instance ``e_mu, u_mu`` (and for the decoupled problem the
private competitors ``c_{mu, j}``) with i.i.d. ``N(0, I_d / d)`` embeddings; :func:`sample_problems`
draws a batch, problem ``i`` equal to ``sample_problem(seed=seeds[i])``, so every sweep, engine and
chapter that names the same ``(p, d, seed)`` sees the same instance. Before allocating, the size
of the tensors is checked against the free memory of the device (:func:`dp_memory_bytes`,
:func:`check_memory`). The instances are :class:`assocmem.linear.problems.MemoryProblem`.

Source: the embedding law N(0, I/d) is the digest's convention (``factual_recall.md`` §3.1,
reconstruction; see chapter 1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import torch

from assocmem._validate import check_int, check_real, seed_list
from assocmem.device import get_device
from assocmem.linear.problems import MemoryProblem


def dp_memory_bytes(p: int, d: int, batch: int = 1) -> int:
    """Bytes of the DP competitor tensor(s): ``batch * p * (p-1) * d`` float32 numbers.

    Parameters
    ----------
    p, d : int
        Problem size (``p >= 2``, ``d >= 1``).
    batch : int
        Number of problems held at once (>= 1).

    Returns
    -------
    int
        Size in bytes. Example: ``p = 1000, d = 64`` needs 256 MB per problem.
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 1)
    batch = check_int("batch", batch, 1)
    return 4 * batch * p * (p - 1) * d


def _available_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free)
    import psutil

    return int(psutil.virtual_memory().available)


def check_memory(
    nbytes: int,
    device: str | torch.device | None = None,
    *,
    what: str = "tensor",
    fraction: float = 0.8,
) -> None:
    """Raise ``MemoryError`` if ``nbytes`` exceeds ``fraction`` of the memory free on ``device``.

    Parameters
    ----------
    nbytes : int
        Bytes about to be allocated.
    device : str, torch.device or None
        Where: CPU (``psutil`` available memory) or CUDA (``torch.cuda.mem_get_info``).
    what : str
        Name used in the message.
    fraction : float
        Share of the free memory allowed, in (0, 1].

    Raises
    ------
    TypeError, ValueError
        If ``nbytes`` is not an integer >= 0 or ``fraction`` not a real in (0, 1].
    MemoryError
        With the requested and available sizes, before anything is allocated.
    """
    nbytes = check_int("nbytes", nbytes, 0)
    fraction = check_real("fraction", fraction, low=0.0, strict=True)
    if fraction > 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction!r}")
    dev = get_device(device)
    avail = _available_bytes(dev)
    if nbytes > fraction * avail:
        raise MemoryError(
            f"{what} needs {nbytes / 2**30:.2f} GiB but only {avail / 2**30:.2f} GiB are free on "
            f"{dev} (limit {fraction:.0%} of free memory); reduce p, d or the batch of seeds"
        )


def _gen_problem(p: int, d: int, decoupled: bool, seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator(device="cpu").manual_seed(int(seed))
    scale = 1.0 / math.sqrt(d)
    e = torch.randn(p, d, generator=g, dtype=torch.float32).mul_(scale)
    u = torch.randn(p, d, generator=g, dtype=torch.float32).mul_(scale)
    if not decoupled:
        return e, u
    c = torch.randn(p, p - 1, d, generator=g, dtype=torch.float32).mul_(scale)
    return e, u, c


def sample_problem(
    p: int,
    d: int,
    *,
    decoupled: bool = False,
    seed: int = 0,
    device: str | torch.device | None = None,
) -> MemoryProblem:
    """Sample one OP or DP instance with i.i.d. ``N(0, I_d / d)`` embeddings.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 2.
    decoupled : bool
        If True also draw the private competitors (DP), shape (p, p-1, d).
    seed : int
        Seed; the numbers are drawn on the CPU in float32 (inputs, then targets, then competitors)
        and then moved, so a seed gives the same problem on every device, and the OP and DP with
        the same seed share inputs and targets.
    device : str, torch.device or None
        Where the tensors live (:func:`assocmem.device.get_device`).

    Returns
    -------
    MemoryProblem

    Raises
    ------
    TypeError, ValueError
        For non-integer or too small ``p``/``d`` or a non-integer seed.
    MemoryError
        DP only: if the competitor tensor (``4 p (p-1) d`` bytes) would exceed 80 % of the free
        memory of the target device (checked before allocating).

    Notes
    -----
    Source: embedding law N(0, I/d) is the digest's convention (factual_recall.md §3.1,
    reconstruction; see chapter 1).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, got {type(seed).__name__}")
    return sample_problems(p, d, [seed], decoupled=decoupled, device=device)[0]


def sample_problems(
    p: int,
    d: int,
    seeds: int | Iterable[int],
    *,
    decoupled: bool = False,
    device: str | torch.device | None = None,
) -> MemoryProblem:
    """Sample a batch of problems; problem ``i`` equals ``sample_problem(seed=seeds[i])``.

    Parameters
    ----------
    p, d : int
        Problem size (``p >= 2``, ``d >= 2``).
    seeds : int or iterable of int
        The book's rule: an int ``n`` means ``range(n)``; else one seed per problem (distinct).
    decoupled : bool
        OP (False) or DP (True).
    device : str, torch.device or None
        Target device.

    Returns
    -------
    MemoryProblem
        Batched: inputs/targets (B, p, d), competitors (B, p, p-1, d) for the DP.

    Raises
    ------
    TypeError, ValueError
        Bad sizes or seeds.
    MemoryError
        If the DP competitors for the whole batch would not fit (see :func:`check_memory`).
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 2)
    if not isinstance(decoupled, (bool, np.bool_)):
        raise TypeError(f"decoupled must be True or False, got {decoupled!r}")
    seeds_t = tuple(seed_list(seeds))
    if any(s >= 2**63 for s in seeds_t):
        raise ValueError(f"seeds must be < 2**63, got {max(seeds_t)}")
    dev = get_device(device)
    b = len(seeds_t)
    check_memory(2 * 4 * b * p * d, dev, what=f"inputs and targets (B={b}, p={p}, d={d})")
    if decoupled:
        check_memory(dp_memory_bytes(p, d, b), dev, what=f"DP competitors (B={b}, p={p}, d={d})")
    e = torch.empty(b, p, d, dtype=torch.float32, device=dev)
    u = torch.empty_like(e)
    c = torch.empty(b, p, p - 1, d, dtype=torch.float32, device=dev) if decoupled else None
    for i, s in enumerate(seeds_t):
        parts = _gen_problem(p, d, decoupled, s)
        e[i].copy_(parts[0])
        u[i].copy_(parts[1])
        if c is not None:
            c[i].copy_(parts[2])
    return MemoryProblem(e, u, c, seeds_t)
