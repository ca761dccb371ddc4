"""Usage of a whole run, summed from its model-call spans the same way wherever traces come from
(import or live capture), so one run never reports two different totals."""

from __future__ import annotations

from collections.abc import Sequence

from trailcheck.trace.span import Span, Usage


def _reports_usage(span: Span) -> bool:
    usage = span.llm.usage if span.llm is not None else None
    return usage is not None and any(
        value is not None for value in (usage.input_tokens, usage.output_tokens, usage.cost_usd)
    )


def summed_usage(spans: Sequence[Span]) -> Usage | None:
    """Tokens and cost summed over the llm spans that report them, leaving out a span under an
    llm span that reports them too (one model call instrumented twice counts once). ``None``
    when no span reports any. Linear in the number of spans; parents must be present."""
    by_id = {span.span_id: span for span in spans}
    # reports_at_or_above[s]: s or one of its ancestors reports usage. Each span is resolved once.
    reports_at_or_above: dict[str, bool] = {}

    def at_or_above(span_id: str) -> bool:
        path: list[str] = []
        current: str | None = span_id
        while current is not None and current not in reports_at_or_above:
            path.append(current)
            current = by_id[current].parent_id
        known = reports_at_or_above[current] if current is not None else False
        for visited in reversed(path):
            known = known or _reports_usage(by_id[visited])
            reports_at_or_above[visited] = known
        return reports_at_or_above[span_id]

    def has_reporting_ancestor(span: Span) -> bool:
        return span.parent_id is not None and at_or_above(span.parent_id)

    counted = [
        span.llm.usage
        for span in spans
        if span.llm is not None
        and span.llm.usage is not None
        and _reports_usage(span)
        and not has_reporting_ancestor(span)
    ]
    if not counted:
        return None
    return Usage(
        input_tokens=_total([u.input_tokens for u in counted]),
        output_tokens=_total([u.output_tokens for u in counted]),
        cost_usd=_total_float([u.cost_usd for u in counted]),
    )


def _total(values: list[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def _total_float(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None
