"""Conventions: the ways of recording an agent's messages and calls that are shared by many
libraries, each read by one module.

- OpenTelemetry GenAI messages (both JSON shapes) and OpenInference's flattened
  ``llm.input_messages`` (:mod:`~trailcheck.importing.conventions.genai_messages`); GenAI events,
  as span events or log records (:mod:`~trailcheck.importing.conventions.genai_events`); the
  indexed ``gen_ai.prompt.N`` / ``gen_ai.completion.N`` attributes of OpenLLMetry and litellm
  (:mod:`~trailcheck.importing.conventions.indexed_completions`);
- a provider's content encoding: OpenAI chat messages
  (:mod:`~trailcheck.importing.conventions.chat_messages`), Bedrock Converse blocks
  (:mod:`~trailcheck.importing.conventions.converse_blocks`);
- vendor tool-call and trace fields (:mod:`~trailcheck.importing.conventions.vendors`).

A convention reads values it is handed; which attribute of which span to hand it is decided
by :mod:`trailcheck.importing.spans`. Conventions import nothing from the framework shapes or the
mapping and assembly above them (import-linter contracts in pyproject.toml).
"""
