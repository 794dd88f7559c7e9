"""History (issue 12): conversations that ended before zettelclaw was installed.

``zettelclaw init`` records the moment of install in ``state.json`` (``installedAt``, once: a
second init does not move it, and a log that was in use before init recorded it keeps
extracting every conversation as before). From then on the automatic runs (the sweep on
``gateway_start`` and from cron, ``extract`` from the hooks) take only conversations that end
at or after that moment: a conversation's end is its last message, the time its entries carry
(:func:`zettelclaw.extract.segment_time`). Older ones are *history*: never extracted, marked
failed or counted as to do by those runs, until ``zettelclaw import`` brings them in.

The boundary is per conversation, not per session: one 2026.9 sessionId holds every
conversation of a main session (``/new`` adds a ``reset`` event), so a session may hold three
history conversations and one from after the install. The two runs keep separate cursors:
the automatic one ``extractedSessions[id].cursor`` (it steps over history without taking it),
the import ``imported[id].cursor`` (a section never pruned), so neither swallows the other's
conversations and an import takes each history conversation once, committed one by one: a
killed import rerun goes on where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .clock import format_ts, now, parse_ts
from .counts import count

CHARS_PER_TOKEN = 4  # the estimate: characters / 4, the usual rule of thumb for English text
LARGE_CONVERSATIONS = 20  # an import bigger than this asks first on a terminal
LARGE_TOKENS = 200_000  # ... or than this many estimated input tokens
# state.json: how many history conversations the last `init` found waiting for import
HISTORY_AT_INIT = "historyAtInit"


def record_install(moment: datetime | None = None) -> datetime | None:
    """Record the moment of install, once; returns it (None: a log in use before init)."""
    from . import paths
    from .fsutil import ensure_private_dir
    from .state import transaction

    ensure_private_dir(paths.log_dir())
    log = paths.log_path()
    with transaction() as state:
        installed = state.install_moment()
        if installed is not None:
            return installed
        if state.extractedSessions or state.failedSessions or (
                log.is_file() and log.stat().st_size > 0):
            return None  # zettelclaw was in use before: keep taking every conversation
        stamp = format_ts(moment or now())
        state.__pydantic_extra__["installedAt"] = stamp
        return parse_ts(stamp)


def install_moment(*, record: bool) -> datetime | None:
    """The moment of install: recorded now if it is the first install (``record``), or what
    a first install would record (``init --dry-run``); None for a log in use before init."""
    from . import paths
    from .state import State

    if record:
        return record_install()
    state = State.load()
    installed = state.install_moment()
    if installed is not None:
        return installed
    log = paths.log_path()
    if state.extractedSessions or state.failedSessions or (
            log.is_file() and log.stat().st_size > 0):
        return None
    return parse_ts(format_ts(now()))


def init_line(installed: datetime | None, *, record: bool = False) -> str | None:
    """What ``init`` says about the history (None: a log in use before, nothing to say).
    ``record``: keep how many conversations it found waiting in state.json
    (``historyAtInit``), so ``stats`` says nothing waits when none did."""
    if installed is None:
        return None
    from .errors import ZettelclawError
    from .redact import redact

    try:
        found = survey(installed=installed)
    except ZettelclawError as exc:
        return f"History: could not be read ({redact(str(exc))}); `zettelclaw import --dry-run`"
    if record:
        from .state import transaction

        with transaction() as state:
            state.__pydantic_extra__[HISTORY_AT_INIT] = found.conversations
    if not found.conversations:
        return "History: no conversation from before the install."
    return (f"History: {found.line()} from before the install, left alone by the automatic "
            "runs; `zettelclaw import --dry-run` lists it, `zettelclaw import` brings it in.")


def doctor_check():
    """doctor's one line about history waiting for import (informational, never a problem);
    None when there is no moment of install or nothing waits."""
    from .errors import ZettelclawError
    from .openclaw import Check

    try:
        found = survey()
    except ZettelclawError:
        return None
    if not found.conversations:
        return None
    return Check("history", "ok", f"{found.line()} from before the install wait for "
                 "`zettelclaw import` (`--dry-run` lists them)")


# --------------------------------------------------------------------------------------------
# What an import would take


@dataclass
class SessionHistory:
    """One session's history not yet imported."""

    ref: object  # transcripts.SessionRef
    segments: list = field(default_factory=list)
    messages: int = 0
    tokens: int = 0
    first: str | None = None
    last: str | None = None

    def as_dict(self) -> dict:
        return {"agent": self.ref.agent_id, "session": self.ref.session_id,
                "key": self.ref.session_key, "conversations": len(self.segments),
                "messages": self.messages, "first": self.first, "last": self.last,
                "estimatedInputTokens": self.tokens}


@dataclass
class Survey:
    sessions: list[SessionHistory] = field(default_factory=list)
    installed: datetime | None = None

    @property
    def conversations(self) -> int:
        return sum(len(s.segments) for s in self.sessions)

    @property
    def messages(self) -> int:
        return sum(s.messages for s in self.sessions)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.sessions)

    @property
    def large(self) -> bool:
        return self.conversations > LARGE_CONVERSATIONS or self.tokens > LARGE_TOKENS

    def totals(self) -> dict:
        return {"total": True, "sessions": len(self.sessions),
                "conversations": self.conversations, "messages": self.messages,
                "estimatedInputTokens": self.tokens,
                "installedAt": format_ts(self.installed) if self.installed else None}

    def line(self) -> str:
        return (f"{count(len(self.sessions), 'session')}, "
                f"{count(self.conversations, 'conversation')}, "
                f"{count(self.messages, 'message')}, about {self.tokens:,} input tokens "
                "(estimate)")


def pending_history(ref, installed: datetime | None, cursor: dict | None,
                    since: datetime | None = None) -> list:
    """The session's history conversations beyond the import cursor (with a human in them),
    ended at or after ``since`` when given."""
    from . import transcripts
    from .extract.cursor import after_cursor, conversation_end, is_history

    if installed is None:
        return []
    out = []
    for segment in after_cursor(transcripts.read_segments(ref), cursor):
        if not segment.has_user or not is_history(segment, installed, ref):
            continue
        if since is not None and conversation_end(segment, ref) < since:
            continue
        out.append(segment)
    return out


def estimate_tokens(segments: list, extractor=None) -> int:
    """Input tokens an extraction of ``segments`` would send, estimated as characters / 4:
    per model call the extraction prompt and the subjects list at its budget, plus the rendered
    transcript (the existing entries shown to the model are left out)."""
    from .extract import SUBJECTS_CHARS, Extractor
    from .transcripts import chunk_messages, render

    extractor = extractor or Extractor(client=object())
    fixed = len(extractor.prompt) + SUBJECTS_CHARS
    chars = 0
    for segment in segments:
        for chunk in chunk_messages(segment.messages, extractor.chunk_chars):
            chars += fixed + len(render(chunk)) + 40  # + the <transcript> frame
    return -(-chars // CHARS_PER_TOKEN)


def survey(*, agent: str | None = None, since: datetime | None = None,
           session: str | None = None, installed: datetime | None = None) -> Survey:
    """Every session's history not yet imported. ``installed`` defaults to state.json's
    moment of install (``init --dry-run`` passes now)."""
    from . import transcripts
    from .extract import Extractor, _skip_prefixes
    from .extract.cursor import imported_cursor
    from .state import State

    state = State.load()
    installed = installed or state.install_moment()
    result = Survey(installed=installed)
    if installed is None:
        return result
    prefixes = _skip_prefixes()
    extractor = Extractor(client=object())
    refs = ([transcripts.find_session(session, agent)] if session
            else transcripts.list_sessions(agent))
    for ref in refs:
        if not transcripts.in_scope(ref.session_key, prefixes):
            continue
        if ref.updated_at is not None and since is not None and ref.updated_at < since:
            continue
        segments = pending_history(ref, installed, imported_cursor(state, ref.session_id),
                                   since)
        if not segments:
            continue
        times = [m.timestamp for s in segments for m in s.messages if parse_ts(m.timestamp)]
        times.sort(key=parse_ts)
        result.sessions.append(SessionHistory(
            ref, segments, messages=sum(len(s.messages) for s in segments),
            tokens=estimate_tokens(segments, extractor),
            first=format_ts(parse_ts(times[0])) if times else None,
            last=format_ts(parse_ts(times[-1])) if times else None))
    return result
