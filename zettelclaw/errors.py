"""The domain errors. Core code raises these; the CLI turns them into one line on stderr.

Exit codes: 0 ok, 1 failure, 2 usage or bad input.
"""


class ZettelclawError(Exception):
    """Something went wrong that the user should hear about in one line."""

    exit_code = 1


class UsageError(ZettelclawError):
    """Bad input from the caller: a malformed slug, an unknown type, a refused path."""

    exit_code = 2


class BadValue(UsageError):
    """An option given a value it does not take (``--type facts``, ``--limit 0``): worded and
    shaped as Click's own (``Invalid value for '--limit' / '-n': ...`` and a ``Try 'zettelclaw
    COMMAND --help'.`` line), whether Click or the core found it."""

    def __init__(self, option: str, value, why: str):
        super().__init__(f"Invalid value for {option}: {value!r} {why}.")


class NotFoundError(ZettelclawError):
    """An entry, session or file that does not exist."""

    exit_code = 1


class GoneError(NotFoundError):
    """An entry that was forgotten (``forget``) or purged: known, but shown nowhere."""

    def __init__(self, entry_id: str, how: str, when: str | None):
        self.entry_id, self.how, self.when = entry_id, how, when
        day = (when or "?")[:10]
        if how == "forgotten":
            message = (f"entry {entry_id} was forgotten on {day}; "
                       f"`zettelclaw forget --undo {entry_id}` brings it back")
        else:
            message = f"entry {entry_id} was purged on {day}"
        super().__init__(message)

    def as_json(self) -> dict:
        return {"id": self.entry_id, self.how: self.when, "error": str(self)}


class ModelError(ZettelclawError):
    """The model could not be reached or answered with something unusable."""

    exit_code = 1


class LockTimeout(ZettelclawError):
    """Another zettelclaw process held the log directory lock for too long."""

    exit_code = 1


class NoLocks(ZettelclawError):
    """The filesystem of the log directory refuses file locks (a network share): every write
    is refused, since none could be made safe beside another process's."""

    exit_code = 1

    def __init__(self, directory, reason: str):
        self.directory = directory
        super().__init__(
            f"cannot lock the log directory {directory}: its filesystem refuses file locks "
            f"({reason}; a network share?), and zettelclaw writes only under its lock. Move "
            "the log directory to a local disk: `openclaw config set "
            "plugins.entries.zettelclaw.config.logDir /a/local/dir` (ZETTELCLAW_HOME or "
            "--home for one shell), then restart the gateway")


# errno names of a filesystem without locks: ENOLCK (NFS without lockd), EOPNOTSUPP/ENOTSUP
# (some FUSE and SMB mounts), ENOSYS
NO_LOCK_ERRNOS = ("ENOLCK", "EOPNOTSUPP", "ENOTSUP", "ENOSYS")


class RefusedFile(ZettelclawError):
    """A state file or MEMORY.md that is a symlink, FIFO, directory or device: never read or
    written through. Exit 1: the files on disk, not the caller's arguments, are wrong."""

    exit_code = 1


MAX_WORD = 120  # an argument echoed in an Error line is cut here: a 100,000-character id
MAX_LINE = 1000  # is not a 100 KB line


def error_line(message: str) -> str:
    """``message`` as the one ``Error:`` line's text: one line, each very long word cut and
    its length said, the whole cut short."""
    words = [w if len(w) <= MAX_WORD else f"{w[:MAX_WORD // 2]}…({len(w)} characters)"
             for w in message.split()]
    line = " ".join(words)
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 1] + "…"


def os_error(exc: OSError) -> ZettelclawError:
    """An OSError (read-only or full disk, permissions...) as one line naming the file."""
    where = f"{exc.filename}: " if exc.filename else ""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return ZettelclawError(f"{where}{reason}")
