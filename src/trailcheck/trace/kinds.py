"""The closed vocabularies of the trace model: a message's role, a span's kind, a status code.
The bottom of ``trace/``: it imports nothing of the package, so every module may use them."""

from __future__ import annotations

from typing import Literal

Role = Literal["system", "developer", "user", "assistant", "tool"]
SpanKind = Literal["agent", "llm", "tool", "retriever", "guard", "other"]
StatusCode = Literal["unset", "ok", "error"]
