"""The extraction settings of the plugin config (``extraction``) and their environment
overrides: which session keys are skipped, how long a chunk of transcript may be."""

from __future__ import annotations

import os

from .. import paths

DEFAULT_CHUNK_CHARS = 400_000  # ~100k tokens of transcript per call: well inside 200k context


def _skip_prefixes() -> tuple[str, ...]:
    from ..transcripts.scope import skip_prefixes

    return skip_prefixes()


def _chunk_chars() -> int:
    raw = os.environ.get("ZETTELCLAW_CHUNK_CHARS")
    if raw:
        return max(200, int(raw))
    config = paths.plugin_config().get("extraction")
    value = config.get("maxChunkChars") if isinstance(config, dict) else None
    return int(value) if isinstance(value, int) and value >= 200 else DEFAULT_CHUNK_CHARS
