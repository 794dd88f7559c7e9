"""Cursors: how far a session has been extracted (or imported), what lies beyond, and when a
conversation happened (the time its entries carry; before the install, it is history)."""

from __future__ import annotations

import hashlib

from ..clock import format_ts, now, parse_ts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime


def _digest(message) -> str:
    return hashlib.sha256(f"{message.role}\0{message.text}".encode()).hexdigest()[:16]


CONTEXT_MESSAGES = 4  # messages before the cursor's last one whose digests it also keeps


def make_cursor(segment) -> dict:
    """A closed segment ends at its last event (the reset); an open one at its last message.

    Besides the event id, the cursor keeps the digest of the last message (``tail``), of the
    few before it (``context``) and its time: inline messages carry no event ids, and a short
    text ("Got it.") recurs; the context and the time tell its repetitions apart."""
    last = segment.messages[-1] if segment.messages else None
    event = segment.last_event_id if segment.closed else None
    if event is None and last is not None:
        event = last.event_id
    cursor = {"event": event}
    if last is not None:
        cursor["tail"] = _digest(last)
        before = segment.messages[-1 - CONTEXT_MESSAGES:-1]
        if before:
            cursor["context"] = [_digest(m) for m in before]
        if last.timestamp:
            cursor["time"] = last.timestamp
    return cursor


def _tail_cut(segments: list, cursor: dict) -> tuple[int, int] | None:
    """Where a cursor's last message is, by text: of the messages with its digest, the one
    whose preceding messages match most of the cursor's context, then the one closest to its
    time, then the earliest (taking a conversation twice beats skipping one)."""
    tail = cursor.get("tail")
    if not tail:
        return None
    context = cursor.get("context") if isinstance(cursor.get("context"), list) else []
    moment = parse_ts(cursor.get("time"))
    flat = [(i, j, m) for i, seg in enumerate(segments) for j, m in enumerate(seg.messages)]
    digests = [_digest(m) for _, _, m in flat]
    best, best_score = None, None
    for k, digest in enumerate(digests):
        if digest != tail:
            continue
        matched = 0
        for back, wanted in enumerate(reversed(context), 1):
            if k - back < 0 or digests[k - back] != wanted:
                break
            matched += 1
        when = parse_ts(flat[k][2].timestamp)
        distance = (abs((when - moment).total_seconds()) if when is not None
                    and moment is not None else float("inf"))
        score = (-matched, distance)
        if best_score is None or score < best_score:
            best, best_score = (flat[k][0], flat[k][1]), score
    return best


def _after(stamp, moment) -> bool:
    """Whether a message time is after a cursor time; a whole-second cursor (a log
    timestamp) compares at whole seconds, so its own last message is not "after" it."""
    when = parse_ts(stamp)
    if when is None:
        return False
    if moment.microsecond == 0:
        when = when.replace(microsecond=0)
    return when > moment


def _event_cut(segments: list, event: str) -> tuple[int, int] | None:
    """Where the cursor's event is: its first occurrence (segment index, index of the last
    message already extracted). A later event repeating the id does not move it on: the
    conversation between the two was never extracted."""
    for i, seg in enumerate(segments):
        for j, message in enumerate(seg.messages):
            if message.event_id == event:
                return i, j
        if seg.last_event_id == event:
            return i, len(seg.messages) - 1
    return None


def after_cursor(segments: list, cursor: dict | None) -> list:
    """The segments (trimmed) that come after ``cursor``; all of them when there is none."""
    from ..transcripts import Segment

    if not cursor:
        return list(segments)
    event, moment = cursor.get("event"), parse_ts(cursor.get("time"))
    cut = _event_cut(segments, event) if event else None
    if cut is None:
        cut = _tail_cut(segments, cursor)
    if cut is None and moment is not None:
        out = []
        for seg in segments:
            fresh = [m for m in seg.messages if _after(m.timestamp, moment)]
            if fresh:
                out.append(Segment(seg.session_id, seg.index, fresh, seg.first_event_id,
                                   seg.last_event_id, seg.closed))
        return out
    if cut is None:
        return list(segments)
    i, j = cut
    out = []
    rest = segments[i].messages[j + 1:]
    if rest:
        seg = segments[i]
        out.append(Segment(seg.session_id, seg.index, rest, rest[0].event_id,
                           seg.last_event_id, seg.closed))
    out.extend(segments[i + 1:])
    return out


def segment_time(segment, ref=None) -> str:
    """When a conversation happened, as its entries are dated: the time of its last message
    that carries one; else the session's last update; else now. Never later than now."""
    moment = None
    for message in reversed(segment.messages):
        moment = parse_ts(message.timestamp)
        if moment is not None:
            break
    if moment is None and ref is not None:
        moment = getattr(ref, "updated_at", None)
    current = now()
    if moment is None or moment > current:
        moment = current
    return format_ts(moment)


def conversation_end(segment, ref=None) -> datetime:
    return parse_ts(segment_time(segment, ref))


def is_history(segment, installed: datetime | None, ref=None) -> bool:
    """Whether a conversation ended before the install (never, without an install moment)."""
    return installed is not None and conversation_end(segment, ref) < installed


def imported_cursor(state, session_id: str) -> dict | None:
    record = state.section("imported").get(session_id) if state is not None else None
    return record.get("cursor") if isinstance(record, dict) else None
