"""A keyed hash of a value that keeps the value's type: the same id gives the same hash, so the
traces of one customer still group, and without the key nobody can tell whose they are.

HMAC-SHA256 of the value's text, with the key the rules file names. A plain SHA-256 would not
do: ids are few and guessable (``user-1`` to ``user-100000``), so anyone could hash each and look
it up; the key makes that impossible without it.

The hash keeps the value's type, so a field a scorer reads as a number stays a number:

- text becomes ``hmac-sha256:`` and 16 hex digits (64 bits of the digest: two different ids
  share a hash with a chance of about one in 10^19 per pair);
- an integer becomes a non-negative integer below 2^48 (a float: that integer as a float), so
  it fits any JSON reader and the store's 64-bit integers;
- a boolean becomes ``null`` (two values cannot be hidden by hashing them), as does ``null``;
- a list or a mapping keeps its shape: each value in it is hashed, mapping keys stay.

An integer and its decimal text hash alike (``42`` and ``"42"`` give the same digest, written as
an integer or as text), so an id one source writes as a number and another as text still groups.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, Final

__all__ = ["HASH_PREFIX", "KeyedHash"]

HASH_PREFIX: Final = "hmac-sha256:"
_HEX_DIGITS: Final = 16
_INT_BYTES: Final = 6


class KeyedHash:
    """Hashes values with one key (see the module)."""

    def __init__(self, key: bytes) -> None:
        if not key:
            raise ValueError("a keyed hash needs a key")
        self._key = key

    def digest(self, text: str) -> bytes:
        """The HMAC-SHA256 of ``text`` (UTF-8) under the key."""
        return hmac.new(self._key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def of(self, value: Any) -> Any:
        """``value`` hashed, its type kept (see the module)."""
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, str):
            return HASH_PREFIX + self.digest(value).hex()[:_HEX_DIGITS]
        if isinstance(value, int):
            return int.from_bytes(self.digest(str(value))[:_INT_BYTES], "big")
        if isinstance(value, float):
            text = str(int(value)) if value.is_integer() else repr(value)
            return float(int.from_bytes(self.digest(text)[:_INT_BYTES], "big"))
        if isinstance(value, dict):
            return {key: self.of(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.of(item) for item in value]
        return None
