"""ADK's evaluation criteria: which exist, what each means in trailcheck, and reading them from a
``test_config.json`` (every criterion without a dataset equivalent is reported, not dropped)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from trailcheck.cases.case import ToolMatch
from trailcheck.cases.importers.adk_files import AdkSource, get_key, load_json
from trailcheck.errors import InputError

TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE_QUALITY = "rubric_based_final_response_quality_v1"
TOOL_USE_QUALITY = "rubric_based_tool_use_quality_v1"
DEFAULT_CRITERIA: dict[str, float] = {TRAJECTORY: 1.0, "response_match_score": 0.8}
MATCH_TYPES: dict[str, ToolMatch] = {
    "EXACT": "exact",
    "IN_ORDER": "in_order",
    "ANY_ORDER": "any_order",
}
# Rubric type → the criterion that judges rubrics of that type.
RUBRIC_CRITERIA = {
    "FINAL_RESPONSE_QUALITY": RESPONSE_QUALITY,
    "TOOL_USE_QUALITY": TOOL_USE_QUALITY,
}
GROUNDEDNESS = re.compile(r"hallucination|grounded", re.IGNORECASE)
# What each criterion with no dataset equivalent is, and what trailcheck offers instead.
CRITERION_NOTES = {
    "response_match_score": "ROUGE-1 overlap with the reference; no deterministic equivalent "
    "(the response scorer checks equality or containment); the reference is kept as "
    "reference_response for the reference judge (--judge reference)",
    "final_response_match_v2": "a model judging the answer against the reference: the reference "
    "judge at run time (--judge reference), not a dataset scorer; reference_response imported",
    "hallucinations_v1": "a model judging each sentence against the context: the groundedness "
    "judge at run time (--judge groundedness), not a dataset scorer",
    RESPONSE_QUALITY: "rubrics imported as case rubrics, for the rubric judge (--judge rubric)",
    TOOL_USE_QUALITY: "rubrics imported as case rubrics, for the rubric judge (--judge rubric)",
    "safety_v1": "a safety judge: no trailcheck equivalent",
    "per_turn_user_simulator_quality_v1": "a model judging each simulated user turn against the "
    "plan and persona: trailcheck's simulator audit checks its own list instead (a leaked goal, "
    "invented facts, contradictions, ending early) and counts a failure as sim_error",
}


def read_criteria(path: Path) -> dict[str, dict[str, Any]]:
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(get_key(data, "criteria"), dict):
        raise InputError(f"{path}: $.criteria: expected an object of criteria")
    criteria: dict[str, dict[str, Any]] = {}
    for name, value in get_key(data, "criteria").items():
        settings = {"threshold": value} if not isinstance(value, dict) else value
        threshold = get_key(settings, "threshold")
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise InputError(f"{path}: $.criteria.{name}: expected a threshold, a number")
        match_type = get_key(settings, "match_type")
        if name == TRAJECTORY and match_type is not None and match_type not in MATCH_TYPES:
            known = ", ".join(MATCH_TYPES)
            raise InputError(
                f"{path}: $.criteria.{name}.match_type: unknown {match_type!r}; known: {known}"
            )
        criteria[name] = settings
    return criteria


def read_user_simulator(path: Path) -> dict[str, Any]:
    """The criteria file's ``user_simulator_config`` (empty when it has none)."""
    data = load_json(path)
    config = get_key(data, "user_simulator_config") if isinstance(data, dict) else None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise InputError(f"{path}: $.user_simulator_config: expected an object")
    return config


def report_criteria(source: AdkSource) -> None:
    for name, settings in source.criteria.items():
        threshold = float(get_key(settings, "threshold"))
        if name != TRAJECTORY:
            note = CRITERION_NOTES.get(name, "no trailcheck equivalent")
            source.note(
                "*", f"criterion {name} (threshold {threshold:g}, {source.criteria_source}): {note}"
            )
        if threshold <= 0.5 and source.num_runs > 1:
            source.trap(
                "*",
                f"criterion {name} threshold {threshold:g} over {source.num_runs} runs: ADK "
                "averages the runs, so a case that passed once and failed once (0.5) clears it",
            )
