"""The append-only event log: one ``log.jsonl``, one entry per line.

Appends are whole lines written in one ``write`` under the directory lock, then fsynced.
Readers skip a torn or invalid line (one warning on stderr) and go on; a writer that finds a
torn last line starts its own on a fresh line. Nothing is ever edited in place: the only
rewrites are ``subjects rename`` and ``purge``, which write a temp file and rename it under the
lock.
"""

from __future__ import annotations

import os
import sys

from . import paths
from .counts import count
from .fsutil import check_regular, open_fd, open_read

TYPE_CHECKING = False  # `import typing` costs ~10 ms on the handoff path
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

FILE_MODE = 0o600

# the design's five entry types (§3.2) and a task's two states; here, not in entries.py, so
# that readers can check them without importing pydantic
TYPES = ("task", "fact", "decision", "question", "handoff")
TASK_STATUSES = ("open", "done")
_BLOCK = 1 << 16
BOM = b"\xef\xbb\xbf"  # an editor's byte-order mark before the first line: not part of it
_GREP_BLOCK = 8 << 20


def dumps(entry: dict) -> bytes:
    """One compact line, no spaces (``"type":"decision"``), so ripgrep one-liners work."""
    import orjson

    return orjson.dumps(entry)


def parse_line(line: bytes) -> dict | None:
    """The entry on ``line``, or None when the line is torn, not JSON or not an entry."""
    obj = _loads(line)
    return normal_subject(obj) if is_entry(obj) else None


def normal_subject(obj: dict) -> dict:
    """``obj`` with its subject in the one normal form of subjects (NFC): a subject written by
    hand as "café" in either Unicode spelling (one é, or e and a combining accent) is one
    subject to every reader. Slugs zettelclaw writes are ASCII: nothing to do."""
    subject = obj.get("subject")
    if type(subject) is str and not subject.isascii():
        import unicodedata

        obj["subject"] = unicodedata.normalize("NFC", subject)
    return obj


def _loads(line: bytes):
    """The JSON value on ``line`` (after an editor's byte-order mark), or None. A string
    holding a lone surrogate escape (``"\\ud800"``, what a hand repair with Python's json
    module writes) is read with U+FFFD in its place, by every reader alike."""
    import orjson

    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        if line.startswith(BOM):
            return _loads(line[len(BOM):])
        if b"\\u" not in line:
            return None
        import json

        try:
            return scrub_surrogates(json.loads(line))
        except (ValueError, RecursionError):
            return None


def scrub_surrogates(value):
    """``value`` (parsed JSON) with each lone surrogate in its strings turned into U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_surrogates(v) for v in value]
    return value


def is_entry(obj) -> bool:
    return (isinstance(obj, dict) and isinstance(obj.get("id"), str)
            and obj.get("type") in TYPES and isinstance(obj.get("content"), str)
            and "purged" not in obj)


# Lines that are no entry but belong in the log (see docs/forgetting.md): readers skip
# them without a warning, and replacement resolution counts their ``replaces``.
#   a forget: {"id","timestamp","type":"forget","replaces":<the entry's current version>,...}
#   its undo: {"id","timestamp","type":"unforget","replaces":<the forget's id>,...}
#   a purge tombstone: the purged entry's line without its text, with "purged":<UTC time>
FORGET, UNFORGET = "forget", "unforget"


def record_kind(obj) -> str | None:
    """``"forget"``, ``"unforget"`` or ``"purged"`` for such a line's object, else None."""
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
        return None
    kind = obj.get("type")
    if kind in (FORGET, UNFORGET):
        return kind if isinstance(obj.get("replaces"), str) else None
    if kind in TYPES and isinstance(obj.get("purged"), str):
        return "purged"
    return None


def parse_known(line: bytes) -> dict | None:
    """An entry or a record (forget, unforget, purge tombstone) on ``line``, else None: what
    may hide an entry by its ``replaces``."""
    obj = _loads(line)
    return obj if is_entry(obj) or record_kind(obj) is not None else None


AGENT_FIELD = b'"agent":"'


def line_at(data, at: int) -> bytes:
    """The line of ``data`` (the log's bytes, or a map of them) that holds byte ``at``,
    without its newline: how a search of the raw log for an id or a field reads the one line
    it found."""
    start = data.rfind(b"\n", 0, at) + 1
    stop = data.find(b"\n", at)
    return data[start:stop if stop >= 0 else len(data)]


def agents_in(data: bytes, default: str, *, records: bool = True) -> set[str] | None:
    """The agents of the entries of ``data`` (the log's bytes; with ``records``, of its
    forgets, undos and tombstones too), the default first, told without parsing every line:
    from each ``"agent":"..."`` field (one cannot appear inside a string, whose quotes are
    escaped), each agent confirmed by one line of it that parses. The distinct values are
    found in C (``re.findall``), so a log of one agent costs one scan, not a step per line.
    None when an agent id holds an escape: then parse the lines."""
    import re

    from . import paths

    parse = parse_known if records else parse_line
    found = {default}
    for raw in set(re.findall(rb'"agent":"([^"]*)"', data)):
        if b"\\" in raw:
            return None
        agent = raw.decode("utf-8", "replace")
        if not agent or agent in found:
            continue
        needle = AGENT_FIELD + raw + b'"'
        at = data.find(needle)
        while at >= 0:
            line = parse(line_at(data, at + len(needle) - 1))
            if line is not None and paths.entry_agent(line, default) == agent:
                found.add(agent)
                break
            at = data.find(needle, at + len(needle))
    return found


class Log:
    """The log file at ``path`` (default: the resolved ``log.jsonl``)."""

    def __init__(self, path: Path | None = None, *, warn: bool = True):
        from pathlib import Path

        self.path = Path(path) if path is not None else paths.log_path()
        self.warn = warn

    # -- writing ---------------------------------------------------------------------------

    def append(self, entries: Iterable[dict], *, locked: bool = False) -> int:
        """Append ``entries`` in one locked write; returns how many were written.

        Entries come redacted from their birth (``entries.make_entry``). ``locked``: the
        caller already holds the directory lock.
        """
        import contextlib

        from .fsutil import dir_lock

        data = b"".join(dumps(e) + b"\n" for e in entries)
        if not data:
            return 0
        with contextlib.nullcontext() if locked else dir_lock(self.path.parent):
            fd = open_fd(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
            try:
                size = os.fstat(fd).st_size
                if _ends_torn(fd):
                    data = b"\n" + data
                view = memoryview(data)
                try:
                    while view:
                        written = os.write(fd, view)
                        view = view[written:]
                    os.fsync(fd)
                except BaseException:
                    _cut_back(fd, size)
                    raise
            finally:
                os.close(fd)
        return data.count(b"\n") - (1 if data.startswith(b"\n") else 0)

    def rewrite(self, transform: Callable[[bytes], bytes], *, locked: bool = False,
                follow: dict[int, int | None] | None = None) -> int:
        """Pass every line through ``transform`` into a temp file, then rename it over the log.

        Runs under the directory lock (pass ``locked=True`` when the caller already holds it);
        returns the number of lines that changed. ``follow``: byte offsets in the log as it is
        (keys) whose place in the new log the rewrite fills in (values), for a reader that keeps
        places in the log; an offset that starts no line (the end of the log counts as one)
        stays None.
        """
        import contextlib
        import tempfile

        from .fsutil import dir_lock, fsync_dir

        with contextlib.nullcontext() if locked else dir_lock(self.path.parent):
            if not check_regular(self.path):
                return 0
            stat = os.lstat(self.path)
            mode = stat.st_mode & 0o7777
            marks = set(follow or ())
            moved: dict[int, int] = {}
            fd, tmp = tempfile.mkstemp(prefix=".log.", suffix=".tmp", dir=self.path.parent)
            changed = 0
            try:
                with open_read(self.path) as src, os.fdopen(fd, "wb", buffering=1 << 20) as dst:
                    old_at = new_at = 0
                    for line in src:
                        if old_at in marks:
                            moved[old_at] = new_at
                        new = transform(line)
                        if new != line:
                            changed += 1
                        dst.write(new)
                        old_at += len(line)
                        new_at += len(new)
                    if old_at in marks:
                        moved[old_at] = new_at
                    dst.flush()
                    os.fsync(dst.fileno())
                os.chmod(tmp, mode)
                os.replace(tmp, self.path)
            except BaseException:
                if os.path.exists(tmp):
                    os.unlink(tmp)
                raise
            fsync_dir(self.path.parent)
            if follow is not None:
                follow.update(moved)
        return changed

    def create(self) -> None:
        """Make sure the directory (0700) and an empty log (0600) exist."""
        from .fsutil import ensure_private_dir

        ensure_private_dir(self.path.parent)
        fd = open_fd(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        os.close(fd)

    # -- reading ---------------------------------------------------------------------------

    def lines(self) -> Iterator[bytes]:
        try:
            fh = open_read(self.path)
        except FileNotFoundError:
            return
        with fh:
            yield from fh

    def located(self, prefilter: Callable[[bytes], bool] | None = None,
                needle: bytes | None = None,
                lines: Iterable[tuple[int, bytes]] | None = None, *,
                records: bool = False) -> Iterator[tuple[int, dict]]:
        """(position, entry) for every valid line, oldest first.

        The position is the byte offset where the line starts: it orders entries as the log
        does (what replacement resolution needs) and costs nothing to know. With ``needle`` only
        lines containing it are looked at (see :meth:`grep`); ``lines`` are those lines, already
        found (by ripgrep). ``prefilter`` sees each raw line first; lines it rejects are not
        parsed (nor counted as invalid). Torn or invalid lines are skipped with one warning on
        stderr at the end. Records (forgets, their undos, purge tombstones: see
        :func:`record_kind`) are skipped silently, or yielded too with ``records``.
        """
        import orjson

        loads = orjson.loads
        bad, first_bad = 0, None
        if lines is None:
            lines = self.grep(needle) if needle else self._offsets()
        for pos, line in lines:
            if prefilter is not None and not prefilter(line):
                continue
            try:
                obj = loads(line)
            except orjson.JSONDecodeError:
                obj = _loads(line)  # (a BOM, a lone surrogate)
            if obj is None or not is_entry(obj):
                if record_kind(obj) is not None:
                    if records:
                        yield pos, normal_subject(obj)
                    continue
                if line.strip():
                    bad += 1
                    first_bad = pos if first_bad is None else first_bad
                continue
            yield pos, normal_subject(obj)
        if bad and self.warn:
            _warn(f"skipped {count(bad, 'invalid line')} in {self.path} "
                  f"(first at line {self._line_of(first_bad)})")

    def _offsets(self) -> Iterator[tuple[int, bytes]]:
        pos = 0
        for line in self.lines():
            yield pos, line
            pos += len(line)

    def _line_of(self, offset: int) -> int:
        with open_read(self.path) as fh:
            return fh.read(offset).count(b"\n") + 1

    def blocks(self) -> Iterator[tuple[int, bytes, int]]:
        """``(offset, block, end)``: the file read in large blocks; ``block[:end]`` holds whole
        lines only (the rest is read again as the start of the next block), so a search limited
        to ``end`` never sees half a line and nothing is copied."""
        try:
            fh = open_read(self.path)
        except FileNotFoundError:
            return
        with fh:
            base = 0
            while True:
                block = fh.read(_GREP_BLOCK)
                if not block:
                    return
                end = block.rfind(b"\n") + 1
                if end == 0:  # one line longer than a block, or a last line without "\n"
                    if len(block) < _GREP_BLOCK:
                        yield base, block, len(block)
                        return
                    block += fh.readline()
                    end = len(block)
                yield base, block, end
                base += end
                fh.seek(base)

    def grep(self, needle: bytes) -> Iterator[tuple[int, bytes]]:
        """(position, raw line) of every line containing ``needle``, oldest first.

        Searches each of :meth:`blocks` with ``bytes.find``, so the lines without the needle
        cost C speed, not a Python loop, and memory stays at one block. The position is the
        byte offset of the line's start, as in :meth:`located`.
        """
        for base, block, stop in self.blocks():
            pos = block.find(needle, 0, stop)
            while pos >= 0:
                start = block.rfind(b"\n", 0, pos) + 1
                end = block.find(b"\n", pos, stop)
                if end < 0:
                    end = stop
                yield base + start, block[start:end]
                pos = block.find(needle, end, stop)

    def entries(self, *, records: bool = False) -> Iterator[dict]:
        """Every valid entry, oldest first (with ``records``, forgets, their undos and purge
        tombstones too: what a :class:`~zettelclaw.resolve.Resolution` needs)."""
        for _, entry in self.located(records=records):
            yield entry

    def reversed(self) -> Iterator[dict]:
        """Valid entries last appended first (not necessarily latest-dated), reading the file
        backwards in blocks."""
        for line in reverse_lines(self.path):
            entry = parse_line(line)
            if entry is not None:
                yield entry

    def get(self, entry_id: str) -> dict | None:
        """The entry with ``entry_id`` (its first line, should an id ever repeat: as
        :class:`~zettelclaw.resolve.Resolution` takes it)."""
        needle = b'"id":"' + entry_id.encode() + b'"'
        for line in self.lines():
            if needle in line:
                entry = parse_line(line)
                if entry is not None and entry["id"] == entry_id:
                    return entry
        return None

    def ids(self) -> set[str]:
        return {e["id"] for e in self.entries()}

    def holding(self, ids: set[str]) -> set[str]:
        """Which of ``ids`` have a line in the log: a search of the raw blocks (C speed), then
        the lines found parsed, so a line that only mentions an id (``replaces``) does not
        count."""
        needles = {i: b'"id":"' + i.encode() + b'"' for i in ids if isinstance(i, str)}
        found: set[str] = set()
        for _base, block, stop in self.blocks():
            for entry_id, needle in needles.items():
                if entry_id in found:
                    continue
                pos = block.find(needle, 0, stop)
                while pos >= 0:
                    start = block.rfind(b"\n", 0, pos) + 1
                    end = block.find(b"\n", pos, stop)
                    entry = parse_line(block[start:end if end >= 0 else stop])
                    if entry is not None and entry["id"] == entry_id:
                        found.add(entry_id)
                        break
                    pos = block.find(needle, pos + 1, stop)
            if len(found) == len(needles):
                break
        return found

    def exists(self) -> bool:
        return check_regular(self.path)


def reverse_lines(path: str | Path) -> Iterator[bytes]:
    """Lines of ``path`` from last to first, without reading the whole file."""
    for _, line in reverse_located(path):
        yield line


def reverse_located(path: str | Path, *, whole_blocks: bool = False) -> Iterator:
    """``(offset where the line starts, line)`` from last to first, blank lines skipped; with
    ``whole_blocks``, ``(offset, bytes)`` of runs of whole lines (no final newline) instead."""
    try:
        fh = open_read(path)
    except FileNotFoundError:
        return
    with fh:
        fh.seek(0, os.SEEK_END)
        pos = fh.tell()
        rest = b""
        while pos > 0:
            size = min(_BLOCK, pos)
            pos -= size
            fh.seek(pos)
            block = fh.read(size) + rest
            cut = block.find(b"\n")
            if cut < 0:
                rest = block
                continue
            rest = block[:cut]
            if whole_blocks:
                yield pos + cut + 1, block[cut + 1:]
                continue
            end = pos + len(block)
            for line in reversed(block[cut + 1:].split(b"\n")):
                start = end - len(line)
                if line.strip():
                    yield start, line
                end = start - 1
        if rest.strip():
            yield 0, rest


def _cut_back(fd: int, size: int) -> None:
    """Cut a failed append (a full disk's short write) back to the log's size before it, so
    no torn line stays behind; the lock is held, so nothing else appended since."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass  # the error that stopped the append is the one to report


def _ends_torn(fd: int) -> bool:
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    return os.pread(fd, 1, size - 1) != b"\n"


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
