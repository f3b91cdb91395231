"""Issue 26: a prompt's token ids are the tokenization of its text, for both offline models.

For every task (built-in example sets, or the real files when ``ASSOCMEM_DATA_DIR`` is set), the
zero-shot and k-shot prompts chapter 6 builds are cut into a shared prefix and a query part
(:func:`assocmem.llm.prompts.prompt_ids`); BOS + prefix + query must equal what the model's own
tokenizer gives for the whole text with its special tokens (one BOS for Gemma, none for SmolLM2),
and the chat-template variant of the Instruct model likewise.
"""

from __future__ import annotations

import numpy as np
import pytest
from assocmem.llm.data import load_task
from assocmem.llm.models import LanguageModel
from assocmem.llm.prompts import chat_text, demo_prefixes, encode, make_split, prompt_ids

pytestmark = pytest.mark.slow

TASKS = {"sst2": 4, "ag_news": 4, "trec": 6, "lama_p36": 4}


def _prompts(lm: LanguageModel, name: str, k: int) -> list[tuple[list[str], np.ndarray]]:
    """(texts, groups) of chapter 6's zero-shot and balanced k-shot prompts on 48 queries."""
    task = load_task(name, verbose=False)
    if name == "lama_p36":
        items, pool, balanced = np.arange(48), np.arange(len(task)), False
    else:
        per = 8 * k // len(task.label_words)
        split = make_split(task, n_ctx=8, n_sel=8, n_test=48, n_pool=8 * k,
                           pool_per_class=per, verbose=False)  # fmt: skip
        items, pool, balanced = split.test, split.pool, True
    queries = [task.template.format(x=task.texts[i], y="") for i in items]
    pre = demo_prefixes(task, pool, k=k, n_prefixes=8, balanced=balanced)
    which = pre.assign(items)
    shots = [pre.texts[w] + q for w, q in zip(which, queries, strict=True)]
    return [(queries, np.zeros(len(items), dtype=np.int64)), (shots, which)]


def _check(lm: LanguageModel, texts: list[str], which: np.ndarray) -> int:
    """Assert BOS + prefix + query == tokenizer(text) for each prompt; return shared tokens."""
    prefixes, queries = prompt_ids(lm, texts, which)
    shared = 0
    for text, g, q in zip(texts, which, queries, strict=True):
        want = lm.tokenizer(text, add_special_tokens=True)["input_ids"]
        assert lm.bos_ids + prefixes[g] + q == want, text[-80:]
        assert q, "every query part holds at least one token"
        shared += len(prefixes[g])
    return shared


@pytest.mark.parametrize("name", sorted(TASKS))
@pytest.mark.parametrize("model", ["standin", "gemma"])
def test_prompt_ids_are_the_text_tokenization(model: str, name: str, request) -> None:
    lm = request.getfixturevalue(model)
    zero, shots = _prompts(lm, name, TASKS[name])
    _check(lm, *zero)
    shared = _check(lm, *shots)
    # the demonstrations are shared (computed once per set), not re-run per query
    assert shared >= len(shots[0]) * 20
    assert lm.bos_ids == ([lm.tokenizer.bos_token_id] if model == "gemma" else [])


@pytest.mark.parametrize("name", ["sst2", "trec"])
def test_chat_template_prompts_are_the_text_tokenization(standin, name: str) -> None:
    _, (texts, which) = _prompts(standin, name, TASKS[name])
    chat = [chat_text(standin, t) for t in texts]
    assert all(c.count("<|im_start|>") == 3 for c in chat)  # system, user, assistant
    assert all(c.endswith(t.rsplit("\n", 1)[1]) for c, t in zip(chat, texts, strict=True))
    _check(standin, chat, which)


def test_separate_encoding_is_not_the_text(standin) -> None:
    """The bug the issue measured: the prefix encoded alone ends in ``ĊĊ``, unlike the text."""
    task = load_task("sst2", verbose=False)  # the real dev set, or the example set without it
    pre = demo_prefixes(task, np.arange(len(task)), k=4, n_prefixes=2)
    query = "Review: a fine film\nSentiment:"
    glued = encode(standin, pre.texts[0]) + encode(standin, query)
    assert glued != encode(standin, pre.texts[0] + query)
    assert standin.tokenizer.convert_ids_to_tokens(encode(standin, pre.texts[0]))[-1] == "ĊĊ"
