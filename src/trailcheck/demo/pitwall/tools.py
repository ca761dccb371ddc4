"""The Pit Wall's tools: methods of one class, registered as bound methods, over a data source.

::

    pit_wall = PitWallTools(fixture_source())      # or ErgastClient(http) for the live archive
    agent_tools = pit_wall.tools                   # [get_race_results, get_driver_standings,
                                                   #  compare_lap_times]

The contracts are in the signatures and docstrings, which is all a model sees: descriptions and
constraints from ``Annotated[..., Field(...)]`` (a season from 1950, one to four drivers),
and in the docstring what a schema cannot say: what ``fastest_lap.rank == 1`` means for the
points, that a field is omitted when the archive lacks it, that a red-flag stop counts as a pit
stop. "Provide exactly one of round or circuit_id" is a rule of the tool
(:func:`~trailcheck.guard.requires_exactly_one`): the agent loop refuses a call that breaks it
before the tool runs, with that message, and :class:`~.records.RaceRef` says the same to a
caller who bypasses the loop.

:class:`PitWallTools` carries v2 of ``get_race_results``, which returns each driver's fastest
lap; :class:`PitWallToolsV1` is the seed's bug: v1 of the same tool drops the ``FastestLap``
block, so a winner's ``points: 26`` arrives without what explains it.

``compare_lap_times`` fetches the drivers concurrently in a :class:`asyncio.TaskGroup`; a
failure comes out of the group as an ``ExceptionGroup`` and is re-raised as the original error
(a :class:`~.errors.RaceNotFoundError` for a driver who was not in the race), so the agent loop's
error policy returns it to the model as it would from a plain call.

The class is also the trial's :class:`~trailcheck.environment.Environment`: the archive is
read-only, so ``reset`` has nothing to restore and ``snapshot`` has no state to grade.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from trailcheck.demo.pitwall.errors import InvalidRequestError
from trailcheck.demo.pitwall.pace import stints
from trailcheck.demo.pitwall.records import Race, RaceRef, RaceResult
from trailcheck.demo.pitwall.source import RaceDataSource
from trailcheck.guard import requires_exactly_one

__all__ = ["PitWallTools", "PitWallToolsV1", "first_error"]

Season = Annotated[
    int, Field(ge=1950, le=2100, description="The championship season (year), e.g. 2024.")
]
Round = Annotated[
    int | None,
    Field(ge=1, le=30, description="The round of the season, 1 for its first race."),
]
CircuitId = Annotated[
    str | None,
    Field(
        pattern=r"^[a-z0-9_]+$",
        max_length=40,
        description="The archive's circuit id, e.g. interlagos, monza, silverstone, spa.",
    ),
]
DriverId = Annotated[str, Field(pattern=r"^[a-z0-9_]+$", max_length=40)]
DriverIds = Annotated[
    list[DriverId],
    Field(
        min_length=1,
        max_length=4,
        description="One to four archive driver ids, e.g. max_verstappen, norris, leclerc.",
    ),
]
StintChoice = Annotated[
    int | Literal["last"] | None,
    Field(
        description='Only this stint: 1 for the first, "last" for the final one; all if omitted.'
    ),
]


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first original error inside ``group`` (groups nest when task groups do)."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def _number(value: float) -> int | float:
    return int(value) if value == int(value) else value


class PitWallTools:
    """The Pit Wall's tools over ``source`` (v2 of get_race_results); see the module docstring."""

    version = "v2"

    def __init__(self, source: RaceDataSource) -> None:
        self.source = source

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self.get_race_results, self.get_driver_standings, self.compare_lap_times]

    def reset(self) -> None:
        """Nothing to restore: the archive is read-only."""

    def snapshot(self) -> dict[str, Any]:
        return {}

    def _result(self, result: RaceResult) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "position": result.position,
            "driver_id": result.driver_id,
            "driver": result.driver,
            "constructor": result.constructor,
            "grid": result.grid,
            "laps": result.laps,
            "status": result.status,
            "points": _number(result.points),
        }
        if result.time is not None:
            shown["time"] = result.time
        if result.fastest_lap is not None:
            lap = result.fastest_lap
            shown["fastest_lap"] = {"rank": lap.rank, "lap": lap.lap, "time": lap.time}
        return shown

    @staticmethod
    def _race(race: Race) -> dict[str, Any]:
        return {
            "season": race.season,
            "round": race.round,
            "race": race.name,
            "circuit_id": race.circuit_id,
            "date": race.date,
        }

    @requires_exactly_one("round", "circuit_id")
    async def get_race_results(
        self, season: Season, round: Round = None, circuit_id: CircuitId = None
    ) -> dict[str, Any]:
        """The classification of one race: who finished where, from which grid slot, with
        how many points.

        Give the season and exactly one of round or circuit_id. Each result has position,
        driver_id, driver, constructor, grid (0: started from the pit lane, or did not start),
        laps completed, status ("Finished", "+1 Lap", "Accident", ...), points, time (the
        winner's race time, the others' gap to the winner) and fastest_lap {rank, lap, time},
        the driver's fastest lap of the race. fastest_lap.rank == 1 marks the race's fastest
        lap, which from 2019 to 2024 earned one extra point when finishing in the top 10
        (abolished from 2025): a winner's 26 points are 25 for the win and 1 for that lap.
        fastest_lap is omitted when the archive has no timing for the race.
        """
        race = await self.source.race_results(RaceRef(season, round, circuit_id))
        return {**self._race(race), "results": [self._result(r) for r in race.results]}

    async def get_driver_standings(self, season: Season, round: Round = None) -> dict[str, Any]:
        """The drivers' championship after a round of a season (after its latest round when
        round is omitted): position, driver_id, driver, points and wins so far.
        """
        table = await self.source.driver_standings(season, round)
        return {
            "season": table.season,
            "after_round": table.round,
            "standings": [
                {
                    "position": s.position,
                    "driver_id": s.driver_id,
                    "driver": s.driver,
                    "points": _number(s.points),
                    "wins": s.wins,
                }
                for s in table.standings
            ],
        }

    @requires_exactly_one("round", "circuit_id")
    async def compare_lap_times(
        self,
        season: Season,
        driver_ids: DriverIds,
        round: Round = None,
        circuit_id: CircuitId = None,
        stint: StintChoice = None,
    ) -> dict[str, Any]:
        """Race pace of one to four drivers, stint by stint, with their pit stops.

        Give the season and exactly one of round or circuit_id. A stint runs from one pit stop
        to the next; a red-flag stop counts as a pit stop (its duration is the time stopped,
        e.g. 23:35.363). median_pace is the median of the stint's clean laps (not lap 1, not
        the laps into and out of the pits; safety-car laps are not marked in the data, so a
        median, not a mean), with best_lap the fastest of them; both are omitted for a stint
        without clean laps. Times are m:ss.mmm.
        """
        if len(set(driver_ids)) != len(driver_ids):
            raise InvalidRequestError(f"driver_ids names a driver twice: {driver_ids}")
        race = await self.source.race_results(RaceRef(season, round, circuit_id))
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(self._driver_pace(race, driver_id, stint))
                    for driver_id in driver_ids
                ]
        except BaseExceptionGroup as failed:
            raise first_error(failed) from None
        return {**self._race(race), "drivers": [task.result() for task in tasks]}

    async def _driver_pace(
        self, race: Race, driver_id: str, stint: int | Literal["last"] | None
    ) -> dict[str, Any]:
        laps, stops = await asyncio.gather(
            self.source.laps(race.season, race.round, driver_id),
            self.source.pit_stops(race.season, race.round, driver_id),
        )
        found = stints(laps, stops)
        chosen: Sequence[Any] = found
        if stint == "last":
            chosen = found[-1:]
        elif stint is not None:
            if not 1 <= stint <= len(found):
                raise InvalidRequestError(
                    f"{driver_id} has {len(found)} stints in that race; stint {stint} is not one"
                )
            chosen = [found[stint - 1]]
        return {
            "driver_id": driver_id,
            "pit_stops": [{"stop": s.stop, "lap": s.lap, "duration": s.duration} for s in stops],
            "stints": [s.summary() for s in chosen],
        }


class PitWallToolsV1(PitWallTools):
    """The tools with v1 of get_race_results: no fastest lap in the results (the seed's bug)."""

    version = "v1"

    @requires_exactly_one("round", "circuit_id")
    async def get_race_results(
        self, season: Season, round: Round = None, circuit_id: CircuitId = None
    ) -> dict[str, Any]:
        """The classification of one race: who finished where, from which grid slot, with
        how many points.

        Give the season and exactly one of round or circuit_id. Each result has position,
        driver_id, driver, constructor, grid, laps completed, status, points and time.
        """
        shown = await super().get_race_results(season, round, circuit_id)
        for result in shown["results"]:
            result.pop("fastest_lap", None)
        return shown
