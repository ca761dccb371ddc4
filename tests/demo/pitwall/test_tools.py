"""The Pit Wall's tools over the in-memory archive: what a model sees (the contract) and what
each call returns or raises."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.waiting import wait_for_event
from trailcheck.demo.pitwall.errors import InvalidRequestError, RaceNotFoundError
from trailcheck.demo.pitwall.fixture import fixture_source
from trailcheck.demo.pitwall.memory_source import InMemorySource
from trailcheck.demo.pitwall.records import LapTiming, PitStop, Race, RaceRef
from trailcheck.demo.pitwall.tools import PitWallTools, PitWallToolsV1
from trailcheck.guard import InvalidArgumentsError
from trailcheck.guard.tools import Tool, as_tools

pytestmark = pytest.mark.live


def _tools(version: type[PitWallTools] = PitWallTools) -> dict[str, Tool]:
    return {tool.name: tool for tool in as_tools(version(fixture_source()).tools)}


def _run(tool: Tool, arguments: dict[str, Any]) -> Any:
    return asyncio.run(tool.run(arguments))


def test_the_contract_a_model_sees() -> None:
    tools = _tools()
    results = tools["get_race_results"]
    season = results.parameters["properties"]["season"]

    assert list(tools) == ["get_race_results", "get_driver_standings", "compare_lap_times"]
    assert (season["minimum"], season["type"]) == (1950, "integer")
    assert "e.g. 2024" in season["description"]
    drivers = tools["compare_lap_times"].parameters["properties"]["driver_ids"]
    assert (drivers["minItems"], drivers["maxItems"]) == (1, 4)
    said = " ".join(results.description.split())
    assert "fastest_lap.rank == 1 marks the race's fastest lap" in said
    assert "from 2019 to 2024 earned one extra point" in said
    assert "abolished from 2025" in said
    assert "omitted when the archive has no timing" in said
    pace = " ".join(tools["compare_lap_times"].description.split())
    assert "a red-flag stop counts as a pit stop" in pace
    assert "omitted for a stint without clean laps" in pace
    for name in ("get_race_results", "compare_lap_times"):
        assert tools[name].description.endswith(
            "Arguments: provide exactly one of round or circuit_id."
        )


def test_v1_drops_the_fastest_lap_and_says_nothing_of_it() -> None:
    arguments = {"season": 2024, "circuit_id": "interlagos"}
    v1 = _run(_tools(PitWallToolsV1)["get_race_results"], arguments)
    v2 = _run(_tools()["get_race_results"], arguments)

    assert v1["results"][0]["points"] == v2["results"][0]["points"] == 26
    assert all("fastest_lap" not in result for result in v1["results"])
    assert v2["results"][0]["fastest_lap"] == {"rank": 1, "lap": 67, "time": "1:20.472"}
    assert "fastest_lap" not in _tools(PitWallToolsV1)["get_race_results"].description
    v1_without = [{k: v for k, v in r.items() if k != "fastest_lap"} for r in v2["results"]]
    assert v1["results"] == v1_without


@pytest.mark.parametrize(
    "arguments",
    [
        {"season": 2024},
        {"season": 2024, "round": 21, "circuit_id": "interlagos"},
        {"season": 2024, "round": None, "circuit_id": None},
    ],
)
def test_round_or_circuit_is_refused_before_the_archive_is_asked(arguments: dict[str, Any]) -> None:
    source = fixture_source()
    [results, _, laps] = as_tools(PitWallTools(source).tools)

    for tool, extra in ((results, {}), (laps, {"driver_ids": ["norris"]})):
        with pytest.raises(
            InvalidArgumentsError, match="provide exactly one of round or circuit_id"
        ):
            _run(tool, {**arguments, **extra})
    assert source.requests == 0


def test_the_rule_holds_for_a_caller_that_bypasses_the_loop() -> None:
    with pytest.raises(InvalidRequestError, match="provide exactly one of round or circuit_id"):
        asyncio.run(PitWallTools(fixture_source()).get_race_results(2024))


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"season": 1949, "round": 1}, "season"),
        ({"season": "2024", "round": 21, "driver_ids": []}, "driver_ids"),
        ({"season": 2024, "round": 21, "driver_ids": ["a", "b", "c", "d", "e"]}, "driver_ids"),
        ({"season": 2024, "round": 21, "driver_ids": ["Max Verstappen"]}, "driver_ids"),
    ],
)
def test_arguments_outside_the_contract_are_refused_naming_the_field(
    arguments: dict[str, Any], problem: str
) -> None:
    arguments.setdefault("driver_ids", ["norris"])
    with pytest.raises(InvalidArgumentsError, match=problem):
        _run(_tools()["compare_lap_times"], arguments)


def test_lap_times_compare_stints_with_the_red_flag_as_a_stop() -> None:
    answer = _run(
        _tools()["compare_lap_times"],
        {"season": 2024, "round": 21, "driver_ids": ["max_verstappen", "norris"], "stint": "last"},
    )
    verstappen, norris = answer["drivers"]

    assert answer["race"] == "São Paulo Grand Prix"
    assert verstappen["stints"] == [
        {
            "stint": 2,
            "laps": "33-69",
            "clean_laps": 36,
            "median_pace": "1:22.271",
            "best_lap": "1:20.472",
        }
    ]
    assert norris["pit_stops"] == [
        {"stop": 1, "lap": 28, "duration": "24.7"},
        {"stop": 2, "lap": 32, "duration": "23:35.363"},
    ]
    assert norris["stints"][0]["median_pace"] == "1:23.361"


def test_a_stint_without_clean_laps_omits_the_pace_fields() -> None:
    answer = _run(
        _tools()["compare_lap_times"],
        {"season": 2024, "circuit_id": "interlagos", "driver_ids": ["ocon"], "stint": 2},
    )

    assert answer["drivers"][0]["stints"] == [{"stint": 2, "laps": "31-32", "clean_laps": 0}]


def test_a_stint_the_driver_did_not_run_is_an_error_the_model_can_act_on() -> None:
    with pytest.raises(InvalidRequestError, match="norris has 3 stints in that race; stint 4"):
        _run(
            _tools()["compare_lap_times"],
            {"season": 2024, "round": 21, "driver_ids": ["norris"], "stint": 4},
        )


def test_a_driver_named_twice_is_refused() -> None:
    with pytest.raises(InvalidRequestError, match="names a driver twice"):
        _run(
            _tools()["compare_lap_times"],
            {"season": 2024, "round": 21, "driver_ids": ["norris", "norris"]},
        )


def test_a_failing_driver_surfaces_as_the_original_error_not_a_group() -> None:
    with pytest.raises(RaceNotFoundError, match="no laps of driver 'hulkenberg'"):
        _run(
            _tools()["compare_lap_times"],
            {"season": 2024, "round": 21, "driver_ids": ["norris", "hulkenberg"]},
        )


class _RendezvousSource(InMemorySource):
    """Counts how many drivers' laps are being fetched at once; each fetch holds until
    ``together`` of them are, so fetches made one at a time never finish (they hang until the
    guard)."""

    def __init__(self, source: InMemorySource, together: int) -> None:
        super().__init__(
            races=source.races.values(),
            standings=source.standings.values(),
            laps=source.lap_timings,
            pit_stops=source.stops,
        )
        self.together = together
        self.all_in_flight = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0

    async def laps(self, season: int, round: int, driver_id: str) -> list[LapTiming]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        if self.in_flight == self.together:
            self.all_in_flight.set()
        await wait_for_event(
            self.all_in_flight.wait(), f"{self.together} drivers' laps fetched at once"
        )
        self.in_flight -= 1
        return await super().laps(season, round, driver_id)


def test_drivers_are_fetched_concurrently() -> None:
    source = _RendezvousSource(fixture_source(), together=4)
    [_, _, laps] = as_tools(PitWallTools(source).tools)
    drivers = ["max_verstappen", "norris", "ocon", "russell"]

    answer = _run(laps, {"season": 2024, "round": 21, "driver_ids": drivers})

    assert [d["driver_id"] for d in answer["drivers"]] == drivers  # in the order asked
    assert source.most_in_flight == 4


def test_standings_and_missing_races() -> None:
    tools = _tools()
    standings = _run(tools["get_driver_standings"], {"season": 2024})

    assert standings["after_round"] == 21
    assert standings["standings"][0] == {
        "position": 1,
        "driver_id": "max_verstappen",
        "driver": "Max Verstappen",
        "points": 393,
        "wins": 8,
    }
    with pytest.raises(RaceNotFoundError, match="no race season 2023 at 'interlagos'"):
        _run(tools["get_race_results"], {"season": 2023, "circuit_id": "interlagos"})
    with pytest.raises(RaceNotFoundError, match="season 2024 after round 3"):
        _run(tools["get_driver_standings"], {"season": 2024, "round": 3})


def test_a_circuit_with_two_races_in_the_season_asks_for_the_round() -> None:
    silverstone = [Race(2020, n, f"Race {n}", "silverstone", "2020-08-0{n}") for n in (4, 5)]
    source = InMemorySource(races=silverstone, pit_stops={(2020, 4, "x"): [PitStop(1, 1, "2")]})

    with pytest.raises(InvalidRequestError, match="rounds 4, 5 there; give the round"):
        asyncio.run(source.race_results(RaceRef(2020, circuit_id="silverstone")))


def test_the_archive_is_an_environment_with_nothing_to_reset() -> None:
    archive = PitWallTools(fixture_source())
    archive.reset()

    assert archive.snapshot() == {}
    assert archive.version == "v2"
    assert PitWallToolsV1(fixture_source()).version == "v1"
