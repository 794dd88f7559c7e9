"""The log as the briefing reads it, kept between nights: ``brief-rows.json`` beside the log.

The briefing picks and ranks from every line of the log (a replaced line is still activity),
but shows at most ``maxLines`` texts. Per line it needs what picks and ranks only: the id, type,
subject, status, time (as a sortable key), agent, what the line replaces, a purge tombstone's
``purged``, whether it is `zettelclaw review`'s bookkeeping, and ``_at``, the byte where the
line starts. The file keeps exactly that for every entry and record (forget, undo, tombstone)
of the log's first ``size`` bytes, and no entry's text: a text shown is read from the log by
its offset (:func:`zettelclaw.log.line_at`) and checked to be the same entry. So a brief
parses the lines appended since the rows were kept (kept again once ``STORE_AFTER`` bytes of
them pile up) and the few texts it shows, not the log. Most nights it does not read these rows
either: the history they make is digested (:mod:`.digest`), and the rows are read when the
digest cannot be used (a forget since, a window reaching before it, another briefing).

It is trusted as ``rank-stats.json`` is (:mod:`zettelclaw.rank.kept`): only while the log has
the inode it names, is at least ``size`` bytes long and the bytes before ``size`` have its CRC.
A log rewritten (``purge``, ``subjects rename``), truncated or replaced is read whole again,
as is a log whose line at a kept offset is not the kept entry. It is only a cache: deleting it
changes no briefing; ``purge`` and every rewrite of the log delete it. It is written only
beside the zettelclaw home's own log, through :func:`zettelclaw.logcache.store`.
"""

from __future__ import annotations

import os

import orjson

from ..clock import is_plain, sort_key
from ..logcache import BRIEF_ROWS as CACHE_FILE
from ..review import SESSION as REVIEW_SESSION

_VERSION = 2  # 2: rows hold person and origin (zettelclaw.people); subjects in NFC
STORE_AFTER = 16 << 10  # keep the rows again once this much log lies beyond them
_KEYS = ("id", "type", "subject", "status", "replaces", "agent", "purged", "person", "origin")


class Moved(Exception):
    """The line at a kept offset is not the kept entry: the cache is not to be trusted."""


def light(obj: dict, at: int) -> dict:
    """What the briefing reads of a line (``obj``, starting at byte ``at``): no text."""
    row = {"_at": at}
    for key in _KEYS:
        value = obj.get(key)
        if value is not None:
            row[key] = value
    ts = obj.get("timestamp")
    ts = ts if is_plain(ts) else (sort_key(ts) or None)
    if ts is not None:
        row["timestamp"] = ts
    if obj.get("session") == REVIEW_SESSION:
        row["session"] = REVIEW_SESSION
    return row


class Rows:
    """Every entry and record of the log, oldest first: kept ones without their text (read
    back with :meth:`full`), the lines appended since parsed whole."""

    def __init__(self, entries: list[dict], data=b"", kept: int = 0, *, rows=None,
                 whole: int = 0, end: int = 0, inode: int = 0, crc: int = 0, bad: int = 0,
                 first_bad: int | None = None):
        self.entries = entries
        self.data = data  # the log's bytes (a map of them): where texts are read from
        self.kept = kept  # entries[:kept] are kept rows (their timestamps sortable keys)
        # the rows of ``entries`` (no text); the first ``whole`` are of the log's whole lines,
        # its first ``end`` bytes (of inode ``inode``, all of them of CRC ``crc``)
        self.rows = rows if rows is not None else []
        self.whole, self.end, self.inode, self.crc = whole, end, inode, crc
        self.bad, self.first_bad = bad, first_bad  # invalid lines among the whole ones

    def full(self, entry: dict) -> dict:
        """``entry`` with its text: as it is when parsed from the log, else its line read
        back by offset (:class:`Moved` when that line is not the entry)."""
        if "content" in entry or "_at" not in entry:
            return entry
        from ..log import line_at

        found = _shown_line(line_at(self.data, entry["_at"]))
        if found is None or found["id"] != entry["id"]:
            raise Moved(entry["id"])
        return found


def cache_path(log_path) -> str:
    return os.path.join(os.path.dirname(os.fspath(log_path)) or ".", CACHE_FILE)


def read(log_path=None, *, trust: bool = True, keep: bool = True) -> Rows:
    """The log's entries and records as :class:`Rows`, from the kept rows plus the lines
    appended since when they hold (``trust``: use them at all), else from every line. With
    ``keep``, the rows are kept again when none were, or once ``STORE_AFTER`` bytes of whole
    lines lie beyond them (writing them costs more than parsing a few lines again). Invalid
    lines are skipped with one warning on stderr, as every reader of the log does (the kept
    ones counted again)."""
    from .. import paths
    from ..fsutil import open_fd
    from ..logcache import beside_home, holds

    path = os.fspath(log_path) if log_path is not None else paths.log_file()
    try:
        fd = open_fd(path)
    except FileNotFoundError:
        return Rows([])
    try:
        info = os.fstat(fd)
        size = info.st_size
        where = cache_path(path)
        kept = _load(where, info.st_ino) if trust else None
        if kept is None or not holds(fd, kept, size):
            kept = _Kept()
        entries = list(kept.rows)
        data, whole, partial, end, crc = _lines_after(fd, size, kept, entries)
        light = kept.rows + whole.rows  # the whole lines': what may be kept
        first_bad = kept.first_bad if kept.first_bad is not None else whole.first_bad
        stop = end - kept.size
        if keep and stop and (stop >= STORE_AFTER or not kept.size) and beside_home(path):
            _store(where, path, info.st_ino, end, crc, light, kept.bad + whole.bad, first_bad)
    finally:
        os.close(fd)
    warn(path, (kept, whole, partial))
    return Rows(entries, data, len(kept.rows), rows=light + partial.rows, whole=len(light),
                end=end, inode=info.st_ino, crc=crc, bad=kept.bad + whole.bad,
                first_bad=first_bad)


class Tail:
    """The lines of the log beyond ``size`` bytes (:func:`beyond`): ``entries`` parsed whole,
    their ``rows``, the first ``whole`` of them whole lines (``end`` bytes of the log)."""

    def __init__(self, data, entries, rows, whole, end, crc, bad):
        self.data, self.entries, self.rows = data, entries, rows
        self.whole, self.end, self.crc, self.bad = whole, end, crc, bad


def beyond(path: str, kept) -> Tail | None:
    """The lines of the log at ``path`` after the first ``kept.size`` bytes, when the log
    still is what ``kept`` describes (its ``inode``, at least ``size`` bytes long, the bytes
    before ``size`` of CRC ``crc``); else None. Invalid lines are counted, not warned of."""

    from ..fsutil import open_fd
    from ..logcache import holds

    try:
        fd = open_fd(path)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        size = info.st_size
        if info.st_ino != kept.inode or not holds(fd, kept, size):
            return None
        entries: list[dict] = []
        data, whole, partial, end, crc = _lines_after(fd, size, kept, entries)
    finally:
        os.close(fd)
    return Tail(data, entries, whole.rows + partial.rows, len(whole.rows), end, crc,
                (whole, partial))


def _lines_after(fd: int, size: int, kept, entries: list[dict]):
    """The log open at ``fd`` (``size`` bytes) mapped, and its lines after the ``kept.size``
    bytes that ``kept`` describes (of CRC ``kept.crc``) parsed into ``entries``: ``(data,
    whole, partial, end, crc)``, ``whole`` the parse of the whole lines, which end at byte
    ``end`` (the first ``end`` bytes of CRC ``crc``: see logcache), ``partial`` of a line still
    being written."""
    import mmap

    from ..logcache import crc_upto

    base = kept.size

    data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if size else b""
    tail = data[base:size]
    stop = tail.rfind(b"\n") + 1
    end = base + stop
    whole = _parse(tail[:stop], base, entries)
    partial = _parse(tail[stop:], end, entries)
    return data, whole, partial, end, crc_upto(fd, end, base, kept.crc)


def warn(path: str, parts) -> None:
    """One warning for the invalid lines counted in ``parts`` (in log order), if any."""
    bad = sum(part.bad for part in parts)
    if bad:
        _warn(path, bad, next(part.first_bad for part in parts if part.first_bad is not None))


class _Kept:
    """The kept rows: of the log's first ``size`` bytes (all of them of CRC ``crc``), with
    the invalid lines among them counted."""

    def __init__(self, size=0, crc=0, rows=None, bad=0, first_bad=None):
        self.size, self.crc, self.rows = size, crc, rows if rows is not None else []
        self.bad, self.first_bad = bad, first_bad


class _Parsed:
    def __init__(self):
        self.rows: list[dict] = []
        self.bad, self.first_bad = 0, None


def _scanned_line(line: bytes):
    """The JSON value of a line read to pick and rank (None: not JSON)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        from ..log import _loads

        return _loads(line)  # (a BOM, a lone surrogate)


def _shown_line(line: bytes) -> dict | None:
    """The entry of a line read back for its text."""
    from ..log import parse_line

    return parse_line(line)


def _parse(block: bytes, base: int, entries: list[dict]) -> _Parsed:
    """Append the entries and records of ``block`` (the log from byte ``base``) to
    ``entries``, parsed whole; their rows and the invalid lines are in the answer."""
    from ..log import is_entry, normal_subject, record_kind

    scanned = _scanned_line
    out = _Parsed()
    at, end = 0, len(block)
    while at < end:
        nl = block.find(b"\n", at)
        nxt = end if nl < 0 else nl + 1
        line = block[at:nxt]
        obj = scanned(line)
        if is_entry(obj) or record_kind(obj) is not None:
            entries.append(normal_subject(obj))
            out.rows.append(light(obj, base + at))
        elif line.strip():
            out.bad += 1
            if out.first_bad is None:
                out.first_bad = base + at
        at = nxt
    return out


def _warn(path: str, bad: int, first_bad: int) -> None:
    from ..counts import count
    from ..log import Log, _warn

    _warn(f"skipped {count(bad, 'invalid line')} in {path} "
          f"(first at line {Log(path)._line_of(first_bad)})")


def _load(where: str, inode: int) -> _Kept | None:
    """The kept rows, if the file is ours, of this inode and in its shape; else None."""
    from ..fsutil import read_bytes

    try:
        raw = read_bytes(where)
        data = orjson.loads(raw) if raw else None
    except Exception:  # noqa: BLE001 - unreadable, refused or not ours: read the log again
        return None
    if not isinstance(data, dict) or data.get("version") != _VERSION \
            or data.get("inode") != inode:
        return None
    size, crc, rows = data.get("size"), data.get("crc"), data.get("rows")
    bad, first_bad = data.get("bad", 0), data.get("firstBad")
    if not (type(size) is int and type(crc) is int and type(rows) is list
            and type(bad) is int and (first_bad is None or type(first_bad) is int)):
        return None
    if not all(type(r) is dict and type(r.get("id")) is str and type(r.get("_at")) is int
               and type(r.get("type")) is str for r in rows):
        return None
    return _Kept(size, crc, rows, bad, first_bad)


def _store(where: str, log_path: str, inode: int, size: int, crc: int, rows: list[dict],
           bad: int, first_bad: int | None) -> None:
    from ..logcache import store

    head = {"version": _VERSION, "inode": inode, "size": size, "crc": crc, "bad": bad}
    if first_bad is not None:
        head["firstBad"] = first_bad
    store(where, log_path, inode, orjson.dumps({**head, "rows": rows}) + b"\n")
