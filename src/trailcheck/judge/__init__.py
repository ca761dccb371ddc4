"""LLM judges with structured, validated verdicts, and their calibration against human labels."""
