"""Tests of chapter 6's data layer (assocmem.llm.data): strict local files and the pinned hub table.

Local files: each format is written by hand to a temporary directory (no real data needed) and, when
the real files are present (``$ASSOCMEM_DATA_DIR`` or ``../shared/data``), copied there with
changes; the real files are only read. Hub: ``datasets.load_dataset`` is replaced by a fake that
records its arguments and returns a small ``datasets.Dataset`` with the hub's column names and
label encoding; nothing touches the network.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from assocmem.llm import data
from assocmem.llm.data import EXAMPLES_LABEL, TASKS, load_task

DATA_DIR = Path(
    os.environ.get(
        "ASSOCMEM_DATA_DIR", Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    )
)
HAVE_DATA = all((DATA_DIR / spec.local_path).is_file() for spec in TASKS.values())
needs_data = pytest.mark.skipif(not HAVE_DATA, reason=f"real data not found in {DATA_DIR}")
NAMES = ["sst2", "ag_news", "trec", "lama_p36"]


@pytest.fixture(autouse=True)
def _no_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hub offline for every test (tests/llm/conftest.py) and no data directory unless given."""
    monkeypatch.delenv("ASSOCMEM_DATA_DIR", raising=False)


def _write(root: Path, name: str, content: str | bytes) -> Path:
    path = root / TASKS[name].local_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def _items(task) -> tuple[tuple[str, ...], list[str]]:  # type: ignore[no-untyped-def]
    return task.texts, [task.label_names[y] for y in task.labels]


def _load(root: Path, name: str):  # type: ignore[no-untyped-def]
    return load_task(name, source="local", data_dir=root)


def _with_line(content: str, line: int, new: str) -> str:
    """Insert ``new`` so that it becomes line ``line`` (1-based) of ``content``."""
    lines = content.split("\n")
    lines.insert(line - 1, new)
    return "\n".join(lines)


# --------------------------------------------------------------------------- hand-written files
# name -> (file content, texts, labels); the formats of ../shared/data/SOURCES.md
SMALL = {
    "sst2": (
        "sentence\tlabel\na warm , funny film . \t1\nthe plot goes nowhere .\t0\n"
        "it never bores .\t1\n",
        ("a warm , funny film .", "the plot goes nowhere .", "it never bores ."),
        ["positive", "negative", "positive"],
    ),
    "ag_news": (
        '"3","Stocks rise","Shares rose  #36;10 on Monday \\ after a  quot;strong quot; report."\n'
        '"2","Home team wins","The home team won 3-1 on Sunday."\n'
        '"4","New chip","A faster chip, &lt;b&gt;smaller&lt;/b&gt; than before."\n',
        (
            'Stocks rise. Shares rose $10 on Monday after a "strong" report.',
            "Home team wins. The home team won 3-1 on Sunday.",
            "New chip. A faster chip, smaller than before.",
        ),
        ["Business", "Sports", "Sci/Tech"],
    ),
    "trec": (
        "NUM:count How many legs does a spider have ?\nHUM:ind Who wrote the whale novel ?\n"
        "ENTY:animal What animal barks ?\n",
        (
            "How many legs does a spider have ?",
            "Who wrote the whale novel ?",
            "What animal barks ?",
        ),
        ["NUM", "HUM", "ENTY"],
    ),
    "lama_p36": (
        '{"sub_label": "France", "obj_label": "Paris", "uuid": "a1"}\n'
        '{"sub_label": "Kenya", "obj_label": "Nairobi", "uuid": "b2"}\n'
        '{"sub_label": "Peru", "obj_label": "Lima", "uuid": "c3"}\n',
        ("France", "Kenya", "Peru"),
        ["Paris", "Nairobi", "Lima"],
    ),
}

# a malformed line and a line with an unknown label, per task
MALFORMED = {
    "sst2": "a line without its label",
    "ag_news": '"2","only a title"',
    "trec": "What is the capital of Peru ?",
    "lama_p36": '{"sub_label": "Chile", "obj_label": "Santiago"',
}
UNKNOWN_LABEL = {
    "sst2": "a neutral sentence .\t2",
    "ag_news": '"7","A title","A description."',
    "trec": "COLOR:other What color is the sky ?",
    "lama_p36": '{"sub_label": "Chile"}',
}
EXPECTED_WORDS = {  # what each message must say was expected
    "sst2": "expected 2 tab-separated fields 'sentence<TAB>label' with label 0 or 1",
    "ag_news": "expected 3 comma-separated quoted fields",
    "trec": "expected 'COARSE:fine question'",
    "lama_p36": "expected one JSON object per line",
}
# line 3 is an item line in every file (after the header and one item in SST-2)
BAD_LINE = 3


@pytest.mark.parametrize("name", NAMES)
def test_small_files_parse(tmp_path: Path, name: str) -> None:
    content, texts, labels = SMALL[name]
    _write(tmp_path, name, content)
    task = _load(tmp_path, name)
    assert _items(task) == (texts, labels)
    assert task.source == str(tmp_path / TASKS[name].local_path)


@pytest.mark.parametrize("name", NAMES)
def test_small_files_blank_lines_bom_and_crlf_give_the_same_items(
    tmp_path: Path, name: str
) -> None:
    content, texts, labels = SMALL[name]
    variants = {
        "two trailing blank lines": content + "\n\n",
        "BOM": "\ufeff" + content,
        "BOM and trailing blanks": "\ufeff" + content + "\n \n\t\n",
        "blank lines inside": _with_line(_with_line(content, 2, ""), 4, "   "),
        "no final newline": content.rstrip("\n"),
        "CRLF": content.replace("\n", "\r\n") + "\r\n",
    }
    for what, text in variants.items():
        _write(tmp_path, name, text)
        assert _items(_load(tmp_path, name)) == (texts, labels), what


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["malformed", "unknown label"])
def test_small_files_bad_line_names_file_and_line(tmp_path: Path, name: str, kind: str) -> None:
    content = SMALL[name][0]
    bad = (MALFORMED if kind == "malformed" else UNKNOWN_LABEL)[name]
    path = _write(tmp_path, name, "\ufeff" + _with_line(content, BAD_LINE, bad) + "\n\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line {BAD_LINE}: ")) as err:
        _load(tmp_path, name)
    msg = str(err.value)
    assert msg.startswith(f"{path}, line {BAD_LINE}: "), msg
    assert path.name in msg and EXPECTED_WORDS[name] in msg
    if kind == "unknown label" and name != "lama_p36":
        assert "unknown" in msg
    if kind == "malformed" and name == "lama_p36":
        assert "invalid JSON" in msg


def test_line_numbers_count_blank_lines_and_the_bom(tmp_path: Path) -> None:
    content = "\ufeff\n" + SMALL["trec"][0].replace("\n", "\n\n", 1)  # blanks at lines 1 and 3
    path = _write(tmp_path, "trec", content + "ABBR:exp\n")  # after 2 + 2 blank + 2 item lines
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 6: expected 'COARSE:fine")):
        _load(tmp_path, "trec")


def test_messages_for_header_encoding_empty_files_and_unclosed_quotes(tmp_path: Path) -> None:
    path = _write(tmp_path, "sst2", "text\tlabel\nfine\t1\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 1: expected the header")):
        _load(tmp_path, "sst2")
    _write(tmp_path, "sst2", b"sentence\tlabel\nfine\t1\nbad \xff byte\t0\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 3: not valid UTF-8")):
        _load(tmp_path, "sst2")
    _write(tmp_path, "sst2", "\ufeffsentence\tlabel\n\n\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}: no items")):
        _load(tmp_path, "sst2")
    path = _write(tmp_path, "ag_news", SMALL["ag_news"][0] + '"1","A title","never closed\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 4: unexpected end of data")):
        _load(tmp_path, "ag_news")
    _write(tmp_path, "ag_news", SMALL["ag_news"][0] + '"1","A title" x,"text"\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 4: ")) as err:
        _load(tmp_path, "ag_news")
    assert "expected 3 comma-separated" in str(err.value)
    path = _write(tmp_path, "lama_p36", '["Chile", "Santiago"]\n')
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 1: expected one JSON object")):
        _load(tmp_path, "lama_p36")


def test_auto_source_reports_a_bad_file_instead_of_falling_back(tmp_path: Path) -> None:
    path = _write(tmp_path, "sst2", SMALL["sst2"][0] + "broken line\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 5")):
        load_task("sst2", data_dir=tmp_path)  # source="auto"


# --------------------------------------------------------------------------- real files
# counts (SOURCES.md), first and last items, and a fingerprint of the parsed output of the loader
# before it was made strict (sha256 of json.dumps([texts, labels])): the parse must not change
REAL = {
    "sst2": (
        872,
        ("it 's a charming and often affecting journey .", "positive"),
        "c49ad50ef183ae121354ffe980232c322917a687c1332f7454bde320467a532c",
    ),
    "ag_news": (
        7600,
        (
            "Fears for T N pension after talks. Unions representing workers at Turner Newall say"
            " they are 'disappointed' after talks with",
            "Business",
        ),
        "41f02bc976a8175c20d36c3a779f5d89933ea8ba59430524beed9b8b124b7898",
    ),
    "trec": (
        500,
        ("How far is it from Denver to Aspen ?", "NUM"),
        "d7b8b1159b499269901f64d6e1435eaaa86fe4c83bcdee72f6750fa2c1f896b7",
    ),
    "lama_p36": (
        471,
        ("Cook County", "Chicago"),
        "1b407578ccaf9231fd61663ea6e52fe03db4006a0663c69adbf486c75bcda4a4",
    ),
}
REAL_LAST = {
    "sst2": (
        "looking aristocratic , luminous yet careworn in jane hamilton 's exemplary costumes ,"
        " rampling gives a performance that could not be improved upon . '",
        "positive",
    ),
    "ag_news": (
        "EBay gets into rentals. EBay plans to buy the apartment and home rental service Rent.com"
        " for $415 million, adding to",
        "Business",
    ),
    "trec": ("What is e-coli ?", "DESC"),
    "lama_p36": ("Flanders", "Brussels"),
}


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_real_files_parse_as_before(name: str) -> None:
    n, first, digest = REAL[name]
    texts, labels = data._read_local(name, DATA_DIR)
    assert len(texts) == len(labels) == n
    assert (texts[0], labels[0]) == first
    assert (texts[-1], labels[-1]) == REAL_LAST[name]
    assert hashlib.sha256(json.dumps([texts, labels]).encode()).hexdigest() == digest


@needs_data
@pytest.mark.parametrize("name", NAMES)
def test_real_file_copies_with_blanks_bom_and_bad_lines(tmp_path: Path, name: str) -> None:
    source = DATA_DIR / TASKS[name].local_path
    clean = _items(load_task(name, source="local", data_dir=DATA_DIR))
    raw = source.read_bytes()
    text = raw.decode("utf-8")
    copy = tmp_path / TASKS[name].local_path
    copy.parent.mkdir(parents=True)
    shutil.copyfile(source, copy)
    assert _items(_load(tmp_path, name)) == clean
    for what, content in {
        "two trailing blank lines": raw + b"\n\n",
        "BOM": b"\xef\xbb\xbf" + raw,
    }.items():
        copy.write_bytes(content)
        assert _items(_load(tmp_path, name)) == clean, what
    line = 101  # an item line in every file (SST-2: its 100th sentence)
    for bad in (MALFORMED[name], UNKNOWN_LABEL[name]):
        copy.write_text(_with_line(text, line, bad), encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(f"{copy}, line {line}: ")) as err:
            _load(tmp_path, name)
        msg = str(err.value)
        assert msg.startswith(f"{copy}, line {line}: ") and EXPECTED_WORDS[name] in msg, msg
    assert source.read_bytes() == raw  # the real file was only read


# --------------------------------------------------------------------------- hub table
HEX40 = re.compile(r"[0-9a-f]{40}")


def test_hub_table_is_pinned_and_consistent() -> None:
    for name, spec in TASKS.items():
        hub = spec.hub
        if hub is None:
            assert name == "lama_p36" and "loading-script" in spec.hub_missing
            continue
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", hub.repo_id)
        assert HEX40.fullmatch(hub.revision), hub.revision
        assert set(hub.label_names) == set(spec.label_names)
        assert hub.n_items == REAL[name][0]
    assert TASKS["trec"].hub is not None and TASKS["trec"].hub.label_column == "coarse_label"


def _fake_split(name: str, *, names: tuple[str, ...] | None = None, rows: int | None = None):  # type: ignore[no-untyped-def]
    """A split with the hub's columns and ClassLabel encoding; label of row i = i mod classes."""
    datasets = pytest.importorskip("datasets")
    hub = TASKS[name].hub
    assert hub is not None
    names = hub.label_names if names is None else names
    rows = hub.n_items if rows is None else rows
    texts = {
        "sst2": [f"sentence {i} . " for i in range(rows)],  # GLUE's trailing space
        "ag_news": [f"Title {i} Body with  #36;{i} and\\more words" for i in range(rows)],
        "trec": [f"Question {i} ?" for i in range(rows)],
    }[name]
    columns = {hub.text_column: texts, hub.label_column: [i % len(names) for i in range(rows)]}
    features = datasets.Features(
        {
            hub.text_column: datasets.Value("string"),
            hub.label_column: datasets.ClassLabel(names=list(names)),
        }
    )
    if name == "sst2":
        columns["idx"] = list(range(rows))
        features["idx"] = datasets.Value("int32")
    return datasets.Dataset.from_dict(columns, features=features)


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Route ``datasets.load_dataset`` to a fake; returns (calls, splits) to inspect and set."""
    datasets = pytest.importorskip("datasets")
    calls: list[tuple[tuple, dict]] = []
    splits: dict[str, object] = {}

    def load_dataset(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((args, kwargs))
        return splits[args[0]]

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.setattr(data, "_hub_offline", lambda: None)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("HF_DATASETS_OFFLINE")
    return calls, splits


@pytest.mark.parametrize("name", ["sst2", "ag_news", "trec"])
def test_hub_loads_the_pinned_split_and_maps_columns(fake_hub, name: str) -> None:  # type: ignore[no-untyped-def]
    calls, splits = fake_hub
    hub = TASKS[name].hub
    splits[hub.repo_id] = _fake_split(name)
    task = load_task(name, source="hub")
    assert calls == [
        ((hub.repo_id,), {"name": hub.config, "split": hub.split, "revision": hub.revision})
    ]
    assert task.source == f"hub:{hub.repo_id}@{hub.revision}"
    assert len(task) == hub.n_items and not task.is_examples
    k = len(hub.label_names)
    assert [task.label_names[y] for y in task.labels] == [
        hub.label_names[i % k] for i in range(hub.n_items)
    ]
    assert task.label_names == TASKS[name].label_names
    first = {
        "sst2": "sentence 0 .",
        "ag_news": "Title 0 Body with $0 and more words",
        "trec": "Question 0 ?",
    }[name]
    assert task.texts[0] == first
    assert load_task(name, data_dir=None).source == task.source  # "auto" without a local file


def test_hub_trec_keeps_the_hub_class_order(fake_hub) -> None:  # type: ignore[no-untyped-def]
    calls, splits = fake_hub
    splits["CogComp/trec"] = _fake_split("trec")
    task = load_task("trec", source="hub")
    # hub coarse_label 1 is ENTY and 2 is DESC (ours: DESC before ENTY)
    assert [task.label_names[y] for y in task.labels[:6]] == [
        "ABBR",
        "ENTY",
        "DESC",
        "HUM",
        "LOC",
        "NUM",
    ]


def test_hub_split_that_differs_from_the_table_is_refused(fake_hub) -> None:  # type: ignore[no-untyped-def]
    calls, splits = fake_hub
    ours = TASKS["trec"].label_names  # a different order than the hub's
    splits["CogComp/trec"] = _fake_split("trec", names=ours)
    with pytest.raises(ValueError, match="class names"):
        load_task("trec", source="hub")
    task = load_task("trec")  # auto: falls back to the examples with the reason
    assert task.source == EXAMPLES_LABEL
    splits["CogComp/trec"] = _fake_split("trec", rows=499)
    with pytest.raises(ValueError, match="has 499 rows, expected 500"):
        load_task("trec", source="hub")
    splits["CogComp/trec"] = _fake_split("trec").rename_column("coarse_label", "label")
    with pytest.raises(ValueError, match="no column"):
        load_task("trec", source="hub")


class _FakeResponse:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def __enter__(self) -> _FakeResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self) -> bytes:
        return self.body


LAMA_LINES = [
    '{"sub_label": "Chile", "obj_label": "Santiago", "uuid": "a"}',
    '{"sub_label": "Peru", "obj_label": "Lima", "uuid": "b"}',
]


def test_lama_has_no_hub_source_and_says_why(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    def no_network(*args: object, **kwargs: object) -> object:
        raise AssertionError("LAMA must not touch the network when an offline switch is set")

    monkeypatch.setattr(data, "hub_reachable", no_network)
    monkeypatch.setattr(data.urllib.request, "urlopen", no_network)
    with pytest.raises(ValueError, match="source='hub' but LAMA P36 has no hub source"):
        load_task("lama_p36", source="hub")
    task = load_task("lama_p36", verbose=True)
    assert task.source == EXAMPLES_LABEL
    out = capsys.readouterr().out
    assert "facebook/lama is a loading-script dataset" in out and "P36.jsonl" in out
    assert "web source is skipped: HF_HUB_OFFLINE is set" in out


def test_lama_web_source_is_pinned_and_checksummed(monkeypatch: pytest.MonkeyPatch) -> None:
    web = TASKS["lama_p36"].web
    assert web is not None and "/cb5554678457beb5ac163d888f1ce8cf174b3f0b/" in web.url
    assert re.fullmatch(r"[0-9a-f]{64}", web.sha256) and web.n_items == 471
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("HF_DATASETS_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    body = ("\n".join(LAMA_LINES) + "\n").encode()
    seen: list[str] = []

    def fake_urlopen(url: str, timeout: float) -> _FakeResponse:
        seen.append(url)
        return _FakeResponse(body)

    monkeypatch.setattr(data.urllib.request, "urlopen", fake_urlopen)
    small = data.WebSource(web.url, hashlib.sha256(body).hexdigest(), 2, "test")
    monkeypatch.setitem(TASKS, "lama_p36", dataclasses.replace(TASKS["lama_p36"], web=small))
    task = load_task("lama_p36", source="hub")
    assert seen == [web.url] and task.source == web.url
    assert task.texts == ("Chile", "Peru") and task.label_names == ("Lima", "Santiago")
    # a download that differs from the pinned bytes is refused; "auto" falls back, saying why
    wrong = data.WebSource(web.url, "0" * 64, 2, "test")
    monkeypatch.setitem(TASKS, "lama_p36", dataclasses.replace(TASKS["lama_p36"], web=wrong))
    with pytest.raises(ValueError, match="SHA-256"):
        load_task("lama_p36", source="hub")
    assert load_task("lama_p36").source == EXAMPLES_LABEL


@needs_data
def test_lama_web_source_is_the_local_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pinned SHA-256 is the real file's: served the local bytes, the web path loads them."""
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("HF_DATASETS_OFFLINE")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    body = (DATA_DIR / TASKS["lama_p36"].local_path).read_bytes()
    monkeypatch.setattr(data.urllib.request, "urlopen", lambda url, timeout: _FakeResponse(body))
    web = load_task("lama_p36", source="hub")
    local = load_task("lama_p36", source="local", data_dir=DATA_DIR)
    assert web.texts == local.texts and web.label_names == local.label_names
    assert len(web) == 471
