"""The six filesystem tools, built for one configuration.

Read tools (``glob``, ``grep``, ``read_file``) are content-mode tools: their results are
literal excerpts fitted to ``ToolContext.result_budget``. Write tools (``write_file``,
``edit_file``, ``delete_file``) are marked ``writes`` and ``requires_confirmation``, and change
a file only through a compare-and-swap on its revision, so a write never silently replaces a
version newer than the one the model saw.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import pydantic

from .._util import maybe_await
from ..records import Decision
from ..tools import Tool, ToolContext
from .arguments import (
    DeleteFileArgs,
    EditFileArgs,
    GlobArgs,
    GrepArgs,
    WriteFileArgs,
    parse_arguments,
    read_args_model,
)
from .errors import (
    FileMissingError,
    InvalidArgumentError,
    InvalidPathError,
    NotApprovedError,
    ReadOnlyError,
)
from .paths import check_content, clip_path, file_path, normalize_path, within
from .reading import read_page
from .refusals import changed
from .render import render_json, render_read, render_search
from .search import SearchLimits, search
from .types import FilesystemBackend

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "ApproveHandler", "FileChange", "Toolkit"]

READ_TOOLS = ("glob", "grep", "read_file")
WRITE_TOOLS = ("write_file", "edit_file", "delete_file")


@attrs.frozen(kw_only=True)
class FileChange:
    """A change a write tool is about to make, as the ``approve`` handler sees it.

    Attributes:
        tool: ``"write_file"``, ``"edit_file"`` or ``"delete_file"``.
        path: the normalized path that will change.
        revision: the revision being replaced or deleted; ``None`` when a file is created.
        content: the complete new content (for an edit, the file after the replacement);
            ``None`` for a delete.
        conversation_id: the conversation whose turn asks for the change.
        context: the run's application context.
    """

    tool: str
    path: str
    revision: str | None
    content: str | None
    conversation_id: str | None = None
    context: Any = None


ApproveHandler = Callable[[FileChange], "bool | Decision | Awaitable[bool | Decision]"]


def _is_backend(value: object) -> bool:
    return callable(getattr(value, "read", None)) and callable(getattr(value, "list", None))


def _occurrences(text: str, needle: str) -> int:
    """0, 1 or 2 (meaning "more than one"), counting overlapping occurrences."""
    first = text.find(needle)
    if first < 0:
        return 0
    return 1 if text.find(needle, first + 1) < 0 else 2


@attrs.frozen(kw_only=True)
class Toolkit:
    """One filesystem configuration and the executes of its tools."""

    source: Any
    root: str
    max_lines: int
    default_lines: int
    limits: SearchLimits
    approve: ApproveHandler | None = None

    # ------------------------------------------------------------ shared helpers

    async def backend(self, ctx: ToolContext) -> FilesystemBackend:
        """The backend for this call: the fixed one, or the function's answer for ``ctx``."""
        if _is_backend(self.source):
            return self.source  # type: ignore[no-any-return]
        backend = await maybe_await(self.source(ctx))
        if not _is_backend(backend):
            raise TypeError(
                f"The filesystem's backend function returned {backend!r}; it must return a "
                "backend (something with async read and list)"
            )
        return backend  # type: ignore[no-any-return]

    def path(self, value: object, *, file: bool = True) -> str:
        """A normalized path inside the configured root."""
        key = file_path(value) if file else normalize_path(value)
        if not within(key, self.root):
            raise InvalidPathError(
                f"Path {clip_path(key)} is outside this filesystem's root {clip_path(self.root)}"
            )
        return key

    async def writable(self, ctx: ToolContext) -> Any:
        backend = await self.backend(ctx)
        if (
            getattr(backend, "read_only", False)
            or not callable(getattr(backend, "write", None))
            or not callable(getattr(backend, "remove", None))
        ):
            raise ReadOnlyError("Read-only filesystem")
        return backend

    async def check_approved(self, change: FileChange) -> None:
        if self.approve is None:
            return
        raw = await maybe_await(self.approve(change))
        if isinstance(raw, Decision):
            approved, reason = raw.approved, raw.reason
        elif isinstance(raw, bool):
            approved, reason = raw, None
        else:
            raise TypeError(
                f"The filesystem's approve handler returned {raw!r}; it must return True/False "
                "or goliath.Decision(approved, reason)"
            )
        if not approved:
            because = f": {reason}" if reason else ""
            raise NotApprovedError(
                f"Change to {clip_path(change.path)} was not approved{because}. Do not retry "
                "unless asked"
            )

    # ------------------------------------------------------------ read tools

    async def glob(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        parsed = parse_arguments(GlobArgs, args)
        return await search(
            await self.backend(ctx),
            kind="glob",
            root=self.root,
            pattern=parsed.pattern,
            ignore_case=False,
            cursor=parsed.cursor,
            limits=self.limits,
            budget=ctx.result_budget,
        )

    async def grep(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        parsed = parse_arguments(GrepArgs, args)
        given = parsed.path is not None and parsed.path.strip() not in ("", "/")
        root = self.path(parsed.path, file=False) if given else self.root
        return await search(
            await self.backend(ctx),
            kind="grep",
            root=root,
            pattern=parsed.pattern,
            ignore_case=True if parsed.ignore_case is None else parsed.ignore_case,
            cursor=parsed.cursor,
            limits=self.limits,
            budget=ctx.result_budget,
            require_files=given,
        )

    def read_file(
        self, model: type[pydantic.BaseModel]
    ) -> Callable[[dict[str, Any], ToolContext], Awaitable[dict[str, Any]]]:
        """The ``read_file`` execute, validating with this filesystem's ``model``."""

        async def read_file(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
            parsed = parse_arguments(model, args)
            key = self.path(parsed.path)
            if parsed.cursor and parsed.offset is not None:
                raise InvalidArgumentError(
                    "Use offset or cursor, not both: the cursor already says where to continue"
                )
            backend = await self.backend(ctx)
            try:
                entry = await backend.read(key)
            except FileMissingError:
                if (await backend.list(key, limit=1)).files:
                    raise FileMissingError(
                        f"{clip_path(key)} is a folder, not a file; use glob with "
                        f"{clip_path(key)}/* to see what it holds"
                    ) from None
                raise
            return await read_page(
                entry,
                offset=parsed.offset,
                limit=parsed.limit or self.default_lines,
                cursor=parsed.cursor,
                budget=ctx.result_budget,
            )

        return read_file

    # ------------------------------------------------------------ write tools

    async def write_file(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        parsed = parse_arguments(WriteFileArgs, args)
        key = self.path(parsed.path)
        check_content(parsed.content, key)
        revision = parsed.revision.strip() if parsed.revision and parsed.revision.strip() else None
        backend = await self.writable(ctx)
        await self.check_approved(
            FileChange(
                tool="write_file",
                path=key,
                revision=revision,
                content=parsed.content,
                conversation_id=ctx.conversation_id,
                context=ctx.context,
            )
        )
        info = await backend.write(key, parsed.content, expected_revision=revision)
        return {"path": info.path, "revision": info.revision}

    async def edit_file(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        parsed = parse_arguments(EditFileArgs, args)
        key = self.path(parsed.path)
        backend = await self.writable(ctx)
        entry = await backend.read(key)
        if entry.revision != parsed.revision:
            raise changed(key, parsed.revision)
        count = _occurrences(entry.content, parsed.old_text)
        if count == 0:
            raise InvalidArgumentError(
                f"old_text was not found in {clip_path(key)}; read the file and copy the exact text"
            )
        if count > 1:
            raise InvalidArgumentError(
                f"old_text occurs more than once in {clip_path(key)}; include more of the "
                "surrounding text so it matches exactly once"
            )
        content = entry.content.replace(parsed.old_text, parsed.new_text, 1)
        check_content(content, key)
        await self.check_approved(
            FileChange(
                tool="edit_file",
                path=key,
                revision=entry.revision,
                content=content,
                conversation_id=ctx.conversation_id,
                context=ctx.context,
            )
        )
        info = await backend.write(key, content, expected_revision=entry.revision)
        return {"path": info.path, "revision": info.revision}

    async def delete_file(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        parsed = parse_arguments(DeleteFileArgs, args)
        key = self.path(parsed.path)
        backend = await self.writable(ctx)
        await self.check_approved(
            FileChange(
                tool="delete_file",
                path=key,
                revision=parsed.revision,
                content=None,
                conversation_id=ctx.conversation_id,
                context=ctx.context,
            )
        )
        await backend.remove(key, expected_revision=parsed.revision)
        return {"path": key, "deleted": True}

    # ------------------------------------------------------------ the Tool objects

    def build(self, name: str) -> Tool:
        """The :class:`~goliath.Tool` called ``name``."""
        lines = f"{self.default_lines} lines by default, at most {self.max_lines}"
        if name == "glob":
            return Tool(
                "glob",
                "Find file paths matching an absolute pattern: * matches within a name, "
                "** across folders.",
                GlobArgs,
                self.glob,
                output_mode="content",
                to_model_output=render_search,
            )
        if name == "grep":
            return Tool(
                "grep",
                "Find lines containing literal text in files; returns matches and a cursor to "
                "continue.",
                GrepArgs,
                self.grep,
                output_mode="content",
                to_model_output=render_search,
            )
        if name == "read_file":
            model = read_args_model(self.max_lines, self.default_lines)
            return Tool(
                "read_file",
                f"Read lines of a file ({lines}); use next_cursor to continue and revision "
                "to edit.",
                model,
                self.read_file(model),
                output_mode="content",
                to_model_output=render_read,
            )
        writes: dict[str, tuple[str, type[pydantic.BaseModel], Any]] = {
            "write_file": (
                "Create a file, or replace one given its current revision from read_file.",
                WriteFileArgs,
                self.write_file,
            ),
            "edit_file": (
                "Replace one exact text occurrence in a file, given its current revision.",
                EditFileArgs,
                self.edit_file,
            ),
            "delete_file": (
                "Delete one file given its current revision; never deletes folders.",
                DeleteFileArgs,
                self.delete_file,
            ),
        }
        description, parameters, execute = writes[name]
        return Tool(
            name,
            description,
            parameters,
            execute,
            writes=True,
            requires_confirmation=True,
            to_model_output=render_json,
        )
