"""The bridges' string cap: each request's own, or one int for every call; never per stage."""

from __future__ import annotations

from typing import Any

import pytest
from bridge_helpers import PLAN

from goliath.errors import ConfigError
from goliath.models import GenerateRequest
from goliath.models.openai import OpenAICompatibleModel


def _request(**fields: Any) -> GenerateRequest:
    values: dict[str, Any] = {"label": "anything", "system": "s", "prompt": "p", "schema": PLAN}
    values.update(fields)
    return GenerateRequest(**values)


def _brief_cap(model: OpenAICompatibleModel, request: GenerateRequest) -> Any:
    return model.body(request)["response_format"]["schema"]["properties"]["brief"].get("maxLength")


def test_a_free_string_gets_the_requests_cap_whatever_its_label() -> None:
    """The label is a name for traces: two requests differing only in it get the same bound."""
    model = OpenAICompatibleModel("http://127.0.0.1:1/v1", "m")
    assert _brief_cap(model, _request(label="conductor", max_string_length=37)) == 37
    assert _brief_cap(model, _request(label="scribe", max_string_length=37)) == 37
    assert _brief_cap(model, _request(max_string_length=1000)) == 1000


def test_the_bridge_option_overrides_every_requests_cap() -> None:
    """``max_string_length=N`` bounds every call at N; ``0`` adds no bound at all."""
    capped = OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", max_string_length=12)
    assert _brief_cap(capped, _request(max_string_length=1000)) == 12
    unbounded = OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", max_string_length=0)
    assert _brief_cap(unbounded, _request(max_string_length=1000)) is None


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"conductor": 50}, "not a mapping by stage"),
        (-1, "must be an int ≥ 0"),
        (True, "must be an int ≥ 0"),
        ("200", "must be an int ≥ 0"),
    ],
)
def test_a_per_stage_mapping_or_a_bad_cap_is_refused_at_construction(
    option: Any, message: str
) -> None:
    """The old mapping keyed by stage names, and anything but an int ≥ 0, is a ConfigError
    that says what the option is now."""
    with pytest.raises(ConfigError, match=message):
        OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", max_string_length=option)
