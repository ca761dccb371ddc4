"""Deterministic, nested sampling of traces, consistent with OpenTelemetry probability sampling.

An id is sampled at probability ``p`` iff its randomness ``R`` is at least the rejection
threshold ``T`` of ``p``:

- ``R``, a 56-bit integer: for a W3C trace id (32 hexadecimal digits, either case), its last 7
  bytes (14 digits) read as a big-endian integer, the "least-significant 56 bits of the TraceID"
  that OpenTelemetry samples on; for any other id (a session id, a trace id of another form),
  the first 7 bytes of the SHA-256 of its UTF-8 text, big-endian.
- ``T = 2^56 - K`` with ``K = p * 2^56`` rounded to the nearest integer, halves up: the rejection
  threshold ``(1 - p) * 2^56``, rounded to a whole number. ``K`` is computed exactly from the
  binary value of ``p`` (a float times a power of two is exact), which is what OpenTelemetry's
  collector does (``pkg/sampling``: ``MaxAdjustedCount - uint64(math.Round(prob *
  MaxAdjustedCount))``), so the two choose the same traces. ``p = 1`` gives ``T = 0`` (every id);
  ``p = 0`` gives ``T = 2^56``, which no 56-bit ``R`` reaches (no id). OpenTelemetry defines
  probabilities from 2^-56 to 1 and leaves 0 out ("never" is not probability sampling); here 0
  is allowed, as a switch that keeps an evaluator defined but idle.

The spec (OpenTelemetry, "TraceState: Probability Sampling",
``specification/trace/tracestate-probability-sampling.md``): "Rejection_Threshold = (1 -
Sampling_Probability) * 2^56", randomness "taken from the trailing 7 bytes of the TraceID", and
"If ``rv`` >= ``th``, *keep* the span, else *drop* the span."

What follows from the rule:

- **Determinism.** The decision depends on the id and ``p`` only: every machine, every rerun,
  every worker chooses the same traces.
- **Nesting.** ``T`` does not increase as ``p`` grows, so an id sampled at ``p1`` is sampled at
  every ``p2 >= p1``: the 5% a judge scores lies inside the 25% the rules score.
- **Rate.** Of uniformly random ids, the share sampled is ``K / 2^56``, within 2^-57 of ``p``.
- **Sessions.** Sampling by session applies the same rule to the session id, so the traces of
  one conversation are chosen together (:func:`sampling_key`).

Traces that reach trailcheck through an OpenTelemetry pipeline that already sampled them on the
same randomness are, by construction, those with ``R >= T0``; an online sample at ``p`` of them
is the sample at ``min(p, p0)`` of all traffic, not ``p`` of what arrived (see docs/online.md).
"""

from __future__ import annotations

import hashlib
import re
from fractions import Fraction
from functools import lru_cache
from typing import Final, Literal

from trailcheck.errors import UsageError

__all__ = [
    "RANDOMNESS_BITS",
    "SampleBy",
    "is_sampled",
    "randomness",
    "rejection_threshold",
    "sampling_key",
]

RANDOMNESS_BITS: Final = 56
_SPACE: Final = 1 << RANDOMNESS_BITS
_RANDOMNESS_BYTES: Final = RANDOMNESS_BITS // 8
_W3C_TRACE_ID: Final = re.compile(r"[0-9a-fA-F]{32}")

SampleBy = Literal["trace", "session"]


def randomness(identifier: str) -> int:
    """The 56-bit randomness ``R`` of an id: a W3C trace id's last 7 bytes, else the first 7
    bytes of the SHA-256 of its UTF-8 text (both big-endian)."""
    if _W3C_TRACE_ID.fullmatch(identifier):
        return int(identifier[-2 * _RANDOMNESS_BYTES :], 16)
    digest = hashlib.sha256(identifier.encode("utf-8")).digest()
    return int.from_bytes(digest[:_RANDOMNESS_BYTES], "big")


@lru_cache(maxsize=256)
def rejection_threshold(probability: float) -> int:
    """``T`` of ``probability``: ``2^56 - round(p * 2^56)``, halves rounded up, computed exactly
    (see the module)."""
    if not 0.0 <= probability <= 1.0:
        raise UsageError(f"a sampling probability lies in [0, 1], not {probability}")
    scaled = Fraction(probability) * _SPACE
    kept = scaled.numerator // scaled.denominator
    if scaled - kept >= Fraction(1, 2):
        kept += 1
    return _SPACE - kept


def is_sampled(identifier: str, probability: float) -> bool:
    """Whether the id is in the sample at ``probability``: ``R >= T``."""
    return randomness(identifier) >= rejection_threshold(probability)


def sampling_key(trace_id: str, session_id: str | None, sample_by: SampleBy) -> str:
    """The id a trace is sampled by: its session's, when sampling by session and the trace is
    in one; otherwise its own (a trace in no session is sampled alone)."""
    if sample_by == "session" and session_id is not None:
        return session_id
    return trace_id
