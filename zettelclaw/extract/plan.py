"""Which conversations of a session to extract now: beyond its cursor, after the install
(or only before it, for the import), settled; and the log as it stood at a conversation's
time."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import paths
from ..clock import now, parse_ts
from .cursor import after_cursor, is_history, segment_time


def _as_of(entries: list[dict], stamp: str, resolution=None) -> list[dict]:
    """The log as it stood at ``stamp``: entries dated then or before (undated ones too);
    one dated after now (written while the clock ran ahead) as ``clock.Dating`` dates it, so
    a task written then is shown for a later conversation, which can close it.

    A forget or purge counts whenever it was made: the model never sees what it hides, nor
    any older version of a chain it ended (the newer correction it names may be dated after
    ``stamp``). ``resolution``: the log's as it stands now (default: built from ``entries``)."""
    from ..clock import Dating, sort_key
    from ..log import record_kind
    from ..resolve import Resolution

    moment = sort_key(stamp) if parse_ts(stamp) is not None else None
    now_ = resolution if resolution is not None else Resolution.build(entries)
    dating = Dating()  # one dated after now: a clock error, dated just after the lines before
    out = []
    for entry in entries:
        when = dating(sort_key(entry.get("timestamp")) or None)
        if not record_kind(entry) and now_.gone(entry["id"]) is not None:
            continue  # a chain forgotten or purged since
        if moment is None or when is None or when <= moment or record_kind(entry):
            out.append(entry)
    return out


def _cut_off(segment, started) -> bool:
    """An open conversation whose last message came before the gateway (re)started."""
    if started is None or not segment.messages:
        return False
    last = parse_ts(segment.messages[-1].timestamp)
    return last is not None and last < started


# a last message dated more than this after now was written while the clock ran ahead
# (a minute: the gateway's and zettelclaw's readings of one clock)
AHEAD_SECONDS = 60


def held(segment, ref, settle_seconds: float, started=None) -> str | None:
    """Why an open conversation is left to settle (None: it is due). Due when closed, quiet
    for ``settle_seconds``, or quiet since ``started`` (a gateway start, a run that met no
    model key); and when dated after now: written while the clock ran ahead, nothing said
    now can be adding to it (a message written now is dated now), so there is no quiet to
    wait for. The sweep, its dry run and a hook's extraction decide alike."""
    if segment.closed or _cut_off(segment, started):
        return None
    last = parse_ts(segment.messages[-1].timestamp) if segment.messages else None
    if last is None and ref is not None:
        last = ref.updated_at
    if last is None:
        return None
    quiet = (now() - last).total_seconds()
    if quiet >= settle_seconds or quiet < -AHEAD_SECONDS:
        return None
    from datetime import timedelta

    from ..clock import format_ts

    return (f"an open conversation, its last message at {format_ts(last)}, is left to settle "
            f"until {format_ts(last + timedelta(seconds=settle_seconds))} (or its session's "
            "end)")


@dataclass
class Plan:
    """What one run extracts of a session, and what it read to decide."""

    todo: list  # the conversations to extract now, in order
    segments: list  # every conversation the session holds
    log_entries: list[dict]  # this agent's entries, as the log stands
    cursor: dict | None
    derived: bool  # no record in state.json: the cursor comes from the log's own entries
    fresh: bool  # something lay beyond the cursor (before open conversations were held)
    held: int  # open conversations left to settle
    history: int  # conversations from before the install left for `zettelclaw import`
    why_held: list[str] = field(default_factory=list)  # why each was left (:func:`held`)
    # slugs only other agents' entries name: the model is not shown them (docs/agents.md)
    foreign_subjects: frozenset = frozenset()


def plan(session_id: str, *, agent: str, cursor: dict | None, installed, ref, messages,
         history: bool, since, settle_seconds: float | None, open_before) -> Plan:
    """The session's conversations beyond ``cursor``: after the install (only before it for
    ``history``, ended at or after ``since``); open ones quiet for ``settle_seconds`` (or cut
    off by a gateway start, ``open_before``); the log of ``agent`` alone."""
    from .. import transcripts
    from ..log import Log

    # this agent's entries only: another agent's memory is not shown to the model, and
    # cannot be corrected from here
    default = paths.default_agent()
    log_entries, theirs = [], set()
    for e in Log(warn=False).entries(records=True):
        if paths.entry_agent(e, default) == agent:
            if "subject" in e and not isinstance(e["subject"], str | None):
                # a subject written by hand may be any JSON (a list): extraction files the
                # entry under none rather than stopping (the log itself is not touched)
                e = {k: v for k, v in e.items() if k != "subject"}
            log_entries.append(e)
        elif isinstance(e.get("subject"), str):
            theirs.add(e["subject"])
    foreign = frozenset(theirs.difference(  # (a subject written by hand may be any JSON)
        e["subject"] for e in log_entries if isinstance(e.get("subject"), str)))
    derived = False
    if not cursor and not history:  # no record (never extracted, or pruned after
        # 30 days): the log
        stamps = [e["timestamp"] for e in log_entries  # knows how far it got: its
                  if e.get("session") == session_id  # entries carry the time of
                  and isinstance(e.get("timestamp"), str)]  # their conversation
        cursor = {"time": max(stamps)} if stamps else None
        derived = cursor is not None
    if messages is not None:
        segments = transcripts.segments_from_messages(  # 2026.9's when its database is there
            messages, session_id, says_owner=transcripts.has_database(agent))
    else:
        segments = transcripts.read_segments(ref)
    todo = after_cursor(segments, cursor)
    left_for_import = 0
    if installed is not None:
        old = [s for s in todo if is_history(s, installed, ref)]
        if history:
            todo = [s for s in old if since is None or parse_ts(segment_time(s, ref))
                    >= since or not s.has_user]
        else:
            todo = [s for s in todo if not is_history(s, installed, ref)]
            left_for_import = sum(1 for s in old if s.has_user)
    fresh = bool(todo)
    why_held: list[str] = []
    if settle_seconds is not None:
        start = parse_ts(open_before) if isinstance(open_before, str) else open_before
        kept = []
        for segment in todo:
            why = held(segment, ref, settle_seconds, start)
            if why is None:
                kept.append(segment)
            elif segment.has_user:  # (one without the person's words holds nothing to say)
                why_held.append(why)
            else:
                why_held.append("")
        todo = kept
    return Plan(todo, segments, log_entries, cursor, derived, fresh, len(why_held),
                left_for_import, [w for w in why_held if w], foreign)
