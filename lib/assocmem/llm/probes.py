"""Probes of context-gated retrieval in a language model (paper §4; digest §6).

Mapping (paper §4.1): memories zeta^mu = rows of the unembedding W_U (the whole vocabulary); query
q = zero-shot last-token state; context vector c-bar^(l) = mean over n queries of
h_ICL^(l) - h_zero^(l); gate projection P = I; alpha = 0 and the lambda^2 feedback term dropped,
giving the additive (first-order) score r = W_U (h_zero^(L) + lambda c-bar^(l)).

Final norm: every decoding here applies the model's final RMSNorm before W_U (logit lens), so the
decoded logits at layer L are the model's own logits. For the additive score the norm's 1/rms
factor is a positive scalar per query and leaves the argmax unchanged; the argmax therefore equals
that of the linear score of Eq. (7) with memories zeta^mu = g * W_U[mu] (g = the norm's gain).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from assocmem._validate import check_index_array
from assocmem.llm.models import LanguageModel

__all__ = [
    "final_norm",
    "decode",
    "effective_number",
    "layer_profile",
    "context_vector",
    "additive_logits",
    "label_accuracy",
    "additive_accuracy",
    "LamaEffect",
    "lama_context_effect",
    "log_partition",
]


def _w_u(lm: LanguageModel) -> torch.Tensor:
    """W_U as float32 on its own device (a float32 model's weight is used without a copy)."""
    w = lm.unembedding.detach()
    if w.dtype == torch.float32:
        return w
    cached = lm.__dict__.get("_w_u32")
    if cached is None:
        cached = w.float()
        lm.__dict__["_w_u32"] = cached
    return cached


def _normed(lm: LanguageModel, h: torch.Tensor) -> torch.Tensor:
    """RMSNorm_final(h) as float32 on the unembedding's device."""
    norm = lm.final_norm
    with torch.inference_mode():
        out = norm(h.to(device=norm.weight.device, dtype=norm.weight.dtype))
    return out.float().to(lm.unembedding.device)


def final_norm(lm: LanguageModel, h: torch.Tensor) -> torch.Tensor:
    """Apply the model's final RMSNorm to residual states.

    Parameters
    ----------
    lm : LanguageModel
        The model whose final norm (:attr:`LanguageModel.final_norm`) is applied.
    h : torch.Tensor, shape (..., d)
        Residual-stream states.

    Returns
    -------
    torch.Tensor, shape (..., d), float32, on the CPU
    """
    return _normed(lm, h).cpu()


def _logits(lm: LanguageModel, h: torch.Tensor, ids: torch.Tensor | None = None) -> torch.Tensor:
    w = _w_u(lm)
    if ids is not None:
        w = w[ids.to(w.device)]
    with torch.inference_mode():
        return _normed(lm, h) @ w.T


def _checked_ids(lm: LanguageModel, name: str, ids: object) -> torch.Tensor:
    """Token ids as an int64 tensor, each in ``[0, vocab)`` (TypeError/ValueError naming them)."""
    arr = ids.detach().cpu().numpy() if isinstance(ids, torch.Tensor) else ids
    return torch.as_tensor(check_index_array(name, arr, lm.unembedding.shape[0]))


def decode(lm: LanguageModel, h: torch.Tensor, ids: torch.Tensor | None = None) -> torch.Tensor:
    """Logit lens: W_U RMSNorm(h) (paper §4.1, with the final norm; see the module notes).

    Parameters
    ----------
    lm : LanguageModel
        The model (its final norm and unembedding W_U).
    h : torch.Tensor, shape (..., d)
        Residual-stream states at any layer.
    ids : torch.Tensor, int64, shape (K,), optional
        Restrict the logits to these token ids.

    Returns
    -------
    torch.Tensor, shape (..., V) or (..., K), float32, on the CPU
        Computed on the model's device.

    Raises
    ------
    TypeError, ValueError
        If ``ids`` is not a 1-D array of integer token ids in ``[0, V)``.
    """
    if ids is not None:
        ids = _checked_ids(lm, "ids", ids)
    return _logits(lm, h, ids).cpu()


def effective_number(logits: torch.Tensor, kind: str = "entropy") -> torch.Tensor:
    """Effective number of memories of p = softmax(logits) over the last axis.

    Parameters
    ----------
    logits : torch.Tensor, shape (..., V)
    kind : {"entropy", "participation"}
        ``"entropy"``: N_eff = exp(-sum p log p) (exp of the Shannon entropy);
        ``"participation"``: N_eff = 1 / sum p^2 (participation ratio).

    Returns
    -------
    torch.Tensor, float64, shape (...)
        In [1, V]: 1 for a one-hot p, V for the uniform p.

    Raises
    ------
    ValueError
        Unknown kind.

    Notes
    -----
    The paper's N_eff formula was not recovered (digest §6.3); both are standard choices.

    Examples
    --------
    Uniform logits over V = 4 tokens give V; a one-hot distribution gives 1:

    >>> effective_number(torch.zeros(4)).item()
    4.0
    >>> effective_number(torch.zeros(4), kind="participation").item()
    4.0
    >>> effective_number(torch.tensor([0.0, -float("inf"), -float("inf")])).item()
    1.0
    """
    logp = torch.log_softmax(logits.double(), dim=-1)
    p = logp.exp()
    if kind == "entropy":
        return torch.exp(-(p * logp).nan_to_num().sum(-1))
    if kind == "participation":
        return 1.0 / (p * p).sum(-1)
    raise ValueError(f"kind must be 'entropy' or 'participation', got {kind!r}")


def layer_profile(
    lm: LanguageModel,
    h: torch.Tensor,
    label_ids: torch.Tensor,
    *,
    chunk: int | None = None,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Logit-lens statistics of states h (n, L + 1, d) at every layer (paper §4.2, Fig. 4).

    Parameters
    ----------
    lm : LanguageModel
        The model used to decode.
    h : torch.Tensor, shape (n, L + 1, d)
        Last-token states of n prompts at every layer.
    label_ids : torch.Tensor, int64, shape (K,)
        Token ids of the label words.
    chunk : int or None
        States decoded per product (memory: two buffers of chunk · V floats); None: 64, or
        fewer where two buffers would exceed 256 MB.
    progress : bool
        Show a progress bar.

    Returns
    -------
    dict of numpy arrays, shape (n, L + 1)
        ``neff_entropy``, ``neff_participation`` (as :func:`effective_number`, computed in
        float32: relative differences of order 1e-5) and ``label_mass`` (probability on the
        label tokens, summed); plus ``label_logits`` of shape (n, L + 1, K).
    """
    label_ids = _checked_ids(lm, "label_ids", label_ids)
    flat = h.reshape(-1, h.shape[-1])
    parts: dict[str, list[torch.Tensor]] = {
        "neff_entropy": [],
        "neff_participation": [],
        "label_mass": [],
        "label_logits": [],
    }
    w = _w_u(lm)
    if chunk is None:  # 64 states per product, fewer for a huge vocabulary (<= 128 MB a buffer)
        chunk = max(1, min(64, (1 << 25) // w.shape[0]))
    # two buffers reused by every chunk: fresh (chunk, V) tensors cost a page fault per 4 kB
    z_buf = torch.empty(min(chunk, len(flat)), w.shape[0], dtype=torch.float32, device=w.device)
    e_buf = torch.empty_like(z_buf)
    for start in tqdm(range(0, len(flat), chunk), disable=not progress, desc="logit lens"):
        x = _normed(lm, flat[start : start + chunk])
        with torch.inference_mode():
            z, e = z_buf[: len(x)], e_buf[: len(x)]
            torch.matmul(x, w.T, out=z)  # the logits
            ids = label_ids.to(z.device)
            parts["label_logits"].append(z[:, ids].cpu())
            # one float32 pass serves all three statistics (V = 262,144 for Gemma-3): with
            # z = logits - max, e = exp(z) and s = sum e, p = e / s, so
            # -sum p log p = log s - (e . z) / s, 1 / sum p^2 = s^2 / (e . e), mass = sum_ids e / s
            z.sub_(z.amax(-1, keepdim=True))
            torch.exp(z, out=e)
            total = e.sum(-1)
            ez = torch.bmm(e[:, None, :], z[:, :, None])[:, 0, 0]
            ee = torch.bmm(e[:, None, :], e[:, :, None])[:, 0, 0]
        parts["neff_entropy"].append(torch.exp(total.log() - ez / total).double().cpu())
        parts["neff_participation"].append((total * total / ee).double().cpu())
        parts["label_mass"].append((e[:, ids].sum(-1) / total).double().cpu())
    shape = h.shape[:-1]
    out = {k: torch.cat(v).numpy().reshape(*shape, *v[0].shape[1:]) for k, v in parts.items()}
    return out


def context_vector(h_icl: torch.Tensor, h_zero: torch.Tensor) -> torch.Tensor:
    """c-bar = mean over queries of (h_ICL - h_zero): chapter 6, eq. ``eq-llm-context-vector``.

    Paper Eq. (6) of §4.1.

    Parameters
    ----------
    h_icl, h_zero : torch.Tensor, shape (n, ..., d)
        Matched states of the same n queries with and without demonstrations.

    Returns
    -------
    torch.Tensor, shape (..., d)

    Raises
    ------
    ValueError
        If the shapes differ or n = 0.
    """
    if h_icl.shape != h_zero.shape:
        raise ValueError(f"h_icl {tuple(h_icl.shape)} and h_zero {tuple(h_zero.shape)} differ")
    if h_icl.shape[0] == 0:
        raise ValueError("need at least one query (n >= 1)")
    return (h_icl - h_zero).mean(dim=0)


def additive_logits(
    lm: LanguageModel,
    h_query: torch.Tensor,
    c: torch.Tensor,
    lambdas: Sequence[float] | np.ndarray,
    ids: torch.Tensor,
) -> torch.Tensor:
    """Additive score r = W_U RMSNorm(h_query + lambda c) on tokens ``ids``.

    Paper Eq. (7) of §4.1 (chapter 6, eq. ``eq-llm-additive``), with the final norm applied before
    W_U (logit lens; it does not change the argmax, see the module notes).

    Parameters
    ----------
    h_query : torch.Tensor, shape (n, d)
        Zero-shot states at the query layer.
    c : torch.Tensor, shape (d,)
        Context vector from the context layer.
    lambdas : sequence of float, length m
    ids : torch.Tensor, int64, shape (K,)

    Returns
    -------
    torch.Tensor, shape (m, n, K)
    """
    lam = torch.as_tensor(np.asarray(lambdas, dtype=np.float32))
    x = h_query[None, :, :] + lam[:, None, None] * c[None, None, :]
    return decode(lm, x, ids)


def label_accuracy(label_logits: torch.Tensor | np.ndarray, labels: np.ndarray) -> float:
    """Fraction of rows whose argmax over the K label logits is the correct label.

    Parameters
    ----------
    label_logits : torch.Tensor or numpy.ndarray, shape (n, K)
        Logits of the K label tokens.
    labels : numpy.ndarray, int, shape (n,)
        Correct label indices in [0, K).

    Returns
    -------
    float
        Accuracy in [0, 1].

    Raises
    ------
    TypeError
        If ``labels`` is not a 1-D array of integers (a float is no label index).
    ValueError
        If a label is outside ``[0, K)`` or the shapes disagree.
    """
    logits = np.asarray(label_logits)
    y = check_index_array("labels", labels, logits.shape[-1])
    if logits.ndim != 2 or y.shape != logits.shape[:1]:
        raise ValueError(f"labels must hold one label per row of label_logits {logits.shape}, "
                         f"got {y.shape}")  # fmt: skip
    return float((logits.argmax(-1) == y).mean())


def additive_accuracy(
    lm: LanguageModel,
    c_bar: torch.Tensor,
    h_query: torch.Tensor,
    labels: np.ndarray,
    label_ids: torch.Tensor,
    layers: Sequence[int],
    lambdas: Sequence[float] | np.ndarray,
) -> np.ndarray:
    """Accuracy of argmax_labels W_U(h_zero^(L) + lambda c-bar^(l)) per context layer and lambda.

    Parameters
    ----------
    c_bar : torch.Tensor, shape (L + 1, d)
        Context vectors of every layer (from held-out queries).
    h_query : torch.Tensor, shape (n, d)
        Zero-shot states of the evaluated queries at the query layer (L).
    labels : numpy.ndarray, shape (n,)
    layers : sequence of int in [0, L]
    lambdas : sequence of float

    Returns
    -------
    numpy.ndarray, shape (len(layers), len(lambdas))

    Raises
    ------
    TypeError, ValueError
        If a layer is not an integer in ``[0, L]``, or ``labels`` not integer indices of the
        label tokens (:func:`label_accuracy`).
    """
    layers = check_index_array("layers", np.asarray(layers), lm.n_layers + 1).tolist()
    acc = np.empty((len(layers), len(lambdas)))
    for i, ell in enumerate(layers):
        logits = additive_logits(lm, h_query, c_bar[ell], lambdas, label_ids)
        acc[i] = [label_accuracy(lg, labels) for lg in logits]
    return acc


@dataclass(frozen=True)
class LamaEffect:
    """Target statistics under supportive (+) and adversarial (-) context vectors.

    Attributes
    ----------
    lambdas : numpy.ndarray, shape (m,)
    layers : numpy.ndarray, int, shape (n_layers,)
        Context layers.
    energy, prob : numpy.ndarray, shape (2, n_layers, m)
        Mean over queries of the target's energy -r_target (negative normed logit of its first
        token) and of its whole-word probability; axis 0 is (+, -).
    prob_se : numpy.ndarray, shape (2, n_layers, m)
        Standard error of the mean probability over the n queries, ``s / sqrt(n)`` with ``s``
        the standard deviation with ``n - 1`` in its denominator (NaN for n = 1).
    energy0, prob0, prob0_se : float
        The same at lambda = 0 (zero-shot).
    prob_query : numpy.ndarray, shape (2, n_layers, m, n) or None
        The whole-word probability of each query's target (the values ``prob`` averages).
    """

    lambdas: np.ndarray
    layers: np.ndarray
    energy: np.ndarray
    prob: np.ndarray
    prob_se: np.ndarray
    energy0: float
    prob0: float
    prob0_se: float
    prob_query: np.ndarray | None = None


def log_partition(z: torch.Tensor) -> torch.Tensor:
    """Return log sum_v exp(z[..., v]) over the last axis, in float64; z is overwritten.

    The shift by the row maximum keeps exp() finite; the work is done in place (one exp pass and
    no copy of a (..., V) tensor, which for V = 262,144 costs more than the arithmetic:
    ``torch.logsumexp`` took 2.5 times as long here). The shared step of the whole-vocabulary
    statistics of chapter 6 (:func:`lama_context_effect`, the last-layer label mass).

    Examples
    --------
    >>> round(float(log_partition(torch.zeros(2, 4))[0]), 6) == round(float(np.log(4)), 6)
    True
    """
    with torch.inference_mode():
        top = z.amax(-1, keepdim=True)
        return z.sub_(top).exp_().sum(-1).double().log() + top[..., 0].double()


def _rms_scale(lm: LanguageModel, x: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    """Return the number s per row with RMSNorm_final(x) = s * (gain * x), shape x.shape[:-1].

    ``gain`` is the norm of a vector of ones (the norm's gain up to one constant factor), so the
    norm's output is ``s * (gain * x)`` exactly, s being a positive number per row; s is read off
    by least squares. Raises if the norm is not of that form (then the shortcut of
    :func:`lama_context_effect` would be wrong).
    """
    normed = _normed(lm, x)
    gx = gain * x.to(normed.device)
    s = (normed * gx).sum(-1) / (gx * gx).sum(-1).clamp_min(1e-30)
    err = (normed - s[..., None] * gx).abs().max()
    if not bool(err <= 1e-4 * normed.abs().max() + 1e-30):
        raise RuntimeError(f"the final norm is not gain * x / rms(x) (residual {float(err):.3g})")
    return s


def _scaled_sum_stats(
    a: torch.Tensor,
    b: torch.Tensor,
    inverse: torch.Tensor,
    lams: torch.Tensor,
    scale: torch.Tensor,
    tgt: torch.Tensor,
    chunk_elems: int = 1 << 22,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Target logit and log-partition of z[l, i] = scale[l, i] * (a[i] + lams[l] * b[inverse[i]]).

    ``a`` (n, V), ``b`` (folds, V): returns ``z[l, i, tgt[i]]`` and ``logsumexp_v z[l, i, v]``,
    both (m, n), computed in chunks of rows of at most ``chunk_elems`` numbers (the whole (m, n, V)
    tensor for Gemma-3 would hold 1.5 G numbers).
    """
    m, (n, v) = len(lams), a.shape
    rows = torch.arange(n, device=a.device)
    logit_t = scale * (a[rows, tgt] + lams[:, None] * b[inverse, tgt])
    lse = torch.empty(m, n, dtype=a.dtype, device=a.device)
    step = max(1, chunk_elems // (m * v))
    with torch.inference_mode():
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            z = torch.addcmul(a[r0:r1], lams[:, None, None], b[inverse[r0:r1]])  # (m, rc, V)
            lse[:, r0:r1] = log_partition(z.mul_(scale[:, r0:r1, None]))
    return logit_t, lse


def lama_context_effect(
    lm: LanguageModel,
    h_query: torch.Tensor,
    first_ids: torch.Tensor,
    continuation: np.ndarray,
    c_plus: torch.Tensor,
    c_minus: torch.Tensor,
    lambdas: Sequence[float] | np.ndarray,
    layers: Sequence[int],
) -> LamaEffect:
    """Energy and whole-word probability of each query's target under h + lambda c-bar^(l).

    The context vector is added at the last query position only (the additive score), so it
    changes the distribution of the target's first token; the later tokens of a multi-token
    target keep their zero-shot teacher-forced log-probabilities ``continuation``. The whole-word
    probability is ``p_add(first token) * exp(continuation)``.

    Parameters
    ----------
    h_query : torch.Tensor, shape (n, d)
        Zero-shot states at the last layer.
    first_ids : torch.Tensor, int64, shape (n,)
        First token of " <capital>" for each query.
    continuation : numpy.ndarray, shape (n,)
        Zero-shot log-probability of the target's remaining tokens (0 for one-token targets).
    c_plus, c_minus : torch.Tensor, shape (L + 1, d) or (n, L + 1, d)
        Context vectors, shared or per query (cross-fitted).
    lambdas : sequence of float, length m
    layers : sequence of int
        Context layers to sweep.

    Returns
    -------
    LamaEffect

    Raises
    ------
    TypeError, ValueError
        If a layer is not an integer in ``[0, L]`` or a first id is not a token id in
        ``[0, V)``.
    """
    layers = check_index_array("layers", np.asarray(layers), lm.n_layers + 1).tolist()
    first_ids = _checked_ids(lm, "first_ids", first_ids)
    lam = torch.as_tensor(np.asarray(lambdas, dtype=np.float32))
    dev = lm.unembedding.device
    n = len(first_ids)
    tgt = first_ids.to(dev)
    cont = torch.as_tensor(np.asarray(continuation, dtype=np.float64))
    w = _w_u(lm)
    # The final norm is g * x / rms(x): decoding h + lambda c is s * (A + lambda B) with
    # A = (g h) W_U^T once, B = (g c) W_U^T per context vector and s a number per row, so no
    # product with W_U is repeated per layer and lambda (_rms_scale checks the form).
    gain = _normed(lm, torch.ones(1, h_query.shape[-1]))[0]
    with torch.inference_mode():
        a = (gain * h_query.to(dev)) @ w.T  # (n, V)

    def stats(
        lams: torch.Tensor, c_l: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        c_u, inverse = torch.unique(c_l, dim=0, return_inverse=True)  # (folds, d): few rows
        inverse = inverse.expand(n) if c_l.shape[0] == 1 else inverse
        with torch.inference_mode():
            b = (gain * c_u.to(dev)) @ w.T  # (folds, V)
        x = h_query[None] + lams[:, None, None] * c_l[None]
        scale = _rms_scale(lm, x, gain)  # (m, n)
        logit_t, lse = _scaled_sum_stats(a, b, inverse.to(dev), lams.to(dev), scale, tgt)
        logp = (logit_t - lse).cpu().double()
        p = (logp + cont).exp()
        se = p.std(-1) / np.sqrt(n)  # s / sqrt(n), s the unbiased sd (NaN for one query)
        return -logit_t.mean(-1).cpu(), p.mean(-1), se, p

    e0, p0, s0, _ = stats(torch.zeros(1), torch.zeros(1, h_query.shape[-1]))
    shape = (2, len(layers), len(lam))
    energy, prob, prob_se = np.empty(shape), np.empty(shape), np.empty(shape)
    prob_query = np.empty((*shape, n))
    for sign, c in enumerate((c_plus, c_minus)):
        for i, ell in enumerate(layers):
            c_l = c[..., ell, :] if c.ndim == 3 else c[ell][None, :]
            e, p, se, pq = stats(lam, c_l)
            energy[sign, i], prob[sign, i], prob_se[sign, i] = e.numpy(), p.numpy(), se.numpy()
            prob_query[sign, i] = pq.numpy()
    return LamaEffect(np.asarray(lambdas, float), np.asarray(layers), energy, prob, prob_se,
                      float(e0), float(p0), float(s0), prob_query)  # fmt: skip
