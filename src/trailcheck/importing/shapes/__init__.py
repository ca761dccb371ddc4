"""Framework shapes: what one framework or instrumentation records its own way, where the
conventions leave it open or it follows none. Each is a row of a table keyed by instrumentation
scope (:mod:`~trailcheck.importing.shapes.rows`: argument envelopes, result wrappers, final-answer
tools, the run's input and answer inside a framework object, messages kept elsewhere), or,
where a row cannot say it, a reader of its own beside them: Google ADK's v1 attributes and
LangGraph's state (:mod:`~trailcheck.importing.shapes.frameworks`), logfire's spans of the OpenAI
Agents SDK (:mod:`~trailcheck.importing.shapes.logfire_agents`), Haystack's ChatMessage reprs
(:mod:`~trailcheck.importing.shapes.haystack_messages`), a failed tool result in an Anthropic
request (:mod:`~trailcheck.importing.shapes.anthropic_results`).

Every row and reader names the conformance corpus recording (``tests/fixtures/real/``) it was
read from. Shapes may use the conventions' readers; they import nothing from the mapping and
assembly above them (import-linter contracts in pyproject.toml).
"""
