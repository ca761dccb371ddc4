"""A tiny deterministic shop for the audit tests, and datasets built from YAML text."""

from __future__ import annotations

from typing import Any

from trailcheck.cases import Dataset, parse_dataset


class TinyShop:
    """Two orders; ``issue_refund`` appends to ``refunds``."""

    def __init__(self) -> None:
        self.refunds: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.refunds = []

    def snapshot(self) -> dict[str, Any]:
        return {"refunds": [dict(r) for r in self.refunds]}

    @property
    def tools(self) -> list[Any]:
        return [self.lookup_order, self.issue_refund]

    def lookup_order(self, order_id: str) -> dict[str, Any]:
        if order_id not in ("A-1", "A-2"):
            raise ValueError(f"no order {order_id}")
        return {"order_id": order_id, "amount": 10}

    def issue_refund(self, order_id: str, amount: float) -> dict[str, Any]:
        self.lookup_order(order_id)
        self.refunds.append({"order_id": order_id, "amount": amount})
        return {"ok": True}


def tiny_shop() -> TinyShop:
    return TinyShop()


def dataset(cases_yaml: str, header: str = "") -> Dataset:
    """A dataset named ``t`` with the tiny shop's tools and the cases written in YAML."""
    text = f"name: t\ntools: [lookup_order, issue_refund]\n{header}cases:\n{cases_yaml}"
    return parse_dataset(text, format="yaml")
