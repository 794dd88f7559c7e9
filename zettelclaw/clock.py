"""Time as the log writes it: UTC ISO 8601 with a ``Z``, second precision."""

from __future__ import annotations

from datetime import datetime, timezone


def now() -> datetime:
    return datetime.now(timezone.utc)


def format_ts(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(value) -> datetime | None:
    """A timezone-aware datetime from an ISO string (naive means UTC), or None."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def sort_key(value) -> str:
    """A timestamp as a string that sorts in time order (``YYYY-MM-DDTHH:MM:SSZ``); "" (before
    everything) when unreadable. The log's own form is returned as is, without parsing."""
    if type(value) is str and len(value) == 20 and value[10] == "T" and value[19] == "Z":
        return value
    moment = parse_ts(value)
    return format_ts(moment) if moment is not None else ""
