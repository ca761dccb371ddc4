"""The demo agents on the frameworks people run (LangGraph, the OpenAI Agents SDK, Pydantic AI,
Google ADK), driven by the demo's scripted brains and traced by the frameworks' own
OpenTelemetry instrumentation.

Each framework is an optional extra (``trailcheck[langgraph]``, ``trailcheck[openai-agents]``,
``trailcheck[pydantic-ai]``, ``trailcheck[adk]``): nothing here is imported by ``import
trailcheck`` or the CLI, and a module that needs a framework which is not installed raises a
:class:`~trailcheck.errors.UsageError` naming the extra.
"""
