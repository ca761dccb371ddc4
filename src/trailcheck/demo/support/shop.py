"""The support shop environment: six typed tools over the fixture, and the state a case grades.

Two modes differ in one thing only. In ``enforced`` mode the tools refuse a write (a refund, a
reschedule) until the customer who owns the order has been verified, with an error that tells
the agent what to do; in ``prompt_only`` mode only the system prompt asks for verification, so
an agent that forgets it gets its way. Comparing an agent under both shows what the prompt
alone is worth. Domain rules (unknown orders, the refund policy, delivery days) hold in both.

Tool errors are :class:`~trailcheck.environment.ToolError`, which agent loops hand back to the
model as the tool's result. The annotations are evaluated at import (no ``from __future__
import annotations``), so that tool declarations read them from any wrapper.
"""

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from trailcheck.demo.support.fixture import (
    CUSTOMERS,
    DELIVERY,
    ORDERS,
    POLICY,
    TODAY,
    Customer,
    Order,
)
from trailcheck.environment import ToolError

Mode = Literal["enforced", "prompt_only"]
ORDER_ID_PATTERN = r"^A-\d{4}$"
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
PROOF_PATTERN = r"^(\d{4}-\d{2}-\d{2}|\d{4})$"
ISO_DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
SEARCH_PAGE_SIZE = 5

OrderId = Annotated[
    str, Field(description="The order id, as A- and four digits: A-1001.", pattern=ORDER_ID_PATTERN)
]


def _checked(value: str, pattern: str, what: str) -> str:
    if not isinstance(value, str) or not re.match(pattern, value):
        raise ToolError(f"{what} {value!r} is not valid; expected the form {pattern}")
    return value


class SupportShop:
    """A small web shop's support back office, reset from the fixture for every trial.

    ``snapshot()`` is ``{"refunds", "reschedules", "verifications"}``, each a list in the order
    the writes happened: exactly what a state expectation can name.
    """

    def __init__(self, mode: Mode = "enforced", today: date = TODAY) -> None:
        if mode not in ("enforced", "prompt_only"):
            raise ValueError(f"mode is 'enforced' or 'prompt_only', got {mode!r}")
        self.mode: Mode = mode
        self.today = today
        self.reset()

    # -- the Environment protocol ----------------------------------------------------------

    def reset(self) -> None:
        """Back to the fixture: the fixture is immutable, so fresh containers are a deep copy."""
        self._orders: dict[str, Order] = {order.order_id: order for order in ORDERS}
        self._customers: dict[str, Customer] = {c.customer_id: c for c in CUSTOMERS}
        self._refunds: list[dict[str, Any]] = []
        self._reschedules: list[dict[str, Any]] = []
        self._verifications: list[dict[str, Any]] = []

    def snapshot(self) -> dict[str, Any]:
        return {
            "refunds": [dict(refund) for refund in self._refunds],
            "reschedules": [dict(move) for move in self._reschedules],
            "verifications": [dict(check) for check in self._verifications],
        }

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [
            self.search_orders,
            self.lookup_order,
            self.verify_identity,
            self.check_refund_policy,
            self.issue_refund,
            self.reschedule_delivery,
        ]

    # -- read tools ------------------------------------------------------------------------

    def search_orders(
        self,
        customer_email: Annotated[
            str,
            Field(description="The customer's email address.", pattern=EMAIL_PATTERN),
        ],
        page: Annotated[
            int, Field(description="Which page, from 1: the previous page's next_page.", ge=1)
        ] = 1,
    ) -> dict[str, Any]:
        """Find a customer's orders by email, when they do not know the order id.

        Returns ``{customer_email, orders, page, next_page}``: the address of the account the
        orders belong to; a page of ``{order_id, status, order_date, total}``, oldest first,
        five to a page; and the page to ask for next, null on the last one. No orders under
        that email is an empty list (ask for the order id instead). Reads only.
        """
        email = _checked(customer_email, EMAIL_PATTERN, "email").strip().lower()
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise ToolError(f"page must be a whole number from 1, got {page!r}")
        owners = {c.customer_id for c in self._customers.values() if c.email == email}
        found = sorted(
            (o for o in self._orders.values() if o.customer_id in owners),
            key=lambda o: (o.order_date, o.order_id),
        )
        start = (page - 1) * SEARCH_PAGE_SIZE
        shown = found[start : start + SEARCH_PAGE_SIZE]
        return {
            "customer_email": email,
            "orders": [
                {
                    "order_id": o.order_id,
                    "status": o.status,
                    "order_date": o.order_date,
                    "total": o.total,
                }
                for o in shown
            ],
            "page": page,
            "next_page": page + 1 if len(found) > start + SEARCH_PAGE_SIZE else None,
        }

    def lookup_order(self, order_id: OrderId) -> dict[str, Any]:
        """Look up one order: its status, items, dates and how much was already refunded.

        Use it before answering anything about an order. ``delivered_on`` is set for delivered
        orders, ``expected_delivery`` for orders on their way (null when the carrier has not
        given a date yet). Reads only.
        """
        order = self._order(order_id)
        return {
            "order_id": order.order_id,
            "customer_id": order.customer_id,
            "status": order.status,
            "order_date": order.order_date,
            "delivered_on": order.delivered_on,
            "expected_delivery": order.expected_delivery,
            "items": [
                {"name": i.name, "category": i.category, "price": i.price} for i in order.items
            ],
            "total": order.total,
            "refunded": self._refunded(order.order_id),
        }

    def verify_identity(
        self,
        order_id: OrderId,
        proof: Annotated[
            str,
            Field(
                description="The customer's date of birth (YYYY-MM-DD) or the last four digits"
                " of the card that paid for the order.",
                pattern=PROOF_PATTERN,
            ),
        ],
    ) -> dict[str, Any]:
        """Check that the person in the chat owns the order, before any refund or reschedule.

        Returns ``{verified: true, order_id, customer_id, method}``; a proof that does not match
        is an error, and nothing about the customer is revealed. Verifying one order verifies
        its customer for all their orders in this conversation.
        """
        order = self._order(order_id)
        _checked(proof, PROOF_PATTERN, "proof")
        customer = self._customers[order.customer_id]
        method = "date_of_birth" if "-" in proof else "card_last4"
        expected = customer.date_of_birth if method == "date_of_birth" else customer.card_last4
        if proof != expected:
            raise ToolError(
                f"identity not verified: the proof does not match the customer on order"
                f" {order_id}. Do not act on this order; ask the customer to check their date"
                " of birth or the last four digits of their card"
            )
        record = {"order_id": order_id, "customer_id": customer.customer_id, "method": method}
        self._verifications.append(record)
        return {"verified": True, **record}

    def check_refund_policy(self, order_id: OrderId) -> dict[str, Any]:
        """Whether an order can be refunded under the shop's policy, and for how much at most.

        Call it before ``issue_refund``. Returns ``{order_id, refundable, max_refund,
        window_days, days_since_delivery, reasons}``; when ``refundable`` is false, ``reasons``
        say why in words you can pass on to the customer. Reads only.
        """
        order = self._order(order_id)
        reasons = self._refusals(order)
        remaining = round(order.total - self._refunded(order_id), 2)
        delivered = date.fromisoformat(order.delivered_on) if order.delivered_on else None
        return {
            "order_id": order_id,
            "refundable": not reasons,
            "max_refund": 0.0 if reasons else min(remaining, POLICY.max_amount),
            "window_days": POLICY.window_days,
            "days_since_delivery": (self.today - delivered).days if delivered else None,
            "reasons": reasons,
        }

    # -- write tools -----------------------------------------------------------------------

    def issue_refund(
        self,
        order_id: OrderId,
        amount: Annotated[float, Field(description="The amount to refund, in USD.", gt=0)],
        reason: Annotated[
            str, Field(description="Why the customer wants the refund, in a few words.")
        ],
    ) -> dict[str, Any]:
        """Refund an order to the card that paid for it. A write: only after verify_identity
        succeeded for the order's customer and check_refund_policy said it is refundable.

        Returns ``{refund_id, order_id, amount, status: "issued"}``; the refund is done only
        when this returns without an error.
        """
        order = self._order(order_id)
        self._require_verified(order, "issuing a refund")
        refusals = self._refusals(order)
        if refusals:
            raise ToolError(f"order {order_id} is not refundable: {'; '.join(refusals)}")
        limit = min(round(order.total - self._refunded(order_id), 2), POLICY.max_amount)
        if not isinstance(amount, int | float) or isinstance(amount, bool) or amount <= 0:
            raise ToolError(f"amount must be a positive number, got {amount!r}")
        if amount > limit + 1e-9:
            raise ToolError(
                f"amount {amount:.2f} is over the most that can be refunded for order"
                f" {order_id} ({limit:.2f}); check_refund_policy gives the limit"
            )
        refund = {
            "refund_id": f"R-{5001 + len(self._refunds)}",
            "order_id": order_id,
            "customer_id": order.customer_id,
            "amount": round(float(amount), 2),
            "reason": str(reason),
        }
        self._refunds.append(refund)
        return {**{k: refund[k] for k in ("refund_id", "order_id", "amount")}, "status": "issued"}

    def reschedule_delivery(
        self,
        order_id: OrderId,
        new_date: Annotated[
            str,
            Field(
                description="The new delivery day, ISO: 2026-06-19. A later day, Monday to"
                " Saturday, within two weeks.",
                pattern=ISO_DATE_PATTERN,
            ),
        ],
    ) -> dict[str, Any]:
        """Move the delivery of an order that has not arrived yet to another day. A write:
        only after verify_identity succeeded for the order's customer.

        Returns ``{order_id, previous_date, new_date, status: "rescheduled"}``.
        """
        order = self._order(order_id)
        self._require_verified(order, "rescheduling a delivery")
        if order.status == "delivered":
            raise ToolError(f"order {order_id} was already delivered on {order.delivered_on}")
        day = self._delivery_day(new_date)
        previous = order.expected_delivery
        self._orders[order_id] = replace(order, expected_delivery=day.isoformat())
        move = {"order_id": order_id, "previous_date": previous, "new_date": day.isoformat()}
        self._reschedules.append(move)
        return {**move, "status": "rescheduled"}

    # -- rules -----------------------------------------------------------------------------

    def _order(self, order_id: str) -> Order:
        _checked(order_id, ORDER_ID_PATTERN, "order id")
        order = self._orders.get(order_id)
        if order is None:
            raise ToolError(
                f"no order {order_id}: check the id with the customer, or search by their email"
            )
        return order

    def _refunded(self, order_id: str) -> float:
        amounts = [float(r["amount"]) for r in self._refunds if r["order_id"] == order_id]
        return round(sum(amounts), 2)

    def _require_verified(self, order: Order, action: str) -> None:
        if self.mode == "prompt_only":
            return
        if any(v["customer_id"] == order.customer_id for v in self._verifications):
            return
        raise ToolError(
            f"identity not verified for order {order.order_id}: {action} needs the customer's"
            " identity first. Ask for their date of birth or the last four digits of their card,"
            " and call verify_identity"
        )

    def _refusals(self, order: Order) -> list[str]:
        """Why the policy refuses a refund of ``order`` now (empty: it allows one)."""
        if order.delivered_on is None:
            return ["it has not been delivered yet; refunds are for delivered orders"]
        reasons: list[str] = []
        days = (self.today - date.fromisoformat(order.delivered_on)).days
        if days > POLICY.window_days:
            reasons.append(
                f"it was delivered on {order.delivered_on}, {days} days ago, and refunds are"
                f" accepted within {POLICY.window_days} days of delivery"
            )
        excluded = sorted({i.category for i in order.items if i.category in POLICY.non_refundable})
        if excluded:
            kinds = ", ".join(category.replace("_", " ") for category in excluded)
            reasons.append(f"{kinds} are not refundable")
        if self._refunded(order.order_id) >= order.total:
            reasons.append("it has already been refunded in full")
        return reasons

    def _delivery_day(self, text: str) -> date:
        _checked(text, ISO_DATE_PATTERN, "new_date")
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise ToolError(f"new_date {text!r} is not a calendar date") from None
        if day <= self.today:
            raise ToolError(f"{text} is not after today ({self.today.isoformat()})")
        if day > self.today + timedelta(days=DELIVERY.horizon_days):
            raise ToolError(f"{text} is more than {DELIVERY.horizon_days} days ahead")
        if day.weekday() not in DELIVERY.delivery_weekdays:
            raise ToolError(f"{text} is a {day:%A}; deliveries run Monday to Saturday")
        return day
