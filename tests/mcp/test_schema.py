"""JSON Schema → flat pydantic model: what a small model can fill is converted, the rest refused."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from goliath.mcp.schema import SchemaRefused, parameters_model
from goliath.schema import compact_schema


def obj(
    properties: dict[str, Any], required: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [], **extra}


class TestFlatSchemas:
    def test_scalars_keep_types_requiredness_descriptions_and_limits(self) -> None:
        """Required fields stay required, optional ones default; descriptions and limits carry over."""
        params = parameters_model(
            "Args",
            obj(
                {
                    "title": {"type": "string", "description": "The  title.", "maxLength": 40},
                    "count": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
                    "ratio": {"type": "number"},
                    "urgent": {"type": "boolean"},
                },
                ["title"],
            ),
        )
        assert compact_schema(params.model) == {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "The title.", "maxLength": 40},
                "count": {"type": "integer", "minimum": 1, "maximum": 9},
                "ratio": {"type": "number"},
                "urgent": {"type": "boolean"},
            },
            "required": ["title"],
            "additionalProperties": False,
        }
        assert params.model.model_validate({"title": "a"}).model_dump() == {
            "title": "a",
            "count": 3,
            "ratio": None,
            "urgent": None,
        }
        with pytest.raises(pydantic.ValidationError):
            params.model.model_validate({"title": "a", "count": 10})
        with pytest.raises(pydantic.ValidationError):
            params.model.model_validate({"count": 1})

    def test_enums_consts_and_lists_of_scalars_are_flat(self) -> None:
        """enum and const become choices; a list of scalars (or of choices) is allowed."""
        params = parameters_model(
            "Args",
            obj(
                {
                    "unit": {"type": "string", "enum": ["words", "characters"]},
                    "mode": {"const": "fast"},
                    "tags": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
                    },
                    "sizes": {"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 2},
                },
                ["unit"],
            ),
        )
        model = params.model
        assert model.model_validate({"unit": "words", "sizes": [1, 3]}).model_dump()["sizes"] == [
            1,
            3,
        ]
        for bad in (
            {"unit": "pages"},
            {"unit": "words", "mode": "slow"},
            {"unit": "words", "sizes": [1, 2, 3]},
        ):
            with pytest.raises(pydantic.ValidationError):
                model.model_validate(bad)
        assert params.nullable == frozenset({"tags"})

    def test_refs_to_flat_definitions_are_inlined(self) -> None:
        """A $ref to an enum definition (what pydantic emits for Enum parameters) is resolved."""
        schema = obj(
            {"color": {"$ref": "#/$defs/Color", "description": "Pick one."}},
            ["color"],
            **{"$defs": {"Color": {"type": "string", "enum": ["red", "green"]}}},
        )
        params = parameters_model("Args", schema)
        assert compact_schema(params.model)["properties"]["color"] == {
            "type": "string",
            "enum": ["red", "green"],
            "description": "Pick one.",
        }

    def test_names_that_cannot_be_fields_keep_their_name_in_the_schema(self) -> None:
        """Names like `schema` or `user-id` get an internal field name; the model sees the real one."""
        params = parameters_model(
            "Args", obj({"schema": {"type": "string"}, "user-id": {"type": "integer"}}, ["schema"])
        )
        assert list(compact_schema(params.model)["properties"]) == ["schema", "user-id"]
        dumped = params.model.model_validate({"schema": "s", "user-id": 7}).model_dump()
        assert dumped == {"schema": "s", "user-id": 7}
        assert sorted(params.names.values()) == ["schema", "user-id"]

    def test_internal_field_names_never_collide_with_real_arguments(self) -> None:
        """An argument really called arg_0 keeps its name next to a renamed `schema`."""
        params = parameters_model(
            "Args", obj({"schema": {"type": "string"}, "arg_0": {"type": "string"}}, ["schema"])
        )
        dumped = params.model.model_validate({"schema": "s", "arg_0": "a"}).model_dump()
        assert dumped == {"schema": "s", "arg_0": "a"}

    def test_an_empty_object_means_no_arguments(self) -> None:
        """No properties: a model without fields (no arguments call is made)."""
        assert parameters_model("Args", {"type": "object"}).model.model_fields == {}


class TestRefusals:
    @pytest.mark.parametrize(
        ("schema", "reason"),
        [
            (
                obj({"style": {"type": "object", "properties": {"font": {"type": "string"}}}}),
                "argument 'style' is a nested object, 3 levels deep (at most 2)",
            ),
            (
                obj({"rows": {"type": "array", "items": {"type": "object"}}}),
                "argument 'rows' is a list of objects, 3 levels deep (at most 2)",
            ),
            (
                obj(
                    {
                        "grid": {
                            "type": "array",
                            "items": {"type": "array", "items": {"type": "integer"}},
                        }
                    }
                ),
                "argument 'grid' is a list of arrays, 3 levels deep (at most 2)",
            ),
            (
                obj({"when": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
                "argument 'when' is a union of several types",
            ),
            (
                obj({"x": {"type": ["string", "integer"]}}),
                "argument 'x' may be any of ['string', 'integer']",
            ),
            (obj({"x": {"type": "array"}}), "argument 'x' is a list without an item type"),
            (obj({"x": {"description": "anything"}}), "argument 'x' has no type"),
            (
                obj({"x": {"$ref": "#/$defs/Nope"}}),
                "it refers to '#/$defs/Nope', which is not defined",
            ),
            (
                obj(
                    {"node": {"$ref": "#/$defs/Node"}},
                    **{"$defs": {"Node": {"$ref": "#/$defs/Node"}}},
                ),
                "its schema is recursive (through 'Node')",
            ),
            (
                obj({"missing": {"type": "string"}}),
                "argument 'missing' has the name of the arguments stage's own field",
            ),
            (
                {"type": "array", "items": {"type": "string"}},
                "its input schema is a 'array', not an object",
            ),
        ],
    )
    def test_schemas_a_small_model_cannot_fill_are_refused_with_the_reason(
        self, schema: dict[str, Any], reason: str
    ) -> None:
        """Each refusal names the argument and what is wrong with it."""
        with pytest.raises(SchemaRefused) as caught:
            parameters_model("Args", schema)
        assert caught.value.reason.startswith(reason)
