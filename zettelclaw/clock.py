"""Time as the log writes it: UTC ISO 8601 with a ``Z``, second precision."""

from __future__ import annotations

# datetime is imported where used: the per-prompt handoff needs only is_plain
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime


def now() -> datetime:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def format_ts(moment: datetime) -> str:
    from datetime import timezone

    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_ts(value) -> datetime | None:
    """A timezone-aware datetime from an ISO string (naive means UTC), or None."""
    if not isinstance(value, str):
        return None
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


_PLAIN = None


def is_plain(value) -> bool:
    """Whether ``value`` is the log's own form ``YYYY-MM-DDTHH:MM:SSZ`` naming a real moment,
    checked without parsing (a day past the 28th is left to :func:`parse_ts`): a hand-written
    ``9999-99-99T99:99:99Z`` is not, and must not sort as the newest entry forever."""
    global _PLAIN
    if type(value) is not str or len(value) != 20:
        return False
    if _PLAIN is None:  # compiled on first use: `re` costs the per-prompt handoff ~10 ms
        import re

        _PLAIN = re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
                            r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z").fullmatch
    return _PLAIN(value) is not None


def sort_key(value) -> str:
    """A timestamp as a string that sorts in time order (``YYYY-MM-DDTHH:MM:SSZ``); "" (before
    everything) when unreadable. The log's own form is returned as is, without parsing."""
    if is_plain(value):
        return value
    moment = parse_ts(value)
    return format_ts(moment) if moment is not None else ""
