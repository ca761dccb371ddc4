"""Which model-requested tool call is being answered, so the tool span that answers it records
the model's call id and is paired with the request in the messages (one call, not two).

The code that answers a call (:func:`trailcheck.guard.toolbox.answer_call`) runs the tool inside
``answering(call.id)``; the first tool span started in that context claims the id
(:func:`claim_answered_call_id`). A tool the answering tool calls in turn starts its own span,
which finds the id already claimed: it answers no model request of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(slots=True)
class _Answering:
    call_id: str
    claimed: bool = False


_ANSWERING: ContextVar[_Answering | None] = ContextVar("trailcheck_answering", default=None)


@contextmanager
def answering(call_id: str | None) -> Iterator[None]:
    """Run the body as the answer to the model's tool call ``call_id`` (nothing when ``None``)."""
    if call_id is None:
        yield
        return
    token = _ANSWERING.set(_Answering(call_id))
    try:
        yield
    finally:
        _ANSWERING.reset(token)


def claim_answered_call_id() -> str | None:
    """The id of the call being answered, for the first tool span that asks; then ``None``."""
    current = _ANSWERING.get()
    if current is None or current.claimed:
        return None
    current.claimed = True
    return current.call_id
