"""Sampling linear-memory instances: i.i.d. Gaussian OP/DP problems, one random stream each.

:func:`sample_problem` draws one instance ``e_mu, u_mu`` (and for the decoupled problem the
private competitors ``c_{mu, j}``) with i.i.d. ``N(0, I_d / d)`` embeddings; :func:`sample_problems`
draws a batch. Seeding rule: instance ``i`` of size ``(p, d)`` under the root ``seed`` is drawn from
its own stream :func:`instance_stream` ``= child(seed, d, p, i)`` (:mod:`assocmem.streams`), so
every sweep, engine and chapter that names the same ``(seed, p, d, i)`` sees the same instance,
whatever the batch or order, while instances at other sizes, other indices or other roots are
independent (no two loads of a sweep share a stream). Later steps that need more randomness for
an instance draw from children of its stream: ``child(stream, 0, k)`` the ``k``-th initial
factors of :func:`assocmem.linear.storage.training.train_memory`, ``child(stream, 1)`` the kept
inputs of :func:`assocmem.linear.measure.partial_storage.subset_sweep`. Before allocating, the size
of the tensors is checked against the free memory of the device (:func:`dp_memory_bytes`,
:func:`check_memory`). The instances are :class:`assocmem.linear.instances.problems.MemoryProblem`.

Source: the embedding law N(0, I/d) is the digest's convention (``factual_recall.md`` §3.1,
reconstruction; see chapter 1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import torch

from assocmem._validate import check_fraction, check_int, seed_list
from assocmem.device import get_device
from assocmem.linear.instances.problems import MemoryProblem
from assocmem.streams import Seed, child, torch_generator


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
    fraction = check_fraction("fraction", fraction)
    dev = get_device(device)
    avail = _available_bytes(dev)
    if nbytes > fraction * avail:
        raise MemoryError(
            f"{what} needs {nbytes / 2**30:.2f} GiB but only {avail / 2**30:.2f} GiB are free on "
            f"{dev} (limit {fraction:.0%} of free memory); reduce p, d or the batch of seeds"
        )


def instance_stream(seed: Seed, p: int, d: int, instance: int) -> np.random.SeedSequence:
    """Return the random stream of instance ``instance`` of size ``(p, d)`` under root ``seed``.

    ``child(seed, d, p, instance)`` (:func:`assocmem.streams.child`): the same arguments give the
    same stream; another size, index or root gives an independent one.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The experiment's root.
    p, d : int
        Problem size (>= 2 each).
    instance : int
        The instance's index (label) in the experiment, >= 0.

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    TypeError, ValueError
        If the root or an index is not valid.
    """
    return child(seed, check_int("d", d, 2), check_int("p", p, 2),
                 check_int("instance", instance, 0))  # fmt: skip


def _gen_problem(
    p: int, d: int, decoupled: bool, stream: np.random.SeedSequence
) -> tuple[torch.Tensor, ...]:
    g = torch_generator(stream)
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
    seed: Seed = 0,
    device: str | torch.device | None = None,
) -> MemoryProblem:
    """Sample one OP or DP instance with i.i.d. ``N(0, I_d / d)`` embeddings.

    The instance is instance 0 of the root ``seed``: ``sample_problems(p, d, 1, seed=seed)[0]``.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 2.
    decoupled : bool
        If True also draw the private competitors (DP), shape (p, p-1, d).
    seed : int or numpy.random.SeedSequence
        Root of the stream (:func:`instance_stream`); the numbers are drawn on the CPU in float32
        (inputs, then targets, then competitors) and then moved, so a seed gives the same problem
        on every device, and the OP and DP with the same seed share inputs and targets.
    device : str, torch.device or None
        Where the tensors live (:func:`assocmem.device.get_device`).

    Returns
    -------
    MemoryProblem

    Raises
    ------
    TypeError, ValueError
        For non-integer or too small ``p``/``d`` or a seed that is neither an int >= 0 nor a
        ``SeedSequence``.
    MemoryError
        DP only: if the competitor tensor (``4 p (p-1) d`` bytes) would exceed 80 % of the free
        memory of the target device (checked before allocating).

    Notes
    -----
    Source: embedding law N(0, I/d) is the digest's convention (factual_recall.md §3.1,
    reconstruction; see chapter 1).
    """
    return sample_problems(p, d, [0], seed=seed, decoupled=decoupled, device=device)[0]


def sample_problems(
    p: int,
    d: int,
    seeds: int | Iterable[int],
    *,
    seed: Seed = 0,
    decoupled: bool = False,
    device: str | torch.device | None = None,
) -> MemoryProblem:
    """Sample a batch of problems; problem ``i`` is drawn from its stream, ``instance_stream``.

    Parameters
    ----------
    p, d : int
        Problem size (``p >= 2``, ``d >= 2``).
    seeds : int or iterable of int
        The instances' indices (labels, not seeds): an int ``n`` means ``range(n)``; else one
        distinct index >= 0 per problem. Problem ``i`` is drawn from
        ``instance_stream(seed, p, d, seeds[i])``, so it does not depend on the other indices of
        the batch nor on their order.
    seed : int or numpy.random.SeedSequence
        The experiment's root.
    decoupled : bool
        OP (False) or DP (True).
    device : str, torch.device or None
        Target device.

    Returns
    -------
    MemoryProblem
        Batched: inputs/targets (B, p, d), competitors (B, p, p-1, d) for the DP; ``stream`` the
        tuple of the problems' streams.

    Raises
    ------
    TypeError, ValueError
        Bad sizes, indices or root seed.
    MemoryError
        If the DP competitors for the whole batch would not fit (see :func:`check_memory`).
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 2)
    if not isinstance(decoupled, (bool, np.bool_)):
        raise TypeError(f"decoupled must be True or False, got {decoupled!r}")
    streams_t = tuple(instance_stream(seed, p, d, i) for i in seed_list(seeds))
    dev = get_device(device)
    b = len(streams_t)
    check_memory(2 * 4 * b * p * d, dev, what=f"inputs and targets (B={b}, p={p}, d={d})")
    if decoupled:
        check_memory(dp_memory_bytes(p, d, b), dev, what=f"DP competitors (B={b}, p={p}, d={d})")
    e = torch.empty(b, p, d, dtype=torch.float32, device=dev)
    u = torch.empty_like(e)
    c = torch.empty(b, p, p - 1, d, dtype=torch.float32, device=dev) if decoupled else None
    for i, s in enumerate(streams_t):
        parts = _gen_problem(p, d, decoupled, s)
        e[i].copy_(parts[0])
        u[i].copy_(parts[1])
        if c is not None:
            c[i].copy_(parts[2])
    return MemoryProblem(e, u, c, streams_t)
