"""``rank()`` itself, in named steps: analyse the question, scan the log (and read the memory
chunks meanwhile), the collection statistics, the candidates read back and scored exactly, the
chunks scored, the second stage (:mod:`.rerank`), the results best first."""

from __future__ import annotations

import os

from ..clock import sort_key
from ..log import is_entry, parse_line
from .bm25 import K1, Stats, _counter, bm25f, field_counts
from .english import analyze, prefixes_of
from .rerank import RERANK_DEPTH, rerank
from .sample import SMALL_PARSE, Scan, json_loads
from .scans import SMALL_LOG, Started, scan_log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .memory import Chunk

# .memory and .plan are imported when used: recall reads no memory file, search plans no scan

DEFAULT_LIMIT = 20
EXACT_LIMIT = 500            # at most this many candidates are read back and scored exactly


def _structural(query):
    """The query without its words: rank scores words, the filters stay exact. (A query that
    has no filter of words, recall's, says so with ``structural()``.)"""
    own = getattr(query, "structural", None)
    if own is not None:
        return own()
    from dataclasses import replace

    return replace(query, text=None)


def has_filters(query) -> bool:
    return any(getattr(query, name) for name in
               ("type", "subject", "status", "session", "since", "until"))


def _line_at(mm, offset: int) -> tuple[int, int, bytes]:
    start = mm.rfind(b"\n", 0, offset) + 1
    end = mm.find(b"\n", offset)
    if end == -1:
        end = len(mm)
    return start, end, mm[start:end]


class Ranked(list):
    """rank()'s results, best first, and ``n``: how many log lines and memory chunks their
    scores were counted over (the unit of recall's ``minScore`` grows with it: see
    match_unit), known without asking for ``explain``."""

    def __init__(self, items=(), n: int = 0):
        super().__init__(items)
        self.n = n


class _Pool:
    """The best ``depth`` items seen so far: a min-heap of (score, place, item, why). Equal
    scores are told apart by ``place`` (an entry's offset in the log: the later line wins;
    memory chunks below every entry), so which items it keeps and their order do not depend
    on the order they were scored in (which follows the scan's bounds)."""

    def __init__(self, depth: int):
        try:  # the C functions heapq.py itself imports, without its 0.5 ms of Python
            from _heapq import heappush, heapreplace
        except ImportError:
            from heapq import heappush, heapreplace

        self._heappush, self._heapreplace = heappush, heapreplace
        self.depth = depth
        self.top: list[tuple[float, int, dict, dict | None]] = []

    def push(self, score: float, place: int, item: dict, why: dict | None) -> None:
        entry = (score, place, item, why)
        if len(self.top) < self.depth:
            self._heappush(self.top, entry)
        elif (score, place) > self.top[0][:2]:
            self._heapreplace(self.top, entry)

    def full_above(self, bound: float) -> bool:
        """Whether nothing scoring at most ``bound`` can still get in."""
        return len(self.top) >= self.depth and bound < self.top[0][0]

    def ranked(self) -> list:
        """The items, the later place first (the final sort is stable: equal scores and dates
        keep this order); an entry whose line was repeated by hand (its id written again)
        once, at its first line, as every reader takes it."""
        first: dict[str, int] = {}
        for _, place, item, _ in self.top:
            key = item.get("id") if place >= 0 else None
            if key is not None and place < first.get(key, place + 1):
                first[key] = place
        return sorted((entry for entry in self.top
                       if entry[1] < 0 or first.get(entry[2].get("id"), entry[1]) == entry[1]),
                      key=lambda entry: entry[1], reverse=True)


def rank(query, *, log=None, include_memory: bool = True, explain: bool = False,
         started: Started | None = None, python_below: int = 0,
         min_units: float | None = None, relative: float = 0.0,
         exact_limit: int = EXACT_LIMIT) -> Ranked:
    """Entries (and memory chunks) that answer ``query.text``, best first, each with ``score``.

    ``query`` is a :class:`zettelclaw.query.Query`: its structured filters apply exactly,
    replaced entries are left out unless ``include_replaced`` (then marked ``replacedBy``), and
    ``limit`` (default 20) caps the results. ``log`` is a path or a :class:`~zettelclaw.log.Log`
    (default: the resolved log). With ``explain`` every result carries an ``explain`` object.
    ``started``: the scan's rg processes from :func:`start_scan`, already at work.
    ``python_below``: a log of at most this many bytes is scanned in Python (see scan_log).
    ``min_units`` and ``relative`` (recall's ``minScore`` and ``RELATIVE``): only entries that
    score this many match units (see :func:`match_unit`), within ``relative`` of the best, are
    wanted; on a large log the scan is then planned from its sample (see :func:`plan_stream`):
    a common word's matches are not streamed when they alone cannot qualify.
    ``exact_limit``: at most this many candidate lines are read back and scored exactly (and
    at least twice the results asked for: ``--limit 1000`` gets every match it can).
    """
    from .. import paths

    path = paths.log_file() if log is None else os.fspath(getattr(log, "path", log))
    query_terms = analyze(query.text)
    limit = query.limit or DEFAULT_LIMIT
    exact_limit = max(exact_limit, 2 * limit)
    if not query_terms:
        return Ranked()
    structural = _structural(query)

    chunks: list[Chunk] = []

    def read_chunks():  # the memory files are read while rg scans the log
        # MEMORY.md and memory/ are the owner's: another person's session searches without
        if include_memory and not has_filters(query) \
                and getattr(query, "person", None) in (None, "owner"):
            from .memory import memory_chunks

            chunks.extend(memory_chunks())

    plan = None
    if min_units is not None:

        def plan(sample: Scan) -> list[str]:  # (a large log's: a small one plans nothing)
            from .plan import plan_stream

            return plan_stream(sample, query_terms, min_units, relative, query.text)

    scan = scan_log(path, query_terms, read_chunks, started, python_below, plan)
    stats = _collection_stats(scan, chunks, query_terms)
    pool = _Pool(max(limit, RERANK_DEPTH))
    if scan.offsets:
        _score_candidates(path, scan, stats, query, structural, query_terms, pool, explain,
                          exact_limit)
    if chunks:
        _score_chunks(chunks, stats, query_terms, pool, explain)
    reranked = rerank(pool.ranked(), query.text, query_terms, stats)
    return _results(reranked, stats, scan, explain, limit)


def _collection_stats(scan: Scan, chunks: list[Chunk], query_terms: list[str]) -> Stats:
    """N, document frequencies, average field lengths and idf over log lines plus chunks."""
    stats = Stats(n=scan.lines + len(chunks))
    stats.df.update(scan.df_estimate)  # terms too common to stream: from the sample
    for t, lines in scan.tf.items():
        stats.df[t] = len(lines)
    for t, lines in scan.df_only.items():
        stats.df[t] = len(lines | scan.tf[t].keys()) if t in scan.tf else len(lines)
    for chunk in chunks:
        for t in set(chunk.tokens) & set(query_terms):
            stats.df[t] = stats.df.get(t, 0) + 1
    entries = scan.length_entries
    for name, total in scan.length_totals.items():
        stats.avg[name] = total / entries if entries else 1.0
    stats.finish(query_terms)
    return stats


def _approximate(scan: Scan, stats: Stats, wanted: int | None = None) -> dict:
    """Per candidate line (in the scan's order), BM25 over the term counts the scan saw (field
    and length unknown); (k1 + 1) times it bounds the line's exact score. ``wanted``: only
    the best this many are read (None: every one); the lines holding nothing but the most
    common terms are then left out when they cannot be among them (see :func:`_essential`)."""
    sat = K1 + 1
    # the most the terms that were not streamed can add to a line (see plan_stream)
    unseen = sum(stats.idf.get(t, 0.0) * sat for t in scan.df_estimate)
    found = _essential(scan, stats, wanted) if wanted is not None else None
    if found is None:
        approx: dict = dict.fromkeys(scan.offsets, unseen)
        common: set[str] = set()
    else:
        essential, common = found
        approx = dict.fromkeys([key for key in scan.offsets if key in essential], unseen)
    for t, lines in scan.tf.items():  # (each line's sum in the same order either way)
        weight = stats.idf.get(t, 0.0)
        part = {n: weight * n * sat / (n + K1) for n in set(lines.values())}
        if t in common:  # more lines than are approximated: look them up
            for key in approx:
                n = lines.get(key)
                if n is not None:
                    approx[key] += part[n]
        else:
            for key, n in lines.items():
                approx[key] += part[n]
    return approx


def _essential(scan: Scan, stats: Stats, wanted: int) -> tuple[set, set[str]] | None:
    """The lines worth approximating when the best ``wanted`` are read, and the common terms
    the others hold alone; None for all of them. A line holding one of the rarer terms scores
    at least that term's idf (one match: idf * n(k1 + 1) / (n + k1) with n = 1), a line
    holding only the most common ones less than the sum of their idf times (k1 + 1): when the
    first is greater and there are ``wanted`` lines of rarer terms, no line of only common
    terms is among the best ``wanted``, which are then the same lines in the same order
    (MaxScore's non-essential terms; ``team`` in half a year's lines cost a turn 2 ms)."""
    sat = K1 + 1
    order = sorted(scan.tf, key=lambda t: stats.idf.get(t, 0.0))  # the most common first
    best = None
    bound = 0.0
    for k in range(1, len(order)):
        bound += stats.idf.get(order[k - 1], 0.0) * sat
        if min(stats.idf.get(t, 0.0) for t in order[k:]) <= bound * (1 + 1e-9):
            break
        lines = set().union(*(scan.tf[t].keys() for t in order[k:]))
        if len(lines) < wanted:
            break
        best = lines, set(order[:k])
    return best


def _shortlist(approx: dict, query, exact_limit: int) -> list:
    """Candidate lines best-first by their approximate score, then the most recent."""
    # (``approx`` is in file order: reversed, a stable sort puts the last appended first;
    # dates are unknown before parsing, and the final order breaks ties by date)
    return sorted(reversed(approx), key=approx.__getitem__, reverse=True)[
        :_shortlist_size(len(approx), query, exact_limit)]


def _shortlist_size(candidates: int, query, exact_limit: int) -> int:
    """How many candidate lines the exact scoring may read, best first."""
    # (with structured filters every candidate stays in line: most may not pass them)
    return candidates if has_filters(query) else min(candidates, exact_limit * 4)


def _score_candidates(path, scan: Scan, stats: Stats, query, structural,
                      query_terms: list[str], pool: _Pool, explain: bool,
                      exact_limit: int) -> None:
    """Read candidate lines back (``mmap``) best-first, keep those that pass the filters and
    the replacement map, and score them exactly with BM25F: until none left can beat the
    pool, or after ``exact_limit`` lines (on a large log, the shortlist)."""
    import mmap

    from ..fsutil import open_read

    sat = K1 + 1
    wanted = _shortlist_size(len(scan.offsets), query, exact_limit)
    approx = _approximate(scan, stats, wanted if wanted < len(scan.offsets) else None)
    ordered = _shortlist(approx, query, exact_limit)
    wanted = set(query_terms)
    prefixes = tuple(prefixes_of(query_terms))
    needles = structural.needles()
    seen: dict[str, str | None] = {}  # word -> its query stem or None (see field_counts)
    scored = 0
    with open_read(path) as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        # candidates are few (EXACT_LIMIT scored): orjson only where a log is large
        loads = json_loads(len(mm) if len(mm) > SMALL_LOG else SMALL_PARSE)
        for key in ordered:
            if pool.full_above(approx[key] * sat):
                break
            if scored >= exact_limit:
                break
            line_start, line_end, raw = _line_at(mm, int(scan.offsets[key]))
            if needles and not all(needle in raw for needle in needles):
                continue
            try:
                entry = loads(raw)
            except ValueError:
                entry = parse_line(raw)  # a byte-order mark before the first line
                if entry is None:
                    continue
            if not is_entry(entry) or not structural.matches(entry):
                continue
            scored += 1
            if not _mark_replaced(entry, scan, line_end, query.include_replaced):
                continue
            if scan.resolution.is_named(entry["id"]) and _repeated(mm, entry["id"], line_start):
                continue  # a replaced line pasted again after its correction: the first counts
            counts, lengths = field_counts(entry, wanted, prefixes, seen)
            score = bm25f(counts, lengths, stats, query_terms)
            if score > 0:  # (explained once it stays in the pool: see _explain)
                pool.push(score, line_end, entry, (counts, lengths) if explain else None)
    if explain:
        _explain(pool, stats, query_terms)


def _explain(pool: _Pool, stats: Stats, query_terms: list[str]) -> None:
    """Each pooled entry's ``why`` (its terms' idf, counts and scores), from the counts kept
    beside it: worked out for the few that stay, not for every line scored."""
    for i, (score, place, item, kept) in enumerate(pool.top):
        why: dict = {}
        bm25f(*kept, stats, query_terms, why)
        pool.top[i] = (score, place, item, why)


def _repeated(mm, entry_id: str, line_start: int) -> bool:
    """Whether a line before ``line_start`` has the id ``entry_id`` (this line repeats it:
    the first is the entry, as every reader takes it). Asked only of an entry some line
    replaces: a search of the log's bytes before it."""
    needle = b'"id":"' + entry_id.encode() + b'"'
    at = mm.find(needle, 0, line_start)
    while at != -1:
        start = mm.rfind(b"\n", 0, at) + 1
        end = mm.find(b"\n", at, line_start)
        found = parse_line(mm[start:end if end != -1 else line_start])
        if found is not None and found["id"] == entry_id:
            return True
        at = mm.find(needle, at + 1, line_start)
    return False


def _mark_replaced(entry: dict, scan: Scan, line_end: int, include_replaced: bool) -> bool:
    """Whether the entry stays: a replaced one only with ``include_replaced``, then marked
    ``replacedBy``."""
    resolution = scan.resolution
    found = (resolution.replacer(entry["id"], line_end)
             if resolution.is_named(entry["id"]) else None)
    if found is not None:
        if not include_replaced:
            return False
        from ..resolve import mark

        mark(entry, found[1])
    return True


def _score_chunks(chunks: list[Chunk], stats: Stats, query_terms: list[str], pool: _Pool,
                  explain: bool) -> None:
    """The memory chunks, scored with the log's statistics (their own average length)."""
    from .memory import snippet

    avg = sum(len(c.tokens) for c in chunks) / len(chunks)
    chunk_stats = stats.with_avg({"content": avg})
    for place, chunk in enumerate(chunks, start=-len(chunks)):  # below every entry
        why = {} if explain else None
        score = bm25f({"content": _counter(chunk.tokens)}, {"content": len(chunk.tokens)},
                      chunk_stats, query_terms, why)
        if score > 0:
            item = {"source": "memory", "path": chunk.path, "startLine": chunk.start,
                    "endLine": chunk.end, "snippet": snippet(chunk.text)}
            pool.push(score, place, item, why)


def _results(reranked: list, stats: Stats, scan: Scan, explain: bool, limit: int) -> Ranked:
    """The items with their final ``score`` (and ``explain``), best first, at most ``limit``."""
    results = []
    for total, item, why, boosts, bm25 in reranked:
        item = dict(item)
        item["score"] = round(total, 4)
        if explain:
            item["explain"] = {"bm25": round(bm25, 4),
                               "terms": why or {}, "boosts": boosts,
                               "n": stats.n, "engine": scan.engine}
            if scan.estimated:  # N and the field lengths from a sample of a large log
                item["explain"]["estimated"] = True
        results.append((total, item))
    # equal scores: the later-dated first (the log is not in time order)
    results.sort(key=lambda pair: (pair[0], sort_key(pair[1].get("timestamp"))), reverse=True)
    return Ranked((item for _, item in results[:limit]), stats.n)
