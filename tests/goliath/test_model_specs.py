"""Model specs as strings, resolved lazily: an app imports, and ``--model`` replaces its model,
on a machine without the model it names (issue #24)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from goliath import Agent
from goliath.models import packaged
from goliath.resolve import LazyModel


@pytest.fixture
def no_packaged_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one without the ``local`` extra: no packaged model is installed."""
    monkeypatch.setattr(packaged, "_package_dir", lambda name: None)
    monkeypatch.delenv("GOLIATH_MODEL", raising=False)
    for name in ("examples.fastapi_app", "examples.daemon"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_examples_import_without_the_model(no_packaged_models: None) -> None:
    fastapi_app = importlib.import_module("examples.fastapi_app")
    daemon = importlib.import_module("examples.daemon")
    assert isinstance(fastapi_app.agent.model, LazyModel)
    assert isinstance(daemon.make_agent().model, LazyModel)


def test_a_missing_model_escalates_its_turns(no_packaged_models: None) -> None:
    result = Agent("local").run_sync("hi")
    [escalation] = [event for event in result.trace if event.type == "escalate"]
    assert escalation.reason == "model-unavailable"
    assert "is not installed" in (escalation.error or "")


def test_model_replaces_the_model_of_an_app_agent(
    no_packaged_models: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`goliath run --agent examples.daemon:make_agent --model fake:...` runs the app's tools on
    the script, though the app names a model this machine does not have."""
    from goliath.cli import main

    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [{"json": {"call": "list_tasks", "then": "answer_the_user"}}, {"text": "Buy milk."}]
        )
    )
    code = main(
        ["run", "--agent", "examples.daemon:make_agent", "--model", f"fake:{script}", "tasks?"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0] == "Buy milk."
    assert "list_tasks({}) [completed] → 1. Buy milk" in out


def test_without_model_the_cli_says_the_apps_model_is_missing(
    no_packaged_models: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from goliath.cli import main

    code = main(["run", "--agent", "examples.daemon:make_agent", "tasks?"])
    assert code != 0
    assert "is not installed" in capsys.readouterr().err
