"""The exceptions trailcheck raises on purpose.

::

    TrailcheckError               base: anything trailcheck reports to a person
    ├── UsageError                the command line or an API was used wrongly        (exit 2)
    │   └── store.UnknownTraceError   no stored trace has that id
    ├── InputError                input that cannot be read or is not valid         (exit 2)
    │   ├── RecordError           one record of an input is bad; names where it is
    │   ├── loop.RuleFileError    a detection rule file is bad; names file, line, field
    │   ├── online.OnlineConfigError  an online evaluators file is bad; names file, line, field
    │   └── redaction.RedactionRulesError  a redaction rules file is bad; names file, line, field
    └── InfraError                a model or network service failed after its retries
        └── online.DeliveryError  an alert notice did not reach its destination

Exit codes of the CLI, defined here once (:data:`EXIT_OK`, :data:`EXIT_FAILED`,
:data:`EXIT_USAGE`): 0 success; 1 the data was processed but something failed (a record was
rejected, a gate failed, an audit found a high finding, a router answered wrongly, a fix did not
generalise); 2 usage error or unreadable input. Bugs are not in this tree: they propagate with
their traceback.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "InfraError",
    "InputError",
    "RecordError",
    "TrailcheckError",
    "UsageError",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2


class TrailcheckError(Exception):
    """Base class of the errors trailcheck reports as one clear line."""

    exit_code: int = EXIT_USAGE


class UsageError(TrailcheckError):
    """The caller asked for something that cannot be done as asked."""


class InputError(TrailcheckError):
    """An input (file, record, payload) could not be read or is not valid."""


class RecordError(InputError):
    """One record of an input is bad. The message names the source, line, span and field; a
    ``hint`` (shown after it in parentheses) says what the bad value looks like instead."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        span_id: str | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.span_id = span_id
        self.field = field
        self.hint = hint
        shown_hint = "" if hint is None else f" ({hint})"
        super().__init__(self.location_prefix() + message + shown_hint)

    def location_prefix(self) -> str:
        """``file.jsonl:12: span 'ab12': field 'x': `` with the parts that are known."""
        parts: list[str] = []
        if self.source is not None:
            parts.append(self.source if self.line is None else f"{self.source}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.span_id is not None:
            parts.append(f"span {self.span_id!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return "".join(f"{part}: " for part in parts)


class InfraError(TrailcheckError):
    """A service the run depends on (a model endpoint, the network) failed after its retries.

    A trial that ends with it is ``infra_error``, counted apart from the agent's own failures."""
