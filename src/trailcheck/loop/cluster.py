"""Clustering findings, so that one representative trace stands for its near-duplicates.

Two findings are in one cluster when they have the same label, their traces the same
tool-sequence signature (:func:`~trailcheck.loop.signature.tool_signature`: call order and
argument shape), and their user inputs are similar: TF-IDF cosine similarity (scikit-learn,
word unigrams less English stop words, digits folded to ``0`` so that order numbers do not
split a cluster) of at least ``threshold`` (:data:`SIMILARITY_THRESHOLD`), taken transitively
(single linkage: the connected components of the graph of similar pairs). The vectoriser is
fitted per (label, signature) group, on the inputs sorted by trace id.

- **representative**: the medoid, the member whose summed similarity to the others is highest
  (rounded to 9 places, ties to the smallest trace id);
- **id**: ``cl-`` and 12 hex digits of the sha256 of label, signature and the cluster's
  *founder* (the earliest member seen, ties by trace id). The founder, unlike the medoid, stays
  put while a cluster grows, so a case linked to the cluster stays linked;
- **first and last seen**: the earliest and latest member's trace start (its earliest span), in
  nanoseconds since the epoch, as the store keeps times.

A cluster whose case was approved and that has members seen after the approval did not
generalise: the regression case did not stop the failure (:func:`regressed_members`).

Everything is a function of the set of findings: input order changes no cluster.

scikit-learn, scipy and numpy come with the ``loop`` extra, and are imported only when
something is clustered: importing :mod:`trailcheck.loop` needs none of them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from trailcheck.extras import require_extra
from trailcheck.loop.signature import tool_signature
from trailcheck.trace import Finding, Trace

SIMILARITY_THRESHOLD = 0.5
"""Least TF-IDF cosine similarity of two user inputs in one cluster."""
DID_NOT_GENERALISE = "the regression case did not generalise"
# Rows of the similarity matrix computed at once: bounds memory for large groups.
_BLOCK = 1024
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class Occurrence:
    """What clustering needs of one finding and its trace (not the whole trace)."""

    trace_id: str
    label: str
    signature: str
    input_text: str
    seen_ns: int | None


def occurrence(finding: Finding, trace: Trace) -> Occurrence:
    """The finding's occurrence, read from its trace."""
    starts = [span.start_ns for span in trace.spans]
    return Occurrence(
        trace_id=finding.trace_id,
        label=finding.label,
        signature=tool_signature(trace),
        input_text=trace.input_text,
        seen_ns=min(starts) if starts else None,
    )


@dataclass(frozen=True, slots=True)
class Member:
    """A trace of a cluster and when it was seen: its start in ns since the epoch (``None``
    when it has no spans)."""

    trace_id: str
    seen_ns: int | None

    @property
    def seen_at(self) -> datetime | None:
        return None if self.seen_ns is None else datetime.fromtimestamp(self.seen_ns / 1e9, UTC)


@dataclass(frozen=True, slots=True)
class Cluster:
    """Findings of one label, one signature and similar inputs; members in trace id order."""

    cluster_id: str
    label: str
    signature: str
    representative_trace_id: str
    members: tuple[Member, ...]

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def member_trace_ids(self) -> tuple[str, ...]:
        return tuple(member.trace_id for member in self.members)

    @property
    def first_seen_ns(self) -> int | None:
        seen = [m.seen_ns for m in self.members if m.seen_ns is not None]
        return min(seen) if seen else None

    @property
    def last_seen_ns(self) -> int | None:
        seen = [m.seen_ns for m in self.members if m.seen_ns is not None]
        return max(seen) if seen else None


def regressed_members(cluster: Cluster, approved_ns: int | None) -> tuple[str, ...]:
    """Members seen after ``approved_ns`` (when the cluster's case was approved, ns since the
    epoch), in trace id order: non-empty means the regression case did not generalise."""
    if approved_ns is None:
        return ()
    return tuple(
        m.trace_id for m in cluster.members if m.seen_ns is not None and m.seen_ns > approved_ns
    )


def _vectors(texts: Sequence[str]) -> Any:
    """L2-normalised TF-IDF rows (a scipy sparse matrix), or ``None`` when no text has a word."""
    # Imported here: scikit-learn takes a second to import, which every CLI start would pay.
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectoriser = TfidfVectorizer(
        preprocessor=lambda text: _DIGITS.sub("0", text.lower()),
        token_pattern=r"(?u)\b\w+\b",
        # Without them "the", "in", "with" carry as much weight as "damaged" in a short message.
        stop_words="english",
    )
    try:
        return vectoriser.fit_transform(texts)
    except ValueError:  # an empty vocabulary: no input has a word
        return None


def _similar_groups(vectors: Any, count: int, threshold: float) -> list[list[int]]:
    """The connected components of the graph of pairs with cosine >= ``threshold``."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    blocks = []
    for start in range(0, count, _BLOCK):
        similarity = (vectors[start : start + _BLOCK] @ vectors.T).toarray()
        blocks.append(sparse.csr_matrix(similarity >= threshold))
    _, labels = connected_components(sparse.vstack(blocks), directed=False)
    groups: dict[int, list[int]] = {}
    for index, component in enumerate(labels.tolist()):
        groups.setdefault(int(component), []).append(index)
    return list(groups.values())


def _equal_groups(texts: Sequence[str]) -> list[list[int]]:
    groups: dict[str, list[int]] = {}
    for index, text in enumerate(texts):
        groups.setdefault(text, []).append(index)
    return list(groups.values())


def _components(texts: Sequence[str], threshold: float) -> list[tuple[list[int], list[float]]]:
    """The groups of similar texts, each with every member's summed similarity to the group."""
    import numpy as np

    vectors = _vectors(texts)
    if vectors is None:
        return [(group, [float(len(group))] * len(group)) for group in _equal_groups(texts)]
    found: list[tuple[list[int], list[float]]] = []
    for members in _similar_groups(vectors, len(texts), threshold):
        rows = vectors[members]
        # Rows have unit length, so a row's summed cosine is its dot with the rows' sum.
        sums = np.asarray(rows @ np.asarray(rows.sum(axis=0)).ravel()).ravel()
        found.append((members, [round(float(value), 9) for value in sums]))
    return found


def _cluster(
    label: str, signature: str, group: Sequence[Occurrence], scores: list[float]
) -> Cluster:
    medoid = min(range(len(group)), key=lambda i: (-scores[i], group[i].trace_id))
    representative = group[medoid]
    founder = min(group, key=lambda occ: (occ.seen_ns is None, occ.seen_ns or 0, occ.trace_id))
    digest = hashlib.sha256(f"{label}\0{signature}\0{founder.trace_id}".encode()).hexdigest()
    members = tuple(Member(occ.trace_id, occ.seen_ns) for occ in group)
    return Cluster(f"cl-{digest[:12]}", label, signature, representative.trace_id, members)


def cluster_occurrences(
    occurrences: Iterable[Occurrence], *, threshold: float = SIMILARITY_THRESHOLD
) -> list[Cluster]:
    """The clusters of the occurrences (one per trace and label counts), by label, then
    largest first, then id."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"the similarity threshold is in (0, 1], got {threshold}")
    require_extra("loop", "clustering findings")
    unique = {(occ.label, occ.trace_id): occ for occ in occurrences}
    groups: dict[tuple[str, str], list[Occurrence]] = {}
    for key in sorted(unique):
        occ = unique[key]
        groups.setdefault((occ.label, occ.signature), []).append(occ)
    clusters: list[Cluster] = []
    for (label, signature), group in sorted(groups.items()):
        for indices, scores in _components([occ.input_text for occ in group], threshold):
            members = [group[i] for i in indices]
            clusters.append(_cluster(label, signature, members, scores))
    return sorted(clusters, key=lambda c: (c.label, -c.size, c.cluster_id))
