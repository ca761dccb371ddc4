"""The web UI over a store (``trailcheck ui``): traces, findings and clusters, the review queue,
and run reports, as server-rendered pages with plain forms. Needs the ``serve`` extra."""

from trailcheck.ui.app import create_ui_app
from trailcheck.ui.context import UiSettings

__all__ = ["UiSettings", "create_ui_app"]
