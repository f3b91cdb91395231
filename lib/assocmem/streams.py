"""Random streams: one root seed per experiment, independent children per instance.

The book's one rule for randomness (DESIGN.md, conventions): an experiment takes one root
``seed`` (an int >= 0 or a :class:`numpy.random.SeedSequence`) and draws each of its instances
from its own child stream, never from arithmetic on the seed (adding an index to it). A child is
keyed by the instance's place in the experiment, so it does not depend on how the instances are
batched or in which order they run:

- :func:`child` — the child with key ``(k1, k2, ...)``:
  ``SeedSequence(root, spawn_key=(k1, k2, ...))``. This is exactly the child that ``spawn`` hands
  out: ``child(s, i)`` equals ``SeedSequence(s).spawn(i + 1)[i]`` and ``child(s, i, j)`` equals
  ``SeedSequence(s).spawn(i + 1)[i].spawn(j + 1)[j]`` (the same state, hence the same numbers).
  A key may also be a name (a ``str``: one purpose of a root, e.g. ``child(seed, "split")``),
  which stands for the integer ``2**32 + crc32(name)`` (:func:`key_of`), above every position.
- :func:`streams` — ``SeedSequence(root).spawn(n)``, without changing the root (a
  ``SeedSequence`` passed in is not advanced, so the same root always gives the same children).
- :func:`numpy_rng` and :func:`torch_generator` — a numpy ``Generator`` or a CPU
  :class:`torch.Generator` seeded from a stream (the one conversion in the library).

Streams with different keys, or different roots, are independent (numpy's ``SeedSequence``
hashes root and key into the state). ``numpy_rng(int)`` equals ``numpy.random.default_rng(int)``.

Source: NumPy, "Parallel random number generation" (``SeedSequence``, ``spawn_key``).
"""

from __future__ import annotations

import zlib

import numpy as np
import torch

from assocmem._validate import check_int

#: What a ``seed=`` argument of the library may be.
Seed = int | np.integer | np.random.SeedSequence


def as_seed_sequence(seed: object, name: str = "seed") -> np.random.SeedSequence:
    """Return ``seed`` as a :class:`numpy.random.SeedSequence` (an int >= 0, or one as is).

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        A root seed (an integer >= 0; a bool is refused) or a stream.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    TypeError
        If ``seed`` is neither an integer nor a ``SeedSequence``.
    ValueError
        If ``seed`` is a negative integer.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            f"{name} must be an int >= 0 or a numpy.random.SeedSequence, got {type(seed).__name__}"
        )
    return np.random.SeedSequence(check_int(name, seed, 0))


def key_of(key: object, name: str = "key") -> int:
    """Return the spawn-key integer of ``key``: an int >= 0 as is, a name ``2**32 + crc32(name)``.

    Raises
    ------
    TypeError, ValueError
        If ``key`` is neither an integer >= 0 nor a non-empty string.
    """
    if isinstance(key, str):
        if not key:
            raise ValueError(f"{name} must be an integer >= 0 or a non-empty name, got ''")
        return 2**32 + zlib.crc32(key.encode("utf-8"))
    return check_int(name, key, 0)


def child(seed: Seed, *key: int | str, name: str = "seed") -> np.random.SeedSequence:
    """Return the child stream of ``seed`` with key ``key`` (``spawn``'s child, see the module).

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The root (or a stream, whose key is extended).
    *key : int or str
        The child's place, each an int >= 0 (e.g. ``(i_load, i_instance)`` in a sweep's grid)
        or a name of a purpose (:func:`key_of`).
    name : str
        The argument's name, for the error message.

    Returns
    -------
    numpy.random.SeedSequence
        ``SeedSequence(root.entropy, spawn_key=root.spawn_key + key)``; the root is not changed.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a seed (:func:`as_seed_sequence`) or a key is neither an integer >= 0
        nor a name.
    """
    root = as_seed_sequence(seed, name)
    keys = tuple(key_of(k, f"key[{i}]") for i, k in enumerate(key))
    return np.random.SeedSequence(
        root.entropy, spawn_key=tuple(root.spawn_key) + keys, pool_size=root.pool_size
    )


def streams(seed: Seed, n: int, *, name: str = "seed") -> list[np.random.SeedSequence]:
    """Return ``n`` independent streams: ``SeedSequence(seed).spawn(n)``, the root unchanged.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The root.
    n : int
        Number of streams, >= 1.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    list of numpy.random.SeedSequence
        ``[child(seed, 0), ..., child(seed, n - 1)]``.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a seed or ``n < 1``.
    """
    n = check_int("n", n, 1)
    return [child(seed, i, name=name) for i in range(n)]


def numpy_rng(seed: Seed, *, name: str = "seed") -> np.random.Generator:
    """Return a numpy ``Generator`` drawing from ``seed`` (``numpy.random.default_rng``).

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a seed (:func:`as_seed_sequence`).
    """
    return np.random.default_rng(as_seed_sequence(seed, name))


def torch_seed(seed: Seed, *, name: str = "seed") -> int:
    """Return the 63-bit integer that seeds a torch generator from the stream ``seed``.

    The first 64-bit word of the stream's state, shifted right by one (``manual_seed`` takes
    integers below ``2**63``).

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a seed (:func:`as_seed_sequence`).
    """
    word = as_seed_sequence(seed, name).generate_state(1, np.uint64)[0]
    return int(word >> np.uint64(1))


def torch_generator(
    seed: Seed, device: str | torch.device = "cpu", *, name: str = "seed"
) -> torch.Generator:
    """Return a :class:`torch.Generator` on ``device`` seeded from the stream ``seed``.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The stream (an int means ``SeedSequence(int)``).
    device : str or torch.device
        The generator's device; the book draws on the CPU and moves the result, so that CPU and
        GPU runs see the same numbers.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    torch.Generator
        ``torch.Generator(device).manual_seed(torch_seed(seed))``.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a seed (:func:`as_seed_sequence`).
    """
    return torch.Generator(device=device).manual_seed(torch_seed(seed, name=name))
