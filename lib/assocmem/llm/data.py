"""Evaluation tasks for chapter 6: SST-2, AG-News, TREC (coarse) and LAMA P36 (capital of).

Sources, tried in order by :func:`load_task` with ``source="auto"``:

1. a local data directory (the ``data_dir`` argument, else the environment variable
   ``ASSOCMEM_DATA_DIR``) laid out as in ``../shared/data/SOURCES.md``;
2. the Hugging Face hub through ``datasets`` (skipped when ``HF_HUB_OFFLINE`` or
   ``HF_DATASETS_OFFLINE`` is set or the hub is unreachable);
3. small example sets written for this project, labelled "examples, not the benchmark".

Label words: a class is scored by the token of ``" " + word`` (leading space), which must be a
single token (checked when scoring, :meth:`LanguageModel.label_ids`): TREC's are lower case
because " Abbreviation" is three tokens for both the stand-in's and Llama-3's tokenizers.
LAMA targets are scored as whole words (all their tokens).
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .examples import EXAMPLES
from .models import hub_reachable

__all__ = ["Task", "TASKS", "load_task", "EXAMPLES_LABEL", "data_dir_from_env"]

EXAMPLES_LABEL = "examples, not the benchmark"


@dataclass(frozen=True)
class TaskSpec:
    """Static description of a task: split, label words, template and data file."""

    name: str
    split: str
    label_names: tuple[str, ...]
    label_words: tuple[str, ...]
    template: str  # demonstration line; the query line is the same up to " {y}"
    separator: str  # between demonstrations
    local_path: str  # relative to the data directory
    description: str


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
        Where the items came from: a file path, ``"hub:<id>"``, or :data:`EXAMPLES_LABEL`.
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


def _read_local(name: str, root: Path) -> tuple[list[str], list[str]]:
    """Return (texts, label names) from the local file of a task."""
    path = root / TASKS[name].local_path
    if name == "sst2":
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        if rows[0] != ["sentence", "label"]:
            raise ValueError(f"{path}: expected header 'sentence\\tlabel', got {rows[0]}")
        names = TASKS[name].label_names
        return [r[0].strip() for r in rows[1:]], [names[int(r[1])] for r in rows[1:]]
    if name == "ag_news":
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        names = TASKS[name].label_names
        texts = [_cut(f"{r[1].strip()}. {r[2].strip()}") for r in rows]
        return texts, [names[int(r[0]) - 1] for r in rows]
    if name == "trec":
        texts, labels = [], []
        with open(path, encoding="ascii") as f:
            for line in f:
                if not line.strip():
                    continue
                head, question = line.rstrip("\n").split(" ", 1)
                labels.append(head.split(":", 1)[0])
                texts.append(question.strip())
        return texts, labels
    # lama_p36
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                texts.append(rec["sub_label"])
                labels.append(rec["obj_label"])
    return texts, labels


def _hub_offline() -> str | None:
    """Reason the hub cannot be used, or None if it might be."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return f"{var} is set"
    if not hub_reachable():
        return "huggingface.co is unreachable"
    return None


def _read_hub(name: str) -> tuple[list[str], list[str], str]:
    """Load a task from the Hugging Face hub through ``datasets`` (needs network)."""
    import datasets  # noqa: PLC0415  (optional dependency)

    spec = TASKS[name]
    if name == "sst2":
        ds = datasets.load_dataset("nyu-mll/glue", "sst2", split="validation")
        return list(ds["sentence"]), [spec.label_names[i] for i in ds["label"]], "hub:nyu-mll/glue"
    if name == "ag_news":
        ds = datasets.load_dataset("fancyzhx/ag_news", split="test")
        texts = [_cut(t) for t in ds["text"]]
        return texts, [spec.label_names[i] for i in ds["label"]], "hub:fancyzhx/ag_news"
    if name == "trec":
        ds = datasets.load_dataset("CogComp/trec", split="test")
        return (
            list(ds["text"]),
            [spec.label_names[i] for i in ds["coarse_label"]],
            "hub:CogComp/trec",
        )
    raise LookupError("LAMA P36 is not loaded from the hub (its hub version is a script dataset)")


def load_task(
    name: str,
    *,
    split: str | None = None,
    n: int | None = None,
    seed: int = 0,
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
    seed : int
        Seed of the subset.
    data_dir : path or None
        Local data directory; None reads ``$ASSOCMEM_DATA_DIR``.
    source : {"auto", "local", "hub", "examples"}
        ``"auto"`` tries local, then hub, then the built-in examples.
    verbose : bool
        Print which source was used and why.

    Returns
    -------
    Task

    Raises
    ------
    ValueError
        Unknown task, split or source (the message lists the valid ones); n < 1 or larger than the
        task; a forced ``source="local"`` without a readable file.

    Notes
    -----
    Formats: ``../shared/data/SOURCES.md``. The built-in sets (a few dozen items per task) are
    written for this project and are labelled :data:`EXAMPLES_LABEL` in ``Task.source``.
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
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"n must be a positive integer or None, got {n!r}")

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
        reason = _hub_offline()
        if reason is None:
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
        keep = np.sort(np.random.default_rng(seed).permutation(len(texts))[:n])
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
