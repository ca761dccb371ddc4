"""The scoring benchmark's cases: five support-agent templates times eight customers.

Each template gives the calls of a good run and the case that grades it: expected tools and
expected arguments that use most comparators (exact, text, number, date, datetime, regex,
one_of, present, absent, subset). The reference run's whole calls go into the case's metadata
for the peers that can only state whole calls (see ``records.reference_calls``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trailcheck.cases import Case

Call = tuple[str, dict[str, Any]]
PEOPLE = (
    ("Ana López", "ana.lopez@example.com", "SW1A 1AA", "London"),
    ("Ben Okafor", "ben.okafor@example.com", "M1 1AE", "Manchester"),
    ("Chloé Martin", "chloe.martin@example.com", "EH1 1YZ", "Edinburgh"),
    ("Dev Patel", "dev.patel@example.com", "B1 1BB", "Birmingham"),
    ("Eva Novak", "eva.novak@example.com", "LS1 4DY", "Leeds"),
    ("Farid Haddad", "farid.haddad@example.com", "BS1 5TR", "Bristol"),
    ("Grace Kim", "grace.kim@example.com", "CF10 1EP", "Cardiff"),
    ("Hugo Silva", "hugo.silva@example.com", "G1 1XQ", "Glasgow"),
)


@dataclass(frozen=True)
class Customer:
    index: int
    name: str
    email: str
    postcode: str
    city: str

    @property
    def id(self) -> str:
        return f"cus_{4100 + self.index}"

    @property
    def order_id(self) -> str:
        return f"A-{1001 + self.index}"

    @property
    def amount(self) -> float:
        return round(24.5 + 17.25 * self.index, 2)

    @property
    def tracking_number(self) -> str:
        return f"1Z999AA1{self.index:02d}{self.index * 7919 % 10**8:08d}"


@dataclass(frozen=True)
class Template:
    """A case template: the calls of a good run and the case that grades it."""

    name: str
    calls: Callable[[Customer], list[Call]]
    case: Callable[[Customer], dict[str, Any]]


def _text(value: str) -> dict[str, Any]:
    return {"$compare": "text", "value": value}


def _refund_calls(c: Customer) -> list[Call]:
    return [
        ("lookup_order", {"order_id": c.order_id}),
        ("verify_identity", {"email": c.email, "name": c.name}),
        ("check_refund_policy", {"order_id": c.order_id, "reason": "arrived broken"}),
        ("issue_refund", {"order_id": c.order_id, "amount": c.amount, "reason": "arrived broken"}),
        ("send_email", {"to": c.email, "template": "refund_issued", "order_id": c.order_id}),
    ]


def _refund_case(c: Customer) -> dict[str, Any]:
    return {
        "expected_arguments": [
            {"tool": "lookup_order", "arguments": {"order_id": c.order_id}},
            {"tool": "verify_identity", "arguments": {"email": _text(c.email)}},
            {
                "tool": "issue_refund",
                "arguments": {
                    "order_id": c.order_id,
                    "amount": {"$compare": "number", "value": c.amount, "abs_tol": 0.01},
                    "reason": {"$compare": "regex", "pattern": "(?i).*(broken|damaged).*"},
                },
            },
        ]
    }


def _reschedule_calls(c: Customer) -> list[Call]:
    return [
        ("lookup_order", {"order_id": c.order_id}),
        ("get_delivery_slots", {"postcode": c.postcode, "from_date": "2026-06-18"}),
        ("reschedule_delivery", {"order_id": c.order_id, "date": "2026-06-19", "slot": "morning"}),
        ("send_sms", {"to": f"+44770090{c.index:04d}", "template": "delivery_rescheduled"}),
        ("log_interaction", {"customer_id": c.id, "at": "2026-06-19T10:15:00+00:00"}),
    ]


def _reschedule_case(c: Customer) -> dict[str, Any]:
    slot = {"$compare": "one_of", "values": ["morning", "afternoon"]}
    at = {"$compare": "datetime", "value": "2026-06-19T10:15:00Z", "tolerance_seconds": 300}
    date = {"$compare": "date", "value": "2026-06-19"}
    return {
        "expected_arguments": [
            {
                "tool": "reschedule_delivery",
                "arguments": {"order_id": c.order_id, "date": date, "slot": slot},
            },
            {"tool": "log_interaction", "arguments": {"customer_id": c.id, "at": at}},
        ]
    }


def address(c: Customer) -> dict[str, Any]:
    return {"line1": f"{c.index + 1} High Street", "city": c.city, "postcode": c.postcode}


def _address_calls(c: Customer) -> list[Call]:
    return [
        ("lookup_customer", {"email": c.email}),
        ("verify_identity", {"email": c.email, "name": c.name}),
        ("update_address", {"customer_id": c.id, "address": {**address(c), "country": "GB"}}),
        ("lookup_order", {"order_id": c.order_id}),
        ("send_email", {"to": c.email, "template": "address_updated"}),
    ]


def _address_case(c: Customer) -> dict[str, Any]:
    address = {"$compare": "subset", "value": {"postcode": c.postcode, "country": "GB"}}
    return {
        "expected_arguments": [
            {"tool": "lookup_customer", "arguments": {"email": _text(c.email)}},
            {"tool": "update_address", "arguments": {"customer_id": c.id, "address": address}},
        ]
    }


def _cancel_calls(c: Customer) -> list[Call]:
    return [
        ("lookup_order", {"order_id": c.order_id}),
        ("check_cancellation_policy", {"order_id": c.order_id}),
        ("cancel_order", {"order_id": c.order_id, "reason": "ordered by mistake"}),
        ("issue_refund", {"order_id": c.order_id, "amount": c.amount, "currency": "GBP"}),
        ("send_email", {"to": c.email, "template": "order_cancelled"}),
    ]


def _cancel_case(c: Customer) -> dict[str, Any]:
    amount = {"$compare": "number", "value": c.amount, "rel_tol": 0.001}
    return {
        "tool_match": "exact",
        "expected_arguments": [
            {
                "tool": "cancel_order",
                "arguments": {"order_id": c.order_id, "reason": {"$compare": "present"}},
            },
            {
                "tool": "issue_refund",
                "arguments": {"amount": amount, "notify": {"$compare": "absent"}},
            },
        ],
    }


def _status_calls(c: Customer) -> list[Call]:
    return [
        ("search_orders", {"customer_email": c.email, "status": "in_transit"}),
        ("lookup_order", {"order_id": c.order_id}),
        ("track_shipment", {"tracking_number": c.tracking_number, "carrier": "UPS"}),
        ("lookup_order", {"order_id": c.order_id}),
        ("send_email", {"to": c.email, "template": "shipment_status"}),
    ]


def _status_case(c: Customer) -> dict[str, Any]:
    tracking = {"$compare": "regex", "pattern": "1Z[0-9A-Z]{16}"}
    return {
        "tool_match": "any_order",
        "expected_tools": ["search_orders", "lookup_order", "track_shipment", "send_email"],
        "expected_arguments": [
            {"tool": "search_orders", "arguments": {"customer_email": _text(c.email)}},
            {"tool": "track_shipment", "arguments": {"tracking_number": tracking}},
        ],
    }


TEMPLATES = (
    Template("refund", _refund_calls, _refund_case),
    Template("reschedule", _reschedule_calls, _reschedule_case),
    Template("address", _address_calls, _address_case),
    Template("cancel", _cancel_calls, _cancel_case),
    Template("status", _status_calls, _status_case),
)


def make_cases() -> list[tuple[Case, Template, Customer]]:
    made = []
    for template in TEMPLATES:
        for index, person in enumerate(PEOPLE):
            c = Customer(index, *person)
            calls = template.calls(c)
            fields = {
                "id": f"{template.name}-{index}",
                "input": f"Hi, I'm {c.name} ({c.email}), about order {c.order_id}.",
                "expected_tools": [name for name, _ in calls],
                # For the peers that can only state whole calls (see peers/records.py).
                "metadata": {"reference_calls": [{"tool": n, "arguments": a} for n, a in calls]},
                "review_status": "approved",
                "reviewed_by": "benchmark",
                **template.case(c),
            }
            made.append((Case.model_validate(fields), template, c))
    return made
