"""Promotion and redaction: a cluster becomes a redacted candidate case in a dataset file."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.cases import load_dataset
from trailcheck.errors import UsageError
from trailcheck.loop import (
    Cluster,
    Member,
    add_candidate,
    promote,
    redact_text,
    redact_value,
)
from trailcheck.loop.redact import Redaction
from trailcheck.policy import MustPrecedePolicy
from trailcheck.redaction import luhn_valid
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CARD = "4111 1111 1111 1111"
KEY = "sk-proj-abcdefghijklmnop1234"


def test_redaction_replaces_secrets_and_lists_where_never_what() -> None:
    found: list[Redaction] = []
    text = (
        f"mail ann@example.com, card {CARD}, key {KEY}, auth Bearer abc.def-123456,"
        " order 1234567890123 stays"
    )
    redacted = redact_text(text, "input", found)
    assert redacted == (
        "mail [REDACTED:email], card [REDACTED:card_number], key [REDACTED:api_key],"
        " auth [REDACTED:bearer_token], order 1234567890123 stays"
    )
    assert sorted(str(r) for r in found) == [
        "api_key at input",
        "bearer_token at input",
        "card_number at input",
        "email at input",
    ]
    assert all("example" not in r.where and "4111" not in r.where for r in found)
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("1234567890123")


def test_secret_named_keys_are_redacted_at_any_depth() -> None:
    found: list[Redaction] = []
    value = {"headers": {"Authorization": "xyz"}, "items": [{"api_key": "k"}], "n": 3}
    assert redact_value(value, "args", found) == {
        "headers": {"Authorization": "[REDACTED:secret_field]"},
        "items": [{"api_key": "[REDACTED:secret_field]"}],
        "n": 3,
    }
    assert [r.where for r in found] == ["args.headers.Authorization", "args.items[0].api_key"]


def _trace() -> Trace:
    return (
        TraceBuilder("t1", input="Refund order A-1, I'm ann@example.com")
        .tool("lookup_order", {"order_id": "A-1"}, result={"total": 20})
        .tool("issue_refund", {"order_id": "A-1", "email": "ann@example.com"}, result={"ok": 1})
        .output("Your refund has been issued.")
        .state(before={"refunds": [], "orders": 1}, after={"refunds": [{"id": "r"}], "orders": 1})
        .metadata(user_id="u-7")
        .build()
    )


def _cluster() -> Cluster:
    members = (Member("t1", None), Member("t2", None))
    return Cluster("cl-0123456789ab", "refund_without_identity_check", "sig", "t1", members)


def test_promote_makes_a_redacted_candidate_with_proposals() -> None:
    policy = MustPrecedePolicy(tool="verify_identity", before="issue_refund")
    promotion = promote(_cluster(), _trace(), policies=[policy])
    case = promotion.case
    assert case.id == "refund_without_identity_check-0123456789ab"
    assert case.review_status == "candidate"
    assert case.input == "Refund order A-1, I'm [REDACTED:email]"
    assert case.failure_modes == ["refund_without_identity_check"]
    assert case.source_trace_ids == ["t1", "t2"]
    # Proposals, not expectations: nothing is checked until a reviewer adopts them.
    assert case.expected_tools is None
    assert case.expected_arguments == []
    assert case.metadata["proposed"] == {
        "expected_tools": ["lookup_order", "issue_refund"],
        "expected_arguments": [
            {"tool": "lookup_order", "arguments": {"order_id": "A-1"}},
            {"tool": "issue_refund", "arguments": {"order_id": "A-1", "email": "[REDACTED:email]"}},
        ],
        "expected_state": {"refunds": [{"id": "r"}]},
        "policies": [
            {
                "name": "must_precede",
                "tool": "verify_identity",
                "before": "issue_refund",
                "successful": True,
                "bind": {},
            }
        ],
    }
    assert case.metadata["cluster_id"] == "cl-0123456789ab"
    assert case.metadata["user"] == "u-7"
    assert case.metadata["redactions"] == [
        {"kind": "email", "where": "input"},
        {"kind": "email", "where": "proposed.expected_arguments[1].arguments.email"},
    ]
    assert "ann@example.com" not in case.model_dump_json()
    assert case.notes is not None
    assert "confirm or correct" in case.notes


def test_promote_refuses_another_trace_and_an_empty_input() -> None:
    other = TraceBuilder("t2", input="x").build()
    with pytest.raises(UsageError, match="represented by 't1'"):
        promote(_cluster(), other)
    silent = TraceBuilder("t1").build()
    with pytest.raises(UsageError, match="no user input"):
        promote(_cluster(), silent)


def test_add_candidate_creates_then_grows_a_dataset(tmp_path: Path) -> None:
    path = tmp_path / "candidates.yaml"
    case = promote(_cluster(), _trace()).case
    written = add_candidate(path, case)
    assert written.name == "candidates"
    assert [c.id for c in load_dataset(path).cases] == [case.id]
    assert load_dataset(path).cases[0].split in ("regression", "holdout")
    with pytest.raises(UsageError, match="already has case"):
        add_candidate(path, case)
    second = case.model_copy(update={"id": "another", "metadata": {"cluster_id": "cl-x"}})
    grown = add_candidate(path, second)
    assert [c.id for c in grown.cases] == [case.id, "another"]
    assert grown.version != written.version
