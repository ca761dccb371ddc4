"""trailcheck.route stands alone: of trailcheck it imports only itself and trailcheck.errors."""

from __future__ import annotations

import re
from pathlib import Path

import trailcheck.route


def test_route_imports_nothing_from_trailcheck_but_errors() -> None:
    folder = Path(trailcheck.route.__file__).parent
    for module in folder.rglob("*.py"):
        for name in re.findall(
            r"^\s*(?:from|import) (trailcheck\.\w+)", module.read_text(), flags=re.M
        ):
            assert name in {"trailcheck.route", "trailcheck.errors"}, (module.name, name)
