"""The log's collection statistics kept between turns: ``rank-stats.json`` beside the log.

BM25 needs N (the log's lines) and each field's average length in words. On a small log they
were counted from every line on every query, which made each turn cost a parse of the whole
log (on a year of use, most of ``recall``'s and ``search``'s time). The log is append-only, so
the counts for its first ``size`` bytes stay true while those bytes stay: the file keeps them,
and a query counts only the lines appended since.

The file holds counts only (no word of any entry): ``inode`` and ``size`` of the log they
describe, ``crc`` (CRC-32 of its first ``size`` bytes), ``lines``, ``entries`` and
per field the total of its lengths. A reader trusts it only when the log has that inode, is at
least that long and those bytes have that CRC; anything else (a log rewritten by ``subjects
rename`` or ``purge``, truncated, replaced) counts the whole log again, as before. It is only a
cache: deleting it changes no answer, and ``purge`` deletes it.

It is checked and stored as every cache of the log is (:mod:`zettelclaw.logcache`: under the
directory lock taken only if free at once, so a turn never waits; by temp file and rename).
"""

from __future__ import annotations

import os

from ..logcache import RANK_STATS as CACHE_FILE
from ..logcache import crc_upto, holds, store
from .bm25 import FIELDS

STORE_AFTER = 16 << 10  # store again once this much log lies beyond the kept counts
_VERSION = 1


class Counted:
    """Whole lines counted: how far (``size``), lines, entries and field length totals."""

    def __init__(self, size: int = 0, lines: int = 0, entries: int = 0, totals=None):
        self.size, self.lines, self.entries = size, lines, entries
        self.crc = 0  # of the log's first ``size`` bytes, when read from the kept file
        self.totals: dict[str, int] = dict(totals) if totals else dict.fromkeys(FIELDS, 0)


def cache_path(log_path) -> str:
    return os.path.join(os.path.dirname(os.fspath(log_path)) or ".", CACHE_FILE)


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


def count_log(path, fd: int, size: int, count_lines, data: bytes | None = None,
              known: dict[int, int] | None = None) -> Counted:
    """N, entries and field length totals of the log open at ``fd`` (``size`` bytes), all of
    it, a partial last line included (it counts as a line, as it always did); from the kept
    counts plus the lines appended since when they hold. ``count_lines(block, counted)`` adds a
    block of lines to ``counted``. ``data``: the log's bytes, when the caller has read them."""
    inode = os.fstat(fd).st_ino
    where = cache_path(path)
    kept = _read(where, inode)
    if kept is None or not holds(fd, kept, size, known):
        kept = Counted()
    start = kept.size
    tail = data[start:size] if data is not None else os.pread(fd, size - start, start)
    stop = tail.rfind(b"\n") + 1  # whole lines: what may be kept
    whole = Counted(kept.size, kept.lines, kept.entries, kept.totals)
    if stop:
        count_lines(tail[:stop], whole)
        whole.size = start + stop
    if stop >= STORE_AFTER or (stop and start == 0):
        _store(where, path, inode, whole, crc_upto(fd, whole.size, start, kept.crc))
    if stop < len(tail):  # a last line still being written, or one without its newline
        partial = Counted(whole.size, whole.lines, whole.entries, whole.totals)
        count_lines(tail[stop:], partial)
        return partial
    return whole


def _store(where: str, log_path, inode: int, counted: Counted, crc: int) -> None:
    """Write the counts (:func:`..logcache.store`: only if the directory lock is free right now
    and the log is still the one counted)."""
    text = ("{" + f'"version":{_VERSION},"inode":{inode},"size":{counted.size},"crc":{crc},'
            f'"lines":{counted.lines},"entries":{counted.entries},'
            + ",".join(f'"{name}":{counted.totals[name]}' for name in FIELDS) + "}\n")
    store(where, log_path, inode, text.encode())
