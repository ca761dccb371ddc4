"""What an environment's tool gives back to a framework's model: the result as the native tool
loop renders it, and the error the ``error_policy`` lets the model see.

A result is sent as the native loop sends it (a text as it is, anything else as its JSON), so a
scripted brain reads the same tool messages under every framework. An error is recoverable when
every error it holds is (an exception group's leaves, see
:func:`~trailcheck.guard.error_policy.leaf_errors`); its description is ``Type: message``, the
leaves' joined with ``"; "``. Any other error is a bug: the adapter lets it end the run.
"""

from __future__ import annotations

from typing import Any

import orjson

from trailcheck.capture.jsonable import to_json_value
from trailcheck.guard import ErrorPolicy
from trailcheck.guard.error_policy import describe_error, leaf_errors

__all__ = ["recoverable_description", "result_text"]


def result_text(result: Any) -> str:
    """A tool's result as the native loop sends it to the model."""
    if isinstance(result, str):
        return result
    return orjson.dumps(to_json_value(result).value).decode()


def recoverable_description(policy: ErrorPolicy, error: BaseException) -> str | None:
    """``Type: message`` of an error the model may see and act on; None for a bug."""
    leaves = leaf_errors(error)
    if all(policy.is_recoverable(leaf) for leaf in leaves):
        return "; ".join(describe_error(leaf) for leaf in leaves)
    return None
