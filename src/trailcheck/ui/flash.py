"""The line an action leaves for the page it redirects to (POST, redirect, GET). Kept here
under a random key rather than put in the URL, so a link from elsewhere cannot make the UI
show words of its choosing; read once, and only the latest ``limit`` are kept."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

__all__ = ["Flash", "Flashes"]


@dataclass(frozen=True)
class Flash:
    text: str
    failed: bool


@dataclass
class Flashes:
    limit: int = 256
    _held: OrderedDict[str, Flash] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def leave(self, text: str, *, failed: bool = False) -> str:
        """Keep ``text``; the key the next page reads it with."""
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._held[key] = Flash(text, failed)
            while len(self._held) > self.limit:
                self._held.popitem(last=False)
        return key

    def take(self, key: str | None) -> Flash | None:
        if not key:
            return None
        with self._lock:
            return self._held.pop(key, None)
