"""BM25F: the collection statistics and the per-field score of an entry (or a memory chunk)."""

from __future__ import annotations

import math

from .english import keep, stem, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

K1 = 1.2
FIELDS = ("content", "detail", "subject")
# weight and length normalisation per field (BM25F): content is the entry; detail is
# background, worth less per word; subject is a slug naming the project or person, short and
# precise, so a query word that is the subject counts more and its length does not matter.
WEIGHTS = {"content": 1.0, "detail": 0.6, "subject": 1.5}
NORMS = {"content": 0.75, "detail": 0.75, "subject": 0.0}


def idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def match_unit(n: int) -> float:
    """The score of one match of a word only one entry holds, in a log of ``n`` entries: the
    unit of recall's ``minScore``, so one threshold holds for a log of 50 entries and of a
    million (BM25's idf, hence every score, grows with the log)."""
    return max(idf(max(n, 1), 1), 1e-9)


class Stats:
    """What BM25 needs to know about the whole collection."""

    def __init__(self, n: int = 0, df=None, avg=None, idf=None):
        self.n = n
        self.df: dict[str, int] = df if df is not None else {}
        self.avg: dict[str, float] = avg if avg is not None else {}
        self.idf: dict[str, float] = idf if idf is not None else {}

    def finish(self, query_terms: Iterable[str]) -> None:
        for t in query_terms:
            df = self.df.get(t, 0)
            self.idf[t] = idf(self.n, df) if df else 0.0

    def with_avg(self, avg: dict[str, float]) -> Stats:
        return Stats(self.n, self.df, avg, self.idf)


def field_text(entry: dict, name: str) -> str:
    value = entry.get(name)
    return value if isinstance(value, str) else ""


def field_counts(entry: dict, wanted: set[str], prefixes: tuple[str, ...],
                 seen: dict[str, str | None] | None = None
                 ) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Per field: the counts of the query stems it contains, and its length in words. Only
    words that start with a query prefix are stemmed (the rest cannot have a query stem).
    ``seen``: the query stem (or None) of each word met so far, kept by a caller that counts
    many entries for one query (a word is looked at once, then looked up)."""
    counts, lengths = {}, {}
    if seen is None:
        seen = {}
    for name in FIELDS:
        value = entry.get(name)
        tokens = words(value) if isinstance(value, str) else []
        lengths[name] = len(tokens)
        found: dict[str, int] = {}
        for w in tokens:
            t = seen.get(w, _UNSEEN)
            if t is _UNSEEN:
                t = stem(w) if w.startswith(prefixes) and keep(w) else None
                t = seen[w] = t if t in wanted else None
            if t is not None:
                found[t] = found.get(t, 0) + 1
        counts[name] = found
    return counts, lengths


_UNSEEN = object()


def bm25f(counts: dict[str, dict[str, int]], lengths: dict[str, int], stats: Stats,
          query_terms: list[str], explain: dict | None = None) -> float:
    """BM25F: per-field weighted, length-normalised term frequency, saturated once.
    ``counts``: per field, term -> occurrences."""
    score = 0.0
    fields = None  # per field with a query term: its counts, weight and norm (worked out once)
    for t in query_terms:
        weight = stats.idf.get(t, 0.0)
        if not weight:
            continue
        if fields is None:
            fields = []
            for name, counter in counts.items():
                if counter:
                    avg = stats.avg.get(name) or 1.0
                    b = NORMS.get(name, 0.75)
                    fields.append((name, counter, WEIGHTS.get(name, 1.0),
                                   1.0 - b + b * lengths[name] / avg))
        tf = 0.0
        per_field = {}
        for name, counter, w, norm in fields:
            raw = counter.get(t, 0)
            if not raw:
                continue
            tf += w * raw / norm
            per_field[name] = raw
        if tf:
            part = weight * tf * (K1 + 1) / (tf + K1)
            score += part
            if explain is not None:
                explain[t] = {"idf": round(weight, 4), "tf": per_field, "score": round(part, 4)}
    return score


def _counter(tokens: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in tokens:
        out[t] = out.get(t, 0) + 1
    return out

