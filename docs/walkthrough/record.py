"""Record the harness walkthrough from real runs, and render it as one self-contained page.

Each scenario is a real turn of ``goliath.Agent`` with a scripted model (``FakeModel``): every
model request (label, system, prompt, schema), the model's reply, the trace events, the
confirmations, the fallback hand-off and the step records are captured in the order they
happened. ``python docs/walkthrough/record.py`` writes ``docs/walkthrough/recording.json`` and
``docs/walkthrough.html``; ``tests/test_walkthrough.py`` regenerates both and asserts
the checked-in files are identical, so the page shows what the current code does.

The page embeds the recording as JSON with inline CSS and JavaScript; it loads nothing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import trio

from goliath import Agent, ConfirmRequest, Decision, FallbackRequest, RunResult, tool
from goliath.filesystem import create_filesystem, static_filesystem
from goliath.models import GenerateRequest, Generation
from goliath.schema import DONE
from goliath.testing import FakeModel, ScriptEntry

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recording.json"
PAGE = HERE.parent / "walkthrough.html"
TEMPLATE = HERE / "template.html"
VOLATILE = frozenset({"ms", "queue_ms", "at"})
"""Timings and clocks differ between runs; the page must not."""

Timeline = list[dict[str, Any]]


def _plain(value: Any) -> Any:
    """JSON-ready data without run-dependent timings."""
    data = msgspec.to_builtins(value)

    def scrub(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: scrub(val) for key, val in item.items() if key not in VOLATILE}
        if isinstance(item, list):
            return [scrub(val) for val in item]
        return item

    return scrub(data)


class RecordingModel:
    """Wraps a scripted model and writes each request and its reply into the timeline."""

    def __init__(self, script: list[ScriptEntry], timeline: Timeline) -> None:
        self.inner = FakeModel(script)
        self.timeline = timeline

    async def generate(self, request: GenerateRequest) -> Generation:
        entry: dict[str, Any] = {
            "kind": "model",
            "label": request.label,
            "system": request.system,
            "prompt": request.prompt,
            "schema": request.schema,
            "max_output_tokens": request.max_output_tokens,
        }
        self.timeline.append(entry)
        generation = await self.inner.generate(request)
        entry["reply"] = generation.text
        entry["input_tokens"] = generation.input_tokens
        entry["output_tokens"] = generation.output_tokens
        return generation


# ---------------------------------------------------------------------- the tools of the scenarios

TASKS = [
    {"id": number, "title": title, "due": due, "done": done, "list": listed}
    for number, (title, due, done, listed) in enumerate(
        [
            ("Buy milk", "2026-03-02", False, "errands"),
            ("Call the dentist", "2026-03-03", False, "health"),
            ("Renew passport", "2026-03-20", False, "admin"),
            ("Water the plants", "2026-03-02", True, "home"),
            ("Send invoice #118", "2026-03-04", False, "work"),
            ("Book train to Lyon", "2026-03-06", False, "travel"),
            ("Fix the bike light", None, False, "home"),
            ("Return library books", "2026-03-05", False, "errands"),
            ("Pay electricity bill", "2026-03-01", True, "admin"),
            ("Plan Sam's birthday", "2026-03-15", False, "family"),
        ],
        start=1,
    )
]

NOTES = {
    "/notes/garden.md": (
        "# Garden\n\nTomatoes: water every morning before 9, at the roots, never the leaves.\n"
        "Basil: pinch the flowers off.\nCompost: turn it on Sundays.\n"
    ),
    "/notes/kitchen.md": "# Kitchen\n\nTomato sauce: simmer 40 minutes, add basil at the end.\n",
    "/notes/travel.md": "# Travel\n\nLyon in March: book the 8:04 train, seats in coach 12.\n",
}


def task_tools(created: list[dict[str, Any]]) -> list[Any]:
    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """List every task with its due date and list."""
        return [dict(task) for task in TASKS] + created

    @tool(writes=True)
    def create_task(title: str, due: str | None = None) -> dict[str, Any]:
        """Add a task.

        Args:
            title: what to do, in a few words
            due: the due date as YYYY-MM-DD, if the user gave one
        """
        task = {"id": len(TASKS) + len(created) + 1, "title": title, "due": due, "done": False}
        created.append(task)
        return {"ok": True, "task": task}

    return [list_tasks, create_task]


def first_plan(call: str, then: str = DONE) -> ScriptEntry:
    """A turn's first plan, as the conductor asks for it: a call, then the next or none."""
    return {"json": {"call": call, "then": then}}


def next_call(call: str) -> ScriptEntry:
    """A later step's pick, ``{"call": NAME}`` (as a first plan: this call alone, so the turn
    asks again for each next step)."""
    return {"json": {"call": call}}


# ---------------------------------------------------------------------- the six scenarios


class Scenario:
    """One recorded turn: its ask, the scripted replies, and the options of its agent."""

    def __init__(
        self,
        key: str,
        title: str,
        summary: str,
        ask: str,
        script: list[ScriptEntry],
        *,
        files: bool = False,
        decide: Callable[[ConfirmRequest], Decision] | None = None,
        fallback: bool = False,
    ) -> None:
        self.key, self.title, self.summary, self.ask = key, title, summary, ask
        self.script, self.files, self.decide, self.fallback = script, files, decide, fallback

    async def record(self) -> dict[str, Any]:
        timeline: Timeline = []
        created: list[dict[str, Any]] = []
        tools = create_filesystem(static_filesystem(NOTES)).tools if self.files else None
        model = RecordingModel(self.script, timeline)

        def confirm(request: ConfirmRequest) -> Decision:
            assert self.decide is not None
            decision = self.decide(request)
            timeline.append(
                {"kind": "confirm", "request": _plain(request), "decision": _plain(decision)}
            )
            return decision

        def cloud(request: FallbackRequest) -> str:
            text = "You have 10 tasks; 8 are open. The next due are Buy milk (Mar 2) and Call the dentist (Mar 3)."
            timeline.append({"kind": "fallback", "request": _plain(request), "reply": text})
            return text

        agent = Agent(
            model,
            tools=tools if tools is not None else task_tools(created),
            confirm=confirm if self.decide is not None else None,
            fallback=cloud if self.fallback else None,
            on_event=lambda event: timeline.append({"kind": "event", "event": _plain(event)}),
        )
        async with agent:
            result = await agent.run(self.ask, turn_id=f"walkthrough-{self.key}")
        assert model.inner.remaining() == 0, f"{self.key}: unused scripted replies"
        return {
            "key": self.key,
            "title": self.title,
            "summary": self.summary,
            "ask": self.ask,
            "tools": [
                {"name": t.name, "description": t.description, "writes": t.writes}
                for t in agent.tools.values()
            ],
            "timeline": timeline,
            "result": _result(result),
        }


def _result(result: RunResult) -> dict[str, Any]:
    data = _plain(result)
    data.pop("trace", None)  # the timeline already holds every event, in order
    return dict(data)


SCENARIOS = [
    Scenario(
        "normal",
        "The normal path",
        "One read, its output compressed to a few lines, then the answer.",
        "what do I need to do next?",
        [
            first_plan("list_tasks"),
            {
                "text": "Buy milk is due March 2, then Call the dentist on March 3 and "
                "Send invoice #118 on March 4."
            },
        ],
    ),
    Scenario(
        "approval",
        "A write, approved",
        "The model fills the arguments; the write waits for a person, who approves it.",
        "add buy eggs for Friday",
        [
            first_plan("create_task"),
            {"json": {"title": "Buy eggs", "due": "2026-03-06"}},
            {"text": "Added Buy eggs, due Friday March 6."},
        ],
        decide=lambda request: Decision(approved=True),
    ),
    Scenario(
        "repeat",
        "A repeated call, caught by the judge",
        "Planned one call at a time, the model asks for the same read three times: the second "
        "is served from the first, the third escalates and the cloud fallback answers from the "
        "structured record.",
        "how many tasks do I have?",
        [
            next_call("list_tasks"),
            next_call("list_tasks"),
            next_call("list_tasks"),
        ],
        fallback=True,
    ),
    Scenario(
        "decline",
        "A write, declined",
        "The person declines; the model sees the decline and its reason, and does not retry.",
        "add call the bank",
        [
            first_plan("create_task"),
            {"json": {"title": "Call the bank"}},
            {"text": "OK, I did not add Call the bank."},
        ],
        decide=lambda request: Decision(approved=False, reason="I already called them"),
    ),
    Scenario(
        "malformed",
        "A malformed plan, and its retry",
        "The first plan is prose, not JSON: the harness retries once, with a hint naming the "
        "valid tools.",
        "is the passport renewal done?",
        [
            {"text": "Sure! Let me check your tasks for the passport."},
            first_plan("list_tasks"),
            {"text": "Not yet: Renew passport is open, due March 20."},
        ],
    ),
    Scenario(
        "files",
        "A file retrieval",
        "The model plans a search of the notes, then a read of the matching file; the turn "
        "follows that plan and answers from the literal excerpt.",
        "when should I water the tomatoes?",
        [
            first_plan("grep", "read_file"),
            {"json": {"pattern": "tomatoes"}},
            {"json": {"path": "/notes/garden.md"}},
            {"text": "Every morning before 9, at the roots and never on the leaves (garden.md)."},
        ],
        files=True,
    ),
]


# ---------------------------------------------------------------------- writing


def record() -> dict[str, Any]:
    """Run every scenario and return the recording."""

    async def main() -> list[dict[str, Any]]:
        return [await scenario.record() for scenario in SCENARIOS]

    return {"version": 1, "scenarios": trio.run(main)}


def render(recording: dict[str, Any]) -> str:
    """The walkthrough page: the template with the recording embedded as JSON."""
    data = json.dumps(recording, ensure_ascii=False, sort_keys=True)
    data = data.replace("<", "\\u003c")  # no "</script>" or "<!--" can end the data element
    template = TEMPLATE.read_text(encoding="utf-8")
    marker = "/*RECORDING*/null"
    assert template.count(marker) == 1, "the template must contain the recording marker once"
    return template.replace(marker, data)


def dump(recording: dict[str, Any]) -> str:
    return json.dumps(recording, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="fail if the files are stale")
    check = parser.parse_args().check
    recording = record()
    outputs = {RECORDING: dump(recording), PAGE: render(recording)}
    stale = [
        path
        for path, text in outputs.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if check:
        if stale:
            raise SystemExit(f"stale: {', '.join(map(str, stale))}; run {Path(__file__).name}")
        return
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
