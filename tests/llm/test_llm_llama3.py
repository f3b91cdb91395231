"""The Llama-3-8B path without the weights (issue 14, item 6).

A randomly initialised ``LlamaForCausalLM`` with Llama-3-8B's architecture scaled down in width
(same 128,256-token vocabulary and real tokenizer, 32 layers, grouped-query attention 4:1,
rope theta 500000, untied embeddings) is injected into ``load_model("llama-3-8b")`` through its
``loader`` argument, so everything after the download is the code the real model runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
from assocmem.llm.data import load_task
from assocmem.llm.experiments import run_classification, run_lama
from assocmem.llm.models import LanguageModel, load_model
from assocmem.llm.probes import decode, final_norm
from assocmem.llm.prompts import encode, make_split
from assocmem.llm.protocol import default_layers
from assocmem.llm.states import prompt_states

TOK_DIR = Path(
    os.environ.get("ASSOCMEM_LLAMA3_TOKENIZER",
                   Path(__file__).resolve().parents[2] / ".." / "shared" / "llama3_tokenizer")
)  # fmt: skip
pytestmark = pytest.mark.skipif(
    not (TOK_DIR / "tokenizer.json").is_file(), reason=f"Llama-3 tokenizer not in {TOK_DIR}"
)
BOS = 128000


def _tokenizer(adds_bos: bool):  # type: ignore[no-untyped-def]
    from tokenizers import processors
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(TOK_DIR))
    if adds_bos:  # what the current hub revision of Meta-Llama-3-8B does
        tok._tokenizer.post_processor = processors.TemplateProcessing(
            single="<|begin_of_text|> $A", special_tokens=[("<|begin_of_text|>", BOS)]
        )
    return tok


@pytest.fixture(scope="module", params=[False, True], ids=["tokenizer-no-bos", "tokenizer-bos"])
def llama(request: pytest.FixtureRequest) -> LanguageModel:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=128256, hidden_size=64, intermediate_size=224, num_hidden_layers=32,
        num_attention_heads=8, num_key_value_heads=2, rope_theta=500000.0,
        max_position_embeddings=8192, rms_norm_eps=1e-5, tie_word_embeddings=False,
        bos_token_id=BOS, eos_token_id=128001,
    )  # fmt: skip
    model = LlamaForCausalLM(cfg).eval()
    tok = _tokenizer(request.param)
    assert (tok("a")["input_ids"][0] == BOS) == request.param

    def loader(name: str, device: str, dtype: str | None):  # type: ignore[no-untyped-def]
        assert name == "llama-3-8b"
        return model, tok, "test:random-llama3-architecture"

    return load_model("llama-3-8b", loader=loader, verbose=False)


def test_llama3_setup_bos_labels_layers(llama: LanguageModel) -> None:
    assert llama.name == "llama-3-8b" and llama.n_layers == 32 and llama.add_bos
    assert llama.bos_ids == [BOS]
    assert default_layers(llama.n_layers) == [20, 24, 28, 32]
    assert llama.label_ids(("negative", "positive")).tolist() == [8389, 6928]
    assert llama.label_ids(("World", "Sports", "Business", "Science")).shape == (4,)
    assert llama.label_ids(load_task("trec", source="examples").label_words).shape == (6,)
    assert llama.word_ids("Abbreviation") == [27063, 7430, 7246]
    with pytest.raises(ValueError, match="Abbreviation"):
        llama.label_ids(("Abbreviation", "Number"))
    assert not llama.model.config.tie_word_embeddings
    assert not torch.equal(llama.unembedding, llama.model.get_input_embeddings().weight)


def test_llama3_prompts_have_exactly_one_bos_and_match_the_full_forward(
    llama: LanguageModel,
) -> None:
    seen: list[list[int]] = []
    hook = llama.base.embed_tokens.register_forward_pre_hook(
        lambda _m, args: seen.extend(args[0].tolist())
    )
    pre = [encode(llama, "Review: fine\nSentiment: positive\n\n")]
    qs = [encode(llama, "Review: a dull mess\nSentiment:"), encode(llama, "Review: ok\nSentiment:")]
    try:
        st = prompt_states(llama, pre, qs, [0, 0], cache=False, progress=False)
        zero = prompt_states(llama, [[]], qs, cache=False, progress=False)
    finally:
        hook.remove()
    # two prefix passes ([BOS] + demos, then [BOS] alone), each starting with the one BOS
    assert sum(row.count(BOS) for row in seen) == 2
    assert seen[0][0] == BOS and [BOS] in seen
    for i, q in enumerate(qs):
        ids = torch.tensor([[BOS, *pre[0], *q]])
        with torch.inference_mode():
            out = llama.model(ids, output_hidden_states=True)
        ref = torch.stack([s[0, -1] for s in out.hidden_states])
        torch.testing.assert_close(st.h[i, :-1], ref[:-1], atol=1e-4, rtol=1e-4)
        # read-out: the final norm then W_U gives the model's own logits
        torch.testing.assert_close(final_norm(llama, st.h[i, -1]), ref[-1], atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(decode(llama, st.h[i, -1]), out.logits[0, -1],
                                   atol=1e-4, rtol=1e-4)  # fmt: skip
        with torch.inference_mode():
            out0 = llama.model(torch.tensor([[BOS, *q]]), output_hidden_states=True)
        torch.testing.assert_close(zero.h[i, 5], out0.hidden_states[5][0, -1], atol=1e-4,
                                   rtol=1e-4)  # fmt: skip


def test_llama3_runs_the_chapter_pipeline(llama: LanguageModel) -> None:
    task = load_task("sst2", source="examples")
    sp = make_split(task, n_ctx=4, n_sel=4, n_test=10, n_pool=8, pool_per_class=4, seed=0)
    res = run_classification(llama, task, sp, ks=(4,), n_prefixes=2, n_profile=4,
                             lambdas=np.logspace(-2, 1, 3), progress=False)  # fmt: skip
    assert res.layers == [20, 24, 28, 32] and res.acc_sel[4].shape == (4, 3)
    assert res.probe is not None and res.probe.correct.shape == (33, 10)
    facts = load_task("lama_p36", source="examples")
    lama = run_lama(llama, facts, k=2, lambdas=[1.0], layers=[32], progress=False)
    assert lama.n == len(facts) == 100 and lama.counts["capitals"] == lama.n
    assert np.isfinite(lama.effect.prob).all()
