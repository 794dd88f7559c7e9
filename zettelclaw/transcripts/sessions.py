"""Finding sessions, in either layout, for one agent or every agent, and reading one."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from .. import paths
from ..errors import NotFoundError, UsageError, ZettelclawError
from .horizon import Horizon
from .jsonl import _read_store_segments, _store_refs, _transcript_file
from .shapes import Segment, SessionRef
from .sqlite import DB_NAME, _db_refs, _db_session, _read_db_segments, open_agent_db
from .times import _aware


def _agent_dirs(agent: str | None) -> list[tuple[str, Path]]:
    root = paths.agents_dir()
    if agent is not None:
        if not agent or "/" in agent or "\\" in agent or agent.startswith("."):
            raise UsageError(f"refused: {agent!r} is not an agent id")
        return [(agent, root / agent)] if (root / agent).is_dir() else []
    try:
        return sorted((p.name, p) for p in root.iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []


def _check_session_id(session_id: str) -> str:
    session_id = session_id.strip()
    if (not session_id or "/" in session_id or "\\" in session_id or session_id.startswith(".")
            or "\x00" in session_id):
        raise UsageError(f"refused: {session_id!r} is not a session id")
    return session_id


def has_database(agent: str | None) -> bool:
    """Whether an agent's sessions are 2026.9's (its database is there): what its transcripts
    do not say about the sender is then not the owner's."""
    try:
        return any((d / "agent" / DB_NAME).is_file() for _, d in _agent_dirs(agent))
    except (OSError, UsageError):
        return False


def find_session(session_id: str, agent: str | None = None) -> SessionRef:
    """Where a session's transcript lives, in either layout, for one agent or any.

    Raises NotFoundError when no agent knows the sessionId.
    """
    session_id = _check_session_id(session_id)
    for agent_id, agent_dir in _agent_dirs(agent):
        db = agent_dir / "agent" / DB_NAME
        if db.is_file():
            conn = open_agent_db(db)
            try:
                known, key, updated = _db_session(conn, session_id)
            finally:
                conn.close()
            if known:
                return SessionRef(agent_id, session_id, key, "2026.9", db, updated)
        sessions_dir = agent_dir / "sessions"
        if sessions_dir.is_dir():
            for ref in _store_refs(agent_id, sessions_dir, only=session_id):
                return ref
    where = f" for agent {agent}" if agent else ""
    raise NotFoundError(f"no OpenClaw session {session_id}{where} under {paths.agents_dir()}")


_SQLITE_MARKER_RE = re.compile(r"^sqlite:([^:]+):([^:]+):(.*)$")


def find_session_file(session_file: str, agent: str | None = None) -> SessionRef:
    """The session a hook's ``sessionFile`` names.

    2026.9 hands over a pseudo-id, ``sqlite:<agentId>:<sessionId>:<storePath>``; 2026.2 a
    transcript path, which may already have been rotated to ``.reset.<time>`` (the rotated file
    is found) and whose store entry gives the key.
    """
    value = session_file.strip()
    marker = _SQLITE_MARKER_RE.match(value)
    if marker:
        return find_session(marker[2], agent or marker[1])
    path = Path(os.path.expanduser(value))
    info = _transcript_file(path)
    if info is None:
        raise UsageError(f"{session_file!r} is not an OpenClaw transcript file")
    sessions_dir = path.parent
    if sessions_dir.is_dir():
        agent_id = agent or sessions_dir.parent.name
        for ref in _store_refs(agent_id, sessions_dir, only=info.session_id):
            if ref.path and not ref.path.exists() and path.exists():
                ref.path = path
            return ref
    return find_session(info.session_id, agent)


def list_sessions(agent: str | None = None, since: datetime | None = None,
                  unreadable: list[tuple[str, str]] | None = None,
                  horizon: Horizon | None = None) -> Iterator[SessionRef]:
    """Every session of every agent (or of one), in both layouts, least recently updated first.

    ``since`` keeps sessions updated at or after it (a naive time is UTC); a session whose time
    is unknown is always listed. An agent whose database cannot be read is skipped, the others
    listed: (agent, why) goes to ``unreadable``, else a line on stderr. With a ``horizon``, the
    sessions it covers are counted in it, not listed (:mod:`.horizon`).
    """
    since = _aware(since) if since is not None else None
    for agent_id, agent_dir in _agent_dirs(agent):
        refs: dict[str, SessionRef] = {}
        known: set[str] = set()  # every session of the database, listed or covered
        db = agent_dir / "agent" / DB_NAME
        if db.is_file():
            try:
                for ref in _db_refs(agent_id, db, horizon=horizon, since=since, known=known):
                    refs[ref.session_id] = ref
            except ZettelclawError as exc:  # one unreadable agent does not hide the others
                if unreadable is not None:
                    unreadable.append((agent_id, str(exc)))
                else:
                    print(f"zettelclaw: skipping agent {agent_id}: {exc}", file=sys.stderr)
        sessions_dir = agent_dir / "sessions"
        if sessions_dir.is_dir():
            for ref in _store_refs(agent_id, sessions_dir, horizon=horizon, since=since,
                                   listed=known):
                if ref.session_id not in known:  # the database wins after an upgrade
                    refs[ref.session_id] = ref
        ordered = sorted(refs.values(), key=lambda r: (
            r.updated_at or datetime.min.replace(tzinfo=timezone.utc), r.session_id))
        for ref in ordered:
            if since is None or ref.updated_at is None or ref.updated_at >= since:
                yield ref


def read_segments(ref: SessionRef, *, after: str | None = None) -> list[Segment]:
    """The conversations of one session, oldest first; each with at least one message.

    ``after`` is an event id (a segment's ``last_event_id`` kept as a cursor): only what came
    after it is returned, the segment it fell inside trimmed to the later messages. An id that
    is not in the transcript cuts nothing.
    """
    if ref.layout == "2026.9":
        if ref.path is None:
            raise UsageError("a 2026.9 session needs its database path")
        return _read_db_segments(ref, after)
    if ref.layout == "2026.2":
        return _read_store_segments(ref, after)
    raise UsageError(f"cannot read a {ref.layout!r} session by reference; "
                     "pass its messages to segments_from_messages")


def session_key_for(session_id: str, agent: str | None = None) -> str | None:
    """The session key for a sessionId, from the session store (None when unknown)."""
    try:
        return find_session(session_id, agent).session_key
    except NotFoundError:
        return None
