"""The published JSON Schema of an online file, generated from the models.

It ships as ``trailcheck/schemas/online.schema.json`` (a test keeps the file equal to this), so
editors can complete and check online files. Rule, scorer and judge names are checked when the
file is loaded, not by the schema: rules can come from a custom rule file and scorers from entry
points, so the sets depend on the run.
"""

from __future__ import annotations

from typing import Any

from trailcheck.online.config import OnlineConfig

# A URN, not a URL: the schema ships in the package and is never fetched.
SCHEMA_ID = "urn:trailcheck:schema:online:1"


def online_json_schema() -> dict[str, Any]:
    """The JSON Schema of an online file (YAML holding this data)."""
    schema = OnlineConfig.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
