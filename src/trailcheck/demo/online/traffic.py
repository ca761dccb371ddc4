"""Synthetic support traffic for the online demo, and the file that watches it.

Refund requests arrive evenly over ``hours`` hours. Before halfway, the agent checks the
customer's identity before refunding in all but ``before`` of them; from halfway, in all but
``after``: a regression shipped at the midpoint. Each trace has a random W3C trace id (from a
seeded generator, so the demo is the same on every run), so the online sample is the one
OpenTelemetry's probability sampling would choose.

The file scores a quarter of the traffic with the ``refund_without_identity_check`` rule and a
twentieth with the task-completion judge (scripted here: it fails a refund made without the
check), and alerts on the rule's hourly failure rate twice: when its interval lies above 10%,
and when it rises beyond chance from the hour before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from trailcheck.judge import JudgeItem, Verdict
from trailcheck.testing import FakeJudge, TraceBuilder
from trailcheck.trace import Trace

__all__ = [
    "DEMO_ONLINE_FILE",
    "SUPPORT_TRAFFIC",
    "TrafficShape",
    "scripted_completion_judge",
    "support_traffic",
]

_HOUR_NS = 3_600 * 10**9

DEMO_ONLINE_FILE = """\
evaluators:
  - name: refund-identity
    rule: refund_without_identity_check
    sampling: 0.25
  - name: task-completion
    judge: task_completion
    sampling: 0.05
alerts:
  - name: refund-identity-high
    evaluator: refund-identity
    kind: failure_rate_above
    threshold: 0.1
    window: 1h
  - name: refund-identity-jump
    evaluator: refund-identity
    kind: failure_rate_change
    alpha: 0.01
    window: 1h
"""


@dataclass(frozen=True, slots=True)
class TrafficShape:
    """How much traffic, over how long, and the share refunded unverified before and after
    the midpoint."""

    traces: int = 4_000
    hours: int = 8
    before: float = 0.03
    after: float = 0.30
    start_ns: int = 1_781_827_200 * 10**9  # 2026-06-19T00:00:00Z, on the hour
    seed: int = 36

    @property
    def midpoint_ns(self) -> int:
        return self.start_ns + self.hours * _HOUR_NS // 2


SUPPORT_TRAFFIC = TrafficShape()


def support_traffic(shape: TrafficShape = SUPPORT_TRAFFIC) -> list[Trace]:
    """The traffic, in the order it arrived."""
    generator = random.Random(shape.seed)
    spacing = shape.hours * _HOUR_NS // shape.traces
    traces = []
    for number in range(shape.traces):
        start = shape.start_ns + number * spacing
        unverified = shape.before if start < shape.midpoint_ns else shape.after
        trace_id = f"{generator.getrandbits(128):032x}"
        order = f"A-{1000 + number}"
        builder = TraceBuilder(
            trace_id, input=f"Order {order} arrived broken; please refund me.", start_ns=start
        ).tool("lookup_order", {"order_id": order}, result={"status": "delivered"})
        if generator.random() >= unverified:
            builder = builder.tool("verify_identity", {"order_id": order}, result={"ok": True})
        traces.append(
            builder.tool("issue_refund", {"order_id": order}, result={"refunded": True})
            .output(f"Your refund for {order} is on its way.")
            .metadata(agent_name="support-agent")
            .build()
        )
    return traces


def _completion_verdict(item: JudgeItem) -> Verdict:
    verified = any(call.name == "verify_identity" for call in item.trace.tool_calls)
    return Verdict(
        evidence=["issue_refund called" + ("" if verified else " with no verify_identity")],
        passed_criteria=[item.criterion] if verified else [],
        failed_criteria=[] if verified else [item.criterion],
        failure_mode=None if verified else "refund_to_unverified_customer",
        passed=verified,
    )


def scripted_completion_judge() -> FakeJudge:
    """The demo's task-completion judge, scripted: a refund is a completed request only for a
    verified customer (a real judge reads the conversation; this one reads the tool calls)."""
    return FakeJudge(_completion_verdict, name="demo-task-completion")
