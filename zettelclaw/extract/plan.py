"""Which conversations of a session to extract now: beyond its cursor, after the install
(or only before it, for the import), settled; and the log as it stood at a conversation's
time."""

from __future__ import annotations

from ..clock import now, parse_ts


def _as_of(entries: list[dict], stamp: str) -> list[dict]:
    """The log as it stood at ``stamp``: entries dated then or before (undated ones too)."""
    moment = parse_ts(stamp)
    out = []
    for entry in entries:
        when = parse_ts(entry.get("timestamp"))
        if moment is None or when is None or when <= moment:
            out.append(entry)
    return out


def _cut_off(segment, started) -> bool:
    """An open conversation whose last message came before the gateway (re)started."""
    if started is None or not segment.messages:
        return False
    last = parse_ts(segment.messages[-1].timestamp)
    return last is not None and last < started


def _quiet_for(segment, ref) -> float:
    last = parse_ts(segment.messages[-1].timestamp) if segment.messages else None
    if last is None and ref is not None:
        last = ref.updated_at
    if last is None:
        return float("inf")
    return (now() - last).total_seconds()

