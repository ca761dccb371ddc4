"""docs/frameworks.md is the corpus table rendered, never a hand-kept copy of it."""

from __future__ import annotations

from tests.conformance.matrix import DOC, render


def test_docs_frameworks_is_generated_from_the_corpus() -> None:
    assert DOC.read_text() == render(), "regenerate: uv run python -m tests.conformance.matrix"
