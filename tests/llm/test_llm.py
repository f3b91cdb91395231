"""Tests of assocmem.llm (chapter 6): offline resolution, extraction, probes, loaders, models.

Nothing here touches the network: HF_HUB_OFFLINE is set for every test, and the hub checks return
before opening a socket when it is set (tests/llm/conftest.py). The fixtures ``tiny`` (a random
Llama) and ``standin`` (the real stand-in, loaded once per session) are in conftest.py.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import re
from pathlib import Path

import jupytext
import numpy as np
import pytest
import torch
from _tolerances import product_tolerance, top_two_gap
from assocmem.llm import protocol as llm_protocol
from assocmem.llm.__main__ import build_parser, protocol_from_args
from assocmem.llm.data import EXAMPLES_LABEL, TASKS, Task, load_task
from assocmem.llm.experiments import (
    protocol_split,
    run_classification,
    run_lama,
    run_protocol_task,
)
from assocmem.llm.loaders import standin_gguf_path
from assocmem.llm.models import (
    LanguageModel,
    ModelUnavailableError,
    hub_reachable,
    load_model,
    resolve_model,
    wrap_model,
)
from assocmem.llm.plots import plot_accuracies, plot_additive, plot_lama, plot_probe, results_table
from assocmem.llm.probes import context_vector, decode, effective_number, final_norm
from assocmem.llm.prompts import demo_prefixes, encode, make_split
from assocmem.llm.protocol import Chapter6Protocol, default_layers
from assocmem.llm.registry import (
    ARCHITECTURES,
    MODELS,
    OFFLINE_MODELS,
    PAPER_MODEL,
    STANDIN,
    GGUFPackage,
    HubRepo,
)
from assocmem.llm.states import last_token_states, prompt_states

DATA_DIR = Path(
    os.environ.get(
        "ASSOCMEM_DATA_DIR", Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    )
)
HAVE_DATA = (DATA_DIR / "sst2" / "dev.tsv").is_file()
needs_data = pytest.mark.skipif(not HAVE_DATA, reason=f"real data not found in {DATA_DIR}")


# --------------------------------------------------------------------------- registry
def test_auto_resolves_to_standin_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    name, reason = resolve_model("auto")
    assert name == "smollm2-135m" and "stand-in" in reason
    # with a (pretend) GPU, the missing token or the offline hub is the reason
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr("assocmem.llm.models.hf_token", lambda: None)
    assert resolve_model("auto") == (
        "smollm2-135m",
        "offline stand-in; no Hugging Face token (set HF_TOKEN)",
    )
    monkeypatch.setattr("assocmem.llm.models.hf_token", lambda: "hf_dummy")
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
    assert max(len(t.split()) for t in ag.texts) <= 20
    for residue in ("#39;", "quot;", "&lt;", "&gt;", "<", "HREF", "\\"):
        assert not any(residue in t for t in ag.texts), residue
    assert ag.texts[0] == (  # the file's first article, cleaned by hand
        "Fears for T N pension after talks. Unions representing workers at Turner Newall say"
        " they are 'disappointed' after talks with"
    )
    trec = load_task("trec", data_dir=DATA_DIR)
    counts = dict(zip(trec.label_names, np.bincount(trec.labels).tolist(), strict=True))
    assert counts == {"ABBR": 9, "DESC": 138, "ENTY": 94, "HUM": 65, "LOC": 81, "NUM": 113}
    assert trec.texts[0] == "How far is it from Denver to Aspen ?"
    lama = load_task("lama_p36", data_dir=DATA_DIR)
    assert len(lama) == 471 and len(lama.label_words) == 251
    assert lama.label_words[lama.labels[lama.texts.index("France")]] == "Paris"
    sub = load_task("trec", data_dir=DATA_DIR, n=50, seed=3)
    assert len(sub) == 50 and sub.texts == load_task("trec", data_dir=DATA_DIR, n=50, seed=3).texts


def test_ag_news_html_is_removed_as_written_by_hand() -> None:
    from assocmem.llm.data import _cut

    raw = (
        'Co. Shares Jump. &lt;A HREF="http://www.investor.reuters.com/FullQuote.aspx?'
        'ticker=RSE.N target=/stocks/quickinfo/fullquote"&gt;RSE.N&lt;/A&gt; jumped. He isn #39;t'
        " sure;  quot;phone sex quot; for the  #36;10 fee\\\\n at 3 p.m."
    )
    want = 'Co. Shares Jump. RSE.N jumped. He isn\'t sure; "phone sex" for the $10 fee at 3 p.m.'
    assert _cut(raw, 100) == want
    assert _cut(raw, 4) == "Co. Shares Jump. RSE.N"


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


def test_split_is_disjoint_stratified_and_shrinks() -> None:
    task = load_task("ag_news", source="examples")
    sp = make_split(task, n_ctx=4, n_sel=4, n_test=8, seed=0, stratify=True)
    sets = [set(sp.ctx), set(sp.sel), set(sp.test)]
    assert all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :])
    assert np.bincount(task.labels[sp.test]).tolist() == [2, 2, 2, 2]
    # the demonstration pool is every item that is no query
    assert not set(sp.pool) & (sets[0] | sets[1] | sets[2])
    assert len(sp.pool) + sum(map(len, sets)) == len(task)
    small = make_split(task, n_ctx=50, n_sel=100, n_test=400, n_pool=16, verbose=False)
    queries = len(small.ctx) + len(small.sel) + len(small.test)
    assert len(small.pool) == 16 and queries == len(task) - 16
    # proportional shrinking: test stays the largest set, context the smallest
    assert len(small.test) > len(small.sel) >= len(small.ctx) >= 1
    with pytest.raises(TypeError, match="n_ctx"):
        make_split(task, n_ctx=5.5, n_sel=1, n_test=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_pool"):
        make_split(task, n_ctx=1, n_sel=1, n_test=1, n_pool=len(task) - 2)
    with pytest.raises(ValueError, match="n_pool"):
        make_split(task, n_ctx=1, n_sel=1, n_test=1, n_pool=0)


@pytest.mark.parametrize("name", ["sst2", "ag_news", "trec"])
def test_example_sets_run_the_chapter_sizes_without_a_query_among_demonstrations(name) -> None:
    """The fresh-machine path of chapter 6 (no data, no hub): its sizes on the example sets.

    Regression: the example sets were shrunk into splits whose pool held the context queries,
    so at k = 4 a context query was a demonstration in every prefix (ValueError in ``assign``).
    """
    task = load_task(name, source="examples")
    proto = Chapter6Protocol()  # the page's
    k, n_sets = proto.shots[name], proto.n_sets
    per_class = n_sets * k // len(task.label_words)
    for model in OFFLINE_MODELS:
        n_ctx, n_sel, n_test = proto.split_sizes(model, name)
        sp = make_split(task, n_ctx=n_ctx, n_sel=n_sel, n_test=n_test, n_pool=n_sets * k,
                        pool_per_class=per_class, seed=0, stratify=name == "ag_news",
                        verbose=False)  # fmt: skip
        pre = demo_prefixes(task, sp.pool, k=k, n_prefixes=n_sets, seed=0, balanced=True)
        queries = np.concatenate([sp.ctx, sp.sel, sp.test])
        assert not np.isin(pre.items, queries).any()
        assert pre.assign(sp.test).tolist() == [i % n_sets for i in range(len(sp.test))]
        assert min(len(sp.ctx), len(sp.sel), len(sp.test)) >= 2
        assert len(sp.test) >= 2 * n_sets  # every set is shown to at least two test queries


def _page_protocol() -> tuple[Chapter6Protocol, list[str]]:
    """Run chapter 6's parameters cell as the page does; return its PROTOCOL and MODELS."""
    nb = jupytext.read(Path(__file__).resolve().parents[2] / "book" / "06_transformers.md")
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    scope: dict[str, object] = {"protocol": llm_protocol}  # the setup cell's import
    exec(cell.source, scope)  # assignments only
    proto, models = scope["PROTOCOL"], scope["MODELS"]
    assert isinstance(proto, Chapter6Protocol) and isinstance(models, list)
    return proto, models


def test_the_command_line_defaults_are_the_pages_protocol() -> None:
    """One protocol: the page's parameters cell, the CLI's defaults and the library's agree."""
    proto, models = _page_protocol()
    cli = protocol_from_args(build_parser().parse_args([]))
    assert cli == proto == Chapter6Protocol()
    # the values the three homes had drifted on (batch 16 vs 64, max_tokens None vs 512)
    assert cli.batch_size == 64 and cli.tokens("smollm2-135m") == 512
    assert cli.tokens("gemma3-270m") == 512 and cli.tokens("llama-3-8b") is None
    assert set(models) <= set(proto.sizes) and set(proto.sizes) == set(MODELS)
    # an option moves the protocol away from the page's, and the comparison sees it
    moved = protocol_from_args(build_parser().parse_args(["--batch-size", "16", "--n-test", "9"]))
    assert moved != proto and moved.batch_size == 16
    assert {s[2] for by_task in moved.sizes.values() for s in by_task.values()} == {9}
    with pytest.warns(DeprecationWarning, match="protocol"):
        from assocmem.llm.experiments import SIZES  # the old home, for one release
    assert SIZES == {m: dict(s) for m, s in proto.sizes.items()}


def test_protocol_is_frozen_and_checks_its_values() -> None:
    proto = Chapter6Protocol()
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign"):
        proto.n_sets = 4  # type: ignore[misc]
    with pytest.raises(TypeError, match="does not support item assignment"):
        proto.shots["sst2"] = 2  # type: ignore[index]
    with pytest.raises(ValueError, match="collapse_mass must lie in"):
        proto.replace(collapse_mass=1.5)
    with pytest.raises(ValueError, match="shots must give k for every task"):
        proto.replace(tasks=("sst2", "mnli"))
    with pytest.raises(KeyError, match="no sizes for model 'gpt'"):
        proto.split_sizes("gpt", "sst2")
    assert proto.layers(32) == [20, 24, 28, 32] and proto.lama_layers(9) == [0, 3, 6, 9]
    assert proto.lambdas[0] == pytest.approx(0.01) and proto.lambdas[-1] == pytest.approx(10.0)
    assert len(proto.lambdas) == 13 and proto.pool("trec") == 48


#: Module paths inside a loaded transformers model: only the registry spells them out.
_MODULE_PATHS = re.compile(
    r"\b(embed_tokens|lm_head)\b|\b(model|base)\.(layers|norm)\b|\.norm\b(?!\s*\()"
)


def test_registry_components_are_the_models_modules(tiny: LanguageModel) -> None:
    """The registry's paths reach the four components; an unknown architecture is refused."""
    base = tiny.model.model
    assert tiny.architecture is ARCHITECTURES["llama"]
    assert tiny.embedding is base.embed_tokens and tiny.blocks is base.layers
    assert tiny.final_norm is base.norm and tiny.unembedding is tiny.model.lm_head.weight
    for name, spec in MODELS.items():
        assert spec.name == name
        assert spec.architecture in ARCHITECTURES.values()
    assert isinstance(MODELS[STANDIN].source, GGUFPackage) and not MODELS[STANDIN].needs_cuda
    assert isinstance(MODELS[PAPER_MODEL].source, HubRepo) and MODELS[PAPER_MODEL].add_bos

    class Other(torch.nn.Module):
        config = type("Config", (), {"model_type": "mamba"})()

    with pytest.raises(TypeError, match=r"known architecture \['gemma3_text', 'llama'\].*'mamba'"):
        wrap_model(Other(), tiny.tokenizer)
    bad = dataclasses.replace(ARCHITECTURES["llama"], final_norm="model.final_layernorm")
    with pytest.raises(TypeError, match="no final_norm at 'model.final_layernorm'"):
        wrap_model(tiny.model, tiny.tokenizer, architecture=bad)


def test_model_names_and_module_paths_are_written_only_in_the_registry() -> None:
    """No model name and no ``embed_tokens``/``layers``/``norm``/``lm_head`` path outside it.

    Chapter 6's code (the llm package and its benchmarks) reaches a model's four components and
    its per-model settings through ``assocmem.llm.registry``; a second copy would drift.
    """
    root = Path(__file__).resolve().parents[2]
    files = [*sorted((root / "lib" / "assocmem" / "llm").glob("*.py")),
             *sorted((root / "benchmarks").glob("llm_*.py"))]  # fmt: skip
    found = []
    for f in files:
        if f.name == "registry.py":
            continue
        for i, line in enumerate(f.read_text().splitlines(), 1):
            hits = [n for n in MODELS if n in line]
            hits += [m.group(0) for m in _MODULE_PATHS.finditer(line)]
            found += [f"{f.relative_to(root)}:{i}: {h}" for h in hits]
    assert not found, "written outside assocmem.llm.registry:\n" + "\n".join(found)


def test_demo_prefixes_seeded_supportive_and_adversarial() -> None:
    task = load_task("sst2", source="examples")
    pool = np.arange(10, 30)
    sup = demo_prefixes(task, pool, k=4, n_prefixes=3, seed=1)
    assert sup.texts == demo_prefixes(task, pool, k=4, n_prefixes=3, seed=1).texts
    assert set(sup.items.ravel()) <= set(pool)
    assert np.array_equal(sup.labels, task.labels[sup.items])
    adv = demo_prefixes(task, pool, k=4, n_prefixes=3, seed=1, demos="adversarial")
    assert np.all(adv.labels != task.labels[adv.items])
    for text in sup.texts:
        assert text.count("Sentiment:") == 4 and text.endswith("\n\n")
    which = sup.assign(pool)
    for q, j in zip(pool, which, strict=True):
        assert q not in sup.items[j]  # a query is never its own demonstration
    assert len(set(sup.items.ravel())) == sup.items.size  # the prefixes share no demonstration
    with pytest.raises(ValueError, match="n_prefixes \\* k"):
        demo_prefixes(task, pool, k=4, n_prefixes=6, seed=1)


@pytest.mark.parametrize("seed", range(40))
def test_lama_prefixes_never_hold_the_query_with_two_prefixes(seed: int) -> None:
    """LAMA draws demonstrations from every fact and moves a query off a prefix that holds it.

    Regression (the Colab emulation, no data, two prefixes): a fact drawn into both prefixes
    could not be moved ("query item 43 is a demonstration in every one of the 2 prefixes").
    Disjoint prefixes hold each fact at most once, so two prefixes always suffice.
    """
    facts = load_task("lama_p36", source="examples")
    items = np.arange(len(facts))
    pre = demo_prefixes(facts, items, k=4, n_prefixes=2, seed=seed)
    which = pre.assign(items)
    assert not any(q in pre.items[j] for q, j in zip(items, which, strict=True))


# --------------------------------------------------------------------------- tiny model path
def test_extraction_matches_output_hidden_states(tiny: LanguageModel) -> None:
    prompts = ["ab", "The capital of France is", "xyz xyz xyz xyz xyz", "q"]
    h = last_token_states(tiny, prompts, batch_size=3, progress=False)
    assert tiny.bos_ids == []  # its tokenizer adds no BOS, so the prompts start without one
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


def test_shared_prefix_states_and_whole_word_scores_match_full_forward(
    tiny: LanguageModel,
) -> None:
    pre = [encode(tiny, "Review: good\nSentiment: positive\n\n"), encode(tiny, "x\n")]
    qs = [encode(tiny, "Review: bad\nSentiment:"), encode(tiny, "Review: a b c\nSentiment:")]
    tg = [encode(tiny, " negative"), encode(tiny, " ok")]  # multi-token words (bytes)
    st = prompt_states(tiny, pre, qs, [0, 1], targets=tg, cache=False, batch_size=1)
    st2 = prompt_states(tiny, pre, qs, [0, 1], targets=tg, cache=False, batch_size=2)
    torch.testing.assert_close(st.h, st2.h, atol=1e-5, rtol=1e-5)
    for i, j in enumerate([0, 1]):
        ids = pre[j] + qs[i] + tg[i]  # the tiny tokenizer adds no BOS
        with torch.inference_mode():
            out = tiny.model(torch.tensor([ids]), output_hidden_states=True)
        last = len(pre[j]) + len(qs[i]) - 1
        ref = torch.stack([s[0, last] for s in out.hidden_states])
        torch.testing.assert_close(st.h[i, :-1], ref[:-1], atol=1e-4, rtol=1e-4)
        lp = torch.log_softmax(out.logits[0].double(), -1)
        hand = sum(float(lp[last + m, t]) for m, t in enumerate(tg[i]))  # teacher-forced sum
        assert len(tg[i]) > 1 and st.target_logprob[i] == pytest.approx(hand, abs=1e-4)
        greedy = out.logits[0, last : last + len(tg[i]) + 1].argmax(-1).tolist()
        whole = greedy[:-1] == tg[i] and not bool(tiny.word_continuation[greedy[-1]])
        assert st.target_top1[i] == whole


def test_token_budget_batches_give_the_same_states_and_scores(tiny: LanguageModel) -> None:
    texts = ["a", "a b c d e f", "b c", "c d e f g h i j", "d", "e f g"]
    qs = [encode(tiny, t) for t in texts]
    tg = [encode(tiny, " x"), encode(tiny, " yz")] * 3  # 2- and 3-token words (bytes)
    pre = [encode(tiny, "p\n"), encode(tiny, "qq\n")]
    which = [0, 1, 0, 1, 0, 0]
    one = prompt_states(tiny, pre, qs, which, targets=tg, cache=False, batch_size=1)
    # target_top1 takes an argmax over the vocabulary at the last query token and at each target
    # token: the same on two paths wherever the top-two gap of those logits exceeds the paths'
    # float32 differences (1e-5 at most, as asserted for the states); 1e-3 leaves room
    gaps = []
    for i, q in enumerate(qs):
        seq = tiny.bos_ids + pre[which[i]] + q + tg[i]
        with torch.inference_mode():
            z = tiny.model(torch.tensor([seq])).logits[0, -len(tg[i]) - 1 :]
        gaps.append(top_two_gap(z).min())
    decided = np.array(gaps) > 1e-3
    assert decided.sum() >= len(qs) - 1, gaps  # the comparison covers (nearly) every prompt
    for max_tokens in (1, 9, 25, 1000):  # from one prompt per pass to all of a prefix's
        st = prompt_states(tiny, pre, qs, which, targets=tg, cache=False, batch_size=64,
                           max_tokens=max_tokens)  # fmt: skip
        torch.testing.assert_close(st.h, one.h, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(st.target_logprob, one.target_logprob, atol=1e-5)
        np.testing.assert_array_equal(st.target_top1[decided], one.target_top1[decided])
    with pytest.raises(ValueError, match="max_tokens"):
        prompt_states(tiny, pre, qs, which, cache=False, max_tokens=0)


def test_probe_fit_is_the_penalised_optimum() -> None:
    from assocmem.llm.evaluation import _fit_logistic

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(120, 30)), rng.integers(0, 3, 120)
    w = _fit_logistic(x, y, 3, 1e-2)
    wt = torch.tensor(w, requires_grad=True)  # the gradient by autograd, not the fit's own
    xb = torch.cat([torch.tensor(x), torch.ones(120, 1, dtype=torch.float64)], 1)
    loss = torch.nn.functional.cross_entropy(xb @ wt, torch.tensor(y)) + 1e-2 * (wt[:-1] ** 2).sum()
    loss.backward()
    assert wt.grad is not None and float(wt.grad.abs().max()) < 1e-5


def test_probe_accuracy_separates_signal_from_noise() -> None:
    from assocmem.llm.evaluation import probe_accuracy

    rng = np.random.default_rng(1)
    n, d, k = 400, 64, 4
    y = rng.integers(0, k, n)
    means = rng.normal(size=(k, d))
    h = rng.normal(size=(n, 2, d))
    h[:, 1] += 3 * means[y]  # layer 1 carries the class, layer 0 is noise
    correct = probe_accuracy(torch.tensor(h, dtype=torch.float32), y, seed=0)
    assert correct.shape == (2, n)
    assert correct[1].mean() > 0.97
    assert correct[0].mean() < 0.25 + 3 * np.sqrt(0.25 * 0.75 / n)  # chance, 3 SE
    again = probe_accuracy(torch.tensor(h, dtype=torch.float32), y, seed=0)
    np.testing.assert_array_equal(correct, again)


def _with_labels(task: Task, labels: np.ndarray) -> Task:
    return Task(**{**task.__dict__, "labels": labels})


def test_the_protocol_drives_the_run_and_travels_with_its_result(tiny: LanguageModel) -> None:
    """run_protocol_task is run_classification with the protocol's settings, one door in."""
    task = load_task("sst2", source="examples")
    task = Task(**{**task.__dict__, "label_words": ("n", "p")})  # one byte each
    proto = Chapter6Protocol(tasks=("sst2",), shots={"sst2": 2}, n_sets=2, n_chat=4,
                             sizes={"smollm2-135m": {"sst2": (6, 6, 12)}}, n_lambdas=4,
                             n_layers_window=2)  # fmt: skip
    split = protocol_split(task, "smollm2-135m", proto)  # the stand-in's sizes
    ref_split = make_split(task, n_ctx=6, n_sel=6, n_test=12, n_pool=4, pool_per_class=2, seed=0)
    assert all(np.array_equal(getattr(split, k), getattr(ref_split, k))
               for k in ("ctx", "sel", "test", "pool"))  # fmt: skip
    res = run_protocol_task(tiny, task, split, proto)
    ref = run_classification(tiny, task, split, ks=(2,), n_prefixes=2, lambdas=proto.lambdas,
                             layers=proto.layers(tiny.n_layers), one_shot=True)  # fmt: skip
    assert res.protocol is proto and ref.protocol is None
    assert np.array_equal(res.correct_add[2], ref.correct_add[2]) and res.chosen == ref.chosen
    assert res.correct_one is not None and res.summary() == ref.summary(protocol=proto)


def test_tiny_llama_runs_whole_path(tiny: LanguageModel) -> None:
    task = load_task("sst2", source="examples")
    task = Task(**{**task.__dict__, "label_words": ("n", "p")})  # one byte each
    sp = make_split(task, n_ctx=6, n_sel=6, n_test=12, n_pool=4, pool_per_class=2, seed=0)
    lambdas = np.logspace(-2, 1, 4)
    kw = {"lambdas": lambdas, "layers": [1, 3], "ks": (2,), "n_prefixes": 2, "progress": False}
    res = run_classification(tiny, task, sp, **kw)
    assert res.acc_sel[2].shape == (2, 4) and res.correct_zero.shape == (12,)
    assert set(res.rates()) == {"zero-shot", "calibrated zero-shot", "2-shot ICL",
                                "2-shot, wrong labels", "additive (2-shot c)",
                                "zero-shot, whole vocab", "ICL, whole vocab"}  # fmt: skip
    assert res.probe is not None and res.probe.correct.shape == (4, 12)
    summary = res.summary()  # what the page glues: the rates are the same Estimates
    assert summary["add"] == res.rates()["additive (2-shot c)"] and summary["n"] == 12
    assert summary["add_icl"].value == pytest.approx(
        res.correct_add[2].mean() - res.correct_icl[2].mean()
    )
    assert res.sets is not None and sorted(set(res.sets.tolist())) == [0, 1]
    assert np.array_equal(res.sets, np.arange(12) % 2)  # query i sees set i mod P
    assert res.mass_icl is not None and np.all((res.mass_icl > 0) & (res.mass_icl <= 1))
    assert np.all(res.profile_zero["neff_entropy"] <= 260 + 1e-6)
    # selection never touches the test queries: scrambling their labels leaves the choice,
    # and the selection curve, unchanged
    y = task.labels.copy()
    y[sp.test] = 1 - y[sp.test]
    res2 = run_classification(tiny, _with_labels(task, y), sp, one_shot=True, **kw)
    assert res2.chosen == res.chosen and np.array_equal(res2.acc_sel[2], res.acc_sel[2])
    assert np.array_equal(res2.correct_zero, ~res.correct_zero)
    assert res.correct_one is None and res2.correct_one is not None
    assert res2.correct_one.shape == (12,) and "1-shot ICL (same sets)" in res2.rates()
    assert res2.summary()["shots"].value == pytest.approx(
        res2.correct_icl[2].mean() - res2.correct_one.mean()
    )
    fig = plot_additive([res])
    ax = fig.axes[0]
    assert ax.get_xlabel() == "context strength λ" and ax.get_xscale() == "log"
    for fig in (plot_accuracies([res]), plot_probe([res])):
        assert fig.axes
    text = results_table([res])
    assert "SST-2" in text and "ICL per set" in text and "chosen on sel" in text
    assert max(map(len, text.splitlines())) < 80
    n_facts = len(load_task("lama_p36", source="examples"))
    lama = run_lama(tiny, load_task("lama_p36", source="examples"), k=2, lambdas=[1.0, 2.0],
                    layers=[0, 3], progress=False)  # fmt: skip
    assert lama.n == n_facts and lama.effect.prob.shape == (2, 2, 2)
    assert np.all(lama.effect.prob <= 1) and lama.counts["queries"] == n_facts
    assert lama.n_layers == tiny.n_layers and lama.summary()["n"] == n_facts
    assert str(lama).startswith("whole-word top-1, zero-shot")
    # a seeded subset scores its own queries: zero-shot answers match the full run's there
    sub = run_lama(tiny, load_task("lama_p36", source="examples"), k=2, lambdas=[1.0],
                   layers=[3], n_queries=9, progress=False)  # fmt: skip
    assert sub.n == 9 and len(set(sub.items.tolist())) == 9
    assert np.array_equal(sub.correct_zero, lama.correct_zero[sub.items])
    facts = load_task("lama_p36", source="examples")
    only = Task(**{**facts.__dict__, "texts": tuple(facts.texts[i] for i in sub.items),
                   "labels": facts.labels[sub.items]})  # fmt: skip
    alone = run_lama(tiny, only, k=2, lambdas=[1.0], layers=[3], progress=False)
    assert sub.effect.prob0 == pytest.approx(alone.effect.prob0, rel=1e-5)  # same targets
    with pytest.raises(ValueError, match="n_queries"):
        run_lama(tiny, load_task("lama_p36", source="examples"), k=2, lambdas=[1.0],
                 n_queries=n_facts + 1)  # fmt: skip
    assert plot_lama(lama).axes


def test_default_layers_are_the_papers_for_32() -> None:
    assert default_layers(32) == [20, 24, 28, 32]  # assocmem.llm.protocol
    assert default_layers(30)[-1] == 30 and len(default_layers(30)) == 4


# --------------------------------------------------------------------------- the real stand-in
@pytest.mark.slow
def test_standin_knows_paris(standin: LanguageModel) -> None:
    assert standin.n_layers == 30 and standin.d_model == 576
    prompts = ["The capital of France is", "Review: a dull , plodding mess\nSentiment:"]
    h = last_token_states(standin, prompts, batch_size=2, progress=False)
    top = decode(standin, h[0, -1]).argmax()
    assert standin.tokenizer.decode([int(top)]) == " Paris"
    ids = torch.tensor([encode(standin, prompts[0])])  # the ids the chapter uses (no BOS)
    with torch.inference_mode():
        out = standin.model(ids, output_hidden_states=True)
    torch.testing.assert_close(h[0, 10], out.hidden_states[10][0, -1], atol=2e-3, rtol=1e-3)
    torch.testing.assert_close(decode(standin, h[0, -1]), out.logits[0, -1], atol=2e-3, rtol=1e-3)


def test_standin_weights_are_the_files_and_the_load_patches_are_undone(
    standin: LanguageModel,
) -> None:
    import gguf

    # the loader reads the file once (patched reader) and restores gguf's names afterwards
    assert isinstance(gguf.GGUFReader, type) and not hasattr(gguf.get_tensor_name_map, "cache_info")
    reader = gguf.GGUFReader(str(standin_gguf_path()))  # de-quantised by gguf itself, here
    tensors = {t.name: t for t in reader.tensors}
    base = standin.model.model
    for name, weight in (("token_embd.weight", base.embed_tokens.weight),
                         ("blk.0.ffn_down.weight", base.layers[0].mlp.down_proj.weight),
                         ("blk.29.ffn_up.weight", base.layers[29].mlp.up_proj.weight)):  # fmt: skip
        t = tensors[name]
        ref = gguf.dequantize(t.data, t.tensor_type).reshape(weight.shape)
        np.testing.assert_array_equal(weight.detach().numpy(), ref.astype(np.float32))


@pytest.mark.slow
def test_standin_prompt_ids_do_not_depend_on_the_transformers_version(
    standin: LanguageModel,
) -> None:
    # transformers 4.57 turns the GGUF into a LlamaTokenizerFast that prepends token 1
    # (<|im_start|>, a chat-turn marker) although the file says tokenizer.ggml.add_bos_token =
    # False; 5.x follows the file. The prompt code never lets the tokenizer add special tokens
    # and adds a BOS only by the model's policy (none for the stand-in), so both give these ids
    # (checked once under 4.57.6 and 5.24.0).
    assert standin.bos_ids == [] and standin.add_bos is False
    assert encode(standin, "The capital of France is") == [504, 3575, 282, 4649, 314]
    trec = "Question: What is the abbreviation for Texas ?\nAnswer type:"
    assert encode(standin, trec) == [17872, 42, 1812, 314, 260, 34552, 327, 5778, 9148, 198,
                                     21350, 1502, 42]  # fmt: skip
    seen: list[list[int]] = []
    hook = standin.base.embed_tokens.register_forward_pre_hook(
        lambda _m, args: seen.extend(args[0].tolist())
    )
    try:
        prompt_states(standin, [[]], [encode(standin, trec)], cache=False, progress=False)
    finally:
        hook.remove()
    assert seen == [encode(standin, trec)]  # no token 1 in front
    assert standin.label_ids(load_task("trec", source="examples").label_words).shape == (6,)


def test_a_gated_llama_raises_unless_a_fallback_is_asked_for(
    tiny: LanguageModel, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model is what it says it is: no silent stand-in; with ``fallback`` the stand-in's name."""

    def loader(name: str, device: str, dtype: str | None):  # type: ignore[no-untyped-def]
        if name == "llama-3-8b":
            raise OSError("You are trying to access a gated repo. 403 Client Error")
        return tiny.model, tiny.tokenizer, "test:tiny"

    with pytest.raises(ModelUnavailableError, match=r"meta-llama/Meta-Llama-3-8B.*HF_TOKEN"):
        load_model("llama-3-8b", loader=loader, verbose=False)
    with pytest.raises(ModelUnavailableError, match="fallback=True"):
        load_model("llama-3-8b", loader=loader, verbose=False)
    capsys.readouterr()
    lm = load_model("llama-3-8b", loader=loader, verbose=False, fallback=True)
    assert lm.name == "smollm2-135m" and lm.add_bos is False  # the model that runs
    assert "Llama-3-8B requested" in lm.reason
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "falling back to the stand-in" in out[0]

    def broken(name: str, device: str, dtype: str | None):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):  # other errors are not hidden
        load_model("llama-3-8b", loader=broken, verbose=False, fallback=True)


def test_layer_profile_matches_effective_number(tiny) -> None:
    """The profile's shared float32 softmax gives effective_number's float64 values."""
    import torch
    from assocmem.llm.probes import decode, effective_number, final_norm, layer_profile

    torch.manual_seed(1)
    h = torch.randn(5, tiny.n_layers + 1, tiny.d_model)
    ids = torch.tensor([257, 258])
    logits = decode(tiny, h)
    mass = torch.softmax(logits.double(), -1)[..., ids].sum(-1).numpy()
    # The label logits come from chunked products here and from one product in decode: two paths
    # whose float32 roundings differ by CPU kernel (issue 51: up to 4.5e-8 on an AVX2 machine), so
    # they agree within the derived bound of two float32 dot products of length d, after the final
    # norm (whose mean of squares, a sum of d terms, and ~4 more roundings may also differ).
    x = final_norm(tiny, h)
    tol = product_tolerance(x, tiny.unembedding.detach().float()[ids], extra_ops=tiny.d_model + 4)
    for chunk in (3, None):  # buffers reused by 7 chunks, the last one partial; one chunk
        prof = layer_profile(tiny, h, ids, chunk=chunk)
        for kind in ("entropy", "participation"):
            want = effective_number(logits, kind).numpy()
            np.testing.assert_allclose(prof[f"neff_{kind}"], want, rtol=1e-4)
        np.testing.assert_allclose(prof["label_mass"], mass, rtol=1e-4, atol=1e-7)
        gap = np.abs(prof["label_logits"] - logits[..., ids].numpy())
        assert np.all(gap <= tol.numpy()), f"{gap.max():.2e} beyond the bound {tol.min():.2e}"
    assert float(tol.max()) < 1e-5  # the bound is tight enough to catch a wrong logit


def _lama_effect_direct(lm, h, first, cont, c_plus, c_minus, lambdas, layers):  # type: ignore[no-untyped-def]
    """The effect computed as the chapter defines it: decode h + lambda c over the vocabulary."""
    out = np.empty((2, len(layers), len(lambdas), len(first)))
    rows = torch.arange(len(first))
    for sign, c in enumerate((c_plus, c_minus)):
        for i, ell in enumerate(layers):
            for j, lam in enumerate(lambdas):
                c_l = c[:, ell] if c.ndim == 3 else c[ell][None]
                logp = torch.log_softmax(decode(lm, h + lam * c_l).double(), -1)
                out[sign, i, j] = (logp[rows, first] + torch.as_tensor(cont)).exp().numpy()
    return out


def test_lama_effect_from_one_product_equals_decoding_every_lambda(tiny: LanguageModel) -> None:
    """lama_context_effect's shortcut (W_U applied once, the norm as a number per row) equals
    decoding h + lambda c-bar through the final norm and W_U for every layer and lambda, for
    context vectors shared by all queries and cross-fitted ones (two folds), with a final norm
    whose gain is not 1; and it refuses a final norm that is not of the form gain * x / rms(x)."""
    import copy

    from assocmem.llm.probes import lama_context_effect

    lm = wrap_model(copy.deepcopy(tiny.model), tiny.tokenizer, name="tiny-gain")
    torch.manual_seed(3)
    with torch.no_grad():
        lm.final_norm.weight.copy_(torch.rand(lm.d_model) * 2 + 0.1)
    n, d, L = 9, lm.d_model, lm.n_layers
    h = torch.randn(n, d) * 3
    first = torch.randint(0, 260, (n,))
    cont = -np.abs(np.random.default_rng(0).normal(size=n)) * (np.arange(n) % 2)
    fold = np.arange(n) % 2
    c_shared = torch.randn(L + 1, d)
    c_folds = torch.randn(2, L + 1, d)[torch.as_tensor(fold)]  # (n, L + 1, d), 2 distinct rows
    lambdas, layers = [0.5, 1.0, 2.0], [0, 2, L]
    for c_plus, c_minus in ((c_shared, -c_shared), (c_folds, c_folds.flip(0))):
        eff = lama_context_effect(lm, h, first, cont, c_plus, c_minus, lambdas, layers)
        want = _lama_effect_direct(lm, h, first, cont, c_plus, c_minus, lambdas, layers)
        np.testing.assert_allclose(eff.prob_query, want, rtol=2e-5, atol=1e-12)
        np.testing.assert_allclose(eff.prob, want.mean(-1), rtol=2e-5)
        logp0 = torch.log_softmax(decode(lm, h).double(), -1)[torch.arange(n), first]
        assert eff.prob0 == pytest.approx(float((logp0 + torch.as_tensor(cont)).exp().mean()),
                                          rel=2e-5)  # fmt: skip
        energy0 = -decode(lm, h)[torch.arange(n), first].double().mean()
        assert eff.energy0 == pytest.approx(float(energy0), rel=2e-5)
    # a final norm with an additive bias is not gain * x / rms(x): refused, not misread
    lm.final_norm.register_forward_hook(lambda _m, _i, out: out + 0.5)
    with pytest.raises(RuntimeError, match="not gain"):
        lama_context_effect(lm, h, first, cont, c_shared, -c_shared, lambdas, layers)
