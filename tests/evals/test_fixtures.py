"""Fixtures: the documented signature, validation that teaches, and loading a suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goliath.errors import ConfigError
from goliath.evaluation import FIXTURES, Fixture, FixtureSuite, load_fixtures, sample_tools


class TestFixture:
    def test_the_api_signature_is_positional_then_keywords(self) -> None:
        """Fixture(id, ask, tools, handled_by, escalation, expected_reason, mentions, forbids)."""
        fixture = Fixture("f", "ask", ["a"], "device", "allowed", "guardrail", ["x"], ["y"])
        assert (fixture.escalation, fixture.expected_reason) == ("allowed", "guardrail")
        assert (fixture.tools, fixture.mentions, fixture.forbids) == (("a",), ("x",), ("y",))
        assert (fixture.toolset, fixture.decline, fixture.writes, fixture.alternatives) == (
            None,
            False,
            None,
            (),
        )

    def test_escalation_defaults_from_where_it_should_finish(self) -> None:
        """device → forbidden, cloud → expected, unless given."""
        assert Fixture("a", "ask", [], "device").effective_escalation == "forbidden"
        assert Fixture("b", "ask", [], "cloud").effective_escalation == "expected"

    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"id": "Add Task"}, "lower-case letters, digits and hyphens"),
            ({"ask": " "}, "ask must be a non-blank string"),
            ({"tools": "list_tasks"}, r"did you mean \['list_tasks'\]"),
            ({"handled_by": "phone"}, "handled_by must be 'device' or 'cloud'"),
            ({"escalation": "sometimes"}, "escalation must be"),
            ({"expected_reason": "tired"}, "not an escalation reason; use one of: "),
            ({"mentions": ["ok", 3]}, "mentions must hold non-empty strings"),
            ({"alternatives": ["a"]}, "alternatives must be a list"),
        ],
    )
    def test_a_wrong_field_is_named(self, kwargs: dict[str, object], message: str) -> None:
        """Each mistake raises ConfigError naming the field and what would be right."""
        values: dict[str, object] = {"id": "f", "ask": "ask", "tools": [], "handled_by": "device"}
        with pytest.raises(ConfigError, match=message):
            Fixture(**{**values, **kwargs})  # type: ignore[arg-type]


class TestOriginals:
    def test_the_five_originals_run_over_the_sample_tools(self) -> None:
        """list-today, add-task, add-after-check, small-talk, plan-week; sample tools are fresh."""
        assert [f.id for f in FIXTURES] == [
            "list-today",
            "add-task",
            "add-after-check",
            "small-talk",
            "plan-week",
        ]
        first, second = sample_tools(), sample_tools()
        assert [t.name for t in first] == ["list_tasks", "create_task"]
        assert first[1].writes and not first[0].has_arguments
        assert first[1].execute({"title": "Eggs"}, None) == {"ok": True, "title": "Eggs"}  # type: ignore[arg-type]
        assert first[0].execute({}, None) == [  # type: ignore[arg-type]
            {"title": "Buy milk"},
            {"title": "Call mom"},
            {"title": "Eggs"},
        ]
        assert second[0].execute({}, None) == [{"title": "Buy milk"}, {"title": "Call mom"}]  # type: ignore[arg-type]


SUITE = """
from goliath import tool
from goliath.evaluation import Fixture

@tool
def ping() -> str:
    '''Ping.'''
    return "pong"

FIXTURES = [Fixture("ping", "ping it", ["ping"], "device", toolset="net")]
TOOLSETS = {"net": lambda: [ping]}
FACTS = {"today": "Monday"}
"""


class TestLoading:
    def test_a_suite_loads_from_a_file(self, tmp_path: Path) -> None:
        """FIXTURES, TOOLSETS and FACTS are read from a plain .py file."""
        path = tmp_path / "mine.py"
        path.write_text(SUITE)
        suite = load_fixtures(path)
        assert [f.id for f in suite.fixtures] == ["ping"]
        assert set(suite.toolsets) == {"net"} and suite.facts == {"today": "Monday"}
        assert suite.source == str(path)

    def test_a_suite_loads_from_a_module_name_or_a_module(self) -> None:
        """A dotted name is imported; a module object is read as it is."""
        suite = load_fixtures("goliath.evaluation.fixtures")
        assert [f.id for f in suite.fixtures] == [f.id for f in FIXTURES]
        assert load_fixtures(sys.modules["goliath.evaluation.fixtures"]).fixtures == suite.fixtures

    def test_a_file_inside_a_package_keeps_its_relative_imports(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """evals/everyday.py style: a suite in a package may import its siblings."""
        monkeypatch.setattr(sys, "path", list(sys.path))  # loading adds the package's root
        package = tmp_path / "mysuite"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "data.py").write_text("ASK = 'ping it'\n")
        (package / "suite.py").write_text(
            "from goliath.evaluation import Fixture\nfrom .data import ASK\n"
            "FIXTURES = [Fixture('ping', ASK, [], 'device')]\n"
        )
        suite = load_fixtures(package / "suite.py")
        assert suite.fixtures[0].ask == "ping it"

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            ("X = 1", "has no FIXTURES list"),
            ("raise RuntimeError('typo')", "Importing the fixtures in .* failed: typo"),
            (
                "from goliath.evaluation import Fixture\nFIXTURES = [Fixture('a', 'b', [], 'device', "
                "toolset='gone')]",
                "names the toolset 'gone', which is not registered",
            ),
            ("FIXTURES = ['not a fixture']", "Expected a goliath.evaluation.Fixture"),
            ("FIXTURES = []\nFACTS = {'n': 1}", "FACTS must be a dict of strings"),
        ],
    )
    def test_a_broken_suite_is_explained(self, tmp_path: Path, content: str, message: str) -> None:
        """Each problem is a ConfigError that names the file and the fix."""
        path = tmp_path / "broken.py"
        path.write_text(content)
        with pytest.raises(ConfigError, match=message):
            load_fixtures(path)

    def test_a_missing_path_or_module_is_explained(self, tmp_path: Path) -> None:
        """A wrong path or name says what was looked for."""
        with pytest.raises(ConfigError, match="No fixture file at"):
            load_fixtures(tmp_path / "nope.py")
        with pytest.raises(ConfigError, match=r"Cannot import the fixture module 'no\.such'"):
            load_fixtures("no.such")

    def test_a_suite_checks_its_fixtures(self) -> None:
        """FixtureSuite refuses an empty list and repeated ids."""
        with pytest.raises(ConfigError, match="no fixtures"):
            FixtureSuite([])
        with pytest.raises(ConfigError, match="Two fixtures have the id"):
            FixtureSuite([FIXTURES[0], FIXTURES[0]])
