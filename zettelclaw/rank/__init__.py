"""Ranked recall: BM25F over the log and the workspace's memory files, with no index file.

The run's only state stays ``log.jsonl``, ``subjects.json`` and ``state.json``, so every ranked
query computes its statistics from the log in one streaming pass:

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
   number of candidate lines that contain it. N (lines) and the average field lengths come
   from the log itself when it is small (every line counted and parsed) and, above 4 MB, from
   12 windows of 16 KB spread over the file (``pread``): no second full read.
3. **Score** candidates best-first by BM25 over the term counts the scan saw (field and length
   unknown); ``(k1 + 1)`` times that bounds a line's exact score, so only lines that can still
   beat the current top M are read back (``mmap``), parsed, checked against the structured
   filters and the replacement map, and scored exactly with BM25F over content, detail and
   subject; at most ``EXACT_LIMIT`` of them (a shortlist on a large log, everything on a small
   one). Memory use is bounded by the number of candidate lines, never by the log.
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

``zettelclaw search`` with JSON output comes here through :mod:`zettelclaw.hot`, which starts rg
before importing anything else the command needs (Typer, Rich and pydantic not at all).

The package: :mod:`.english` (stop words, irregular verbs, stems, tokens, the query's terms),
:mod:`.bm25` (collection statistics, BM25F), :mod:`.sample` (what a scan found; N and field
lengths from the log or from spread windows), :mod:`.scans` (the ripgrep processes and the
Python scan), :mod:`.plan` (which terms a large log's scan streams; recall's match unit),
:mod:`.rerank` (proximity, subject, when and session boosts), :mod:`.memory` (MEMORY.md and
``memory/*.md`` chunks) and :mod:`.ranking` (``rank`` itself, step by step).
"""

from __future__ import annotations

from ..ripgrep import ripgrep
from .bm25 import FIELDS, K1, NORMS, WEIGHTS, Stats, bm25f, field_counts, field_text, idf
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
from .memory import MEMORY_CHUNK_MAX, MEMORY_CHUNK_MIN, Chunk, chunk_lines, memory_chunks, snippet
from .plan import COMMON_MIN_SEEN, match_unit, plan_stream, score_bound
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
    rerank,
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

__all__ = [
    "COMMON_MIN_SEEN", "DAY_WINDOW", "DEFAULT_LIMIT", "EXACT_LIMIT", "FIELDS", "FORMS",
    "IRREGULAR", "K1", "LEMMAS", "LIGHT_JSON_BELOW", "MAX_QUERY_CHARS", "MAX_QUERY_TERMS",
    "MEMORY_CHUNK_MAX", "MEMORY_CHUNK_MIN", "NORMS", "PROXIMITY_WEIGHT", "RERANK_DEPTH",
    "SAMPLE_LINES_PER_BLOCK", "SAMPLE_WINDOW", "SAMPLE_WINDOWS", "SESSION_WEIGHT", "SMALL_LOG",
    "STOP_WORDS", "SUBJECT_BOOST", "WEIGHTS", "WHEN_BOOST", "Chunk", "Scan", "Started", "Stats",
    "analyze", "bm25f", "chunk_lines", "days_named", "entry_parser", "field_counts",
    "field_text", "has_filters", "idf", "json_loads", "keep", "match_unit", "memory_chunks",
    "plan_stream", "prefix", "prefixes_of", "proximity", "rank", "rerank", "ripgrep",
    "scan_log", "scan_python", "scan_ripgrep", "score_bound", "snippet", "start_scan", "stem",
    "subject_terms", "terms", "when_named", "words",
]
