"""What ``trailcheck demo conversation`` does (its options:
:mod:`trailcheck.commands.demo_conversation`): v1 and v2 in conversation with the same simulated
customers, written as reports one can open."""

from __future__ import annotations

from trailcheck.commands.demo_conversation import ConversationDemoRequest
from trailcheck.commands.output import stderr, stdout
from trailcheck.demo.conversation.showcase import run_conversation_demo
from trailcheck.report.conversation_view import render_conversations, render_user_replay
from trailcheck.report.files import write_run
from trailcheck.report.html import render_html
from trailcheck.report.progress import ProgressObserver
from trailcheck.report.run_view import render_comparison, render_overview

__all__ = ["conversation_demo_command"]


def conversation_demo_command(request: ConversationDemoRequest) -> None:
    """The body of :func:`trailcheck.commands.demo_conversation.conversation_demo_command`."""
    out, k = request.out, request.k
    results = run_conversation_demo(k=k, observer=lambda name: ProgressObserver(stderr, label=name))
    written = []
    for demo, result in results:
        paths = write_run(result.report, result.trace_lines, out, demo.name, html=render_html)
        written.append(paths[-1])
    rows = [(demo.name, result.report) for demo, result in results]
    stdout.print(render_overview(rows, title=f"support-conversations dataset, k = {k}", k=k))
    for name, report in rows:
        conversations = render_conversations(report)
        if conversations is not None:
            stdout.print(f"{name}: who said what", markup=False)
            stdout.print(conversations)
    for name, report in rows[1:]:
        if report.comparison is not None:
            stdout.print(f"{name} against {rows[0][0]}:", markup=False, soft_wrap=True)
            stdout.print(render_comparison(report.comparison))
        if report.user_replay is not None:
            stdout.print(render_user_replay(report.user_replay))
    stderr.print("wrote " + ", ".join(str(path) for path in written), markup=False)
    stdout.print(f"open {written[0]} to see why v1 fails", markup=False, soft_wrap=True)
