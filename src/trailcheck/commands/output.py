"""Where the commands write: the two consoles, and ``--json`` output."""

from __future__ import annotations

import sys

import orjson
from rich.console import Console

__all__ = ["print_json", "stderr", "stdout"]

stdout = Console(soft_wrap=False)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(value: object) -> None:
    """``value`` as indented JSON on stdout, for ``--json`` and the schemas."""
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
    sys.stdout.write("\n")
