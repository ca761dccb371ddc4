"""Tool contracts: schema and description from the signature, validation before the call,
cross-field rules, bound methods, and the rate-limited wrapper."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from pydantic import Field

from trailcheck.errors import UsageError
from trailcheck.guard import (
    RAW_ARGUMENTS_KEY,
    InvalidArgumentsError,
    as_tool,
    as_tools,
    rate_limited,
    requires_at_most_one,
    requires_exactly_one,
)
from trailcheck.rate_limit import RateLimiter


class F1Client:
    """Stands in for the HTTP client the tools' class is given."""

    def __init__(self) -> None:
        self.requests: list[tuple[int, int | None, str | None]] = []

    def race(self, season: int, round: int | None, circuit_id: str | None) -> dict[str, Any]:
        self.requests.append((season, round, circuit_id))
        return {"race": f"{season} {round or circuit_id}", "winner": "Verstappen"}


class PitWall:
    def __init__(self, client: F1Client) -> None:
        self.client = client

    @requires_exactly_one("round", "circuit_id")
    def race_result(
        self,
        season: Annotated[int, Field(description="The season, e.g. 2024.", ge=1950)],
        round: Annotated[int | None, Field(description="The round number.", ge=1)] = None,
        circuit_id: Annotated[str | None, Field(pattern=r"^[a-z_]+$")] = None,
    ) -> dict[str, Any]:
        """The classification of one race. Use it for who won.

        Returns ``{race, winner}``."""
        return self.client.race(season, round, circuit_id)

    @requires_at_most_one("driver", "team")
    async def standings(
        self, season: int, driver: str | None = None, team: str | None = None
    ) -> str:
        """Championship standings, for one driver or team at most."""
        await asyncio.sleep(0)
        return f"{season} {driver or team or 'all'}"


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_the_schema_carries_descriptions_and_constraints_and_the_docstring_describes() -> None:
    tool = as_tool(PitWall(F1Client()).race_result)

    assert tool.name == "race_result"
    assert tool.parameters == {
        "type": "object",
        "additionalProperties": False,
        "required": ["season"],
        "properties": {
            "season": {"type": "integer", "minimum": 1950, "description": "The season, e.g. 2024."},
            "round": {
                "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                "default": None,
                "description": "The round number.",
            },
            "circuit_id": {
                "anyOf": [{"type": "string", "pattern": "^[a-z_]+$"}, {"type": "null"}],
                "default": None,
            },
        },
    }
    assert tool.description == (
        "The classification of one race. Use it for who won.\n\n"
        "Returns ``{race, winner}``.\n\n"
        "Arguments: provide exactly one of round or circuit_id."
    )


def test_a_bound_method_runs_with_the_client_its_object_was_given() -> None:
    client = F1Client()
    tool = as_tool(PitWall(client).race_result)

    result = run(tool.run({"season": "2024", "round": "3"}))

    assert result == {"race": "2024 3", "winner": "Verstappen"}
    assert client.requests == [(2024, 3, None)]  # converted to the declared types


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"season": 2024}, "provide exactly one of round or circuit_id (got none of them)"),
        (
            {"season": 2024, "round": 3, "circuit_id": "monza"},
            "provide exactly one of round or circuit_id (got round and circuit_id)",
        ),
        (
            {"season": 1900, "round": 0},
            "season: Input should be greater than or equal to 1950;"
            " round: Input should be greater than or equal to 1",
        ),
        ({"season": 2024, "circuit_id": "Monza!"}, "circuit_id: String should match pattern"),
        ({"season": 2024, "round": 1, "lap": 3}, "lap: Unexpected keyword argument"),
        ({"round": 1}, "season: Missing required argument"),
        (
            {RAW_ARGUMENTS_KEY: "{season: 2024"},
            "the arguments are not a JSON object: {season: 2024",
        ),
    ],
)
def test_what_breaks_the_contract_is_refused_for_the_model_and_the_tool_does_not_run(
    arguments: dict[str, Any], message: str
) -> None:
    client = F1Client()
    tool = as_tool(PitWall(client).race_result)

    with pytest.raises(InvalidArgumentsError) as raised:
        run(tool.run(arguments))

    assert str(raised.value).startswith(message)
    assert raised.value.kind == "InvalidArguments"
    assert client.requests == []


def test_a_null_argument_counts_as_not_given() -> None:
    client = F1Client()
    tool = as_tool(PitWall(client).race_result)

    assert run(tool.run({"season": 2024, "round": None, "circuit_id": "monza"}))["race"] == (
        "2024 monza"
    )
    assert client.requests == [(2024, None, "monza")]


def test_at_most_one_allows_none_or_one_and_refuses_two() -> None:
    tool = as_tool(PitWall(F1Client()).standings)

    assert run(tool.run({"season": 2024})) == "2024 all"
    assert run(tool.run({"season": 2024, "team": "ferrari"})) == "2024 ferrari"
    with pytest.raises(
        InvalidArgumentsError,
        match=r"^provide at most one of driver or team \(got driver and team\)$",
    ):
        run(tool.run({"season": 2024, "driver": "lec", "team": "ferrari"}))
    assert tool.description.endswith("Arguments: provide at most one of driver or team.")


def test_rate_limited_keeps_the_contract_and_takes_a_token_per_call() -> None:
    limiter = RateLimiter(1000, burst=10)
    client = F1Client()
    tool = as_tool(rate_limited(PitWall(client).race_result, limiter))

    assert tool.name == "race_result"
    assert tool.parameters["properties"]["season"]["minimum"] == 1950
    assert tool.rules  # the rule travelled through the wrapper
    with pytest.raises(InvalidArgumentsError, match="exactly one of round or circuit_id"):
        run(tool.run({"season": 2024}))
    assert limiter.acquisitions == 0  # a refused call takes no token
    assert run(tool.run({"season": 2024, "round": 1}))["race"] == "2024 1"
    assert limiter.acquisitions == 1


def test_contracts_that_cannot_be_tools_are_refused_when_declared() -> None:
    def positional(season: int, /) -> int:
        """Positional only."""
        return season

    @requires_exactly_one("round", "lap")
    def misnamed(round: int | None = None) -> int | None:
        """Names a parameter it does not have."""
        return round

    with pytest.raises(UsageError, match="'season' is positional-only"):
        as_tool(positional)
    with pytest.raises(UsageError, match="names lap, not among its parameters"):
        as_tool(misnamed)
    with pytest.raises(UsageError, match="not a valid tool name"):
        as_tool(misnamed, name="has spaces")
    with pytest.raises(UsageError, match="two or more different argument names"):
        requires_exactly_one("round")
    with pytest.raises(UsageError, match="two tools are named 'race_result'"):
        as_tools([PitWall(F1Client()).race_result, PitWall(F1Client()).race_result])
