"""The table of truth of the conformance corpus: what every recorded run in
``tests/fixtures/real/`` did, in the terms a grader reads, and how to check a trace against it.

Each recording plays the conversations of ``recorders/scenario.py``; the truth of each run is
derived from that script (the tools' own functions give the results), never written by hand
from a recording. A *column* is one thing a reader must get right: the calls in order, their
arguments, their results (the data the tool returned, however the framework wrapped it), the
failing call's error, the final answer, the user's input, the tokens, the model, the session.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from trailcheck.trace import Trace

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def _scenario() -> ModuleType:
    name = "conformance_scenario"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REAL / "recorders" / "scenario.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # registered first: its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SCENARIO = _scenario()


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    result: Any  # what the tool returned; None for a call that failed
    error: str | None = None  # a text the error must hold


@dataclass(frozen=True)
class Run:
    """One user turn of a conversation: what the trace of that turn must show. ``calls`` are in
    order; calls the model asked for in one message form a group whose order is not defined
    (frameworks run them concurrently)."""

    name: str
    input: str
    calls: tuple[tuple[Call, ...], ...]
    answer: str
    tokens: tuple[int, int]


def _calls(turns: list[Any], tools: dict[str, Callable[..., Any]]) -> list[tuple[Call, ...]]:
    groups: list[tuple[Call, ...]] = []
    for turn in turns:
        if not turn.calls:
            continue
        group = []
        for call in turn.calls:
            try:
                group.append(Call(call.name, call.arguments, tools[call.name](**call.arguments)))
            except SCENARIO.ShopToolError as error:
                group.append(Call(call.name, call.arguments, None, str(error)))
        groups.append(tuple(group))
    return groups


def _tokens(turns: list[Any]) -> tuple[int, int]:
    return (sum(t.input_tokens for t in turns), sum(t.output_tokens for t in turns))


def _runs() -> dict[str, Run]:
    runs: dict[str, Run] = {}
    for conversation, exchanges in SCENARIO.CONVERSATIONS.items():
        script = list(SCENARIO.SCRIPTS[conversation])
        for number, exchange in enumerate(exchanges, start=1):
            # A turn's script runs up to (and including) the model's text answer.
            end = next(i for i, turn in enumerate(script) if turn.text is not None) + 1
            turns, script = script[:end], script[end:]
            name = conversation if len(exchanges) == 1 else f"{conversation}.{number}"
            runs[name] = Run(
                name,
                exchange.user,
                tuple(_calls(turns, SCENARIO.TOOLS)),
                exchange.answer,
                _tokens(turns),
            )
    return runs


RUNS = _runs()
COLUMNS = (
    "calls",
    "arguments",
    "results",
    "errors",
    "answer",
    "input",
    "tokens",
    "model",
    "session",
)


def _in_order(trace: Trace, run: Run) -> list[Any] | None:
    """The trace's calls matched to the run's, group by group (a group's calls in any order);
    ``None`` when the names do not line up."""
    calls = list(trace.tool_calls)
    matched: list[Any] = []
    for group in run.calls:
        taken, calls = calls[: len(group)], calls[len(group) :]
        by_name = sorted(taken, key=lambda c: (c.name, str(c.arguments)))
        expected = sorted(group, key=lambda c: (c.name, str(c.arguments)))
        if [c.name for c in by_name] != [c.name for c in expected]:
            return None
        matched.extend(zip(by_name, expected, strict=True))
    return None if calls else matched


def check(column: str, trace: Trace, run: Run) -> str | None:
    """Why ``trace`` gets ``column`` wrong for ``run``; ``None`` when it reads it right."""
    matched = _in_order(trace, run)
    if column == "calls":
        return None if matched is not None else f"calls {[c.name for c in trace.tool_calls]}"
    if column in ("arguments", "results", "errors") and matched is None:
        return "the calls do not line up"
    assert matched is not None or column not in ("arguments", "results", "errors")
    if column == "arguments":
        wrong = [
            (got.name, got.arguments) for got, want in matched if got.arguments != want.arguments
        ]
        return f"arguments {wrong}" if wrong else None
    if column == "results":
        wrong = [
            (got.name, got.result)
            for got, want in matched
            if want.error is None and got.result != want.result
        ]
        return f"results {wrong}" if wrong else None
    if column == "errors":
        # The failing call is flagged, the others are not (some libraries redact the text).
        wrong = [
            (got.name, got.error)
            for got, want in matched
            if (want.error is None) != (got.error is None)
        ]
        return f"errors {wrong}" if wrong else None
    if column == "answer":
        return (
            None if trace.final_text.strip() == run.answer else f"answer {trace.final_text[:80]!r}"
        )
    if column == "input":
        return None if trace.input_text.strip() == run.input else f"input {trace.input_text[:80]!r}"
    if column == "tokens":
        usage = trace.usage
        got = None if usage is None else (usage.input_tokens, usage.output_tokens)
        return None if got == run.tokens else f"tokens {got}"
    if column == "model":
        models = {s.llm.model for s in trace.spans if s.llm is not None and s.llm.model}
        ok = bool(models) and all(m.endswith(SCENARIO.MODEL) for m in models)
        return None if ok else f"models {sorted(models)}"
    if column == "session":
        found = trace.metadata.get("session_id") or trace.metadata.get("conversation_id")
        return None if found == SCENARIO.SESSION_ID else f"session {found!r}"
    raise ValueError(f"no column {column!r}")


def shows_nothing(column: str, trace: Trace) -> str | None:
    """Why ``trace`` shows something for ``column`` where its library recorded nothing (a
    reader must not make it up); ``None`` when it shows nothing."""
    calls = trace.tool_calls
    shown: Any
    if column == "arguments":
        shown = [c.arguments for c in calls if c.arguments]
    elif column == "results":
        shown = [c.result for c in calls if c.result is not None]
    elif column == "errors":
        shown = [c.error for c in calls if c.error is not None]
    elif column == "answer":
        shown = trace.final_text
    elif column == "input":
        shown = trace.input_text
    elif column == "tokens":
        shown = trace.usage and (trace.usage.input_tokens, trace.usage.output_tokens)
    elif column == "model":
        shown = [s.llm.model for s in trace.spans if s.llm is not None and s.llm.model]
    elif column == "session":
        shown = trace.metadata.get("session_id") or trace.metadata.get("conversation_id")
    else:
        raise ValueError(f"{column!r} is never left unrecorded")
    return f"shows {shown!r}" if shown else None
