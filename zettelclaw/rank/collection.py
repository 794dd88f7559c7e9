"""The ranker over entries already held in memory: extraction's, which read the log once and
asks, per conversation, which of the entries as they stood then its words are about.

The same BM25F (:mod:`.bm25`) and second stage (:mod:`.rerank`) as :func:`.ranking.rank`, the
collection statistics (N, document frequencies, average field lengths) from the entries given.
The query is the whole text: every distinct stem (a transcript, not a question: no 64-term
cap). Each entry's stems are counted once per process (entries never change); of the entries
that share a stem with the text, the SHORTLIST holding the rarest ones are scored exactly."""

from __future__ import annotations

from .bm25 import FIELDS, Stats, bm25f, field_counts
from .english import keep, stem, words
from .rerank import RERANK_DEPTH, rerank


class _Every:
    """What holds every stem: ``field_counts`` then counts all an entry has."""

    def __contains__(self, stem: str) -> bool:
        return True


_EVERY_STEM = _Every()
SHORTLIST = 4 * RERANK_DEPTH  # at most this many entries are scored exactly
# entry id -> (per field: stem -> count, per field: length in words, every stem it holds)
_COUNTED: dict[str, tuple[dict[str, dict[str, int]], dict[str, int], frozenset[str]]] = {}


def _counted(entry: dict) -> tuple[dict[str, dict[str, int]], dict[str, int], frozenset[str]]:
    key = entry.get("id")
    found = _COUNTED.get(key) if isinstance(key, str) else None
    if found is None:
        counts, lengths = field_counts(entry, _EVERY_STEM, ("",))
        found = (counts, lengths, frozenset(t for field in counts.values() for t in field))
        if isinstance(key, str):
            _COUNTED[key] = found
    return found


def rank_entries(text: str, entries: list[dict], limit: int) -> list[dict]:
    """The ``entries`` that ``text``'s words are about, best first, at most ``limit``; each a
    copy with its ``score``. Ties: the later-dated first, as :func:`.ranking.rank`."""
    from ..clock import sort_key

    query_terms = list(dict.fromkeys(stem(w) for w in words(text) if keep(w)))
    wanted = set(query_terms)
    if not wanted or not entries or limit < 1:
        return []
    stats = Stats(n=len(entries))
    totals = dict.fromkeys(FIELDS, 0)
    matched = []
    for entry in entries:
        counts, lengths, stems = _counted(entry)
        for name in FIELDS:
            totals[name] += lengths[name]
        held = stems & wanted
        if held:
            matched.append((entry, counts, lengths, held))
            for t in held:
                stats.df[t] = stats.df.get(t, 0) + 1
    stats.avg = {name: (totals[name] / len(entries)) or 1.0 for name in FIELDS}
    stats.finish(stats.df)
    # a shortlist by the idf of the stems each holds (k1 + 1 times it bounds the exact score),
    # then BM25F on it alone: the whole of a year's log may share a word with the transcript
    # (each sum in the stems' sorted order: a set's order changes with the hash seed, and a
    # float sum with its order, which turned near-ties over from one run to the next)
    bound = [(sum(stats.idf[t] for t in sorted(held)), order) for order, (*_, held)
             in enumerate(matched)]
    bound.sort(reverse=True)
    scored = []
    for _, order in bound[:SHORTLIST]:
        entry, counts, lengths, held = matched[order]
        score = bm25f(counts, lengths, stats, sorted(held))
        if score > 0:
            scored.append((score, order, entry, None))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    pool = scored[:max(limit, RERANK_DEPTH)]
    # the second stage looks at the stems the pool holds (a long transcript has thousands)
    held = set().union(*(matched[order][3] for _, order, *_ in pool))
    reranked = rerank(pool, text, [t for t in query_terms if t in held], stats)
    reranked.sort(key=lambda p: (p[0], sort_key(p[1].get("timestamp"))), reverse=True)
    return [{**item, "score": round(total, 4)} for total, item, *_ in reranked[:limit]]
