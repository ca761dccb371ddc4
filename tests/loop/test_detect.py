"""Each built-in label fires on a trace that has its failure and not on the fixed trace."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator

import pytest

from tests.waiting import forever
from trailcheck.capture.recorder import Recorder
from trailcheck.loop import builtin_rules, detect, parse_rules
from trailcheck.testing import TraceBuilder
from trailcheck.trace import SpanEvent, Status, Trace

RATE_LIMITED = "429 Too Many Requests: rate limit exceeded"


def _labels(trace: Trace) -> set[str]:
    return {finding.label for finding in detect([trace])}


def _with_root_error(trace: Trace, exception_type: str) -> Trace:
    root, *rest = trace.spans
    event = SpanEvent(
        name="exception", time_ns=root.end_ns or 0, attributes={"exception.type": exception_type}
    )
    failed = root.model_copy(
        update={"status": Status(code="error", message=exception_type), "events": [event]}
    )
    return trace.model_copy(update={"spans": [failed, *rest], "final_output": None})


def refund(verified: bool) -> Trace:
    builder = TraceBuilder("t-refund", input="Refund order A-1001")
    if verified:
        builder.tool("verify_identity", {"customer_id": "c1"}, result={"ok": True})
    builder.tool("issue_refund", {"order_id": "A-1001"}, result={"refund_id": "r1"})
    return builder.output("Your refund has been issued.").build()


def loop(looping: bool) -> Trace:
    builder = TraceBuilder("t-loop", input="Find my order")
    rounds = 3 if looping else 1
    for index in range(rounds):
        builder.tool("search_orders", {"q": f"order {index}"}, result=[])
        builder.tool("get_customer", {"id": f"c{index}"}, result={})
    return builder.output("I could not find it.").build()


def claim(changed: bool) -> Trace:
    after = {"refunds": [{"order_id": "A-1"}]} if changed else {"refunds": []}
    return (
        TraceBuilder("t-claim", input="Refund A-1")
        .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
        .llm("Your refund has been issued.")
        .output("Your refund has been issued.")
        .state(before={"refunds": []}, after=after)
        .build()
    )


def dates(matching: bool) -> Trace:
    sent = "2026-06-19" if matching else "2026-06-20"
    return (
        TraceBuilder("t-date", input="Please move my appointment to June 19, 2026")
        .tool("reschedule", {"appointment_id": "ap1", "date": sent}, result={"ok": True})
        .output("Done, see you then.")
        .build()
    )


def answer(answered: bool) -> Trace:
    builder = TraceBuilder("t-answer", input="Where is my order?")
    builder.tool("lookup_order", {"order_id": "A-1"}, result={"status": "shipped"})
    return builder.output("It has shipped." if answered else None).build()


def error_ignored(ignored: bool) -> Trace:
    builder = TraceBuilder("t-error", input="Cancel order A-1")
    builder.tool("cancel_order", {"order_id": "A-1"}, error="order already shipped")
    final = "Your order has been cancelled." if ignored else "I could not cancel it: it shipped."
    return builder.output(final).build()


def rate_limit(retried: bool) -> Trace:
    builder = TraceBuilder("t-rate", input="What's the weather in Oslo?")
    builder.tool("weather", {"city": "Oslo"}, error=RATE_LIMITED)
    if retried:
        builder.tool("weather", {"city": "Oslo"}, error=RATE_LIMITED)
    final = "Sunny." if retried else "The weather service is busy; please try again shortly."
    return builder.output(final).build()


def excessive(too_many: bool) -> Trace:
    builder = TraceBuilder("t-many", input="Summarise my orders")
    for index in range(25 if too_many else 5):
        builder.tool("get_order", {"order_id": f"A-{index}"}, result={"total": 10})
    return builder.output("You have orders.").build()


def grounding(supported: bool) -> Trace:
    total = 129 if supported else 139
    return (
        TraceBuilder("t-number", input="How much was order A-1?")
        .tool("lookup_order", {"order_id": "A-1"}, result={"total": 129})
        .output(f"Order A-1 cost ${total}.")
        .build()
    )


def crashed(crash: bool) -> Trace:
    trace = answer(answered=True)
    return _with_root_error(trace, "KeyError") if crash else trace


def timed_out(timeout: bool) -> Trace:
    trace = answer(answered=True)
    return _with_root_error(trace, "asyncio.exceptions.CancelledError") if timeout else trace


CASES: list[tuple[str, Callable[[bool], Trace], bool]] = [
    # (label, trace maker, the argument that makes the failing trace)
    ("refund_without_identity_check", refund, False),
    ("tool_call_loop", loop, True),
    ("claimed_success_without_state_change", claim, False),
    ("date_argument_mismatch", dates, False),
    ("no_final_answer", answer, False),
    ("tool_error_ignored", error_ignored, True),
    ("retried_same_tool_after_rate_limit", rate_limit, True),
    ("excessive_tool_calls", excessive, True),
    ("unsupported_number_in_answer", grounding, False),
    ("agent_crashed", crashed, True),
    ("agent_timeout", timed_out, True),
]


def test_every_builtin_label_has_a_case() -> None:
    assert {rule.label for rule in builtin_rules()} == {label for label, _, _ in CASES}


@pytest.mark.parametrize(("label", "make", "failing"), CASES, ids=[c[0] for c in CASES])
def test_label_fires_on_failure_and_not_on_fix(
    label: str, make: Callable[[bool], Trace], failing: bool
) -> None:
    bad, fixed = make(failing), make(not failing)
    findings = [f for f in detect([bad]) if f.label == label]
    assert len(findings) == 1
    finding = findings[0]
    assert finding.source == f"rule:{label}"
    assert finding.trace_id == bad.trace_id
    assert "\n" not in finding.reason
    assert label not in _labels(fixed)


def test_evidence_names_the_offending_spans() -> None:
    (finding,) = [f for f in detect([refund(verified=False)]) if f.label.startswith("refund")]
    assert finding.evidence == ("span-001",)
    assert "issue_refund at span-001 had no earlier successful verify_identity" in finding.reason
    (loop_finding,) = [f for f in detect([loop(looping=True)]) if f.label == "tool_call_loop"]
    assert loop_finding.evidence == tuple(f"span-{i:03d}" for i in range(1, 7))
    assert "repeated 3 times >= 3" in loop_finding.reason


def test_date_reason_names_both_dates() -> None:
    (finding,) = [f for f in detect([dates(matching=False)]) if f.label.startswith("date")]
    assert "date='2026-06-20' is 2026-06-20, but the user input names 2026-06-19" in finding.reason


def test_a_crash_is_not_also_a_missing_answer() -> None:
    labels = _labels(crashed(crash=True))
    assert "agent_crashed" in labels
    assert "no_final_answer" not in labels
    assert "agent_timeout" not in labels


def test_a_timeout_is_not_a_crash() -> None:
    labels = _labels(timed_out(timeout=True))
    assert labels >= {"agent_timeout"}
    assert "agent_crashed" not in labels


def test_an_input_without_dates_is_not_checked() -> None:
    trace = (
        TraceBuilder("t", input="Move it to tomorrow please")
        .tool("reschedule", {"date": "2026-06-20"}, result={"ok": True})
        .output("Moved.")
        .build()
    )
    assert "date_argument_mismatch" not in _labels(trace)


def test_a_backoff_long_enough_is_not_a_finding() -> None:
    trace = rate_limit(retried=True)
    first, second = trace.spans[1], trace.spans[2]
    later = 2_000_000_000  # two seconds later
    moved = second.model_copy(
        update={"start_ns": second.start_ns + later, "end_ns": (second.end_ns or 0) + later}
    )
    root = trace.spans[0].model_copy(update={"end_ns": moved.end_ns})
    waited = trace.model_copy(update={"spans": [root, first, moved]})
    assert "retried_same_tool_after_rate_limit" not in _labels(waited)


def test_a_custom_policy_rule_for_any_pair_of_tools() -> None:
    rules = parse_rules(
        """
rules:
  - name: delete_without_backup
    label: delete_without_backup
    severity: critical
    kind: policy
    policy: {name: must_precede, tool: backup, before: delete_account}
"""
    )
    bad = TraceBuilder("t1", input="delete me").tool("delete_account", {"id": 1}).build()
    good = (
        TraceBuilder("t2", input="delete me")
        .tool("backup", {"id": 1}, result="ok")
        .tool("delete_account", {"id": 1})
        .build()
    )
    findings = list(detect([bad, good], rules))
    assert [(f.trace_id, f.label, f.severity) for f in findings] == [
        ("t1", "delete_without_backup", "critical")
    ]


def test_detect_streams_one_trace_at_a_time() -> None:
    pulled: list[str] = []

    def traces() -> Iterator[Trace]:
        for index in range(3):
            pulled.append(f"t{index}")
            yield TraceBuilder(f"t{index}", input="hi").tool("lookup", {}).build()

    stream = detect(traces())
    first = next(stream)
    assert first.trace_id == "t0"
    assert pulled == ["t0"]


def test_crash_and_timeout_as_the_recorder_captures_them() -> None:
    async def record() -> tuple[Trace, Trace]:
        stopped = Recorder(agent_name="a", input="hi")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.01), stopped:
                await forever()  # the timeout always fires, however slow the machine
        crashing = Recorder(agent_name="a", input="hi")
        with contextlib.suppress(KeyError):
            async with crashing:
                raise KeyError("order")
        return stopped.trace, crashing.trace

    stopped, crashed_run = asyncio.run(record())
    assert _labels(stopped) == {"agent_timeout"}
    assert _labels(crashed_run) == {"agent_crashed"}
    (finding,) = detect([crashed_run])
    assert finding.reason.endswith("raised KeyError")
    assert finding.evidence == (crashed_run.spans[0].span_id,)


@pytest.mark.parametrize(
    ("policy", "fires"),
    [
        ("{name: forbidden, tool: delete_account}", True),
        ("{name: at_most, tool: lookup, count: 1}", True),
        ("{name: at_most, tool: lookup, count: 2}", False),
        ("{name: requires_confirmation_before, tool: delete_account}", True),
    ],
)
def test_the_policy_kind_wraps_every_policy_rule(policy: str, fires: bool) -> None:
    rules = parse_rules(
        f"rules:\n  - {{name: p, label: broken_policy, severity: high, kind: policy,"
        f" policy: {policy}}}\n"
    )
    trace = (
        TraceBuilder("t", input="hi")
        .tool("lookup", {"id": 1})
        .tool("lookup", {"id": 2})
        .tool("delete_account", {"id": 1})
        .build()
    )
    assert bool(list(detect([trace], rules))) is fires


def test_date_rule_settings_narrow_what_is_checked() -> None:
    rules = parse_rules(
        "rules:\n  - {name: d, label: date_argument_mismatch, severity: high,"
        " kind: date_argument, tools: [book], arguments: [slot.date]}\n"
    )
    trace = (
        TraceBuilder("t", input="Book me in on June 19 please")
        .tool("search", {"date": "2026-01-01"})
        .tool("book", {"slot": {"date": "2027-06-19"}, "created": "2026-01-01"})
        .tool("book", {"slot": {"date": "2026-06-20"}})
        .build()
    )
    (finding,) = detect([trace], rules)
    assert finding.evidence == ("span-003",)
    assert (
        "slot.date='2026-06-20' is 2026-06-20, but the user input names --06-19" in finding.reason
    )
