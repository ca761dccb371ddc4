"""Promotion's redaction: what leaves a trace for a candidate case is redacted by the built-in
rules of :mod:`trailcheck.redaction`, the same definition ``serve --redact builtin`` and
``ingest --redact builtin`` apply at intake (private keys, URL passwords, bearer tokens, provider
API keys, e-mail addresses, IBANs, card numbers, phone numbers, secret-named keys).

Each redaction is listed as a :class:`~trailcheck.redaction.Redaction`, its rule and where
(``input``, ``proposed.expected_arguments[0].arguments.email``), never with the text it
replaced.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

from trailcheck.redaction import Redaction, builtin_redactor

__all__ = ["Redaction", "redact_text", "redact_value"]


def redact_text(text: str, where: str, found: MutableSequence[Redaction]) -> str:
    """``text`` with every secret replaced; a :class:`Redaction` per replacement in ``found``."""
    return builtin_redactor().text(text, where, found)


def redact_value(value: Any, where: str, found: MutableSequence[Redaction]) -> Any:
    """A JSON value with every text in it redacted, and the values of secret-named keys."""
    return builtin_redactor().value(value, where, found)
