"""Tool declarations from typed functions: schema from pydantic, description from the docstring."""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from trailcheck.capture import Recorder
from trailcheck.errors import UsageError
from trailcheck.models import declare_tool, declare_tools, tool_schema


class Address(BaseModel):
    street: str
    city: str


def lookup_order(
    order_id: Annotated[str, Field(description="The order's id, like A-1001", pattern=r"^A-\d+$")],
    include_items: bool = False,
    copy: Annotated[int, Field(ge=1, le=5)] = 1,
) -> dict[str, Any]:
    """Look up an order by its id.

    Use it before any change to an order:
        its status decides what is allowed.
    """
    return {"order_id": order_id, "items": include_items, "copy": copy}


class Client:
    """Not a JSON value: no schema."""


class Shop:
    """A shop with tools as methods."""

    def reschedule(
        self, order_id: str, when: Literal["morning", "evening"], to: Address | None = None
    ) -> str:
        """Move a delivery."""
        return f"{order_id} {when} {to}"


def test_schema_descriptions_constraints_defaults_and_required() -> None:
    declaration = declare_tool(lookup_order)
    assert declaration.name == "lookup_order"
    assert declaration.description == (
        "Look up an order by its id.\n\n"
        "Use it before any change to an order:\n    its status decides what is allowed."
    )
    assert declaration.parameters == {
        "type": "object",
        "properties": {
            "order_id": {
                "type": "string",
                "description": "The order's id, like A-1001",
                "pattern": r"^A-\d+$",
            },
            "include_items": {"type": "boolean", "default": False},
            # A parameter named like a BaseModel attribute is fine: no model is made from it.
            "copy": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1},
        },
        "required": ["order_id"],
        "additionalProperties": False,
    }


def test_bound_methods_and_class_functions_skip_self() -> None:
    bound = declare_tool(Shop().reschedule)
    from_class = declare_tool(Shop.reschedule)
    assert bound == from_class
    assert bound.description == "Move a delivery."
    properties = bound.parameters["properties"]
    assert list(properties) == ["order_id", "when", "to"]
    assert properties["when"] == {"type": "string", "enum": ["morning", "evening"]}
    assert properties["to"]["anyOf"][0] == {"$ref": "#/$defs/Address"}
    assert bound.parameters["$defs"]["Address"]["required"] == ["street", "city"]
    assert bound.parameters["required"] == ["order_id", "when"]


def test_a_tool_wrapped_by_the_recorder_declares_as_the_function_it_wraps() -> None:
    recorder = Recorder()
    assert declare_tool(recorder.tool(lookup_order)) == declare_tool(lookup_order)
    assert declare_tool(recorder.tool(Shop().reschedule)) == declare_tool(Shop().reschedule)

    @functools.wraps(lookup_order)
    def logged(*args: Any, **kwargs: Any) -> Any:
        return lookup_order(*args, **kwargs)

    assert declare_tool(logged) == declare_tool(lookup_order)


def test_callable_objects_partials_and_var_arguments() -> None:
    class Ping:
        """Check the service is up."""

        def __call__(self, target: str, *extra: str, **labels: int) -> bool:
            return True

    declaration = declare_tool(Ping(), name="ping")
    assert declaration.description == "Check the service is up."
    assert declaration.parameters["properties"] == {"target": {"type": "string"}}
    # **labels accepts more arguments, of its type; *extra is left out.
    assert declaration.parameters["additionalProperties"] == {"type": "integer"}

    partial = functools.partial(lookup_order, include_items=True)
    assert declare_tool(partial, name="lookup").parameters["properties"]["include_items"] == {
        "type": "boolean",
        "default": True,
    }


def test_an_unannotated_parameter_accepts_anything() -> None:
    def note(text, urgent=False):  # type: ignore[no-untyped-def]
        """Take a note."""

    assert declare_tool(note).parameters["properties"] == {"text": {}, "urgent": {"default": False}}


def test_declarations_that_cannot_work_are_usage_errors() -> None:
    def positional(order_id: str, /) -> None: ...

    def with_client(client: Client) -> None: ...

    class Local:
        pass

    def with_local(value: Local) -> None: ...

    with pytest.raises(UsageError, match="positional-only"):
        declare_tool(positional)
    with pytest.raises(UsageError, match=r"'with_client': its parameters have no JSON schema"):
        declare_tool(with_client)
    with pytest.raises(UsageError, match=r"'with_local': its annotations cannot be resolved"):
        declare_tool(with_local)
    with pytest.raises(UsageError, match="not a valid tool name"):
        declare_tool(lookup_order, name="shop.lookup order")
    with pytest.raises(UsageError, match="not a valid tool name"):
        declare_tool(functools.partial(lookup_order))


def test_declare_tools_keeps_order_and_refuses_duplicate_names() -> None:
    def refund(order_id: str) -> None:
        """Refund."""

    assert [d.name for d in declare_tools([lookup_order, refund])] == ["lookup_order", "refund"]
    recorder = Recorder()
    with pytest.raises(UsageError, match="two tools are named 'lookup_order'"):
        declare_tools([lookup_order, recorder.tool(lookup_order)])


def test_the_schema_validates_and_converts_arguments() -> None:
    schema = tool_schema(Shop().reschedule)
    validated = schema.validate(
        {"order_id": "A-1", "when": "evening", "to": {"street": "Main", "city": "X"}}
    )
    assert validated == {
        "order_id": "A-1",
        "when": "evening",
        "to": Address(street="Main", city="X"),
    }
    with pytest.raises(ValidationError) as caught:
        schema.validate({"when": "noon", "colour": "red"})
    problems = {(error["loc"], error["type"]) for error in caught.value.errors()}
    assert problems == {
        (("order_id",), "missing_argument"),
        (("when",), "literal_error"),
        (("colour",), "unexpected_keyword_argument"),
    }
