"""The archive's HTTP answers, made from an :class:`~.memory_source.InMemorySource`.

:class:`ArchivePages` answers the Ergast paths the client asks (``/2024/21/results.json``,
``/2024/circuits/interlagos/results.json``, ``/2024/21/driverStandings.json``,
``/2024/21/drivers/norris/laps.json``, ``.../pitstops.json``) with the API's JSON: every value
as text, ``MRData`` with ``limit``, ``offset`` and ``total``, the rows of one page. The page
holds at most ``max_limit`` rows whatever the request asks (the API caps it, at 100 for
Jolpica), and says so in its ``limit``; laps count one row per driver per lap (the client asks
for one driver's, so a page boundary falls between laps). A race the archive lacks is a page
without races, as the API answers; an unknown path is a 404.

A local test server (``http.server`` in a thread, on 127.0.0.1) is a thin shell around
:meth:`ArchivePages.answer`, so the HTTP client is tested against the same records as the tools.
Every payload carries :data:`~.fixture.SYNTHETIC_NOTE`'s kind of note when one is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trailcheck.demo.pitwall.memory_source import InMemorySource
from trailcheck.demo.pitwall.records import FastestLap, Race, RaceResult, Standing

__all__ = ["ArchivePages"]

Json = dict[str, Any]
Rows = list[Json]

_NUMBER = r"(\d+)"
_NAME = r"([A-Za-z0-9_-]+)"


def _fastest(lap: FastestLap) -> Json:
    return {"rank": str(lap.rank), "lap": str(lap.lap), "Time": {"time": lap.time}}


def _name_parts(name: str) -> Json:
    given, _, family = name.partition(" ")
    return {"givenName": given, "familyName": family}


def _result(result: RaceResult) -> Json:
    row: Json = {
        "position": str(result.position),
        "positionText": str(result.position),
        "points": f"{result.points:g}",
        "Driver": {"driverId": result.driver_id, **_name_parts(result.driver)},
        "Constructor": {
            "constructorId": result.constructor.lower().replace(" ", "_"),
            "name": result.constructor,
        },
        "grid": str(result.grid),
        "laps": str(result.laps),
        "status": result.status,
    }
    if result.time is not None:
        row["Time"] = {"time": result.time}
    if result.fastest_lap is not None:
        row["FastestLap"] = _fastest(result.fastest_lap)
    return row


def _standing(standing: Standing) -> Json:
    return {
        "position": str(standing.position),
        "positionText": str(standing.position),
        "points": f"{standing.points:g}",
        "wins": str(standing.wins),
        "Driver": {"driverId": standing.driver_id, **_name_parts(standing.driver)},
    }


def _race_header(race: Race) -> Json:
    return {
        "season": str(race.season),
        "round": str(race.round),
        "raceName": race.name,
        "Circuit": {"circuitId": race.circuit_id},
        "date": race.date,
    }


@dataclass(frozen=True, slots=True)
class _Table:
    """What a path asks for: the rows, and how a page of them is wrapped."""

    rows: list[Any]
    wrap: Callable[[list[Any]], Json]


class ArchivePages:
    """The API's paged JSON answers for the records of ``source``; see the module docstring."""

    def __init__(self, source: InMemorySource, *, max_limit: int = 100, note: str | None = None):
        self.source = source
        self.max_limit = max_limit
        self.note = note
        self._routes: list[tuple[re.Pattern[str], Callable[..., _Table]]] = [
            (re.compile(rf"/{_NUMBER}/{_NUMBER}/results\.json"), self._results),
            (re.compile(rf"/{_NUMBER}/circuits/{_NAME}/results\.json"), self._circuit_results),
            (re.compile(rf"/{_NUMBER}(?:/{_NUMBER})?/driverStandings\.json"), self._standings),
            (re.compile(rf"/{_NUMBER}/{_NUMBER}/drivers/{_NAME}/laps\.json"), self._laps),
            (re.compile(rf"/{_NUMBER}/{_NUMBER}/drivers/{_NAME}/pitstops\.json"), self._stops),
        ]

    def answer(self, path: str, limit: int = 30, offset: int = 0) -> tuple[int, Json]:
        """The HTTP status and JSON body for ``path`` with ``limit`` and ``offset`` asked."""
        for pattern, table_for in self._routes:
            match = pattern.fullmatch(path)
            if match is not None:
                table = table_for(*match.groups())
                return 200, self._page(path, table, limit, offset)
        return 404, {"detail": f"no such endpoint: {path}"}

    def _page(self, path: str, table: _Table, limit: int, offset: int) -> Json:
        served = max(0, min(limit, self.max_limit))
        rows = table.rows[offset : offset + served]
        data: Json = {
            "xmlns": "",
            "series": "f1",
            "url": f"http://127.0.0.1/ergast/f1{path}",
            "limit": str(served),
            "offset": str(offset),
            "total": str(len(table.rows)),
            **table.wrap(rows),
        }
        body: Json = {"MRData": data}
        if self.note is not None:
            body["trailcheck_fixture"] = self.note
        return body

    def _races(self, races: list[Race], season: str, round: str | None) -> _Table:
        owned = [
            (index, _result(result)) for index, race in enumerate(races) for result in race.results
        ]

        def wrap(page: list[Any]) -> Json:
            held = sorted({index for index, _ in page})
            return {
                "RaceTable": {
                    "season": season,
                    **({"round": round} if round else {}),
                    "Races": [
                        {
                            **_race_header(races[index]),
                            "Results": [row for owner, row in page if owner == index],
                        }
                        for index in held
                    ],
                }
            }

        return _Table(owned, wrap)

    def _results(self, season: str, round: str) -> _Table:
        race = self.source.races.get((int(season), int(round)))
        return self._races([race] if race else [], season, round)

    def _circuit_results(self, season: str, circuit_id: str) -> _Table:
        races = [
            race
            for race in sorted(self.source.races.values(), key=lambda race: race.round)
            if race.season == int(season) and race.circuit_id == circuit_id
        ]
        return self._races(races, season, None)

    def _standings(self, season: str, round: str | None) -> _Table:
        held = sorted(r for s, r in self.source.standings if s == int(season))
        chosen = int(round) if round else (held[-1] if held else None)
        table = self.source.standings.get((int(season), chosen)) if chosen else None
        rows = [_standing(s) for s in table.standings] if table else []

        def wrap(page: Rows) -> Json:
            lists = []
            if table is not None:
                header = {"season": season, "round": str(table.round)}
                lists = [{**header, "DriverStandings": page}]
            return {"StandingsTable": {"season": season, "StandingsLists": lists}}

        return _Table(rows, wrap)

    def _driver_races(self, season: str, round: str, rows: Rows, key: str) -> _Table:
        race = self.source.races.get((int(season), int(round)))

        def wrap(page: Rows) -> Json:
            races = [{**_race_header(race), key: _grouped(page, key)}] if race and page else []
            return {"RaceTable": {"season": season, "round": round, "Races": races}}

        return _Table(rows if race else [], wrap)

    def _laps(self, season: str, round: str, driver_id: str) -> _Table:
        laps = self.source.lap_timings.get((int(season), int(round), driver_id), [])
        rows = [
            {"number": str(lap.lap), "driverId": driver_id, "time": lap.time}
            for lap in sorted(laps, key=lambda lap: lap.lap)
        ]
        return self._driver_races(season, round, rows, "Laps")

    def _stops(self, season: str, round: str, driver_id: str) -> _Table:
        stops = self.source.stops.get((int(season), int(round), driver_id), [])
        rows = [
            {"driverId": driver_id, "stop": str(s.stop), "lap": str(s.lap), "duration": s.duration}
            for s in stops
        ]
        return self._driver_races(season, round, rows, "PitStops")


def _grouped(page: Rows, key: str) -> Rows:
    """Lap rows grouped as the API nests them (``Laps[].Timings[]``); stops as they are."""
    if key != "Laps":
        return page
    laps: dict[str, Rows] = {}
    for row in page:
        laps.setdefault(row["number"], []).append(
            {"driverId": row["driverId"], "position": "0", "time": row["time"]}
        )
    return [{"number": number, "Timings": timings} for number, timings in laps.items()]
