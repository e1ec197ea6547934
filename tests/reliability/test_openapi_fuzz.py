"""Schemathesis against a real daemon process: generated valid and invalid requests for every
operation of the OpenAPI document never get a 5xx, and every response matches the document.

Longer run: ``GOLIATH_FUZZ_EXAMPLES=1000 pytest tests/reliability/test_openapi_fuzz.py``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import unsupported_method

from transports.openapi import openapi_document

from .conftest import ROOT, TOKEN

pytestmark = pytest.mark.slow
EXAMPLES = int(os.environ.get("GOLIATH_FUZZ_EXAMPLES", "40"))

# A request that breaks the document may also be refused 413: an ask over its maxLength.
REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
schema = schemathesis.openapi.from_dict(
    openapi_document(),
    config=schemathesis.Config.from_dict(
        {
            "auth": {"openapi": {"bearer": {"bearer": TOKEN}}},
            "checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}},
        }
    ),
)


@pytest.fixture(scope="module")
def daemon_url() -> Iterator[str]:
    """``goliath serve`` on 127.0.0.1 with the scripted reliability agent."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "goliath.cli",
            "serve",
            "tests.reliability.app:make_agent",
            "--port",
            "0",
            "--token",
            TOKEN,
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stderr is not None
    buffer = b""
    while (match := re.search(rb"serving on (http://[\d.]+:\d+)", buffer)) is None:
        line = process.stderr.readline()
        if not line:
            raise AssertionError(f"the daemon exited early: {buffer.decode()}")
        buffer += line
    try:
        yield match.group(1).decode()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        tail = process.stderr.read().decode(errors="replace")
        assert "Traceback" not in tail, tail


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_request_gets_a_server_error_and_every_answer_matches_the_document(
    case: schemathesis.Case, daemon_url: str
) -> None:
    """Any generated request (valid or not) is answered per the document, never with a 5xx.

    Every check runs but ``unsupported_method``: an undeclared method gets 401 before the token
    is checked (the check schemathesis makes is without it), 405 with ``Allow`` after.
    """
    case.call_and_validate(base_url=daemon_url, timeout=30, excluded_checks=[unsupported_method])
