"""An app for `goliath serve` whose agent has a write tool and no confirm handler, and whose
construction logs a third party's INFO line (tests/goliath/test_cli_output.py)."""

from __future__ import annotations

import logging

from goliath import Agent, tool
from goliath.testing import TestModel


@tool(writes=True)
def add_task(title: str) -> str:
    """Add a task."""
    return title


def make_agent() -> Agent:
    logging.getLogger("thirdparty.pool").info("thirdparty opened a pool")
    logging.getLogger("goliath.app").info("goliath app built")
    return Agent(TestModel(), tools=[add_task])
