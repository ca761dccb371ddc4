"""Log sanitisation: no value written into a log line can start a line of its own.

A log is read line by line, by people and by tools. A claimant named
``"Ana\\nINFO claims payout approved by=controller"`` would, logged as it is, add a line that
looks like the system's. :func:`sanitize_for_log` makes any value safe to put in a line: it
replaces with a space

- every C0 control (U+0000 to U+001F: ``\\n``, ``\\r``, ``\\t``, ``\\v``, ``\\f``, the file,
  group and record separators ...), DEL (U+007F) and every C1 control (U+0080 to U+009F, NEL
  U+0085 among them);
- the LINE SEPARATOR U+2028 and the PARAGRAPH SEPARATOR U+2029;
- the bidirectional embedding, override and isolate controls (U+202A to U+202E, U+2066 to
  U+2069), which reorder how the rest of a line reads on screen;

and a lone surrogate (which the log's UTF-8 encoder would refuse, losing the record) with
U+FFFD. Those are every character on which :meth:`str.splitlines` breaks, and then some; every
other character, of any script, is kept, so the content stays readable.

:class:`LogSanitizer` is the :class:`logging.Filter` that applies it to every record: the
message with its arguments (formatted first, so that ``%d`` and ``%r`` mean what they did), the
``extra`` fields a format string may name, and the traceback and stack text, whose lines are
each indented with ``"  | "`` so that an exception message cannot forge a record either.
Attach it to a handler, so that it sees the records of every logger that reaches the handler
(a filter on a logger sees only the records logged on that logger itself).
"""

from __future__ import annotations

import logging
import re

__all__ = ["CONTINUATION", "REPLACED", "LogSanitizer", "sanitize_for_log"]

REPLACED = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""The characters :func:`sanitize_for_log` replaces with a space."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_DONE = "trailcheck_sanitized"
CONTINUATION = "  | "
"""What each line of a traceback or stack starts with, once sanitised."""

_STANDARD_ATTRIBUTES = frozenset(
    logging.LogRecord("name", logging.INFO, "path", 1, "msg", None, None).__dict__
) | {"message", "asctime", "taskName"}


def sanitize_for_log(value: object) -> str:
    """``value`` as text (``str(value)``) that fits on one log line; see the module docstring."""
    text = value if isinstance(value, str) else str(value)
    return _SURROGATE.sub("\ufffd", REPLACED.sub(" ", text))


def _sanitize_block(text: str) -> str:
    """A multi-line text (a traceback, which the formatter puts on the lines after the
    message) with each line sanitised and marked as a continuation."""
    return "\n".join(CONTINUATION + sanitize_for_log(line) for line in text.splitlines())


class LogSanitizer(logging.Filter):
    """Sanitises every record it sees and lets it through; see the module docstring."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _DONE, False):  # a second handler with the filter: already done
            return True
        setattr(record, _DONE, True)
        record.msg = sanitize_for_log(_message(record))
        record.args = None
        for name, value in list(record.__dict__.items()):
            if name not in _STANDARD_ATTRIBUTES and isinstance(value, str):
                setattr(record, name, sanitize_for_log(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = _sanitize_block(record.exc_text)
        if record.stack_info:
            record.stack_info = _sanitize_block(record.stack_info)
        return True


def _message(record: logging.LogRecord) -> str:
    """The record's message with its arguments; when they do not fit its format, the format
    and the arguments side by side (logging itself would report the error and drop the line)."""
    try:
        return record.getMessage()
    except (TypeError, ValueError, KeyError) as error:
        return f"{record.msg} (arguments {record.args!r} do not fit: {error})"
