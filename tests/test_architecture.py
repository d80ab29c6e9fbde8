"""The rules of the house, read from the import graph (docs/ARCHITECTURE.md).

Every import statement is an arrow, wherever it stands: at the top, inside a function, under
`if TYPE_CHECKING:`. The graph of the product's modules must have no circle, and the arrows
between rooms must go one way: adapters -> core (never storage, memory internals or the model);
memory -> storage, when (never core, features, adapters or the web side); nothing in the product
imports tests. A second test asserts that every intent and /command has exactly one handler.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("bot", "adapters", "scheduler", "bench", "web")


# --- reading the graph -----------------------------------------------------------------------------


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for top in PRODUCT + ("tests",):
        base = root / top
        if base.is_dir():
            for path in base.rglob("*.py"):
                found[module_name(path, root)] = path
    return found


def _target(name: str, known: dict[str, Path]) -> str | None:
    """The module an imported dotted name lands in: itself, else its longest known prefix."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every project module `name` imports, by any import statement anywhere in the file."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PRODUCT + ("tests",):
                    t = _target(alias.name, known)
                    if t:
                        out.add(t)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
                if module.split(".")[0] not in PRODUCT + ("tests",):
                    continue
            for alias in node.names:
                # `from bot.memory import service` names a module; `from bot.memory import X` a name
                t = _target(f"{module}.{alias.name}", known) if f"{module}.{alias.name}" in known else _target(module, known)
                if t:
                    out.add(t)
    out.discard(name)
    return out


def graph(root: Path = ROOT, tops: Iterable[str] = PRODUCT) -> dict[str, set[str]]:
    known = modules(root)
    wanted = tuple(tops)
    return {n: imports_of(n, p, known) for n, p in known.items() if n.split(".")[0] in wanted}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _in(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


# the rooms of the memory that only the memory itself may enter; outside it, `bot.memory` is the face
MEMORY_INTERNALS = ("bot.memory.",)


def forbidden(edges: dict[str, set[str]]) -> list[str]:
    """Every arrow that breaks a rule of the house, as 'a -> b: why'."""
    bad = []
    for src, targets in sorted(edges.items()):
        for dst in sorted(targets):
            why = None
            if _in(dst, "tests") and not _in(src, "tests"):
                why = "the product never imports tests"
            elif _in(src, "adapters") and (_in(dst, "bot.storage") or _in(dst, "bot.llm") or _in(dst, "bot.memory") or _in(dst, "bot.features")):
                why = "adapters translate: no storage, memory, model or feature"
            elif _in(src, "bot.memory") and any(_in(dst, r) for r in ("bot.core", "bot.features", "adapters", "web", "scheduler", "bot.app", "bot.llm")):
                why = "memory stands alone: no core, feature, adapter, web side, scheduler or model"
            elif _in(src, "bot.memory") and dst == "bot.memory" and src != "bot.memory":
                why = "inside the memory, modules import their siblings, never the face"
            elif _in(src, "bot.storage") and not (_in(dst, "bot.storage") or _in(dst, "bot.when") or dst in ("bot.events", "bot.config")):
                why = "storage is the floor: it imports only storage, when, events and config"
            elif _in(src, "bot.when") and not _in(dst, "bot.when"):
                why = "the time grammar is pure and stands alone"
            elif _in(src, "bot.core") and (_in(dst, "bot.features") or dst == "bot.app" or _in(dst, "bot.llm")):
                why = "the core dispatches and imports no feature"
            elif _in(src, "scheduler") and (_in(dst, "bot.features") or dst == "bot.app" or _in(dst, "bot.memory")):
                why = "the scheduler knows no job"
            elif _in(src, "web") and (dst.startswith(MEMORY_INTERNALS) or _in(dst, "bot.storage")):
                why = "the web side reaches memory only through its face (bot.memory)"
            elif (_in(src, "bot.core") or _in(src, "bot.features") or _in(src, "scheduler") or _in(src, "web")) and dst.startswith(MEMORY_INTERNALS) and dst not in ALLOWED_INTERNALS.get(src, ()):
                why = "outside the memory, only its face (bot.memory) is imported"
            if why:
                bad.append(f"{src} -> {dst}: {why}")
    return bad


# Reaches into the memory's rooms that are deliberate and few; each says why.
ALLOWED_INTERNALS: dict[str, tuple[str, ...]] = {
    # the chat turn sizes its memory context with the recall budget rule
    "bot.features.chat.turn": ("bot.memory.recall.context",),
    # episodes rank their summaries with the memory's own content words
    "bot.features.episodes": ("bot.memory.rules.text",),
    # /link moves memories between owners inside the memory's own transaction
    "bot.features.linking": ("bot.memory.writing.linking",),
    # the re-check reads a fact's single-value topic and changes it with the memory's helpers
    "bot.features.recheck": ("bot.memory.rules.slots", "bot.memory.store"),
    # the curator's pure decisions and its transaction
    "bot.features.tidy": ("bot.memory.writing.curator",),
}


# --- the tests -------------------------------------------------------------------------------------


def test_the_product_has_no_import_circle():
    assert circles(graph()) == []


def test_every_arrow_goes_the_way_the_house_allows():
    assert forbidden(graph()) == []


def test_tests_import_no_circle_of_their_own():
    tests_only = {k: {t for t in v if _in(t, "tests")} for k, v in graph(tops=("tests",)).items()}
    assert circles(tests_only) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "files, expect_circle",
    [
        ({"bot/a.py": "import bot.b\n", "bot/b.py": "import bot.a\n"}, True),
        # a circle through a function-level import and one under TYPE_CHECKING still counts
        ({"bot/a.py": "def f():\n    from bot import b\n", "bot/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.a import f\n"}, True),
        # a package's face counts too
        ({"bot/p/__init__.py": "from bot.p.x import X\n", "bot/p/x.py": "from bot.p import Y\nX = 1\n"}, True),
        ({"bot/a.py": "import bot.b\n", "bot/b.py": "X = 1\n"}, False),
    ],
)
def test_the_circle_check_sees_every_kind_of_import(tmp_path: Path, files: dict[str, str], expect_circle: bool):
    _write(tmp_path, files)
    assert bool(circles(graph(tmp_path))) is expect_circle


@pytest.mark.parametrize(
    "rel, text, rule",
    [
        ("adapters/x.py", "from bot.storage.db import Database\n", "adapters translate"),
        ("adapters/x.py", "def f():\n    import bot.llm.client\n", "adapters translate"),
        ("bot/memory/x.py", "from bot.core.core import Core\n", "memory stands alone"),
        ("bot/memory/x.py", "from bot.features import tidy\n", "memory stands alone"),
        ("bot/memory/x.py", "from bot.memory import MemoryService\n", "never the face"),
        ("bot/x.py", "from tests.conftest import make_settings\n", "never imports tests"),
        ("bench/x.py", "import tests.standins.anthropic_api\n", "never imports tests"),
        ("web/x.py", "from bot.memory.writing.saving import remember\n", "only through its face"),
        ("web/x.py", "from bot.storage.models import Memory\n", "only through its face"),
        ("bot/core/x.py", "from bot.features.chat import turn\n", "imports no feature"),
        ("bot/features/x.py", "from bot.memory.writing.saving import remember\n", "only its face"),
    ],
)
def test_a_forbidden_arrow_is_named(tmp_path: Path, rel: str, text: str, rule: str):
    _write(tmp_path, {rel: text, "bot/storage/db.py": "", "bot/llm/client.py": "", "bot/core/core.py": "",
                      "bot/features/tidy.py": "", "bot/features/chat/turn.py": "", "bot/memory/__init__.py": "MemoryService = 1\n",
                      "bot/memory/writing/saving.py": "", "bot/storage/models.py": "", "tests/conftest.py": "",
                      "tests/standins/anthropic_api.py": ""})
    found = forbidden(graph(tmp_path, PRODUCT))
    assert any(rule in line for line in found), found


def test_every_intent_and_command_has_exactly_one_handler():
    """The router of a fully wired app: every intent type the parser can produce and every
    /command it knows has a handler (a second registration is refused at start-up)."""
    import typing

    from bot.app import build_app
    from bot.core import commands as c
    from bot.core.router import DuplicateRoute
    from tests.conftest import make_settings

    app = build_app(make_settings(), embedder=None, with_model=False)
    try:
        router = app.core.router
        intents = set(typing.get_args(c.Intent)) - {c.Simple}
        assert router.intents == intents
        assert router.commands == set(c.SIMPLE)
        with pytest.raises(DuplicateRoute):
            router.command("help", lambda *a: None)  # type: ignore[arg-type,return-value]
        with pytest.raises(DuplicateRoute):
            router.intent(c.Save, lambda *a: None)  # type: ignore[arg-type,return-value]
        with pytest.raises(DuplicateRoute):
            router.press("undo", lambda *a: None)  # type: ignore[arg-type,return-value]
    finally:
        app.db.dispose()


def _top_level_names(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


def test_no_module_binds_a_top_level_name_twice() -> None:
    """A second `_JOB_NOTE = ...` lower in slots.py silently replaced the first for every use
    below it, and the rules lost "Pensioner now, gave the trucking away" (sixteenth pass): a
    module's top-level names are bound once."""
    twice = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        names = _top_level_names(ast.parse(path.read_text(encoding="utf-8")))
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            twice[str(path.relative_to(ROOT))] = repeated
    assert twice == {}


def test_the_twice_bound_check_sees_a_rebinding() -> None:
    assert _top_level_names(ast.parse("A = 1\ndef f(): pass\nA = 2\n")).count("A") == 2
