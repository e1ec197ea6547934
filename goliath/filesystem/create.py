"""``create_filesystem``: validate a configuration once and build its tools."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..errors import ConfigError
from ..tools import Tool
from .backends.memory import in_memory_filesystem
from .paths import normalize_path
from .search import SearchLimits
from .tools import READ_TOOLS, WRITE_TOOLS, ApproveHandler, Toolkit, _is_backend
from .types import BackendSource

__all__ = ["Filesystem", "create_filesystem"]

_READ_OPTIONS = {"max_lines": (200, 1000), "default_lines": (None, None)}
_SEARCH_OPTIONS = {"max_matches": (10, 100), "max_files": (128, 1024)}


@attrs.frozen(kw_only=True)
class Filesystem:
    """A configured virtual filesystem; give ``fs.tools`` to an ``Agent``.

    Attributes:
        tools: the ``goliath.Tool`` objects, read tools first.
        root: every tool path must lie within this folder.
        read_only: whether the model may change files through these tools.
        backend: the backend, or the function of the tool context that picks one.
    """

    tools: list[Tool]
    root: str
    read_only: bool
    backend: BackendSource

    def tool(self, name: str) -> Tool:
        """The tool called ``name`` (``KeyError`` naming the available ones otherwise)."""
        for candidate in self.tools:
            if candidate.name == name:
                return candidate
        names = ", ".join(t.name for t in self.tools)
        raise KeyError(f"This filesystem has no tool {name!r}; it has {names}.")


def _bounded(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} must be an integer from {low} to {high}, got {value!r}.")
    return value


def _options(name: str, value: Mapping[str, Any] | None, allowed: Iterable[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must be a dict like {{{', '.join(allowed)}}}, got {value!r}.")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ConfigError(f"Unknown {name} option(s) {unknown}; use {sorted(allowed)}.")
    return dict(value)


def _selected(tools: Sequence[str] | None, read_only: bool, write_tools: bool) -> tuple[str, ...]:
    if tools is None:
        return READ_TOOLS + WRITE_TOOLS if write_tools else READ_TOOLS
    if isinstance(tools, str):
        raise ConfigError(f"tools must be a list of tool names, not the string {tools!r}.")
    names = tuple(tools)
    for name in names:
        if name not in READ_TOOLS + WRITE_TOOLS:
            raise ConfigError(
                f"Unknown filesystem tool {name!r}; choose from {', '.join(READ_TOOLS + WRITE_TOOLS)}."
            )
        if name in WRITE_TOOLS and read_only:
            raise ConfigError(
                f"{name} changes files, but this filesystem is read-only; pass read_only=False "
                "to allow write tools."
            )
    if len(set(names)) != len(names):
        raise ConfigError(f"tools names a tool twice: {list(names)}.")
    return names


def create_filesystem(
    backend: BackendSource | None = None,
    *,
    read_only: bool = True,
    write_tools: bool = False,
    approve: ApproveHandler | None = None,
    root: str = "/",
    read: Mapping[str, int] | None = None,
    search: Mapping[str, int] | None = None,
    tools: Sequence[str] | None = None,
) -> Filesystem:
    """Tools that let an agent find, read and (when enabled) change virtual files.

    Args:
        backend: where files live (default: an empty ``in_memory_filesystem()``), or a
            function ``(ToolContext) -> backend`` (sync or async), e.g. one per conversation.
        read_only: ``True`` (the default) registers only ``glob``, ``grep`` and ``read_file``.
        write_tools: add ``write_file``, ``edit_file`` and ``delete_file``; needs
            ``read_only=False``. They are marked ``writes`` and ``requires_confirmation``: the
            agent's (or run's) ``confirm`` handler must approve each call, and without one
            every write is declined.
        approve: an extra check of each concrete change, ``(FileChange) -> bool | Decision``
            (sync or async), called by the write tool after the agent's confirmation and just
            before the backend changes. It sees the normalized path and the complete new
            content (for an edit, the whole file after the replacement). A decline fails the
            step with ``Change to <path> was not approved: <reason>``. Needs write tools.
        root: a folder every tool path must lie within.
        read: ``{"max_lines": 200 (1..1000), "default_lines": min(25, max_lines)}``.
        search: ``{"max_matches": 10 (1..100), "max_files": 128 (1..1024)}`` per call.
        tools: pick tools by name instead (write tools need ``read_only=False``).

    Raises:
        ConfigError: any option out of range, unknown, or write tools on a read-only
            filesystem.
    """
    if not isinstance(read_only, bool) or not isinstance(write_tools, bool):
        raise ConfigError("read_only and write_tools must be True or False.")
    if write_tools and read_only:
        raise ConfigError(
            "write_tools=True needs read_only=False: filesystems are read-only unless writes are "
            "enabled on purpose. Call create_filesystem(..., read_only=False, write_tools=True)."
        )
    if tools is not None and write_tools:
        raise ConfigError("Pass either tools=[...] or write_tools=True, not both.")
    names = _selected(tools, read_only, write_tools)
    if approve is not None:
        if not callable(approve):
            raise ConfigError(f"approve must be a function of a FileChange, got {approve!r}.")
        if not any(name in WRITE_TOOLS for name in names):
            raise ConfigError(
                "approve checks changes made by write tools, but none are enabled; pass "
                "read_only=False, write_tools=True."
            )
    source: Any = in_memory_filesystem() if backend is None else backend
    if not _is_backend(source) and not callable(source):
        raise ConfigError(
            f"backend must be a filesystem backend (async read and list) or a function of the "
            f"ToolContext returning one; got {source!r}."
        )
    try:
        root_path = normalize_path(root)
    except ValueError as exc:
        raise ConfigError(f"root: {exc}") from None
    read_options = _options("read", read, _READ_OPTIONS)
    max_lines = _bounded("read.max_lines", read_options.get("max_lines", 200), 1, 1000)
    default_lines = _bounded(
        "read.default_lines", read_options.get("default_lines", min(25, max_lines)), 1, max_lines
    )
    search_options = _options("search", search, _SEARCH_OPTIONS)
    limits = SearchLimits(
        max_matches=_bounded("search.max_matches", search_options.get("max_matches", 10), 1, 100),
        max_files=_bounded("search.max_files", search_options.get("max_files", 128), 1, 1024),
    )
    toolkit = Toolkit(
        source=source,
        root=root_path,
        max_lines=max_lines,
        default_lines=default_lines,
        limits=limits,
        approve=approve,
    )
    return Filesystem(
        tools=[toolkit.build(name) for name in names],
        root=root_path,
        read_only=read_only,
        backend=source,
    )
