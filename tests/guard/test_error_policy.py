"""The error policy: recoverable errors go back to the model as ``{"error": ...}``, bugs
propagate, exception groups are unwrapped to their original errors first."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from pydantic import BaseModel, ValidationError

from trailcheck.environment import ToolError
from trailcheck.errors import UsageError
from trailcheck.guard import (
    CallSettings,
    ErrorPolicy,
    InvalidArgumentsError,
    Toolbox,
    answer_call,
    leaf_errors,
)
from trailcheck.trace import MessageToolCall


class OrderNotFoundError(ToolError):
    """A domain error the model can act on."""


class QuotaExceededError(Exception):
    """A service's own error, recoverable only when a policy says so."""


def group_of(*errors: Exception) -> ExceptionGroup[Exception]:
    """The group an ``asyncio.TaskGroup`` raises when its tasks raise ``errors``."""

    async def fail(error: Exception) -> None:
        await asyncio.sleep(0)
        raise error

    async def gather() -> None:
        async with asyncio.TaskGroup() as group:
            for error in errors:
                group.create_task(fail(error))

    with pytest.raises(ExceptionGroup) as raised:
        asyncio.run(gather())
    return raised.value


def test_a_domain_error_is_the_tool_result_by_its_type_and_message() -> None:
    content = ErrorPolicy().tool_result(OrderNotFoundError("no order A-9"))

    assert json.loads(content) == {"error": "OrderNotFoundError: no order A-9"}


def test_a_validation_error_raised_by_a_tool_is_one_line_per_argument() -> None:
    class Refund(BaseModel):
        amount: float

    with pytest.raises(ValidationError) as raised:
        Refund.model_validate({"amount": "lots"})

    content = ErrorPolicy().tool_result(raised.value)

    assert json.loads(content) == {
        "error": "ValidationError: amount: Input should be a valid number,"
        " unable to parse string as a number"
    }


def test_an_http_status_error_names_status_and_path_but_not_the_query() -> None:
    request = httpx.Request("GET", "https://api.example.com/v1/races/2024?api_key=SECRET")
    response = httpx.Response(404, request=request)
    error = httpx.HTTPStatusError("not found", request=request, response=response)

    content = ErrorPolicy().tool_result(error)

    assert json.loads(content) == {
        "error": "HTTPStatusError: 404 Not Found from GET https://api.example.com/v1/races/2024"
    }
    assert "SECRET" not in content


def test_a_bug_propagates_as_itself() -> None:
    error = KeyError("season")
    with pytest.raises(KeyError) as raised:
        ErrorPolicy().tool_result(error)
    assert raised.value is error


def test_a_recoverable_error_inside_a_task_group_is_unwrapped() -> None:
    group = group_of(ToolError("the service is down"))

    assert json.loads(ErrorPolicy().tool_result(group)) == {
        "error": "ToolError: the service is down"
    }


def test_a_bug_inside_a_task_group_propagates_as_the_original_error() -> None:
    group = group_of(KeyError("points"))

    with pytest.raises(KeyError, match="points") as raised:
        ErrorPolicy().tool_result(group)
    assert not isinstance(raised.value, BaseExceptionGroup)
    assert raised.value is group.exceptions[0]


def test_several_recoverable_errors_are_joined_and_a_mixed_group_propagates_whole() -> None:
    both = group_of(ToolError("round 3 missing"), OrderNotFoundError("round 4 missing"))
    mixed = group_of(ToolError("round 3 missing"), KeyError("points"))

    content = json.loads(ErrorPolicy().tool_result(both))["error"]
    assert sorted(content.split("; ")) == [
        "OrderNotFoundError: round 4 missing",
        "ToolError: round 3 missing",
    ]
    with pytest.raises(ExceptionGroup) as raised:
        ErrorPolicy().tool_result(mixed)
    assert raised.value is mixed


def test_nested_groups_are_flattened_in_order() -> None:
    first, second, third = ToolError("a"), KeyError("b"), ValueError("c")
    nested = ExceptionGroup("outer", [first, ExceptionGroup("inner", [second, third])])

    assert leaf_errors(nested) == [first, second, third]
    assert leaf_errors(first) == [first]


def test_what_is_recoverable_is_configurable_and_guard_refusals_always_are() -> None:
    policy = ErrorPolicy(recoverable=(QuotaExceededError,))

    assert json.loads(policy.tool_result(QuotaExceededError("50 calls a day"))) == {
        "error": "QuotaExceededError: 50 calls a day"
    }
    assert json.loads(policy.tool_result(InvalidArgumentsError("season: Field required"))) == {
        "error": "InvalidArguments: season: Field required"
    }
    with pytest.raises(ToolError):  # not in this policy's list: a failure of the trial
        policy.tool_result(ToolError("no order A-9"))


def test_a_policy_of_things_that_are_not_exception_types_is_refused() -> None:
    with pytest.raises(UsageError, match="is not one"):
        ErrorPolicy(recoverable=(str,))  # type: ignore[arg-type]


def test_through_a_tool_a_task_group_error_is_the_result_and_a_bug_fails_the_call() -> None:
    async def fetch(found: bool) -> str:
        """Fetches two pages concurrently."""

        async def page(number: int) -> str:
            await asyncio.sleep(0)
            if number == 2:
                if found:
                    raise ToolError("page 2 is not published yet")
                raise KeyError("results")
            return f"page {number}"

        async with asyncio.TaskGroup() as group:
            pages = [group.create_task(page(number)) for number in (1, 2)]
        return ", ".join(task.result() for task in pages)

    toolbox = Toolbox.of([fetch])

    async def answer(found: bool) -> str:
        call = MessageToolCall(id="c1", name="fetch", arguments={"found": found})
        return await answer_call(call, toolbox, CallSettings())

    assert json.loads(asyncio.run(answer(True))) == {
        "error": "ToolError: page 2 is not published yet"
    }
    with pytest.raises(KeyError, match="results"):
        asyncio.run(answer(False))
