"""ripgrep, when there is one: where it is, and the filtered search's pass over the log.

``search --subject X --type decision`` (filters, no words) needs two things from the whole log:
the lines that hold a filter's value and every ``"replaces"`` (which entries are current). Two
``rg`` processes read the log side by side (one prints the lines holding the longest filter
value, with their offsets; the other every ``"replaces"`` and its offset), each into an
anonymous in-memory file rather than a pipe, so neither waits for Python: the hot path
(:mod:`zettelclaw.hot`) starts them before it imports anything else, and picks their output up
when its imports are done. Python reads back only the lines that replace a candidate
(``mmap``). Without rg, :func:`zettelclaw.query.scan` reads the log in Python (twice: bounded
memory).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .resolve import StreamingResolution

# what resolve.StreamingResolution.scan finds (Python's ``\s``: a line holds no \n; an id of 1-200
# characters), without the leading quote, which costs rg its fast literal search (a match that
# is no real "replaces" hides nothing: the resolver parses the line it is on to check)
_WS = r"[ \t\r\x0B\x0C]*"
REPLACES = r'replaces"' + _WS + ":" + _WS + r'"[^"\\]{1,200}"'
_COMPACT = b':replaces":"'
_META = frozenset("\\.+*?()|[]{}^$#&-~")
_COMMON = ("--no-config", "--text", "--no-line-number", "--no-filename", "--color", "never")


def ripgrep() -> str | None:
    """The ``rg`` executable: ZETTELCLAW_RG (``0`` turns it off), PATH, or beside Python."""
    configured = os.environ.get("ZETTELCLAW_RG")
    if configured is not None:
        return None if configured in ("", "0", "off", "no") else configured
    # PATH by hand: shutil costs more to import than this loop (the hot path runs it)
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        found = os.path.join(folder or ".", "rg")
        if os.access(found, os.X_OK) and not os.path.isdir(found):
            return found
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    return beside if os.access(beside, os.X_OK) else None


def escape(text: str) -> str:
    """``text`` as a literal in rg's (Rust) regex syntax."""
    return "".join("\\" + c if c in _META else c for c in text)


class Filtered:
    """A filtered search's rg passes over the log, running side by side: the lines that hold
    every needle (rg on the file for the first, longest one, piped through one rg per other
    needle), and every "replaces" with its offset. :meth:`start` them, do something else
    (import, parse the :meth:`lines`), then take the :meth:`resolution`; or :meth:`kill`.

    Each pass writes into an anonymous in-memory file, not a pipe, so rg never waits for
    Python. The log is opened before rg starts and checked after each pass: rg read that very
    file, or its output is not used (a ``subjects rename`` renamed another over it)."""

    def __init__(self, path, needles: list[bytes], fh):
        self.path, self.needles, self._fh = path, needles, fh
        self._pids: dict[str, list[int]] = {"lines": [], "replaces": []}
        self._outs: dict[str, object] = {}
        self._ended: dict[int, int] = {}  # pid -> wait status, of an rg seen ending by done()

    @classmethod
    def start(cls, path, needles: list[bytes]) -> Filtered | None:
        """The passes for the lines holding every one of ``needles`` (the first one is looked
        for in the file: the most selective, the longest); None without rg, needles or log.
        Imports nothing but ``fsutil``: the hot path runs it before its other imports."""
        rg = ripgrep()
        from .fsutil import check_regular, open_read

        if (not rg or not needles or not all(needles) or not hasattr(os, "posix_spawn")
                or not check_regular(path)):
            return None
        started = cls(path, list(needles), open_read(path))
        try:
            started._run(rg)
        except (OSError, UnicodeEncodeError, ValueError):
            started.kill()
            return None
        return started

    def _run(self, rg: str) -> None:
        log = os.fspath(self.path)
        common = [rg, *_COMMON]
        text = [n.decode("utf-8", "surrogateescape") for n in self.needles]
        self._outs = {"replaces": _scratch(), "lines": _scratch()}
        self._pids["replaces"].append(_spawn(
            [*common, "--byte-offset", "--only-matching", "-e", REPLACES, "--", log],
            self._outs["replaces"].fileno()))
        # the lines holding the first needle, with their offsets; one rg per other needle
        # narrows them, reading the previous one's output through a pipe
        source = None
        for i, needle in enumerate(text):
            last = i == len(text) - 1
            if last:
                read_end, write_end = None, self._outs["lines"].fileno()
            else:
                read_end, write_end = os.pipe()
            try:
                argv = ([*common, "--byte-offset", "--fixed-strings", "-e", needle, "--", log]
                        if source is None else
                        [*common, "--fixed-strings", "-e", needle, "-"])
                self._pids["lines"].append(_spawn(argv, write_end, stdin=source))
            except BaseException:
                if read_end is not None:
                    os.close(read_end)
                raise
            finally:
                if source is not None:
                    os.close(source)  # the rg just started holds it now
                if not last:
                    os.close(write_end)
            source = read_end

    def kill(self) -> None:
        """Stop rg and let go of everything."""
        import signal

        for pids in self._pids.values():
            for pid in pids:
                if pid in self._ended:  # reaped: the pid may be another process's by now
                    continue
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for name in self._pids:
            self._wait(name)
        self._close()

    def _close(self) -> None:
        for out in self._outs.values():
            out.close()
        self._fh.close()

    def _wait(self, name: str) -> bool:
        """Wait for pass ``name``: True when every rg of it ended well (1: nothing matched)."""
        ok = True
        for pid in self._pids[name]:
            status = self._ended.pop(pid, None)
            if status is None:
                _, status = os.waitpid(pid, 0)
            ok = os.waitstatus_to_exitcode(status) in (0, 1) and ok
        self._pids[name] = []
        return ok

    def _output(self, name: str) -> bytes | None:
        """Pass ``name``'s output once it is done; None when rg failed or the log was
        replaced meanwhile."""
        if not self._wait(name):
            return None
        try:
            now = os.stat(self.path)
        except OSError:
            return None
        before = os.fstat(self._fh.fileno())
        if (now.st_ino, now.st_dev) != (before.st_ino, before.st_dev):
            return None
        out = self._outs[name]
        out.seek(0)
        return out.read()

    def lines(self) -> list[tuple[int, bytes]] | None:
        """``(offset, raw line)`` of every line holding every needle, oldest first (waits for
        that pass only); None when it failed."""
        found = self._output("lines")
        if found is None:
            return None
        out = []
        for row in found.split(b"\n"):
            offset, colon, line = row.partition(b":")
            if colon:
                out.append((int(offset), line))
        return out

    def done(self) -> bool:
        """Whether the "replaces" pass has ended (without waiting for it)."""
        for pid in self._pids["replaces"]:
            if pid not in self._ended:
                ended, status = os.waitpid(pid, os.WNOHANG)
                if not ended:
                    return False
                self._ended[pid] = status
        return True

    def resolution(self) -> StreamingResolution | None:
        """The replacement resolution over the whole log (waits for the "replaces" pass, then
        lets go of rg's output); None when it failed."""
        named = self._output("replaces")
        data = None
        if named:
            import mmap

            # the file rg read, to check the lines that replace a candidate
            try:
                data = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # emptied meanwhile
                named = None
        self._close()
        if named is None:
            return None
        from .resolve import StreamingResolution

        return StreamingResolution(self.path, Named(named), data=data)


def _scratch():
    """Where one pass writes: an anonymous file in memory (Linux), else a temporary file. A
    file, not a pipe: rg never waits for the reader, who may still be importing."""
    memfd = getattr(os, "memfd_create", None)
    if memfd is not None:
        try:
            return os.fdopen(memfd("zettelclaw-rg"), "w+b")
        except OSError:
            pass
    import tempfile

    return tempfile.TemporaryFile()


def _spawn(argv: list[str], stdout: int, stdin: int | None = None) -> int:
    """Start ``argv`` writing into ``stdout``, reading ``stdin`` (else /dev/null), its stderr
    on /dev/null; no ``subprocess``: its import alone costs more than rg's start."""
    actions = [(os.POSIX_SPAWN_DUP2, stdin, 0) if stdin is not None else
               (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, stdout, 1),
               (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)


class Named:
    """Where each id is named by a "replaces", from rg's ``offset:replaces":"id"`` lines: the
    mapping ``resolve.StreamingResolution`` asks (``id in named``, ``named.get(id, [])``),
    built with C-speed splits rather than a Python loop over every line. Keys are the ids'
    bytes followed by their closing quote."""

    def __init__(self, out: bytes):
        rows = out.count(b"\n")
        parts = out.replace(_COMPACT, b"\n").split(b"\n")
        if len(parts) == 2 * rows + 1:  # every line in the log's compact form
            offsets, ids = parts[0:2 * rows:2], parts[1:2 * rows:2]
        else:  # a hand-written line with spaces around the colon
            import re

            pairs = re.findall(rb'(?m)^(\d+):replaces"[^:\n]*:[^"\n]*"(.*)$', out)
            offsets, ids = [p[0] for p in pairs], [p[1] for p in pairs]
        self.last = dict(zip(ids, offsets, strict=True))
        self.more: dict[bytes, list[bytes]] = {}
        if len(self.last) < len(ids):  # an id named more than once (a forked log)
            for name, at in zip(ids, offsets, strict=True):
                self.more.setdefault(name, []).append(at)

    def __contains__(self, entry_id: str) -> bool:
        return entry_id.encode("utf-8", "surrogateescape") + b'"' in self.last

    def get(self, entry_id: str, default=None):
        key = entry_id.encode("utf-8", "surrogateescape") + b'"'
        if key in self.more:
            return [int(at) for at in self.more[key]]
        at = self.last.get(key)
        return [int(at)] if at is not None else default
