"""The race archive over HTTP: the Ergast-compatible API that Jolpica serves.

::

    async with httpx.AsyncClient() as http:
        archive = ErgastClient(http)                       # https://api.jolpi.ca/ergast/f1
        race = await archive.race_results(RaceRef(2024, circuit_id="interlagos"))

The ``httpx.AsyncClient`` comes in through the constructor (its owner closes it; tests give one
that talks to a server on 127.0.0.1). Every request:

- waits for the one token bucket the client shares across every tool that uses it (Jolpica
  allows :data:`JOLPICA_RATE_PER_S` requests a second; a page is a request);
- has a timeout (``timeout_s``), after which it is :class:`~.errors.ArchiveUnavailableError`, with
  the advice to try again;
- maps 404 to :class:`~.errors.RaceNotFoundError` and 429 or any other refusal to
  ``ArchiveUnavailableError`` with the status.

Paging follows the ``limit``, ``offset`` and ``total`` the API *returns*, not the limit asked for:
the server caps a page (Jolpica at 100 rows), and the lap endpoint counts one row per driver per
lap (1,133 rows for one race). The next page starts at the returned ``offset + limit``; a page
from another offset than asked, a page that would not advance, or more than ``max_pages`` pages
is an error rather than lost rows or a loop.
"""

from __future__ import annotations

from collections import deque
from typing import Any
from urllib.parse import quote

import httpx

from trailcheck.demo.pitwall.ergast import (
    page_counts,
    read_laps,
    read_pit_stops,
    read_race,
    read_standings,
)
from trailcheck.demo.pitwall.errors import ArchiveUnavailableError, RaceNotFoundError
from trailcheck.demo.pitwall.records import LapTiming, PitStop, Race, RaceRef, Standings
from trailcheck.rate_limit import RateLimiter

__all__ = ["JOLPICA_RATE_PER_S", "JOLPICA_URL", "ErgastClient"]

JOLPICA_URL = "https://api.jolpi.ca/ergast/f1"
JOLPICA_RATE_PER_S = 4.0
_KEPT_REQUESTS = 1000

Json = dict[str, Any]


def _segment(value: str | int) -> str:
    return quote(str(value), safe="")


class ErgastClient:
    """A :class:`~.source.RaceDataSource` over the Ergast-compatible HTTP API."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = JOLPICA_URL,
        rate_limiter: RateLimiter | None = None,
        timeout_s: float = 10.0,
        page_size: int = 100,
        max_pages: int = 50,
    ) -> None:
        self._client = client
        self.base_url = base_url.rstrip("/")
        self.rate_limiter = rate_limiter or RateLimiter(JOLPICA_RATE_PER_S, burst=4)
        self.timeout_s = timeout_s
        self.page_size = page_size
        self.max_pages = max_pages
        self.requests: deque[str] = deque(maxlen=_KEPT_REQUESTS)
        """The latest requests sent, as ``path?limit=..&offset=..``: what tests and logs check
        (bounded, so a long-lived client does not grow without end)."""

    async def race_results(self, race: RaceRef) -> Race:
        if race.round is not None:
            path = f"/{race.season}/{race.round}/results.json"
        else:
            path = f"/{race.season}/circuits/{_segment(race.circuit_id or '')}/results.json"
        pages = await self._pages(path, f"no race {race} in the archive")
        return read_race(pages, path, str(race))

    async def driver_standings(self, season: int, round: int | None = None) -> Standings:
        path = f"/{season}/{'' if round is None else f'{round}/'}driverStandings.json"
        after = "" if round is None else f" after round {round}"
        missing = f"no drivers' standings for season {season}{after} in the archive"
        return read_standings(await self._pages(path, missing), path, missing)

    async def laps(self, season: int, round: int, driver_id: str) -> list[LapTiming]:
        path = f"/{season}/{round}/drivers/{_segment(driver_id)}/laps.json"
        missing = f"no laps of driver {driver_id!r} in season {season} round {round}"
        return read_laps(await self._pages(path, missing), path, missing)

    async def pit_stops(self, season: int, round: int, driver_id: str) -> list[PitStop]:
        path = f"/{season}/{round}/drivers/{_segment(driver_id)}/pitstops.json"
        missing = f"no pit stops of season {season} round {round} in the archive"
        return read_pit_stops(await self._pages(path, missing), path)

    async def _pages(self, path: str, missing: str) -> list[Json]:
        """Every page of ``path``, following the paging the API returns."""
        pages: list[Json] = []
        offset = 0
        while True:
            page = await self._get(path, offset, missing)
            pages.append(page)
            counts = page_counts(page, path)
            if counts.offset != offset:
                # A page from elsewhere would skip or repeat rows without a word.
                raise ArchiveUnavailableError(
                    f"the archive answered {path} at offset {offset} with rows from offset"
                    f" {counts.offset}"
                )
            following = counts.offset + counts.limit
            if following >= counts.total:
                return pages
            if counts.limit < 1 or following <= offset:
                raise ArchiveUnavailableError(
                    f"the archive's paging of {path} does not advance (limit {counts.limit},"
                    f" offset {counts.offset}, total {counts.total})"
                )
            if len(pages) >= self.max_pages:
                raise ArchiveUnavailableError(
                    f"{path} has {counts.total} rows, more than {self.max_pages} pages of"
                    f" {counts.limit}: ask for less"
                )
            offset = following

    async def _get(self, path: str, offset: int, missing: str) -> Json:
        await self.rate_limiter.acquire()
        self.requests.append(f"{path}?limit={self.page_size}&offset={offset}")
        try:
            response = await self._client.get(
                self.base_url + path,
                params={"limit": self.page_size, "offset": offset},
                timeout=self.timeout_s,
            )
        except httpx.TimeoutException:
            raise ArchiveUnavailableError(
                f"the race archive did not answer {path} within {self.timeout_s:g} s; try again"
            ) from None
        except httpx.TransportError as error:
            raise ArchiveUnavailableError(
                f"the race archive is unreachable for {path}: {error}"
            ) from None
        if response.status_code == httpx.codes.NOT_FOUND:
            raise RaceNotFoundError(missing)
        if response.status_code == httpx.codes.TOO_MANY_REQUESTS:
            raise ArchiveUnavailableError(
                f"the race archive is rate limiting (HTTP 429) {path}; try again later"
            )
        if response.is_error:
            raise ArchiveUnavailableError(
                f"the race archive refused {path}: HTTP {response.status_code}"
            )
        try:
            payload = response.json()
        except ValueError:
            raise ArchiveUnavailableError(
                f"the race archive's answer to {path} is not JSON"
            ) from None
        if not isinstance(payload, dict):
            raise ArchiveUnavailableError(
                f"the race archive's answer to {path} is not a JSON object"
            )
        return payload
