"""ripgrep, when there is one: where it is, and the filtered search's single pass over the log.

``search --subject X --type decision`` (filters, no words) needs two things from the whole log:
the lines that hold a filter's value and every ``"replaces"`` (which entries are current). One
``rg`` process yields both; Python reads back only the candidate lines (``mmap``). Without rg,
:func:`zettelclaw.query.scan` reads the log in Python (twice: bounded memory).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from .resolve import StreamingResolution

# what resolve.StreamingResolution.scan finds (Python's ``\s``: a line holds no \n; an id of 1-200
# characters), without the leading quote, which costs rg its fast literal search (a match that
# is no real "replaces" hides nothing: the resolver parses the line it is on to check)
_WS = r"[ \t\r\x0B\x0C]*"
REPLACES = r'replaces"' + _WS + ":" + _WS + r'"[^"\\]{1,200}"'
_COMPACT = b':replaces":"'
_META = frozenset("\\.+*?()|[]{}^$#&-~")


def ripgrep() -> str | None:
    """The ``rg`` executable: ZETTELCLAW_RG (``0`` turns it off), PATH, or beside Python."""
    configured = os.environ.get("ZETTELCLAW_RG")
    if configured is not None:
        return None if configured in ("", "0", "off", "no") else configured
    import shutil

    found = shutil.which("rg")
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    return beside if os.access(beside, os.X_OK) else None


def escape(text: str) -> str:
    """``text`` as a literal in rg's (Rust) regex syntax."""
    return "".join("\\" + c if c in _META else c for c in text)


def filtered(path: Path, needles: list[bytes]
             ) -> tuple[StreamingResolution, Iterator[tuple[int, bytes]]] | None:
    """``(line start, raw line)`` of every line of ``path`` that holds all ``needles``, oldest
    first, and the replacement resolution: ripgrep reads the log (one pass for the first needle,
    whose lines the next needles filter, another in parallel for the ``"replaces"``). None
    without rg, when rg fails, or when the log was replaced while rg read it (the caller reads
    the log itself)."""
    rg = ripgrep()
    from .fsutil import check_regular, open_read

    if not rg or not needles or not check_regular(path):
        return None
    import subprocess

    common = [rg, "--no-config", "--text", "--no-line-number", "--no-filename", "--color",
              "never"]
    procs: list = []
    with open_read(path) as fh:
        before = os.fstat(fh.fileno())
        try:
            replaces = subprocess.Popen(
                [*common, "--only-matching", "--byte-offset", "-e", REPLACES, "--", str(path)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            procs.append(replaces)
            # the lines holding the first needle, with their offsets; the others narrow them
            procs.append(subprocess.Popen(
                [*common, "--byte-offset", "--fixed-strings", "-e",
                 needles[0].decode("utf-8", "surrogateescape"), "--", str(path)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
            for needle in needles[1:]:
                source = procs[-1].stdout
                procs.append(subprocess.Popen(
                    [*common, "--fixed-strings", "-e", needle.decode("utf-8", "surrogateescape"),
                     "-"], stdin=source, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
                source.close()  # the next rg holds it now
        except (OSError, UnicodeEncodeError):
            for proc in procs:
                proc.kill()
                proc.wait()
            return None
        import threading

        named: list[bytes] = []
        reader = threading.Thread(target=lambda: named.append(replaces.stdout.read()))
        reader.start()
        found = procs[-1].stdout.read()
        reader.join()
        ok = True
        for proc in procs:
            if proc.stdout is not None:
                proc.stdout.close()
            ok = proc.wait() in (0, 1) and ok  # 1: nothing matched
        if not ok:
            return None
        try:
            after = os.stat(path)
        except OSError:
            return None
        if (after.st_ino, after.st_dev) != (before.st_ino, before.st_dev):
            return None  # renamed over (subjects rename): rg read another file than ``fh``
        from .resolve import StreamingResolution

        data = None
        if named[0]:
            import mmap

            # the file rg read (``fh``), to check the lines that replace a candidate
            try:
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # emptied meanwhile
                return None
    resolution = StreamingResolution(path, Named(named[0]), data=data)
    return resolution, _lines(found, needles[0])


def _lines(found: bytes, first: bytes) -> Iterator[tuple[int, bytes]]:
    """rg's ``offset:line`` lines as ``(offset, line)``."""
    for row in found.split(b"\n"):
        offset, colon, line = row.partition(b":")
        if colon and first in line:
            yield int(offset), line


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
