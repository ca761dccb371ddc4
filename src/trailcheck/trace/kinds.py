"""The closed vocabularies and primitive types of the trace model: a message's role, a span's
kind, a status code, and the constrained numbers the records hold. The bottom of ``trace/``: it
imports nothing of the package, so every module may use them."""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

Role = Literal["system", "developer", "user", "assistant", "tool"]
SpanKind = Literal["agent", "llm", "tool", "retriever", "guard", "other"]
StatusCode = Literal["unset", "ok", "error"]

# A trace's typed integers are bounded to what the store holds: signed 64-bit
# (:mod:`trailcheck.trace.limits`), so a decoded trace is one the store accepts.
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Count = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
TimeNs = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
Int64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Amount = Annotated[float, msgspec.Meta(ge=0)]
