"""Evaluation tasks for chapter 6: SST-2, AG-News, TREC (coarse) and LAMA P36 (capital of).

Sources, tried in order by :func:`load_task` with ``source="auto"``:

1. a local data directory (the ``data_dir`` argument, else the environment variable
   ``ASSOCMEM_DATA_DIR``) laid out as in ``../shared/data/SOURCES.md``;
2. the Hugging Face hub through ``datasets`` (skipped when ``HF_HUB_OFFLINE`` or
   ``HF_DATASETS_OFFLINE`` is set or the hub is unreachable);
3. small example sets written for this project, labelled "examples, not the benchmark".

One topic, past 700 lines: the four tasks' definitions (:data:`TASKS`), their three sources and
the strict readers of each file format share the task records, so the readers stay here rather
than in a module that would have to import the records back.

Local files are read strictly: blank lines are skipped and a UTF-8 byte-order mark is accepted, but
a malformed row, an unknown label or invalid JSON raises ``ValueError`` naming the file, the 1-based
line and what the line should hold.

Hub sources (:class:`HubSource`, the ``hub`` field of each :data:`TASKS` entry) are data-only
repositories (parquet files and no loading script, which ``datasets`` >= 4.0 refuses), pinned to a
commit and checked on load (row count, column names, class names): GLUE SST-2 validation (872),
AG-News test (7,600) and TREC test (500; from the hub's parquet conversion of ``CogComp/trec``,
branch ``refs/convert/parquet``, because its main branch holds only a loading script). Integer
labels are mapped through the hub's class names, whose order differs from ours for TREC. The hub's
AG-News ``text`` joins title and description with a space where the local loader writes
``"title. description"``; the other hub texts equal the local ones.

LAMA P36 has no hub source: ``facebook/lama`` is a loading-script dataset, and no data-only copy of
the ParaRel-filtered T-REx P36 file (471 facts) is known. Its online source instead
(:class:`WebSource`, the ``web`` field) is that file in ParaRel's public repository at a pinned
commit, checked against its SHA-256 (the one ``../shared/data/SOURCES.md`` gives); it is tried in
the hub's place and under the same offline switches. Without it the task falls back to the
built-in examples, and the reason says so.

Label words: a class is scored by the token of ``" " + word`` (leading space), which must be a
single token (checked when scoring, :meth:`LanguageModel.label_ids`): TREC's are lower case
because " Abbreviation" is three tokens for both the stand-in's and Llama-3's tokenizers.
LAMA targets are scored as whole words (all their tokens).
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import os
import re
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assocmem._validate import check_directory, check_int
from assocmem.llm.examples import EXAMPLES
from assocmem.llm.models import hub_reachable
from assocmem.streams import Seed, as_seed_sequence, child, numpy_rng

__all__ = [
    "Task",
    "TASKS",
    "HubSource",
    "WebSource",
    "load_task",
    "EXAMPLES_LABEL",
    "data_dir_from_env",
]

EXAMPLES_LABEL = "examples, not the benchmark"


@dataclass(frozen=True)
class HubSource:
    """A data-only Hugging Face hub dataset holding a task's split, pinned to a commit.

    Attributes
    ----------
    repo_id : str
        Dataset repository, ``"owner/name"``.
    config : str or None
        Configuration name; ``None`` for a repository with one configuration.
    split : str
        Split name on the hub.
    revision : str
        Commit sha (40 hex digits), passed as ``revision=`` to ``datasets.load_dataset``.
    text_column, label_column : str
        Columns of the input text and of the integer class.
    label_names : tuple of str
        The hub's class names in the order of its integer labels (its ``ClassLabel`` names); each
        is one of the task's ``label_names``.
    n_items : int
        Number of rows of the split.
    provenance : str
        The file the revision holds and how the revision was established (documentation only).
    """

    repo_id: str
    config: str | None
    split: str
    revision: str
    text_column: str
    label_column: str
    label_names: tuple[str, ...]
    n_items: int
    provenance: str


@dataclass(frozen=True)
class WebSource:
    """A task's file at a pinned public address, checked by its SHA-256 (for Colab readers).

    Attributes
    ----------
    url : str
        Address of the raw file at a fixed commit.
    sha256 : str
        SHA-256 of the file's bytes (64 hex digits); a download that differs is refused.
    n_items : int
        Number of items the file holds.
    provenance : str
        Where the file comes from (documentation only).
    """

    url: str
    sha256: str
    n_items: int
    provenance: str


@dataclass(frozen=True)
class TaskSpec:
    """Static description of a task: split, label words, template, data file and hub source."""

    name: str
    split: str
    label_names: tuple[str, ...]
    label_words: tuple[str, ...]
    template: str  # demonstration line; the query line is the same up to " {y}"
    separator: str  # between demonstrations
    local_path: str  # relative to the data directory
    description: str
    hub: HubSource | None = None
    hub_missing: str = ""  # why there is no hub source (when hub is None)
    web: WebSource | None = None  # online source used in the hub's place (when hub is None)


_LAMA_NO_HUB = (
    "LAMA P36 has no hub source that datasets >= 4.0 can load: facebook/lama is a loading-script "
    "dataset (lama.py), and no data-only copy of the ParaRel-filtered T-REx P36 file (471 facts) "
    "is known (its online source is ParaRel's file at a pinned commit, TASKS['lama_p36'].web); "
    "offline, put lama/pararel_trex_lms_vocab/P36.jsonl under the data directory "
    "($ASSOCMEM_DATA_DIR) to use the real facts"
)

TASKS: dict[str, TaskSpec] = {
    "sst2": TaskSpec(
        "sst2",
        "validation",
        ("negative", "positive"),
        ("negative", "positive"),
        "Review: {x}\nSentiment:{y}",
        "\n\n",
        "sst2/dev.tsv",
        "SST-2 (GLUE validation, 872 sentences), binary sentiment",
        hub=HubSource(
            "nyu-mll/glue",
            "sst2",
            "validation",
            "bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c",
            "sentence",
            "label",
            ("negative", "positive"),
            872,
            "sst2/validation-00000-of-00001.parquet; the repository's head since its last update "
            "(Jan 2024), pinned (with datasets 4-5) by public projects reading parquet files at it",
        ),
    ),
    "ag_news": TaskSpec(
        "ag_news",
        "test",
        ("World", "Sports", "Business", "Sci/Tech"),
        ("World", "Sports", "Business", "Science"),
        "Article: {x}\nTopic:{y}",
        "\n\n",
        "ag_news/test.csv",
        "AG-News (test, 7,600 articles), 4 topics; title + description, HTML removed, "
        "cut to 20 words",
        hub=HubSource(
            "fancyzhx/ag_news",
            None,
            "test",
            "eb185aade064a813bc0b7f42de02595523103ca4",
            "text",
            "label",
            ("World", "Sports", "Business", "Sci/Tech"),
            7600,
            "data/test-00000-of-00001.parquet; the revision public evaluation code (an MTEB-style "
            "AgNews task and others) pins; text = title + ' ' + description (old script's join)",
        ),
    ),
    "trec": TaskSpec(
        "trec",
        "test",
        ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"),
        ("abbreviation", "description", "entity", "person", "location", "number"),
        "Question: {x}\nAnswer type:{y}",
        "\n\n",
        "trec/test.txt",
        "TREC question classification (TREC-10 test, 500 questions), 6 coarse classes",
        hub=HubSource(
            "CogComp/trec",
            None,
            "test",
            "65752bf53af25bc935a0dce92fb5b6c930728450",
            "text",
            "coarse_label",
            ("ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM"),
            500,
            "default/test/0000.parquet on refs/convert/parquet (main, eb1e45c1, holds only the "
            "loading script trec.py, built from TREC_10.label, the file of our local copy)",
        ),
    ),
    "lama_p36": TaskSpec(
        "lama_p36",
        "test",
        (),
        (),
        "The capital of {x} is{y}",
        "\n",
        "lama/pararel_trex_lms_vocab/P36.jsonl",
        "LAMA T-REx P36 'capital' (ParaRel subset, 471 facts); label = the capital's name",
        hub_missing=_LAMA_NO_HUB,
        web=WebSource(
            "https://raw.githubusercontent.com/yanaiela/pararel/"
            "cb5554678457beb5ac163d888f1ce8cf174b3f0b/data/trex_lms_vocab/P36.jsonl",
            "23632ee03b23422c9840960f9c65c98c12c172f5bb87d2fec20e16b12b17f92e",
            471,
            "ParaRel (Elazar et al. 2021) data/trex_lms_vocab/P36.jsonl, byte-exact to the local "
            "copy described in ../shared/data/SOURCES.md (same SHA-256)",
        ),
    ),
}

_MAX_WORDS = 20  # AG-News articles are cut to this many words to bound prompt length


@dataclass(frozen=True)
class Task:
    """A loaded task.

    Attributes
    ----------
    name : str
        Registry name (see :data:`TASKS`).
    split : str
        Split the items come from.
    texts : tuple of str
        Inputs (sentence, article, question, or the LAMA subject), length n.
    labels : numpy.ndarray, int64, shape (n,)
        Index into ``label_words``.
    label_names : tuple of str
        Dataset class names (for LAMA: the distinct objects).
    label_words : tuple of str
        Words whose token (of ``" " + word``) scores each class (LAMA: whole capitals).
    template, separator : str
        Prompt template (``{x}`` input, ``{y}`` answer with its leading space) and the string
        between demonstrations.
    source : str
        Where the items came from: a file path, ``"hub:<repo_id>@<revision>"``, or
        :data:`EXAMPLES_LABEL`.
    """

    name: str
    split: str
    texts: tuple[str, ...]
    labels: np.ndarray
    label_names: tuple[str, ...]
    label_words: tuple[str, ...]
    template: str
    separator: str
    source: str

    def __len__(self) -> int:
        """Return the number of items n."""
        return len(self.texts)

    @property
    def is_examples(self) -> bool:
        """True when the items are the built-in example set (not the benchmark)."""
        return self.source == EXAMPLES_LABEL


def data_dir_from_env(data_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Return the data directory: the argument, else ``$ASSOCMEM_DATA_DIR``, else ``None``.

    Parameters
    ----------
    data_dir : path or None
        Explicit directory; ``None`` reads the environment variable.

    Returns
    -------
    pathlib.Path or None
        The directory with ``~`` expanded (not checked for existence), or ``None`` if unset.
    """
    value = data_dir if data_dir is not None else os.environ.get("ASSOCMEM_DATA_DIR")
    if value is None or str(value) == "":
        return None
    return Path(value).expanduser()


def _cut(text: str, n_words: int = _MAX_WORDS) -> str:
    r"""Return an AG-News article as plain text, cut to its first ``n_words`` words.

    The raw file carries HTML: entities whose ``&`` became a space (``doesn #39;t``,
    `` quot;phone sex quot;``, `` #36;10``), escaped anchor tags with long URLs
    (``&lt;A HREF="..."&gt;RSE.N&lt;/A&gt;``) and literal ``\n``. Entities are decoded and
    tags removed (their text kept) before cutting.
    """
    text = text.replace("\\n", " ").replace("\\", " ")
    # the file wrote "&#39;" as " #39;": the space before a bare entity was its '&'
    text = re.sub(r"(?:^| )(#\d+|quot|amp);", r"&\1;", text)
    text = re.sub(r"<[^>]*>", " ", html.unescape(text))
    return " ".join(text.split()[:n_words])


def _show(text: str, limit: int = 80) -> str:
    """Return ``repr(text)``, cut to about ``limit`` characters, for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _decode(path: Path) -> str:
    """Return the text of a UTF-8 file, without a leading byte-order mark.

    Raises
    ------
    ValueError
        If the file is not valid UTF-8 (the message names the file and the line).
    """
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ValueError(
            f"{path}, line {line}: not valid UTF-8 ({exc.reason} at byte {exc.start}); "
            "expected a UTF-8 text file"
        ) from None


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line) for each non-blank line; any newline convention."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, line


def _csv_rows(
    path: Path, text: str, expected: str, **fmt: object
) -> Iterator[tuple[int, list[str]]]:
    """Yield (1-based first line, fields) of each CSV record that is not blank.

    Raises
    ------
    ValueError
        If the ``csv`` module rejects a record (e.g. a field over its size limit after an
        unclosed quote); the message names the file, the line and ``expected``.
    """
    reader = csv.reader(io.StringIO(text, newline=""), **fmt)  # type: ignore[arg-type]
    while True:
        first = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ValueError(
                f"{path}, line {first}: {exc} (record ends at line {reader.line_num}); "
                f"expected {expected}"
            ) from None
        if any(field.strip() for field in row):
            yield first, row


_SST2_FORMAT = "2 tab-separated fields 'sentence<TAB>label' with label 0 or 1"
_AG_FORMAT = (
    '3 comma-separated quoted fields "class","title","description" with class 1 (World), '
    "2 (Sports), 3 (Business) or 4 (Sci/Tech)"
)
_TREC_FORMAT = "'COARSE:fine question' with COARSE one of ABBR, DESC, ENTY, HUM, LOC, NUM"
_LAMA_FORMAT = "one JSON object per line with non-empty string fields 'sub_label' and 'obj_label'"


def _read_sst2(path: Path, text: str) -> tuple[list[str], list[str]]:
    """Parse the GLUE ``dev.tsv``: header ``sentence<TAB>label``, then one sentence per line."""
    names = TASKS["sst2"].label_names
    texts: list[str] = []
    labels: list[str] = []
    header = False
    for line, row in _csv_rows(path, text, _SST2_FORMAT, delimiter="\t", quoting=csv.QUOTE_NONE):
        where = f"{path}, line {line}"
        if not header:
            if [field.strip() for field in row] != ["sentence", "label"]:
                got = _show("\t".join(row))
                raise ValueError(f"{where}: expected the header 'sentence<TAB>label', got {got}")
            header = True
            continue
        if len(row) != 2 or not row[0].strip():
            got = _show("\t".join(row))
            raise ValueError(f"{where}: expected {_SST2_FORMAT}, got {len(row)} field(s): {got}")
        label = row[1].strip()
        if label not in ("0", "1"):
            raise ValueError(
                f"{where}: unknown label {label!r}; expected {_SST2_FORMAT} "
                "(0 negative, 1 positive)"
            )
        texts.append(row[0].strip())
        labels.append(names[int(label)])
    return texts, labels


def _read_ag_news(path: Path, text: str) -> tuple[list[str], list[str]]:
    """Parse Zhang et al.'s ``test.csv``: class index 1-4, title, description; no header."""
    names = TASKS["ag_news"].label_names
    texts: list[str] = []
    labels: list[str] = []
    for line, row in _csv_rows(path, text, _AG_FORMAT, strict=True):
        where = f"{path}, line {line}"
        if len(row) != 3:
            raise ValueError(
                f"{where}: expected {_AG_FORMAT}, got {len(row)} field(s): {_show(','.join(row))}"
            )
        cls = row[0].strip()
        if cls not in ("1", "2", "3", "4"):
            raise ValueError(f"{where}: unknown class {cls!r}; expected {_AG_FORMAT}")
        title, description = row[1].strip(), row[2].strip()
        if not (title or description):
            raise ValueError(f"{where}: empty title and description; expected {_AG_FORMAT}")
        texts.append(_cut(f"{title}. {description}"))
        labels.append(names[int(cls) - 1])
    return texts, labels


def _read_trec(path: Path, text: str) -> tuple[list[str], list[str]]:
    """Parse ``TREC_10.label``: ``COARSE:fine question`` on each line."""
    coarse_names = TASKS["trec"].label_names
    texts: list[str] = []
    labels: list[str] = []
    for line, raw in _lines(text):
        where = f"{path}, line {line}"
        parts = raw.strip().split(None, 1)
        coarse, colon, fine = parts[0].partition(":")
        if len(parts) != 2 or not colon or not coarse or not fine:
            raise ValueError(f"{where}: expected {_TREC_FORMAT}, got {_show(raw)}")
        if coarse not in coarse_names:
            raise ValueError(f"{where}: unknown coarse label {coarse!r}; expected {_TREC_FORMAT}")
        texts.append(parts[1].strip())
        labels.append(coarse)
    return texts, labels


def _read_lama(path: Path, text: str) -> tuple[list[str], list[str]]:
    """Parse a LAMA/ParaRel ``.jsonl``: subject ``sub_label`` and object ``obj_label`` per line."""
    texts: list[str] = []
    labels: list[str] = []
    for line, raw in _lines(text):
        where = f"{path}, line {line}"
        try:
            rec = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{where}: invalid JSON ({exc.msg} at column {exc.colno}); expected {_LAMA_FORMAT}"
            ) from None
        sub = rec.get("sub_label") if isinstance(rec, dict) else None
        obj = rec.get("obj_label") if isinstance(rec, dict) else None
        if not (isinstance(sub, str) and sub.strip() and isinstance(obj, str) and obj.strip()):
            raise ValueError(f"{where}: expected {_LAMA_FORMAT}, got {_show(raw)}")
        texts.append(sub)
        labels.append(obj)
    return texts, labels


_READERS = {
    "sst2": _read_sst2,
    "ag_news": _read_ag_news,
    "trec": _read_trec,
    "lama_p36": _read_lama,
}
_FORMATS = {
    "sst2": _SST2_FORMAT,
    "ag_news": _AG_FORMAT,
    "trec": _TREC_FORMAT,
    "lama_p36": _LAMA_FORMAT,
}


def _read_local(name: str, root: Path) -> tuple[list[str], list[str]]:
    """Return (texts, label names) from the local file of a task.

    Blank lines (anywhere) are skipped and a UTF-8 byte-order mark is ignored; formats:
    ``../shared/data/SOURCES.md``.

    Raises
    ------
    ValueError
        For a file that is not UTF-8, a malformed row, an unknown label, invalid JSON or no items;
        the message names the file, the 1-based line and the expected format.
    """
    path = root / TASKS[name].local_path
    texts, labels = _READERS[name](path, _decode(path))
    if not texts:
        raise ValueError(f"{path}: no items; expected {_FORMATS[name]}")
    return texts, labels


def _offline_switch() -> str | None:
    """Return the offline switch that is set (it also keeps web sources off), or None."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return f"{var} is set"
    return None


def _hub_offline() -> str | None:
    """Reason the hub cannot be used, or None if it might be."""
    switch = _offline_switch()
    if switch is not None:
        return switch
    if not hub_reachable():
        return "huggingface.co is unreachable"
    return None


def _read_hub(name: str) -> tuple[list[str], list[str], str]:
    """Load a task's split from its pinned hub source through ``datasets`` (needs network).

    Returns
    -------
    texts, labels : list of str
        Inputs (cleaned as the local loader cleans them) and class names, length n.
    origin : str
        ``"hub:<repo_id>@<revision>"``.

    Raises
    ------
    LookupError
        If the task has no hub source (LAMA P36; the message says why).
    ValueError
        If the loaded split does not match the table: columns, class names, row count or a label
        outside the classes.
    """
    spec = TASKS[name]
    hub = spec.hub
    if hub is None:
        raise LookupError(spec.hub_missing)
    import datasets  # noqa: PLC0415  (optional dependency)

    origin = f"hub:{hub.repo_id}@{hub.revision}"
    ds = datasets.load_dataset(hub.repo_id, name=hub.config, split=hub.split, revision=hub.revision)
    missing = [c for c in (hub.text_column, hub.label_column) if c not in ds.column_names]
    if missing:
        raise ValueError(f"{origin} has no column(s) {missing}; it has {ds.column_names}")
    names = getattr(ds.features[hub.label_column], "names", None)
    if names is not None and tuple(names) != hub.label_names:
        raise ValueError(
            f"{origin}: class names {list(names)} of {hub.label_column!r} differ from "
            f"{list(hub.label_names)} in the table"
        )
    if len(ds) != hub.n_items:
        raise ValueError(f"{origin} split {hub.split!r} has {len(ds)} rows, expected {hub.n_items}")
    labels = []
    k = len(hub.label_names)
    for row, y in enumerate(ds[hub.label_column]):
        if isinstance(y, bool) or not isinstance(y, int | np.integer) or not 0 <= y < k:
            raise ValueError(f"{origin}, row {row}: label {y!r} is not one of 0..{k - 1}")
        labels.append(hub.label_names[int(y)])
    raw = [str(t) for t in ds[hub.text_column]]
    texts = [_cut(t) for t in raw] if name == "ag_news" else [t.strip() for t in raw]
    return texts, labels, origin


def _read_web(name: str, timeout: float = 30.0) -> tuple[list[str], list[str], str]:
    """Download a task's file from its pinned :class:`WebSource` and check its SHA-256.

    Returns
    -------
    texts, labels : list of str
    origin : str
        The file's address.

    Raises
    ------
    LookupError
        If the task has no web source.
    ValueError
        If the download's SHA-256 or item count differs from the table, or a line is malformed.
    OSError
        If the address cannot be reached (no network).
    """
    web = TASKS[name].web
    if web is None:
        raise LookupError(f"task {name!r} has no web source")
    with urllib.request.urlopen(web.url, timeout=timeout) as response:  # noqa: S310 (https)
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != web.sha256:
        raise ValueError(f"{web.url}: SHA-256 {digest} differs from the pinned {web.sha256}")
    text = data.decode("utf-8-sig")
    texts, labels = _READERS[name](Path(web.url), text)
    if len(texts) != web.n_items:
        raise ValueError(f"{web.url}: {len(texts)} items, expected {web.n_items}")
    return texts, labels, web.url


def load_task(
    name: str,
    *,
    split: str | None = None,
    n: int | None = None,
    seed: Seed = 0,
    data_dir: str | os.PathLike[str] | None = None,
    source: str = "auto",
    verbose: bool = False,
) -> Task:
    """Load an evaluation task.

    Parameters
    ----------
    name : {"sst2", "ag_news", "trec", "lama_p36"}
        Task name.
    split : str or None
        Must be the task's split (``"validation"`` for SST-2, ``"test"`` otherwise); None picks it.
    n : int or None
        If given, a seeded random subset of n items (without replacement); None keeps all.
    seed : int or numpy.random.SeedSequence
        Root of the subset (its child ``"subset"``, :func:`assocmem.streams.child`).
    data_dir : path or None
        Local data directory, which must exist (it may lack the task's file: then the other
        sources are tried); None reads ``$ASSOCMEM_DATA_DIR`` (which, when set, must name an
        existing directory too).
    source : {"auto", "local", "hub", "examples"}
        ``"auto"`` tries local, then hub, then the built-in examples. The hub source of each task
        (repository, configuration, split, pinned revision, columns) is its ``TASKS[name].hub``.
    verbose : bool
        Print which source was used and why.

    Returns
    -------
    Task

    Raises
    ------
    TypeError
        If ``seed`` or ``n`` is not an integer (numpy integers are integers), or ``data_dir``
        not a path.
    ValueError
        Unknown task, split or source (the message lists the valid ones); n < 1 or larger than the
        task; a negative seed; a ``data_dir`` (or ``$ASSOCMEM_DATA_DIR``) that does not exist or
        is not a directory; a forced ``source="local"`` without the file; a local file with a
        malformed row, an unknown label or invalid JSON (the message names the file, the line and
        the expected format); a forced ``source="hub"`` that cannot load (offline, no hub source
        for the task, or a split that does not match the table; the message says which).

    Notes
    -----
    Formats: ``../shared/data/SOURCES.md``. The built-in sets (120 items per classification task,
    100 capitals) are written for this project and are labelled :data:`EXAMPLES_LABEL` in
    ``Task.source``. LAMA P36's online source is a pinned file (``TASKS["lama_p36"].web``), tried
    in the hub's place.
    """
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; valid tasks: {sorted(TASKS)}")
    spec = TASKS[name]
    if split is not None and split != spec.split:
        raise ValueError(f"task {name!r} has split {spec.split!r} only, got split={split!r}")
    if source not in ("auto", "local", "hub", "examples"):
        raise ValueError(
            f"source must be one of 'auto', 'local', 'hub', 'examples', got {source!r}"
        )
    if n is not None:
        n = check_int("n", n, 1)
    as_seed_sequence(seed)
    if data_dir is not None:  # an explicit directory must exist (a typo is no fallback)
        check_directory("data_dir", data_dir)
    elif source in ("auto", "local") and os.environ.get("ASSOCMEM_DATA_DIR"):
        check_directory("$ASSOCMEM_DATA_DIR", os.environ["ASSOCMEM_DATA_DIR"])

    texts: list[str] | None = None
    labels: list[str] = []
    origin = ""
    why: list[str] = []
    if source in ("auto", "local"):
        root = data_dir_from_env(data_dir)
        if root is not None and (root / spec.local_path).is_file():
            texts, labels = _read_local(name, root)
            origin = str(root / spec.local_path)
        else:
            msg = (
                "no data directory given (argument data_dir or $ASSOCMEM_DATA_DIR)"
                if root is None
                else f"{root / spec.local_path} not found"
            )
            if source == "local":
                raise ValueError(f"source='local' but {msg}")
            why.append(msg)
    if texts is None and source in ("auto", "hub"):
        if spec.hub is None and spec.web is not None:  # the online source in the hub's place
            reason = _offline_switch()
            if reason is None:
                try:
                    texts, labels, origin = _read_web(name)
                except Exception as exc:  # network, checksum: fall back with the reason
                    reason = (
                        f"{spec.hub_missing}; its web source failed ({type(exc).__name__}: {exc})"
                    )
            else:
                reason = f"{spec.hub_missing}; its web source is skipped: {reason}"
        else:
            reason = spec.hub_missing if spec.hub is None else _hub_offline()
        if reason is None and texts is None:
            try:
                texts, labels, origin = _read_hub(name)
            except Exception as exc:  # network, auth, schema: fall back with the reason
                reason = f"hub load failed ({type(exc).__name__}: {exc})"
        if texts is None:
            if source == "hub":
                raise ValueError(f"source='hub' but {reason}")
            why.append(f"hub skipped: {reason}")
    if texts is None:
        texts = [t for t, _ in EXAMPLES[name]]
        labels = [y for _, y in EXAMPLES[name]]
        origin = EXAMPLES_LABEL

    if name == "lama_p36":
        label_names = tuple(sorted(set(labels)))
        label_words = label_names
    else:
        label_names, label_words = spec.label_names, spec.label_words
    index = {lab: i for i, lab in enumerate(label_names)}
    y = np.array([index[lab] for lab in labels], dtype=np.int64)
    if n is not None:
        if n > len(texts):
            raise ValueError(f"n={n} exceeds the {len(texts)} items of {name!r} ({origin})")
        keep = np.sort(numpy_rng(child(seed, "subset")).permutation(len(texts))[:n])
        texts = [texts[i] for i in keep]
        y = y[keep]
    if verbose:
        extra = f" ({'; '.join(why)})" if why else ""
        print(f"task {name}: {len(texts)} items from {origin}{extra}")
    return Task(
        name=name,
        split=spec.split,
        texts=tuple(texts),
        labels=y,
        label_names=label_names,
        label_words=label_words,
        template=spec.template,
        separator=spec.separator,
        source=origin,
    )
