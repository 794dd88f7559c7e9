"""Caches derived from the log, kept beside it: stored only under the directory lock.

A cache of the log (``rank-stats.json``, ``brief-rows.json``) describes the log's first bytes
and is trusted only while the log still starts with them (:mod:`zettelclaw.rank.kept`'s check:
the inode, the size, a CRC of the bytes before it). :func:`store` is the one way such a file
is written: only if the directory lock is free at once (a reader never waits), only while the
log is still the file that was read (a purge or a rewrite holding the lock cannot interleave),
only over a regular file or nothing, and by temp file and rename, so a reader never sees half
a file. Any failure leaves the cache as it was, or absent.
"""

from __future__ import annotations

import os

BRIEF_ROWS = "brief-rows.json"  # the briefing's rows (:mod:`zettelclaw.briefing.rows`)


def store(where: str, log_path, inode: int, data: bytes) -> bool:
    """Write ``data`` to ``where`` as described above; returns whether it was written."""
    import fcntl

    from .rank.kept import _replaceable

    directory = os.path.dirname(where) or "."
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    tmp = os.path.join(directory, f".{os.path.basename(where)}.{os.getpid()}.tmp")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(log_path).st_ino != inode or not _replaceable(where):
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


def drop(log_dir, name: str) -> None:
    """Delete the cache ``name`` in ``log_dir`` (the caller holds the lock: a purge or a
    rewrite of the log)."""
    try:
        os.unlink(os.path.join(os.fspath(log_dir), name))
    except FileNotFoundError:
        pass
