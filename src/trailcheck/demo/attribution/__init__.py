"""The five-span refund run of ``docs/attribution.md``, as a trace file and a dataset of one
case, shipped as package data so that ``trailcheck score`` can read them::

    trailcheck score "$(python -m trailcheck.demo.attribution trace)" \\
        --dataset "$(python -m trailcheck.demo.attribution dataset)" --json

attributes the failure to ``search_orders`` (step 2, ``tool_returned_wrong_data``), with the
``issue_refund`` call (step 4) as its symptom.
"""

from trailcheck.demo.attribution.files import DATASET_FILE, TRACE_FILE, shipped_path
from trailcheck.demo.attribution.refund_run import CASE_ID, refund_run

__all__ = ["CASE_ID", "DATASET_FILE", "TRACE_FILE", "refund_run", "shipped_path"]
