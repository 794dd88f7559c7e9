"""The scans of the log for the query's word-starts: two ``rg`` processes (started ahead of the
rest of the work by :mod:`zettelclaw.hot`), or Python's ``bytes.find`` over blocks without rg."""

from __future__ import annotations

import os

from .english import prefixes_of, stem
from .sample import (
    SMALL_PARSE,
    Scan,
    _count_lines,
    _estimate,
    _sample,
    count_all,
    entry_parser,
    json_loads,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SMALL_LOG = 4 << 20          # below this every line is sampled and counted


def _blocks(path: Path, scan: Scan | None = None):
    """``(base offset, block)`` pairs of whole lines (the last may lack its newline). A small
    log is one block: read at once, its N and field lengths counted into ``scan`` (see
    :func:`.sample.count_all`)."""
    if os.path.getsize(path) <= SMALL_LOG:  # one read (Log would import pathlib for it)
        from ..fsutil import open_read

        with open_read(path) as fh:
            block = fh.read()
            if scan is not None:
                count_all(path, fh.fileno(), len(block), scan, block)
        if block:
            yield 0, block
        return
    from ..log import Log

    for base, block, end in Log(path, warn=False).blocks():
        yield base, block[:end] if end < len(block) else block



_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _word_end(data: bytes, at: int) -> int:
    """Where the word at ``at`` ends: ASCII word bytes and any byte of a UTF-8 sequence
    (``[\\w\\x80-\\xff]*``, without ``re`` on the per-turn path)."""
    end, size = at, len(data)
    while end < size and (data[end] in _WORD_BYTES or data[end] >= 0x80):
        end += 1
    return end


# the fields a line is scored on (bm25.FIELDS), as keys of compact JSON
_TEXT_KEYS = (b'"content":', b'"detail":', b'"subject":')


def _structural(low: bytes, i: int) -> bool:
    """Whether the word at ``i`` starts a JSON key or the value of a field no entry is scored
    on (``"status":"open"``, ``"type":"task"``): in JSON a raw quote is never inside a string,
    so ``,"`` or ``{"`` before a word opens a key and ``:"`` a value, whose key ends right
    before it. Anything else (spaces, a nested object) counts as text."""
    if i < 2 or low[i - 1] != 0x22:  # '"'
        return False
    before = low[i - 2]
    if before == 0x2C or before == 0x7B:  # ',' '{'
        return True
    return before == 0x3A and not low.endswith(_TEXT_KEYS, 0, i - 1)  # ':'


def _add_match(scan: Scan, key: int, offset: int, term: str, structural: bool) -> None:
    """A query term at ``offset`` in the line at ``key``. A structural match (a key, a status)
    adds nothing any entry is scored on, so it makes no candidate and no term count; it still
    counts in the term's document frequency, as rg's scan counts it."""
    if structural:
        scan.df_only.setdefault(term, set()).add(key)
        return
    lines = scan.tf.setdefault(term, {})
    lines[key] = lines.get(key, 0) + 1
    scan.offsets.setdefault(key, offset)


def scan_python(path: Path, query_terms: list[str]) -> Scan:
    """The pure-Python scan: ``bytes.find`` for each prefix over lowercased 8 MB blocks; on a
    small log only over the lines appended since its kept index (:mod:`.index`), whose words
    give the rest. Candidate lines come out in the log's order (as rg's), term counts in the
    query's: the answer never depends on the order the prefixes were looked for in."""
    from ..resolve import StreamingResolution

    scan = Scan(engine="python")
    named_at: dict[str, list[int]] = {}
    wanted = set(query_terms)
    needles: set[bytes] = set()
    for p in prefixes_of(query_terms):
        for variant in {p, p.capitalize(), p.upper()}:  # bytes.lower() folds ASCII only
            needles.add(variant.encode().lower())
    size = os.path.getsize(path)
    small = size <= SMALL_LOG
    loads = json_loads(SMALL_PARSE if small else size)  # a small log parses few lines here
    named = named_at
    if small:
        found = _scan_small(path, scan, needles, wanted, named_at)
        if found is not None:
            named = found.named(named_at)
    else:
        for base, block in _blocks(path):
            scan.lines += _count_lines(block)
            _sample(block, scan, False, loads)
            _find(scan, block, base, needles, wanted, named_at)
    offsets = scan.offsets  # (keys sorted alone: sorting the pairs took 20 times as long)
    scan.offsets = {key: offsets[key] for key in sorted(offsets)}
    scan.tf = {t: scan.tf[t] for t in query_terms if t in scan.tf}
    scan.resolution = StreamingResolution(path, named, parse=entry_parser(loads))
    return scan


def _scan_small(path, scan: Scan, needles: set[bytes], wanted: set[str],
                named_at: dict[str, list[int]]):
    """A small log: its N and field lengths (kept counts plus the lines since), the kept
    index's words (:mod:`.index`) plus a scan of the lines appended since, or a scan of all of
    it; the index kept again when enough was appended. Returns the index used, if any."""
    from ..fsutil import open_read
    from . import index

    with open_read(path) as fh:
        fd = fh.fileno()
        size = os.fstat(fd).st_size
        known: dict[int, int] = {}  # the log's CRCs: the counts' check continues the index's
        kept = index.load(path, fd, size, known) if size >= index.INDEX_FROM else None
        found = kept if kept is not None and index.usable(needles) else None
        start = found.size if found is not None else 0
        data = os.pread(fd, size - start, start) if size > start else b""
        count_all(path, fd, size, scan, None if start else data, known)
        if found is not None:
            found.apply(scan, needles, wanted)
        if data:
            _find(scan, data, start, needles, wanted, named_at)
        if found is kept:  # (a kept index this query could not use stays as it is)
            index.keep(path, fd, data, start, found)
    return found


def _find(scan: Scan, block: bytes, base: int, needles: set[bytes], wanted: set[str],
          named_at: dict[str, list[int]]) -> None:
    """The word-starts of ``needles`` in ``block`` (whole lines from offset ``base``) whose
    words stem to a term in ``wanted``, and the ids its "replaces" name."""
    from ..resolve import replaces_in

    low = block.lower()
    term_of: dict[bytes, str | None] = {}  # a matched word -> its query term, or None
    for needle in needles:
        i = low.find(needle)
        while i != -1:
            if i == 0 or low[i - 1] not in _WORD_BYTES and low[i - 1] < 0x80:
                end = _word_end(low, i)
                raw = low[i:end]
                term = term_of.get(raw, needle)
                if term is needle:
                    term = stem(raw.decode("utf-8", "replace").lower())
                    term = term_of[raw] = term if term in wanted else None
                if term is not None:
                    start = low.rfind(b"\n", 0, i) + 1
                    _add_match(scan, base + start, base + i, term, _structural(low, i))
                i = end
            i = low.find(needle, i + 1)
    for at, target in replaces_in(block):  # compact, or written by hand with spaces
        named_at.setdefault(target, []).append(base + at)


class Started:
    """The two rg processes of a scan, started ahead of the rest of the work."""

    def __init__(self, path, query_terms: list[str], procs: dict):
        self.path, self.terms, self.procs = str(path), list(query_terms), procs

    def kill(self) -> None:
        for proc in self.procs.values():
            proc.kill()
            proc.stdout.close()
            proc.wait()
        self.procs = {}


def start_scan(path, query_terms: list[str]) -> Started | None:
    """Start the rg processes that scan ``path`` for ``query_terms`` (None without rg, terms or
    log). :func:`rank` given it picks their output up; what the caller does between the two
    runs while rg works."""
    from ..fsutil import check_regular
    from ..ripgrep import ripgrep

    rg = ripgrep()

    if not rg or not query_terms or not check_regular(path):
        return None
    procs = _spawn(rg, path, query_terms)
    return Started(path, query_terms, procs) if procs else None


def _spawn(rg: str, path, query_terms: list[str]) -> dict | None:
    import re
    import subprocess

    from ..ripgrep import REPLACES

    prefixes = prefixes_of(query_terms)
    pattern = r"\b(?:" + "|".join(re.escape(p) for p in prefixes) + r")\w*"
    common = [rg, "--no-config", "--text", "--only-matching", "--byte-offset", "--no-filename",
              "--color", "never"]
    # two processes, in parallel: one pass for both is slower (the case-folded "replaces"
    # costs rg its literal search) and leaves Python more rows to tell apart
    procs = {}
    try:
        procs["terms"] = subprocess.Popen(
            common + ["--line-number", "--ignore-case", "-e", pattern, "--", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        procs["replaces"] = subprocess.Popen(
            common + ["--no-line-number", "-e", REPLACES, "--", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        for proc in procs.values():
            proc.kill()
            proc.wait()
        return None
    return procs


def scan_ripgrep(rg: str, path, query_terms: list[str], meanwhile=None,
                 started: Started | None = None, plan=None) -> Scan | None:
    """The same scan with two ``rg`` processes (``started`` ones, or new); None when rg fails
    (the caller falls back). ``meanwhile`` (a callable) runs once rg has started.

    ``plan`` (recall's): on a large log the sample is taken before rg starts, with each query
    term's count in it, and ``plan(scan)`` says which terms rg streams (see plan_stream);
    none: rg does not run at all (nothing the message asks can qualify)."""
    import threading

    scan = Scan(engine="ripgrep")
    size = os.path.getsize(path)
    planned = started is None and plan is not None and size > SMALL_LOG
    if planned:
        query_terms = _sample_first(path, size, scan, query_terms, plan)
        if not query_terms:
            if meanwhile is not None:
                meanwhile()
            return scan
    procs = started.procs if started is not None else _spawn(rg, path, query_terms)
    if not procs:
        return None
    out: dict[str, bytes] = {}

    def drain():
        out["replaces"] = procs["replaces"].stdout.read()

    reader = threading.Thread(target=drain)
    reader.start()
    if meanwhile is not None:
        meanwhile()
    # meanwhile, in this thread: N and the length sample (exact for a small log, estimated
    # from spread windows for a large one: no second full read of the file), then rg's matches
    # parsed as they stream in, while rg goes on on the other core
    if not planned:  # (a planned scan sampled before rg started)
        _sample_log(path, size, scan)
    scan.tf = _read_matches(procs["terms"].stdout.fileno(), scan.offsets, set(query_terms))
    reader.join()
    for proc in procs.values():
        proc.stdout.close()
        if proc.wait() not in (0, 1):  # 1: nothing matched
            return None
    from ..resolve import StreamingResolution
    from ..ripgrep import Named

    scan.resolution = StreamingResolution(path, Named(out["replaces"]))
    return scan


def _sample_first(path, size: int, scan: Scan, query_terms: list[str], plan) -> list[str]:
    """A large log's sample, taken before rg starts, with each query term's count in it; the
    terms ``plan(scan)`` says rg streams (the others get their df estimated from the sample)."""
    scan.sample_df = dict.fromkeys(query_terms, 0)
    scan.prefixes = tuple(prefixes_of(query_terms))
    _estimate(path, size, scan)
    streamed = plan(scan)
    scan.df_estimate = {t: round(scan.sample_df[t] * scan.lines / max(scan.sampled, 1))
                        for t in query_terms if t not in streamed}
    return streamed


def _sample_log(path, size: int, scan: Scan) -> None:
    """N and the field lengths: every line of a small log, spread windows of a large one."""
    if size <= SMALL_LOG:
        from ..fsutil import open_read

        with open_read(path) as fh:
            count_all(path, fh.fileno(), os.fstat(fh.fileno()).st_size, scan)
    else:
        _estimate(path, size, scan)


def _read_matches(fd: int, offsets: dict, wanted: set[str]) -> dict[str, dict[bytes, int]]:
    """rg's ``line:offset:word`` rows parsed as they stream in from ``fd``: per query term, the
    line numbers holding it and how often; ``offsets`` gets a byte offset inside each line
    (keys and offsets stay bytes until a line is read back)."""
    lines_of: dict[bytes, dict | None] = {}  # matched word -> its stem's line counts, or None
    tf: dict[str, dict[bytes, int]] = {}
    import re  # (rg's path only: the small log's recall runs without ``re``)

    findall = re.compile(rb"^(\d+):(\d+):(.*)$", re.MULTILINE).findall
    get_lines = lines_of.get
    rest = b""
    while True:
        chunk = os.read(fd, 1 << 18)
        data = rest + chunk
        cut = data.rfind(b"\n") + 1 if chunk else len(data)
        rest = data[cut:]
        for lineno, offset, word in findall(data, 0, cut):
            lines = get_lines(word, offsets)  # offsets: a sentinel for "not seen yet"
            if lines is offsets:
                term = stem(word.decode("utf-8", "replace").lower())
                lines = lines_of[word] = tf.setdefault(term, {}) if term in wanted else None
            if lines is not None:
                lines[lineno] = lines.get(lineno, 0) + 1
                offsets[lineno] = offset
        if not chunk:
            break
    return tf


def scan_log(path, query_terms: list[str], meanwhile=None, started: Started | None = None,
             python_below: int = 0, plan=None) -> Scan:
    """Scan the log (ripgrep, else Python); ``meanwhile`` runs exactly once, while rg works.
    ``started``: rg processes from :func:`start_scan` for this path and these terms. A log of
    at most ``python_below`` bytes is read in Python: faster than starting rg (and importing
    what it takes) when every line is read and parsed anyway (see SMALL_LOG)."""
    if started is not None and (started.path != str(path) or started.terms != query_terms):
        started.kill()
        started = None
    if started is None and python_below:
        try:
            small = os.stat(path).st_size <= python_below
        except OSError:
            small = False
        if small:
            return _scan_here(path, query_terms, meanwhile)
    if started is not None:
        rg = started.procs["terms"].args[0]
    else:
        from ..ripgrep import ripgrep  # (imported here: a small log is read in Python)

        rg = ripgrep()
    pending = [meanwhile] if meanwhile is not None else []

    def once():
        while pending:
            pending.pop()()

    try:
        from ..fsutil import check_regular

        exists = check_regular(path)  # a symlink or FIFO is refused before rg reads it
        if started is not None or rg and query_terms and exists:
            result = scan_ripgrep(rg, path, query_terms, once, started, plan)
            if result is not None:
                return result
        return scan_python(path, query_terms) if exists else Scan()
    except FileNotFoundError:
        return Scan()
    finally:
        once()


def _scan_here(path, query_terms: list[str], meanwhile=None) -> Scan:
    """The pure-Python scan, ``meanwhile`` run first."""
    from ..fsutil import check_regular

    if meanwhile is not None:
        meanwhile()
    try:
        return scan_python(path, query_terms) if check_regular(path) else Scan()
    except FileNotFoundError:
        return Scan()
