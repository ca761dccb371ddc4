"""Which errors of a tool call go back to the model, and which fail the trial.

::

    policy = ErrorPolicy()                      # ToolError, ValidationError, HTTP status errors
    policy = ErrorPolicy(recoverable=(ToolError, QuotaExceeded))   # or your own list
    content = policy.tool_result(error)         # '{"error": "ToolError: no order A-9"}', or raises

An error is *recoverable* when the model can act on it: a domain
:class:`~trailcheck.environment.ToolError` (not verified, not found), a pydantic
``ValidationError`` raised by the tool, an HTTP status error from the service behind it
(``httpx.HTTPStatusError``: a 404 for a wrong id, a 429 to wait on), and the guard's own
refusals (:class:`RefusedCallError`: invalid arguments, an unknown tool, a call a policy
blocked), which are recoverable whatever the configuration says. A recoverable error becomes the
tool's result, ``{"error": "<Type>: <message>"}``, so the model can correct itself. Anything
else (a ``KeyError``, a ``TypeError``) is a bug in the tool: it propagates and fails the trial.
``BaseException``s that are not ``Exception``s (a cancellation) are never caught.

A tool that runs work in an ``asyncio.TaskGroup`` raises an ``ExceptionGroup``; it is unwrapped
to the errors it holds (nested groups too) before the policy decides: one error is decided as
if the tool had raised it (and re-raised as itself when it is a bug); several are recoverable
only if all of them are, and their messages are joined with ``"; "``; otherwise the group
propagates as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import httpx
import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from trailcheck.environment import ToolError
from trailcheck.errors import UsageError

__all__ = [
    "DEFAULT_RECOVERABLE",
    "ErrorPolicy",
    "RefusedCallError",
    "describe_error",
    "error_content",
    "leaf_errors",
    "validation_summary",
]


class RefusedCallError(Exception):
    """A call the guard refused before the tool ran; ``kind`` is the type the model reads."""

    kind: ClassVar[str] = "RefusedCall"


DEFAULT_RECOVERABLE: tuple[type[Exception], ...] = (
    ToolError,
    ValidationError,
    httpx.HTTPStatusError,
)


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    """The exception types a tool may raise that go back to the model (see the module)."""

    recoverable: tuple[type[Exception], ...] = DEFAULT_RECOVERABLE

    def __post_init__(self) -> None:
        for kind in self.recoverable:
            if not (isinstance(kind, type) and issubclass(kind, Exception)):
                raise UsageError(f"an error policy lists exception types, and {kind!r} is not one")

    def is_recoverable(self, error: BaseException) -> bool:
        """Whether ``error`` (not a group) goes back to the model."""
        return isinstance(error, (RefusedCallError, *self.recoverable))

    def tool_result(self, error: Exception) -> str:
        """The tool message for a recoverable ``error``; a bug is re-raised (see the module)."""
        leaves = leaf_errors(error)
        if all(self.is_recoverable(leaf) for leaf in leaves):
            return error_content("; ".join(describe_error(leaf) for leaf in leaves))
        if len(leaves) == 1 and leaves[0] is not error:
            raise leaves[0]
        raise error


def leaf_errors(error: BaseException) -> list[BaseException]:
    """The errors an exception group holds, nested groups flattened, in order; ``[error]`` for
    anything else."""
    if not isinstance(error, BaseExceptionGroup):
        return [error]
    leaves: list[BaseException] = []
    for inner in error.exceptions:
        leaves.extend(leaf_errors(inner))
    return leaves


def describe_error(error: BaseException) -> str:
    """``Type: message`` as the model reads it: a guard refusal by its ``kind``, a validation
    error as one line per argument, an HTTP status error by status, method and path (not the
    query, which may hold a key)."""
    if isinstance(error, RefusedCallError):
        return f"{error.kind}: {error}"
    if isinstance(error, ValidationError):
        return f"ValidationError: {validation_summary(error.errors(include_url=False))}"
    if isinstance(error, httpx.HTTPStatusError):
        request, response = error.request, error.response
        where = f"{request.method} {request.url.copy_with(query=None, fragment=None)}"
        return f"HTTPStatusError: {response.status_code} {response.reason_phrase} from {where}"
    return f"{type(error).__name__}: {error}"


def error_content(description: str) -> str:
    """The content of a tool message that reports an error: ``{"error": description}``."""
    return orjson.dumps({"error": description}).decode()


def validation_summary(problems: Sequence[ErrorDetails]) -> str:
    """``order_id: Field required; extra: Unexpected keyword argument``, from pydantic's
    ``errors(include_url=False)``, without its links: the model reads it."""
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'arguments'}: {problem['msg']}"
        for problem in problems
    )
