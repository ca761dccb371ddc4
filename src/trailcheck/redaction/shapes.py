"""What each built-in detector looks for (:mod:`trailcheck.redaction.detectors`): its regular
expressions, and the checks a match must pass before it is replaced.

A shape is ``(group, kind, pattern)``: the pattern's group name in the scan that runs it (the
kind's, with a suffix where one kind has several shapes), the kind of content it finds, and the
pattern. Patterns use ASCII classes (``[0-9]``, never ``\\d``, which takes other scripts' digits
too).
"""

from __future__ import annotations

import re
from typing import Final, Literal, get_args

from trailcheck.redaction.checksums import iban_valid, luhn_valid

__all__ = [
    "API_KEY",
    "BEARER",
    "DETECTOR_KINDS",
    "EMAIL",
    "IBAN",
    "JWT",
    "NUMBERS",
    "PRIVATE_KEY",
    "URL_PASSWORD",
    "DetectorKind",
    "Shape",
    "marker",
    "replacement",
]

DetectorKind = Literal[
    "private_key",
    "url_password",
    "bearer_token",
    "api_key",
    "email",
    "iban",
    "card_number",
    "phone",
]
DETECTOR_KINDS: Final[tuple[DetectorKind, ...]] = get_args(DetectorKind)
Shape = tuple[str, DetectorKind, str]

_PEM_LABEL: Final = r"[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
PRIVATE_KEY: Final[Shape] = (
    "private_key",
    "private_key",
    rf"-----BEGIN{_PEM_LABEL}[\s\S]*?(?:-----END{_PEM_LABEL}|\Z)",
)
URL_PASSWORD: Final[Shape] = (
    "url_password",
    "url_password",
    r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:[^\s/?#@]+@",
)
EMAIL: Final[Shape] = (
    "email",
    "email",
    r"\b[A-Za-z0-9_.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
)
BEARER: Final[Shape] = (
    "bearer_token",
    "bearer_token",
    r"\b(?:[Bb]earer|BEARER)\s+[A-Za-z0-9._~+/=-]{8,}",
)
JWT: Final[Shape] = (
    "jwt",
    "bearer_token",
    r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
)
API_KEY_PATTERNS: Final = (
    r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}",
    r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"whsec_[A-Za-z0-9]{24,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_-]{20,}",
    r"xox[abposr]-[A-Za-z0-9-]{10,}",
    r"AIza[0-9A-Za-z_-]{30,}",
    r"hf_[A-Za-z0-9]{30,}",
    r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    r"npm_[A-Za-z0-9]{36}",
    r"gsk_[A-Za-z0-9]{40,}",
    r"xai-[A-Za-z0-9]{40,}",
)
# Text that holds none of these holds no key of API_KEY_PATTERNS.
API_KEY_MARKS: Final = (
    "sk-",
    "k_live_",
    "k_test_",
    "whsec_",
    "AKIA",
    "ASIA",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "AIza",
    "hf_",
    "SG.",
    "npm_",
    "gsk_",
    "xai-",
)
API_KEY: Final[Shape] = ("api_key", "api_key", rf"\b(?:{'|'.join(API_KEY_PATTERNS)})")
IBAN: Final[Shape] = (
    "iban",
    "iban",
    r"\b[A-Z]{2}[0-9]{2}(?:(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?|[A-Z0-9]{11,30})\b",
)
NUMBERS: Final[tuple[Shape, ...]] = (
    ("card_number", "card_number", r"(?<![0-9])[2-6](?:[ -]?[0-9]){12,18}(?![0-9])"),
    (
        "phone_international",
        "phone",
        r"(?<![\w+])\+[0-9]{1,3}(?:[ .-]?\(?[0-9]{1,4}\)?){2,6}(?![0-9])",
    ),
    (
        "phone_grouped",
        "phone",
        r"(?<![\w-])(?:\([0-9]{3}\) ?|[0-9]{3}(?P<sep>[-.]))[0-9]{3}(?(sep)(?P=sep)|[-. ])"
        r"[0-9]{4}(?![\w-])",
    ),
    (
        "phone_trunk",
        "phone",
        r"(?<![\w-])0[0-9]{1,4}(?P<tsep>[ -])[0-9]{3,4}(?P=tsep)[0-9]{3,4}(?![\w-])",
    ),
)
_GROUP_KIND: Final = {
    group: kind
    for group, kind, _ in (PRIVATE_KEY, URL_PASSWORD, EMAIL, BEARER, JWT, API_KEY, IBAN, *NUMBERS)
}
_SEPARATORS: Final = re.compile(r"[ .()-]")
_GROUP_SEPARATOR: Final = re.compile(r"[ -]")
# How many digits a phone number has (E.164 allows up to 15; the shortest national ones 8).
_PHONE_DIGITS: Final = range(8, 16)
_TRUNK_DIGITS: Final = range(10, 12)


def marker(rule: str) -> str:
    """What replaces the text a rule found: ``[REDACTED:<rule>]``."""
    return f"[REDACTED:{rule}]"


def replacement(match: re.Match[str], found: list[DetectorKind]) -> str:
    """What replaces a match of a shape (its group named as the shape is): its marker, and its
    kind appended to ``found``; but the match itself for a card number or an IBAN that fails
    its check, and for a phone number of too few or too many digits."""
    group = match.lastgroup or ""
    matched = match.group(0)
    kind = _GROUP_KIND[group]
    if kind == "url_password":
        user_end = matched.index(":", matched.index("://") + 3) + 1
        found.append(kind)
        return f"{matched[:user_end]}{marker(kind)}@"
    if kind in ("card_number", "iban"):
        length = _card_length(matched) if kind == "card_number" else _iban_length(matched)
        if not length:
            return matched
        found.append(kind)
        return marker(kind) + matched[length:]
    if group == "phone_international" and len(_digits(matched)) not in _PHONE_DIGITS:
        return matched
    if group == "phone_trunk" and len(_digits(matched)) not in _TRUNK_DIGITS:
        return matched
    found.append(kind)
    return marker(kind)


def _digits(text: str) -> str:
    return _SEPARATORS.sub("", text)


def _card_length(text: str) -> int:
    """The length of the longest prefix of ``text``, cut only between its groups, whose digits
    are a card number (13 to 19 digits passing Luhn): a card followed by another group
    (``... 1111 2024``) is still found. 0 when none is."""
    for end in _group_ends(text):
        digits = _digits(text[:end])
        if len(digits) < 13:
            break
        if len(digits) <= 19 and luhn_valid(digits):
            return end
    return 0


def _iban_length(text: str) -> int:
    """:func:`_card_length` for an IBAN (15 to 34 characters passing mod 97)."""
    for end in _group_ends(text):
        compact = _digits(text[:end])
        if len(compact) < 15:
            break
        if iban_valid(compact):
            return end
    return 0


def _group_ends(text: str) -> list[int]:
    """Where a prefix of ``text`` may end: its end, then before each group from the last."""
    return [len(text), *reversed([match.start() for match in _GROUP_SEPARATOR.finditer(text)])]
