"""Deletion on request in a store redacted at intake: ``store delete --user/--session ID
--redact RULES`` finds the traces whose ids were stored hashed by those rules, and only them;
without the rules the hashed traces are not found (the id as given is nowhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.redaction import KeyedHash, load_redactor
from trailcheck.store import Store
from trailcheck.testing import TraceBuilder
from trailcheck.trace.jsonl import dump_trace

HASH_KEY = "erasure-test-hash-key-0123456789"
RULES = """\
hash_key_env: TEST_ERASURE_REDACT_KEY
fields:
  - field: user.id
    action: hash
  - field: session_id
    action: hash
"""


def _ingest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    monkeypatch.setenv("TEST_ERASURE_REDACT_KEY", HASH_KEY)
    rules = tmp_path / "redact.yaml"
    rules.write_text(RULES)
    traces = [
        TraceBuilder(trace_id, input="Refund please")
        .metadata(**{"user.id": user, "session_id": session})
        .build()
        for trace_id, user, session in (
            ("alice-1", "alice", "conv-A"),
            ("alice-2", "alice", "conv-B"),
            ("bob-1", "bob", "conv-C"),
            ("numeric", 42, "conv-D"),
        )
    ]
    source = tmp_path / "traces.jsonl"
    source.write_bytes(b"".join(dump_trace(trace) + b"\n" for trace in traces))
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["ingest", str(source), "--db", db, "--redact", str(rules)]) == 0
    return db, rules


def _remaining(db: str) -> set[str]:
    with Store.open(db) as store:
        return {trace.trace_id for trace in store.iter_traces()}


def test_a_user_whose_id_was_hashed_at_intake_is_deleted_with_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db, rules = _ingest(tmp_path, monkeypatch)
    with Store.open(db) as store:
        stored = store.get_trace("alice-1").metadata["user.id"]
    assert stored == KeyedHash(HASH_KEY.encode()).of("alice")  # the id is not in the store
    assert run_cli(["store", "delete", "--user", "alice", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["traces"] == 0
    assert _remaining(db) == {"alice-1", "alice-2", "bob-1", "numeric"}

    delete = ["store", "delete", "--db", db, "--redact", str(rules), "--json"]
    assert run_cli([*delete, "--user", "alice"]) == 0
    assert json.loads(capsys.readouterr().out)["traces"] == 2
    assert _remaining(db) == {"bob-1", "numeric"}
    assert run_cli([*delete, "--user", "42"]) == 0  # sent as an integer, hashed as one
    assert _remaining(db) == {"bob-1"}


def test_a_session_whose_id_was_hashed_at_intake_is_deleted_with_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, rules = _ingest(tmp_path, monkeypatch)
    delete = ["store", "delete", "--db", db, "--redact", str(rules)]
    assert run_cli([*delete, "--session", "conv-C"]) == 0
    assert _remaining(db) == {"alice-1", "alice-2", "numeric"}


def test_rules_that_hash_nothing_look_for_the_id_as_given(tmp_path: Path) -> None:
    assert load_redactor("builtin").stored_forms("alice") == ("alice",)
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["store", "delete", "--trace", "t1", "--redact", "builtin", "--db", db]) == 2
