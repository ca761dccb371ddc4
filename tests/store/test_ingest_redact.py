"""``trailcheck ingest --redact``: traces full of planted secrets (trailcheck JSONL, and the OTLP
recordings of a real instrumentation) are stored redacted, with their counts, and none of the
planted values is in the database file's bytes; a bad rules file stops the command before a
store is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.otlp_bodies import REAL, REAL_PAIR, REFUND_INPUT
from trailcheck.cli import run_cli
from trailcheck.redaction import REDACTIONS_KEY, KeyedHash
from trailcheck.store import Store
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message, SpanEvent, Trace
from trailcheck.trace.jsonl import dump_trace

HASH_KEY = "ingest-test-hash-key-0123456789"
RULES = """\
hash_key_env: TEST_INGEST_REDACT_KEY
fields:
  - field: customer_id
    action: hash
  - field: dob
    action: drop
"""
EMAIL = "planted.person@example.org"
PHONE = "+44 20 7946 0958"
CARD = "5500 0000 0000 0004"
IBAN = "DE89370400440532013000"
OPENAI_KEY = "sk-proj-PlantedIngestKey0123456789"
URL_PASSWORD = "PlantedIngestPassw0rd"
PEM_BODY = "MIIEpAIBAAKCAQEAplantedIngestKey0123456789"
BEARER = "PlantedIngestBearer0123456789"
CUSTOMER_ID = "CUST-INGEST-0042"
CONTROL = "order A-1001 was refunded in full"
PLANTED = (EMAIL, PHONE, CARD, IBAN, OPENAI_KEY, URL_PASSWORD, PEM_BODY, BEARER, CUSTOMER_ID)


def _planted(trace_id: str) -> Trace:
    key = f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----"
    trace = (
        TraceBuilder(trace_id, input=[Message(role="user", content=f"I'm {EMAIL}, {PHONE}")])
        .llm(output="checking", input_messages=[Message(role="system", content=key)])
        .tool(
            "issue_refund",
            {"customer_id": CUSTOMER_ID, "card": CARD, "dob": 19700101, "amount": 129},
            result={"api_key": OPENAI_KEY, "db": f"mysql://shop:{URL_PASSWORD}@db/shop"},
        )
        .output(f"{CONTROL}; paid to {IBAN}")
        .metadata(customer_id=CUSTOMER_ID)
        .build()
    )
    root = trace.spans[0].model_copy(
        update={
            "attributes": {"http.request.header.x-api-key": [OPENAI_KEY]},
            "events": [
                SpanEvent(
                    name="log",
                    time_ns=trace.spans[0].start_ns,
                    attributes={"line": f"Bearer {BEARER}"},
                )
            ],
        }
    )
    return trace.model_copy(update={"spans": [root, *trace.spans[1:]]})


def _file_bytes(path: Path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_ingest_redact_stores_the_traces_redacted_and_no_planted_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_INGEST_REDACT_KEY", HASH_KEY)
    rules = tmp_path / "redact.yaml"
    rules.write_text(RULES)
    source = tmp_path / "traces.jsonl"
    source.write_bytes(b"".join(dump_trace(_planted(t)) + b"\n" for t in ("t1", "t2")))
    path = tmp_path / "store.db"
    db = f"sqlite:///{path}"
    assert run_cli(["ingest", str(source), "--db", db, "--redact", str(rules)]) == 0
    err = " ".join(capsys.readouterr().err.split())  # as one line, however it was wrapped
    assert "→ 2 traces imported" in err
    assert (
        "redacted: 24 redactions in 2 traces (bearer_token 2, card_number 2,"
        " drop:dob 2, email 2, hash:customer_id 4, iban 2, phone 2, private_key 2,"
        " secret_field 4, url_password 2)"
    ) in err
    on_disk = _file_bytes(path)
    assert CONTROL.encode() in on_disk
    assert [value for value in PLANTED if value.encode() in on_disk] == []
    with Store.open(db) as store:
        trace = store.get_trace("t1")
    hashed = KeyedHash(HASH_KEY.encode())
    [call] = trace.tool_calls
    assert call.arguments == {
        "customer_id": hashed.of(CUSTOMER_ID),
        "card": "[REDACTED:card_number]",
        "dob": None,  # a dropped number is null, not text
        "amount": 129,
    }
    assert call.result == {
        "api_key": "[REDACTED:secret_field]",
        "db": "mysql://shop:[REDACTED:url_password]@db/shop",
    }
    assert trace.metadata["customer_id"] == hashed.of(CUSTOMER_ID)  # still groups the traces
    assert trace.final_output == f"{CONTROL}; paid to [REDACTED:iban]"
    counts = trace.metadata[REDACTIONS_KEY]
    assert counts["email"] == {"input": 1}
    assert counts["phone"] == {"input": 1}
    assert counts["private_key"] == {"span.llm.input_messages": 1}
    assert counts["bearer_token"] == {"span.events.attributes.line": 1}
    assert counts["secret_field"] == {
        "span.attributes.http.request.header.x-api-key": 1,
        "span.tool.result": 1,
    }
    assert counts["drop:dob"] == {"span.tool.arguments": 1}
    assert counts["hash:customer_id"] == {"metadata.customer_id": 1, "span.tool.arguments": 1}
    # The same file again is the same redacted traces: unchanged, not conflicts.
    assert run_cli(["ingest", str(source), "--db", db, "--redact", str(rules)]) == 0
    assert "0 traces imported, 2 unchanged, 0 conflicts" in capsys.readouterr().err


def test_ingest_redact_builtin_redacts_an_otlp_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.db"
    db = f"sqlite:///{path}"
    files = [str(REAL / f"{REAL_PAIR}.{signal}.pb") for signal in ("traces", "logs")]
    assert run_cli(["ingest", *files, "--db", db, "--redact", "builtin"]) == 0
    assert "redacted: " in capsys.readouterr().err
    assert b"ana@example.com" not in _file_bytes(path)
    with Store.open(db) as store:
        [refund] = [
            trace
            for trace in store.iter_traces()
            if trace.input_text == REFUND_INPUT.replace("ana@example.com", "[REDACTED:email]")
        ]
    assert refund.metadata[REDACTIONS_KEY]["email"]["input"] == 1


def test_a_bad_rules_file_stops_ingest_before_a_store_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "redact.yaml"
    rules.write_text("patterns:\n  - name: x\n    regex: '('\n")
    source = tmp_path / "traces.jsonl"
    source.write_bytes(dump_trace(_planted("t1")) + b"\n")
    path = tmp_path / "store.db"
    assert (
        run_cli(["ingest", str(source), "--db", f"sqlite:///{path}", "--redact", str(rules)]) == 2
    )
    assert "redact.yaml:3: field 'patterns[0].regex': not a regular expression" in (
        capsys.readouterr().err
    )
    assert not path.exists()
