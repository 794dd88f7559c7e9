"""What ``get`` (and the agent's ``memory_get`` tool) can read: entries, sessions, files."""

from __future__ import annotations

import re

from . import paths
from .entries import looks_like_id, no_entry
from .errors import GoneError, NotFoundError, UsageError

SESSION_PREFIX = "session:"
# a page of a transcript: on 2026.9 one sessionId holds every conversation since install
PAGE_LINES = 200
PAGE_CHARS = 16_000  # without --lines a page also stops before this many characters


class _Scope:
    """The agents whose entries and sessions ``get`` may read (``--agent``)."""

    def __init__(self, agent: str | list[str] | None, person: str | None = None):
        self.agents = paths.agent_scope(agent)
        self.default = paths.default_agent()
        self.person = person  # whose session asks (None: the terminal, every person's)

    def holds(self, agent_id: str | None) -> bool:
        return self.agents is None or (agent_id or self.default) in self.agents

    def holds_entry(self, entry: dict) -> bool:
        from .people import sees

        return self.holds(paths.entry_agent(entry, self.default)) and sees(self.person, entry)

    def describe(self) -> str:
        return ", ".join(sorted(self.agents or ()))


# no dot and no slash: not a file name, so an id (mistyped or not there)
ID_LIKE_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def get(target: str, *, history: bool = False, start: int | None = None,
        count: int | None = None, agent: str | list[str] | None = None,
        transcript: bool = False, session_key: str | None = None,
        sender_is_owner: bool | None = None):
    """``("entries", [entry...])``, ``("session", {...})`` or ``("file", {...})``.

    Only entries and sessions of the agents ``agent`` names (``--agent``: the default agent
    unless given, ``all`` for every one): another agent's entry is not found, another agent's
    session is refused. With ``session_key`` (the session asking: ``memory_get``), only its
    person's (:mod:`zettelclaw.people`): another person's entry is not found, their session
    and (for anyone but the owner) MEMORY.md and memory/ are refused. ``sender_is_owner``:
    what OpenClaw said of the turn's sender (:func:`zettelclaw.people.caller`)."""
    from .people import OWNER, caller

    target = target.strip()
    agent = _Scope(agent, caller(session_key, sender_is_owner))
    if transcript:
        if history:
            raise UsageError("--transcript and --history do not go together")
        if target.startswith(SESSION_PREFIX) or not looks_like_id(target):
            raise UsageError("--transcript takes an entry id: the conversation it came from")
        return "session", entry_transcript(target, agent, start, count)
    if target.startswith(SESSION_PREFIX):
        return "session", session(target[len(SESSION_PREFIX):], agent, start, count)
    if looks_like_id(target) and not target.endswith(".md"):
        return "entries", entry_chain(target, agent) if history else [entry(target, agent)]
    if ID_LIKE_RE.match(target):  # an id that is not there, as forget and review say it
        raise no_entry(target)
    if agent.person not in (None, OWNER):
        raise UsageError(f"refused: {target} is the owner's memory, not this session's")
    from . import memoryfiles

    return "file", memoryfiles.read(target, start, count)


def entry(entry_id: str, scope: _Scope | None = None) -> dict:
    """The entry, with ``replacedBy`` when a later entry corrected it. A forgotten or purged
    one (or one whose correction was) raises :class:`GoneError`."""
    scope = scope or _Scope(None)
    from .log import Log
    from .resolve import StreamingResolution, gone_kind

    log_path = paths.log_path()
    found = None
    for pos, candidate in Log(log_path).located(needle=f'"{entry_id}"'.encode(), records=True):
        if (candidate["id"] == entry_id and scope.holds_entry(candidate)
                and candidate.get("type") not in ("forget", "unforget")):
            found = (pos, candidate)
    if found is None:
        raise no_entry(entry_id)
    pos, result = found
    if gone_kind(result) == "purged":
        raise GoneError(entry_id, "purged", result.get("purged"))
    resolution = StreamingResolution.scan(log_path)
    gone = resolution.gone(result, pos)
    if gone is not None:
        kind = gone_kind(gone)
        raise GoneError(entry_id, kind, gone.get("timestamp" if kind == "forgotten"
                                                 else "purged"))
    replacer = resolution.replaced_by(entry_id, pos)
    if replacer:
        result["replacedBy"] = replacer
    return result


def entry_chain(entry_id: str, scope: _Scope | None = None) -> list[dict]:
    from .log import Log
    from .resolve import Resolution, gone_kind

    scope = scope or _Scope(None)
    resolution = Resolution.build(e for e in Log(paths.log_path()).entries(records=True)
                                  if scope.holds_entry(e))
    record = resolution.records.get(entry_id)
    gone = resolution.gone(entry_id) if record is None else record
    if gone is not None and gone_kind(gone) is not None:
        kind = gone_kind(gone)
        raise GoneError(entry_id, kind, gone.get("timestamp" if kind == "forgotten"
                                                 else "purged"))
    chain = resolution.history(entry_id)
    if not chain:
        raise no_entry(entry_id)
    return chain


def session(session_id: str, agent: _Scope | None = None, start: int | None = None,
            count: int | None = None) -> dict:
    """A page of every conversation of a session, rendered as ``User:/Assistant:`` lines."""
    ref, segments = _read(session_id, agent)
    lines = []
    for seg in segments:
        if len(segments) > 1:
            lines.append(f"--- conversation {seg.index + 1} ---")
        lines.extend(_message_lines(seg))
    return {"session": ref.session_id, "agent": ref.agent_id, "sessionKey": ref.session_key,
            **page(lines, start, count)}


def entry_transcript(entry_id: str, agent: _Scope | None = None, start: int | None = None,
                     count: int | None = None) -> dict:
    """A page of the conversation an entry came from (see :func:`conversation_of`)."""
    found = entry(entry_id, agent)
    session_id = found.get("session")
    if not isinstance(session_id, str) or not session_id.strip():
        raise NotFoundError(f"entry {entry_id} names no session (written by hand?)")
    ref, segments = _read(session_id, agent)
    if not segments:
        raise NotFoundError(f"session {session_id} of entry {entry_id} holds no conversation")
    chosen = conversation_of(found, segments)
    return {"session": ref.session_id, "agent": ref.agent_id, "sessionKey": ref.session_key,
            "entry": entry_id, "conversation": segments.index(chosen) + 1,
            "conversations": len(segments), **page(_message_lines(chosen), start, count)}


def conversation_of(found: dict, segments: list):
    """The segment an entry was extracted from.

    An entry is dated with the time of its conversation's last message: the segment whose last
    message has that time (to the second). Else (a conversation extracted while it went on, or
    an older log dated at extraction time) the segment whose messages span the time, else the
    latest one that ended at or before it, else the first.
    """
    from .clock import sort_key

    stamp = sort_key(found.get("timestamp"))
    spans = []
    for seg in segments:
        times = [sort_key(m.timestamp) for m in seg.messages if m.timestamp]
        times = [t for t in times if t]
        spans.append((min(times), max(times)) if times else ("", ""))
    if stamp:
        for seg, (_, last) in zip(segments, spans, strict=True):
            if last == stamp:
                return seg
        for seg, (first, last) in zip(segments, spans, strict=True):
            if first and first <= stamp <= last:
                return seg
        ended = [(last, n) for n, (_, last) in enumerate(spans) if last and last <= stamp]
        if ended:
            return segments[max(ended)[1]]
    return segments[0]


def _read(session_id: str, scope: _Scope | None):
    session_id = session_id.strip()
    if not session_id or "/" in session_id or "\\" in session_id or ".." in session_id \
            or session_id.startswith("."):
        raise UsageError(f"refused: {session_id!r} is not a session id")
    from . import transcripts

    scope = scope or _Scope(None)
    only = next(iter(scope.agents)) if scope.agents is not None and len(scope.agents) == 1 \
        else None
    try:
        ref = transcripts.find_session(session_id, only)
    except NotFoundError:
        if only is None:
            raise
        ref = transcripts.find_session(session_id)  # another agent's: refused below
    if not scope.holds(ref.agent_id):
        raise UsageError(f"refused: session {session_id} belongs to agent {ref.agent_id}, "
                         f"not to {scope.describe()}")
    if scope.person is not None:
        from .people import NOBODY, person_of_session
        from .statefile import known_key

        if scope.person == NOBODY or person_of_session(
                known_key(ref.session_id, ref.session_key)) != scope.person:
            raise UsageError(f"refused: session {session_id} is another person's "
                             "conversation")
    return ref, transcripts.read_segments(ref)


def _message_lines(segment) -> list[str]:
    from .transcripts import render

    return render(segment.messages).split("\n") if segment.messages else []


def page(lines: list[str], start: int | None, count: int | None) -> dict:
    """Lines ``start`` (1-based) on: ``count`` of them, or by default at most PAGE_LINES and
    PAGE_CHARS (always at least one line). ``next`` is the first line of the next page."""
    if start is not None and start < 1:
        raise UsageError("--from must be 1 or more")
    if count is not None and count < 1:
        raise UsageError("--lines must be 1 or more")
    first = start or 1
    if count is not None:
        chosen = lines[first - 1:first - 1 + count]
    else:
        chosen, size = [], 0
        for line in lines[first - 1:first - 1 + PAGE_LINES]:
            size += len(line) + 1
            if chosen and size > PAGE_CHARS:
                break
            chosen.append(line)
    end = first - 1 + len(chosen)
    return {"from": first, "lines": len(chosen), "totalLines": len(lines),
            "next": end + 1 if end < len(lines) else None, "text": "\n".join(chosen)}


def format_entry(entry: dict) -> str:
    """``key: value`` lines for a terminal: control characters shown as escapes."""
    from .display import printable

    lines = []
    for key, value in entry.items():
        lines.append(printable(f"{key}: {value}"))
    return "\n".join(lines) + "\n"


def format_session(result: dict) -> str:
    """The page's text; when more follows, a last line says how to read it."""
    from .display import printable

    text = printable(result["text"])
    if result.get("next"):
        last = result["from"] + result["lines"] - 1
        again = (f"zettelclaw get {result['entry']} --transcript" if result.get("entry")
                 else f"zettelclaw get session:{result['session']}")
        text += (f"\n[lines {result['from']}-{last} of {result['totalLines']}; "
                 f"more: {again} --from {result['next']}]")
    return text
