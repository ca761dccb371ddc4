"""Cached signatures say what inspect.signature says, for every way a tool reaches the runner."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from trailcheck.callables import callable_source, signature_of


def logged(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return call


class Shop:
    def lookup(self, order_id: str, verbose: bool = False) -> str:
        return order_id

    @logged
    def refund(self, order_id: str, amount: float) -> str:
        return order_id


def plain(order_id: str) -> str:
    return order_id


@pytest.mark.parametrize(
    "make",
    [
        lambda: plain,
        lambda: Shop().lookup,
        lambda: Shop.lookup,
        lambda: logged(Shop().lookup),
        lambda: Shop().refund,
        lambda: logged(Shop().refund),
        lambda: functools.partial(plain),
    ],
    ids=[
        "function",
        "bound",
        "unbound",
        "wrapped-bound",
        "decorated",
        "wrapped-decorated",
        "partial",
    ],
)
def test_cached_signature_equals_inspects_every_time(make: Callable[[], Any]) -> None:
    first, again = make(), make()
    assert signature_of(first) == inspect.signature(first)
    assert signature_of(again) == inspect.signature(again)


def test_bound_and_unbound_are_kept_apart() -> None:
    assert list(signature_of(Shop.lookup).parameters) == ["self", "order_id", "verbose"]
    assert list(signature_of(Shop().lookup).parameters) == ["order_id", "verbose"]
    assert callable_source(Shop().lookup) == (Shop.lookup, True)
    assert callable_source(functools.partial(plain)) is None
