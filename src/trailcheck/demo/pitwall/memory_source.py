"""A race archive held in memory: the fake :class:`~.source.RaceDataSource`.

It answers from records (:mod:`.records`) with the same errors, and the same messages, as the
HTTP client: a race it does not hold is :class:`~.errors.RaceNotFoundError`, a circuit that held two
races in a season is :class:`~.errors.InvalidRequestError`. The tools' unit tests and the offline
demo run on it; :mod:`.archive_pages` serves the same records as the API's JSON pages, so the
HTTP client is tested against the very data the tools are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from trailcheck.demo.pitwall.errors import InvalidRequestError, RaceNotFoundError
from trailcheck.demo.pitwall.records import LapTiming, PitStop, Race, RaceRef, Standings

__all__ = ["InMemorySource"]

DriverKey = tuple[int, int, str]
"""(season, round, driver id)."""


class InMemorySource:
    """Races, standings, laps and stops given up front; see the module docstring."""

    def __init__(
        self,
        *,
        races: Iterable[Race] = (),
        standings: Iterable[Standings] = (),
        laps: Mapping[DriverKey, list[LapTiming]] | None = None,
        pit_stops: Mapping[DriverKey, list[PitStop]] | None = None,
    ) -> None:
        self.races = {(race.season, race.round): race for race in races}
        self.standings = {(table.season, table.round): table for table in standings}
        self.lap_timings = dict(laps or {})
        self.stops = dict(pit_stops or {})
        self.requests = 0
        """How many questions were asked: what the tools' tests count."""

    async def race_results(self, race: RaceRef) -> Race:
        self.requests += 1
        if race.round is not None:
            found = self.races.get((race.season, race.round))
            if found is None:
                raise RaceNotFoundError(f"no race {race} in the archive")
            return found
        held = [
            r
            for r in self.races.values()
            if r.season == race.season and r.circuit_id == race.circuit_id
        ]
        if not held:
            raise RaceNotFoundError(f"no race {race} in the archive")
        if len(held) > 1:
            rounds = ", ".join(str(r.round) for r in sorted(held, key=lambda r: r.round))
            raise InvalidRequestError(
                f"{race}: the season has races in rounds {rounds} there; give the round"
            )
        return held[0]

    async def driver_standings(self, season: int, round: int | None = None) -> Standings:
        self.requests += 1
        rounds = sorted(r for s, r in self.standings if s == season)
        chosen = rounds[-1] if round is None and rounds else round
        found = self.standings.get((season, chosen)) if chosen is not None else None
        if found is None:
            after = "" if round is None else f" after round {round}"
            raise RaceNotFoundError(
                f"no drivers' standings for season {season}{after} in the archive"
            )
        return found

    async def laps(self, season: int, round: int, driver_id: str) -> list[LapTiming]:
        self.requests += 1
        found = self.lap_timings.get((season, round, driver_id))
        if not found:
            raise RaceNotFoundError(
                f"no laps of driver {driver_id!r} in season {season} round {round}"
            )
        return sorted(found, key=lambda lap: lap.lap)

    async def pit_stops(self, season: int, round: int, driver_id: str) -> list[PitStop]:
        self.requests += 1
        return sorted(self.stops.get((season, round, driver_id), []), key=lambda stop: stop.stop)
