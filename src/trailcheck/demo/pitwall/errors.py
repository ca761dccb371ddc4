"""The Pit Wall's errors, all :class:`~trailcheck.environment.ToolError`: a model can act on them.

::

    ToolError
     └── PitWallError
          ├── InvalidRequestError      the arguments do not name one race (two rounds there)
          ├── RaceNotFoundError        the archive has no such race, or no such driver in it
          └── ArchiveUnavailableError  the archive did not answer, refused, or answered nonsense

An agent loop returns them to the model as ``{"error": "RaceNotFoundError: ..."}``; the message says
what was asked, so the model can correct itself or tell the user.
"""

from __future__ import annotations

from trailcheck.environment import ToolError

__all__ = ["ArchiveUnavailableError", "InvalidRequestError", "PitWallError", "RaceNotFoundError"]


class PitWallError(ToolError):
    """Anything the Pit Wall's tools report back to the model."""


class InvalidRequestError(PitWallError):
    """The arguments are valid one by one but do not make a question together."""


class RaceNotFoundError(PitWallError):
    """The archive has no such race (or no such driver in that race)."""


class ArchiveUnavailableError(PitWallError):
    """The archive timed out, refused the request, or answered something unreadable."""
