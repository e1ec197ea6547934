"""The harness walkthrough (docs/walkthrough.html) is regenerated from real runs and stays true."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORDER = ROOT / "docs" / "walkthrough" / "record.py"


def load_recorder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("walkthrough_record", RECORDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def recorder() -> ModuleType:
    return load_recorder()


@pytest.fixture(scope="module")
def recording(recorder: ModuleType) -> dict[str, Any]:
    return recorder.record()  # type: ignore[no-any-return]


def scenario(recording: dict[str, Any], key: str) -> dict[str, Any]:
    return next(item for item in recording["scenarios"] if item["key"] == key)


def events(item: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [
        e["event"] for e in item["timeline"] if e["kind"] == "event" and e["event"]["type"] == kind
    ]


def model_calls(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry for entry in item["timeline"] if entry["kind"] == "model"]


def test_the_checked_in_recording_and_page_equal_a_fresh_recording(
    recorder: ModuleType, recording: dict[str, Any]
) -> None:
    """Re-running the six scenarios reproduces recording.json and walkthrough.html exactly
    (run `python docs/walkthrough/record.py` after changing the harness)."""
    assert recorder.RECORDING.read_text(encoding="utf-8") == recorder.dump(recording)
    assert recorder.PAGE.read_text(encoding="utf-8") == recorder.render(recording)


def test_the_six_scenarios_take_the_paths_they_are_named_after(recording: dict[str, Any]) -> None:
    """Normal, approval, judge-caught repeat, decline, malformed plan and file retrieval all
    happen as described, in real turns."""
    keys = [item["key"] for item in recording["scenarios"]]
    assert keys == ["normal", "approval", "repeat", "decline", "malformed", "files"]

    normal = scenario(recording, "normal")
    step = normal["result"]["steps"][0]
    assert step["tool"] == "list_tasks" and len(step["result"]) < len(str(step["output"]))
    assert normal["result"]["handled_by"] == "device"

    approval = scenario(recording, "approval")
    assert [e["decision"]["approved"] for e in approval["timeline"] if e["kind"] == "confirm"] == [
        True
    ]
    assert approval["result"]["steps"][0]["output"]["task"]["title"] == "Buy eggs"

    repeat = scenario(recording, "repeat")
    assert [s.get("cached", False) for s in repeat["result"]["steps"]] == [False, True]
    assert [e["reason"] for e in events(repeat, "escalate")] == ["repeated-tool-call"]
    assert repeat["result"]["handled_by"] == "cloud"

    decline = scenario(recording, "decline")
    skipped = decline["result"]["steps"][0]
    assert skipped["skipped"] and skipped["skip_reason"] == "confirmation"
    answer = model_calls(decline)[-1]  # the plan was done: the answer reads the decline
    assert answer["label"] == "answer" and "I already called them" in answer["prompt"]

    malformed = scenario(recording, "malformed")
    first, retry = model_calls(malformed)[:2]
    assert first["label"] == retry["label"] == "conductor"
    assert "not a valid plan" in retry["prompt"] and "not a valid plan" not in first["prompt"]

    files = scenario(recording, "files")
    assert [s["tool"] for s in files["result"]["steps"] if s["kind"] == "tool"] == [
        "grep",
        "read_file",
    ]
    assert "before 9" in files["result"]["steps"][1]["result"]


def test_the_page_references_nothing_outside_itself() -> None:
    """No URL, stylesheet, script source, image or font: the page works from a file offline."""
    page = (ROOT / "docs" / "walkthrough.html").read_text(encoding="utf-8")
    assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]{2,}/", page, re.IGNORECASE)
    assert not re.search(r"<(link|img|iframe|object|embed)\b|\ssrc=|@import|url\(", page)
    assert "default-src 'none'" in page
