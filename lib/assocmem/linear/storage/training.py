"""Storing associations by training: the cross-entropy + Adam engine and the Hebbian rule.

* :func:`train_memory` — full-batch softmax cross-entropy over all ``p`` candidates of each input,
  Adam, ``W_0 = 0`` (or a factored ``W = Q R^T`` of rank ``m``), early stop at perfect recall.
  Several problems (seeds) train as one batched computation of shape (B, d, d) with the gradient
  written out analytically, so no autograd graph is built; the update is PyTorch's public Adam
  (:func:`torch.optim.adam.adam`, the update of ``torch.optim.Adam``, fused kernel where the
  device has one), its state sliced as finished problems leave the batch.
* :func:`cross_entropy_loss_and_grad` — the same loss and its gradient for one problem, written
  plainly in float64 numpy (unbatched, no blocks, no clamps): the reference the engine is tested
  against and the code chapter 1 shows.
* :func:`hebbian_memory` — the correlation-matrix memory ``W = sum_mu u_mu e_mu^T``.

Sources: the training protocol is the digest's recommendation (``factual_recall.md`` §9,
reconstruction; the paper's protocol could not be read); Nichani, Lee & Bietti (ICLR 2025) use the
same loss.

One topic, though past 700 lines: one engine (batched problems, row blocks, Adam state that
shrinks as problems finish, the factored ``W = Q R^T``) whose parts share its state and exist for
it; :func:`cross_entropy_loss_and_grad` is its reference and :func:`hebbian_memory` its baseline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.optim.adam import adam
from tqdm.auto import tqdm

from assocmem._validate import check_int, check_positive
from assocmem.device import get_device, share_cores
from assocmem.linear.instances.problems import MemoryProblem, recall_accuracy, stack_problems
from assocmem.streams import child, torch_generator

# exp(-80) = 1.8e-35: smallest softmax weight kept; avoids subnormal float32 arithmetic
_EXP_FLOOR = -80.0


@dataclass
class TrainResult:
    """Outcome of :func:`train_memory`.

    Attributes
    ----------
    weights : torch.Tensor, float32, shape (d, d) or (B, d, d)
        The memory. With ``early_stop=True``: for problems that reached perfect recall, ``W`` at
        the first step where every association was recalled (a snapshot), otherwise ``W`` at the
        last step run. With ``early_stop=False``: ``W`` after the whole budget. On the training
        device.
    accuracy : float or numpy.ndarray (B,)
        Recall accuracy of ``weights`` (strict winner-take-all, see
        :func:`assocmem.linear.instances.problems.recall_accuracy`).
    perfect_step : int or None, or list of (int or None)
        First step ``t`` (number of Adam updates applied) at which every association was recalled;
        ``None`` if never within the budget.
    steps : int or numpy.ndarray (B,)
        Number of Adam updates run for each problem (``perfect_step`` when it stopped early).
    history : dict of numpy arrays
        ``"step"`` (n,), ``"loss"`` (n,) or (n, B) and ``"accuracy"`` (n,) or (n, B), recorded
        every ``check_every`` steps; NaN after a problem has stopped. With
        ``record_weights=True`` also ``"weights"`` (n, B, d, d) or (n, d, d), float32: ``W`` at
        those steps.
    factors : tuple of torch.Tensor or None
        For ``rank=m``: ``(Q, R)`` with shapes (d, m) or (B, d, m) and ``weights = Q R^T``.
    """

    weights: torch.Tensor
    accuracy: float | np.ndarray
    perfect_step: int | None | list[int | None]
    steps: int | np.ndarray
    history: dict[str, np.ndarray] = field(default_factory=dict)
    factors: tuple[torch.Tensor, torch.Tensor] | None = None

    @property
    def perfect(self) -> bool | np.ndarray:
        """Whether perfect recall was reached (bool, or bool array for a batch)."""
        if isinstance(self.perfect_step, list):
            return np.array([s is not None for s in self.perfect_step])
        return self.perfect_step is not None


def _as_batched(problems: MemoryProblem | Sequence[MemoryProblem]) -> tuple[MemoryProblem, bool]:
    """Return the problems as one batched problem and whether the input was batched."""
    if isinstance(problems, MemoryProblem):
        problems.check_finite()  # edited in place since it was built?
        return (problems, True) if problems.batched else (stack_problems([problems]), False)
    if isinstance(problems, (list, tuple)):
        for pr in problems:
            if isinstance(pr, MemoryProblem):
                pr.check_finite()
        return stack_problems(problems), True
    raise TypeError(
        f"problems must be a MemoryProblem or a sequence of them, got {type(problems).__name__}"
    )


def cross_entropy_loss_and_grad(
    W: torch.Tensor | np.ndarray, problem: MemoryProblem
) -> tuple[float, np.ndarray]:
    """Softmax cross-entropy of a memory and its gradient, plainly, in float64.

    ``L(W) = (1/p) sum_mu [log sum_nu exp(S[mu, nu]) - S[mu, mu]]`` with the scores
    ``S[mu, nu] = v_{mu nu}^T W e_mu`` of :func:`assocmem.linear.instances.problems.score_matrix`:
    ``v_{mu nu}`` is candidate ``nu`` of input ``mu``, the target ``u_mu`` on the diagonal
    (OP: ``v_{mu nu} = u_nu``, every target; DP: the private competitors off the diagonal). With
    ``P`` the row-wise softmax of ``S``, ``dL/dS = (P - I) / p`` and
    ``dL/dW = (1/p) sum_{mu, nu} (P - I)[mu, nu] v_{mu nu} e_mu^T``.

    Parameters
    ----------
    W : numpy.ndarray or torch.Tensor, shape (d, d)
        The memory, any real dtype (computed in float64).
    problem : MemoryProblem
        One unbatched OP or DP instance (its tensors are read exactly as float64).

    Returns
    -------
    loss : float
        ``L(W)`` in nats; ``log p`` at ``W = 0``.
    grad : numpy.ndarray, float64, shape (d, d)
        ``dL/dW``.

    Raises
    ------
    TypeError
        If ``problem`` is not a MemoryProblem or ``W`` not an array or tensor.
    ValueError
        If the problem is batched or ``W`` is not a finite (d, d) matrix.

    Notes
    -----
    The loss that :func:`train_memory` minimises, same normalisation: a mean over the ``p`` inputs,
    scores at unit temperature (no scale). The engine computes it in float32, batched, in row
    blocks, with the exponent floor ``-80`` and the target's weight summed from the competitors'
    ones; this reference has none of that and needs ``p^2 d`` numbers (small problems only).
    Source: chapter 1, eq. ``eq-ce`` (reconstruction: the digest's protocol, ``factual_recall.md``
    §3.4 and §9, the same loss as Nichani, Lee & Bietti, ICLR 2025).
    """
    W, e, V = _reference_arrays(W, problem)  # V[mu, nu] = v_{mu nu}: (p, p, d)
    p = e.shape[0]
    S = np.einsum("mnd,md->mn", V, e @ W.T)  # S[mu, nu] = v_{mu nu}^T W e_mu
    S_max = S.max(axis=1, keepdims=True)  # shift each row: exp() cannot overflow
    log_Z = S_max[:, 0] + np.log(np.exp(S - S_max).sum(axis=1))
    loss = float(np.mean(log_Z - np.diag(S)))  # mean of -log softmax(S[mu])[mu]
    G = np.exp(S - log_Z[:, None])  # P, the row-wise softmax of S
    G[np.arange(p), np.arange(p)] -= 1.0  # P - I = p dL/dS
    R = np.einsum("mn,mnd->md", G, V)  # R_mu = sum_nu (P - I)[mu, nu] v_{mu nu}
    grad = R.T @ e / p  # (1/p) sum_mu R_mu e_mu^T
    return loss, grad


def _reference_arrays(
    W: torch.Tensor | np.ndarray, problem: MemoryProblem
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return checked float64 copies: ``W`` (d, d), inputs (p, d), candidates ``V`` (p, p, d).

    ``V[mu, nu]`` is the output that ``score_matrix`` scores at ``S[mu, nu]``: ``u_nu`` (OP), or
    ``u_mu`` on the diagonal and the private competitors in order off it (DP).
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    if problem.batched:
        raise ValueError("problem must be one unbatched MemoryProblem; index a batch first")
    if isinstance(W, torch.Tensor):
        W = W.detach().cpu().double().numpy()
    if not isinstance(W, np.ndarray):
        raise TypeError(f"W must be a numpy array or torch tensor, got {type(W).__name__}")
    p, d = problem.p, problem.d
    W = W.astype(np.float64)
    if W.shape != (d, d) or not np.all(np.isfinite(W)):
        raise ValueError(f"W must be a finite matrix of shape (d, d) = ({d}, {d}), got {W.shape}")
    e = problem.inputs.detach().cpu().double().numpy()
    u = problem.targets.detach().cpu().double().numpy()
    if problem.competitors is None:
        V = np.broadcast_to(u, (p, p, d))
    else:
        V = np.empty((p, p, d))
        V[~np.eye(p, dtype=bool)] = (
            problem.competitors.detach().cpu().double().numpy().reshape(-1, d)
        )
        V[np.arange(p), np.arange(p)] = u
    return W, e, V


def _forward(
    W: torch.Tensor,
    E: torch.Tensor,
    U: torch.Tensor,
    C: torch.Tensor | None,
    need_grad: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Scores, recall, per-input loss and the CE gradient for a batch (B, d, d).

    Returns (recalled (B, p) bool, loss per input (B, p), target scores (B, p), gradient
    (B, d, d) or None). The loss per input is ``logsumexp_nu S[mu, nu] - S[mu, mu]``; the
    gradient is that of the mean over ``mu``,

        dL/dW = (1/p) sum_mu sum_{nu != mu} P[mu, nu] (v_nu - u_mu) e_mu^T,

    with ``P = softmax(S)`` row-wise and ``v_nu`` the competing outputs (OP: the other targets;
    DP: the private competitors). Written this way, the target's coefficient
    ``-(1 - P[mu, mu]) = -sum_{nu != mu} P[mu, nu]`` keeps its relative precision when
    ``P[mu, mu]`` is within float32 rounding of 1, and the normalisation ``1/Z`` scales the
    (p, d) product instead of the (p, p) weights.
    """
    p = E.shape[-2]
    H = torch.matmul(E, W.transpose(-1, -2))  # (B, p, d), rows W e_mu
    if C is not None:
        tgt = (H * U).sum(-1)  # (B, p)
        # vector-on-the-left products stream C once in its stored layout (memory bound)
        comp = torch.matmul(H.unsqueeze(-2), C.transpose(-1, -2)).squeeze(-2)  # (B, p, p-1)
        rec, loss, V = _softmax_terms(comp, tgt, C if need_grad else None, U, p)
    else:
        # Row blocks of the score matrix: each (B, k, p) block is scored, exponentiated and
        # back-projected while it is still in cache (CPU), and memory stays O(B k p).
        block = _row_block(p, E.shape[0], E.device)
        Ut = U.transpose(-1, -2)
        tgts: list[torch.Tensor] = []
        recs: list[torch.Tensor] = []
        losses: list[torch.Tensor] = []
        Vs: list[torch.Tensor] = []
        for s in range(0, p, block):
            e = min(s + block, p)
            S = torch.matmul(H[:, s:e], Ut)  # (B, k, p): rows s..e-1, target at column s + i
            diag = S.diagonal(offset=s, dim1=-2, dim2=-1)
            t_blk = diag.clone()
            diag.fill_(-math.inf)  # S now holds the competitors' scores only
            r, lo, v = _softmax_terms(S, t_blk, U if need_grad else None, U[:, s:e], p)
            tgts.append(t_blk)
            recs.append(r)
            losses.append(lo)
            if v is not None:
                Vs.append(v)
        tgt, rec, loss = _cat_rows(tgts), _cat_rows(recs), _cat_rows(losses)
        V = _cat_rows(Vs) if Vs else None
    if V is None:
        return rec, loss, tgt, None
    grad = torch.matmul(V.transpose(-1, -2), E)  # (B, d, d)
    return rec, loss, tgt, grad


def _cat_rows(parts: list[torch.Tensor]) -> torch.Tensor:
    """Concatenate row blocks (B, k, ...) along the rows."""
    return parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)


def _softmax_terms(
    comp: torch.Tensor,
    tgt: torch.Tensor,
    cand: torch.Tensor | None,
    U: torch.Tensor,
    p: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Recall, loss and gradient rows from the competitors' scores of k inputs.

    ``comp`` (B, k, n) float32, overwritten; entries set to -inf are excluded. ``tgt`` (B, k) the
    target scores, ``U`` (B, k, d) the targets of these inputs, ``cand`` the competitors' outputs
    ((B, n, d), shared by all rows: OP; (B, k, n, d), private: DP) or None (no gradient).
    Returns recalled (B, k) bool, loss (B, k) and ``V`` (B, k, d) with
    ``V_mu = (1/p) sum_nu P[mu, nu] (v_nu - u_mu)`` (or None).
    """
    cmax = comp.amax(-1)
    rec = tgt > cmax
    rowmax = torch.maximum(tgt, cmax)
    # in place: comp holds exp(S - rowmax). The clamp keeps the weights out of the subnormal
    # range (< 1.2e-38), where CPUs run exp() and the matmul below 10-100x slower, and changes
    # the softmax by < 1e-34; an excluded (-inf) entry becomes exp(_EXP_FLOOR), which cancels
    # exactly in V below and shifts Z by < 1e-34.
    comp.sub_(rowmax.unsqueeze(-1)).clamp_(min=_EXP_FLOOR).exp_()
    Zc = comp.sum(-1)  # the competitors' share of the partition function
    Z = (tgt - rowmax).clamp_(min=_EXP_FLOOR).exp_().add_(Zc)
    # recalled rows (rowmax = tgt, Z = 1 + Zc): log1p keeps losses below float32 rounding of 1
    loss = torch.where(rec, torch.log1p(Zc), torch.log(Z).add_(rowmax).sub_(tgt))
    if cand is None:
        return rec, loss, None
    if cand.dim() == 4:
        V = torch.matmul(comp.unsqueeze(-2), cand).squeeze(-2)
    else:
        V = torch.matmul(comp, cand)
    V.addcmul_(Zc.unsqueeze(-1), U, value=-1.0).mul_(Z.mul(p).reciprocal_().unsqueeze(-1))
    return rec, loss, V


def _row_block(p: int, batch: int, device: torch.device) -> int:
    """Rows of the (B, p, p) score matrix processed at once (1 MB/problem on CPU, 2^28 on GPU)."""
    budget = 2**18 if device.type == "cpu" else 2**28 // max(batch, 1)
    return max(16, min(p, budget // p))


_FUSED_ADAM: dict[str, bool] = {}


def _fused_adam_available(device: torch.device) -> bool:
    """Whether Adam's fused kernel (``torch.optim.Adam(fused=True)``) runs on this device type."""
    if device.type not in _FUSED_ADAM:
        x = torch.zeros(2, device=device)  # a scratch tensor: a missing kernel touches no real W
        x.grad = torch.ones_like(x)
        try:
            torch.optim.Adam([x], lr=0.1, fused=True).step()
            ok = True
        except (RuntimeError, NotImplementedError, TypeError, ValueError):
            ok = False
        _FUSED_ADAM[device.type] = ok
    return _FUSED_ADAM[device.type]


class _BatchAdam:
    """Adam on tensors (B, ...) whose leading index is a problem, so that problems can retire.

    The update is PyTorch's public functional Adam, :func:`torch.optim.adam.adam` (what
    ``torch.optim.Adam.step`` runs), with ``fused=True`` where the device has the fused kernel
    and ``foreach=True`` otherwise (``fused`` forces either); its state is kept as
    ``torch.optim.Adam`` keeps it: moments ``exp_avg``, ``exp_avg_sq`` shaped like the
    parameters, one float32 step count per parameter (on the device for the fused kernel, on
    the CPU for ``foreach``). Retiring problems slices the parameters and the moments along the
    batch; the step count is the same for the whole batch. The class ``torch.optim.Adam`` itself
    is not used: its ``step`` wrapper (profiler record, hooks, state checks) cost 0.3-0.5 ms more
    per call than the functional form inside the engine's loop, ~10 % of a d = 64 step on one
    CPU thread.
    """

    def __init__(
        self,
        params: list[torch.Tensor],
        lr: float,
        betas: tuple[float, float],
        eps: float,
        fused: bool | None = None,
    ) -> None:
        dev = params[0].device
        self.fused = _fused_adam_available(dev) if fused is None else fused
        self.params = params
        self.exp_avg = [torch.zeros_like(x) for x in params]
        self.exp_avg_sq = [torch.zeros_like(x) for x in params]
        step_dev = dev if self.fused else torch.device("cpu")
        self.state_steps = [torch.zeros((), dtype=torch.float32, device=step_dev) for _ in params]
        self.lr, self.betas, self.eps = lr, betas, eps

    def step(self, grads: list[torch.Tensor]) -> None:
        """Apply one Adam update, ``grads`` shaped like :attr:`params`."""
        adam(
            self.params,
            grads,
            self.exp_avg,
            self.exp_avg_sq,
            [],
            self.state_steps,
            foreach=None if self.fused else True,
            fused=True if self.fused else None,
            amsgrad=False,
            beta1=self.betas[0],
            beta2=self.betas[1],
            lr=self.lr,
            weight_decay=0.0,
            eps=self.eps,
            maximize=False,
        )

    def select(self, keep: torch.Tensor) -> None:
        """Keep the problems where ``keep`` ((B_active,) bool) is true, with their Adam state."""
        self.params = [x[keep] for x in self.params]
        self.exp_avg = [x[keep] for x in self.exp_avg]
        self.exp_avg_sq = [x[keep] for x in self.exp_avg_sq]


def _initial_params(
    streams: list[np.random.SeedSequence],
    d: int,
    rank: int | None,
    init_scale: float,
    device: torch.device,
) -> list[torch.Tensor]:
    """Return ``[W]`` with ``W = 0`` (full rank) or factors ``[Q, R]`` from the streams.

    Problem ``i``'s factors come from ``streams[i]``, its own, so a problem starts from the same
    factors in any batch.
    """
    batch = len(streams)
    if rank is None:
        return [torch.zeros(batch, d, d, dtype=torch.float32, device=device)]
    Q = torch.empty(batch, d, rank, dtype=torch.float32)
    R = torch.empty(batch, d, rank, dtype=torch.float32)
    for i, stream in enumerate(streams):
        g = torch_generator(stream)
        Q[i] = torch.randn(d, rank, generator=g) * (init_scale / math.sqrt(d))
        R[i] = torch.randn(d, rank, generator=g) * (init_scale / math.sqrt(d))
    return [Q.to(device), R.to(device)]


class _BatchState:
    """The problems still training (data, parameters, Adam, snapshots) and the retired ones' output.

    Active problems are indexed 0..B_active-1, ``idx`` maps them to the batch; ``a_first`` is the
    first perfect step of each active problem (-1: none yet), ``snaps`` the parameters at that
    step, ``best``/``best_step`` the stall rule's lowest loss and when it was reached. Retired
    problems have their ``W`` (and factors) in ``W_out`` (``Q_out``, ``R_out``), their first
    perfect step in ``first`` and their stall step in ``stalled_at`` (-1: not stalled).
    """

    def __init__(self, batch: MemoryProblem, rank: int | None, opt: _BatchAdam) -> None:
        B, d, dev = batch.batch_size, batch.d, batch.device
        self.rank = rank
        self.on_gpu = dev.type != "cpu"
        self.E, self.U, self.C = batch.inputs, batch.targets, batch.competitors
        self.idx = torch.arange(B, device=dev)
        self.opt = opt
        self.snaps = [torch.zeros_like(x) for x in opt.params]
        self.a_first = torch.full((B,), -1, dtype=torch.long, device=dev)
        self.all_found = False  # CPU: every active problem has its perfect step already
        self.best = torch.full((B,), math.inf, dtype=torch.float64, device=dev)
        self.best_step = torch.zeros(B, dtype=torch.long, device=dev)
        self.W_out = torch.zeros(B, d, d, dtype=torch.float32, device=dev)
        self.Q_out = self.R_out = None
        if rank is not None:
            self.Q_out = torch.zeros(B, d, rank, dtype=torch.float32, device=dev)
            self.R_out = torch.zeros_like(self.Q_out)
        self.first = torch.full((B,), -1, dtype=torch.long, device=dev)
        self.stalled_at = torch.full((B,), -1, dtype=torch.long, device=dev)

    @property
    def size(self) -> int:
        """Number of active problems."""
        return self.idx.numel()

    def current_weights(self) -> torch.Tensor:
        """Return the memories ``W`` (B_a, d, d) of the active problems (``Q R^T`` for rank)."""
        params = self.opt.params
        return params[0] if self.rank is None else torch.matmul(*_qr(params))

    def evaluate(self, need_grad: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Recall (B_a, p) bool, loss per input (B_a, p) and the gradient in W (B_a, d, d)."""
        W = self.current_weights()
        rec, loss, _, grad = _forward(W, self.E, self.U, self.C, need_grad=need_grad)
        return rec, loss, grad

    def note_perfect(self, rec: torch.Tensor, t: int) -> None:
        """Record the first perfect step and snapshot the parameters there.

        On a GPU without a host sync; on the CPU only while some active problem has none yet and
        one is perfect now.
        """
        perf = None if self.all_found else rec.all(-1)
        if perf is None or not (self.on_gpu or bool(perf.any())):
            return
        newly = perf & (self.a_first < 0)
        self.a_first = torch.where(newly, torch.full_like(self.a_first, t), self.a_first)
        for s, x in zip(self.snaps, self.opt.params, strict=True):
            s.copy_(torch.where(newly.view(-1, *([1] * (x.dim() - 1))), x, s))
        self.all_found = not self.on_gpu and bool((self.a_first >= 0).all())

    def step(self, grad: torch.Tensor) -> None:
        """One Adam update from the gradient in W (B_a, d, d), through the factors for ``rank``."""
        if self.rank is None:
            grads = [grad]
        else:
            Qa, Ra = self.opt.params
            grads = [torch.matmul(grad, Ra), torch.matmul(grad.transpose(-1, -2), Qa)]
        self.opt.step(grads)

    def write_out(self, sel: torch.Tensor, use_snap: bool) -> None:
        """Copy the result of the active problems ``sel`` (bool) to the outputs."""
        src = self.snaps if use_snap else self.opt.params
        gi = self.idx[sel]
        if self.Q_out is None or self.R_out is None:
            self.W_out[gi] = src[0][sel]
        else:
            self.Q_out[gi], self.R_out[gi] = src[0][sel], src[1][sel]
            self.W_out[gi] = torch.matmul(src[0][sel], src[1][sel].transpose(-1, -2))
        self.first[gi] = self.a_first[sel]

    def retire(self, solved: torch.Tensor, stalled: torch.Tensor, t: int) -> torch.Tensor:
        """Write out and drop the solved (snapshot) and stalled problems; return the kept mask."""
        if bool(solved.any()):
            self.write_out(solved, use_snap=True)
        if bool(stalled.any()):
            self.write_out(stalled, use_snap=False)
            self.stalled_at[self.idx[stalled]] = t
        keep = ~(solved | stalled)
        self.best, self.best_step = self.best[keep], self.best_step[keep]
        self.idx, self.a_first = self.idx[keep], self.a_first[keep]
        self.E, self.U = self.E[keep], self.U[keep]
        self.C = None if self.C is None else self.C[keep]
        self.opt.select(keep)
        self.snaps = [s[keep] for s in self.snaps]
        self.all_found = not self.on_gpu and bool((self.a_first >= 0).all())
        return keep

    def finish(self, early_stop: bool) -> None:
        """Write out the problems still active when the budget ran out."""
        if self.size == 0:
            return
        if early_stop:
            done = self.a_first >= 0
        else:
            done = torch.zeros_like(self.a_first, dtype=torch.bool)
        if bool(done.any()):
            self.write_out(done, use_snap=True)
        if bool((~done).any()):
            self.write_out(~done, use_snap=False)


def _to_retire(
    state: _BatchState,
    mean_loss: torch.Tensor,
    t: int,
    early_stop: bool,
    patience: int | None,
) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Apply the stopping rules at a check step: (solved, stalled) masks (B_a,) bool, or None.

    Solved: perfect recall reached (``early_stop`` only). Stalled: unsolved and the mean loss
    has not dropped below 0.99 of its best within ``patience`` steps (updates the stall record).
    """
    done = state.a_first >= 0
    stall = torch.zeros_like(done)
    if patience is not None:
        lm = mean_loss.double()
        better = lm < 0.99 * state.best
        state.best = torch.where(better, lm, state.best)
        state.best_step = torch.where(better, torch.full_like(state.best_step, t), state.best_step)
        stall = (~done) & (t - state.best_step >= patience)
    any_solved = early_stop and bool(done.any())
    if not any_solved and not (patience is not None and bool(stall.any())):
        return None
    return (done if any_solved else torch.zeros_like(done)), stall


class _History:
    """Loss and accuracy of every problem at the check steps (NaN once a problem has stopped)."""

    def __init__(self, batch_size: int, record_weights: bool = False) -> None:
        self.batch_size = batch_size
        self.record_weights = record_weights
        self.step: list[int] = []
        self.loss: list[np.ndarray] = []
        self.accuracy: list[np.ndarray] = []
        self.weights: list[np.ndarray] = []

    def record(self, t: int, idx: torch.Tensor, mean_loss: torch.Tensor, rec: torch.Tensor) -> None:
        """Append step ``t``: mean loss (B_a,) and recall (B_a, p) of active problems ``idx``."""
        lo = torch.full((self.batch_size,), math.nan, dtype=torch.float64)
        ac = torch.full((self.batch_size,), math.nan, dtype=torch.float64)
        i = idx.cpu()
        lo[i] = mean_loss.double().cpu()
        ac[i] = rec.double().mean(-1).cpu()
        self.step.append(t)
        self.loss.append(lo.numpy())
        self.accuracy.append(ac.numpy())

    def record_w(self, idx: torch.Tensor, W: torch.Tensor) -> None:
        """Append the memories ``W`` (B_a, d, d) of active problems ``idx`` (NaN for the others)."""
        d = W.shape[-1]
        out = np.full((self.batch_size, d, d), np.nan, dtype=np.float32)
        out[idx.cpu().numpy()] = W.detach().float().cpu().numpy()
        self.weights.append(out)

    def arrays(self) -> dict[str, np.ndarray]:
        """``{"step": (n,), "loss": (n, B), "accuracy": (n, B)}`` (+ ``"weights"`` (n, B, d, d))."""
        out = {
            "step": np.asarray(self.step),
            "loss": np.stack(self.loss),
            "accuracy": np.stack(self.accuracy),
        }
        if self.record_weights:
            out["weights"] = np.stack(self.weights)
        return out


def _result(
    state: _BatchState,
    history: _History,
    batch: MemoryProblem,
    steps: int,
    early_stop: bool,
    was_batched: bool,
) -> TrainResult:
    """Assemble the :class:`TrainResult` (unbatched fields for a single unbatched problem)."""
    first_np = state.first.cpu().numpy()
    perfect_step = [int(s) if s >= 0 else None for s in first_np]
    stall_np = state.stalled_at.cpu().numpy()
    steps_run = np.where(stall_np >= 0, stall_np, steps)
    if early_stop:
        steps_run = np.where(first_np >= 0, first_np, steps_run)
    acc = recall_accuracy(state.W_out, batch)
    hist = history.arrays()
    factors = None
    if state.Q_out is not None and state.R_out is not None:
        factors = (state.Q_out, state.R_out)
    if was_batched:
        return TrainResult(state.W_out, np.asarray(acc), perfect_step, steps_run, hist, factors)
    return TrainResult(
        state.W_out[0],
        float(np.asarray(acc).ravel()[0]),
        perfect_step[0],
        int(steps_run[0]),
        {k: v if k == "step" else v[:, 0] for k, v in hist.items()},
        None if factors is None else (factors[0][0], factors[1][0]),
    )


def train_memory(
    problems: MemoryProblem | Sequence[MemoryProblem],
    *,
    rank: int | None = None,
    steps: int = 4000,
    lr: float | None = None,
    check_every: int = 25,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    init_scale: float = 0.1,
    seed: int = 0,
    early_stop: bool = True,
    patience: int | None = None,
    device: str | torch.device | None = None,
    progress: bool = False,
    record_weights: bool = False,
) -> TrainResult:
    """Train a linear memory by full-batch softmax cross-entropy and Adam, batched over problems.

    Loss (per problem), over all ``p`` candidates of each input (OP: all targets; DP: the target
    and its ``p - 1`` private competitors):

        L(W) = -(1/p) sum_mu log softmax_nu(S[mu, :])[mu],   S = score_matrix(W, problem).

    Parameters
    ----------
    problems : MemoryProblem or sequence of MemoryProblem
        One problem, a batched problem (:func:`assocmem.linear.instances.sampling.sample_problems`)
        or a list of problems with equal ``p``, ``d`` and kind; all train together as one (B, d, d)
        computation.
    rank : int or None
        ``None``: full-rank ``W``, ``W_0 = 0``. ``m`` (1 <= m <= d): factored ``W = Q R^T`` with
        ``Q, R`` of shape (d, m), initialised i.i.d. ``N(0, init_scale^2 / d)``: problem ``i``
        draws them from ``child(stream_i, 0, seed)`` (:func:`assocmem.streams.child`), ``stream_i``
        its own random stream (:attr:`MemoryProblem.stream`; for a problem built by hand,
        ``child(0, i)``, its batch position), so a problem starts from the same factors in any
        batch, independent of its data; Adam on ``Q`` and ``R`` (chapter 4).
    steps : int
        Budget of Adam updates (>= 1).
    lr : float or None
        Adam learning rate (> 0), constant; ``None`` means 5.0 for full rank and 0.5 for
        ``rank=m`` (about the fastest at d = 32 in both cases). The full-rank 5.0 suits ``W`` with
        N(0, I/d) embeddings: the problem is scale free and perfect recall needs a large
        ``||W||`` (a soft-max at low temperature), so a large rate gets there in fewer steps; at
        d = 12-16 it found every instance the exact LP calls feasible within 4000 steps, and
        at d = 32 it needed 3-10x fewer steps than lr = 1 or 20 near capacity. For ``rank`` (two
        factors, quadratic in the step) 2.0 was already 10-40x slower than 0.5 at d = 32.
    check_every : int
        Interval (>= 1) at which the history is recorded and finished problems are removed from
        the batch. Recall itself is checked at *every* step on the scores the gradient step computes
        anyway, so ``perfect_step`` is exact and the returned ``W`` of a successful problem is the
        first perfect one (snapshot), even if later updates would lose a constraint again.
    betas, eps : Adam constants.
    init_scale : float
        Scale of the factor initialisation (``rank`` only).
    seed : int
        Which initialisation of each problem, >= 0: the key of its child stream (``rank`` only;
        full rank is deterministic).
    early_stop : bool
        Stop each problem at its first perfect step and return that ``W`` (True), or run the
        whole budget and return the final ``W`` (False; ``perfect_step`` is still recorded).
    patience : int or None
        Stall stop: an unsolved problem whose lowest loss (at check steps) has not dropped by at
        least 1 % within the last ``patience`` steps is stopped as "not stored". On a separable
        problem the loss keeps falling (``||W||`` grows), on a non-separable one it settles at the
        finite minimum of the cross-entropy within a few hundred steps, so this saves most of the
        budget above capacity. ``None`` (default) runs the full budget. Checked at check steps, so
        use a multiple of ``check_every``. (Validated against
        :func:`assocmem.linear.storage.lp.lp_feasible` at d = 12, 16 in the tests; a heuristic, not
        a proof of infeasibility.)
    device : str, torch.device or None
        Device of the computation; problems are moved there if needed.
    progress : bool
        Show a tqdm bar over steps.
    record_weights : bool
        Also keep a copy of every problem's ``W`` at each check step, as
        ``history["weights"]``, float32 numpy of shape (n, B, d, d) ((n, d, d) for one unbatched
        problem), NaN once a problem has stopped; on the CPU. Costs ``n B d^2`` floats; for
        watching the direction of ``W`` over time (chapter 1, with ``early_stop=False``).

    Returns
    -------
    TrainResult
        Unbatched fields for a single unbatched problem, batched (B, ...) otherwise.

    Raises
    ------
    TypeError, ValueError
        Bad arguments (``steps``/``check_every`` < 1, ``lr`` <= 0, ``rank`` outside [1, d], ...).

    Notes
    -----
    Cost per step and problem ~ ``4 p^2 d + 4 p d^2`` flops (plus ``6 d^2 m`` for ``rank``), in
    float32. Memory: the OP score matrix is processed in row blocks (about 1 MB per problem on
    the CPU), so beyond the problem itself training needs O(B p d) numbers; for the DP, removing
    finished problems from the batch copies the remaining competitors once, so the peak can reach
    twice the competitor tensor at that moment. Adam's step size is scale free while ``||W||``
    grows on separable data, so the relative step shrinks over time (an implicit annealing): this
    is what lets a constant ``lr`` settle into narrow feasible regions near capacity. The update
    is that of ``torch.optim.Adam`` (no weight decay), on ``W`` or on ``Q`` and ``R``, through
    its public functional form :func:`torch.optim.adam.adam` with ``fused=True`` where the
    device supports it and ``foreach=True`` otherwise.
    Reproducibility: the same problems in the same batch, on the same device, give the same bits
    on every run and at any thread count (the tests assert it bit for bit). A problem trained
    alone or in another batch takes other kernel paths (batched products round differently), so
    its ``W`` may differ in the last float32 bits and, near a tie, its ``perfect_step`` by a step.
    Source: the loss of chapter 1, eq. ``eq-ce`` (written plainly in
    :func:`cross_entropy_loss_and_grad`), the factored ``W = Q R^T`` of chapter 4, eq.
    ``eq-rank-model``; protocol of the digest §9 (reconstruction; lr and stopping rules tuned here).
    """
    steps = check_int("steps", steps, 1)
    check_every = check_int("check_every", check_every, 1)
    lr = check_positive("lr", lr if lr is not None else (5.0 if rank is None else 0.5))
    if lr > 1e6:
        raise ValueError(f"lr must be <= 1e6 (Adam steps of that size overflow float32), got {lr}")
    eps = check_positive("eps", eps)
    init_scale = check_positive("init_scale", init_scale)
    seed = check_int("seed", seed, 0)
    if patience is not None:
        patience = check_int("patience", patience, 1)
    if len(betas) != 2 or not all(0.0 <= b < 1.0 for b in betas):
        raise ValueError(f"betas must be two numbers in [0, 1), got {betas!r}")
    batch, was_batched = _as_batched(problems)
    d, B = batch.d, batch.batch_size
    if rank is not None:
        rank = check_int("rank", rank, 1)
        if rank > d:
            raise ValueError(f"rank must be in [1, d={d}], got {rank}")
    dev = get_device(device) if device is not None else batch.device
    if batch.device != dev:
        batch = batch.to(dev)

    # the factors of a problem follow its own stream (its batch position if it has none)
    own = batch.stream if isinstance(batch.stream, tuple) else ()
    inits = [child(s if s is not None else child(0, i), 0, seed)
             for i, s in enumerate(own + (None,) * (B - len(own)))]  # fmt: skip
    params = _initial_params(inits, d, rank, init_scale, dev)
    state = _BatchState(batch, rank, _BatchAdam(params, lr, betas, eps))
    if not isinstance(record_weights, bool):
        raise TypeError(f"record_weights must be a bool, got {type(record_weights).__name__}")
    history = _History(B, record_weights)
    bar = tqdm(total=steps, desc="train_memory", leave=False) if progress else None
    t = 0
    while True:
        if dev.type == "cpu":
            share_cores()  # threads that yield to other processes (assocmem.device)
        rec, loss, grad = state.evaluate(need_grad=t < steps)
        state.note_perfect(rec, t)  # every step: perfect_step is exact
        last = t >= steps
        if t % check_every == 0 or last:
            mean_loss = loss.mean(-1)
            history.record(t, state.idx, mean_loss, rec)
            if record_weights:
                history.record_w(state.idx, state.current_weights())
            retiring = _to_retire(state, mean_loss, t, early_stop, patience)
            if retiring is not None:
                keep = state.retire(*retiring, t)
                grad = None if grad is None else grad[keep]
                if state.size == 0:
                    break
        if last:
            break
        assert grad is not None
        state.step(grad)
        t += 1
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    state.finish(early_stop)
    return _result(state, history, batch, steps, early_stop, was_batched)


def _qr(params: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(Q, R^T)`` of the factors ``[Q, R]``."""
    return params[0], params[1].transpose(-1, -2)


def training_flops(p: int, d: int, rank: int | None = None) -> float:
    """Count the floating-point operations of one :func:`train_memory` step for one problem.

    Parameters
    ----------
    p, d : int
        Number of associations (>= 2) and embedding dimension (>= 1).
    rank : int or None
        ``m`` in ``1..d`` for a factored ``W = Q R^T``; ``None`` for full rank.

    Returns
    -------
    float
        ``4 p^2 d`` (scores and their back-projection) ``+ 4 p d^2`` (``W e`` and the
        outer-product sum), ``+ 6 d^2 m`` for a factored ``W``; elementwise work is not counted.

    Raises
    ------
    TypeError, ValueError
        If a size is not an integer in range (``rank`` above ``d`` included).
    """
    p = check_int("p", p, 2)
    d = check_int("d", d, 1)
    if rank is not None and check_int("rank", rank, 1) > d:
        raise ValueError(f"rank must be in [1, d={d}], got {rank}")
    extra = 0.0 if rank is None else 6.0 * d * d * rank
    return 4.0 * p * p * d + 4.0 * p * d * d + extra


def hebbian_memory(problem: MemoryProblem) -> torch.Tensor:
    """Hebbian (correlation-matrix) memory ``W = sum_mu u_mu e_mu^T``.

    Parameters
    ----------
    problem : MemoryProblem
        Unbatched or batched; the competitors of a DP are not used.

    Returns
    -------
    torch.Tensor, float32, shape (d, d) or (B, d, d)

    Notes
    -----
    Chapter 3, eq. ``eq-hebb``. Source: digest §5.1; Barnfield et al. (arXiv:2605.05189) prove its
    perfect-recall threshold ``d^2 = 8 p log p`` (alpha = 1/8).
    """
    if not isinstance(problem, MemoryProblem):
        raise TypeError(f"problem must be a MemoryProblem, got {type(problem).__name__}")
    return torch.matmul(problem.targets.transpose(-1, -2), problem.inputs)
