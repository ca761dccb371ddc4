"""``module:attribute`` references: how a dataset file or a command line names Python code.

``trailcheck run --agent shop.agents:make_agent`` and a replay scorer's
``environment: trailcheck.demo.support:prompt_only_shop`` both name an object this way: a module
to import and a dotted attribute path inside it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from trailcheck.errors import UsageError

_REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def is_reference(text: str) -> bool:
    """Whether ``text`` has the ``module:attribute`` shape (it may still fail to resolve)."""
    return _REFERENCE.fullmatch(text) is not None


def resolve_reference(reference: str, *, what: str) -> Any:
    """The object ``reference`` names; a UsageError says which part did not resolve.

    ``what`` names the role in the message (``"agent factory"``, ``"environment factory"``).
    """
    if not is_reference(reference):
        raise UsageError(f"{what} {reference!r} is not of the form module:attribute")
    module_name, _, attribute_path = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(f"{what} {reference!r}: cannot import {module_name!r}: {error}") from error
    for part in attribute_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise UsageError(
                f"{what} {reference!r}: {module_name!r} has no attribute {attribute_path!r}"
            ) from None
    return target
