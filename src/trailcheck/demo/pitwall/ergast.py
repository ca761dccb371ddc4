"""Reading the archive's JSON (Ergast's shape, as Jolpica serves it) into :mod:`.records`.

Every answer is ``{"MRData": {"limit", "offset", "total", <table>}}`` with every value as text;
a paged endpoint spreads its rows over several answers, so each reader takes the list of pages
and reads the rows of all of them:

- results: ``RaceTable.Races[0].Results[]`` (``FastestLap`` only where the archive has timing);
- standings: ``StandingsTable.StandingsLists[0].DriverStandings[]``;
- laps: ``RaceTable.Races[0].Laps[].Timings[]``, one row per driver per lap (for every driver,
  a lap's timings may be split over two pages: the reader merges them by lap number);
- pit stops: ``RaceTable.Races[0].PitStops[]``.

A page without a race means the archive has none: :class:`RaceNotFoundError`. A field that is
missing or not what the schema says is :class:`ArchiveUnavailableError`, naming the request and the
field's path (``/2024/21/results.json: MRData.RaceTable.Races[0].Results[3].grid: expected a
whole number, got 'x'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trailcheck.demo.pitwall.errors import (
    ArchiveUnavailableError,
    InvalidRequestError,
    RaceNotFoundError,
)
from trailcheck.demo.pitwall.records import (
    FastestLap,
    LapTiming,
    PitStop,
    Race,
    RaceResult,
    Standing,
    Standings,
)

__all__ = [
    "PageCounts",
    "page_counts",
    "read_laps",
    "read_pit_stops",
    "read_race",
    "read_standings",
]

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Reader:
    """Reads fields of one page, naming the request and the path in every error."""

    where: str

    def fail(self, path: str, problem: str) -> ArchiveUnavailableError:
        return ArchiveUnavailableError(
            f"the archive's answer to {self.where} is unreadable: {path}: {problem}"
        )

    def obj(self, value: Any, path: str) -> Json:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {type(value).__name__}")
        return value

    def items(self, parent: Json, key: str, path: str) -> list[Json]:
        value = parent.get(key, [])
        if not isinstance(value, list):
            raise self.fail(f"{path}.{key}", f"expected a list, got {type(value).__name__}")
        return [self.obj(item, f"{path}.{key}[{i}]") for i, item in enumerate(value)]

    def text(self, parent: Json, key: str, path: str) -> str:
        value = parent.get(key)
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise self.fail(f"{path}.{key}", "missing" if value is None else f"got {value!r}")
        return str(value)

    def whole(self, parent: Json, key: str, path: str) -> int:
        value = self.text(parent, key, path)
        try:
            return int(value)
        except ValueError:
            raise self.fail(f"{path}.{key}", f"expected a whole number, got {value!r}") from None

    def number(self, parent: Json, key: str, path: str) -> float:
        value = self.text(parent, key, path)
        try:
            return float(value)
        except ValueError:
            raise self.fail(f"{path}.{key}", f"expected a number, got {value!r}") from None

    def table(self, page: Json, name: str) -> Json:
        data = self.obj(page.get("MRData"), "MRData")
        return self.obj(data.get(name), f"MRData.{name}")


@dataclass(frozen=True, slots=True)
class PageCounts:
    """What a page says of the paging: the rows it holds at most, where it starts, how many
    rows there are in all. The archive's own figures, not the ones asked for."""

    limit: int
    offset: int
    total: int


def page_counts(page: Json, where: str) -> PageCounts:
    """The paging figures of ``page`` (the answer to ``where``)."""
    reader = _Reader(where)
    data = reader.obj(page.get("MRData"), "MRData")
    return PageCounts(
        limit=reader.whole(data, "limit", "MRData"),
        offset=reader.whole(data, "offset", "MRData"),
        total=reader.whole(data, "total", "MRData"),
    )


_RACES = "MRData.RaceTable.Races"


def _race_of(reader: _Reader, page: Json, missing: str) -> Json:
    races = reader.items(reader.table(page, "RaceTable"), "Races", "MRData.RaceTable")
    if not races:
        raise RaceNotFoundError(missing)
    return races[0]


def _driver_name(reader: _Reader, driver: Json, path: str) -> str:
    return f"{reader.text(driver, 'givenName', path)} {reader.text(driver, 'familyName', path)}"


def _fastest_lap(reader: _Reader, row: Json, path: str) -> FastestLap | None:
    block = row.get("FastestLap")
    if block is None:
        return None
    path = f"{path}.FastestLap"
    block = reader.obj(block, path)
    timing = reader.obj(block.get("Time"), f"{path}.Time")
    return FastestLap(
        rank=reader.whole(block, "rank", path),
        lap=reader.whole(block, "lap", path),
        time=reader.text(timing, "time", f"{path}.Time"),
    )


def _result(reader: _Reader, row: Json, path: str) -> RaceResult:
    driver = reader.obj(row.get("Driver"), f"{path}.Driver")
    constructor = reader.obj(row.get("Constructor"), f"{path}.Constructor")
    timing = row.get("Time")
    return RaceResult(
        position=reader.whole(row, "position", path),
        driver_id=reader.text(driver, "driverId", f"{path}.Driver"),
        driver=_driver_name(reader, driver, f"{path}.Driver"),
        constructor=reader.text(constructor, "name", f"{path}.Constructor"),
        grid=reader.whole(row, "grid", path),
        laps=reader.whole(row, "laps", path),
        status=reader.text(row, "status", path),
        points=reader.number(row, "points", path),
        time=None
        if timing is None
        else reader.text(reader.obj(timing, f"{path}.Time"), "time", f"{path}.Time"),
        fastest_lap=_fastest_lap(reader, row, path),
    )


def read_race(pages: Sequence[Json], where: str, race_name: str) -> Race:
    """The race and its results, from every page; ``race_name`` (``season 2024 round 21``)
    names it in the errors. A circuit that held two races in the season (Silverstone, 2020)
    names no one race: InvalidRequestError, naming the rounds."""
    reader = _Reader(where)
    headers: dict[str, Json] = {}
    results: list[RaceResult] = []
    for page in pages:
        races = reader.items(reader.table(page, "RaceTable"), "Races", "MRData.RaceTable")
        for r, race in enumerate(races):
            headers.setdefault(reader.text(race, "round", f"{_RACES}[{r}]"), race)
            rows = reader.items(race, "Results", f"{_RACES}[{r}]")
            at = f"{_RACES}[{r}].Results"
            results += [_result(reader, row, f"{at}[{i}]") for i, row in enumerate(rows)]
    if not headers:
        raise RaceNotFoundError(f"no race {race_name} in the archive")
    if len(headers) > 1:
        rounds = ", ".join(sorted(headers, key=int))
        raise InvalidRequestError(
            f"{race_name}: the season has races in rounds {rounds} there; give the round"
        )
    [header] = headers.values()
    circuit = reader.obj(header.get("Circuit"), f"{_RACES}[0].Circuit")
    return Race(
        season=reader.whole(header, "season", f"{_RACES}[0]"),
        round=reader.whole(header, "round", f"{_RACES}[0]"),
        name=reader.text(header, "raceName", f"{_RACES}[0]"),
        circuit_id=reader.text(circuit, "circuitId", f"{_RACES}[0].Circuit"),
        date=reader.text(header, "date", f"{_RACES}[0]"),
        results=tuple(results),
    )


def read_standings(pages: Sequence[Json], where: str, missing: str) -> Standings:
    """The drivers' standings, from every page."""
    reader = _Reader(where)
    path = "MRData.StandingsTable.StandingsLists"
    standings: list[Standing] = []
    header: Json | None = None
    for page in pages:
        lists = reader.items(
            reader.table(page, "StandingsTable"), "StandingsLists", "MRData.StandingsTable"
        )
        if not lists:
            raise RaceNotFoundError(missing)
        header = header or lists[0]
        for i, row in enumerate(reader.items(lists[0], "DriverStandings", f"{path}[0]")):
            at = f"{path}[0].DriverStandings[{i}]"
            driver = reader.obj(row.get("Driver"), f"{at}.Driver")
            standings.append(
                Standing(
                    position=reader.whole(row, "position", at),
                    driver_id=reader.text(driver, "driverId", f"{at}.Driver"),
                    driver=_driver_name(reader, driver, f"{at}.Driver"),
                    points=reader.number(row, "points", at),
                    wins=reader.whole(row, "wins", at),
                )
            )
    assert header is not None  # pages is never empty
    return Standings(
        season=reader.whole(header, "season", f"{path}[0]"),
        round=reader.whole(header, "round", f"{path}[0]"),
        standings=tuple(standings),
    )


def read_laps(pages: Sequence[Json], where: str, missing: str) -> list[LapTiming]:
    """One driver's laps (the request names the driver), in lap order, from every page."""
    reader = _Reader(where)
    laps: dict[int, LapTiming] = {}
    for page in pages:
        race = _race_of(reader, page, missing)
        for i, lap in enumerate(reader.items(race, "Laps", f"{_RACES}[0]")):
            at = f"{_RACES}[0].Laps[{i}]"
            number = reader.whole(lap, "number", at)
            for j, timing in enumerate(reader.items(lap, "Timings", at)):
                time = reader.text(timing, "time", f"{at}.Timings[{j}]")
                laps[number] = LapTiming(lap=number, time=time)
    return [laps[number] for number in sorted(laps)]


def read_pit_stops(pages: Sequence[Json], where: str) -> list[PitStop]:
    """One driver's stops (the request names the driver), in order, from every page. The
    archive answers a driver without stops with no race: no stops, not a missing race."""
    reader = _Reader(where)
    stops: list[PitStop] = []
    for page in pages:
        races = reader.items(reader.table(page, "RaceTable"), "Races", "MRData.RaceTable")
        if not races:
            continue
        race = races[0]
        for i, row in enumerate(reader.items(race, "PitStops", f"{_RACES}[0]")):
            at = f"{_RACES}[0].PitStops[{i}]"
            stops.append(
                PitStop(
                    stop=reader.whole(row, "stop", at),
                    lap=reader.whole(row, "lap", at),
                    duration=reader.text(row, "duration", at),
                )
            )
    return sorted(stops, key=lambda stop: stop.stop)
