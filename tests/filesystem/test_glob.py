"""Glob syntax."""

from __future__ import annotations

import time

import pytest

from goliath.filesystem import InvalidPathError
from goliath.filesystem.glob import compile_glob, glob_base


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("/*.md", "/a.md", True),
        ("/*.md", "/notes/a.md", False),
        ("/**/*.md", "/a.md", True),
        ("/**/*.md", "/notes/deep/a.md", True),
        ("/notes/**", "/notes/deep/a.md", True),
        ("/notes/**", "/notesx/a.md", False),
        ("/notes/*", "/notes/deep/a.md", False),
        ("/n?tes/a.md", "/notes/a.md", True),
        ("/n?tes/a.md", "/n/tes/a.md", False),
        ("/a**b", "/a/x/b", True),
        ("/notes/a.md", "/notes/a.md", True),
        ("/notes/a.md", "/notes/A.md", False),
        ("/*", "/", True),
        ("/**/deep/*.md", "/notes/deep/ideas.md", True),
        ("/**/deep/*.md", "/notes/deeper/ideas.md", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    """*, **/, ** and ? match as docs/filesystem.md says, case-sensitively."""
    assert compile_glob(pattern)(path) is expected


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        ("*.md", "relative"),
        ("/notes/../*.md", "'..'"),
        ("/notes/./*.md", "'.'"),
        ("/notes\\*.md", "backslash"),
        ("/" + "*" * 512, "limit is 512"),
    ],
)
def test_bad_patterns_are_refused(pattern: str, needle: str) -> None:
    """Relative patterns, dot segments, backslashes and long patterns are refused."""
    with pytest.raises(InvalidPathError, match=needle):
        compile_glob(pattern)


def test_matching_stays_fast_for_patterns_that_make_regexes_backtrack() -> None:
    """Many stars against a long non-matching path finish quickly (no exponential search)."""
    matcher = compile_glob("/" + "*a" * 40 + "*b")
    started = time.perf_counter()
    assert not matcher("/" + "a" * 500)
    assert time.perf_counter() - started < 0.2


def test_glob_base_is_the_literal_folder_before_the_first_wildcard() -> None:
    """Only the folder that can hold matches is listed."""
    assert glob_base("/notes/**/*.md") == "/notes"
    assert glob_base("/**/*.md") == "/"
    assert glob_base("/notes/a.md") == "/notes/a.md"
