"""The log's collection statistics kept between turns: ``rank-stats.json`` beside the log.

BM25 needs N (the log's lines) and each field's average length in words. On a small log they
were counted from every line on every query, which made each turn cost a parse of the whole
log (on a year of use, most of ``recall``'s and ``search``'s time). The log is append-only, so
the counts for its first ``size`` bytes stay true while those bytes stay: the file keeps them,
and a query counts only the lines appended since.

The file holds counts only (no word of any entry): ``inode`` and ``size`` of the log they
describe, ``crc`` (CRC-32 of the ``CHECK`` bytes before ``size``), ``lines``, ``entries`` and
per field the total of its lengths. A reader trusts it only when the log has that inode, is at
least that long and those bytes have that CRC; anything else (a log rewritten by ``subjects
rename`` or ``purge``, truncated, replaced) counts the whole log again, as before. It is only a
cache: deleting it changes no answer, and ``purge`` deletes it.

It is stored under the directory lock, taken only if free at once (a turn never waits), with
the log's inode checked again under it, by temp file and rename: a purge or a rewrite holding
the lock cannot interleave, and a reader never sees half a file.
"""

from __future__ import annotations

import os

from .bm25 import FIELDS

CACHE_FILE = "rank-stats.json"
INDEX_FILE = "rank-index.bin"  # .index.CACHE_FILE (dropped with the counts)
CHECK = 256             # bytes before the counted end whose CRC must match
STORE_AFTER = 16 << 10  # store again once this much log lies beyond the kept counts
_VERSION = 1


class Counted:
    """Whole lines counted: how far (``size``), lines, entries and field length totals."""

    def __init__(self, size: int = 0, lines: int = 0, entries: int = 0, totals=None):
        self.size, self.lines, self.entries = size, lines, entries
        self.totals: dict[str, int] = dict(totals) if totals else dict.fromkeys(FIELDS, 0)


def cache_path(log_path) -> str:
    return os.path.join(os.path.dirname(os.fspath(log_path)) or ".", CACHE_FILE)


def _crc(data: bytes) -> int:
    import zlib

    return zlib.crc32(data)


def _parse(raw: bytes) -> dict[str, int] | None:
    """The file's one object of whole numbers, as :func:`_store` writes it (read without a
    JSON module: ``handoff``, which holds the light parser, drops this file on a rewrite)."""
    text = raw.decode("ascii").strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    data = {}
    for pair in text[1:-1].split(","):
        key, colon, value = pair.partition(":")
        if not colon or len(key) < 2 or key[0] != '"' or key[-1] != '"' \
                or not (value.isascii() and value.isdigit()):
            return None
        data[key[1:-1]] = int(value)
    return data


def _read(path: str, inode: int) -> Counted | None:
    from ..fsutil import read_bytes

    try:
        raw = read_bytes(path, limit=4096)
        data = _parse(raw) if raw else None
    except Exception:  # noqa: BLE001 - unreadable, refused or not ours: count again
        return None
    if data is None or data.get("version") != _VERSION or data.get("inode") != inode:
        return None
    numbers = [data.get(name) for name in ("size", "crc", "lines", "entries", *FIELDS)]
    if not all(isinstance(n, int) for n in numbers):
        return None
    found = Counted(data["size"], data["lines"], data["entries"],
                    {name: data[name] for name in FIELDS})
    found.crc = data["crc"]
    return found


def _holds(fd: int, kept: Counted, size: int) -> bool:
    """Whether the log (``fd``, ``size`` bytes) still starts with the bytes ``kept`` counted."""
    if kept.size > size:
        return False
    if kept.size == 0:
        return True
    start = max(0, kept.size - CHECK)
    return _crc(os.pread(fd, kept.size - start, start)) == kept.crc


def count_log(path, fd: int, size: int, count_lines, data: bytes | None = None) -> Counted:
    """N, entries and field length totals of the log open at ``fd`` (``size`` bytes), all of
    it, a partial last line included (it counts as a line, as it always did); from the kept
    counts plus the lines appended since when they hold. ``count_lines(block, counted)`` adds a
    block of lines to ``counted``. ``data``: the log's bytes, when the caller has read them."""
    inode = os.fstat(fd).st_ino
    where = cache_path(path)
    kept = _read(where, inode)
    if kept is None or not _holds(fd, kept, size):
        kept = Counted()
    start = kept.size
    tail = data[start:size] if data is not None else os.pread(fd, size - start, start)
    stop = tail.rfind(b"\n") + 1  # whole lines: what may be kept
    whole = Counted(kept.size, kept.lines, kept.entries, kept.totals)
    if stop:
        count_lines(tail[:stop], whole)
        whole.size = start + stop
    if stop >= STORE_AFTER or (stop and start == 0):
        n = min(CHECK, whole.size)
        _store(where, path, inode, whole, _crc(os.pread(fd, n, whole.size - n)))
    if stop < len(tail):  # a last line still being written, or one without its newline
        partial = Counted(whole.size, whole.lines, whole.entries, whole.totals)
        count_lines(tail[stop:], partial)
        return partial
    return whole


def _store(where: str, log_path, inode: int, counted: Counted, crc: int) -> None:
    """Write the counts if the directory lock is free right now and the log is still the one
    counted; any failure leaves the cache as it was (or absent)."""
    text = ("{" + f'"version":{_VERSION},"inode":{inode},"size":{counted.size},"crc":{crc},'
            f'"lines":{counted.lines},"entries":{counted.entries},'
            + ",".join(f'"{name}":{counted.totals[name]}' for name in FIELDS) + "}\n")
    _put(where, log_path, inode, text.encode(), CACHE_FILE)


def _put(where: str, log_path, inode: int, payload: bytes, name: str) -> None:
    """Write ``payload`` to ``where`` (temp file ``.name.PID.tmp`` and rename) if the directory
    lock is free right now, the log still has ``inode`` and nothing but a regular file is in
    the way; any failure leaves the file as it was (or absent)."""
    import fcntl

    directory = os.path.dirname(where) or "."
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(log_path).st_ino != inode or not _replaceable(where):
            return
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(out, view):]
        finally:
            os.close(out)
        os.replace(tmp, where)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    finally:
        os.close(fd)


def _replaceable(where: str) -> bool:
    """A regular file or nothing: a symlink, FIFO or directory in its place is left alone."""
    import stat

    try:
        return stat.S_ISREG(os.lstat(where).st_mode)
    except FileNotFoundError:
        return True


def drop(log_dir) -> None:
    """Delete the kept counts and the kept index (:mod:`.index`, which holds words of
    entries) (``purge``, ``subjects rename``, under the lock: the next query counts and scans
    again)."""
    for name in (CACHE_FILE, INDEX_FILE):
        try:
            os.unlink(os.path.join(os.fspath(log_dir), name))
        except FileNotFoundError:
            pass
