"""Linear associative memory problems: load, sampling, score matrices and recall.

A linear associative memory stores ``p`` associations ``e_mu -> u_mu`` (``mu = 0..p-1``,
embeddings in ``R^d``) in one matrix ``W`` and recalls by winner-take-all decoding:
input ``mu`` is recalled when its own target scores strictly higher than every other
candidate output,

    u_mu^T W e_mu > u_nu^T W e_mu   for all nu != mu.

Two versions (chapter 1):

* **original problem (OP)**: the competitors of input ``mu`` are the other targets ``u_nu``,
  shared by all inputs;
* **decoupled problem (DP)**: input ``mu`` has ``p - 1`` private competitors ``c_{mu,j}``, i.i.d.
  with the targets and independent across inputs.

Score-matrix convention (DESIGN.md): ``S[mu, nu]`` is the score of candidate ``nu`` for input
``mu``; the target sits on the diagonal for OP and DP alike. For the DP the off-diagonal entries
of row ``mu`` are the private competitors in order: ``S[mu, nu] = c_{mu, j}^T W e_mu`` with
``j = nu`` for ``nu < mu`` and ``j = nu - 1`` for ``nu > mu``.

Source: Giorlandino, Goldt & Maillard (arXiv:2605.10795), abstract and §1 (concepts); the
formulas are a reconstruction (digest ``factual_recall.md`` §3; see chapter 1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from assocmem._validate import check_int, seed_list
from assocmem.device import get_device
from assocmem.linear.load import load_for_pairs


@dataclass(frozen=True)
class MemoryProblem:
    """One association problem, or a batch of problems of equal size.

    Attributes
    ----------
    inputs : torch.Tensor, float32, shape (p, d) or (B, p, d)
        Input embeddings ``e_mu`` (rows).
    targets : torch.Tensor, float32, shape (p, d) or (B, p, d)
        Target embeddings ``u_mu`` (rows).
    competitors : torch.Tensor or None, float32, shape (p, p-1, d) or (B, p, p-1, d)
        DP only: the private competitors ``c_{mu, j}`` of each input; ``None`` for the OP.
    seed : int or tuple of int or None
        Seed(s) the problem was sampled with (``None`` when built by hand).

    Properties ``p``, ``d``, ``decoupled``, ``batched``, ``batch_size``, ``load``.
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    competitors: torch.Tensor | None = None
    seed: int | tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        """Check shapes, dtypes and devices of the tensors (ValueError/TypeError otherwise)."""
        e, u, c = self.inputs, self.targets, self.competitors
        if not isinstance(e, torch.Tensor) or not isinstance(u, torch.Tensor):
            raise TypeError("inputs and targets must be torch tensors")
        if e.shape != u.shape or e.dim() not in (2, 3):
            raise ValueError(
                "inputs and targets must have the same shape (p, d) or (B, p, d), "
                f"got {tuple(e.shape)} and {tuple(u.shape)}"
            )
        if e.shape[-2] < 2 or e.shape[-1] < 1:
            raise ValueError(f"need p >= 2 associations and d >= 1, got shape {tuple(e.shape)}")
        if c is not None:
            p, d = e.shape[-2], e.shape[-1]
            want = (*e.shape[:-2], p, p - 1, d)
            if not isinstance(c, torch.Tensor) or tuple(c.shape) != want:
                got = tuple(c.shape) if isinstance(c, torch.Tensor) else type(c).__name__
                raise ValueError(f"competitors must have shape {want}, got {got}")

    @property
    def p(self) -> int:
        """Number of associations."""
        return int(self.inputs.shape[-2])

    @property
    def d(self) -> int:
        """Embedding dimension."""
        return int(self.inputs.shape[-1])

    @property
    def decoupled(self) -> bool:
        """True for the decoupled problem (private competitors)."""
        return self.competitors is not None

    @property
    def batched(self) -> bool:
        """True when the tensors carry a leading batch dimension."""
        return self.inputs.dim() == 3

    @property
    def batch_size(self) -> int:
        """Number of problems in the batch (1 for an unbatched problem)."""
        return int(self.inputs.shape[0]) if self.batched else 1

    @property
    def load(self) -> float:
        """``alpha = p log p / d^2``."""
        return load_for_pairs(self.p, self.d) if self.d >= 2 else float("nan")

    @property
    def device(self) -> torch.device:
        """Device holding the tensors."""
        return self.inputs.device

    def __getitem__(self, i: int) -> MemoryProblem:
        """Return the ``i``-th problem of a batch (an unbatched view)."""
        if not self.batched:
            raise TypeError("indexing needs a batched MemoryProblem")
        seed = self.seed[i] if isinstance(self.seed, tuple) else None
        c = None if self.competitors is None else self.competitors[i]
        return MemoryProblem(self.inputs[i], self.targets[i], c, seed)

    def __len__(self) -> int:
        """Return the number of problems in the batch."""
        return self.batch_size

    def to(self, device: str | torch.device | None) -> MemoryProblem:
        """Copy the problem to another device.

        Parameters
        ----------
        device : str, torch.device or None
            Target device (``None``/"auto" as in :func:`assocmem.device.get_device`).

        Returns
        -------
        MemoryProblem
            The same problem with its tensors on ``device``.

        Raises
        ------
        ValueError
            If the device is unknown or not available.
        """
        dev = get_device(device)
        c = None if self.competitors is None else self.competitors.to(dev)
        return MemoryProblem(self.inputs.to(dev), self.targets.to(dev), c, self.seed)


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
    MemoryError
        With the requested and available sizes, before anything is allocated.
    """
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


def stack_problems(problems: Sequence[MemoryProblem]) -> MemoryProblem:
    """Stack unbatched problems of equal (p, d) and kind into one batched problem (copies).

    Parameters
    ----------
    problems : sequence of MemoryProblem
        Unbatched problems of one size and kind (all OP or all DP), on one device.

    Returns
    -------
    MemoryProblem
        Batched: inputs/targets (B, p, d), competitors (B, p, p-1, d) for the DP; ``seed`` the
        tuple of the problems' seeds.

    Raises
    ------
    ValueError
        If the list is empty or sizes/kinds differ.
    """
    probs = list(problems)
    if not probs:
        raise ValueError("problems must not be empty")
    flat: list[MemoryProblem] = []
    for pr in probs:
        if not isinstance(pr, MemoryProblem):
            raise TypeError(f"expected MemoryProblem, got {type(pr).__name__}")
        flat.extend([pr[i] for i in range(pr.batch_size)] if pr.batched else [pr])
    p, d, dec = flat[0].p, flat[0].d, flat[0].decoupled
    if any((q.p, q.d, q.decoupled) != (p, d, dec) for q in flat):
        raise ValueError("all problems must share p, d and decoupled to be batched")
    c = torch.stack([q.competitors for q in flat]) if dec else None  # type: ignore[misc]
    seeds = tuple(q.seed if isinstance(q.seed, int) else -1 for q in flat)
    return MemoryProblem(
        torch.stack([q.inputs for q in flat]), torch.stack([q.targets for q in flat]), c, seeds
    )


def _as_weight(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> torch.Tensor:
    """Check ``W`` against ``problem`` and return it as a tensor on the problem's device."""
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if isinstance(W, np.ndarray):
        W = torch.from_numpy(W)
    if not isinstance(W, torch.Tensor):
        raise TypeError(f"W must be a torch tensor or numpy array, got {type(W).__name__}")
    d = problem.d
    if W.dim() not in (2, 3) or W.shape[-2:] != (d, d):
        raise ValueError(f"W must have shape (d, d) or (B, d, d) with d={d}, got {tuple(W.shape)}")
    if problem.batched and W.dim() == 3 and W.shape[0] != problem.batch_size:
        raise ValueError(f"W has batch {W.shape[0]} but the problem has batch {problem.batch_size}")
    return W.to(device=problem.device, dtype=problem.inputs.dtype)


def target_competitor_scores(
    W: torch.Tensor | np.ndarray, problem: MemoryProblem
) -> tuple[torch.Tensor, torch.Tensor]:
    """Target scores and competitor scores in the "target first" layout.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        The memory (one per problem of a batch, or one shared ``(d, d)``).
    problem : MemoryProblem
        Unbatched or batched instance.

    Returns
    -------
    target : torch.Tensor, shape (..., p)
        ``u_mu^T W e_mu``.
    competitors : torch.Tensor, shape (..., p, p-1)
        Row ``mu``: scores of the ``p - 1`` competitors of input ``mu`` (OP: the other targets in
        increasing order of ``nu``; DP: the private competitors).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` not an array or tensor.
    ValueError
        If the shape of ``W`` does not match the problem.
    """
    Wt = _as_weight(W, problem)
    h = torch.matmul(problem.inputs, Wt.transpose(-1, -2))  # (..., p, d): rows W e_mu
    tgt = (h * problem.targets).sum(-1)
    p = problem.p
    if problem.competitors is None:
        S = torch.matmul(h, problem.targets.transpose(-1, -2))
        off = ~torch.eye(p, dtype=torch.bool, device=S.device)
        comp = S[..., off].reshape(*S.shape[:-2], p, p - 1)
    else:
        comp = torch.matmul(problem.competitors, h.unsqueeze(-1)).squeeze(-1)
    return tgt, comp


def score_matrix(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> torch.Tensor:
    """Score matrix ``S[mu, nu]`` (candidate ``nu`` for input ``mu``; target on the diagonal).

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        Memory matrix(ces). A batched ``W`` with an unbatched problem scores every ``W`` on the
        same problem; with a batched problem the batches are paired.
    problem : MemoryProblem
        OP or DP, unbatched or batched.

    Returns
    -------
    torch.Tensor, float32, shape (p, p) or (B, p, p)
        OP: ``S[mu, nu] = u_nu^T W e_mu``. DP: diagonal ``u_mu^T W e_mu``; off-diagonal entries of
        row ``mu`` are the private competitor scores ``c_{mu,j}^T W e_mu`` with ``j = nu`` for
        ``nu < mu`` and ``j = nu - 1`` for ``nu > mu``.

    Raises
    ------
    TypeError, ValueError
        If ``W`` is not a tensor/array of shape (d, d) or (B, d, d) matching the problem.
    """
    Wt = _as_weight(W, problem)
    if problem.competitors is None:
        h = torch.matmul(problem.inputs, Wt.transpose(-1, -2))
        return torch.matmul(h, problem.targets.transpose(-1, -2))
    tgt, comp = target_competitor_scores(Wt, problem)
    p = problem.p
    S = torch.empty(*tgt.shape[:-1], p, p, dtype=tgt.dtype, device=tgt.device)
    off = ~torch.eye(p, dtype=torch.bool, device=S.device)
    S[..., off] = comp.reshape(*comp.shape[:-2], p * (p - 1))
    S.diagonal(dim1=-2, dim2=-1).copy_(tgt)
    return S


def recalled(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> torch.Tensor:
    """Which associations are recalled: target score strictly above every competitor.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        The memory (one per problem of a batch, or one shared ``(d, d)``).
    problem : MemoryProblem
        Unbatched or batched instance.

    Returns
    -------
    torch.Tensor, bool, shape (p,) or (B, p)
        Ties count as failures (so ``W = 0`` recalls nothing).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` not an array or tensor.
    ValueError
        If the shape of ``W`` does not match the problem.

    Notes
    -----
    The recall rule of chapter 1, eq. ``eq-recall`` (winner-take-all), strict.
    """
    tgt, comp = target_competitor_scores(W, problem)
    return tgt > comp.max(-1).values


def recall_accuracy(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> float | np.ndarray:
    """Fraction of the ``p`` associations recalled (strict winner-take-all).

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        The memory (one per problem of a batch, or one shared ``(d, d)``).
    problem : MemoryProblem
        Unbatched or batched instance.

    Returns
    -------
    float, or numpy.ndarray of shape (B,) for batched input

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` not an array or tensor.
    ValueError
        If the shape of ``W`` does not match the problem.

    Notes
    -----
    The fraction of inputs that satisfy chapter 1, eq. ``eq-recall``.
    """
    r = recalled(W, problem).float().mean(-1)
    return float(r) if r.dim() == 0 else r.cpu().numpy()


def all_recalled(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> bool | np.ndarray:
    """Tell whether every association is recalled (perfect storage).

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        The memory (one per problem of a batch, or one shared ``(d, d)``).
    problem : MemoryProblem
        Unbatched or batched instance.

    Returns
    -------
    bool, or numpy.ndarray of bool of shape (B,) for batched input

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` not an array or tensor.
    ValueError
        If the shape of ``W`` does not match the problem.

    Notes
    -----
    Chapter 1, eq. ``eq-recall`` for every input: the strict systems ``eq-op`` (OP) and
    ``eq-dp`` (DP) hold.
    """
    r = recalled(W, problem).all(-1)
    return bool(r) if r.dim() == 0 else r.cpu().numpy()


def score_statistics(W: torch.Tensor | np.ndarray, problem: MemoryProblem) -> dict[str, Any]:
    """Target scores and per-input maximum competitor scores in units of sigma_W = ||W||_F / d.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        Memory matrix or a batch of them (a batch of W on one problem, or paired with a batched
        problem of the same batch size).
    problem : MemoryProblem
        OP or DP, unbatched or batched (see :mod:`assocmem.linear.problems`).

    Returns
    -------
    dict
        ``target`` : ndarray float64, shape (p,) or (B, p) -- ``u_mu^T W e_mu / sigma_W``;
        ``max_competitor`` : same shape -- ``max_nu`` competitor score ``/ sigma_W`` (OP: the other
        targets; DP: the private competitors); ``gap`` = target - max_competitor (> 0 means
        recalled); ``competitor`` : ndarray float64, shape (p * (p-1),) or (B, p * (p-1)) -- all
        competitor scores ``/ sigma_W``, input by input (row ``mu`` of
        :func:`target_competitor_scores`, flattened); ``sigma_w`` : float or ndarray (B,) --
        ``||W||_F / d`` in the units of the scores; ``p`` and ``d`` (int).

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` is not a tensor/array.
    ValueError
        If shapes do not match or some W is identically zero (no scale).

    Notes
    -----
    Source: digest §6 (units sigma_W) and §9 (observables); reconstruction, see chapter 3.
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if isinstance(W, np.ndarray):
        W = torch.from_numpy(W)
    if not isinstance(W, torch.Tensor):
        raise TypeError(f"W must be a torch tensor or numpy array, got {type(W).__name__}")
    tgt, comp = target_competitor_scores(W, problem)  # validates shapes
    Wd = W.to(dtype=torch.float64)
    sigma = torch.linalg.matrix_norm(Wd).cpu() / problem.d  # (,) or (B,)
    if torch.any(sigma == 0):
        raise ValueError("W is identically zero (for some batch entry): scores have no scale")
    scale = sigma.to(tgt.device).unsqueeze(-1)
    if tgt.dim() > scale.dim() or (tgt.dim() == 2 and scale.dim() == 1):
        scale = scale.reshape(*scale.shape, *([1] * (tgt.dim() - scale.dim())))
    t = tgt.double() / scale
    m = comp.max(-1).values.double() / scale
    c = comp.double() / scale.unsqueeze(-1)
    sig = sigma.numpy()
    return {
        "target": t.cpu().numpy(),
        "max_competitor": m.cpu().numpy(),
        "gap": (t - m).cpu().numpy(),
        "competitor": c.reshape(*c.shape[:-2], -1).cpu().numpy(),
        "sigma_w": float(sig) if sig.ndim == 0 else sig,
        "p": problem.p,
        "d": problem.d,
    }


def spread_summary(stats: dict[str, Any]) -> dict[str, float]:
    """Summary numbers of :func:`score_statistics` output (all inputs and batch entries pooled).

    Parameters
    ----------
    stats : dict
        Output of :func:`score_statistics`.

    Returns
    -------
    dict of float
        ``target_mean``, ``target_std``, ``max_competitor_mean``, ``max_competitor_std``,
        ``gap_mean``, ``gap_std``, ``extreme_value_level`` = sqrt(2 log p) and ``recalled`` (the
        fraction of inputs with a positive gap).

    Raises
    ------
    KeyError
        If a field of :func:`score_statistics` is missing.
    """
    t = np.ravel(stats["target"])
    m = np.ravel(stats["max_competitor"])
    g = np.ravel(stats["gap"])
    return {
        "target_mean": float(t.mean()),
        "target_std": float(t.std(ddof=1)),
        "max_competitor_mean": float(m.mean()),
        "max_competitor_std": float(m.std(ddof=1)),
        "gap_mean": float(g.mean()),
        "gap_std": float(g.std(ddof=1)),
        "extreme_value_level": math.sqrt(2.0 * math.log(int(stats["p"]))),
        "recalled": float(np.mean(g > 0)),
    }


def simulate_scores(
    p: int,
    d: int,
    *,
    embedding: str = "gaussian",
    n_instances: int = 1,
    seed: int = 0,
    device: str | torch.device | None = "cpu",
) -> dict[str, torch.Tensor]:
    """Sample Hebbian memories and return their target and non-target scores.

    Parameters
    ----------
    p : int
        Number of associations, >= 2.
    d : int
        Embedding dimension, >= 1.
    embedding : {"gaussian", "spherical"}
        Law of the embeddings (``"leading"`` has no sampler).
    n_instances : int
        Independent memories, >= 1.
    seed : int
        Seed of the torch generator (same seed -> same scores).
    device : str, torch.device or None
        Where to compute (see :func:`assocmem.device.get_device`); results are on the CPU.

    Returns
    -------
    dict of torch.Tensor (float64, CPU)
        ``target`` of shape (n_instances, p); ``nontarget`` of shape (n_instances, p, p - 1)
        (row mu holds the scores of the p - 1 wrong outputs for input mu); ``sigma_w``, shape
        (n_instances,), = ||W||_F / d.

    Raises
    ------
    ValueError
        If a size is out of range or the embedding is unknown or ``"leading"``.

    Notes
    -----
    The Hebbian memory of chapter 3, eq. ``eq-hebb``, and its scores.
    """
    for name, val, lo in (("p", p, 2), ("d", d, 1), ("n_instances", n_instances, 1)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {val!r}")
    if embedding not in ("gaussian", "spherical"):
        raise ValueError(f"embedding must be 'gaussian' or 'spherical', got {embedding!r}")
    dev = get_device(device)
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    e = torch.randn(n_instances, p, d, generator=gen, dtype=torch.float64).to(dev)
    u = torch.randn(n_instances, p, d, generator=gen, dtype=torch.float64).to(dev)
    if embedding == "gaussian":
        e, u = e / math.sqrt(d), u / math.sqrt(d)
    else:
        e = e / e.norm(dim=-1, keepdim=True)
        u = u / u.norm(dim=-1, keepdim=True)
    w = u.transpose(1, 2) @ e  # sum_mu u_mu e_mu^T, shape (n, d, d)
    s = e @ w.transpose(1, 2) @ u.transpose(1, 2)  # S[mu, nu] = u_nu^T W e_mu
    eye = torch.eye(p, dtype=torch.bool, device=dev)
    target = torch.diagonal(s, dim1=1, dim2=2)
    nontarget = s[:, ~eye].reshape(n_instances, p, p - 1)
    sigma_w = w.pow(2).sum(dim=(1, 2)).sqrt() / d
    return {"target": target.cpu(), "nontarget": nontarget.cpu(), "sigma_w": sigma_w.cpu()}
