"""The check digits that tell a card number or an IBAN from any other run of digits.

A detector for card numbers or IBANs that matched on shape alone would redact order numbers,
timestamps and reference codes; these checks are what real numbers carry and most other digit
runs do not (one in ten random digit runs passes Luhn, one in 97 passes mod 97).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["iban_valid", "luhn_valid"]

# An IBAN is 15 (Norway) to 34 characters long, country code and check digits included.
IBAN_MIN_LENGTH: Final = 15
IBAN_MAX_LENGTH: Final = 34
# ASCII only: ``str.isdigit`` and ``\d`` also take other scripts' digits.
_IBAN_SHAPE: Final = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]+")


def luhn_valid(digits: str) -> bool:
    """Whether the digit string passes the Luhn check (as card numbers do)."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """Whether ``iban`` (upper case, no spaces) is an IBAN by ISO 13616: two letters, two check
    digits, then letters and digits, 15 to 34 in all, whose mod-97 check (the first four moved
    to the end, letters as 10 to 35) leaves 1."""
    if not IBAN_MIN_LENGTH <= len(iban) <= IBAN_MAX_LENGTH:
        return False
    if _IBAN_SHAPE.fullmatch(iban) is None:
        return False
    remainder = 0
    for char in iban[4:] + iban[:4]:
        value = int(char) if char <= "9" else ord(char) - ord("A") + 10
        remainder = (remainder * (100 if value > 9 else 10) + value) % 97
    return remainder == 1
