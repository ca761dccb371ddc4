"""Factories the runner and the CLI name: the Pit Wall agent, and the archive in v1 or v2.

::

    trailcheck run pitwall.yaml --agent trailcheck.demo.pitwall:scripted_agent \\
        --env trailcheck.demo.pitwall:v1_archive --judge trailcheck.demo.pitwall:scripted_judge

One loop (:class:`~trailcheck.run.tool_agent.ToolAgent`) with the guards' budget and error
policy serves the scripted brain and a real model (``--model`` calls :func:`model_agent`).
The versions are the archive's tools: :func:`v1_archive` has v1 of ``get_race_results``
(no fastest lap), :func:`v2_archive` has v2. Both serve the offline Interlagos 2024 fixture;
:func:`live_archive` is the same tools over the Ergast API that Jolpica serves.
"""

from __future__ import annotations

import httpx

from trailcheck.demo.pitwall.brain import pit_wall_brain
from trailcheck.demo.pitwall.fixture import fixture_source
from trailcheck.demo.pitwall.http_source import ErgastClient
from trailcheck.demo.pitwall.tools import PitWallTools, PitWallToolsV1
from trailcheck.environment import ToolError
from trailcheck.guard import Budget, ErrorPolicy
from trailcheck.models import ChatModel, ScriptedModel
from trailcheck.run.tool_agent import ToolAgent

__all__ = [
    "BUDGET",
    "ERROR_POLICY",
    "SYSTEM_PROMPT",
    "live_archive",
    "model_agent",
    "scripted_agent",
    "v1_archive",
    "v2_archive",
]

SYSTEM_PROMPT = """\
You are the Pit Wall, a Formula 1 race analyst. You answer questions about past races from the
race archive, through your tools: results, drivers' standings, lap times and pit stops.
- Say only what the tools returned. If a tool's result does not explain a figure, do not explain
  it from memory: say what the result shows.
- If the question does not name the season, or the race, ask for it; never guess a season.
- Decline questions the archive cannot answer (weather, tickets, predictions, betting) without
  calling a tool.
- If a tool returns an error, correct your arguments once if the error says how; otherwise tell
  the user what the archive said.
"""

BUDGET = Budget(model_calls=6, tool_calls=8)
"""Per question: a Pit Wall answer takes two model calls; six leaves room to correct an error."""

ERROR_POLICY = ErrorPolicy(recoverable=(ToolError,))
"""What goes back to the model: the archive's errors (:class:`~.errors.PitWallError`, a
ToolError: a missing race, a refused or silent archive) and, as always, refused calls (bad
arguments). Anything else a tool raises, a pydantic error included, is a bug and fails the trial."""


def _agent(model: ChatModel) -> ToolAgent:
    return ToolAgent(model, system_prompt=SYSTEM_PROMPT, budget=BUDGET, error_policy=ERROR_POLICY)


def scripted_agent() -> ToolAgent:
    """The agent on the scripted race engineer (:mod:`.brain`), for tests and the demo."""
    return _agent(ScriptedModel(pit_wall_brain, name="pitwall-scripted"))


def model_agent(model: ChatModel) -> ToolAgent:
    """The same loop, prompt, budget and error policy on a real model."""
    return _agent(model)


def v1_archive() -> PitWallToolsV1:
    """The offline archive with v1 of get_race_results: the fastest lap is dropped."""
    return PitWallToolsV1(fixture_source())


def v2_archive() -> PitWallTools:
    """The offline archive with v2 of get_race_results: the fastest lap is carried."""
    return PitWallTools(fixture_source())


def live_archive(http: httpx.AsyncClient) -> PitWallTools:
    """v2's tools over the live Ergast-compatible API (Jolpica), on ``http``: its owner closes
    it. Not used by tests or the demo, which never leave 127.0.0.1."""
    return PitWallTools(ErgastClient(http))
