"""Caches derived from the log, kept beside it: checked against it on every read, written
only under the directory lock, deleted whenever the log is rewritten.

Four files describe the log's first bytes (``rank-stats.json``: the ranker's counts,
``rank-index.bin``: its words, ``brief-rows.json``: the briefing's rows,
``brief-digest.json``: the briefing's history folded). The log is
append-only, so what they say of its first ``size`` bytes stays true while those bytes stay: a
reader trusts one only while the log has the inode it was made for, is at least ``size`` long
and its first ``size`` bytes, all of them, have the CRC it kept (:func:`holds`); anything else
(a log rewritten by ``subjects rename`` or ``purge``, truncated, replaced, or edited by hand
anywhere, even keeping its size and inode: ``sed ... > x && cp x log.jsonl``) is read whole
again. The CRC of the whole described part is the one sure check (a stat key misses an edit
within one tick of the file system's clock, or by a tool that puts the time back): 0.8 ms of
CPU for the 2.9 MB of a year of log (bench/synth.py's 10,000 entries), once a turn (the
ranker's two caches share one pass: ``known`` in :func:`holds`; they are kept for a log of
at most 4 MB); a cache extended over the lines appended since continues the CRC it checked
(:func:`crc_upto`), so no byte is read twice for it.

:func:`store` is the one way such a file is written: only if the directory lock is free at once
(a reader never waits), only beside the zettelclaw home's own log, only while the log is still
the file that was read (a purge or a rewrite holding the lock cannot interleave), only over a
regular file or nothing (a symlink, FIFO or directory in its place is left alone), by temp file
and rename, so a reader never sees half a file. Any failure leaves the cache as it was, or
absent. :func:`drop` deletes them all: whatever rewrites the log calls it under its lock.
Deleting any of them changes no answer.

Light on purpose (``os`` only at import): the per-turn commands use it.
"""

from __future__ import annotations

import os

RANK_STATS = "rank-stats.json"  # :mod:`zettelclaw.rank.kept`
RANK_INDEX = "rank-index.bin"   # :mod:`zettelclaw.rank.index` (words of entries)
BRIEF_ROWS = "brief-rows.json"  # :mod:`zettelclaw.briefing.rows`
BRIEF_DIGEST = "brief-digest.json"  # :mod:`zettelclaw.briefing.digest`
CACHES = (RANK_STATS, RANK_INDEX, BRIEF_ROWS, BRIEF_DIGEST)
# read this much at a time for the CRC, into one buffer (a log of any size, little memory):
# a fresh 1 MB bytes object per read cost a year's log (2.9 MB) 1 ms more a turn, in page
# faults and cache misses, than a 256 KB buffer read into again
_CHUNK = 1 << 18


def crc_upto(fd: int, end: int, start: int = 0, crc: int = 0) -> int:
    """CRC-32 of the first ``end`` bytes of the file ``fd``, continuing ``crc``, the CRC of
    its first ``start`` bytes (0 for none): what a cache keeps of the bytes it describes."""
    import zlib

    buffer = memoryview(bytearray(min(_CHUNK, max(end - start, 0))))
    while start < end:
        got = os.preadv(fd, [buffer[:end - start]], start)
        if not got:
            break  # shorter than ``end``: the CRC cannot match a kept one of ``end`` bytes
        crc = zlib.crc32(buffer[:got], crc)
        start += got
    return crc


def holds(fd: int, kept, size: int, known: dict[int, int] | None = None) -> bool:
    """Whether the log (``fd``, ``size`` bytes) still starts with the bytes a cache describes
    (``kept.size`` bytes, all of them of CRC ``kept.crc``). ``known``: the CRCs of this open
    log's first bytes computed so far (end -> CRC), for a reader checking two caches (the
    ranker's counts and words): the second continues the first's CRC."""
    if kept.size > size:
        return False
    if kept.size == 0:
        return True
    if known is None:
        return crc_upto(fd, kept.size) == kept.crc
    if kept.size not in known:
        start = max((end for end in known if end <= kept.size), default=0)
        known[kept.size] = crc_upto(fd, kept.size, start, known.get(start, 0))
    return known[kept.size] == kept.crc


def replaceable(where: str) -> bool:
    """A regular file or nothing: a symlink, FIFO or directory in its place is left alone."""
    import stat

    try:
        return stat.S_ISREG(os.lstat(where).st_mode)
    except FileNotFoundError:
        return True


def beside_home(log_path) -> bool:
    """Whether ``log_path`` is the zettelclaw home's own log: a cache is kept nowhere else (a
    log read with ``--log``, an export, a copy get none beside them)."""
    from . import paths

    path = os.fspath(log_path)
    try:
        return os.path.basename(path) == paths.LOG_FILE and os.path.samefile(
            os.path.dirname(path) or ".", os.path.dirname(paths.log_file()))
    except OSError:
        return False


def store(where: str, log_path, inode: int, data: bytes) -> bool:
    """Write ``data`` to ``where`` as described above, only beside the home's own log
    (:func:`beside_home`); returns whether it was written."""
    import fcntl

    if not beside_home(log_path):
        return False
    directory = os.path.dirname(where) or "."
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    tmp = os.path.join(directory, f".{os.path.basename(where)}.{os.getpid()}.tmp")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(log_path).st_ino != inode or not replaceable(where):
            return False
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
        finally:
            os.close(out)
        os.replace(tmp, where)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    finally:
        os.close(fd)


def drop(log_dir) -> None:
    """Delete every cache of the log in ``log_dir`` (the caller holds the lock: a purge or a
    rewrite of the log; the next reader counts, scans and reads again)."""
    for name in CACHES:
        try:
            os.unlink(os.path.join(os.fspath(log_dir), name))
        except FileNotFoundError:
            pass
