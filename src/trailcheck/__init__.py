"""trailcheck: make tool-using AI agents trustworthy.

Traces in, graded golden cases out. The public names are re-exported here; implementation lives
in the subpackages.
"""

from importlib.metadata import version as _version

from trailcheck.errors import InputError, RecordError, TrailcheckError, UsageError
from trailcheck.trace import Message, Span, ToolCall, Trace

__version__ = _version("trailcheck")

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
