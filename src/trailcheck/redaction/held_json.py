"""JSON held in text, read as it is written before it is parsed: most JSON a trace carries
(messages, tool arguments) holds nothing to redact, and one scan of its text costs far less than
parsing it and reading each of its values.

The scan must never miss what a value holds. A value stands in the JSON text as it is but for
its escapes; read with the escapes of whitespace and backslashes undone (:func:`escapes_read`),
the text gives the detectors what each value gives them, or more (what lies between two values
can only add matches). ``\\"`` is left as it is: a detector sees a backslash and a quote alike
(neither is part of a word, and both may be in a URL's user or password). Escapes that could
hide a character the detectors look for (``\\u0040`` is ``@``; ``\\/``) make the scan give up
and the JSON be parsed; so does a key that may be secret-named.
"""

from __future__ import annotations

from typing import Final

from trailcheck.redaction.detectors import TextDetectors
from trailcheck.redaction.secret_keys import SECRET_WORDS

__all__ = ["escapes_read", "may_hold"]

_WHITESPACE_ESCAPES: Final = (
    ("\\n", "\n"),
    ("\\r", "\r"),
    ("\\t", "\t"),
    ("\\b", "\b"),
    ("\\f", "\f"),
)


def may_hold(json_text: str, detectors: TextDetectors, secret_fields: bool) -> bool:
    """Whether the JSON text may hold something the detectors (or, with ``secret_fields``, a
    secret-named key) would redact; never False where it does."""
    if "\\u" in json_text or "\\/" in json_text:
        return True
    if secret_fields:
        lowered = json_text.lower()
        if any(word in lowered for word in SECRET_WORDS):
            return True
    return detectors.redact(escapes_read(json_text)) is not None


def escapes_read(json_text: str) -> str:
    """The JSON text with its escapes of whitespace and backslashes undone: an escaped
    backslash as a character no detector takes for part of a word (a backslash is none either),
    ``\\n`` as a line break."""
    text = json_text.replace("\\\\", "\x00")
    for escape, character in _WHITESPACE_ESCAPES:
        text = text.replace(escape, character)
    return text
