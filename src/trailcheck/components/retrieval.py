"""A retrieval span's documents and query, and its recall@k and precision@k against the chunks
a case marks relevant.

The importers keep a retriever span's attributes as the source wrote them; the documents are
read from them here, the first of these that holds any:

- GenAI's ``gen_ai.retrieval.documents``: a list of ``{"id", "score"}`` objects, or its JSON
  text;
- OpenInference's ``retrieval.documents.{i}.document.id``, flattened as OTLP carries it, or
  ``retrieval.documents`` as a list of ``{"document.id"}`` (or ``{"document": {"id"}}``)
  objects.

An id that is a number is compared as its text. The query is ``gen_ai.retrieval.query.text``,
else OpenInference's ``input.value`` when it is text.

With k the number of documents the span returned and R the case's relevant chunks for this
retrieval (:class:`~trailcheck.cases.RelevantChunks`): recall@k = |R ∩ returned| / |R|, and
precision@k = |R ∩ returned| / k (undefined when nothing was returned). A document returned twice
counts once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from trailcheck.cases import Case, RelevantChunks
from trailcheck.trace import Span
from trailcheck.trace.semconv import INPUT_VALUE

__all__ = [
    "GEN_AI_RETRIEVAL_DOCUMENTS",
    "GEN_AI_RETRIEVAL_QUERY",
    "RetrievalScore",
    "relevant_chunks_for",
    "retrieval_query",
    "retrieval_score",
    "retrieved_ids",
]

GEN_AI_RETRIEVAL_DOCUMENTS: Final = "gen_ai.retrieval.documents"
GEN_AI_RETRIEVAL_QUERY: Final = "gen_ai.retrieval.query.text"
_OPENINFERENCE_DOCUMENTS: Final = "retrieval.documents"


def _id_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _listed_id(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    nested = item.get("document")
    if isinstance(nested, Mapping):
        return _id_text(nested.get("id"))
    return _id_text(item.get("id", item.get("document.id")))


def _listed(value: Any) -> list[str] | None:
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(value, list):
        return None
    return [found for found in map(_listed_id, value) if found is not None]


def retrieved_ids(span: Span) -> list[str] | None:
    """The ids of the documents the span returned, in order; ``None`` when it records none in
    a shape read here (see the module)."""
    attributes = span.attributes
    for key in (GEN_AI_RETRIEVAL_DOCUMENTS, _OPENINFERENCE_DOCUMENTS):
        if key in attributes:
            listed = _listed(attributes[key])
            if listed is not None:
                return listed
    flattened: list[str] = []
    while f"{_OPENINFERENCE_DOCUMENTS}.{len(flattened)}.document.id" in attributes:
        found = _id_text(attributes[f"{_OPENINFERENCE_DOCUMENTS}.{len(flattened)}.document.id"])
        flattened.append(found or "")
    if flattened:
        return [found for found in flattened if found]
    return None


def retrieval_query(span: Span) -> str | None:
    """The span's query text, or ``None``."""
    for key in (GEN_AI_RETRIEVAL_QUERY, INPUT_VALUE):
        found = span.attributes.get(key)
        if isinstance(found, str):
            return found
    return None


def relevant_chunks_for(case: Case, step: int, query: str | None) -> RelevantChunks | None:
    """The case's entry for the ``step``-th retrieval (from 1) asked ``query``: the entry for
    that query, else for that step, else the entry naming neither; ``None`` when none applies."""
    entries = case.relevant_chunks
    if query is not None:
        wanted = query.strip()
        for entry in entries:
            if entry.query is not None and entry.query.strip() == wanted:
                return entry
    for entry in entries:
        if entry.step == step:
            return entry
    return next((e for e in entries if e.query is None and e.step is None), None)


@dataclass(frozen=True, slots=True)
class RetrievalScore:
    """recall@k and precision@k of one retrieval, and the counts they are made of."""

    k: int
    relevant: int
    found: int

    @property
    def recall(self) -> float:
        return self.found / self.relevant

    @property
    def precision(self) -> float | None:
        return None if self.k == 0 else self.found / self.k

    @property
    def reason(self) -> str:
        precision = "undefined (nothing returned)"
        if self.precision is not None:
            precision = f"{self.found}/{self.k}={self.precision:.3f}"
        return (
            f"recall@{self.k} {self.found}/{self.relevant}={self.recall:.3f},"
            f" precision@{self.k} {precision}"
        )


def retrieval_score(returned: Sequence[str], relevant: RelevantChunks) -> RetrievalScore:
    """recall@k and precision@k of ``returned`` against ``relevant`` (see the module)."""
    wanted = set(relevant.chunks)
    return RetrievalScore(
        k=len(returned), relevant=len(wanted), found=len(wanted.intersection(returned))
    )
