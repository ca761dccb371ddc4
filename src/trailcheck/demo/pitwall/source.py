"""The seam between the Pit Wall's tools and wherever race data comes from.

:class:`RaceDataSource` is what the tools need: four questions about a race archive, each
async. Two sources answer them: :class:`~.http_source.ErgastClient` (the Ergast-compatible API
that Jolpica serves, over HTTP) and :class:`~.memory_source.InMemorySource` (fixture payloads,
for tests and the offline demo). Both read the archive's JSON with the same readers
(:mod:`.ergast`), so the tools cannot tell them apart.

A source raises :class:`~.errors.RaceNotFoundError` for a race (or a driver's laps) the archive does
not have, and :class:`~.errors.ArchiveUnavailableError` when it cannot answer.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from trailcheck.demo.pitwall.records import LapTiming, PitStop, Race, RaceRef, Standings

__all__ = ["RaceDataSource"]


@runtime_checkable
class RaceDataSource(Protocol):
    """Race data by season and round (or circuit); see the module docstring."""

    async def race_results(self, race: RaceRef) -> Race:
        """The race and its classification."""
        ...

    async def driver_standings(self, season: int, round: int | None = None) -> Standings:
        """The drivers' championship after ``round`` (the season's latest when None)."""
        ...

    async def laps(self, season: int, round: int, driver_id: str) -> list[LapTiming]:
        """One driver's laps of a race, in lap order; RaceNotFoundError when there are none."""
        ...

    async def pit_stops(self, season: int, round: int, driver_id: str) -> list[PitStop]:
        """One driver's stops in a race, in order (none is an empty list)."""
        ...
