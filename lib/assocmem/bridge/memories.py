"""The three memories of chapter 7a, trained on one :class:`~.facts.FactSet`.

- the linear memory of chapter 1, trained by its own engine
  (:func:`assocmem.linear.storage.training.train_memory`, cross-entropy + Adam, P = d^2);
- a one-hidden-layer MLP memory ``F(x) = W_2 relu(W_1 x + b_1)`` read out against the frozen
  answer embeddings (P = 2 d m + m), as ``MLP`` in ``mlp_sweep.py`` of
  ``eshnich/factual-recall-iclr`` (Adam, lr 3e-2, stop at 99 % accuracy);
- a one-layer transformer (one causal attention head, then an MLP of width m, residual stream,
  frozen token and answer embeddings) reading the subject and relation tokens
  (P = 4 d^2 + 2 d m + m).

Every function returns the top-1 recall of the N facts (fact i's answer is i among the N answers).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from assocmem._validate import check_int
from assocmem.bridge.facts import FactSet
from assocmem.linear.instances.problems import MemoryProblem, recall_accuracy
from assocmem.linear.storage.training import train_memory
from assocmem.streams import Seed, torch_generator

__all__ = [
    "MEMORIES",
    "n_parameters",
    "train_linear",
    "train_mlp",
    "train_attention",
    "MLPMemory",
    "AttentionMemory",
    "Trainer",
]

#: A memory's trainer: ``(facts, width, seed, steps) -> top-1 recall``.
Trainer = Callable[[FactSet, int, Seed, int], float]


def n_parameters(memory: str, d: int, width: int) -> int:
    """Trained parameters P of a memory (frozen embeddings excluded).

    Parameters
    ----------
    memory : {"linear", "mlp", "transformer"}
    d : int
        Embedding dimension.
    width : int
        Hidden width m of the MLP (ignored by the linear memory).

    Returns
    -------
    int
        d^2, 2 d m + m, or 4 d^2 + 2 d m + m.

    Raises
    ------
    ValueError
        Unknown memory.

    Examples
    --------
    >>> n_parameters("linear", 8, 8), n_parameters("mlp", 8, 8), n_parameters("transformer", 8, 8)
    (64, 136, 392)
    """
    if memory == "linear":
        return d * d
    if memory == "mlp":
        return 2 * d * width + width
    if memory == "transformer":
        return 4 * d * d + 2 * d * width + width
    raise ValueError(f"memory must be one of {sorted(MEMORIES)}, got {memory!r}")


def train_linear(facts: FactSet, width: int, seed: Seed, steps: int) -> float:
    """Chapter 1's linear memory on the facts (inputs = keys, targets = answers); its recall.

    ``width`` and ``seed`` are unused (full-rank training starts from W = 0, deterministically).
    """
    problem = MemoryProblem(inputs=facts.keys, targets=facts.answers)
    res = train_memory(problem, steps=steps, patience=max(25, steps // 4), check_every=25)
    return float(recall_accuracy(res.weights, problem))


def _init_(module: nn.Module, gen: torch.Generator) -> None:
    """Initialise every Linear like torch's default (uniform +-1/sqrt(fan_in)), from ``gen``."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.in_features)
                m.weight.uniform_(-bound, bound, generator=gen)
                if m.bias is not None:
                    m.bias.uniform_(-bound, bound, generator=gen)


class MLPMemory(nn.Module):
    """``x -> W_2 relu(W_1 x + b_1)``, shape (..., d) -> (..., d) (``mlp_sweep.py``'s ``MLP``)."""

    def __init__(self, d: int, width: int) -> None:
        super().__init__()
        self.layer1 = nn.Linear(d, width)
        self.layer2 = nn.Linear(width, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return W_2 relu(W_1 x + b_1)."""
        return self.layer2(torch.relu(self.layer1(x)))


class AttentionMemory(nn.Module):
    """One transformer layer on a token sequence: causal single-head attention, then an MLP.

    ``h = x + W_O softmax(causal(x W_Q (x W_K)^T / sqrt(d))) x W_V``, then ``h + MLP(h)``; shapes
    (B, T, d) -> (B, T, d). No norms: the frozen embeddings are unit vectors.
    """

    def __init__(self, d: int, width: int) -> None:
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.mlp = MLPMemory(d, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the layer's output states, shape (B, T, d)."""
        t = x.shape[1]
        scores = self.q(x) @ self.k(x).transpose(1, 2) / math.sqrt(x.shape[-1])
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        h = x + self.o(att @ self.v(x))
        return h + self.mlp(h)


def _fit(
    model: nn.Module,
    inputs: torch.Tensor,
    readout: Callable[[torch.Tensor], torch.Tensor],
    answers: torch.Tensor,
    steps: int,
    lr: float,
) -> float:
    """Full-batch Adam on the cross-entropy of ``readout(model(inputs)) @ answers^T``.

    Stops when top-1 recall reaches 0.99 (checked every 25 steps, as ``mlp_sweep.py``'s stop), or
    when the best recall has not risen by 0.01 within ``patience`` steps (a stall: not stored);
    returns the best recall seen.
    """
    steps = check_int("steps", steps, 1)
    target = torch.arange(answers.shape[0])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    best, t_best, patience = 0.0, 0, max(100, steps // 4)
    for t in range(steps):
        logits = readout(model(inputs)) @ answers.T
        loss = nn.functional.cross_entropy(logits, target)
        if t % 25 == 0 or t == steps - 1:
            acc = float((logits.argmax(1) == target).float().mean())
            if acc >= best + 0.01:
                t_best = t
            best = max(best, acc)
            if best >= 0.99 or t - t_best > patience:
                break
        opt.zero_grad()
        loss.backward()
        opt.step()
    return best


def train_mlp(facts: FactSet, width: int, seed: Seed, steps: int, lr: float = 3e-2) -> float:
    """Train an :class:`MLPMemory` of width m on the facts' keys; its best top-1 recall."""
    model = MLPMemory(facts.keys.shape[1], check_int("width", width, 1))
    _init_(model, torch_generator(seed))
    return _fit(model, facts.keys, lambda h: h, facts.answers, steps, lr)


def train_attention(facts: FactSet, width: int, seed: Seed, steps: int, lr: float = 1e-2) -> float:
    """Train an :class:`AttentionMemory` on the (subject, relation) sequences; its top-1 recall."""
    n_subj = facts.tokens.shape[0] - 4
    seq = torch.stack([facts.subject, n_subj + facts.relation], dim=1)
    model = AttentionMemory(facts.keys.shape[1], check_int("width", width, 1))
    _init_(model, torch_generator(seed))
    return _fit(model, facts.tokens[seq], lambda h: h[:, -1], facts.answers, steps, lr)


#: The memories by name, in the order of the page.
MEMORIES: dict[str, Trainer] = {
    "linear": train_linear,
    "mlp": train_mlp,
    "transformer": train_attention,
}
