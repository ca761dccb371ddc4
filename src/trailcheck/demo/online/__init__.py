"""The online demo: support traffic whose refund-without-identity rate jumps halfway through,
scored online by a rule on a quarter of it and a scripted judge on a twentieth, with alerts on
the rule's failure rate (``trailcheck demo online``)."""

from trailcheck.demo.online.traffic import (
    DEMO_ONLINE_FILE,
    SUPPORT_TRAFFIC,
    TrafficShape,
    scripted_completion_judge,
    support_traffic,
)

__all__ = [
    "DEMO_ONLINE_FILE",
    "SUPPORT_TRAFFIC",
    "TrafficShape",
    "scripted_completion_judge",
    "support_traffic",
]
