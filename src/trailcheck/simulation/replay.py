"""Common random numbers for comparisons: the baseline's simulated turns, replayed.

A paired comparison of two agents on simulated conversations compares the agents *and* the
simulator's luck, unless both meet the same user. With ``--replay-user FROM_REPORT`` the
candidate's trial (case, attempt) is answered with the baseline's turn whenever the transcript
so far is the same as the baseline's was: the cache is keyed on the case, the attempt, the
user's brief and every turn before (:func:`transcript_key`). Once the agents say something
different the keys differ, and the simulator generates fresh turns from there; the report says
where each pair diverged. A case whose brief changed since the baseline meets a user of its own:
the baseline's turns were said from another brief.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import orjson

from trailcheck.cases import SimulatedUser
from trailcheck.simulation.turns import Turn, UserTurn

__all__ = ["TurnCache", "transcript_key"]


def transcript_key(
    case_id: str, attempt: int, user: SimulatedUser, transcript: Sequence[Turn]
) -> str:
    """The key of the user turn that follows ``transcript`` in trial (``case_id``, ``attempt``),
    said by ``user``."""
    said = [[turn.role, turn.text] for turn in transcript]
    payload = orjson.dumps([case_id, attempt, user.model_dump(mode="json"), said])
    return hashlib.sha256(payload).hexdigest()


class TurnCache:
    """The baseline's user turns by :func:`transcript_key`; a hit is marked ``replayed``."""

    def __init__(self, turns: Iterable[UserTurn] = ()) -> None:
        self._turns = {turn.key: turn for turn in turns if turn.key}

    def __len__(self) -> int:
        return len(self._turns)

    def get(self, key: str) -> UserTurn | None:
        """The baseline's turn after the same transcript, or ``None``."""
        turn = self._turns.get(key)
        return None if turn is None else turn.model_copy(update={"replayed": True})
