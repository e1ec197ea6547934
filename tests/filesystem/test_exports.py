"""The public surface of goliath.filesystem."""

from __future__ import annotations

import goliath.filesystem as filesystem


def test_the_api_names_are_exported() -> None:
    """The documented names and the backend protocol are importable from goliath.filesystem."""
    required = {
        "create_filesystem",
        "Filesystem",
        "static_filesystem",
        "in_memory_filesystem",
        "sqlite_filesystem",
        "composite_filesystem",
        "FilesystemBackend",
    }
    assert required <= set(filesystem.__all__)


def test_every_exported_name_exists_and_public_classes_say_goliath_filesystem() -> None:
    """__all__ matches the module, and tracebacks name goliath.filesystem classes plainly."""
    for name in filesystem.__all__:
        value = getattr(filesystem, name)
        if isinstance(value, type):
            assert value.__module__ == "goliath.filesystem", name
