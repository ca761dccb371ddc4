"""The published JSON Schema of a dataset file, generated from the models.

It ships as ``trailcheck/schemas/dataset.schema.json`` (a test keeps the file equal to this) so
editors can complete and check dataset files. Scorer names are not enumerated: third-party scorers
come from entry points, so the set depends on what is installed.
"""

from __future__ import annotations

from typing import Any

from trailcheck.cases.dataset import Dataset

# A URN, not a URL: the schema ships in the package and is never fetched.
SCHEMA_ID = "urn:trailcheck:schema:dataset:1"


def dataset_json_schema() -> dict[str, Any]:
    """The JSON Schema of a dataset file (YAML files hold the same data)."""
    schema = Dataset.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
