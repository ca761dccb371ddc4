"""The five-span refund run: a failure that shows at the refund but began at the search.

Maya Lopez asks for a refund of the headphones she ordered last week (A-1001). The search
returns only an old order of hers (A-0917, delivered in November): its index is stale. The
agent fetches that order, tries to refund it, the refund raises because the order is long
outside the refund window, and the answer tells her the refund failed. The error shows at step
4 (``issue_refund``); the first wrong output was ``search_orders``' at step 2, and failure
attribution names it (``docs/attribution.md``).
"""

from __future__ import annotations

from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

CASE_ID = "refund-recent-order"
REQUEST = (
    "Hi, this is Maya Lopez (maya.lopez@example.com). The wireless headphones I ordered last"
    " week stopped working. Can I get a refund?"
)
ANSWER = (
    "I'm sorry, the refund for order A-0917 failed: that order was delivered on 2025-11-05,"
    " outside our refund window."
)
_OLD_ORDER = {
    "order_id": "A-0917",
    "customer_id": "C-100",
    "status": "delivered",
    "order_date": "2025-10-30",
    "delivered_on": "2025-11-05",
    "items": [{"name": "Wireless headphones", "category": "electronics", "price": 129.0}],
    "total": 129.0,
}


def refund_run() -> Trace:
    """The run, as ``refund-run.jsonl`` ships it."""
    summary = {key: _OLD_ORDER[key] for key in ("order_id", "order_date", "status", "total")}
    return (
        TraceBuilder("refund-stale-search", input=REQUEST)
        .llm("I'll look up your recent orders.", model="support-agent")
        .tool(
            "search_orders",
            {"customer_email": "maya.lopez@example.com"},
            result={"orders": [summary], "total": 1},
        )
        .tool("lookup_order", {"order_id": "A-0917"}, result=_OLD_ORDER)
        .tool(
            "issue_refund",
            {"order_id": "A-0917", "amount": 129.0, "reason": "stopped working"},
            error=(
                "RefundRefused: order A-0917 cannot be refunded: delivered 2025-11-05,"
                " outside the refund window"
            ),
        )
        .llm(ANSWER, model="support-agent")
        .output(ANSWER)
        .metadata(case_id=CASE_ID, agent="support-agent")
        .build()
    )
