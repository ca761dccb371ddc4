"""``trailcheck schema``: the published JSON Schemas, printed."""

from trailcheck.commands.declare import Command, new_app

__all__ = ["schema_app"]

schema_app = new_app("Print the published JSON Schemas.", no_args_is_help=True)


@schema_app.command("trace", cls=Command)
def schema_trace() -> None:
    """The JSON Schema of one line of trailcheck JSONL."""
    from trailcheck.commands.output import print_json
    from trailcheck.trace.jsonl import trace_json_schema

    print_json(trace_json_schema())


@schema_app.command("dataset", cls=Command)
def schema_dataset() -> None:
    """The JSON Schema of a dataset file (YAML or JSON)."""
    from trailcheck.cases import dataset_json_schema
    from trailcheck.commands.output import print_json

    print_json(dataset_json_schema())


@schema_app.command("report", cls=Command)
def schema_report() -> None:
    """The JSON Schema of a run report (`trailcheck run`'s `NAME.json`)."""
    from trailcheck.commands.output import print_json
    from trailcheck.run.results import report_json_schema

    print_json(report_json_schema())


@schema_app.command("online", cls=Command)
def schema_online() -> None:
    """The JSON Schema of an online evaluators file (`trailcheck online run --config`)."""
    from trailcheck.commands.output import print_json
    from trailcheck.online import online_json_schema

    print_json(online_json_schema())
