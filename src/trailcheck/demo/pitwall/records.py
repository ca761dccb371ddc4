"""What the race archive holds, as the tools read it: races, results, standings, laps, stops.

The archive (Ergast's schema, served by Jolpica) writes every value as text; these records hold
them typed. Times stay as the archive writes them (``1:20.472``, ``24.7``, ``23:35.363``): the
tools show them as they are, and :mod:`.pace` reads them as microseconds when it computes.
A race is named by a :class:`RaceRef`: a season and either its round or its circuit.
"""

from __future__ import annotations

from dataclasses import dataclass

from trailcheck.demo.pitwall.errors import InvalidRequestError

__all__ = [
    "FastestLap",
    "LapTiming",
    "PitStop",
    "Race",
    "RaceRef",
    "RaceResult",
    "Standing",
    "Standings",
]


@dataclass(frozen=True, slots=True)
class RaceRef:
    """A race: ``season`` and exactly one of ``round`` or ``circuit_id``."""

    season: int
    round: int | None = None
    circuit_id: str | None = None

    def __post_init__(self) -> None:
        if (self.round is None) == (self.circuit_id is None):
            raise InvalidRequestError("provide exactly one of round or circuit_id")

    def __str__(self) -> str:
        where = f"round {self.round}" if self.round is not None else f"at {self.circuit_id!r}"
        return f"season {self.season} {where}"


@dataclass(frozen=True, slots=True)
class FastestLap:
    """A driver's fastest lap of a race; ``rank == 1`` is the race's fastest."""

    rank: int
    lap: int
    time: str


@dataclass(frozen=True, slots=True)
class RaceResult:
    """One driver's classification in a race."""

    position: int
    driver_id: str
    driver: str
    constructor: str
    grid: int
    laps: int
    status: str
    points: float
    time: str | None = None
    fastest_lap: FastestLap | None = None


@dataclass(frozen=True, slots=True)
class Race:
    """A race and its classification, in finishing order."""

    season: int
    round: int
    name: str
    circuit_id: str
    date: str
    results: tuple[RaceResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Standing:
    """One driver's place in the championship."""

    position: int
    driver_id: str
    driver: str
    points: float
    wins: int


@dataclass(frozen=True, slots=True)
class Standings:
    """The drivers' championship after ``round`` of ``season``."""

    season: int
    round: int
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class LapTiming:
    """One lap of one driver: its number and time as the archive writes it."""

    lap: int
    time: str


@dataclass(frozen=True, slots=True)
class PitStop:
    """One stop: the lap it was made on and its duration as written (a red flag's too)."""

    stop: int
    lap: int
    duration: str
