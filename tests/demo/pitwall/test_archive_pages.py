"""ArchivePages directly: the API's paged JSON for an InMemorySource, capped at ``max_limit``,
every value as text, a 404 for an unknown path, the fixture's note when one is given."""

from __future__ import annotations

from typing import Any

import pytest

from trailcheck.demo.pitwall.archive_pages import ArchivePages
from trailcheck.demo.pitwall.ergast import page_counts, read_laps, read_race
from trailcheck.demo.pitwall.fixture import SYNTHETIC_NOTE, fixture_source
from trailcheck.demo.pitwall.memory_source import InMemorySource
from trailcheck.demo.pitwall.records import LapTiming

RESULTS = "/2024/21/results.json"


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_the_limit_is_capped_and_reported() -> None:
    pages = ArchivePages(fixture_source(), max_limit=5)
    status, body = pages.answer(RESULTS, limit=100, offset=0)
    data = body["MRData"]
    assert status == 200
    assert (data["limit"], data["offset"], data["total"]) == ("5", "0", "14")
    results = data["RaceTable"]["Races"][0]["Results"]
    assert [row["position"] for row in results] == ["1", "2", "3", "4", "5"]


def test_a_smaller_limit_asked_is_kept() -> None:
    _, body = ArchivePages(fixture_source(), max_limit=100).answer(RESULTS, limit=3, offset=12)
    data = body["MRData"]
    assert (data["limit"], data["offset"], data["total"]) == ("3", "12", "14")
    rows = data["RaceTable"]["Races"][0]["Results"]
    assert [row["Driver"]["driverId"] for row in rows] == ["sainz", "albon"]  # 14 rows in all


def test_every_value_is_text() -> None:
    _, body = ArchivePages(fixture_source()).answer(RESULTS)
    leaves = _leaves(body)
    assert leaves
    assert all(isinstance(leaf, str) for leaf in leaves), [
        leaf for leaf in leaves if not isinstance(leaf, str)
    ]
    winner = body["MRData"]["RaceTable"]["Races"][0]["Results"][0]
    assert (winner["grid"], winner["laps"], winner["points"]) == ("17", "69", "26")
    assert winner["FastestLap"] == {"rank": "1", "lap": "67", "Time": {"time": "1:20.472"}}


def test_pages_read_back_to_the_same_race() -> None:
    source = fixture_source()
    pages = ArchivePages(source, max_limit=4)
    bodies = [pages.answer(RESULTS, limit=4, offset=at)[1] for at in (0, 4, 8, 12)]
    assert [page_counts(body, RESULTS).offset for body in bodies] == [0, 4, 8, 12]
    assert read_race(bodies, RESULTS, "season 2024 round 21") == source.races[(2024, 21)]


def test_laps_are_one_row_per_lap_of_the_driver_asked() -> None:
    path = "/2024/21/drivers/norris/laps.json"
    pages = ArchivePages(fixture_source(), max_limit=30)
    _, body = pages.answer(path, limit=100, offset=60)
    laps = body["MRData"]["RaceTable"]["Races"][0]["Laps"]
    assert body["MRData"]["total"] == "69"
    assert [lap["number"] for lap in laps] == [str(n) for n in range(61, 70)]
    assert {timing["driverId"] for lap in laps for timing in lap["Timings"]} == {"norris"}


def test_a_lap_never_splits_because_the_lap_path_names_one_driver() -> None:
    """The module docstring says a lap's timings can split over two pages. The lap endpoint
    ArchivePages serves is per driver (``/drivers/<id>/laps.json``), so each lap is one row and
    one page: a page boundary falls between laps, never inside one. Two drivers' laps in one
    source show it."""
    source = InMemorySource(
        races=fixture_source().races.values(),
        laps={
            (2024, 21, "norris"): [LapTiming(1, "1:40.000"), LapTiming(2, "1:30.000")],
            (2024, 21, "piastri"): [LapTiming(1, "1:41.000"), LapTiming(2, "1:31.000")],
        },
    )
    pages = ArchivePages(source, max_limit=1)
    path = "/2024/21/drivers/norris/laps.json"
    bodies = [pages.answer(path, limit=1, offset=at)[1] for at in (0, 1)]
    for number, body in enumerate(bodies, start=1):
        [lap] = body["MRData"]["RaceTable"]["Races"][0]["Laps"]
        assert lap["number"] == str(number)
        assert [timing["driverId"] for timing in lap["Timings"]] == ["norris"]
    assert read_laps(bodies, path, "none") == [LapTiming(1, "1:40.000"), LapTiming(2, "1:30.000")]


def test_pit_stops_and_standings() -> None:
    pages = ArchivePages(fixture_source())
    _, stops = pages.answer("/2024/21/drivers/norris/pitstops.json")
    rows = stops["MRData"]["RaceTable"]["Races"][0]["PitStops"]
    assert [(row["lap"], row["duration"]) for row in rows] == [("28", "24.7"), ("32", "23:35.363")]
    _, latest = pages.answer("/2024/driverStandings.json")
    [table] = latest["MRData"]["StandingsTable"]["StandingsLists"]
    assert table["round"] == "21"
    assert table["DriverStandings"][0]["Driver"]["driverId"] == "max_verstappen"


def test_a_race_the_archive_lacks_is_a_page_without_races() -> None:
    status, body = ArchivePages(fixture_source()).answer("/2023/21/results.json")
    assert status == 200
    assert body["MRData"]["RaceTable"]["Races"] == []
    assert body["MRData"]["total"] == "0"


@pytest.mark.parametrize(
    "path", ["/2024/21/qualifying.json", "/2024/21/results", "/abc/21/results.json", "/"]
)
def test_an_unknown_path_is_404(path: str) -> None:
    status, body = ArchivePages(fixture_source()).answer(path)
    assert status == 404
    assert body == {"detail": f"no such endpoint: {path}"}


def test_the_note_is_included_only_when_given() -> None:
    _, noted = ArchivePages(fixture_source(), note=SYNTHETIC_NOTE).answer(RESULTS)
    _, plain = ArchivePages(fixture_source()).answer(RESULTS)
    assert noted["trailcheck_fixture"] == SYNTHETIC_NOTE
    assert "trailcheck_fixture" not in plain
    assert noted["MRData"] == plain["MRData"]
