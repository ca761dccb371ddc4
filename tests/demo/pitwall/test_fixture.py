"""The offline archive holds the seed's Interlagos 2024 facts exactly, and says it is synthetic."""

from __future__ import annotations

import asyncio

import pytest

from trailcheck.demo.pitwall.archive_pages import ArchivePages
from trailcheck.demo.pitwall.fixture import ROUND, SEASON, SYNTHETIC_NOTE, fixture_source
from trailcheck.demo.pitwall.pace import parse_lap_time, stints
from trailcheck.demo.pitwall.records import RaceRef

pytestmark = pytest.mark.live


def test_the_seed_facts_of_the_winner() -> None:
    race = asyncio.run(fixture_source().race_results(RaceRef(SEASON, circuit_id="interlagos")))
    winner = race.results[0]

    assert (race.season, race.round, race.name) == (2024, 21, "São Paulo Grand Prix")
    assert (winner.driver_id, winner.grid, winner.laps, winner.points) == (
        "max_verstappen",
        17,
        69,
        26,
    )
    assert winner.fastest_lap is not None
    assert (winner.fastest_lap.rank, winner.fastest_lap.lap, winner.fastest_lap.time) == (
        1,
        67,
        "1:20.472",
    )


def test_exactly_one_driver_holds_the_fastest_lap_and_ranks_follow_the_times() -> None:
    race = asyncio.run(fixture_source().race_results(RaceRef(SEASON, ROUND)))
    timed = [r for r in race.results if r.fastest_lap is not None]
    by_rank = sorted(timed, key=lambda r: r.fastest_lap.rank if r.fastest_lap else 0)

    assert [r.fastest_lap.rank for r in by_rank if r.fastest_lap] == list(range(1, len(timed) + 1))
    times = [parse_lap_time(r.fastest_lap.time) for r in by_rank if r.fastest_lap]
    assert times == sorted(times)
    did_not_start = next(r for r in race.results if r.driver_id == "albon")
    assert did_not_start.fastest_lap is None  # no timing: the block is omitted


def test_norris_has_the_two_recorded_stops_and_the_red_flag_counts_as_one() -> None:
    stops = asyncio.run(fixture_source().pit_stops(SEASON, ROUND, "norris"))

    assert [(s.stop, s.lap, s.duration) for s in stops] == [(1, 28, "24.7"), (2, 32, "23:35.363")]


def test_the_winners_laps_include_the_fastest_and_the_final_stint_median_is_built_in() -> None:
    source = fixture_source()
    laps = asyncio.run(source.laps(SEASON, ROUND, "max_verstappen"))
    stops = asyncio.run(source.pit_stops(SEASON, ROUND, "max_verstappen"))

    assert [lap.lap for lap in laps] == list(range(1, 70))
    assert min(laps, key=lambda lap: parse_lap_time(lap.time)).lap == 67
    final = stints(laps, stops)[-1]
    assert final.summary()["median_pace"] == "1:22.271"  # the median is 1:22.2705, half up
    assert final.median_us == 82_270_500


def test_every_served_page_says_the_fixture_is_synthetic() -> None:
    pages = ArchivePages(fixture_source(), note=SYNTHETIC_NOTE)
    status, body = pages.answer("/2024/21/results.json")

    assert status == 200
    assert body["trailcheck_fixture"].startswith("trailcheck fixture: synthetic")
    assert body["MRData"]["RaceTable"]["Races"][0]["Results"][0]["points"] == "26"
