"""The support shop's world: customers, their orders, and the refund and delivery rules.

The data is immutable (frozen dataclasses, tuples), so a shop resets by dropping what it
changed and reading these values again; nothing a trial does can leak into the next one. The
fixed :data:`TODAY` makes every answer reproducible: "within 30 days of delivery" and "next
Friday" mean the same on any machine, on any day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

TODAY = date(2026, 6, 15)
"""The shop's today: a Monday, so that "Friday, June 19" is four days ahead."""


@dataclass(frozen=True, slots=True)
class Customer:
    """A customer and the proofs of identity the shop accepts for them."""

    customer_id: str
    name: str
    email: str
    date_of_birth: str  # ISO
    card_last4: str


@dataclass(frozen=True, slots=True)
class Item:
    name: str
    category: str
    price: float


@dataclass(frozen=True, slots=True)
class Order:
    """An order; ``delivered_on`` is set once delivered, ``expected_delivery`` until then."""

    order_id: str
    customer_id: str
    status: str  # delivered | shipped | processing
    order_date: str
    items: tuple[Item, ...]
    delivered_on: str | None = None
    expected_delivery: str | None = None

    @property
    def total(self) -> float:
        return round(sum(item.price for item in self.items), 2)


@dataclass(frozen=True, slots=True)
class RefundPolicy:
    """Refunds: delivered orders only, within ``window_days`` of delivery, never for the
    ``non_refundable`` categories, and at most ``max_amount`` per order without a person."""

    window_days: int = 30
    non_refundable: tuple[str, ...] = ("gift_cards",)
    max_amount: float = 500.0


@dataclass(frozen=True, slots=True)
class DeliveryRules:
    """Reschedules: to a later day, at most ``horizon_days`` ahead, never on a Sunday."""

    horizon_days: int = 14
    delivery_weekdays: tuple[int, ...] = (0, 1, 2, 3, 4, 5)  # date.weekday(): Monday..Saturday


CUSTOMERS: tuple[Customer, ...] = (
    Customer("C-100", "Maya Lopez", "maya.lopez@example.com", "1988-04-12", "4242"),
    Customer("C-200", "Sam Okafor", "sam.okafor@example.com", "1975-11-03", "1881"),
    Customer("C-300", "Priya Natarajan", "priya.natarajan@example.com", "1992-07-21", "7310"),
    Customer("C-400", "Jonas Berg", "jonas.berg@example.com", "1969-01-30", "5150"),
)

ORDERS: tuple[Order, ...] = (
    Order(
        "A-1001",
        "C-100",
        "delivered",
        "2026-05-28",
        (Item("Wireless headphones", "electronics", 129.0),),
        delivered_on="2026-06-05",
    ),
    Order(
        "A-1002",
        "C-100",
        "shipped",
        "2026-06-10",
        (Item("Trail running shoes", "apparel", 89.5),),
        expected_delivery="2026-06-16",
    ),
    Order(
        "A-1003",
        "C-200",
        "delivered",
        "2026-04-12",
        (Item("Espresso machine", "kitchen", 349.0),),
        delivered_on="2026-04-20",
    ),
    Order(
        "A-1004",
        "C-200",
        "delivered",
        "2026-06-08",
        (Item("Gift card", "gift_cards", 50.0),),
        delivered_on="2026-06-09",
    ),
    Order(
        "A-1005",
        "C-300",
        "delivered",
        "2026-06-01",
        (Item("Standing desk", "furniture", 620.0),),
        delivered_on="2026-06-11",
    ),
    Order(
        "A-1006",
        "C-300",
        "processing",
        "2026-06-14",
        (Item("Blender", "kitchen", 74.99),),
        expected_delivery="2026-06-23",
    ),
    Order(
        "A-1007",
        "C-400",
        "delivered",
        "2026-06-02",
        (Item("The Overstory", "books", 18.0), Item("Braiding Sweetgrass", "books", 24.0)),
        delivered_on="2026-06-08",
    ),
)

POLICY = RefundPolicy()
DELIVERY = DeliveryRules()
