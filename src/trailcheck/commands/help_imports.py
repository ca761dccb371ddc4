"""Help printed without importing what it never shows.

typer prints help with ``typer.rich_utils``, which imports ``rich.traceback`` at its top (for
typer's pretty exceptions, which trailcheck turns off) and, through ``rich.markdown``,
``rich.syntax`` (for code blocks in colour, which no help of ours holds): with pygments, attrs
and rich's pretty printer, a tenth of what ``trailcheck --help`` spends starting.

:func:`import_rich_utils` imports ``typer.rich_utils`` with those two modules stood in for: each
name taken from one is a :class:`Deferred` that imports the real module the first time it is
called or read, so a traceback or a code block still renders exactly as before. The stand-ins
are gone from ``sys.modules`` once the import is done: an ``import rich.syntax`` later gets the
real module.
"""

import importlib
import sys
import types
from typing import Any, Final

__all__ = ["DEFERRED_MODULES", "Deferred", "import_rich_utils"]

DEFERRED_MODULES: Final = ("rich.traceback", "rich.syntax")


class Deferred:
    """``module.name``, imported when it is first called or one of its attributes read."""

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def resolved(self) -> Any:
        """The real object (its module imported now, if it was not)."""
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolved()(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.resolved(), attribute)

    def __repr__(self) -> str:
        return f"<deferred {self._module}.{self._name}>"


class _StandIn(types.ModuleType):
    """A module not imported yet: every name taken from it is :class:`Deferred`."""

    def __getattr__(self, name: str) -> Deferred:
        if name.startswith("__"):  # the import system's questions (__path__, __spec__, ...)
            raise AttributeError(name)
        return Deferred(self.__name__, name)


def import_rich_utils() -> None:
    """Import ``typer.rich_utils`` (once) without :data:`DEFERRED_MODULES`; those imported
    already are used as they are."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins = {name: _StandIn(name) for name in DEFERRED_MODULES if name not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("typer.rich_utils")
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
