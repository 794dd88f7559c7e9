"""File-system primitives: private directories, the directory lock, atomic writes, and the
one rule for opening a file zettelclaw reads: only a regular file, never blocking on a FIFO;
for its own files (log.jsonl, subjects.json, state.json, MEMORY.md) not through a symlink
either. OpenClaw's files (its ``.env``, config, credential store, transcripts) are read through
a symlink, as OpenClaw reads them (``follow=True``).

Imports stay light: ``zettelclaw handoff`` (run before every prompt) opens its files here.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISLNK, "a symlink"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refuse(path, what: str):
    from .errors import RefusedFile

    return RefusedFile(f"refused: {path} is {what}, not a regular file; "
                       "move it aside (zettelclaw never reads or writes through it)")


def _not_a_directory(path):
    from .errors import RefusedFile

    return RefusedFile(f"refused: {path} is a file, where a directory should be")


def check_regular(path, *, follow: bool = False) -> bool:
    """True when ``path`` is a regular file, False when it does not exist; raises
    :class:`~zettelclaw.errors.RefusedFile` for a symlink (unless ``follow``), FIFO, directory
    or device."""
    try:
        mode = (os.stat if follow else os.lstat)(path).st_mode
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise _not_a_directory(os.path.dirname(os.fspath(path))) from None
    if not stat.S_ISREG(mode):
        raise _refuse(path, _kind(mode))
    return True


def open_fd(path, flags: int = os.O_RDONLY, mode: int = FILE_MODE, *,
            follow: bool = False) -> int:
    """``os.open`` of a state file, refusing anything but a regular file.

    ``O_NOFOLLOW`` refuses a symlink (unless ``follow``), ``O_NONBLOCK`` keeps a FIFO from
    blocking the open, and ``fstat`` checks what was opened. A missing file raises
    FileNotFoundError as ``open`` does.
    """
    nofollow = 0 if follow else os.O_NOFOLLOW
    try:
        fd = os.open(path, flags | nofollow | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
            check_regular(path, follow=follow)  # says what it is
        raise
    try:
        st_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(st_mode):
            raise _refuse(path, _kind(st_mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_read(path, *, follow: bool = False):
    """A binary file object for reading a file (see :func:`open_fd`)."""
    return os.fdopen(open_fd(path, follow=follow), "rb")


def read_bytes(path, *, follow: bool = False, limit: int = -1) -> bytes | None:
    """The whole of a file (its first ``limit`` bytes), or None when it does not exist."""
    try:
        fh = open_read(path, follow=follow)
    except FileNotFoundError:
        return None
    with fh:
        return fh.read(limit)


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0700 if missing."""
    if path.is_dir():
        return path
    if os.path.islink(path):
        from .errors import RefusedFile

        raise RefusedFile(f"refused: {path} is a symlink to {os.readlink(path)}, which does "
                          "not exist; create that directory or remove the link")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        os.chmod(path, DIR_MODE)
    except (FileExistsError, NotADirectoryError):
        from .errors import RefusedFile

        raise RefusedFile(f"refused: {path} should be a directory, and a file is in the way"
                          ) from None
    return path


class dir_lock:  # noqa: N801  (used as a function: `with dir_lock(path):`)
    """Hold an exclusive flock on directory ``path``.

    This is the one lock for writes to log.jsonl, subjects.json and state.json: it lives on the
    directory itself, so it adds no file and survives the log being replaced by rename. (A class
    rather than a contextlib generator: this module is on the per-prompt handoff's path.)
    """

    def __init__(self, path: Path, timeout: float = 60.0):
        self.path, self.timeout, self.fd = path, timeout, None

    def __enter__(self):
        import fcntl  # (here: the per-turn commands that import this module take no lock)
        import time

        from .errors import LockTimeout

        ensure_private_dir(self.path)
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise _lock_refused(self.path, exc) from None
                    if time.monotonic() > deadline:
                        raise LockTimeout(
                            f"{self.path} is locked by another zettelclaw process") from None
                    time.sleep(0.005)
            _remove_stale_temp_files(self.path)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return None

    def __exit__(self, *exc_info) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the lock


def _lock_refused(path, exc: OSError) -> Exception:
    """The error for a flock refused with ``exc``: :class:`NoLocks` (what to do) when the
    filesystem has no locks, else ``exc`` itself."""
    from .errors import NO_LOCK_ERRNOS, NoLocks

    if errno.errorcode.get(exc.errno) in NO_LOCK_ERRNOS:
        return NoLocks(path, exc.strerror or errno.errorcode[exc.errno])
    return exc


def can_lock(path: Path) -> str | None:
    """None when directory ``path`` can be locked (or is busy: locked by another process),
    else why not (doctor's check)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        return exc.strerror or str(exc)
    finally:
        os.close(fd)
    return None


def _remove_stale_temp_files(directory: Path) -> None:
    """Temp files of a writer that was killed mid-write. The writers of the lock's own files
    hold it while their temp file exists, so whatever we find while holding it is stale; but
    one whose name carries the pid of a live process (:func:`_temp_copy`: purge replacing
    hooks.log or brief.log, which the plugin appends to without the lock) is that writer's,
    and stays."""
    import contextlib

    with contextlib.suppress(OSError):
        for name in os.listdir(directory):
            if name.startswith(".") and name.endswith(".tmp"):
                parts = name[1:-4].rsplit(".", 2)
                if len(parts) == 3 and parts[1].isdigit() and pid_alive(int(parts[1])):
                    continue
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, name))


def atomic_write(path: Path, data: bytes | str, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory, fsync and rename.

    The file keeps its existing mode; a new file gets ``mode`` (default 0600). A ``path`` that
    is a symlink, FIFO or directory is refused, never replaced.
    """

    check_regular(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if mode is None:
        try:
            mode = os.lstat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = FILE_MODE
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    tmp = _temp_copy(path, data, mode)
    with _unlinked_on_failure(tmp):
        os.replace(tmp, path)
    fsync_dir(directory)


class _unlinked_on_failure:  # noqa: N801 - used as a `with` statement, read like a function
    """The temp file goes if anything fails (even a signal) before the rename took it. (A
    class, not a contextlib generator: this module is on the per-prompt handoff's path.)"""

    def __init__(self, tmp: str):
        self.tmp = tmp

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is not None:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
        return False  # the failure goes on


def _temp_copy(path: Path, data: bytes, mode: int) -> str:
    """``data`` written and synced to a temp file beside ``path`` (its name carries our pid,
    see :func:`_remove_orphaned_temp_files`), with ``mode``; returns the temp file's path."""
    import contextlib
    import tempfile

    _remove_orphaned_temp_files(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                               dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def compare_and_swap(path: Path, data: bytes, expected: bytes, mode: int | None = None) -> bool:
    """Replace ``path`` with ``data`` (as :func:`atomic_write`) only if it still holds
    ``expected`` (``b""``: missing or empty), or ``expected`` followed by bytes appended since;
    False, leaving it alone, when it was changed any other way (rewritten, truncated, replaced).

    For a file someone appends to without a lock (a person, OpenClaw's dreaming): whatever was
    appended to the old file is appended to the new one after the rename, so ``data`` should
    keep the end of ``expected`` as its own end (MEMORY.md's text after the briefing does).
    The check runs after the temp file is written and synced, right before the rename, on the
    very inode the rename replaces; the appended bytes are read from that inode a moment after
    the rename, so a line written between the check and the rename, or by a writer that opened
    the file just before it, is carried over too. A rename cannot be atomic against an
    appender: only a writer that holds the old file open and writes to it later than that
    moment still writes into the replaced file.
    """
    import time

    check_regular(path)
    try:
        old = open_fd(path)
    except FileNotFoundError:
        old = None
    try:
        old_stat = os.fstat(old) if old is not None else None
        if mode is None:
            mode = stat.S_IMODE(old_stat.st_mode) if old_stat else FILE_MODE
        if not _starts_with(old, expected):
            return False  # changed already: no need to write the temp file
        directory = path.parent
        tmp = _temp_copy(path, data, mode)
        with _unlinked_on_failure(tmp):
            try:  # the check, as close to the rename as it can be
                now = os.lstat(path)
            except FileNotFoundError:
                now = None
            same = (now is None and old_stat is None) or (
                now is not None and old_stat is not None and now.st_ino == old_stat.st_ino
                and now.st_dev == old_stat.st_dev and _starts_with(old, expected))
            if not same:
                os.unlink(tmp)
                return False
            os.replace(tmp, path)
        fsync_dir(directory)
        if old is not None:
            time.sleep(0.001)  # a writer that opened the old file just before the rename
            late = _read_fd(old, len(expected))
            if late:
                fd = open_fd(path, os.O_WRONLY | os.O_APPEND)
                try:
                    os.write(fd, late)
                    os.fsync(fd)
                finally:
                    os.close(fd)
        return True
    finally:
        if old is not None:
            os.close(old)


def _starts_with(fd: int | None, expected: bytes) -> bool:
    """Whether the file open as ``fd`` (none: missing, as empty) begins with ``expected``."""
    if fd is None:
        return not expected
    if os.fstat(fd).st_size < len(expected):
        return False
    got, at = [], 0
    while at < len(expected):
        chunk = os.pread(fd, len(expected) - at, at)
        if not chunk:
            return False
        got.append(chunk)
        at += len(chunk)
    return b"".join(got) == expected


def _read_fd(fd: int | None, offset: int) -> bytes:
    """Everything from ``offset`` to the end of the file open as ``fd`` (b"" without one)."""
    if fd is None:
        return b""
    chunks = []
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _remove_orphaned_temp_files(path: Path) -> None:
    """Temp files of ``path`` left by an :func:`atomic_write` that was killed (SIGKILL, power
    loss) before its rename. Their names carry the writer's pid: a file whose writer is gone
    is removed; one whose writer still runs is that writer's, and stays."""
    import contextlib

    prefix, suffix = f".{path.name}.", ".tmp"
    with contextlib.suppress(OSError):
        for name in os.listdir(path.parent):
            if not (name.startswith(prefix) and name.endswith(suffix)):
                continue
            pid = name[len(prefix):].partition(".")[0]
            if pid.isdigit() and not pid_alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(path.parent / name)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` (on this host) still runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    except OSError:
        return False
    return True


def fsync_dir(directory: Path) -> None:
    import contextlib

    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
