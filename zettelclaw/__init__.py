"""zettelclaw: the memory system of an OpenClaw agent.

An append-only event log (``log.jsonl``) of typed entries, a subjects registry, a nightly
briefing in MEMORY.md and search, all driven by one CLI.
"""

__version__ = "0.1.0"
