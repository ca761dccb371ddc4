"""The scoring benchmark's traces: seeded support-agent runs of realistic size.

Trace ``i`` runs case ``i % 40`` (its ``metadata.case_id``; cases from :mod:`peers.templates`).
The model is called before each tool call and once for the answer, so five tool calls make 12
spans; tool results are JSON text (orders, customers, refunds, slots, tracking events). Some
runs stray, as agents do: a call dropped, a call retried after an error, an argument written in
another form (``June 19, 2026``, a capitalised email, an amount off by a fraction of a cent).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import orjson

from peers.templates import Call, Customer, Template, address, make_cases
from trailcheck.cases import Case
from trailcheck.trace import ModelInvocation, Span, Status, ToolInvocation, Trace, Usage

ORIGIN_NS = 1_781_000_000_000_000_000


def _order(c: Customer, rng: random.Random) -> dict[str, Any]:
    lines = [
        {
            "sku": f"SKU-{rng.randrange(10_000):04d}",
            "title": rng.choice(["Kettle", "Desk lamp", "Headphones", "Blender", "Backpack"]),
            "qty": rng.randrange(1, 4),
            "unit_price": round(rng.uniform(5, 120), 2),
        }
        for _ in range(rng.randrange(1, 5))
    ]
    return {
        "order_id": c.order_id,
        "status": rng.choice(["delivered", "in_transit", "processing"]),
        "placed_at": "2026-06-12T09:41:07Z",
        "customer": {"id": c.id, "name": c.name, "email": c.email},
        "shipping_address": {**address(c), "country": "GB"},
        "lines": lines,
        "total": c.amount,
        "currency": "GBP",
        "tracking_number": c.tracking_number,
    }


def _result(name: str, c: Customer, rng: random.Random) -> Any:
    """What the tool answered: an order, a customer, a refund, a policy, slots, events."""
    if name in ("lookup_order", "search_orders"):
        order = _order(c, rng)
        return order if name == "lookup_order" else {"orders": [order], "total": 1}
    if name in ("lookup_customer", "verify_identity"):
        profile = {"customer_id": c.id, "name": c.name, "email": c.email, "tier": "gold"}
        return {**profile, "verified": True, "address": address(c), "since": "2021-03-04"}
    if name.startswith("check_"):
        rules = ["within 30 days of delivery", "item unused or faulty", "original payment method"]
        return {"order_id": c.order_id, "eligible": True, "window_days": 30, "rules": rules}
    if name == "issue_refund":
        refund_id = f"re_{rng.randrange(16**10):010x}"
        return {
            "refund_id": refund_id,
            "order_id": c.order_id,
            "amount": c.amount,
            "currency": "GBP",
            "status": "pending",
            "eta_days": 5,
        }
    if name == "get_delivery_slots":
        days = ["2026-06-18", "2026-06-19", "2026-06-20"]
        return {
            "slots": [
                {"date": d, "slot": s, "capacity": rng.randrange(1, 9)}
                for d in days
                for s in ("morning", "afternoon")
            ]
        }
    if name == "track_shipment":
        places = ["Heathrow hub", "Midlands depot", c.city]
        return {
            "tracking_number": c.tracking_number,
            "carrier": "UPS",
            "events": [
                {"at": f"2026-06-1{5 + k}T0{6 + k}:30:00Z", "location": place, "status": "scanned"}
                for k, place in enumerate(places)
            ],
        }
    return {
        "ok": True,
        "id": f"msg_{rng.randrange(16**8):08x}",
        "queued_at": "2026-06-19T10:16:02Z",
    }


def _loosened(value: Any) -> Any:
    """The same value as an agent might write it otherwise; ``None`` when there is no such form."""
    forms = {
        "2026-06-19": "June 19, 2026",
        "2026-06-19T10:15:00+00:00": "2026-06-19T11:15:00+01:00",
    }
    if isinstance(value, str) and value in forms:
        return forms[value]
    if isinstance(value, str) and "@" in value:
        return value.title()
    if isinstance(value, float):
        return round(value + 0.004, 3)
    return None


def _stray(calls: list[Call], rng: random.Random) -> tuple[list[Call], set[int]]:
    """The calls as this run made them, and the positions of the calls that errored."""
    roll = rng.random()
    if roll < 0.07:  # a step skipped
        del calls[rng.randrange(1, len(calls))]
    elif roll < 0.14:  # a call retried after an upstream error
        at = rng.randrange(len(calls))
        calls.insert(at, calls[at])
        return calls, {at}
    elif roll < 0.35:  # an argument written another way
        at = rng.randrange(len(calls))
        name, arguments = calls[at]
        for key, value in arguments.items():
            if (other := _loosened(value)) is not None:
                calls[at] = (name, {**arguments, key: other})
                break
    return calls, set()


def _span(trace_id: str, k: int, start: int, **fields: Any) -> Span:
    return Span(
        trace_id=trace_id,
        span_id=f"{k + 1:016x}",
        parent_id=None if k == 0 else f"{1:016x}",
        start_ns=start,
        end_ns=start + fields.pop("duration_ns"),
        **fields,
    )


def _model_call(trace_id: str, k: int, start: int, rng: random.Random) -> Span:
    usage = Usage(input_tokens=rng.randrange(600, 4000), output_tokens=rng.randrange(20, 200))
    return _span(
        trace_id,
        k,
        start,
        name="chat gpt-4o-mini",
        kind="llm",
        duration_ns=700_000_000,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"},
        llm=ModelInvocation(model="gpt-4o-mini", provider="openai", usage=usage),
    )


def _tool_call(trace_id: str, k: int, start: int, call: Call, failed: bool, result: Any) -> Span:
    name, arguments = call
    return _span(
        trace_id,
        k,
        start,
        name=f"execute_tool {name}",
        kind="tool",
        duration_ns=180_000_000,
        status=Status(code="error", message="upstream timeout") if failed else Status(),
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
        tool=ToolInvocation(
            name=name,
            call_id=f"call_{trace_id[-6:]}_{k}",
            arguments=arguments,
            error="upstream timeout" if failed else None,
            result=None if failed else orjson.dumps(result).decode(),
        ),
    )


def make_trace(
    index: int, case: Case, template: Template, c: Customer, rng: random.Random
) -> Trace:
    trace_id = f"{index + 1:032x}"
    start = ORIGIN_NS + index * 10_000_000_000
    calls, errored = _stray(template.calls(c), rng)
    spans = []
    for step, call in enumerate(calls):
        at = start + 1_000_000 + step * 1_000_000_000
        spans.append(_model_call(trace_id, len(spans) + 1, at, rng))
        result = _result(call[0], c, rng)
        spans.append(
            _tool_call(trace_id, len(spans) + 1, at + 720_000_000, call, step in errored, result)
        )
    end = start + 1_000_000 + len(calls) * 1_000_000_000
    spans.append(_model_call(trace_id, len(spans) + 1, end, rng))
    root = _span(
        trace_id,
        0,
        start,
        name="invoke_agent support-agent",
        kind="agent",
        duration_ns=end + 800_000_000 - start,
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-agent"},
    )
    return Trace(
        trace_id=trace_id,
        input=case.input,
        final_output=f"All done for order {c.order_id}: you will get an email shortly.",
        spans=[root, *spans],
        metadata={"case_id": case.id, "agent_version": "v2"},
    )


def make_corpus(traces: int, seed: int) -> tuple[dict[str, Case], Iterator[Trace]]:
    """The cases by id, and ``traces`` traces made lazily (a list of 100k would be large)."""
    made = make_cases()
    rng = random.Random(seed)
    runs = (make_trace(i, *made[i % len(made)], rng) for i in range(traces))
    return {case.id: case for case, _, _ in made}, runs
