"""Text from outside made safe for a terminal.

A trace (its ids, names, values) is untrusted content, and so is anything derived from it that a
command prints: it could carry terminal escape sequences that retitle the window, recolour the
output or move the cursor. :func:`shown` writes C0 and C1 control characters (but newline and
tab) escaped, as ``\\x1b``, so they are seen rather than obeyed. One definition for the report's
views and online alert notices.
"""

from __future__ import annotations

import re

__all__ = ["shown"]

# C0 and C1 control characters but newline and tab.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """``text`` made safe for a terminal: control characters shown as ``\\x1b``."""
    return _CONTROL_CHARACTERS.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
