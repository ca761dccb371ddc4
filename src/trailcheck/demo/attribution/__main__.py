"""``python -m trailcheck.demo.attribution trace|dataset``: the path of a shipped file, for
``trailcheck score`` (see the package)."""

from __future__ import annotations

import sys

from trailcheck.demo.attribution.files import shipped_path

if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) == 2 else ""
    if which not in ("trace", "dataset"):
        sys.exit("usage: python -m trailcheck.demo.attribution trace|dataset")
    print(shipped_path("trace" if which == "trace" else "dataset"))
