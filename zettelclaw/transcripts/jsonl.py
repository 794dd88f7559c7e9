"""OpenClaw 2026.2: ``agents/<agentId>/sessions/sessions.json`` and one JSONL file per session.

``sessions.json`` maps a session key to an entry with ``sessionId``, ``updatedAt`` and
``sessionFile?``; beside it lives ``<sessionId>.jsonl`` or ``<sessionId>-topic-<id>.jsonl``,
renamed to ``<file>.reset.<time>`` / ``<file>.deleted.<time>`` when the session is reset or
deleted. Files are read a line at a time.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Container, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ZettelclawError
from .horizon import Horizon
from .segments import _parse, _Segmenter
from .shapes import Segment, SessionRef
from .times import _aware, _from_ms

STORE_NAME = "sessions.json"


# The longest transcript line read (ZETTELCLAW_MAX_LINE_BYTES overrides it): a longer one is
# skipped with a warning, read past in 1 MB pieces, so a 1 GB one-line transcript costs
# bounded memory instead of 4 GB. A message that long is tool output or a pasted file, not
# conversation worth remembering.
MAX_LINE_BYTES = 64 << 20


def _max_line_bytes() -> int:
    value = os.environ.get("ZETTELCLAW_MAX_LINE_BYTES", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_LINE_BYTES


def _iter_jsonl_file(path: Path) -> Iterator:
    """The events of one JSONL transcript, a line at a time. Bad lines are skipped, and so are
    lines longer than :data:`MAX_LINE_BYTES` (a warning on stderr says so)."""
    from ..fsutil import open_read

    try:  # OpenClaw's file: through a symlink, never waiting on a FIFO
        handle = open_read(path, follow=True)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ZettelclawError(f"cannot read transcript {path}: {exc.strerror}") from None
    limit = _max_line_bytes()
    with handle:
        while True:
            line = handle.readline(limit + 1)
            if not line:
                break
            if len(line) > limit:
                size = _read_past_line(handle, line)
                print(f"warning: skipped a line of {size:,} bytes in {path} (more than "
                      f"{limit:,}: ZETTELCLAW_MAX_LINE_BYTES)", file=sys.stderr)
                continue
            if line.strip():
                event = _parse(line)
                if event is not None:
                    yield event


def _read_past_line(handle, line: bytes) -> int:
    """Read to the end of the over-long line ``line`` began, 1 MB at a time; its size."""
    size = len(line)
    while not line.endswith(b"\n"):
        line = handle.readline(1 << 20)
        if not line:
            break
        size += len(line)
    return size


_FILE_RE = re.compile(
    r"^(?P<sid>[^./\\]+?)(?:-topic-(?P<topic>[^./\\]+))?\.jsonl"
    r"(?:\.(?P<kind>reset|deleted)\.(?P<stamp>[^/\\]+))?$")


@dataclass(frozen=True)
class _TranscriptFile:
    path: Path
    session_id: str
    rotated: bool
    stamp: str  # the rotation time as written in the name ("" for a live file)

    @property
    def rotated_at(self) -> datetime | None:
        return _stamp_time(self.stamp)


def _stamp_time(stamp: str) -> datetime | None:
    """The time a rotated transcript's name says (None for a live file or a stamp that does
    not read as a time)."""
    if not stamp:
        return None
    date, _, clock = stamp.partition("T")
    try:
        return _aware(datetime.fromisoformat(f"{date}T{clock.replace('-', ':')}"))
    except ValueError:
        return None


def _transcript_file(path: Path) -> _TranscriptFile | None:
    match = _FILE_RE.match(path.name)
    if not match:
        return None
    return _TranscriptFile(path, match["sid"], match["kind"] is not None, match["stamp"] or "")


def _scan_sessions_dir(sessions_dir: Path) -> dict[str, list[_TranscriptFile]]:
    """sessionId -> its transcript files in ``sessions_dir``."""
    return _group(_entries(sessions_dir))


def _entries(sessions_dir: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(sessions_dir))
    except OSError:
        return []


def _group(entries, found: dict[str, list[_TranscriptFile]] | None = None
           ) -> dict[str, list[_TranscriptFile]]:
    """The transcript files among ``entries`` added to ``found`` by sessionId."""
    found = {} if found is None else found
    for entry in entries:
        if entry.name.endswith(".jsonl") or ".jsonl." in entry.name:
            info = _transcript_file(Path(entry.path))
            if info is not None and entry.is_file():
                found.setdefault(info.session_id, []).append(info)
    return found


# OpenClaw's own rotation stamp (``2026-04-05T12-08-00.000Z``): fixed width, so of one
# session's stamps the greatest as text is the latest in time
_STAMP_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}\.[0-9]{3}Z")
_ROTATIONS = (".jsonl.reset.", ".jsonl.deleted.")


def _covered(sessions_dir: Path, horizon: datetime, since: datetime | None,
             listed: Container[str]) -> tuple[dict[str, list[_TranscriptFile]], int]:
    """(sessionId -> transcript files of the sessions still to list, how many sessions the
    horizon covers) for a sessions directory.

    A session is covered when every file of it is ``<sessionId>.jsonl.reset.<stamp>`` or
    ``.deleted.<stamp>`` in OpenClaw's own stamp format, the latest stamp reads as a time at or
    before ``horizon``, and it is not in ``listed`` (a store entry, whose ``updatedAt``
    is the session's time, a database row, a failure or a held record: the listing decides as
    it always has). Such a session's last update, as :func:`_store_refs` would give it, is that
    latest stamp: no entry, no live file. Found from the names alone: no ``Path``, no match of
    the whole name, no stat. Covered sessions updated before ``since`` are not counted, as
    they would not have been listed."""
    entries = _entries(sessions_dir)
    latest: dict[str, str] = {}
    rotations: dict[str, list[os.DirEntry]] = {}
    other: list[os.DirEntry] = []
    for entry in entries:
        name = entry.name
        dot = name.find(".")
        if dot > 0 and name.startswith(_ROTATIONS, dot):
            sid, stamp = name[:dot], name[name.index(".", dot + 7) + 1:]
            if _STAMP_RE.fullmatch(stamp) and "-topic-" not in sid and "\\" not in sid:
                if entry.is_file():
                    rotations.setdefault(sid, []).append(entry)
                    if stamp > latest.get(sid, ""):
                        latest[sid] = stamp
                continue
        other.append(entry)
    found = _group(other)
    covered = 0
    for sid, stamp in latest.items():
        if sid not in found and sid not in listed:
            moment = _stamp_time(stamp)
            if moment is not None and moment <= horizon:
                if since is None or moment >= since:
                    covered += 1
                continue
        _group(rotations[sid], found)
    return found, covered


def _load_store(sessions_dir: Path) -> dict[str, dict]:
    """sessions.json: session key -> entry ({} when missing or unreadable)."""
    from ..fsutil import read_bytes

    try:
        data = _parse(read_bytes(sessions_dir / STORE_NAME, follow=True) or b"{}")
    except (OSError, ZettelclawError):  # a FIFO there is not waited on
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: entry for key, entry in data.items()
            if isinstance(key, str) and isinstance(entry, dict)}


def _store_index(store: dict[str, dict]) -> dict[str, tuple[str, dict]]:
    """sessionId -> (key, entry); the most recently updated key wins."""
    index: dict[str, tuple[str, dict]] = {}
    for key, entry in store.items():
        sid = entry.get("sessionId")
        if not isinstance(sid, str) or not sid:
            continue
        seen = index.get(sid)
        if seen is None or _num(entry.get("updatedAt")) > _num(seen[1].get("updatedAt")):
            index[sid] = (key, entry)
    return index


def _num(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _entry_file(sessions_dir: Path, entry: dict | None) -> Path | None:
    """The transcript file a store entry names (relative names live beside sessions.json)."""
    if not entry:
        return None
    name = entry.get("sessionFile")
    if not isinstance(name, str) or not name.strip():
        return None
    path = Path(os.path.expanduser(name.strip()))
    if not path.is_absolute():
        path = sessions_dir / path
    if not path.exists() and (sessions_dir / path.name).exists():
        path = sessions_dir / path.name  # the state dir moved since the entry was written
    return path


def _session_files(sessions_dir: Path, session_id: str, preferred: Path | None,
                   scanned: list[_TranscriptFile] | None = None
                   ) -> tuple[Path | None, list[_TranscriptFile]]:
    """(the live transcript or None, rotated transcripts oldest first) for one session."""
    if scanned is None:
        scanned = _scan_sessions_dir(sessions_dir).get(session_id, [])
    rotated = sorted((f for f in scanned if f.rotated), key=lambda f: (f.stamp, f.path.name))
    live_files = sorted((f.path for f in scanned if not f.rotated), key=lambda p: p.name)
    live = None
    if preferred is not None and preferred.is_file():
        info = _transcript_file(preferred)
        if info is None or not info.rotated:
            live = preferred
    if live is None and live_files:
        plain = sessions_dir / f"{session_id}.jsonl"
        live = plain if plain in live_files else live_files[0]
    return live, rotated


def _updated_from_files(live: Path | None, rotated: list[_TranscriptFile]) -> datetime | None:
    if live is not None:
        try:
            return datetime.fromtimestamp(live.stat().st_mtime, timezone.utc)
        except OSError:
            pass
    for info in reversed(rotated):
        moment = info.rotated_at
        if moment is not None:
            return moment
    return None


def _store_refs(agent_id: str, sessions_dir: Path, only: str | None = None, *,
                horizon: Horizon | None = None, since: datetime | None = None,
                listed: Container[str] = ()) -> Iterator[SessionRef]:
    """Sessions of one 2026.2 store. Listing (``only`` None) skips entries with no transcript
    yet; asking for one sessionId finds it anyway (it reads as empty). With a ``horizon``, the
    sessions it covers are counted in it instead (:func:`_covered`; ``since`` as
    :func:`~.sessions.list_sessions` has it, ``listed``: sessions the database already gave)."""
    index = _store_index(_load_store(sessions_dir))
    swept = horizon.of(agent_id) if horizon is not None and only is None else None
    if swept is None:
        files = _scan_sessions_dir(sessions_dir)
    else:
        files, covered = _covered(sessions_dir, swept, since,
                                  {*index, *listed, *horizon.unsettled})
        horizon.covered += covered
    session_ids = [only] if only is not None else sorted(set(index) | set(files))
    for sid in session_ids:
        key, entry = index.get(sid, (None, None))
        live, rotated = _session_files(sessions_dir, sid, _entry_file(sessions_dir, entry),
                                       files.get(sid, []))
        if live is None and not rotated and (entry is None or only is None):
            continue
        path = live or (rotated[-1].path if rotated else
                        _entry_file(sessions_dir, entry) or sessions_dir / f"{sid}.jsonl")
        updated = _from_ms(entry.get("updatedAt")) if entry else None
        yield SessionRef(agent_id, sid, key, "2026.2", path,
                         updated or _updated_from_files(live, rotated))


def _read_store_segments(ref: SessionRef, after: str | None) -> list[Segment]:
    if ref.path is None:
        return []
    sessions_dir = ref.path.parent
    info = _transcript_file(ref.path)
    preferred = ref.path if info is None or not info.rotated else None
    live, rotated = _session_files(sessions_dir, ref.session_id, preferred)
    segmenter = _Segmenter(ref.session_id, after)
    for old in rotated:  # every rotation is a finished conversation, in time order
        for event in _iter_jsonl_file(old.path):
            segmenter.feed(event)
        segmenter.close(closed=True)
    if live is not None:
        for event in _iter_jsonl_file(live):
            segmenter.feed(event)
    # a live file no store entry points at any more belongs to a session that has ended
    current = ref.session_id in _store_index(_load_store(sessions_dir))
    return segmenter.finish(closed=not current)
