"""Mount several backends under path prefixes: shipped docs read-only, a scratch folder writable.

The longest matching prefix handles a path; the prefix is stripped on the way in and restored
on the way out, so a backend mounted at ``/notes`` stores ``/a.md`` for ``/notes/a.md``.
Listings merge every mount in global path order and hide a mount's files that a more specific
route shadows. Changes to a read-only route (or to a backend without ``write``/``remove``) fail
with ``Read-only route: <prefix>``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs
import trio

from ...errors import ConfigError
from ..errors import FileMissingError, FilesystemError, ReadOnlyError
from ..paths import DEFAULT_PAGE, MAX_PAGE, clip_path, file_path, normalize_path, page_limit, within
from ..types import FileEntry, FileInfo, FileListing, FilesystemBackend

__all__ = ["CompositeFilesystem", "composite_filesystem"]

_ROUTE_OPTIONS = {"read_only"}


@attrs.frozen
class Mount:
    """One route: where it is mounted, what serves it, and whether it may change."""

    prefix: str
    backend: FilesystemBackend
    read_only: bool

    def local(self, path: str) -> str:
        """The path as the mounted backend names it."""
        return path if self.prefix == "/" else path[len(self.prefix) :] or "/"

    def external(self, path: str) -> str:
        """The path as callers of the composite name it."""
        if self.prefix == "/":
            return path
        return self.prefix if path == "/" else self.prefix + path


def _is_backend(value: object) -> bool:
    return callable(getattr(value, "read", None)) and callable(getattr(value, "list", None))


def _mount(raw_prefix: object, route: object) -> Mount:
    try:
        prefix = normalize_path(raw_prefix)
    except ValueError as exc:
        raise ConfigError(f"Route {raw_prefix!r}: {exc}") from None
    options: Mapping[str, Any] = {}
    backend = route
    if isinstance(route, tuple):
        if len(route) != 2 or not isinstance(route[1], Mapping):
            raise ConfigError(
                f"Route {prefix}: give a backend, or (backend, {{'read_only': True}}); got {route!r}."
            )
        backend, options = route
        unknown = set(options) - _ROUTE_OPTIONS
        if unknown:
            raise ConfigError(
                f"Route {prefix}: unknown option(s) {sorted(unknown)}; the only option is "
                "'read_only'."
            )
    if not _is_backend(backend):
        raise ConfigError(
            f"Route {prefix}: {backend!r} is not a filesystem backend (it needs async read and "
            "list methods)."
        )
    read_only = (
        bool(options.get("read_only", False))
        or bool(getattr(backend, "read_only", False))
        or not callable(getattr(backend, "write", None))
        or not callable(getattr(backend, "remove", None))
    )
    return Mount(prefix=prefix, backend=backend, read_only=read_only)  # type: ignore[arg-type]


@contextlib.contextmanager
def _external_paths(mount: Mount, key: str) -> Iterator[None]:
    """Re-word a mounted backend's refusal with the path the caller used, not the local one."""
    try:
        yield
    except FilesystemError as exc:
        local = mount.local(key)
        if local == key:
            raise
        text = str(exc).replace(clip_path(local), clip_path(key), 1)
        try:
            reworded = type(exc)(text)
        except Exception:  # a backend's own error class with another signature
            raise exc from None
        raise reworded from exc


class CompositeFilesystem:
    """Backends mounted under prefixes. Create with :func:`composite_filesystem`."""

    def __init__(self, routes: Mapping[str, Any]) -> None:
        if not isinstance(routes, Mapping) or not routes:
            raise ConfigError(
                "composite_filesystem needs a non-empty mapping of prefix to backend, like "
                "{'/': in_memory_filesystem(), '/docs': (static_filesystem(docs), "
                "{'read_only': True})}."
            )
        mounts: dict[str, Mount] = {}
        for raw_prefix, route in routes.items():
            mount = _mount(raw_prefix, route)
            if mount.prefix in mounts:
                raise ConfigError(f"Two routes are mounted at {mount.prefix}; keep one of them.")
            mounts[mount.prefix] = mount
        # Longest prefix first, so the first mount containing a path is the one that serves it.
        self.mounts: Sequence[Mount] = sorted(
            mounts.values(), key=lambda m: len(m.prefix), reverse=True
        )
        self.read_only = all(mount.read_only for mount in self.mounts)

    def route(self, path: str) -> Mount | None:
        """The mount that serves a normalized path (longest prefix), or None."""
        for mount in self.mounts:
            if within(path, mount.prefix):
                return mount
        return None

    def _serving(self, path: str) -> Mount:
        mount = self.route(path)
        if mount is None:
            prefixes = ", ".join(sorted(m.prefix for m in self.mounts))
            raise FileMissingError(f"No route holds {clip_path(path)}; files live under {prefixes}")
        return mount

    async def read(self, path: str) -> FileEntry:
        key = file_path(path)
        mount = self._serving(key)
        with _external_paths(mount, key):
            entry = await mount.backend.read(mount.local(key))
        return FileEntry(path=key, revision=entry.revision, content=entry.content)

    async def list(
        self, directory: str = "/", *, after: str | None = None, limit: int = DEFAULT_PAGE
    ) -> FileListing:
        root = normalize_path(directory)
        size = page_limit(limit)
        candidates: list[FileInfo] = []
        for mount in self.mounts:
            if within(root, mount.prefix):
                folder = mount.local(root)
            elif within(mount.prefix, root):
                folder = "/"
            else:
                continue
            if after is not None and within(after, mount.prefix):
                local_after: str | None = mount.local(after)
            elif after is not None and after > mount.prefix + "/":
                continue  # every path under prefix + "/" sorts before `after`
            else:
                local_after = None
            candidates += await self._collect(mount, folder, local_after, root, after, size)
        candidates.sort(key=lambda info: info.path)
        files = candidates[:size]
        return FileListing(files=files, next=files[-1].path if len(candidates) > size else None)

    async def _collect(
        self,
        mount: Mount,
        folder: str,
        local_after: str | None,
        root: str,
        after: str | None,
        size: int,
    ) -> Sequence[FileInfo]:
        """Up to ``size + 1`` visible files of one mount, skipping those another route shadows."""
        found: list[FileInfo] = []
        while True:
            page = await mount.backend.list(
                folder, after=local_after, limit=min(MAX_PAGE, size + 1)
            )
            for info in page.files:
                key = mount.external(file_path(info.path))
                if self.route(key) is not mount or not within(key, root):
                    continue
                if after is not None and key <= after:
                    continue
                found.append(FileInfo(key, info.revision))
            if page.next is None or len(found) > size:
                return found
            if local_after is not None and page.next <= local_after:
                raise RuntimeError(
                    f"The backend mounted at {mount.prefix} returned a listing cursor that did "
                    "not advance; its list() must return pages in path order."
                )
            local_after = page.next
            await trio.lowlevel.checkpoint()

    async def write(self, path: str, content: str, *, expected_revision: str | None) -> FileInfo:
        key = file_path(path)
        mount = self._writable(key)
        with _external_paths(mount, key):
            info = await mount.backend.write(  # type: ignore[attr-defined]
                mount.local(key), content, expected_revision=expected_revision
            )
        return FileInfo(key, info.revision)

    async def remove(self, path: str, *, expected_revision: str) -> None:
        key = file_path(path)
        mount = self._writable(key)
        with _external_paths(mount, key):
            await mount.backend.remove(  # type: ignore[attr-defined]
                mount.local(key), expected_revision=expected_revision
            )

    def _writable(self, key: str) -> Mount:
        mount = self._serving(key)
        if mount.read_only:
            raise ReadOnlyError(f"Read-only route: {mount.prefix}")
        return mount

    def __repr__(self) -> str:
        routes = ", ".join(
            f"{m.prefix!r}: {m.backend!r}{' (read-only)' if m.read_only else ''}"
            for m in sorted(self.mounts, key=lambda m: m.prefix)
        )
        return f"CompositeFilesystem({{{routes}}})"


def composite_filesystem(routes: Mapping[str, Any]) -> CompositeFilesystem:
    """Mount backends under path prefixes; the longest matching prefix serves a path.

    Args:
        routes: ``{prefix: backend}`` or ``{prefix: (backend, {"read_only": True})}``. A backend
            that is itself read-only (``static_filesystem``, or one created with
            ``read_only=True``) makes its route read-only too. Without a ``"/"`` route, paths
            outside every prefix do not exist.

    Raises:
        ConfigError: no routes, a bad prefix or option, or two routes at one prefix.
    """
    return CompositeFilesystem(routes)
