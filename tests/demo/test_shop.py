"""The support shop: its fixture, its state, its two modes and its domain rules."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest

from trailcheck.demo.support import (
    TODAY,
    SupportShop,
    enforced_shop,
    fixture,
    prompt_only_shop,
    shop_factory,
)
from trailcheck.demo.support import shop as shop_module
from trailcheck.environment import ToolError
from trailcheck.models import declare_tools

EMPTY = {"refunds": [], "reschedules": [], "verifications": []}


def test_the_shop_declares_six_tools() -> None:
    shop = SupportShop()
    declarations = declare_tools(shop.tools)
    assert [d.name for d in declarations] == [
        "search_orders",
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
        "reschedule_delivery",
    ]
    by_name = {d.name: d for d in declarations}
    order_id = by_name["lookup_order"].parameters["properties"]["order_id"]
    assert order_id["pattern"] == r"^A-\d{4}$"
    assert "A-1001" in order_id["description"]
    assert by_name["issue_refund"].parameters["required"] == ["order_id", "amount", "reason"]
    assert all(d.description for d in declarations)
    assert "verify_identity" in by_name["issue_refund"].description


def test_factories_make_fresh_shops_in_their_mode() -> None:
    assert enforced_shop().mode == "enforced"
    assert prompt_only_shop().mode == "prompt_only"
    assert shop_factory("enforced") is not shop_factory("enforced")
    assert SupportShop().today == TODAY == date(2026, 6, 15)
    with pytest.raises(ValueError, match="mode"):
        SupportShop("lenient")  # type: ignore[arg-type]


def test_reads_return_the_fixture() -> None:
    shop = SupportShop()
    assert shop.search_orders("Maya.Lopez@example.com") == {
        "customer_email": "maya.lopez@example.com",
        "orders": [
            {
                "order_id": "A-1001",
                "status": "delivered",
                "order_date": "2026-05-28",
                "total": 129.0,
            },
            {"order_id": "A-1002", "status": "shipped", "order_date": "2026-06-10", "total": 89.5},
        ],
        "page": 1,
        "next_page": None,
    }
    assert shop.search_orders("nobody@example.com") == {
        "customer_email": "nobody@example.com",
        "orders": [],
        "page": 1,
        "next_page": None,
    }
    order = shop.lookup_order("A-1007")
    assert order["total"] == 42.0
    assert order["delivered_on"] == "2026-06-08"
    assert [item["name"] for item in order["items"]] == ["The Overstory", "Braiding Sweetgrass"]
    assert shop.snapshot() == EMPTY


def test_the_search_answers_five_orders_a_page_oldest_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A customer with a long history: twelve orders, one a month.
    history = tuple(
        fixture.Order(f"A-2{month:03d}", "C-300", "delivered", f"2025-{month:02d}-01", ())
        for month in range(1, 13)
    )
    monkeypatch.setattr(shop_module, "ORDERS", history)
    pages = [SupportShop().search_orders("priya.natarajan@example.com", n) for n in (1, 2, 3, 4)]
    assert [[o["order_id"] for o in p["orders"]] for p in pages] == [
        ["A-2001", "A-2002", "A-2003", "A-2004", "A-2005"],
        ["A-2006", "A-2007", "A-2008", "A-2009", "A-2010"],
        ["A-2011", "A-2012"],
        [],
    ]
    assert [(p["page"], p["next_page"]) for p in pages] == [(1, 2), (2, 3), (3, None), (4, None)]


def test_a_verified_refund_and_a_reschedule_are_in_the_snapshot_and_reset_drops_them() -> None:
    shop = SupportShop()
    assert shop.verify_identity("A-1001", "1988-04-12")["verified"] is True
    refund = shop.issue_refund("A-1001", 129.0, "defective")
    assert refund == {
        "refund_id": "R-5001",
        "order_id": "A-1001",
        "amount": 129.0,
        "status": "issued",
    }
    # Verifying one order verifies its customer: A-1002 is Maya's too.
    moved = shop.reschedule_delivery("A-1002", "2026-06-19")
    assert moved["previous_date"] == "2026-06-16"
    assert shop.lookup_order("A-1002")["expected_delivery"] == "2026-06-19"
    assert shop.lookup_order("A-1001")["refunded"] == 129.0
    assert shop.snapshot() == {
        "refunds": [
            {
                "refund_id": "R-5001",
                "order_id": "A-1001",
                "customer_id": "C-100",
                "amount": 129.0,
                "reason": "defective",
            }
        ],
        "reschedules": [
            {"order_id": "A-1002", "previous_date": "2026-06-16", "new_date": "2026-06-19"}
        ],
        "verifications": [
            {"order_id": "A-1001", "customer_id": "C-100", "method": "date_of_birth"}
        ],
    }
    snapshot = shop.snapshot()
    snapshot["refunds"].clear()  # a snapshot is a copy
    assert len(shop.snapshot()["refunds"]) == 1

    shop.reset()
    assert shop.snapshot() == EMPTY
    assert shop.lookup_order("A-1002")["expected_delivery"] == "2026-06-16"
    assert shop.lookup_order("A-1001")["refunded"] == 0.0
    with pytest.raises(ToolError, match="identity not verified"):  # verification is gone too
        shop.issue_refund("A-1001", 10.0, "defective")


def test_enforced_mode_refuses_an_unverified_write_with_what_to_do() -> None:
    shop = SupportShop("enforced")
    with pytest.raises(ToolError) as refused:
        shop.issue_refund("A-1007", 42.0, "arrived damaged")
    message = str(refused.value)
    assert "identity not verified for order A-1007" in message
    assert "verify_identity" in message
    assert "date of birth" in message
    with pytest.raises(ToolError, match="identity not verified"):
        shop.reschedule_delivery("A-1002", "2026-06-19")
    assert shop.snapshot() == EMPTY


def test_prompt_only_mode_lets_an_unverified_write_through() -> None:
    shop = SupportShop("prompt_only")
    assert shop.issue_refund("A-1007", 42.0, "arrived damaged")["status"] == "issued"
    assert shop.reschedule_delivery("A-1002", "2026-06-19")["status"] == "rescheduled"
    state = shop.snapshot()
    assert [r["order_id"] for r in state["refunds"]] == ["A-1007"]
    assert [m["new_date"] for m in state["reschedules"]] == ["2026-06-19"]
    assert state["verifications"] == []


def test_a_wrong_proof_does_not_verify_and_reveals_nothing() -> None:
    shop = SupportShop()
    with pytest.raises(ToolError) as refused:
        shop.verify_identity("A-1001", "1975-11-03")  # Sam's date of birth, Maya's order
    assert "identity not verified" in str(refused.value)
    assert "1988" not in str(refused.value)
    assert shop.verify_identity("A-1001", "4242")["method"] == "card_last4"
    assert shop.snapshot()["verifications"] == [
        {"order_id": "A-1001", "customer_id": "C-100", "method": "card_last4"}
    ]


def test_the_refund_policy_says_why_not() -> None:
    shop = SupportShop()
    assert shop.check_refund_policy("A-1001") == {
        "order_id": "A-1001",
        "refundable": True,
        "max_refund": 129.0,
        "window_days": 30,
        "days_since_delivery": 10,
        "reasons": [],
    }
    late = shop.check_refund_policy("A-1003")
    assert late["refundable"] is False
    assert late["days_since_delivery"] == 56
    assert late["reasons"] == [
        "it was delivered on 2026-04-20, 56 days ago, and refunds are accepted within 30 days"
        " of delivery"
    ]
    assert shop.check_refund_policy("A-1004")["reasons"] == ["gift cards are not refundable"]
    assert shop.check_refund_policy("A-1005")["max_refund"] == 500.0  # the policy's ceiling
    assert shop.check_refund_policy("A-1002")["reasons"][0].startswith("it has not been delivered")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.lookup_order("A-9999"), "no order A-9999"),
        (lambda s: s.lookup_order("1001"), "order id '1001' is not valid"),
        (lambda s: s.search_orders("not an email"), "email 'not an email' is not valid"),
        (lambda s: s.search_orders("maya.lopez@example.com", 0), "page must be a whole number"),
        (lambda s: s.verify_identity("A-1001", "April 12"), "proof 'April 12' is not valid"),
        (lambda s: s.issue_refund("A-1003", 349.0, "broke"), "not refundable: it was delivered"),
        (lambda s: s.issue_refund("A-1004", 50.0, "unwanted"), "gift cards are not refundable"),
        (lambda s: s.issue_refund("A-1001", 200.0, "defective"), "over the most .* \\(129.00\\)"),
        (lambda s: s.issue_refund("A-1001", 0, "defective"), "positive number"),
        (lambda s: s.reschedule_delivery("A-1001", "2026-06-19"), "already delivered"),
        (lambda s: s.reschedule_delivery("A-1002", "2026-06-15"), "not after today"),
        (lambda s: s.reschedule_delivery("A-1002", "2026-06-21"), "is a Sunday"),
        (lambda s: s.reschedule_delivery("A-1002", "2026-07-30"), "more than 14 days ahead"),
        (lambda s: s.reschedule_delivery("A-1002", "2026-02-30"), "not a calendar date"),
        (lambda s: s.reschedule_delivery("A-1002", "June 19"), "new_date 'June 19' is not valid"),
    ],
)
def test_domain_errors_are_tool_errors_in_both_modes(
    call: Callable[[SupportShop], object], message: str
) -> None:
    for mode in ("enforced", "prompt_only"):
        shop = SupportShop(mode)  # type: ignore[arg-type]
        shop.verify_identity("A-1001", "1988-04-12")
        shop.verify_identity("A-1003", "1975-11-03")
        with pytest.raises(ToolError, match=message):
            call(shop)
        assert shop.snapshot()["refunds"] == []
        assert shop.snapshot()["reschedules"] == []


def test_a_second_refund_of_a_fully_refunded_order_is_refused() -> None:
    shop = SupportShop("prompt_only")
    shop.issue_refund("A-1007", 40.0, "arrived damaged")
    assert shop.check_refund_policy("A-1007")["max_refund"] == 2.0
    shop.issue_refund("A-1007", 2.0, "arrived damaged")
    with pytest.raises(ToolError, match="already been refunded in full"):
        shop.issue_refund("A-1007", 1.0, "arrived damaged")
    assert [r["refund_id"] for r in shop.snapshot()["refunds"]] == ["R-5001", "R-5002"]
