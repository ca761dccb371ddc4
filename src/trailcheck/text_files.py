"""A text file read for a command: its UTF-8 text, or an :class:`InputError` naming the file
and what went wrong (it cannot be read, or it is not UTF-8, at which byte). A leading byte-order
mark is dropped, as editors on some systems write one."""

from __future__ import annotations

from pathlib import Path

from trailcheck.errors import InputError

__all__ = ["read_text_file"]


def read_text_file(path: Path) -> str:
    """The text of the file at ``path`` (see the module docstring)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the file: {error.strerror or error}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text: {error.reason} at byte {error.start}") from None
