"""Checks of the book's structural invariants, shared by the tests (and usable by hand).

Each check returns a list of human-readable problems (empty when all is well), so a test can both
assert that the real book is clean and that a deliberately broken copy is caught.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
GUARD = '"google.colab" in sys.modules'
#: The front matter and title of a one-page test book (a MyST notebook run by the python3 kernel).
TINY_PAGE_HEAD = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Page
"""


def load_config(root: Path = ROOT) -> dict:
    with open(root / "_config.yml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def repository_url(root: Path = ROOT) -> str:
    url = load_config(root)["repository"]["url"]
    return str(url).rstrip("/")


def library_version(root: Path = ROOT) -> str:
    """The library's version, ``assocmem.__version__`` read from the source (its one home).

    ``pyproject.toml`` takes it from there (``dynamic = ["version"]``); the Colab cells pin the
    tag ``v<version>``.
    """
    text = (root / "lib" / "assocmem" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, flags=re.M)
    if match is None:
        raise ValueError('lib/assocmem/__init__.py sets no __version__ = "..."')
    return match.group(1)


def toc_files(root: Path = ROOT) -> list[str]:
    """Document paths (without suffix) listed in _toc.yml, root first."""
    with open(root / "_toc.yml", encoding="utf-8") as fh:
        toc = yaml.safe_load(fh)
    files = [toc["root"]]

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    return files


def is_paired(md: Path) -> bool:
    """True when a MyST file carries jupytext front matter (i.e. is an executable chapter)."""
    text = md.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    front = yaml.safe_load(text.split("---", 2)[1]) or {}
    return "jupytext" in front


def chapter_sources(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / "book").glob("*.md") if is_paired(p))


def check_pair(md: Path) -> list[str]:
    """The paired notebook exists, has the same cells as the MyST source and carries no outputs."""
    nb_path = md.with_suffix(".ipynb")
    if not nb_path.exists():
        return [f"{md.name}: paired notebook {nb_path.name} is missing (run: jupytext --sync {md})"]
    problems = []
    src = jupytext.read(md)
    dst = jupytext.read(nb_path)
    src_cells = [(c.cell_type, c.source.strip()) for c in src.cells]
    dst_cells = [(c.cell_type, c.source.strip()) for c in dst.cells]
    if src_cells != dst_cells:
        problems.append(f"{md.name} and {nb_path.name} differ (run: jupytext --sync {md})")
    else:  # same cells: their metadata (tags above all: remove-cell, parameters, ...) must agree
        for i, (a, b) in enumerate(zip(src.cells, dst.cells, strict=True)):
            ma, mb = _cell_metadata(a.metadata), _cell_metadata(b.metadata)
            if ma != mb:
                problems.append(
                    f"{md.name} cell {i}: metadata differ between the pair "
                    f"({ma} in {md.name}, {mb} in {nb_path.name})"
                )
    raw = nbformat.read(nb_path, as_version=4)
    for i, cell in enumerate(raw.cells):
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(f"{nb_path.name}: cell {i} is committed with outputs")
            break
    return problems


# Cell metadata that editors and kernels add on their own, not part of the chapter's meaning.
_VOLATILE_METADATA = {"execution", "collapsed", "scrolled", "ExecuteTime", "id", "jupyter"}


def _cell_metadata(metadata: dict) -> dict:
    kept = {k: v for k, v in metadata.items() if k not in _VOLATILE_METADATA}
    if "tags" in kept:
        kept["tags"] = sorted(kept["tags"])
    return kept


def check_colab_cell(md: Path, url: str, version: str | None = None) -> list[str]:
    """The first code cell installs the library from `url`, only in Colab, hidden in the HTML.

    With `version`, the install is pinned to the tag ``v<version>`` (``git+<url>@v<version>``), and
    asks for the ``[llm]`` extra exactly when the chapter imports ``assocmem.llm``.
    """
    nb = jupytext.read(md)
    code = [c for c in nb.cells if c.cell_type == "code"]
    if not code:
        return [f"{md.name}: no code cell, so no Colab install cell"]
    first = code[0]
    problems = []
    if GUARD not in first.source:
        problems.append(f"{md.name}: first code cell lacks the Colab guard `if {GUARD}:`")
    tags = first.metadata.get("tags", [])
    if "remove-cell" not in tags:
        problems.append(f"{md.name}: first code cell must be tagged remove-cell (hidden in HTML)")
    urls = re.findall(r"git\+([^\s\"'@]+)", first.source)
    if not urls:
        problems.append(f"{md.name}: first code cell installs nothing from git+{url}")
    for found in urls:
        if found.rstrip("/") != url:
            problems.append(
                f"{md.name}: Colab cell installs from {found}, "
                f"but _config.yml repository.url is {url}"
            )
    if version is not None:
        pins = re.findall(r"git\+[^\s\"'@]+@([^\s\"'#]+)", first.source)
        if pins != [f"v{version}"] * len(urls) or not pins:
            problems.append(
                f"{md.name}: Colab cell must install the tag v{version} (git+{url}@v{version}), "
                f"found {pins or 'no pin'}"
            )
        needs_llm = any(
            "assocmem.llm" in c.source for c in nb.cells if c.cell_type == "code" and c is not first
        )
        has_llm = "assocmem[llm]" in first.source
        if needs_llm != has_llm:
            problems.append(
                f"{md.name}: the [llm] extra must be installed exactly when the chapter imports "
                f"assocmem.llm (imports it: {needs_llm}; installs it: {has_llm})"
            )
    return problems


#: Glued intervals a page may show as they are (tests/book/test_glued_intervals.py):
#: (chapter stem, glued key without _lo/_hi) -> why the page may show this interval as it is.
INTERVAL_EXCEPTIONS: dict[tuple[str, str], str] = {
    **{
        ("03_hebbian_vs_optimal", key): (
            "every instance at that load has the same accuracy: no interval can be formed, and "
            "the page's table says 'all n equal' (the prose does not quote it)"
        )
        for key in ("ab_0_tr", "ab_1_sub", "ab_2_sub")
    },
}


def glued_number(value: object) -> float:
    """A glued value (myst-nb stores text/plain) as a float; NaN when it is not a number."""
    if isinstance(value, dict):  # a glue.json entry: {"data": {"text/plain": "0.5"}, ...}
        data = value.get("data", {})  # (in a notebook's own output the key carries a prefix)
        value = next((v for k, v in data.items() if k.endswith("text/plain")), "nan")
    try:
        return float(str(value).strip().strip("'\""))
    except ValueError:
        return math.nan


def interval_problems(glue: dict[str, object], allowed: set[str] = frozenset()) -> list[str]:
    """Glued intervals that are not real intervals, as readable lines (empty when all are fine).

    Parameters
    ----------
    glue : dict of str to object
        Glued key -> value (a number, its text, or a glue.json entry).
    allowed : set of str
        Interval keys (without ``_lo``/``_hi``) that may break the rules.
    """
    problems = []
    for key in sorted(glue):
        if not key.endswith("_lo") or key[:-3] + "_hi" not in glue:
            continue
        base = key[:-3]
        if base in allowed:
            continue
        lo, hi = glued_number(glue[key]), glued_number(glue[base + "_hi"])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            problems.append(f"{base}: interval [{lo}, {hi}] is not finite")
        elif not lo < hi:
            problems.append(f"{base}: interval [{lo}, {hi}] has low >= high")
        if base + "_n" in glue:
            n = glued_number(glue[base + "_n"])
            if not n >= 2:
                problems.append(f"{base}: interval from n = {n} unit(s), fewer than 2")
    return problems


def notebook_glue(nb) -> dict[str, object]:
    """Glued key -> glue entry (``{"data": ...}``) of a notebook executed by nbclient (myst-nb's
    ``glue`` writes a display_data output named in ``metadata.scrapbook.name``)."""
    out: dict[str, object] = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = {"data": dict(o.get("data", {}))}
    return out


# ------------------------------------------------------------------ glue references of a page

#: A glue role of the prose (myst-nb): ``{glue}`key```, ``{glue:text}`key:.3f``` ...
GLUE_ROLE = re.compile(r"\{glue(?::(\w*))?\}`([^`\n]*)`")
#: A glue directive: ``````{glue:figure} key`````` (the key on the fence line).
GLUE_DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\{glue(?::(\w*))?\}[ \t]*(\S*)", re.M)
#: myst-nb's glue roles and directives.
GLUE_ROLE_KINDS = {None, "any", "text", "md"}
GLUE_DIRECTIVE_KINDS = {None, "any", "figure", "math", "md"}
GLUE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A reference to one part of an interval (a bound or n), counted by issue 38's grep.
FRAGMENT = re.compile(r"\{glue(?::text)?\}`[^`:]*(?:_lo|_hi|_n)(?::[^`]*)?`")
#: The keys :func:`assocmem.pages.glue_all` writes for one Estimate, by suffix of the label.
ESTIMATE_SUFFIXES = ("", "_ci", "_n", "_lo", "_hi")


def page_markdown(md: Path) -> str:
    """The Markdown of a page that myst-nb renders: its markdown cells (or all of a plain page)."""
    if not is_paired(md):
        return md.read_text(encoding="utf-8")
    nb = jupytext.read(md)
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def glue_references(markdown: str) -> list[tuple[str, str, str | None]]:
    """Every glue reference of a page's Markdown as ``(kind, key, format spec or None)``."""
    refs: list[tuple[str, str, str | None]] = []
    for m in GLUE_ROLE.finditer(markdown):
        key, _, spec = m.group(2).partition(":")
        refs.append((f"role {m.group(1) or ''}", key, spec if ":" in m.group(2) else None))
    for m in GLUE_DIRECTIVE.finditer(markdown):
        refs.append((f"directive {m.group(1) or ''}", m.group(2), None))
    return refs


def _formats_a_number(spec: str) -> bool:
    """Whether ``spec`` formats a float or an int (``".3f"``, ``"d"``)."""
    for x in (1.5, 2):
        try:
            format(x, spec)
            return True
        except (ValueError, TypeError):
            pass
    return False


def glue_reference_problems(markdown: str) -> list[str]:
    """Malformed glue references of a page's Markdown (empty when all are well-formed).

    Well-formed: every ``{glue`` opens a role or directive myst-nb knows, with a key that is an
    identifier; a ``{glue:text}`` format spec formats a number; the rendered text of an estimate
    (``<label>_ci``, a string) is quoted without a spec; a format spec only on ``{glue:text}``.
    """
    problems = []
    roles = list(GLUE_ROLE.finditer(markdown))
    directives = list(GLUE_DIRECTIVE.finditer(markdown))
    starts = {m.start() for m in roles} | {m.start() + m.group(0).index("{") for m in directives}
    for m in re.finditer(r"\{glue", markdown):
        if m.start() not in starts:
            line = markdown[m.start() : m.start() + 40].split("\n")[0]
            problems.append(f"unparsable glue reference: {line!r}")
    for m in roles:
        kind, text = m.group(1), m.group(2)
        key, colon, spec = text.partition(":")
        if kind not in GLUE_ROLE_KINDS:
            problems.append(f"{m.group(0)}: unknown glue role {{glue:{kind}}}")
        if not GLUE_KEY.fullmatch(key):
            problems.append(f"{m.group(0)}: key {key!r} is not an identifier")
        if colon and kind != "text":
            problems.append(f"{m.group(0)}: a format spec needs {{glue:text}}")
        if colon and kind == "text":
            if key.endswith("_ci"):
                problems.append(f"{m.group(0)}: {key} is rendered text, quote it without a spec")
            if not _formats_a_number(spec):
                problems.append(f"{m.group(0)}: {spec!r} is not a format spec for a number")
    for m in directives:
        kind, key = m.group(1), m.group(2)
        if kind not in GLUE_DIRECTIVE_KINDS:
            problems.append(f"{m.group(0).strip()}: unknown glue directive {{glue:{kind}}}")
        if not GLUE_KEY.fullmatch(key):
            problems.append(f"{m.group(0).strip()}: key {key!r} is not an identifier")
    return problems


def estimate_families(glued: Iterable[str]) -> dict[str, set[str]]:
    """Glued key -> the keys of its Estimate (``k``, ``k_ci``, ``k_n``, ``k_lo``, ``k_hi``).

    An Estimate is recognised by its rendered text ``k_ci`` next to ``k``; keys of no Estimate
    are left out.
    """
    keys = set(glued)
    families: dict[str, set[str]] = {}
    for ci in keys:
        base = ci[:-3]
        if ci.endswith("_ci") and base in keys:
            family = {base + s for s in ESTIMATE_SUFFIXES} & keys
            for member in family:
                families[member] = family
    return families


def glue_usage_problems(
    referenced: Iterable[str], glued: Iterable[str], unreferenced: Mapping[str, str] | None = None
) -> list[str]:
    """References without a glued key, and glued keys that the page never uses.

    Parameters
    ----------
    referenced : iterable of str
        Keys the page's Markdown references.
    glued : iterable of str
        Keys the page's execution glued.
    unreferenced : mapping of str to str, optional
        Glued keys (``fnmatch`` patterns) the page may leave unused -> why.

    A glued key is used when it is referenced, or belongs to an Estimate (``k``, ``k_ci``,
    ``k_n``, ``k_lo``, ``k_hi``) one of whose keys is referenced, or matches ``unreferenced``;
    a pattern of ``unreferenced`` that matches no unused key is stale, and reported too.
    """
    refs, keys = set(referenced), set(glued)
    allowed = dict(unreferenced or {})
    problems = [f"{k}: referenced, but the page glues no such key" for k in sorted(refs - keys)]
    families = estimate_families(keys)
    unused = {k for k in keys - refs if not families.get(k, set()) & refs}
    matched: set[str] = set()
    for key in sorted(unused):
        hits = [p for p in allowed if fnmatch.fnmatchcase(key, p)]
        matched.update(hits)
        if not hits:
            problems.append(f"{key}: glued, but the page never references it")
    problems += [
        f"{p}: listed as glued and unreferenced, but no unused key matches it"
        for p in sorted(set(allowed) - matched)
    ]
    return problems
