"""The agent of ``benchmarks/probes.py``: the daemon tests' agent, plus replies that are hard to send.

Asks, besides those of ``tests/transports/daemon_app.py`` (``add X``, ``log X``, ``wait``):
``huge`` runs a tool returning 10 MiB of text, ``wei`` one returning an integer over 2^64.
``GOLIATH_CONFIRM_TIMEOUT`` (seconds) sets ``confirm_timeout``; ``GOLIATH_WRITES_FILE``
counts writes across processes, as in the daemon tests.
"""

from __future__ import annotations

import os
from typing import Any

from goliath import Agent, tool
from goliath.models import GenerateRequest
from goliath.testing import FakeModel
from tests.transports.daemon_app import make_agent as make_daemon_agent
from tests.transports.daemon_app import scripted_reply

HUGE_BYTES = 10 * 2**20


def probe_reply(request: GenerateRequest) -> dict[str, Any]:
    ask = request.prompt.rsplit("Ask: ", 1)[-1].split("\n", 1)[0]
    if request.label == "conductor":
        if ask.startswith("huge") and "huge_report(" not in request.prompt:
            return {"json": {"call": "huge_report"}}
        if ask.startswith("wei") and "balance(" not in request.prompt:
            return {"json": {"call": "balance"}}
    return scripted_reply(request)


def make_agent() -> Agent:
    @tool
    def huge_report() -> str:
        """Return the full report."""
        return "x" * HUGE_BYTES

    @tool
    def balance() -> dict[str, int]:
        """Return the balance in wei."""
        return {"wei": 2**70}

    base = make_daemon_agent()
    timeout = os.environ.get("GOLIATH_CONFIRM_TIMEOUT")
    return base.with_options(
        model=FakeModel(probe_reply),
        tools=[*base.tools.values(), huge_report, balance],
        confirm_timeout=float(timeout) if timeout else base.config.confirm_timeout,
    )
