"""Every Python example in README.md and docs/ runs (documentation cannot drift from the code)."""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def examples() -> list[tuple[str, str]]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, match in enumerate(FENCE.finditer(path.read_text()), start=1):
            found.append((f"{path.relative_to(ROOT)}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("where", "code"), examples(), ids=[where for where, _ in examples()])
def test_the_example_runs(where: str, code: str, tmp_path: Path) -> None:
    """The example executes without error (its own asserts check what it claims)."""
    previous = Path.cwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, where, "exec"), {"__name__": "__docs__"})
    finally:
        os.chdir(previous)


API_REFERENCE = ROOT / "docs" / "api.md"
DIRECTIVE = re.compile(r"^::: ([\w.]+)", re.MULTILINE)


def _resolve(dotted: str) -> object:
    """The module or attribute a mkdocstrings ``::: dotted.name`` directive documents."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError as exc:
            if exc.name != ".".join(parts[:split]):
                raise
            continue
        for name in parts[split:]:
            found = getattr(found, name)
        return found
    raise AssertionError(f"{dotted} names no module")


def test_the_api_reference_covers_bridges_the_daemon_fallback_tracing_mcp_and_evals() -> None:
    """docs/api.md documents every model bridge, serve_http, http_fallback, tracing, MCP and
    evals, and every name it documents exists."""
    documented = DIRECTIVE.findall(API_REFERENCE.read_text(encoding="utf-8"))
    for dotted in documented:
        _resolve(dotted)
    required = {
        "goliath.models.llamacpp.LlamaCppModel",
        "goliath.models.openai.OpenAICompatibleModel",
        "goliath.models.apple.AppleModel",
        "transports.http.serve_http",
        "goliath.fallback",
        "goliath.tracing",
        "goliath.mcp",
        "goliath.evaluation",
        "goliath.streaming",
    }
    assert required <= set(documented), sorted(required - set(documented))
    fallback = _resolve("goliath.fallback")
    assert "http_fallback" in fallback.__all__  # type: ignore[attr-defined]
