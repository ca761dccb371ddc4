"""ErgastClient against a real loopback server (tests/demo/pitwall/conftest.py): the records it
reads, the paging it follows (the server's limit, not the one asked), and every failure mapped to
the Pit Wall's errors with a message that says what went wrong."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import httpx
import pytest

from tests.demo.pitwall.conftest import Failure, LoopbackArchive
from tests.waiting import GUARD_S
from trailcheck.demo.pitwall.errors import ArchiveUnavailableError, RaceNotFoundError
from trailcheck.demo.pitwall.fixture import fixture_source
from trailcheck.demo.pitwall.http_source import ErgastClient
from trailcheck.demo.pitwall.memory_source import InMemorySource
from trailcheck.demo.pitwall.records import PitStop, RaceRef
from trailcheck.rate_limit import RateLimiter

pytestmark = pytest.mark.live

T = TypeVar("T")

ROUND_21 = RaceRef(2024, round=21)
AT_INTERLAGOS = RaceRef(2024, circuit_id="interlagos")
RESULTS = "/2024/21/results.json"


def fetch(
    base_url: str, ask: Callable[[ErgastClient], Awaitable[T]], **options: Any
) -> tuple[T, ErgastClient]:
    """What ``ask`` gets from a fresh client over a real httpx.AsyncClient, and the client. Its
    timeout is only a guard, unless a test sets one."""

    async def go() -> tuple[T, ErgastClient]:
        async with httpx.AsyncClient() as http:
            client = ErgastClient(http, base_url=base_url, **{"timeout_s": GUARD_S, **options})
            return await ask(client), client

    return asyncio.run(go())


def direct(ask: Callable[[InMemorySource], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(ask(fixture_source()))


class FakeClock:
    """A clock and a sleep for RateLimiter: sleeping moves the clock on, and is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.mark.parametrize("ref", [ROUND_21, AT_INTERLAGOS], ids=["by-round", "by-circuit"])
def test_race_results_read_the_seed_facts(archive: LoopbackArchive, ref: RaceRef) -> None:
    race, client = fetch(archive.base_url, lambda c: c.race_results(ref))
    winner = race.results[0]
    assert (race.season, race.round, race.circuit_id) == (2024, 21, "interlagos")
    assert (winner.driver_id, winner.grid, winner.laps, winner.points) == (
        "max_verstappen",
        17,
        69,
        26,
    )
    assert winner.fastest_lap is not None
    assert (winner.fastest_lap.rank, winner.fastest_lap.lap) == (1, 67)
    assert winner.fastest_lap.time == "1:20.472"
    assert race == direct(lambda s: s.race_results(ref))
    assert len(client.requests) == 1


def test_pit_stops_and_laps_match_the_in_memory_source(archive: LoopbackArchive) -> None:
    stops, _ = fetch(archive.base_url, lambda c: c.pit_stops(2024, 21, "norris"))
    assert stops == [PitStop(1, 28, "24.7"), PitStop(2, 32, "23:35.363")]
    laps, _ = fetch(archive.base_url, lambda c: c.laps(2024, 21, "max_verstappen"))
    assert laps == direct(lambda s: s.laps(2024, 21, "max_verstappen"))
    assert laps[66].lap == 67
    assert laps[66].time == "1:20.472"


def test_laps_follow_the_limit_the_server_returns(archive: LoopbackArchive) -> None:
    archive.serve(max_limit=30)
    laps, client = fetch(
        archive.base_url, lambda c: c.laps(2024, 21, "max_verstappen"), page_size=100
    )
    path = "/2024/21/drivers/max_verstappen/laps.json"
    assert list(client.requests) == [f"{path}?limit=100&offset={at}" for at in (0, 30, 60)]
    assert archive.hits == [(path, 100, 0), (path, 100, 30), (path, 100, 60)]
    assert [lap.lap for lap in laps] == list(range(1, 70))  # 69 rows, each once, in order
    assert laps == direct(lambda s: s.laps(2024, 21, "max_verstappen"))


def test_results_over_three_pages_of_five(archive: LoopbackArchive) -> None:
    archive.serve(max_limit=5)
    race, client = fetch(archive.base_url, lambda c: c.race_results(ROUND_21))
    assert [hit[2] for hit in archive.hits] == [0, 5, 10]
    assert len(client.requests) == 3
    expected = direct(lambda s: s.race_results(ROUND_21))
    assert [r.position for r in race.results] == list(range(1, 15))
    assert race == expected


def test_not_found_names_the_race(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(status=404))
    with pytest.raises(RaceNotFoundError, match=r"^no race season 2024 round 21 in the archive$"):
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))


def test_an_empty_races_list_is_not_found(archive: LoopbackArchive) -> None:
    with pytest.raises(RaceNotFoundError, match=r"no race season 2023 at 'interlagos'"):
        fetch(archive.base_url, lambda c: c.race_results(RaceRef(2023, circuit_id="interlagos")))
    assert archive.hits == [("/2023/circuits/interlagos/results.json", 100, 0)]


def test_laps_of_an_unknown_driver_are_not_found(archive: LoopbackArchive) -> None:
    with pytest.raises(RaceNotFoundError, match=r"no laps of driver 'nobody' in season 2024"):
        fetch(archive.base_url, lambda c: c.laps(2024, 21, "nobody"))


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (429, r"rate limiting \(HTTP 429\) /2024/21/results\.json; try again later"),
        (500, r"refused /2024/21/results\.json: HTTP 500"),
        (503, r"refused /2024/21/results\.json: HTTP 503"),
    ],
)
def test_refusals_are_unavailable_with_the_status(
    archive: LoopbackArchive, status: int, message: str
) -> None:
    archive.fail(RESULTS, Failure(status=status))
    with pytest.raises(ArchiveUnavailableError, match=message):
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))


def test_a_slow_archive_times_out(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(held=True))  # no answer until the client gives up
    with pytest.raises(
        ArchiveUnavailableError, match=r"did not answer .* within 0\.2 s; try again"
    ):
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21), timeout_s=0.2)


def test_a_body_that_is_not_json(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(raw=b"<html>maintenance</html>"))
    with pytest.raises(
        ArchiveUnavailableError, match=r"answer to /2024/21/results\.json is not JSON"
    ):
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))


def test_a_json_body_that_is_not_an_object(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(raw=b"[1, 2]"))
    with pytest.raises(ArchiveUnavailableError, match=r"is not a JSON object"):
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))


def _bad_grid(body: dict[str, Any]) -> None:
    body["MRData"]["RaceTable"]["Races"][0]["Results"][3]["grid"] = "x"


def test_a_bad_field_names_its_path(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(patch=_bad_grid))
    with pytest.raises(ArchiveUnavailableError) as caught:
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))
    assert str(caught.value) == (
        "the archive's answer to /2024/21/results.json is unreadable:"
        " MRData.RaceTable.Races[0].Results[3].grid: expected a whole number, got 'x'"
    )


def _stuck_offset(body: dict[str, Any]) -> None:
    body["MRData"]["offset"] = "0"


def test_a_page_from_another_offset_than_asked_is_refused(archive: LoopbackArchive) -> None:
    archive.serve(max_limit=5)
    archive.fail(RESULTS, Failure(patch=_stuck_offset))
    with pytest.raises(ArchiveUnavailableError) as caught:
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))
    assert str(caught.value) == (
        "the archive answered /2024/21/results.json at offset 5 with rows from offset 0"
    )
    assert [hit[2] for hit in archive.hits] == [0, 5]  # it stopped instead of repeating rows


def _empty_page(body: dict[str, Any]) -> None:
    body["MRData"]["limit"] = "0"


def test_a_page_that_does_not_advance(archive: LoopbackArchive) -> None:
    archive.fail(RESULTS, Failure(patch=_empty_page))
    with pytest.raises(ArchiveUnavailableError) as caught:
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21))
    assert "paging of /2024/21/results.json does not advance" in str(caught.value)
    assert "(limit 0, offset 0, total 14)" in str(caught.value)
    assert len(archive.hits) == 1  # it stopped instead of looping


def test_more_pages_than_max_pages(archive: LoopbackArchive) -> None:
    archive.serve(max_limit=5)
    with pytest.raises(ArchiveUnavailableError) as caught:
        fetch(archive.base_url, lambda c: c.race_results(ROUND_21), max_pages=2)
    assert str(caught.value) == (
        "/2024/21/results.json has 14 rows, more than 2 pages of 5: ask for less"
    )
    assert len(archive.hits) == 2


def test_a_closed_port_is_unreachable() -> None:
    # The port stays bound, never listening, for the whole test: the connection is refused, and
    # no other process can start listening on it meanwhile.
    with socket.socket() as unlistened:
        unlistened.bind(("127.0.0.1", 0))
        port = unlistened.getsockname()[1]
        with pytest.raises(
            ArchiveUnavailableError, match=r"unreachable for /2024/21/results\.json"
        ):
            fetch(f"http://127.0.0.1:{port}/ergast/f1", lambda c: c.race_results(ROUND_21))


def test_every_page_takes_a_token(archive: LoopbackArchive) -> None:
    archive.serve(max_limit=30)
    time = FakeClock()
    limiter = RateLimiter(4, burst=1, clock=time.clock, sleep=time.sleep)
    laps, client = fetch(
        archive.base_url,
        lambda c: c.laps(2024, 21, "max_verstappen"),
        rate_limiter=limiter,
    )
    assert len(laps) == 69
    assert limiter.acquisitions == len(client.requests) == 3
    assert time.sleeps == [0.25, 0.25]  # burst 1 at 4/s: the 2nd and 3rd page wait 1/4 s


def test_two_clients_share_one_limiter(archive: LoopbackArchive) -> None:
    time = FakeClock()
    limiter = RateLimiter(4, burst=2, clock=time.clock, sleep=time.sleep)

    async def both() -> tuple[ErgastClient, ErgastClient]:
        async with httpx.AsyncClient() as http:
            first, second = (
                ErgastClient(
                    http, base_url=archive.base_url, rate_limiter=limiter, timeout_s=GUARD_S
                )
                for _ in range(2)
            )
            race = await first.race_results(ROUND_21)
            stops = await second.pit_stops(2024, 21, "norris")
            laps = await second.laps(2024, 21, "norris")
            assert (race.results[0].driver_id, len(stops), len(laps)) == ("max_verstappen", 2, 69)
            return first, second

    first, second = asyncio.run(both())
    assert (len(first.requests), len(second.requests)) == (1, 2)
    assert limiter.acquisitions == 3
    assert time.sleeps == [0.25]  # burst 2: the third request, from the other client, waits
