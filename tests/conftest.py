"""Shared fixtures: where the real third-party material lives, and the bundled test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
EXTERNAL_DIR = REPO_ROOT.parent / "shared" / "external"
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def external() -> Path:
    """``../shared/external``: real material written by others. Skips, saying so, when absent."""
    if not EXTERNAL_DIR.is_dir():
        pytest.skip(f"external material not present at {EXTERNAL_DIR}")
    return EXTERNAL_DIR


@pytest.fixture
def fixtures() -> Path:
    """``tests/fixtures``: inputs written for these tests, malformed ones included."""
    return FIXTURES_DIR
