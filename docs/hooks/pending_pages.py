"""MkDocs hook: a page still being written on another branch gets a placeholder until it lands.

The navigation and the links of the finished pages already name these pages; without the
placeholder ``mkdocs build --strict`` would fail on every branch that does not have them yet.
A page that exists is never replaced. Remove an entry once its page is merged.
"""

from __future__ import annotations

import logging
from typing import Any

from mkdocs.structure.files import File, Files

PENDING: dict[str, str] = {}
log = logging.getLogger("mkdocs.hooks.pending_pages")


def on_files(files: Files, config: Any) -> Files:
    for name, title in PENDING.items():
        if files.get_file_from_path(name) is None:
            log.info("%s is not written yet: a placeholder stands in for it", name)
            content = f"# {title}\n\nThis page is being written.\n"
            files.append(File.generated(config, name, content=content))
    return files
