"""Regular expressions written in files: checked when the file is read, not when first used."""

from __future__ import annotations

import re


def valid_regex(pattern: str) -> str:
    """``pattern`` unchanged when it compiles as a Python regular expression; else ValueError."""
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"not a valid regular expression: {error}") from None
    return pattern
