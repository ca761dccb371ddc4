"""How a name that is not known is reported: with the closest known name, and the known ones."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_hint(name: object, known: Iterable[str]) -> str:
    """`` (did you mean 'trajectory'?)`` when a known name is close to ``name``, else ``""``."""
    close = difflib.get_close_matches(name, list(known), n=1) if isinstance(name, str) else []
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_name_message(kind: str, name: object, known: Iterable[str]) -> str:
    """``unknown scorer 'trajectori' (did you mean 'trajectory'?); known: arguments, ...``."""
    ordered = sorted(known)
    return f"unknown {kind} {name!r}{closest_hint(name, ordered)}; known: {', '.join(ordered)}"
