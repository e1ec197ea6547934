"""Virtual paths and content limits."""

from __future__ import annotations

import pytest

from goliath.filesystem import FileTooLargeError, InvalidPathError
from goliath.filesystem.paths import (
    MAX_FILE_BYTES,
    check_content,
    file_path,
    normalize_path,
    within,
)


def test_repeated_and_trailing_slashes_collapse() -> None:
    """'//notes///a.md/' is the same file as '/notes/a.md'."""
    assert normalize_path("//notes///a.md/") == "/notes/a.md"
    assert normalize_path("/") == "/"


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("/notes/../secret", "'..'"),
        ("/notes/./a.md", "'.'"),
        ("/notes\\a.md", "backslash"),
        ("/notes/a\x00.md", "control character"),
        ("/notes/a\n.md", "control character"),
        ("/notes/a\x7f.md", "control character"),
        ("notes/a.md", "relative"),
        ("", "relative"),
        ("/" + "a" * 512, "limit is 512"),
        ("/a\ud800", "lone surrogate"),
    ],
)
def test_bad_paths_are_refused_with_the_reason(path: str, needle: str) -> None:
    """Each kind of bad path is refused and the message names what was wrong."""
    with pytest.raises(InvalidPathError, match=needle):
        normalize_path(path)


def test_a_path_of_exactly_512_characters_is_accepted() -> None:
    """The limit is inclusive: 512 characters pass, 513 do not."""
    path = "/" + "a" * 511
    assert normalize_path(path) == path
    with pytest.raises(InvalidPathError):
        normalize_path(path + "b")


def test_the_root_is_not_a_file() -> None:
    """'/' is a folder; asking for it as a file says so."""
    with pytest.raises(InvalidPathError, match="root folder"):
        file_path("/")


def test_non_string_paths_are_refused() -> None:
    """A path must be text."""
    with pytest.raises(InvalidPathError, match="must be a string"):
        normalize_path(42)


def test_within_respects_folder_boundaries() -> None:
    """/notes-old is not inside /notes, but /notes/a is, and everything is inside /."""
    assert within("/notes/a", "/notes")
    assert within("/notes", "/notes")
    assert not within("/notes-old/a", "/notes")
    assert within("/anything", "/")


def test_content_up_to_one_mebibyte_is_accepted() -> None:
    """Exactly 1 MiB of UTF-8 passes; one byte more is refused with the size."""
    assert check_content("a" * MAX_FILE_BYTES, "/a") == "a" * MAX_FILE_BYTES
    with pytest.raises(FileTooLargeError, match="1,048,577 bytes"):
        check_content("a" * (MAX_FILE_BYTES + 1), "/a")


def test_content_size_counts_utf8_bytes_not_characters() -> None:
    """Multi-byte characters count by their UTF-8 length."""
    text = "é" * (MAX_FILE_BYTES // 2 + 1)  # 2 bytes each
    with pytest.raises(FileTooLargeError, match="limit is 1 MiB"):
        check_content(text, "/a")
