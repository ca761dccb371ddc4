"""Production-like traffic for the support shop: what customers wrote, with no expectations.

The demo's improvement loop starts here. v1 answers these six messages as it would in
production; its traces go into a store, where detection, clustering and promotion turn them
into candidate cases. Three messages are the same complaint in other words (a refund asked for
without proof of identity), two are the same reschedule, and one is a plain status question,
so clustering has near-duplicates to fold and a trace with nothing wrong to leave alone.
"""

from __future__ import annotations

from trailcheck.cases import Case, Dataset
from trailcheck.demo.support.agent import prompt_only_shop, v1_agent
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import run
from trailcheck.trace import Trace

TRAFFIC_MESSAGES: tuple[tuple[str, str], ...] = (
    ("traffic-1", "My headphones from order A-1001 stopped working. Please refund me."),
    ("traffic-2", "Order A-1007 arrived with both books damaged. Please refund it."),
    ("traffic-3", "The books in order A-1007 arrived damaged, please refund the order."),
    (
        "traffic-4",
        "Could you move the delivery of order A-1002 to Friday, June 19? My card ends in 4242.",
    ),
    ("traffic-5", "Please reschedule order A-1002 to Friday, June 19. My card ends in 4242."),
    ("traffic-6", "Where is my order A-1006?"),
)


def traffic_dataset() -> Dataset:
    """The traffic as a dataset of unreviewed monitoring cases: inputs only, nothing expected."""
    cases = [
        Case(id=case_id, input=text, split="monitoring", review_status="candidate")
        for case_id, text in TRAFFIC_MESSAGES
    ]
    return Dataset(name="support-traffic", cases=cases)


def record_v1_traffic() -> list[Trace]:
    """v1 answering each traffic message once, as the traces production would have recorded."""
    result = run(traffic_dataset(), v1_agent, prompt_only_shop, options=RunOptions(k=1))
    return [trace for trace in result.traces if trace is not None]
