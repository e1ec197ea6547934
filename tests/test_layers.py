"""The floor plan, pinned: which part of Goliath may import which (docs/architecture.md).

Every module's imports are read with :mod:`ast` — at the top, inside functions, under
``TYPE_CHECKING``, and ``importlib.import_module("...")`` strings (under any alias, and the fixed
start of an f-string) — so an arrow hidden from linters is still an arrow. A module may import
its own floor and the floors its row names; nothing else. Private names (a leading underscore)
stay inside the package that defines them; the runtime reaches the turn only through its face,
``goliath.turn``; and no import cycle runs through the runtime, the turn or the floors below it.
"""

from __future__ import annotations

import ast
import fnmatch
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("goliath", "actors", "transports")

GROUND = (
    "goliath._origin",
    "goliath._retry",
    "goliath._util",
    "goliath.budget",
    "goliath.classify",
    "goliath.durable",
    "goliath.errors",
    "goliath.events",
    "goliath.extensions",
    "goliath.ids",
    "goliath.models",
    "goliath.models.slots",
    "goliath.records",
    "goliath.schema",
    "goliath.session",
    "goliath.snapshot",
)
"""The words every floor speaks: records, events, errors, ids, budgets, the model port (and
which conversation a model call serves, ``goliath.models.slots``, which the model worker sets),
the extension hooks, snapshots and small helpers. They import only each other."""

TOOLKIT = (
    "goliath._asyncio_host",
    "goliath.compress",
    "goliath.config",
    "goliath.hosting",
    "goliath.memory.*",
    "goliath.quarantine",
    "goliath.tools",
)
"""What a turn is made of, an agent is configured with and an asyncio server hosts it by:
tools, options, memory, compressed results (instructions to the assistant cut out), the
asyncio bridge."""

HARNESS = ("add-ons", "toolkit", "ground")

FLOORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # floor: (its modules, the floors it may import)
    "ground": (GROUND, ()),
    "toolkit": (TOOLKIT, ("ground",)),
    # everything else in goliath/: the bridges, filesystem, MCP, fallback, tracing, testing,
    # resolve, doctor, demo... Nothing below the facade may import one (a new module lands here).
    "add-ons": (("goliath.*",), ("toolkit", "ground")),
    "turn": (("goliath.turn.*",), ("toolkit", "ground")),
    "runtime": (("actors.*",), ("turn", "toolkit", "ground")),
    "edges": (("transports.*",), ("runtime", "toolkit", "ground")),
    "facade": (("goliath", "goliath.agent"), ("runtime", *HARNESS)),
    "apps": (
        ("goliath.evaluation.*", "transports.serve", "transports.serve_command"),
        ("facade", "edges", "runtime", "turn", *HARNESS),
    ),
    "command line": (("goliath.cli",), ("apps", "facade", "edges", "runtime", "turn", *HARNESS)),
}
"""Bottom to top. ``pkg.*`` is a package and everything in it; a bare name is that one module.
The most specific entry wins: a bare name over a pattern, a longer pattern over a shorter one."""

TURN_FACE = "goliath.turn"
"""The one module of the turn the runtime may import (``run_turn``, the reasons)."""

ACYCLIC = ("ground", "toolkit", "add-ons", "turn", "runtime")
"""Floors with no import cycle inside them either."""


@attrs.frozen
class Import:
    """One import statement (or ``import_module`` call) of a first-party module."""

    importer: str
    imported: str
    line: int
    name: str | None = None
    """The name taken from the module (``from m import name``), when it is not a module."""


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path, packages: Sequence[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(root, path)] = path
    return found


def _resolve(importer: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import ...`` in ``importer``."""
    if level == 0:
        return target or ""
    base = importer.split(".")
    if not is_package:
        base.pop()
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def imports(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[Import]:
    """The first-party imports of one module, wherever they are written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    first_party = {module.split(".")[0] for module in known}
    loaders = _import_module_aliases(tree)

    def ours(target: str) -> bool:
        return target.split(".")[0] in first_party

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    yield Import(name, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(name, is_package, node.level, node.module)
            if not ours(source):
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    yield Import(name, submodule, node.lineno)
                else:
                    yield Import(name, source, node.lineno, alias.name)
        elif isinstance(node, ast.Call) and _is_import_module(node.func, loaders):
            argument = node.args[0] if node.args else None
            target = _static_module_name(argument)
            if target is not None:
                if target.startswith("."):
                    dots = len(target) - len(target.lstrip("."))
                    target = _resolve(name, is_package, dots, target.lstrip(".") or None)
                if ours(target):
                    yield Import(name, target, node.lineno)


def _import_module_aliases(tree: ast.Module) -> set[str]:
    """Names ``import_module`` is bound to in a module (``from importlib import import_module
    as load``, ``load = importlib.import_module``), besides its own name and ``__import__``."""
    names = {"import_module", "__import__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "importlib":
            names.update(
                alias.asname
                for alias in node.names
                if alias.name == "import_module" and alias.asname
            )
    for node in ast.walk(tree):  # after the imports: an assignment may rename an alias
        if isinstance(node, ast.Assign) and _is_import_module(node.value, names):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def _is_import_module(func: ast.expr, names: set[str]) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in names


def _static_module_name(argument: ast.expr | None) -> str | None:
    """The module an ``import_module`` argument names, as far as the source fixes it.

    A string constant is the module. An f-string (or ``"pkg." + name``) with a fixed start names
    at least the package that start ends in: ``f"actors.{name}"`` imports from ``actors``.
    """
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    start = _fixed_start(argument)
    if start is None:
        return None
    dots = len(start) - len(start.lstrip("."))
    package = start[dots:].rpartition(".")[0]  # whole names only: "actors.st" is in "actors"
    if not package and not dots:
        return None  # f"act{x}" fixes no module
    return "." * dots + package


def _fixed_start(argument: ast.expr | None) -> str | None:
    """The literal text an f-string or a ``+`` concatenation begins with, if any."""
    if isinstance(argument, ast.JoinedStr) and argument.values:
        first = argument.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Add):
        if isinstance(argument.left, ast.Constant) and isinstance(argument.left.value, str):
            return argument.left.value
        return _fixed_start(argument.left)
    return None


def floor_of(module: str, floors: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> str:
    """The floor a module lives on: the most specific entry of ``floors`` that names it."""
    best: tuple[int, int, str] | None = None
    for floor, (patterns, _) in floors.items():
        for pattern in patterns:
            if pattern.endswith(".*"):
                package = pattern[:-2]
                if module != package and not module.startswith(package + "."):
                    continue
                rank = (0, len(package), floor)
            elif fnmatch.fnmatchcase(module, pattern):
                rank = (1, len(pattern), floor)
            else:
                continue
            if best is None or rank[:2] > best[:2]:
                best = rank
    if best is None:
        raise AssertionError(f"{module} is on no floor; add it to FLOORS")
    return best[2]


def _owner(module: str, known: Mapping[str, Path]) -> str:
    """The module itself when it is a module of ours, else the nearest enclosing one."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module


def upward_imports(
    root: Path,
    floors: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = FLOORS,
    packages: Sequence[str] = PACKAGES,
) -> list[Import]:
    """Every import that reaches a floor its importer may not use."""
    known = modules(root, packages)
    bad = []
    for name, path in known.items():
        here = floor_of(name, floors)
        allowed = {here, *floors[here][1]}
        for found in imports(name, path, known):
            target = _owner(found.imported, known)
            if target and floor_of(target, floors) not in allowed:
                bad.append(found)
    return bad


def private_crossings(root: Path, packages: Sequence[str] = PACKAGES) -> list[Import]:
    """Imports of a private module or name from outside the package that owns it.

    ``a/b/_c.py`` belongs to package ``a.b``: modules in ``a.b`` (and below) may import it,
    nobody else. ``from a.b.m import _name`` is private to ``a.b`` as well.
    """
    known = modules(root, packages)
    bad = []
    for name, path in known.items():
        importer_package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for found in imports(name, path, known):
            parts = found.imported.split(".")
            private_at = next((i for i, part in enumerate(parts) if part.startswith("_")), None)
            if private_at is not None:
                owner = ".".join(parts[:private_at])
            elif found.name is not None and found.name.startswith("_"):
                target = found.imported
                owner = (
                    target
                    if known.get(target, Path()).name == "__init__.py"
                    else (target.rpartition(".")[0])
                )
            else:
                continue
            if importer_package != owner and not importer_package.startswith(owner + "."):
                bad.append(found)
    return bad


def _graph(root: Path, packages: Sequence[str] = PACKAGES) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {
        name: {_owner(found.imported, known) for found in imports(name, path, known)} - {""}
        for name, path in known.items()
    }


def cycles_between_floors(root: Path) -> list[list[str]]:
    """Import cycles (strongly connected modules) that span more than one floor."""
    return [
        sorted(component)
        for component in _components(_graph(root))
        if len({floor_of(module, FLOORS) for module in component}) > 1
    ]


def cycles_within(
    root: Path,
    floors: Sequence[str] = ACYCLIC,
    plan: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = FLOORS,
    packages: Sequence[str] = PACKAGES,
) -> list[list[str]]:
    """Import cycles with a module on one of ``floors`` (inside it, or through it)."""
    return [
        sorted(component)
        for component in _components(_graph(root, packages))
        if any(floor_of(module, plan) in floors for module in component)
    ]


def past_the_turns_face(root: Path, packages: Sequence[str] = PACKAGES) -> list[Import]:
    """Imports of the runtime that reach into the turn past ``goliath.turn`` itself."""
    known = modules(root, packages)
    return [
        found
        for name, path in known.items()
        if name == "actors" or name.startswith("actors.")
        for found in imports(name, path, known)
        if _owner(found.imported, known).startswith(TURN_FACE + ".")
    ]


def _components(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _described(found: Sequence[Import]) -> str:
    return "\n".join(
        f"  {item.importer} (line {item.line}) imports {item.imported}"
        + (f".{item.name}" if item.name else "")
        + f"  [{floor_of(item.importer, FLOORS)} → {floor_of(item.imported, FLOORS)}]"
        for item in found
    )


# ---------------------------------------------------------------------- the plan itself


def test_every_module_is_on_a_floor() -> None:
    """Each module of the three packages has exactly one floor."""
    for name in modules(ROOT):
        assert floor_of(name, FLOORS) in FLOORS


def test_imports_only_point_down() -> None:
    """No module imports a floor above it (or beside it, unless its row names that floor)."""
    bad = upward_imports(ROOT)
    assert not bad, "imports against the floor plan:\n" + _described(bad)


def test_no_cycle_spans_two_floors() -> None:
    """Modules that import each other (directly or round a loop) share a floor."""
    assert cycles_between_floors(ROOT) == []


def test_no_import_cycle_in_the_runtime_the_turn_or_below() -> None:
    """Within the runtime, the turn, ground, toolkit and add-ons, no modules import each other
    round a loop, not even for type hints (a cycle inside an edge is a matter for its floor)."""
    assert cycles_within(ROOT) == []


def test_the_runtime_reaches_the_turn_only_through_its_face() -> None:
    """``actors`` imports ``goliath.turn`` (run_turn) and no stage module behind it."""
    bad = past_the_turns_face(ROOT)
    assert not bad, "the runtime reaching into the turn:\n" + _described(bad)


def test_private_names_stay_in_their_package() -> None:
    """``_private`` modules and names are imported only inside the package that owns them."""
    bad = private_crossings(ROOT)
    assert not bad, "private names crossing a package border:\n" + "\n".join(
        f"  {item.importer} (line {item.line}) imports {item.imported}"
        + (f".{item.name}" if item.name else "")
        for item in bad
    )


# ---------------------------------------------------------------------- the checker works


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


SMALL_PLAN = {
    "harness": (("goliath.*",), ()),
    "runtime": (("actors.*",), ("harness",)),
    "facade": (("goliath", "goliath.agent"), ("runtime", "harness")),
}


def test_the_checker_catches_upward_imports_in_every_form(tmp_path: Path) -> None:
    """A top-level, a function-level, a relative, a TYPE_CHECKING and an importlib string import
    that point up are all reported; the allowed arrows are not."""
    root = _tree(
        tmp_path,
        {
            "goliath/__init__.py": "from .agent import Agent\n",
            "goliath/agent.py": "def start():\n    from actors.runtime import Runtime\n",
            "goliath/records.py": "import actors.runtime\n",
            "goliath/tools.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from .agent import Agent
                """,
            "goliath/session.py": """\
                import importlib
                def load():
                    return importlib.import_module("actors.runtime")
                """,
            "goliath/memory/__init__.py": "def f():\n    from ..agent import Agent\n",
            "actors/__init__.py": "",
            "actors/runtime.py": "from goliath.records import Record\nfrom goliath import Agent\n",
        },
    )
    found = {
        (item.importer, item.imported)
        for item in upward_imports(root, SMALL_PLAN, ("goliath", "actors"))
    }
    assert found == {
        ("goliath.records", "actors.runtime"),
        ("goliath.tools", "goliath.agent"),
        ("goliath.session", "actors.runtime"),
        ("goliath.memory", "goliath.agent"),
        ("actors.runtime", "goliath"),
    }


def test_the_checker_catches_a_deliberate_upward_import_in_a_copy_of_the_repository(
    tmp_path: Path,
) -> None:
    """The real plan fails as soon as one harness module imports the runtime."""
    files = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }
    files["goliath/records.py"] += "\n\ndef _upward() -> None:\n    from actors import runtime\n"
    root = _tree(tmp_path, files)
    found = {(item.importer, item.imported) for item in upward_imports(root)}
    assert ("goliath.records", "actors.runtime") in found


def test_the_checker_catches_private_crossings(tmp_path: Path) -> None:
    """A private module or name used from another package is reported; inside it is fine."""
    root = _tree(
        tmp_path,
        {
            "goliath/__init__.py": "from ._util import helper\n",
            "goliath/_util.py": "def helper(): ...\n",
            "goliath/memory/__init__.py": "from .._util import helper\nfrom ._codec import x\n",
            "goliath/memory/_codec.py": "x = 1\n",
            "goliath/memory/sqlite.py": "class _Database: ...\n",
            "goliath/turn/__init__.py": "from ..memory._codec import x\n",
            "actors/__init__.py": "from goliath._util import helper\n",
            "actors/store.py": "from goliath.memory.sqlite import _Database\n",
        },
    )
    found = {
        (item.importer, item.imported, item.name)
        for item in private_crossings(root, ("goliath", "actors"))
    }
    assert found == {
        ("goliath.turn", "goliath.memory._codec", "x"),
        ("actors", "goliath._util", "helper"),
        ("actors.store", "goliath.memory.sqlite", "_Database"),
    }


def _repository_copy(root: Path, extra: Mapping[str, str]) -> Path:
    """A copy of the three packages with ``extra`` appended to (or written as) some modules."""
    files = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }
    for relative, text in extra.items():
        files[relative] = files.get(relative, "") + "\n\n" + textwrap.dedent(text)
    return _tree(root, files)


@pytest.mark.parametrize(
    ("module", "breach", "arrow"),
    [
        ("goliath/errors.py", "from . import resolve", ("goliath.errors", "goliath.resolve")),
        ("goliath/records.py", "from . import doctor", ("goliath.records", "goliath.doctor")),
        ("goliath/events.py", "from .tools import Tool", ("goliath.events", "goliath.tools")),
        ("goliath/config.py", "from . import tracing", ("goliath.config", "goliath.tracing")),
        (
            "goliath/memory/codec.py",
            "from ..models import llamacpp",
            ("goliath.memory.codec", "goliath.models.llamacpp"),
        ),
        (
            "goliath/turn/judge.py",
            "from ..testing import FakeModel",
            ("goliath.turn.judge", "goliath.testing"),
        ),
        (
            "actors/runtime.py",
            "from goliath.testing import FakeModel",
            ("actors.runtime", "goliath.testing"),
        ),
        (
            "transports/base.py",
            "from goliath.turn import run_turn",
            ("transports.base", "goliath.turn"),
        ),
    ],
)
def test_each_floor_below_the_turn_is_pinned(
    tmp_path: Path, module: str, breach: str, arrow: tuple[str, str]
) -> None:
    """Ground imports nothing above it, the toolkit no add-on, and neither the turn nor the
    runtime an add-on; an edge does not run turns itself."""
    root = _repository_copy(tmp_path, {module: breach})
    found = {(item.importer, item.imported) for item in upward_imports(root)}
    assert arrow in found


def test_the_checker_catches_the_runtime_reaching_past_the_turns_face(tmp_path: Path) -> None:
    """``actors`` importing a stage module (as the journal once did) is reported."""
    root = _repository_copy(
        tmp_path, {"actors/journal.py": "from goliath.turn.tool_step import run_tool_step"}
    )
    found = {(item.importer, item.imported) for item in past_the_turns_face(root)}
    assert found == {("actors.journal", "goliath.turn.tool_step")}


def test_the_checker_catches_a_cycle_inside_a_floor(tmp_path: Path) -> None:
    """Two runtime modules that import each other form a cycle, even under TYPE_CHECKING."""
    root = _repository_copy(
        tmp_path,
        {
            "actors/store.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from .ticket import Ticket
                """
        },
    )
    assert ["actors.store", "actors.ticket"] in [
        [module for module in cycle if module in ("actors.store", "actors.ticket")]
        for cycle in cycles_within(root)
    ]


def test_the_checker_catches_a_cycle_inside_the_turn(tmp_path: Path) -> None:
    """A stage that imports the story back (``remember`` typing its argument as ``run.Turn``,
    as it once did) is a cycle inside the turn."""
    root = _repository_copy(
        tmp_path,
        {
            "goliath/turn/remember.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from .run import Turn
                """
        },
    )
    assert ["goliath.turn.remember", "goliath.turn.run"] in [
        [module for module in cycle if module in ("goliath.turn.remember", "goliath.turn.run")]
        for cycle in cycles_within(root)
    ]


def test_the_checker_reads_an_aliased_import_module_and_an_f_string_name(tmp_path: Path) -> None:
    """``import_module`` under another name, and an f-string or ``+`` module name with a fixed
    start, are arrows to the package that start names."""
    root = _tree(
        tmp_path,
        {
            "goliath/__init__.py": "",
            "goliath/records.py": """\
                from importlib import import_module as load
                def f():
                    return load("actors.runtime")
                """,
            "goliath/events.py": """\
                import importlib
                def f(name):
                    return importlib.import_module(f"actors.{name}")
                """,
            "goliath/errors.py": """\
                import importlib
                fetch = importlib.import_module
                def f(name):
                    return fetch("actors." + name)
                """,
            "goliath/ids.py": """\
                import importlib
                def f(name):
                    return importlib.import_module(f".{name}", __package__)
                """,
            "goliath/memory/__init__.py": """\
                import importlib
                def f(name):
                    return importlib.import_module(f"..agent_{name}")
                def g(name):
                    return importlib.import_module(f"{name}.x")
                """,
            "goliath/agent.py": "",
            "actors/__init__.py": "",
            "actors/runtime.py": "",
        },
    )
    found = {
        (item.importer, item.imported)
        for item in upward_imports(root, SMALL_PLAN, ("goliath", "actors"))
    }
    assert found == {
        ("goliath.records", "actors.runtime"),
        ("goliath.events", "actors"),
        ("goliath.errors", "actors"),
        ("goliath.ids", "goliath"),
        ("goliath.memory", "goliath"),
    }


ARCHITECTURE = ROOT / "docs" / "architecture.md"
DOCUMENTED_FOLDERS = ("goliath", "goliath/turn", "actors", "transports", "transports/http")
"""Folders whose every module docs/architecture.md names (the others are named as folders)."""


def test_the_floor_plan_page_names_every_module_of_the_main_folders() -> None:
    """docs/architecture.md names each module of goliath/, goliath/turn/, actors/ and
    transports/ (``name.py``), and each subpackage of goliath/ as a folder."""
    page = ARCHITECTURE.read_text(encoding="utf-8")
    missing = [
        f"{folder}/{path.name}"
        for folder in DOCUMENTED_FOLDERS
        for path in sorted((ROOT / folder).glob("*.py"))
        if f"`{path.name}`" not in page and not (path.name == "__init__.py" and folder != "goliath")
    ]
    missing += [
        f"goliath/{path.name}/"
        for path in sorted((ROOT / "goliath").iterdir())
        if (path / "__init__.py").is_file() and f"`goliath/{path.name}/`" not in page
    ]
    assert not missing, "docs/architecture.md does not name: " + ", ".join(missing)


# ---------------------------------------------------------------------- the runtime's insides

RUNTIME_INSIDES = frozenset({"supervisor", "journal"})
"""Parts of the runtime only ``actors`` names: every other floor asks the ``Runtime`` itself
(``accepting``, ``stop_accepting()``, ``ticket``, ``record``, ``running``, ``admit``)."""
ATTRIBUTE_FUNCTIONS = frozenset({"getattr", "setattr", "hasattr", "delattr"})


def runtime_insides_named(
    root: Path, packages: Sequence[str] = PACKAGES
) -> list[tuple[str, int, str]]:
    """``(module, line, name)`` wherever a module outside ``actors`` reads, assigns or deletes
    an attribute of :data:`RUNTIME_INSIDES` — as ``x.supervisor`` or through ``getattr(x,
    "journal")`` and its kin."""
    found = []
    for name, path in modules(root, packages).items():
        if name == "actors" or name.startswith("actors."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in RUNTIME_INSIDES:
                found.append((name, node.lineno, node.attr))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ATTRIBUTE_FUNCTIONS
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in RUNTIME_INSIDES
            ):
                found.append((name, node.lineno, str(node.args[1].value)))
    return found


def test_only_the_runtime_names_its_supervisor_and_journal() -> None:
    """No module of ``transports`` or ``goliath`` reaches past the ``Runtime`` into its
    supervisor or journal: the edges ask the runtime, which admits every request once."""
    found = runtime_insides_named(ROOT)
    assert not found, "reaching past the Runtime:\n" + "\n".join(
        f"  {module} (line {line}) names .{attribute}" for module, line, attribute in found
    )


@pytest.mark.parametrize(
    ("module", "breach", "expected"),
    [
        (
            "transports/serve.py",
            "def _breach(runtime):\n    return runtime.supervisor.accepting",
            ("transports.serve", "supervisor"),
        ),
        (
            "transports/http/turns.py",
            "async def _breach(runtime, turn_id):\n    return await runtime.journal.get(turn_id)",
            ("transports.http.turns", "journal"),
        ),
        (
            "transports/stream.py",
            "def _breach(runtime):\n    runtime.supervisor.accepting = False",
            ("transports.stream", "supervisor"),
        ),
        (
            "goliath/agent.py",
            "def _breach(runtime):\n    return getattr(runtime, 'journal')",
            ("goliath.agent", "journal"),
        ),
        (
            "goliath/turn/run.py",
            "def _breach(ticket):\n    del ticket.journal",
            ("goliath.turn.run", "journal"),
        ),
    ],
    ids=["read", "call", "assign", "getattr", "delete"],
)
def test_the_checker_catches_a_module_reaching_into_the_runtime(
    tmp_path: Path, module: str, breach: str, expected: tuple[str, str]
) -> None:
    """A deliberate breach in a copy of the repository is reported, whatever its form; the
    runtime's own modules may name their parts."""
    root = _repository_copy(
        tmp_path,
        {module: breach, "actors/runtime.py": "def _own(runtime):\n    return runtime.journal"},
    )
    found = {(name, attribute) for name, _, attribute in runtime_insides_named(root)}
    assert found == {expected}
