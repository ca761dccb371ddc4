"""Transport: the bytes of a source read as the records trailcheck maps, before any convention.

OTLP/JSON and OTLP/protobuf trace and log exports (files, HTTP bodies, gRPC messages) become
:class:`~trailcheck.importing.records.RawSpan` and
:class:`~trailcheck.importing.records.LogEvent` items, their ids and values decoded, what OTLP
records beside a span's attributes kept under reserved ``otel.*`` names
(:mod:`~trailcheck.importing.transport.otel_attributes`); JSON files are cut into records
(:mod:`~trailcheck.importing.transport.json_records`), and a part that cannot be read is a
Rejection naming the traces whose spans it lost
(:mod:`~trailcheck.importing.transport.lost_spans`).

Nothing here knows what a span means: no kind, no message, no tool call. Transport imports
nothing from the conventions, the shapes or the mapping and assembly above it (import-linter
contracts in pyproject.toml).
"""
