"""The direction of a request: whether it asks to read something or to change something.

A tool's direction is declared in the catalog or taxonomy. A request's direction is declared
too when the caller knows it (a form, a button, an upstream planner): pass it. Otherwise
:func:`request_direction` reads it from declared cue words, never from which tools look
similar: a normalised word that starts with a write cue (``bloque``, ``cancel``, ``parcel``…)
makes the request ``write``; else one that starts with a read cue (``qual``, ``quant``,
``saber``…) makes it ``read``; else, or when both kinds are present, it is ``unknown``. An
``unknown`` request is never filtered, and the direction guard then asks before any write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trailcheck.route.catalog import Direction
from trailcheck.route.normalize import Normalizer

__all__ = ["ALLOWED", "DirectionCues", "RequestDirection", "request_direction"]

RequestDirection = Literal["read", "write", "unknown"]

ALLOWED: dict[RequestDirection, frozenset[Direction]] = {
    "read": frozenset({"read", "none"}),
    "write": frozenset({"write", "none"}),
    "unknown": frozenset({"read", "write", "none"}),
}
"""The capability directions a request of each direction may resolve to."""

_WRITE = [
    "bloque",
    "desbloque",
    "cancel",
    "parcelar",
    "parcelo",
    "divid",
    "mud",
    "atualiz",
    "troc",
    "troqu",
    "alter",
    "abrir",
    "abra",
    "solicit",
    "pagar",
    "pague",
    "transfer",
    "cadastrar",
    "cadastre",
    "exclu",
    "remov",
    "ativar",
    "ative",
    "desativ",
    "contrat",
    "aplicar",
    "resgat",
    "quit",
    "agend",
    "estorn",
    "contest",
    "reembols",
    "devolv",
    "devoluc",
    "volta",
    "segunda_via",
    "emit",
    "registr",
    "reclam",
    "redefin",
    "recuper",
    "cancel",
    "change",
    "update",
    "block",
    "unblock",
    "open",
    "request",
    "refund",
    "return",
    "pay",
    "transfer",
    "reset",
    "redeem",
    "pause",
    "resume",
    "place",
    "apply",
    "remove",
    "delete",
    "replace",
    "subscribe",
]
_READ = [
    "qual",
    "quais",
    "quant",
    "saber",
    "consult",
    "ver",
    "mostr",
    "extrat",
    "status",
    "verific",
    "lista",
    "tenho",
    "what",
    "much",
    "many",
    "which",
    "show",
    "check",
    "see",
    "track",
    "view",
    "list",
    "where",
    "when",
]


@dataclass(frozen=True)
class DirectionCues:
    """Cue prefixes (normalised, accent-free) that declare a request's direction."""

    write: tuple[str, ...] = tuple(_WRITE)
    read: tuple[str, ...] = tuple(_READ)


def request_direction(
    text: str, normalizer: Normalizer, cues: DirectionCues | None = None
) -> tuple[RequestDirection, str]:
    """The request's direction and the reason: which cue words decided it."""
    cues = cues or DirectionCues()
    words = normalizer.text(text).split()
    writes = sorted({w for w in words if w.startswith(cues.write)})
    reads = sorted({w for w in words if w.startswith(cues.read)})
    if writes and reads:
        return "unknown", f"both write cues {writes} and read cues {reads}"
    if writes:
        return "write", f"write cues {writes}"
    if reads:
        return "read", f"read cues {reads}"
    return "unknown", "no direction cue"
