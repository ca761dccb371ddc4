"""The built-in detectors: secrets and personal data found in text by their shape and checks.

Each is named by the kind of content it finds, which is also its rule name in the counts:

- ``private_key``: a PEM private key block (``-----BEGIN ... PRIVATE KEY-----`` to its
  ``END`` line, or to the end of the text when it is cut off);
- ``url_password``: the password of a URL that carries one (``scheme://user:PASSWORD@host``);
  only the password is replaced, the user and host stay;
- ``bearer_token``: ``Bearer <token>`` (``bearer`` and ``BEARER`` too), and JSON Web Tokens
  (``eyJ...``);
- ``api_key``: the key formats of common providers: OpenAI and Anthropic (``sk-``), Stripe
  (``sk_live_``, ``rk_test_``, ``whsec_``...), AWS access key ids (``AKIA``, ``ASIA``), GitHub
  (``ghp_``, ``gho_``, ``github_pat_``...), GitLab (``glpat-``), Slack (``xoxb-``...), Google
  (``AIza``), Hugging Face (``hf_``), SendGrid (``SG.``), npm (``npm_``), Groq (``gsk_``), xAI
  (``xai-``);
- ``email``: e-mail addresses;
- ``iban``: IBANs, compact or in groups of four, that pass the mod-97 check;
- ``card_number``: 13 to 19 digits (spaces or dashes between them allowed) that start as the
  card networks' numbers do (2 to 6) and pass the Luhn check; so a nanosecond timestamp (it
  starts with 1) or an order number is not taken for a card;
- ``phone``: a number written as phone numbers are, never any run of digits: international
  (``+`` and 8 to 15 digits, in groups or not: ``+1 415 555 0100``, ``+4915112345678``), North
  American in groups (``(415) 555-0100``, ``415-555-0100``, ``415.555.0100``), or national with
  a trunk 0 in two groups (``020 7946 0958``).

Detectors read text only: a number (an int or float value) is never taken for a card or a
phone, since most numbers in a trace are times, counts and amounts.

Their shapes are in :mod:`trailcheck.redaction.shapes`. A text is scanned only for what it can
hold, and only where it can hold it (:class:`_Scan`): an e-mail address or a URL password in
the words around an ``@``, a card, IBAN or phone number around a run of digits, a provider's key
where its prefix is. Python's regular expressions try every alternative at every place of a
text, so scanning all of every text for every shape costs several times what intake costs
without redaction; this way most texts are passed over after a few substring tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from trailcheck.redaction.shapes import (
    API_KEY,
    API_KEY_MARKS,
    BEARER,
    DETECTOR_KINDS,
    EMAIL,
    IBAN,
    JWT,
    NUMBERS,
    PRIVATE_KEY,
    URL_PASSWORD,
    DetectorKind,
    Shape,
    marker,
    replacement,
)

__all__ = ["DETECTOR_KINDS", "DetectorKind", "TextDetectors", "marker"]

# A region of a text, [start, stop), where a scan looks for its shapes.
Window = tuple[int, int]

# No detector finds anything in a text shorter than this (``a@b.co``).
_SHORTEST: Final = 6
# Where a card, phone number or IBAN can be: around a run of at least 8 digits, signs and
# separators (an IBAN's letters may stand on either side of its digits: up to 42 characters
# with its spaces). Runs are few even in long texts, and finding them is one cheap scan.
_NUMBER_RUN: Final = re.compile(r"[0-9+(][0-9 ().+-]{7,}")
_IBAN_REACH: Final = 42
_SPACES: Final = (" ", "\n", "\t", "\r")


def _whole(text: str) -> list[Window]:
    return [(0, len(text))]


def _around_at_signs(text: str) -> list[Window]:
    """The words (between whitespace) that hold an ``@``: no e-mail address or URL with a
    password spans whitespace."""
    windows: list[Window] = []
    at = text.find("@")
    while at >= 0:
        start = max(text.rfind(space, 0, at) for space in _SPACES) + 1
        ends = [end for space in _SPACES if (end := text.find(space, at)) >= 0]
        end = min(ends) if ends else len(text)
        windows.append((start, min(end + 1, len(text))))
        at = text.find("@", end)
    return windows


def _around_number_runs(text: str) -> list[Window]:
    return [
        (max(run.start() - _IBAN_REACH, 0), min(run.end() + _IBAN_REACH, len(text)))
        for run in _NUMBER_RUN.finditer(text)
    ]


_KEY_MARK: Final = re.compile("|".join(re.escape(mark) for mark in API_KEY_MARKS))


def _has_key_mark(text: str) -> bool:
    return _KEY_MARK.search(text) is not None


@dataclass(frozen=True, slots=True)
class _Scan:
    """One scan of a text for some shapes: only where ``gate`` lets it (a test far cheaper than
    the scan, which most texts fail), and only in the ``windows`` of the text where its shapes
    can be. A window reaches a character past the shapes it may hold, for their lookarounds;
    what is before it is seen as well (a search starts in the text, not in a copy)."""

    gate: Callable[[str], bool]
    windows: Callable[[str], list[Window]]
    shapes: tuple[Shape, ...]


# In the order they run: the first replace what may hold the others' shapes (a key block, a
# URL with its password).
_SCANS: Final = (
    _Scan(lambda text: "PRIVATE KEY" in text, _whole, (PRIVATE_KEY,)),
    _Scan(lambda text: "@" in text, _around_at_signs, (URL_PASSWORD, EMAIL)),
    _Scan(lambda text: "earer" in text or "EARER" in text, _whole, (BEARER,)),
    _Scan(lambda text: "eyJ" in text, _whole, (JWT,)),
    _Scan(_has_key_mark, _whole, (API_KEY,)),
    _Scan(lambda text: True, _around_number_runs, (IBAN, *NUMBERS)),
)


class TextDetectors:
    """The built-in detectors of ``kinds``, as the scans a text needs (see :class:`_Scan`)."""

    def __init__(self, kinds: Iterable[DetectorKind] = DETECTOR_KINDS) -> None:
        self.kinds: frozenset[DetectorKind] = frozenset(kinds)
        self._scans: list[
            tuple[Callable[[str], bool], Callable[[str], list[Window]], re.Pattern[str]]
        ] = []
        for scan in _SCANS:
            chosen = [
                f"(?P<{g}>{pattern})" for g, kind, pattern in scan.shapes if kind in self.kinds
            ]
            if chosen:
                self._scans.append((scan.gate, scan.windows, re.compile("|".join(chosen))))

    def redact(self, text: str) -> tuple[str, list[DetectorKind]] | None:
        """``text`` with what the detectors find replaced by its marker, and the kind of each
        replacement, in order; None when they find nothing (most texts)."""
        if len(text) < _SHORTEST:
            return None
        found: list[DetectorKind] = []
        for gate, windows, pattern in self._scans:
            if gate(text) and (regions := windows(text)):
                text = _replaced_in(pattern, regions, text, found)
        return (text, found) if found else None


def _replaced_in(
    pattern: re.Pattern[str], windows: list[Window], text: str, found: list[DetectorKind]
) -> str:
    """``pattern.sub`` of the shapes' replacements over ``text``, looking only inside the
    windows (in order, overlapping ones read once)."""
    pieces: list[str] = []
    done = 0
    for window_start, stop in windows:
        start = max(window_start, done)
        while start < stop and (match := pattern.search(text, start, stop)) is not None:
            pieces += (text[done : match.start()], replacement(match, found))
            done = start = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)
