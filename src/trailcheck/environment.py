"""What an agent acts on: an Environment resets to a fixture, exposes tools, and shows its state.

::

    class Shop:
        def reset(self) -> None: ...            # back to the fixture, before every trial
        def snapshot(self) -> dict[str, Any]:   # the state a state scorer grades
            ...
        @property
        def tools(self) -> list[Callable[..., Any]]:
            return [self.lookup_order, self.issue_refund]   # plain typed functions or methods

The protocol lives below scorers and runner alike: the runner resets an environment per trial,
and the replay state scorer resets one to derive the expected state from a case's expected calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Environment(Protocol):
    """A resettable world with tools; see the module docstring."""

    def reset(self) -> None: ...

    def snapshot(self) -> dict[str, Any]: ...

    @property
    def tools(self) -> Sequence[Callable[..., Any]]: ...


EnvironmentFactory = Callable[[], Environment]


class ToolError(Exception):
    """Raised by a tool for an error the agent can act on (not verified, not found, rate
    limited): agent loops send it back to the model as the tool's result instead of failing."""
