"""Ranked recall: BM25F over the log and the workspace's memory files.

Every ranked query computes its statistics from the log in one streaming pass; what is kept
between queries, for a small log (under 4 MB), are two caches of its first bytes, checked
against the log on every read: ``rank-stats.json`` (:mod:`.kept`), N and the field lengths,
and ``rank-index.bin`` (:mod:`.index`), what the scan below finds there (every word with the
lines holding it, the ``"replaces"``), so a query counts and scans only the lines appended since.

1. **Analyse the question**: lowercase, split on word characters, drop stop words, Snowball
   English stems (cached). Each stem gets a *prefix* that every word with that stem starts
   with (the stem minus a final ``e``/``i``: ``family`` -> ``famili`` -> ``famil``).
2. **Scan** the log once for word-starts matching the prefixes. With ripgrep on PATH (or next
   to the Python that runs us) ``rg -o`` does it and a second ``rg`` collects the
   ``"replaces"`` ids in parallel; Python parses rg's matches as they stream in (recall reads
   a log under 4 MB in Python: less than starting rg costs). Without rg a
   pure-Python scan does the same with ``bytes.find`` over 8 MB blocks. Either way Python sees
   only the matched words, stems each distinct one once and keeps, per candidate line, the
   counts of the words that really have a query stem; a term's document frequency is the
   number of lines that contain it (Python's scan makes no candidate of a line that holds it
   only as a JSON key or the value of an unscored field: ``"status":"open"``). N (lines) and
   the average field lengths come from the log itself when it is small (every line counted
   and parsed once, the counts kept in ``rank-stats.json``) and, above 4 MB, from 12 windows
   of 16 KB spread over the file (``pread``): no second full read.
3. **Score** candidates best-first by BM25 over the term counts the scan saw (field and length
   unknown); ``(k1 + 1)`` times that bounds a line's exact score, so only lines that can still
   beat the current top M are read back (``mmap``), parsed, checked against the structured
   filters and the replacement map, and scored exactly with BM25F over content, detail and
   subject; at most ``EXACT_LIMIT`` of them (recall's: 200; a shortlist on a large log,
   everything on a small one). Memory use is bounded by the number of candidate lines, never
   by the log. When the shortlist can hold only lines of the rarer terms (each of those
   outscores any line of nothing but the most common ones, and there are enough of them),
   the lines of only common terms are not approximated at all: the same lines come first.
4. **Re-rank** the top M with cheap signals that plain BM25 misses: query terms adjacent in an
   entry as in the question (bigram proximity); entries whose subject the question names
   (``caroline``, ``queue-retries``: every stem of the slug among the query's); entries written
   in the month or year the question names (``in June``, ``May 2023``, against the entry's
   timestamp), twice as much within a week of a day it names (``on 7 July``); and, last,
   each entry's session context: a share of the best score in its session, as passage
   retrieval adds the document's score to a passage's (the entries of one conversation
   explain each other).

MEMORY.md and ``memory/*.md`` are cut into chunks of 10-20 lines (read while rg works; not
MEMORY.md's generated briefing block, which repeats the log) and scored against the same
collection statistics (log lines plus chunks), so their scores share one scale with entries.

``zettelclaw search`` with JSON output comes here through :mod:`zettelclaw.hot`, which on a log
over 4 MB starts rg before importing anything else the command needs (Typer, Rich and pydantic
not at all); a smaller log is read in Python.

The package: :mod:`.kept` (the counts kept between queries), :mod:`.index` (the words kept
between queries), :mod:`.english` (stop words,
irregular verbs, stems, tokens, the query's terms), :mod:`.bm25` (collection statistics,
BM25F), :mod:`.sample` (what a scan found; N and field lengths from the log or from spread
windows), :mod:`.scans` (the ripgrep processes and the Python scan), :mod:`.collection` (the
same ranking over entries held in memory: extraction's), :mod:`.plan` (which terms a large
log's scan streams; recall's match unit), :mod:`.rerank` (proximity, subject, when and session
boosts), :mod:`.memory` (MEMORY.md and ``memory/*.md`` chunks) and :mod:`.ranking` (``rank``
itself, step by step).

Every name is here, loaded with the module that holds it on first use (PEP 562): a per-turn
command pays only for the modules it needs (``recall`` of small talk for :mod:`.english`, a
recall scan not for :mod:`.memory`), as it paid for one module before.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..ripgrep import ripgrep
    from .bm25 import (
        FIELDS,
        K1,
        NORMS,
        WEIGHTS,
        Stats,
        bm25f,
        field_counts,
        field_text,
        idf,
        match_unit,
    )
    from .collection import rank_entries
    from .english import (
        FORMS,
        IRREGULAR,
        LEMMAS,
        MAX_QUERY_CHARS,
        MAX_QUERY_TERMS,
        STOP_WORDS,
        analyze,
        keep,
        prefix,
        prefixes_of,
        stem,
        terms,
        words,
    )
    from .memory import (
        MEMORY_CHUNK_MAX,
        MEMORY_CHUNK_MIN,
        Chunk,
        chunk_lines,
        memory_chunks,
        snippet,
    )
    from .plan import COMMON_MIN_SEEN, plan_stream, score_bound
    from .ranking import DEFAULT_LIMIT, EXACT_LIMIT, has_filters, rank
    from .rerank import (
        DAY_WINDOW,
        PROXIMITY_WEIGHT,
        RERANK_DEPTH,
        SESSION_WEIGHT,
        SUBJECT_BOOST,
        WHEN_BOOST,
        days_named,
        proximity,
        subject_terms,
        when_named,
    )
    from .sample import (
        LIGHT_JSON_BELOW,
        SAMPLE_LINES_PER_BLOCK,
        SAMPLE_WINDOW,
        SAMPLE_WINDOWS,
        Scan,
        entry_parser,
        json_loads,
    )
    from .scans import SMALL_LOG, Started, scan_log, scan_python, scan_ripgrep, start_scan

# heavier modules (orjson, subprocess, threading, mmap, heapq, pathlib, dataclasses) are
# imported where they are used: `search` starts rg before it pays for them (see zettelclaw.hot)

_HOME = {
    # zettelclaw.ripgrep
    "ripgrep": "..ripgrep",
    # .bm25
    "FIELDS": "bm25", "K1": "bm25", "NORMS": "bm25", "Stats": "bm25", "WEIGHTS": "bm25",
    "bm25f": "bm25", "field_counts": "bm25", "field_text": "bm25", "idf": "bm25",
    "match_unit": "bm25",
    # .collection
    "rank_entries": "collection",
    # .english
    "FORMS": "english", "IRREGULAR": "english", "LEMMAS": "english", "MAX_QUERY_CHARS": "english",
    "MAX_QUERY_TERMS": "english", "STOP_WORDS": "english", "analyze": "english", "keep": "english",
    "prefix": "english", "prefixes_of": "english", "stem": "english", "terms": "english",
    "words": "english",
    # .memory
    "Chunk": "memory", "MEMORY_CHUNK_MAX": "memory", "MEMORY_CHUNK_MIN": "memory",
    "chunk_lines": "memory", "memory_chunks": "memory", "snippet": "memory",
    # .plan
    "COMMON_MIN_SEEN": "plan", "plan_stream": "plan", "score_bound": "plan",
    # .ranking
    "DEFAULT_LIMIT": "ranking", "EXACT_LIMIT": "ranking", "has_filters": "ranking",
    "rank": "ranking",
    # .rerank
    "DAY_WINDOW": "rerank", "PROXIMITY_WEIGHT": "rerank", "RERANK_DEPTH": "rerank",
    "SESSION_WEIGHT": "rerank", "SUBJECT_BOOST": "rerank", "WHEN_BOOST": "rerank",
    "days_named": "rerank", "proximity": "rerank", "subject_terms": "rerank",
    "when_named": "rerank",
    # .sample
    "LIGHT_JSON_BELOW": "sample", "SAMPLE_LINES_PER_BLOCK": "sample", "SAMPLE_WINDOW": "sample",
    "SAMPLE_WINDOWS": "sample", "Scan": "sample", "entry_parser": "sample", "json_loads": "sample",
    # .scans
    "SMALL_LOG": "scans", "Started": "scans", "scan_log": "scans", "scan_python": "scans",
    "scan_ripgrep": "scans", "start_scan": "scans",
}
_SUBMODULES = frozenset({"bm25", "collection", "english", "index", "kept", "memory", "plan",
                         "ranking", "rerank", "sample", "scans"})


def __getattr__(name: str):
    """A name (or a submodule) of the package, from the module that holds it, on first use."""
    if name in _SUBMODULES:
        return __import__(f"{__name__}.{name}", fromlist=["_"])
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    where = "zettelclaw.ripgrep" if home == "..ripgrep" else f"{__name__}.{home}"
    value = globals()[name] = getattr(__import__(where, fromlist=["_"]), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)


__all__ = [
    "COMMON_MIN_SEEN", "DAY_WINDOW", "DEFAULT_LIMIT", "EXACT_LIMIT", "FIELDS", "FORMS",
    "IRREGULAR", "K1", "LEMMAS", "LIGHT_JSON_BELOW", "MAX_QUERY_CHARS", "MAX_QUERY_TERMS",
    "MEMORY_CHUNK_MAX", "MEMORY_CHUNK_MIN", "NORMS", "PROXIMITY_WEIGHT", "RERANK_DEPTH",
    "SAMPLE_LINES_PER_BLOCK", "SAMPLE_WINDOW", "SAMPLE_WINDOWS", "SESSION_WEIGHT", "SMALL_LOG",
    "STOP_WORDS", "SUBJECT_BOOST", "WEIGHTS", "WHEN_BOOST", "Chunk", "Scan", "Started", "Stats",
    "analyze", "bm25f", "chunk_lines", "days_named", "entry_parser", "field_counts",
    "field_text", "has_filters", "idf", "json_loads", "keep", "match_unit", "memory_chunks",
    "plan_stream", "prefix", "prefixes_of", "proximity", "rank", "rank_entries", "ripgrep",
    "scan_log", "scan_python", "scan_ripgrep", "score_bound", "snippet", "start_scan", "stem",
    "subject_terms", "terms", "when_named", "words",
]
