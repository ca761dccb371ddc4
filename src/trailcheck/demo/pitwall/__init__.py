"""The Pit Wall, an F1 race analyst: the seed story of an answer with one invented sentence.

An agent answered "who won the 2024 São Paulo GP" with a fluent paragraph whose trajectory and
reference match were perfect, yet whose fastest-lap sentence came from the model's memory: v1
of ``get_race_results`` returned ``points: 26`` without saying why. The fix was in the tool's
contract (v2 carries ``fastest_lap`` and says what rank 1 is worth), not in the prompt.

- the archive: :class:`RaceDataSource`, over HTTP (:class:`ErgastClient`, the Ergast API that
  Jolpica serves) or in memory (:func:`fixture_source`, the offline Interlagos 2024 fixture);
- the tools: :class:`PitWallTools` (v2) and :class:`PitWallToolsV1`, each a trial environment;
- the agent: :func:`scripted_agent` (the scripted brain, :mod:`.brain`) or :func:`model_agent`,
  with the guards' budget and error policy; :func:`v1_archive` and :func:`v2_archive` are the
  environment factories;
- the eval: the ``pitwall`` and ``pitwall-guardrails`` datasets, and :func:`scripted_judge`,
  the groundedness judge on a scripted model, for offline runs.
"""

from trailcheck.demo.pitwall.agent import (
    BUDGET,
    ERROR_POLICY,
    SYSTEM_PROMPT,
    live_archive,
    model_agent,
    scripted_agent,
    v1_archive,
    v2_archive,
)
from trailcheck.demo.pitwall.brain import pit_wall_brain
from trailcheck.demo.pitwall.dataset import guardrails_dataset, pitwall_dataset
from trailcheck.demo.pitwall.fixture import fixture_source
from trailcheck.demo.pitwall.http_source import ErgastClient
from trailcheck.demo.pitwall.judging import scripted_judge
from trailcheck.demo.pitwall.source import RaceDataSource
from trailcheck.demo.pitwall.tools import PitWallTools, PitWallToolsV1

__all__ = [
    "BUDGET",
    "ERROR_POLICY",
    "SYSTEM_PROMPT",
    "ErgastClient",
    "PitWallTools",
    "PitWallToolsV1",
    "RaceDataSource",
    "fixture_source",
    "guardrails_dataset",
    "live_archive",
    "model_agent",
    "pit_wall_brain",
    "pitwall_dataset",
    "scripted_agent",
    "scripted_judge",
    "v1_archive",
    "v2_archive",
]
