"""The peer files of tests/conformance/peers/ cover the corpus as it is recorded now, and the
comparison holds a peer to the table of truth honestly: nothing shown is "not read", not
"wrong"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conformance.corpus import CORPUS, Configuration
from tests.conformance.peers.compare import (
    ABSENT,
    NOT_READ,
    READ,
    WRONG,
    available_peers,
    cell,
)
from tests.conformance.peers.recording_file import fingerprint, load_peer_file
from tests.conformance.truth import SCENARIO, Run


@pytest.mark.parametrize("peer", available_peers())
def test_the_peer_file_was_made_from_every_recording_as_it_is_now(peer: str) -> None:
    recordings = load_peer_file(peer)["recordings"]
    missing = [c.fixture for c in CORPUS if c.fixture not in recordings]
    changed = [
        c.fixture
        for c in CORPUS
        if c.fixture in recordings
        and recordings[c.fixture]["fingerprint"] != fingerprint(c.fixture)
    ]
    regenerate = (
        f"recorded after tests/conformance/peers/{peer}.json was made: regenerate it with"
        f" tests/conformance/peers/read_with_{peer}.py in its venv (see the peers README)"
    )
    assert missing == [], regenerate
    assert changed == [], regenerate


def test_both_peers_are_there() -> None:
    assert available_peers() == ["agentevals", "phoenix"]


def _reading(run: Run, **changes: Any) -> dict[str, Any]:
    """What a peer that reads ``run`` perfectly would write, with ``changes``."""
    reading = {
        "calls": [
            {
                "name": call.name,
                "arguments": call.arguments,
                "result": call.result,
                "error": call.error is not None,
            }
            for group in run.calls
            for call in group
        ],
        "input": run.input,
        "answer": run.answer,
        "tokens": list(run.tokens),
        "models": [SCENARIO.MODEL],
        "session": SCENARIO.SESSION_ID,
    }
    return {**reading, **changes}


CONTENT_ON = next(c for c in CORPUS if not c.absent and not c.gaps)
CONTENT_OFF = next(c for c in CORPUS if "answer" in c.absent and "tokens" not in c.absent)


def _cell(column: str, configuration: Configuration, **changes: Any) -> str:
    return cell(column, configuration, [_reading(r, **changes) for r in configuration.runs]).mark


def test_a_perfect_reading_is_read_in_every_column() -> None:
    for column in ("calls", "arguments", "results", "errors", "answer", "input", "tokens"):
        assert _cell(column, CONTENT_ON) == READ, column


def test_nothing_shown_is_not_read_and_something_else_is_wrong() -> None:
    assert _cell("answer", CONTENT_ON, answer=None) == NOT_READ
    assert _cell("answer", CONTENT_ON, answer="Done.") == WRONG
    assert _cell("tokens", CONTENT_ON, tokens=None) == NOT_READ
    assert _cell("calls", CONTENT_ON, calls=[]) == NOT_READ
    assert cell("input", CONTENT_ON, [None] * len(CONTENT_ON.runs)).mark == NOT_READ


def test_json_text_counts_as_the_data_it_encodes() -> None:
    def as_text(run: Run) -> dict[str, Any]:
        calls = _reading(run)["calls"]
        return _reading(run, calls=[{**c, "result": json.dumps(c["result"])} for c in calls])

    assert cell("results", CONTENT_ON, [as_text(r) for r in CONTENT_ON.runs]).mark == READ


def test_a_column_the_library_does_not_record_must_show_nothing() -> None:
    assert _cell("answer", CONTENT_OFF, answer=None) == ABSENT
    found = cell("answer", CONTENT_OFF, [_reading(r) for r in CONTENT_OFF.runs])
    assert found.mark == WRONG
    assert "where nothing was recorded" in (found.why or "")
