"""Session keys: which sessions had a human in them (``hooks/openclaw-plugin/lib/scope.js``
mirrors this)."""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_SKIP_PREFIXES = ("cron:", "sub:", "hook:")


def skip_prefixes() -> tuple[str, ...]:
    """The plugin config's ``extraction.skipSessionTypes``, else the default prefixes."""
    from .. import paths

    config = paths.plugin_config().get("extraction")
    configured = config.get("skipSessionTypes") if isinstance(config, dict) else None
    if isinstance(configured, list) and all(isinstance(p, str) for p in configured):
        return tuple(configured)
    return DEFAULT_SKIP_PREFIXES


def in_scope(session_key: str | None, skip_prefixes: Iterable[str] = DEFAULT_SKIP_PREFIXES) -> bool:
    """Whether a session with this key had a human in it: main and direct-message sessions.

    Out: keys starting with a skip prefix (``cron:``, ``sub:``, ``hook:`` by default), the same
    prefixes after ``agent:<id>:`` (``agent:main:cron:...``), subagent keys
    (``agent:main:subagent:...``), group and channel sessions. A missing key (a rotated 2026.2
    file whose store entry is gone) is extracted, but never as the owner's: with the key
    state.json recorded, else as nobody's (:func:`zettelclaw.people.person_of_session`).
    """
    if session_key is None:
        return True
    key = session_key.strip().lower()
    if not key:
        return True
    prefixes = tuple(p.strip().lower() for p in skip_prefixes if p and p.strip())
    if prefixes and key.startswith(prefixes):
        return False
    parts = key.split(":")
    rest = ":".join(parts[2:]) if parts[0] == "agent" and len(parts) > 2 else key
    if prefixes and rest.startswith(prefixes):
        return False
    if rest.startswith("subagent:") or "subagent" in parts:
        return False
    if "group" in parts or "channel" in parts or "supergroup" in parts:
        return False
    return "dreaming-narrative" not in key
