"""Griffe extension: show Sphinx cross-reference roles of the docstrings as inline code.

The code's docstrings use ``:class:`~goliath.errors.ConfigError``` style references, which
Markdown would print verbatim; the API reference shows them as ``ConfigError`` instead.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|mod|exc|data|obj):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    def code(match: re.Match[str]) -> str:
        target = match.group(2)
        return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"

    return ROLE.sub(code, text)


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
