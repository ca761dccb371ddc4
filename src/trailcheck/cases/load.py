"""Loading a dataset file (YAML or JSON): read, validate, and report every problem at once."""

from __future__ import annotations

import os
from pathlib import Path

from trailcheck.cases.dataset import Dataset
from trailcheck.cases.formats import SUFFIXES, DatasetFormat, format_of
from trailcheck.cases.json_source import read_json
from trailcheck.cases.problems import DatasetError, Problem
from trailcheck.cases.validate import validate_document
from trailcheck.cases.yaml_source import read_yaml


def parse_dataset(
    text: str | bytes, *, format: DatasetFormat, source: str = "<dataset>"
) -> Dataset:
    """The dataset written in ``text``. ``source`` names it in problems (a file name).

    Raises DatasetError with every problem found: syntax, unknown fields, wrong types, duplicate
    keys and case ids, unknown scorer, comparator and policy names, an approved case without a
    reviewer, a tool the dataset does not declare.
    """
    if isinstance(text, bytes):
        try:
            # utf-8-sig: a byte order mark, as some editors on Windows write, is not content.
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            message = f"not UTF-8 text: {error.reason} at byte {error.start}"
            raise DatasetError([Problem(source, None, None, None, message)]) from None
    document = read_yaml(text, source) if format == "yaml" else read_json(text, source)
    return validate_document(document)


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """The dataset in the file at ``path``: YAML (``.yaml``, ``.yml``) or JSON (``.json``).

    Raises DatasetError when the file cannot be read or is not a valid dataset; its ``problems``
    say where (file, line, case id, field) and what.
    """
    source = os.fspath(path)
    dataset_format = format_of(path)
    if dataset_format is None:
        message = f"unknown dataset file type; name it {', '.join(SUFFIXES)}"
        raise DatasetError([Problem(source, None, None, None, message)])
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        message = f"cannot read the file: {error.strerror or error}"
        raise DatasetError([Problem(source, None, None, None, message)]) from None
    return parse_dataset(raw, format=dataset_format, source=source)
