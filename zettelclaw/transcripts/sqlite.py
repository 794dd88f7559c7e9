"""OpenClaw 2026.9: the per-agent SQLite database ``agents/<agentId>/agent/openclaw-agent.sqlite``.

WAL, owned by the gateway, opened read-only: ``transcript_events`` rows (``event_json`` or zstd
``event_zstd``), keys in ``session_nodes`` / ``session_windows``, reset/deleted generations in
``session_transcript_archives``. A cursor is read a row at a time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Container, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..errors import NotFoundError, ZettelclawError
from .horizon import Horizon
from .segments import _iter_jsonl_bytes, _parse, _Segmenter
from .shapes import Segment, SessionRef
from .times import _from_ms

DB_NAME = "openclaw-agent.sqlite"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


_BUSY_RETRIES = (0.05, 0.2, 0.5, 1.0)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _is_busy(exc: Exception) -> bool:
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def _wal_is_empty(db: Path) -> bool:
    try:
        return os.path.getsize(f"{db}-wal") == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def open_agent_db(db: Path):
    """Open an agent database read-only, beside a gateway that may be writing it (WAL).

    ``mode=ro`` first. Where that cannot work (the WAL index cannot be created in a read-only
    directory) and no WAL content is waiting to be checkpointed, the file alone is the whole
    database and ``immutable=1`` is safe; otherwise this refuses rather than read a torn state.
    A busy database is retried briefly.
    """
    import sqlite3

    base = db.absolute().as_uri()
    for delay in (*_BUSY_RETRIES, None):
        try:
            return _try_open(sqlite3, f"{base}?mode=ro")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc) and delay is not None:
                time.sleep(delay)
                continue
            if not db.is_file():
                raise NotFoundError(f"no OpenClaw database at {db}") from None
            if _is_busy(exc):
                raise ZettelclawError(f"cannot open OpenClaw database {db}: {exc}") from None
            return _open_immutable(sqlite3, db, exc)
        except sqlite3.DatabaseError as exc:
            raise ZettelclawError(f"cannot read OpenClaw database {db}: {exc}") from None
    raise AssertionError("unreachable: the last try returns or raises")  # pragma: no cover


def _open_immutable(sqlite3, db: Path, refused: Exception):
    """Open ``db`` as a file nothing writes (``immutable=1``), when ``mode=ro`` was refused:
    only safe while no WAL content waits to be checkpointed; otherwise this refuses."""
    if not _wal_is_empty(db):
        raise ZettelclawError(
            f"cannot open {db} read-only ({refused}); its write-ahead log holds changes "
            "that only a writable directory lets a reader see") from None
    try:
        return _try_open(sqlite3, f"{db.absolute().as_uri()}?mode=ro&immutable=1")
    except sqlite3.Error as exc:
        raise ZettelclawError(f"cannot open OpenClaw database {db}: {exc}") from None


def _try_open(sqlite3, uri: str):
    conn = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
    try:
        conn.text_factory = _decode_text
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except Exception:
        conn.close()
        raise
    return conn


def _query(conn, sql: str, params: tuple = ()):
    """A cursor over ``sql``; a missing table reads as no rows; busy is retried briefly."""
    import sqlite3

    for delay in (*_BUSY_RETRIES, None):
        try:
            return conn.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc) or "no such column" in str(exc):
                return iter(())
            if not _is_busy(exc) or delay is None:
                raise ZettelclawError(f"cannot read OpenClaw database: {exc}") from None
            time.sleep(delay)
    return iter(())  # pragma: no cover


def _decompress(blob: bytes) -> bytes:
    import zstandard  # only zstd rows and archives pay for it

    return zstandard.ZstdDecompressor().decompressobj().decompress(blob)


def _event_of_row(event_json, event_zstd):
    if event_json is not None:
        return _parse(event_json)
    if event_zstd is not None:
        try:
            return _parse(_decompress(bytes(event_zstd)))
        except Exception:  # a corrupt frame costs that event, not the session
            return None
    return None


def _blob_events(blob, encoding: str | None) -> Iterator:
    data = bytes(blob)
    if encoding == "zstd" or data[:4] == _ZSTD_MAGIC:
        try:
            data = _decompress(data)
        except Exception:
            return
    whole = data.lstrip()[:1]
    if whole == b"[":
        parsed = _parse(data)
        if isinstance(parsed, list):
            yield from parsed
            return
    yield from _iter_jsonl_bytes(data)


def _db_has_events(conn, session_id: str) -> bool:
    rows = _query(conn, "SELECT 1 FROM transcript_events WHERE session_id = ? LIMIT 1",
                  (session_id,))
    return any(True for _ in rows)


def _db_session(conn, session_id: str) -> tuple[bool, str | None, datetime | None]:
    """(known, session key, updated) for one sessionId."""
    key = None
    updated = None
    known = False
    for sql in ("SELECT session_key, updated_at FROM session_nodes WHERE current_session_id = ?",
                "SELECT session_key, updated_at FROM session_windows WHERE session_id = ?",
                "SELECT session_key, created_at FROM session_transcript_archives "
                "WHERE session_id = ? ORDER BY created_at DESC"):
        for row_key, row_updated in _query(conn, sql, (session_id,)):
            known = True
            key = key or row_key
            updated = updated or _from_ms(row_updated)
            break
    if not known:
        known = _db_has_events(conn, session_id)
    return known, key, updated


# Every sessionId with events, walked down the (session_id, seq) key one step a session instead
# of grouping every event of the history
_EVENT_SESSIONS = """
WITH RECURSIVE ids(sid) AS (
  SELECT MIN(session_id) FROM transcript_events
  UNION ALL
  SELECT (SELECT MIN(session_id) FROM transcript_events WHERE session_id > ids.sid)
  FROM ids WHERE ids.sid IS NOT NULL)
SELECT sid FROM ids WHERE sid IS NOT NULL"""


def _db_refs(agent_id: str, db: Path, *, horizon: Horizon | None = None,
             since: datetime | None = None, known: set[str] | None = None
             ) -> Iterator[SessionRef]:
    """Sessions of one 2026.9 database; every sessionId it knows goes to ``known``. With a
    ``horizon``, those it covers are counted in it instead (:func:`_uncovered`)."""
    conn = open_agent_db(db)
    try:
        seen: dict[str, tuple[str | None, object]] = {}  # sessionId -> (key, time in ms)
        for sid, key, updated in _query(
                conn, "SELECT session_id, session_key, updated_at FROM session_windows"):
            seen[sid] = (key, updated)
        for sid, key, updated in _query(
                conn, "SELECT session_id, session_key, MAX(created_at) "
                      "FROM session_transcript_archives GROUP BY session_id"):
            seen.setdefault(sid, (key, updated))
        # with neither a window nor an archive, a session's time is its latest event's
        for sid in [sid for (sid,) in _query(conn, _EVENT_SESSIONS) if sid not in seen]:
            for (updated,) in _query(conn, "SELECT MAX(created_at) FROM transcript_events "
                                           "WHERE session_id = ?", (sid,)):
                seen[sid] = (None, updated)
        for sid, key in _query(conn, "SELECT current_session_id, session_key FROM session_nodes"):
            if sid in seen and seen[sid][0] is None:
                seen[sid] = (key, seen[sid][1])
    finally:
        conn.close()
    if known is not None:
        known.update(seen)
    swept = horizon.of(agent_id) if horizon is not None else None
    if swept is not None:
        seen, covered = _uncovered(seen, swept, since, horizon.unsettled)
        horizon.covered += covered
    for sid, (key, updated) in seen.items():
        yield SessionRef(agent_id, sid, key, "2026.9", db, _from_ms(updated))


def _uncovered(seen: dict[str, tuple], swept: datetime, since: datetime | None,
               unsettled: Container[str]) -> tuple[dict[str, tuple], int]:
    """(``seen`` without the sessions ``swept`` covers, how many of those ``since`` keeps).

    Covered: a session whose time is a whole positive number of milliseconds at or before
    ``swept`` (as :func:`._from_ms` reads it, to the millisecond) and which is not
    ``unsettled``; compared as integers, no datetime made."""
    last = _micros(swept) // 1000  # the last millisecond at or before it
    first = None if since is None else -(-_micros(since) // 1000)  # the first at or after
    kept: dict[str, tuple] = {}
    covered = 0
    for sid, row in seen.items():
        ms = row[1]
        if type(ms) is int and 0 < ms <= last and sid not in unsettled:
            if first is None or ms >= first:
                covered += 1
        else:
            kept[sid] = row
    return kept, covered


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def _read_db_segments(ref: SessionRef, after: str | None) -> list[Segment]:
    conn = open_agent_db(ref.path)
    try:
        segmenter = _Segmenter(ref.session_id, after, says_owner=True)  # 2026.9
        if _feed_live_events(conn, ref.session_id, segmenter):
            # a session no key points at any more (rolled over, deleted) has ended
            current = any(True for _ in _query(
                conn, "SELECT 1 FROM session_nodes WHERE current_session_id = ? LIMIT 1",
                (ref.session_id,)))
            return segmenter.finish(closed=not current)
        # the live events are gone: read the reset/deleted generations kept as archives
        _feed_archives(conn, ref.session_id, segmenter)
        return segmenter.finish(closed=True)
    finally:
        conn.close()


def _feed_live_events(conn, session_id: str, segmenter: _Segmenter) -> int:
    """Feed the session's ``transcript_events`` rows, in order; how many there were."""
    live = 0
    for event_json, event_zstd in _query(
            conn, "SELECT event_json, event_zstd FROM transcript_events "
                  "WHERE session_id = ? ORDER BY seq", (session_id,)):
        live += 1
        segmenter.feed(_event_of_row(event_json, event_zstd))
    return live


def _feed_archives(conn, session_id: str, segmenter: _Segmenter) -> None:
    """Feed the session's archived generations (reset/deleted, then cold), each a closed
    segment."""
    for blob, encoding in _query(
            conn, "SELECT archive_blob, encoding FROM session_transcript_archives "
                  "WHERE session_id = ? ORDER BY created_at, generation", (session_id,)):
        for event in _blob_events(blob, encoding):
            segmenter.feed(event)
        segmenter.close(closed=True)
    for (blob,) in _query(
            conn, "SELECT archive_blob FROM session_transcript_cold_archives "
                  "WHERE session_id = ? AND archive_blob IS NOT NULL", (session_id,)):
        for event in _blob_events(blob, None):
            segmenter.feed(event)
        segmenter.close(closed=True)
