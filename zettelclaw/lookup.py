"""What ``get`` (and the agent's ``memory_get`` tool) can read: entries, sessions, files."""

from __future__ import annotations

from . import paths
from .entries import looks_like_id
from .errors import NotFoundError, UsageError

SESSION_PREFIX = "session:"


def get(target: str, *, history: bool = False, start: int | None = None,
        count: int | None = None, agent: str | None = None):
    """``("entries", [entry...])``, ``("session", {...})`` or ``("file", {...})``."""
    target = target.strip()
    if target.startswith(SESSION_PREFIX):
        return "session", session(target[len(SESSION_PREFIX):], agent)
    if looks_like_id(target) and not target.endswith(".md"):
        return "entries", entry_chain(target) if history else [entry(target)]
    from . import memoryfiles

    return "file", memoryfiles.read(target, start, count)


def entry(entry_id: str) -> dict:
    """The entry, with ``replacedBy`` when a later entry corrected it."""
    from .log import Log
    from .resolve import StreamingResolution

    log_path = paths.log_path()
    found = None
    for pos, candidate in Log(log_path).located(needle=f'"{entry_id}"'.encode()):
        if candidate["id"] == entry_id:
            found = (pos, candidate)
    if found is None:
        raise NotFoundError(f"no entry with id {entry_id}")
    pos, result = found
    replacer = StreamingResolution.scan(log_path).replaced_by(entry_id, pos)
    if replacer:
        result["replacedBy"] = replacer
    return result


def entry_chain(entry_id: str) -> list[dict]:
    from .log import Log
    from .resolve import Resolution

    resolution = Resolution.build(Log(paths.log_path()).entries())
    chain = resolution.history(entry_id)
    if not chain:
        raise NotFoundError(f"no entry with id {entry_id}")
    return chain


def session(session_id: str, agent: str | None = None) -> dict:
    session_id = session_id.strip()
    if not session_id or "/" in session_id or "\\" in session_id or ".." in session_id \
            or session_id.startswith("."):
        raise UsageError(f"refused: {session_id!r} is not a session id")
    from . import transcripts

    ref = transcripts.find_session(session_id, agent)
    segments = transcripts.read_segments(ref)
    return {
        "session": ref.session_id,
        "agent": ref.agent_id,
        "sessionKey": ref.session_key,
        "segments": [
            {"index": seg.index,
             "messages": [{"role": m.role, "text": m.text, "timestamp": m.timestamp}
                          for m in seg.messages]}
            for seg in segments
        ],
    }


def format_entry(entry: dict) -> str:
    lines = []
    for key, value in entry.items():
        lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"


def format_session(result: dict) -> str:
    out = []
    for seg in result["segments"]:
        if len(result["segments"]) > 1:
            out.append(f"--- conversation {seg['index'] + 1} ---")
        for message in seg["messages"]:
            who = "User" if message["role"] == "user" else "Assistant"
            out.append(f"{who}: {message['text']}")
    return "\n".join(out)
