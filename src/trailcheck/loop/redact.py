"""Redaction: what leaves a trace for a dataset has its secrets and personal data replaced.

Kinds, each replaced by ``[REDACTED:<kind>]``:

- ``api_key``: provider key formats (``sk-...``, ``sk-ant-...``, ``AKIA...``, ``ghp_...``,
  ``github_pat_...``, ``xox?-...``, ``AIza...``), and the value of any mapping key named like a
  secret (``api_key``, ``token``, ``secret``, ``password``, ``authorization``);
- ``bearer_token``: ``Bearer <token>`` and JSON Web Tokens (``eyJ...``);
- ``email``: e-mail addresses;
- ``card_number``: 13 to 19 digits (spaces or dashes between them allowed) that pass the Luhn
  check, so an order number is not taken for a card.

Each redaction is listed as :class:`Redaction` (kind and where: ``input``,
``proposed.expected_arguments[0].arguments.email``), never with the text it replaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

RedactionKind = Literal["api_key", "bearer_token", "email", "card_number"]

_PATTERNS: tuple[tuple[RedactionKind, re.Pattern[str]], ...] = (
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")),
    ("bearer_token", re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+")),
    (
        "api_key",
        re.compile(
            r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{30,}"
            r"|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})"
        ),
    ),
    ("email", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")),
)
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_SECRET_KEY = re.compile(
    r"(?i)^(?:x-)?(?:api[_-]?key|access[_-]?token|token|secret|password|"
    r"passwd|authorization|auth[_-]?token|client[_-]?secret)$"
)


@dataclass(frozen=True, slots=True)
class Redaction:
    """One redaction: what kind of content, and where it was (never the content)."""

    kind: RedactionKind
    where: str

    def __str__(self) -> str:
        return f"{self.kind} at {self.where}"


def _marker(kind: RedactionKind) -> str:
    return f"[REDACTED:{kind}]"


def luhn_valid(digits: str) -> bool:
    """Whether the digit string passes the Luhn check (as card numbers do)."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def redact_text(text: str, where: str, found: list[Redaction]) -> str:
    """``text`` with every secret replaced; a :class:`Redaction` per replacement in ``found``."""
    for kind, pattern in _PATTERNS:
        text, count = pattern.subn(_marker(kind), text)
        found.extend(Redaction(kind, where) for _ in range(count))

    def card(match: re.Match[str]) -> str:
        digits = re.sub(r"[ -]", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            found.append(Redaction("card_number", where))
            return _marker("card_number")
        return match.group(0)

    return _CARD.sub(card, text)


def redact_value(value: Any, where: str, found: list[Redaction]) -> Any:
    """A JSON value with every text in it redacted, and the values of secret-named keys."""
    if isinstance(value, str):
        return redact_text(value, where, found)
    if isinstance(value, dict):
        redacted: dict[str, Any] = {}
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if _SECRET_KEY.match(str(key)) and item not in (None, ""):
                found.append(Redaction("api_key", path))
                redacted[key] = _marker("api_key")
            else:
                redacted[key] = redact_value(item, path, found)
        return redacted
    if isinstance(value, list | tuple):
        return [redact_value(item, f"{where}[{i}]", found) for i, item in enumerate(value)]
    return value
