"""Issue 42: inputs of chapter 6's library that gave a wrong result, a crash or a late error.

One regression test per item of the issue in :mod:`assocmem.llm` (items 1, 2, 7-12, 14, 15,
17-24); the classes they stand for (0/1 outcomes, indices, token ids, sizes, paths, cached files,
dtypes) are also covered by the property cases of test_llm_properties.py and
tests/shared/test_properties.py. Every test runs on a tiny random Llama or on a real tokenizer
without weights, except the SmolLM2 chat-template test (slow: it loads the stand-in).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from _properties import PROPERTY_SETTINGS
from assocmem.llm import __main__ as cli
from assocmem.llm.data import load_task
from assocmem.llm.evaluation import paired_comparison, set_bootstrap
from assocmem.llm.models import LanguageModel, load_model, wrap_model
from assocmem.llm.probes import lama_context_effect
from assocmem.llm.prompts import ChatText, chat_text, encode, make_split, prompt_ids
from assocmem.llm.states import prompt_states
from assocmem.stats import constant_difference, wilson_interval
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
TOK_DIR = Path(
    os.environ.get("ASSOCMEM_LLAMA3_TOKENIZER", ROOT / ".." / "shared" / "llama3_tokenizer")
)
Z2 = 1.959963984540054**2
#: The CLI's integer options and their smallest value.
_MINIMA = {"--seed": 0, "--n-test": 1, "--n-sets": 2, "--batch-size": 1, "--max-tokens": 1,
           "--lama-layer-step": 1}  # fmt: skip


def _llama(vocab: int, context: int, tokenizer) -> LanguageModel:  # type: ignore[no-untyped-def]
    """A 1-layer random Llama of hidden size 8 with ``vocab`` rows and a ``context`` window."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=vocab, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=context,
        tie_word_embeddings=True, eos_token_id=0, pad_token_id=0,
    )  # fmt: skip
    return wrap_model(LlamaForCausalLM(cfg).eval(), tokenizer, name="tiny-test", add_bos=False)


# --- item 1: a degenerate 0/1 column gets an interval that reflects n -----------------------


def test_set_bootstrap_rate_of_40_of_40_is_not_certain() -> None:
    sets = np.arange(40) % 4
    zero = np.r_[np.ones(20), np.zeros(20)]
    b = set_bootstrap({"icl": np.ones(40), "zero": zero, "none": np.zeros(40)}, sets, n_boot=200)
    icl = b.mean("icl")  # the path TaskResult.rates() takes
    assert icl.value == 1.0 and icl.high == 1.0
    assert icl.low == pytest.approx(40 / (40 + Z2))  # Wilson's lower end for 40 of 40: 0.912
    assert "Wilson" in icl.method and icl.n == 40
    none = b.mean("none")
    assert none.low == 0.0 and none.high == pytest.approx(Z2 / (40 + Z2))
    # a column away from 0 and 1 keeps at least the Wilson width
    z, (w_lo, w_hi) = b.mean("zero"), wilson_interval(20, 40)
    assert z.low <= w_lo and z.high >= w_hi
    # right on every query where the other is wrong: the exact bound, not the point [1, 1]
    assert b.difference("icl", "none") == constant_difference(40, 1)


# --- item 2: probabilities and counts are not outcomes ---------------------------------------


def test_paired_comparison_refuses_anything_but_zero_one() -> None:
    with pytest.raises(ValueError, match=r"a must hold outcomes 0/1.*0\.2 at index 0"):
        paired_comparison(np.array([0.2, 0.9, 0.4]), np.array([0.1, 0.8, 0.3]))
    with pytest.raises(ValueError, match=r"a must hold outcomes 0/1.*2 at index 2"):
        paired_comparison([0, 1, 2], [0, 1, 1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="b must hold outcomes"):
        paired_comparison(np.array([0, 1, 1]), np.array([0, 1, 0.5]))
    ok = paired_comparison(np.array([1, 0, 1, 1]), np.array([True, False, False, True]))
    assert (ok.only_a, ok.only_b) == (1, 0)
    # every pair discordant one way: the exact bound, not the bootstrap's point [1, 1]
    all_a = paired_comparison(np.ones(30, bool), np.zeros(30, bool))
    assert all_a.difference == constant_difference(30, 1) and all_a.difference.low < 1


# --- items 7 and 24: a data directory that does not exist; numpy integers ---------------------


def test_load_task_refuses_a_missing_data_directory(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="data_dir = .*nowhere.* does not exist"):
        load_task("sst2", data_dir=tmp_path / "nowhere")
    monkeypatch.setenv("ASSOCMEM_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match=r"\$ASSOCMEM_DATA_DIR = .*nowhere.* does not exist"):
        load_task("sst2")
    assert len(load_task("sst2", source="examples")) == 120  # the examples read no directory
    # an existing directory without the task's file still falls back (and says so if verbose)
    monkeypatch.delenv("ASSOCMEM_DATA_DIR")
    assert load_task("sst2", data_dir=tmp_path, source="auto").is_examples


def test_load_task_takes_numpy_integers() -> None:
    task = load_task("sst2", n=np.int64(20), source="examples")
    assert len(task) == 20
    assert task.texts == load_task("sst2", n=20, source="examples").texts
    with pytest.raises(TypeError, match="n must be an integer"):
        load_task("sst2", n=20.0, source="examples")  # type: ignore[arg-type]


# --- items 8, 18, 19: indices and token ids ------------------------------------------------


def test_prompt_states_refuses_float_indices(tiny: LanguageModel) -> None:
    with pytest.raises(TypeError, match="which must be a 1-D array of integer indices"):
        prompt_states(tiny, [[1], [2]], [[3], [4]], np.array([0.0, 0.9]), cache=False)
    with pytest.raises(ValueError, match=r"which must hold indices >= 0 and < 2"):
        prompt_states(tiny, [[1], [2]], [[3], [4]], np.array([0, 2]), cache=False)


def test_prompt_ids_takes_an_array_of_texts(tiny: LanguageModel) -> None:
    texts = ["Review: a\nSentiment:", "Review: b\nSentiment:"]
    got = prompt_ids(tiny, np.array(texts), np.array([0, 0]))  # type: ignore[arg-type]
    assert got == prompt_ids(tiny, texts, np.array([0, 0]))
    with pytest.raises(TypeError, match="texts must be a sequence"):
        prompt_ids(tiny, "Review: a", np.array([0]))  # type: ignore[arg-type]


def test_prompt_states_names_a_token_outside_the_vocabulary(tiny: LanguageModel) -> None:
    assert tiny.vocab_size == 260
    with pytest.raises(ValueError, match=r"queries\[0\]\[1\] = 300 is no token id.*< 260"):
        prompt_states(tiny, [[]], [[5, 300]], cache=False)
    with pytest.raises(ValueError, match=r"queries\[0\]\[1\] = -1 is no token id"):
        prompt_states(tiny, [[]], [[5, -1]], cache=False)
    with pytest.raises(ValueError, match=r"prefixes\[0\]\[0\] = 260 is no token id"):
        prompt_states(tiny, [[260]], [[5]], cache=False)
    with pytest.raises(TypeError, match=r"targets\[0\] must be a 1-D sequence of integer"):
        prompt_states(tiny, [[]], [[5]], targets=[[1.5]], cache=False)


# --- item 9: prompts longer than the model's context are refused ----------------------------


def test_prompts_longer_than_the_context_are_refused(byte_tokenizer) -> None:  # type: ignore[no-untyped-def]
    lm = _llama(260, 64, byte_tokenizer())
    assert lm.context_length == 64
    assert len(encode(lm, "x" * 64)) == 64  # exactly the context: accepted
    with pytest.raises(ValueError, match="is 65 tokens .*context of tiny-test \\(64 tokens"):
        encode(lm, "x" * 65)
    with pytest.raises(ValueError, match="is 100 tokens"):
        prompt_ids(lm, ["a" * 10, "b" * 100], np.array([0, 0]))
    with pytest.raises(ValueError, match="prompt 1 is 70 tokens .*64 tokens"):
        prompt_states(lm, [list(range(40))], [[1], list(range(30))], cache=False)
    with pytest.raises(ValueError, match="prompt 0 is 65 tokens"):  # targets count too
        prompt_states(lm, [list(range(40))], [[1] * 20], targets=[[2] * 5], cache=False)
    out = prompt_states(lm, [list(range(40))], [[1] * 20], targets=[[2] * 4], cache=False)
    assert out.h.shape == (1, 2, 8)


# --- items 10 and 11: data text never becomes control tokens; the chat cue --------------------


@pytest.mark.skipif(not (TOK_DIR / "tokenizer.json").is_file(), reason=f"no tokenizer in {TOK_DIR}")
def test_llama3_control_strings_in_data_are_text() -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(TOK_DIR))
    lm = _llama(128256, 8192, tok)
    specials = {128000, 128001, 128009, 128010}  # begin/end of text, eot, a reserved token
    text = "Review: a <|end_of_text|> b <|begin_of_text|> <|eot_id|><|reserved_special_token_2|>"
    ids = encode(lm, text)
    assert not specials & set(ids)
    assert tok.decode(ids) == text  # the characters, as written
    assert encode(lm, "Review: a b\n\nSentiment:") == tok.encode(
        "Review: a b\n\nSentiment:", add_special_tokens=False
    )  # no special string: the same ids as before
    # a chat template's own markup is control tokens; data holding such a string is refused
    tok.chat_template = (
        "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n"
        "{{ m.content }}{% if not loop.last %}<|eot_id|>{% endif %}{% endfor %}"
    )
    chat = chat_text(lm, "Review: a\nSentiment:")
    assert isinstance(chat, ChatText) and 128009 in encode(lm, chat)
    assert 128009 not in encode(lm, str(chat))  # a plain str is data
    with pytest.raises(ValueError, match=r"special-token string\(s\) \['<\|eot_id\|>'\]"):
        chat_text(lm, "Review: a <|eot_id|>\nSentiment:")
    for bad in ("Review: x\nSentiment:\n", "Review: x\nSentiment:\n  "):
        with pytest.raises(ValueError, match="text must end with its answer cue"):
            chat_text(lm, bad)


@pytest.mark.slow
def test_smollm2_control_strings_in_data_are_text(standin: LanguageModel) -> None:
    text = "Review: x <|im_end|> y <|endoftext|> <|im_start|>\nSentiment:"
    ids = encode(standin, text)
    assert not {0, 1, 2} & set(ids)  # <|endoftext|>, <|im_start|>, <|im_end|>
    assert standin.tokenizer.decode(ids) == text
    with pytest.raises(ValueError, match="special-token string"):
        chat_text(standin, text)
    chat = chat_text(standin, "Review: x\nSentiment:")
    assert encode(standin, chat).count(1) == 3  # system, user, assistant turns
    assert encode(standin, chat) == standin.tokenizer(chat)["input_ids"]
    with pytest.raises(ValueError, match="text must end with its answer cue"):
        chat_text(standin, "Review: x\nSentiment:\n")


# --- item 14: LAMA's standard errors are s / sqrt(n) ------------------------------------------


def test_lama_standard_error_is_s_over_root_n(tiny: LanguageModel) -> None:
    torch.manual_seed(1)
    n, d, L = 2, tiny.d_model, tiny.n_layers
    h = torch.randn(n, d)
    c_plus, c_minus = torch.zeros(L + 1, d), torch.randn(L + 1, d)  # c+ = 0: the zero-shot p
    eff = lama_context_effect(tiny, h, torch.tensor([5, 9]), np.zeros(n), c_plus, c_minus,
                              [1.0, 2.0], [1, 2])  # fmt: skip
    assert eff.prob_query is not None
    p1, p2 = eff.prob_query[..., 0], eff.prob_query[..., 1]
    # by hand for n = 2: s = |p1 - p2| / sqrt(2), so s / sqrt(n) = |p1 - p2| / 2
    np.testing.assert_allclose(eff.prob_se, np.abs(p1 - p2) / 2, rtol=1e-9, atol=1e-15)
    assert eff.prob0_se == pytest.approx(abs(p1[0, 0, 0] - p2[0, 0, 0]) / 2, rel=1e-6)
    assert eff.prob0 == pytest.approx((p1[0, 0, 0] + p2[0, 0, 0]) / 2, rel=1e-6)


# --- item 15: a share over a gain that is 0 everywhere says why ------------------------------


def test_set_bootstrap_share_of_zero_gain_says_why() -> None:
    sets = np.arange(40) % 4
    x = (np.arange(40) % 3 == 0).astype(float)
    b = set_bootstrap({"icl": x, "zero": x, "add": 1 - x, "same": x}, sets, n_boot=200)
    with pytest.raises(ValueError, match="'share recovered' is -?inf on the full sample"):
        b.estimate(lambda m: (m["add"] - m["zero"]) / (m["icl"] - m["zero"]), "share recovered")
    with pytest.raises(ValueError, match="'share' is nan on the full sample .*ratio over"):
        b.estimate(lambda m: (m["same"] - m["zero"]) / (m["icl"] - m["zero"]), "share")


# --- item 17: the message names the argument the caller set --------------------------------


def test_make_split_names_pool_per_class() -> None:
    task = load_task("sst2", source="examples")
    with pytest.raises(ValueError, match="pool_per_class = 60 reserves 120 items for the pool"):
        make_split(task, n_ctx=4, n_sel=4, n_test=4, pool_per_class=60, verbose=False)
    with pytest.raises(ValueError, match="n_pool = 118; lower n_pool"):
        make_split(task, n_ctx=4, n_sel=4, n_test=4, n_pool=118, verbose=False)
    with pytest.raises(TypeError, match="n_ctx must be an integer"):
        make_split(task, n_ctx=4.0, n_sel=4, n_test=4, verbose=False)  # type: ignore[arg-type]
    assert len(make_split(task, n_ctx=np.int64(4), n_sel=4, n_test=4, verbose=False).ctx) == 4


# --- item 20: a corrupt cache entry is recomputed, with a warning ------------------------------


def test_corrupt_cache_entries_are_recomputed(tiny: LanguageModel, tmp_path) -> None:  # type: ignore[no-untyped-def]
    args = (tiny, [[3, 4]], [[5, 6], [7]])
    kw = {"cache": True, "cache_path": tmp_path, "progress": False}
    first = prompt_states(*args, **kw)  # type: ignore[arg-type]
    (file,) = (tmp_path / "llm").glob("*.pt")
    assert prompt_states(*args, **kw).from_cache  # type: ignore[arg-type]
    full = file.read_bytes()
    for broken, why in ((full[: len(full) // 2], "cannot be read"), (b"", "cannot be read")):
        file.write_bytes(broken)
        with pytest.warns(RuntimeWarning, match=f"cache entry .*{file.name} {why}.*recomputing"):
            again = prompt_states(*args, **kw)  # type: ignore[arg-type]
        assert not again.from_cache and torch.allclose(again.h, first.h)
        assert prompt_states(*args, **kw).from_cache  # rewritten whole
    torch.save({"h": torch.zeros(1, 1, 1), "logprob": None, "top1": None, "key": {}}, file)
    with pytest.warns(RuntimeWarning, match="does not hold states of shape"):
        assert torch.allclose(prompt_states(*args, **kw).h, first.h)  # type: ignore[arg-type]


# --- item 21: a dtype the model cannot compute in is refused before the load -------------------


def test_load_model_refuses_storage_dtypes_before_loading() -> None:
    class Loaded(Exception):
        pass

    def loader(name: str, device: str, dtype: str | None):  # type: ignore[no-untyped-def]
        raise Loaded(dtype)

    for bad in ("int8", "bool", "complex64", "float8_e4m3fn", "no_such_dtype"):
        with pytest.raises(ValueError, match=f"dtype must be one of .*got '{bad}'"):
            load_model("smollm2-135m", dtype=bad, loader=loader, verbose=False)
    with pytest.raises(TypeError, match="dtype must be a torch dtype name"):
        load_model("smollm2-135m", dtype=16, loader=loader, verbose=False)  # type: ignore[arg-type]
    for good, name in (("bfloat16", "bfloat16"), (torch.float16, "float16"), ("half", "float16")):
        with pytest.raises(Loaded, match=f"^{name}$"):
            load_model("smollm2-135m", dtype=good, loader=loader, verbose=False)  # type: ignore[arg-type]


# --- items 12, 22, 23: the command line checks everything before the model load ----------------


def test_cli_help_works_without_docstrings() -> None:
    out = subprocess.run(
        [sys.executable, "-OO", "-m", "assocmem.llm", "--help"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "lib")},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert "models:" in out.stdout and "smollm2-135m" in out.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--n-test", "0"], "--n-test must be an integer >= 1, got '0'"),
        (["--n-test", "-5"], "--n-test must be an integer >= 1, got '-5'"),
        (["--batch-size", "0"], "--batch-size must be an integer >= 1"),
        (["--max-tokens", "0"], "--max-tokens must be an integer >= 1"),
        (["--seed", "-1"], "--seed must be an integer >= 0"),
        (["--n-sets", "1"], "--n-sets must be an integer >= 2"),
        (["--lama-layer-step", "x"], "--lama-layer-step must be an integer >= 1, got 'x'"),
    ],
)
def test_cli_refuses_bad_sizes_before_the_model_load(argv, message, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    def no_load(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("the model must not be loaded")

    monkeypatch.setattr(cli, "load_model", no_load)
    with pytest.raises(SystemExit, match="^2$"):
        cli.main(["--model", "smollm2-135m", *argv])
    assert message in capsys.readouterr().err


def test_cli_refuses_an_out_file_before_the_model_load(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    def no_load(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("the model must not be loaded")

    monkeypatch.setattr(cli, "load_model", no_load)
    target = tmp_path / "results.json"
    target.write_text("{}")
    for out, what in ((target, "it is a file"), (target / "sub", "its parent")):
        with pytest.raises(SystemExit, match="^2$"):
            cli.main(["--model", "smollm2-135m", "--out", str(out)])
        assert f"--out = '{out}' cannot be a directory: {what}" in capsys.readouterr().err
    assert target.read_text() == "{}"


# --- the classes of items 8 and 19 reach the probes: labels, layers, token ids ------------------


def test_probes_refuse_float_labels_layers_and_foreign_ids(tiny: LanguageModel) -> None:
    from assocmem.llm.evaluation import label_alignment, probe_accuracy
    from assocmem.llm.probes import additive_accuracy, decode, label_accuracy, layer_profile

    logits = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    assert label_accuracy(logits, np.array([1, 0, 0])) == pytest.approx(2 / 3)
    with pytest.raises(TypeError, match="labels must be a 1-D array of integer indices"):
        label_accuracy(logits, np.array([1.0, 0.0, 0.9]))
    with pytest.raises(ValueError, match="labels must hold indices >= 0 and < 2"):
        label_accuracy(logits, np.array([1, 0, 2]))
    h = torch.randn(6, tiny.n_layers + 1, tiny.d_model)
    with pytest.raises(TypeError, match="labels must be a 1-D array of integer indices"):
        probe_accuracy(h, np.array([0, 1, 0, 1, 0, 0.9]), n_folds=2)
    with pytest.raises(ValueError, match="labels must hold indices >= 0 and < 2"):
        label_alignment(h, torch.randn(2, tiny.d_model), np.array([0, 1, 2, 0, 1, 0]))
    with pytest.raises(ValueError, match=r"ids must hold indices >= 0 and < 260"):
        decode(tiny, h[:, -1], torch.tensor([5, 300]))
    with pytest.raises(ValueError, match=r"label_ids must hold indices >= 0 and < 260"):
        layer_profile(tiny, h, torch.tensor([-1, 4]))
    c_bar = torch.zeros(tiny.n_layers + 1, tiny.d_model)
    args = (tiny, c_bar, h[:, -1], np.zeros(6, dtype=np.int64), torch.tensor([5, 9]))
    assert additive_accuracy(*args, [0, 3], [0.0, 1.0]).shape == (2, 2)
    with pytest.raises(TypeError, match="layers must be a 1-D array of integer indices"):
        additive_accuracy(*args, [1.5], [1.0])
    with pytest.raises(ValueError, match="layers must hold indices >= 0 and < 4"):
        additive_accuracy(*args, [4], [1.0])


def test_runs_check_their_sizes_before_the_first_forward_pass(tiny: LanguageModel) -> None:
    """The class of item 23 in the library: a run's sizes are refused before any state."""
    from assocmem.llm.experiments import run_classification, run_lama

    def no_pass(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("no forward pass before the checks")

    task = load_task("sst2", source="examples")
    split = make_split(task, n_ctx=4, n_sel=4, n_test=4, n_pool=16, verbose=False)
    lama = load_task("lama_p36", source="examples")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("assocmem.llm.experiments.prompt_states", no_pass)
        for kw, message in (
            ({"batch_size": 0}, "batch_size must be an integer >= 1"),
            ({"max_tokens": 0}, "max_tokens must be an integer >= 1"),
            ({"n_prefixes": 0}, "n_prefixes must be an integer >= 1"),
            ({"layers": [1, 7]}, "layers must hold indices >= 0 and < 4"),
            ({"ks": (4, 0)}, r"ks\[1\] must be an integer >= 1"),
            ({"n_chat": 0}, "n_chat must be an integer >= 1"),
        ):
            with pytest.raises(ValueError, match=message):
                run_classification(tiny, task, split, lambdas=[1.0], **kw)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="layers must be a 1-D array of integer indices"):
            run_classification(tiny, task, split, lambdas=[1.0], layers=[1.5])
        with pytest.raises(TypeError, match="n_queries must be an integer"):
            run_lama(tiny, lama, k=2, lambdas=[1.0], n_queries=2.5)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="layers must hold indices"):
            run_lama(tiny, lama, k=2, lambdas=[1.0], layers=[-1])


def test_a_corrupt_assembled_gguf_is_assembled_again(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The class of item 20 for the other cached file: an assembled model file."""
    import hashlib

    from assocmem.llm.loaders import gguf_path
    from assocmem.llm.registry import GGUFPackage

    good = b"GGUF" + bytes(range(256)) * 4
    pkg = tmp_path / "site" / "fake_gguf_parts"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import pathlib\n"
        "def assemble(path):\n"
        "    path = pathlib.Path(path)\n"
        "    path.parent.mkdir(parents=True, exist_ok=True)\n"
        f"    path.write_bytes({good!r})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("ASSOCMEM_CACHE_DIR", str(tmp_path / "cache"))
    source = GGUFPackage(package="fake_gguf_parts", distribution="fake-gguf-parts",
                         file="m.gguf", parts=("fake-gguf-part1",),
                         sha256=hashlib.sha256(good).hexdigest())  # fmt: skip
    path = gguf_path(source)
    assert path.read_bytes() == good
    for broken in (good[:100], b""):  # truncated, empty
        path.write_bytes(broken)
        with pytest.warns(RuntimeWarning, match="unexpected SHA-256 .*assembling it again"):
            assert gguf_path(source).read_bytes() == good
    bad = GGUFPackage(package="fake_gguf_parts", distribution="fake-gguf-parts",
                      file="m.gguf", parts=("fake-gguf-part1",), sha256="0" * 64)  # fmt: skip
    with pytest.warns(RuntimeWarning, match="assembling it again"):
        with pytest.raises(ValueError, match="unexpected SHA-256 after assembling it again"):
            gguf_path(bad)


def test_a_file_in_the_cache_directory_s_place_is_refused_before_the_run(tiny, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "llm").write_text("not a directory")
    with pytest.raises(ValueError, match="cache_path = .*llm' cannot be a directory: it is a file"):
        prompt_states(tiny, [[3]], [[5]], cache=True, cache_path=tmp_path, progress=False)


@PROPERTY_SETTINGS
@given(option=st.sampled_from(sorted(_MINIMA)), value=st.integers(-(10**6), 10**6))
def test_cli_options_hold_their_minimum(option: str, value: int) -> None:
    """Any integer: parsed exactly when it is at least the option's minimum (else usage, exit 2)."""
    parser = cli.build_parser()
    try:
        args = parser.parse_args([option, str(value)])
    except SystemExit as exc:
        assert exc.code == 2 and value < _MINIMA[option]
        return
    assert value >= _MINIMA[option]
    assert getattr(args, option.lstrip("-").replace("-", "_")) == value
