"""What one pass over the log found (:class:`Scan`), and the sample it takes of the log: N and
the field lengths, every line of a small log, spread windows (``pread``) of a large one."""

from __future__ import annotations

import os
import sys

from ..log import is_entry, parse_line
from .bm25 import FIELDS, field_text
from .english import stem, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SAMPLE_LINES_PER_BLOCK = 128
SAMPLE_WINDOWS, SAMPLE_WINDOW = 12, 16 << 10  # above it: N and lengths from spread windows


class Scan:
    """What one pass over the log found (plain classes here: no dataclasses import, which
    costs more than a small search)."""

    def __init__(self, engine: str = "python"):
        self.engine = engine
        self.lines = 0
        self.estimated = False  # lines estimated from a sample (large log, ripgrep scan)
        # term -> line key -> occurrences; a line's key is its number (rg) or its start offset
        self.tf: dict[str, dict] = {}
        # term -> keys of lines that hold it only where no entry is scored (a JSON key, a
        # status): they count in its document frequency, never as candidates (Python's scan)
        self.df_only: dict[str, set] = {}
        self.offsets: dict = {}  # line key -> a byte offset inside the line
        # where ids are named by "replaces" (resolve.StreamingResolution): filled by the same
        # pass as the terms, from Python's block scan or from ripgrep's output
        self.resolution = None
        # the field lengths seen: per field their total, over ``length_entries`` entries
        self.length_totals: dict[str, int] = dict.fromkeys(FIELDS, 0)
        self.length_entries = 0
        # a large log's sample: entries seen, and per query term how many of them hold it
        # (counted when the scan is planned from the sample: see plan_stream)
        self.sampled = 0
        self.sample_df: dict[str, int] | None = None
        # terms left out of the stream (too common to pick candidates): their estimated df
        self.df_estimate: dict[str, int] = {}
        self.prefixes: tuple[str, ...] = ()



# below this a log's lines are parsed by the standard library's C scanner: importing orjson (and
# the dataclasses, uuid and json it imports) costs more than it saves on so few lines
LIGHT_JSON_BELOW = 512 << 10


# a read of at most this many bytes' lines (a log's appended tail, candidate lines read back)
# parses them with the standard library's scanner whatever the log's size
SMALL_PARSE = LIGHT_JSON_BELOW - 1


def json_loads(size: int):
    """``loads(bytes) -> object`` for a log of ``size`` bytes; it raises ValueError for a line
    that is not JSON."""
    if size >= LIGHT_JSON_BELOW or "orjson" in sys.modules:
        import orjson

        return orjson.loads
    from ..handoff import _loads

    def loads(line: bytes):
        try:
            return _loads(line)
        except (StopIteration, RecursionError) as exc:
            raise ValueError(str(exc)) from None

    return loads


def entry_parser(loads):
    """``parse(bytes) -> entry or None`` with ``loads`` (see json_loads)."""

    def parse(line: bytes) -> dict | None:
        try:
            obj = loads(line)
        except ValueError:
            return parse_line(line)  # a byte-order mark before the first line
        return obj if is_entry(obj) else None

    return parse


def _sample(block: bytes, scan: Scan, every_line: bool, loads=None) -> None:
    loads = loads or json_loads(len(block))
    lengths = scan.length_totals
    lines = block.split(b"\n") if every_line else block.split(b"\n", SAMPLE_LINES_PER_BLOCK)[:-1]
    for line in lines:
        if not line:
            continue
        try:
            obj = loads(line)
        except ValueError:
            continue
        if is_entry(obj):
            scan.length_entries += 1
            counts = scan.sample_df
            found = set() if counts is not None else None
            for name in FIELDS:
                tokens = words(field_text(obj, name))
                lengths[name] += len(tokens)
                if found is not None:
                    found.update(stem(w) for w in tokens if w.startswith(scan.prefixes))
            if found is not None:
                scan.sampled += 1
                for t in found & counts.keys():
                    counts[t] += 1


def count_all(path, fd: int, size: int, scan: Scan, data: bytes | None = None,
              known: dict[int, int] | None = None) -> None:
    """N and the field lengths of every line of the log open at ``fd`` (``size`` bytes): the
    counts kept from earlier queries (:mod:`.kept`) plus the lines appended since (``known``:
    see :func:`..logcache.holds`)."""
    from .kept import count_log

    def count_lines(block: bytes, counted) -> None:
        part = Scan()
        part.lines = _count_lines(block)
        _sample(block, part, True, json_loads(len(block)))
        counted.lines += part.lines
        counted.entries += part.length_entries
        for name in FIELDS:
            counted.totals[name] += part.length_totals[name]

    counted = count_log(path, fd, size, count_lines, data, known)
    scan.lines += counted.lines
    scan.length_entries += counted.entries
    for name in FIELDS:
        scan.length_totals[name] += counted.totals[name]


def _estimate(path: Path, size: int, scan: Scan) -> None:
    """N and the length sample of a large log from windows spread over the file (``pread``):
    N = size * lines / bytes of the whole lines seen. Reads 192 KB however large the log."""
    from ..fsutil import open_read

    lines = seen = 0
    with open_read(path) as fh:
        fd = fh.fileno()
        step = max(size // SAMPLE_WINDOWS, 1)
        for i in range(SAMPLE_WINDOWS):
            start = i * step
            window = os.pread(fd, SAMPLE_WINDOW, start)
            if not window:
                break
            first = 0 if start == 0 else window.find(b"\n") + 1
            last = window.rfind(b"\n") + 1
            if first <= 0 and start or last <= first:
                continue
            body = window[first:last]
            lines += body.count(b"\n")
            seen += len(body)
            _sample(body, scan, True)
    scan.lines = round(size * lines / seen) if seen else 0
    scan.estimated = True


def _count_lines(block: bytes) -> int:
    lines = block.count(b"\n")
    return lines + (1 if block and not block.endswith(b"\n") else 0)

