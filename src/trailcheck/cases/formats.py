"""The file formats of a dataset, told apart by the file's suffix."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

DatasetFormat = Literal["yaml", "json"]
SUFFIXES: dict[str, DatasetFormat] = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def format_of(path: str | os.PathLike[str]) -> DatasetFormat | None:
    """The format a file's suffix names (case-insensitive), or ``None``."""
    return SUFFIXES.get(Path(path).suffix.lower())
