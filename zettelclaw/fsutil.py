"""File-system primitives: private directories, the directory lock, atomic writes, and the
one rule for opening a state file (log.jsonl, subjects.json, state.json, MEMORY.md): only a
regular file that is not a symlink, never blocking on a FIFO.

Imports stay light: ``zettelclaw handoff`` (run before every prompt) opens its files here.
"""

from __future__ import annotations

import errno
import fcntl
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


def check_regular(path) -> bool:
    """True when ``path`` is a regular file, False when it does not exist; raises
    :class:`~zettelclaw.errors.RefusedFile` for a symlink, FIFO, directory or device."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        raise _not_a_directory(os.path.dirname(os.fspath(path))) from None
    if not stat.S_ISREG(mode):
        raise _refuse(path, _kind(mode))
    return True


def open_fd(path, flags: int = os.O_RDONLY, mode: int = FILE_MODE) -> int:
    """``os.open`` of a state file, refusing anything but a regular file.

    ``O_NOFOLLOW`` refuses a symlink, ``O_NONBLOCK`` keeps a FIFO from blocking the open, and
    ``fstat`` checks what was opened. A missing file raises FileNotFoundError as ``open`` does.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
            check_regular(path)  # says what it is
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


def open_read(path):
    """A binary file object for reading a state file (see :func:`open_fd`)."""
    return os.fdopen(open_fd(path), "rb")


def read_bytes(path) -> bytes | None:
    """The whole of a state file, or None when it does not exist."""
    try:
        fh = open_read(path)
    except FileNotFoundError:
        return None
    with fh:
        return fh.read()


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
                        raise
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


def _remove_stale_temp_files(directory: Path) -> None:
    """Temp files of a writer that was killed mid-write. Every writer of this directory holds
    the lock while its temp file exists, so whatever we find while holding it is stale."""
    import contextlib

    with contextlib.suppress(OSError):
        for name in os.listdir(directory):
            if name.startswith(".") and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, name))


def atomic_write(path: Path, data: bytes | str, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory, fsync and rename.

    The file keeps its existing mode; a new file gets ``mode`` (default 0600). A ``path`` that
    is a symlink, FIFO or directory is refused, never replaced.
    """
    import contextlib
    import tempfile

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
    _remove_orphaned_temp_files(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)


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
