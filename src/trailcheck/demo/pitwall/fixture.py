"""The archive the offline Pit Wall serves: Interlagos 2024 (season 2024, round 21).

**Synthetic**, except the facts the seed story states, which are the race's: Verstappen won from
17th on the grid, 69 laps, 26 points, fastest lap 1:20.472 on lap 67; Norris made two recorded
stops, lap 28 (24.7 s) and lap 32 (23:35.363, the red flag). Everything else (the other
results, the lap times, the other stops, the standings) is made up to be plausible and to
exercise the tools: every payload served from it says so (:data:`SYNTHETIC_NOTE`).

The lap times are built, not typed: each driver's final stint is a set of clean laps around two
middle times, so its median is known by construction (Verstappen 1:22.2705, shown 1:22.271;
Norris 1:23.361), and Ocon's second stint is two laps long, an out-lap and an in-lap: a stint
without clean laps.
"""

from __future__ import annotations

from trailcheck.demo.pitwall.memory_source import InMemorySource
from trailcheck.demo.pitwall.pace import format_lap_time, parse_lap_time
from trailcheck.demo.pitwall.records import (
    FastestLap,
    LapTiming,
    PitStop,
    Race,
    RaceResult,
    Standing,
    Standings,
)

__all__ = ["ROUND", "SEASON", "SYNTHETIC_NOTE", "fixture_source"]

SEASON = 2024
ROUND = 21
LAPS = 69
SYNTHETIC_NOTE = (
    "trailcheck fixture: synthetic, except the seed's Interlagos 2024 facts (Verstappen won"
    " from 17th, 69 laps, 26 points, fastest lap 1:20.472 on lap 67; Norris stopped on laps 28"
    " (24.7) and 32 (23:35.363, red flag))"
)

# driver id, name, constructor, grid, laps, status, points, time, fastest lap when no laps kept
_CLASSIFICATION: tuple[tuple[str, str, str, int, int, str, float, str | None, str | None], ...] = (
    ("max_verstappen", "Max Verstappen", "Red Bull", 17, 69, "Finished", 26, "2:06:54.430", None),
    ("ocon", "Esteban Ocon", "Alpine F1 Team", 4, 69, "Finished", 18, "+19.477", None),
    ("gasly", "Pierre Gasly", "Alpine F1 Team", 13, 69, "Finished", 15, "+22.532", "1:22.402"),
    ("russell", "George Russell", "Mercedes", 2, 69, "Finished", 12, "+23.265", None),
    ("leclerc", "Charles Leclerc", "Ferrari", 5, 69, "Finished", 10, "+30.177", "1:21.989"),
    ("norris", "Lando Norris", "McLaren", 1, 69, "Finished", 8, "+31.372", None),
    ("tsunoda", "Yuki Tsunoda", "RB F1 Team", 3, 69, "Finished", 6, "+42.056", "1:22.815"),
    ("piastri", "Oscar Piastri", "McLaren", 8, 69, "Finished", 4, "+44.943", "1:21.652"),
    ("lawson", "Liam Lawson", "RB F1 Team", 6, 69, "Finished", 2, "+50.452", "1:22.561"),
    ("hamilton", "Lewis Hamilton", "Mercedes", 16, 69, "Finished", 1, "+50.753", "1:21.904"),
    ("perez", "Sergio Pérez", "Red Bull", 14, 69, "Finished", 0, "+1:02.341", "1:21.871"),
    ("bearman", "Oliver Bearman", "Haas F1 Team", 18, 68, "+1 Lap", 0, None, "1:23.119"),
    ("sainz", "Carlos Sainz", "Ferrari", 7, 38, "Accident", 0, None, "1:28.005"),
    ("albon", "Alexander Albon", "Williams", 0, 0, "Did not start", 0, None, None),
)

# driver id -> stops (lap, duration), the two middle times of the final stint (ms)
_STINTS: dict[str, tuple[tuple[tuple[int, str], ...], int, int]] = {
    "max_verstappen": (((32, "23:31.808"),), 82_270, 82_271),
    "norris": (((28, "24.7"), (32, "23:35.363")), 83_360, 83_362),
    "ocon": (((30, "25.112"), (32, "23:33.920")), 82_840, 82_856),
    "russell": (((28, "24.932"), (32, "23:34.104")), 83_010, 83_030),
}
_RED_FLAG_LAP = 32
_FASTEST = ("max_verstappen", 67, "1:20.472")  # the seed's fastest lap: (driver, lap, time)


def _stint_lap_ms(lap: int, seed: int) -> int:
    """A wet early-race lap: 1:26 to 1:30, varying lap by lap."""
    return 86_000 + ((lap * 37 + seed * 11) % 19) * 210


def _final_stint(low: int, high: int, first: int) -> dict[int, int]:
    """Clean laps ``first+1 .. 69`` (the first lap of the stint is its out-lap) whose median is
    ``(low + high) / 2``: half of them at or below ``low``, half at or above ``high``."""
    count = LAPS - first
    half = count // 2
    values = [low - 40 * j for j in range(half)] + [high + 40 * j for j in range(count - half)]
    laps = list(range(first + 1, LAPS + 1))
    return {laps[(k * 7) % count]: values[k] for k in range(count)}


def _driver_laps(driver_id: str, seed: int) -> tuple[list[LapTiming], list[PitStop]]:
    stops, low, high = _STINTS[driver_id]
    times = {lap: _stint_lap_ms(lap, seed) for lap in range(1, _RED_FLAG_LAP + 1)}
    times[1] = 99_000 + seed * 317
    for lap, _ in stops:
        times[lap] += 19_000  # in-lap: the pit lane
        times[lap + 1] = times.get(lap + 1, 0) + 17_000  # out-lap (overwritten after lap 32)
    times[_RED_FLAG_LAP] = 1_544_118 + seed * 97  # the lap the red flag stopped
    times.update(_final_stint(low, high, _RED_FLAG_LAP + 1))
    times[_RED_FLAG_LAP + 1] = 102_500 + seed * 53  # behind the safety car after the restart
    if driver_id == _FASTEST[0]:
        quickest = min(times[lap] for lap in range(_RED_FLAG_LAP + 2, LAPS + 1))
        swap = next(lap for lap, ms in times.items() if ms == quickest)
        times[swap], times[_FASTEST[1]] = times[_FASTEST[1]], parse_lap_time(_FASTEST[2]) // 1000
    laps = [LapTiming(lap, format_lap_time(ms * 1000)) for lap, ms in sorted(times.items())]
    return laps, [PitStop(n, lap, duration) for n, (lap, duration) in enumerate(stops, start=1)]


def _results(laps: dict[str, list[LapTiming]]) -> tuple[RaceResult, ...]:
    best: dict[str, tuple[int, str]] = {}
    for driver_id, _, _, _, done, _, _, _, kept in _CLASSIFICATION:
        if driver_id in laps:
            quickest = min(laps[driver_id], key=lambda lap: parse_lap_time(lap.time))
            best[driver_id] = (quickest.lap, quickest.time)
        elif kept is not None:
            best[driver_id] = (max(2, done - 3 - len(best) % 5), kept)
    ranked = sorted(best, key=lambda driver_id: parse_lap_time(best[driver_id][1]))
    results = []
    for position, row in enumerate(_CLASSIFICATION, start=1):
        driver_id, name, constructor, grid, done, status, points, time, _ = row
        fastest = None
        if driver_id in best:
            lap, lap_time = best[driver_id]
            fastest = FastestLap(rank=ranked.index(driver_id) + 1, lap=lap, time=lap_time)
        results.append(
            RaceResult(
                position, driver_id, name, constructor, grid, done, status, points, time, fastest
            )
        )
    return tuple(results)


_STANDINGS = (
    ("max_verstappen", "Max Verstappen", 393, 8),
    ("norris", "Lando Norris", 331, 3),
    ("leclerc", "Charles Leclerc", 307, 3),
    ("piastri", "Oscar Piastri", 262, 2),
    ("sainz", "Carlos Sainz", 244, 2),
)


def fixture_source() -> InMemorySource:
    """A fresh in-memory archive holding the Interlagos 2024 fixture."""
    laps: dict[str, list[LapTiming]] = {}
    stops: dict[str, list[PitStop]] = {}
    for seed, driver_id in enumerate(_STINTS):
        laps[driver_id], stops[driver_id] = _driver_laps(driver_id, seed)
    race = Race(
        season=SEASON,
        round=ROUND,
        name="São Paulo Grand Prix",
        circuit_id="interlagos",
        date="2024-11-03",
        results=_results(laps),
    )
    standings = Standings(
        SEASON,
        ROUND,
        tuple(Standing(i, d, n, p, w) for i, (d, n, p, w) in enumerate(_STANDINGS, start=1)),
    )
    return InMemorySource(
        races=[race],
        standings=[standings],
        laps={(SEASON, ROUND, d): v for d, v in laps.items()},
        pit_stops={(SEASON, ROUND, d): v for d, v in stops.items()},
    )
