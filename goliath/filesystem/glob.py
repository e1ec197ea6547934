"""Portable glob matching, bounded by pattern length × path length.

``*`` is any run of non-slash characters, ``**/`` zero or more folder levels (so
``/**/*.md`` matches ``/a.md``), ``**`` not followed by ``/`` any characters including ``/``,
``?`` one non-slash character; everything else is literal. Matching walks the pattern once and
keeps the set of path positions reachable so far, so no pattern can backtrack exponentially the
way a translated regular expression can.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from .errors import InvalidPathError
from .paths import MAX_PATH_CHARS, show

__all__ = ["compile_glob", "glob_base"]


@attrs.frozen
class _Token:
    kind: str  # "literal" | "star" | "tree" | "folders" | "one"
    text: str = ""


def check_glob(pattern: object) -> str:
    """Validate a glob pattern: absolute, ≤ 512 chars, no backslashes or dot segments."""
    if not isinstance(pattern, str):
        raise InvalidPathError(f"A glob pattern must be a string like '/**/*.md', got {pattern!r}")
    if len(pattern) > MAX_PATH_CHARS:
        raise InvalidPathError(
            f"Glob pattern is {len(pattern)} characters long; the limit is {MAX_PATH_CHARS}"
        )
    if not pattern.startswith("/"):
        raise InvalidPathError(
            f"Glob pattern {show(pattern)} is relative; start it with '/', like '/notes/*.md' or "
            "'/**/*.md'"
        )
    if "\\" in pattern:
        raise InvalidPathError(
            f"Glob pattern {show(pattern)} contains a backslash; separate folders with '/'"
        )
    if any(segment in (".", "..") for segment in pattern.split("/")):
        raise InvalidPathError(
            f"Glob pattern {show(pattern)} contains a '.' or '..' segment; write it out in full"
        )
    return pattern


def _tokens(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            tokens.append(_Token("folders"))
            index += 3
        elif pattern.startswith("**", index):
            tokens.append(_Token("tree"))
            index += 2
        elif char == "*":
            tokens.append(_Token("star"))
            index += 1
        elif char == "?":
            tokens.append(_Token("one"))
            index += 1
        else:
            if tokens and tokens[-1].kind == "literal":
                tokens[-1] = _Token("literal", tokens[-1].text + char)
            else:
                tokens.append(_Token("literal", char))
            index += 1
    return tokens


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A predicate telling whether a normalized path matches ``pattern`` (case-sensitive).

    Raises:
        InvalidPathError: the pattern breaks the rules of :func:`check_glob`.
    """
    tokens = _tokens(check_glob(pattern))

    def matches(path: str) -> bool:
        size = len(path)
        states = {0}
        for token in tokens:
            if not states:
                return False
            if token.kind == "literal":
                text = token.text
                states = {p + len(text) for p in states if path.startswith(text, p)}
            elif token.kind == "one":
                states = {p + 1 for p in states if p < size and path[p] != "/"}
            elif token.kind == "tree":
                states = set(range(min(states), size + 1))
            elif token.kind == "folders":
                first = min(states)
                states |= {q for q in range(first + 1, size + 1) if path[q - 1] == "/"}
            else:  # star: extend each start through the characters of the current name
                reached: set[int] = set()
                for start in sorted(states):
                    if start in reached:
                        continue
                    stop = path.find("/", start)
                    reached.update(range(start, (size if stop < 0 else stop) + 1))
                states = reached
        return size in states

    return matches


def glob_base(pattern: str) -> str:
    """The folder a pattern's matches must lie in: its segments before the first wildcard.

    ``/notes/**/*.md`` → ``/notes``; a pattern without wildcards is its own base. Listing only
    that folder spares walking unrelated files.
    """
    segments = [segment for segment in pattern.split("/") if segment]
    literal: list[str] = []
    for segment in segments:
        if "*" in segment or "?" in segment:
            break
        literal.append(segment)
    return "/" + "/".join(literal)
