"""Synthetic facts with fixed random unit-norm embeddings, and bits per parameter.

A fact set of N facts keys each fact by a frozen random unit-norm vector (the linear and MLP
memories read it) or by a (subject, relation) token pair (the one-layer transformer reads the two
tokens), and gives fact i its own answer i among M = N answers with frozen unit-norm output
embeddings: the protocol of ``mlp_sweep.py`` in ``eshnich/factual-recall-iclr`` (Nichani, Lee &
Bietti, arXiv 2412.06538, ``fixed_output=False``), so that the linear memory's problem is exactly
chapter 1's with N = p associations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from assocmem._validate import check_int
from assocmem.streams import Seed, child, torch_generator

__all__ = [
    "FactSet",
    "fact_set",
    "unit_rows",
    "bits_per_parameter",
    "OPTIMAL_BITS_PER_PARAMETER",
    "HEBBIAN_BITS_PER_PARAMETER",
    "N_RELATIONS",
]

#: Relations of the transformer's (subject, relation) queries; N facts use N / 4 subjects.
N_RELATIONS = 4

#: Chapter 2's optimal linear memory, p log p / d^2 -> 1/2, in bits: p log2 p / d^2 = 1/(2 ln 2).
OPTIMAL_BITS_PER_PARAMETER = 1.0 / (2.0 * math.log(2.0))
#: Chapter 3's Hebbian memory, p log p / d^2 -> 1/8, in bits: 1/(8 ln 2).
HEBBIAN_BITS_PER_PARAMETER = 1.0 / (8.0 * math.log(2.0))


def unit_rows(n: int, d: int, seed: Seed) -> torch.Tensor:
    """Return n i.i.d. random unit vectors in R^d, float32, shape (n, d), drawn on the CPU.

    Raises
    ------
    ValueError
        If n < 1 or d < 1.
    """
    n, d = check_int("n", n, 1), check_int("d", d, 1)
    x = torch.randn(n, d, generator=torch_generator(seed))
    return x / x.norm(dim=1, keepdim=True)


@dataclass(frozen=True)
class FactSet:
    """N facts: fact i has key ``keys[i]`` (or tokens ``(subject[i], relation[i])``), answer i.

    Attributes
    ----------
    keys : torch.Tensor, float32, shape (N, d)
        Frozen unit-norm key of each fact (the linear and MLP memories' input).
    answers : torch.Tensor, float32, shape (N, d)
        Frozen unit-norm output embedding of each answer; fact i's answer is i.
    tokens : torch.Tensor, float32, shape (N / 4 + 4, d)
        Frozen unit-norm embeddings of the subjects (first N / 4 rows) and the 4 relations.
    subject, relation : torch.Tensor, int64, shape (N,)
        The transformer's query of fact i: tokens ``subject[i]`` then ``N / 4 + relation[i]``.
    """

    keys: torch.Tensor
    answers: torch.Tensor
    tokens: torch.Tensor
    subject: torch.Tensor
    relation: torch.Tensor

    @property
    def n(self) -> int:
        """Number of facts N."""
        return int(self.keys.shape[0])


def fact_set(n: int, d: int, seed: Seed) -> FactSet:
    """Draw N facts in dimension d from one stream.

    Parameters
    ----------
    n : int
        Number of facts N, a multiple of :data:`N_RELATIONS` and >= 8.
    d : int
        Embedding dimension, >= 2.
    seed : int or numpy.random.SeedSequence
        The stream; keys, answers and tokens come from its children ``"keys"``, ``"answers"``,
        ``"tokens"``.

    Returns
    -------
    FactSet

    Raises
    ------
    ValueError
        If n is not a multiple of 4 or below 8, or d < 2.
    """
    n = check_int("n", n, 8)
    d = check_int("d", d, 2)
    if n % N_RELATIONS:
        raise ValueError(f"n must be a multiple of {N_RELATIONS}, got {n}")
    n_subj = n // N_RELATIONS
    idx = torch.arange(n)
    return FactSet(
        keys=unit_rows(n, d, child(seed, "keys")),
        answers=unit_rows(n, d, child(seed, "answers")),
        tokens=unit_rows(n_subj + N_RELATIONS, d, child(seed, "tokens")),
        subject=idx // N_RELATIONS,
        relation=idx % N_RELATIONS,
    )


def bits_per_parameter(n_facts: float, n_answers: float, n_params: int) -> float:
    """Storage in bits per trained parameter: N log2 M / P (the book's declared measure).

    Exact top-1 recall of N facts, each with one of M equally likely answers, holds N log2 M bits.

    Parameters
    ----------
    n_facts : float
        N >= 1 (a mean capacity may be fractional).
    n_answers : float
        M >= 1.
    n_params : int
        Trained parameters P >= 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    A linear memory (P = d^2 = 64) storing p = 16 facts over 16 answers holds 16 * 4 bits:

    >>> bits_per_parameter(16, 16, 64)
    1.0
    """
    if not n_facts >= 1 or not n_answers >= 1:
        raise ValueError(f"n_facts and n_answers must be >= 1, got {n_facts}, {n_answers}")
    n_params = check_int("n_params", n_params, 1)
    return float(n_facts * math.log2(n_answers) / n_params)
