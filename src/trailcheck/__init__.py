"""trailcheck: make tool-using AI agents trustworthy.

Traces in, graded golden cases out. The public names are re-exported here; implementation lives
in the subpackages.

The trace model and ``__version__`` are loaded on first use (PEP 562): every ``trailcheck.*``
import runs this module first, the CLI's included, and ``trailcheck --help`` needs neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailcheck.errors import InputError, RecordError, TrailcheckError, UsageError

if TYPE_CHECKING:
    from trailcheck.trace import Message, Span, ToolCall, Trace

    __version__: str

__all__ = [
    "InputError",
    "Message",
    "RecordError",
    "Span",
    "ToolCall",
    "Trace",
    "TrailcheckError",
    "UsageError",
    "__version__",
]

_FROM_TRACE = frozenset({"Message", "Span", "ToolCall", "Trace"})


def __getattr__(name: str) -> object:
    if name in _FROM_TRACE:
        from trailcheck import trace

        value: object = getattr(trace, name)
    elif name == "__version__":
        from importlib.metadata import version

        value = version("trailcheck")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
