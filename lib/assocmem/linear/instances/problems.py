"""Linear associative memory problems: the instance, score matrices and recall.

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

Instances are drawn by :mod:`assocmem.linear.instances.sampling`; statistics of the scores are in
:mod:`assocmem.linear.measure.scores`.

Source: Giorlandino, Goldt & Maillard (arXiv:2605.10795), abstract and §1 (concepts); the
formulas are a reconstruction (digest ``factual_recall.md`` §3; see chapter 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from assocmem._validate import row_norms
from assocmem.device import get_device
from assocmem.linear.theory.load import load_for_pairs


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
    stream : numpy.random.SeedSequence or tuple of them or None
        The random stream(s) the problem was drawn from
        (:func:`assocmem.linear.instances.sampling.instance_stream`; ``None`` when built by hand).
        Later steps that need more randomness for this instance (e.g. the initial factors of
        :func:`assocmem.linear.storage.training.train_memory`) draw from children of it.

    Properties ``p``, ``d``, ``decoupled``, ``batched``, ``batch_size``, ``load``.
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    competitors: torch.Tensor | None = None
    stream: np.random.SeedSequence | tuple[np.random.SeedSequence | None, ...] | None = None

    def __post_init__(self) -> None:
        """Check shapes, dtypes, devices and finiteness of the tensors.

        Raises
        ------
        TypeError
            If a tensor is not a floating-point ``torch.Tensor``.
        ValueError
            If shapes disagree, ``p < 2`` or ``d < 1``, dtypes or devices differ, or an entry
            is NaN or inf (caught here, before any training or LP sees it).

        Tensors that require grad are stored detached (the instance is data; gradients do not
        flow into it).
        """
        e, u, c = self.inputs, self.targets, self.competitors
        if not isinstance(e, torch.Tensor) or not isinstance(u, torch.Tensor):
            raise TypeError("inputs and targets must be torch tensors")
        # an instance is data: tensors that require grad are stored detached (issue 42, item 16),
        # so numpy reads (the LP, the float64 references) work and no graph is kept alive
        for name in ("inputs", "targets", "competitors"):
            t = getattr(self, name)
            if isinstance(t, torch.Tensor) and t.requires_grad:
                object.__setattr__(self, name, t.detach())
        e, u, c = self.inputs, self.targets, self.competitors
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
        for name, t in (("inputs", e), ("targets", u), ("competitors", c)):
            if t is None:
                continue
            if not t.dtype.is_floating_point:
                raise TypeError(f"{name} must be a floating-point tensor, got dtype {t.dtype}")
            if t.dtype != e.dtype or t.device != e.device:
                raise ValueError(
                    f"{name} must share the inputs' dtype and device ({e.dtype}, {e.device}), "
                    f"got {t.dtype}, {t.device}"
                )
        self.check_finite()

    def check_finite(self) -> None:
        """Raise ``ValueError`` if an embedding holds NaN or inf.

        Run when the problem is built, and again by the engines (:func:`~.training.train_memory`,
        :func:`~.lp.lp_decide`) before they compute: the tensors can be edited in place after
        construction, and a NaN would otherwise come out as a plausible "not stored".
        """
        for name, t in (("inputs", self.inputs), ("targets", self.targets),
                        ("competitors", self.competitors)):  # fmt: skip
            if t is not None and not bool(torch.isfinite(t).all()):
                bad = int((~torch.isfinite(t)).sum())
                raise ValueError(
                    f"{name} must be finite real embeddings: {bad} NaN or inf entries found"
                )

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
        stream = self.stream[i] if isinstance(self.stream, tuple) else None
        c = None if self.competitors is None else self.competitors[i]
        return MemoryProblem(self.inputs[i], self.targets[i], c, stream)

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
        return MemoryProblem(self.inputs.to(dev), self.targets.to(dev), c, self.stream)


def stack_problems(problems: Sequence[MemoryProblem]) -> MemoryProblem:
    """Stack unbatched problems of equal (p, d) and kind into one batched problem (copies).

    Parameters
    ----------
    problems : sequence of MemoryProblem
        Unbatched problems of one size and kind (all OP or all DP), on one device.

    Returns
    -------
    MemoryProblem
        Batched: inputs/targets (B, p, d), competitors (B, p, p-1, d) for the DP; ``stream`` the
        tuple of the problems' streams (``None`` for one built by hand).

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
    streams = tuple(q.stream if isinstance(q.stream, np.random.SeedSequence) else None
                    for q in flat)  # fmt: skip
    return MemoryProblem(
        torch.stack([q.inputs for q in flat]), torch.stack([q.targets for q in flat]), c, streams
    )


def _as_weight(
    W: torch.Tensor | np.ndarray, problem: MemoryProblem, dtype: torch.dtype | None = None
) -> torch.Tensor:
    """Check ``W`` against ``problem``; return it on the problem's device (its dtype by default).

    A ``W`` that requires grad keeps it (gradients flow through the score functions, e.g. the
    autograd check of the engine's gradient); the functions that return numpy detach.
    """
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
    if W.dtype.is_complex or W.dtype == torch.bool:
        raise TypeError(f"W must hold real numbers, got dtype {W.dtype}")
    if not bool(torch.isfinite(W).all()):
        raise ValueError(f"W must be finite: {int((~torch.isfinite(W)).sum())} NaN or inf entries")
    return W.to(device=problem.device, dtype=dtype or problem.inputs.dtype)


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
    return _target_competitor(_as_weight(W, problem), problem)


def _target_competitor(
    Wt: torch.Tensor, problem: MemoryProblem
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`target_competitor_scores` of a checked ``W``, in the dtype of ``Wt``."""
    targets = problem.targets.to(Wt.dtype)
    h = torch.matmul(problem.inputs.to(Wt.dtype), Wt.transpose(-1, -2))  # (..., p, d): W e_mu
    tgt = (h * targets).sum(-1)
    p = problem.p
    if problem.competitors is None:
        S = torch.matmul(h, targets.transpose(-1, -2))
        off = ~torch.eye(p, dtype=torch.bool, device=S.device)
        comp = S[..., off].reshape(*S.shape[:-2], p, p - 1)
    else:
        comp = torch.matmul(problem.competitors.to(Wt.dtype), h.unsqueeze(-1)).squeeze(-1)
    return tgt, comp


#: Scales of :func:`normalised_margins`: ``||W||_F``, ``max_ij |W_ij|``, ``||W||_F / d``.
MARGIN_NORMS = ("fro", "max", "gardner")


def normalised_margins(
    W: torch.Tensor | np.ndarray, problem: MemoryProblem, *, norm: str = "fro"
) -> np.ndarray:
    """Smallest margin of each memory over its norm: the one normalised margin of the book.

    Parameters
    ----------
    W : torch.Tensor or numpy.ndarray, shape (d, d) or (B, d, d)
        Memories: a sequence of memories of one unbatched instance (e.g. snapshots over training),
        or one memory per problem of a batched instance; computed in float64.
    problem : MemoryProblem
        Unbatched or batched OP or DP instance.
    norm : {"fro", "max", "gardner"}
        ``"fro"``: divide by ``||W||_F`` (``gamma_2``); ``"max"``: by ``max_ij |W_ij|``
        (``gamma_inf``); ``"gardner"``: by ``sigma_W = ||W||_F / d`` (Gardner's normalisation
        ``||W||_F^2 = d^2``, in which random-``W`` scores have unit variance; ``d gamma_2``).

    Returns
    -------
    numpy.ndarray, float64, shape () or (B,)
        ``min_mu (s_mumu - max_{nu != mu} s_munu) / scale``: positive exactly when every
        association is recalled; invariant under ``W -> c W`` (c > 0).

    Raises
    ------
    TypeError, ValueError
        As :func:`target_competitor_scores`, if ``norm`` is unknown, or for a zero ``W``.

    Notes
    -----
    Chapter 1, eq. ``eq-normalised-margin`` (``gamma_2``, ``gamma_inf``); chapter 2 (Gardner's
    normalisation, the quantity a maximum-margin memory of :mod:`.max_margin` maximises).
    """
    if norm not in MARGIN_NORMS:
        raise ValueError(f"norm must be one of {MARGIN_NORMS}, got {norm!r}")
    if isinstance(W, torch.Tensor):
        W = W.detach()
    Wt = _as_weight(W, problem, torch.float64)
    tgt, comp = _target_competitor(Wt, problem)
    margin = (tgt[..., None] - comp).amin(dim=(-2, -1))
    flat = Wt.flatten(-2)
    scale = flat.abs().amax(-1) if norm == "max" else row_norms(flat)[..., 0]  # any magnitude
    if norm == "gardner":
        scale = scale / problem.d
    if bool((scale <= 0).any()):
        raise ValueError("cannot normalise the margin of a zero matrix")
    return (margin / scale).cpu().numpy()


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
