"""ModelSpec: a --model spec parsed once, read alike by resolve_model, goliath doctor and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from goliath.cli import _runs_llama_cpp
from goliath.doctor import check_model
from goliath.errors import ConfigError
from goliath.resolve import ModelSpec


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("local", ModelSpec("local")),
        (" local ", ModelSpec("local")),
        ("local:smollm2-135m", ModelSpec("local", "smollm2-135m")),
        ("small", ModelSpec("local", "smollm2-135m")),
        ("llamacpp:/models/a.gguf", ModelSpec("llamacpp", "/models/a.gguf")),
        ("apple", ModelSpec("apple")),
        (
            "openai:http://127.0.0.1:8080/v1#qwen",
            ModelSpec("openai", "http://127.0.0.1:8080/v1", "qwen"),
        ),
        ("openai:http://h/v1#a#b", ModelSpec("openai", "http://h/v1#a", "b")),
        ("fake:script.json", ModelSpec("fake", "script.json")),
    ],
)
def test_every_form_parses_to_its_bridge_and_target(text: str, parsed: ModelSpec) -> None:
    """Each accepted form names one bridge; ``small`` is the packaged SmolLM2."""
    assert ModelSpec.parse(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "A model spec is one of: local"),
        (None, "A model spec is one of: local"),
        ("gpt4", "Unknown model spec 'gpt4'"),
        ("apple:extra", "Unknown model spec"),
        ("small:x", "Unknown model spec"),
        ("local:gpt-9", "Unknown packaged model 'gpt-9'"),
        ("llamacpp:", "needs the path of a .gguf file"),
        ("fake:", "needs the path of a JSON script"),
        ("openai:http://h/v1", "needs a URL and a model name"),
    ],
)
def test_a_malformed_spec_says_what_is_wrong(text: object, message: str) -> None:
    """The error names the spec's fault, or lists the forms."""
    with pytest.raises(ConfigError, match=message):
        ModelSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("local", True),
        ("small", True),
        ("llamacpp:/m.gguf", True),
        ("apple", False),
        ("openai:http://h/v1#m", False),
        ("fake:s.json", False),
        ("", False),
        ("gpt4", False),
    ],
)
def test_the_cli_runs_a_child_process_exactly_for_llama_cpp_specs(text: str, runs: bool) -> None:
    """The CLI's crash guard reads the same parse: llama.cpp specs only; a malformed spec is left
    to the command, which reports it."""
    assert _runs_llama_cpp(text) is runs
    if text and runs:
        assert ModelSpec.parse(text).runs_llama_cpp


def test_doctor_reads_the_same_parse(tmp_path: Path) -> None:
    """doctor checks the file a llamacpp spec names and refuses other bridges by name."""
    missing = tmp_path / "absent.gguf"
    checks = check_model(f"llamacpp:{missing}")
    assert [check.ok for check in checks if check.name == "model file"] == [False]
    with pytest.raises(ConfigError, match=r"goliath doctor checks llama\.cpp models.*'apple'"):
        check_model("apple")
    with pytest.raises(ConfigError, match="Unknown model spec 'gpt4'"):
        check_model("gpt4")
