"""Where a failure began, in the web UI: ``began at step 2, search_orders
(tool_returned_wrong_data)``, linked to that span's row on the trace page (each span row is an
anchor, ``#span-ID``, highlighted when it is the target)."""

from __future__ import annotations

from urllib.parse import quote

from trailcheck.report.html_markup import Html, el, join
from trailcheck.scorers import Attribution
from trailcheck.ui.traces_page import trace_href

__all__ = ["attribution_link", "span_anchor"]


def span_anchor(span_id: str) -> str:
    """The id of a span's row on the trace page."""
    return f"span-{span_id}"


def attribution_link(trace_id: str, attribution: Attribution) -> Html:
    """The attributed step, linked to its span on the trace's page, with the evidence as the
    link's title."""
    href = f"{trace_href(trace_id)}#{quote(span_anchor(attribution.span_id), safe='')}"
    where = f"step {attribution.step}, {attribution.name}"
    return join(
        [
            "began at ",
            el("a", where, href=href, title=attribution.evidence, data_testid="attribution"),
            f" ({attribution.category})",
        ]
    )
