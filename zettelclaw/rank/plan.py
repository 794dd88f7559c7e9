"""The sampling plan of a large log's scan (recall's): which query terms rg streams, from the
sample taken first, and the unit of recall's ``minScore``."""

from __future__ import annotations

import math

from .bm25 import K1, idf, match_unit
from .rerank import PROXIMITY_WEIGHT, SESSION_WEIGHT, SUBJECT_BOOST, days_named, when_named

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .sample import Scan

# a term seen in fewer of a large log's sampled entries than this is never left out of the
# stream (its document frequency, estimated from so few, could be far off)
COMMON_MIN_SEEN = 5


def score_bound(idfs: dict[str, float], query_terms: list[str], held: set[str],
                relative: float) -> float:
    """The most a recalled entry holding only the terms ``held`` can score: each term
    saturates at idf * (k1 + 1) over all fields, proximity adds its share of each adjacent
    pair, the subject multiplies by 1 + SUBJECT_BOOST, and the session context (a share of the
    best score in the session, which may be another entry's) by what recall's ``relative``
    floor allows: to stay within ``relative`` of the best, an entry needs at least
    relative * (1 + w) - w of its session's best score itself (w = SESSION_WEIGHT)."""
    score = sum(idfs[t] * (K1 + 1) for t in held)
    score += sum(PROXIMITY_WEIGHT * (idfs[a] + idfs[b])
                 for a, b in zip(query_terms, query_terms[1:], strict=False)
                 if a in held and b in held)
    own = relative * (1 + SESSION_WEIGHT) - SESSION_WEIGHT
    session = 1 + SESSION_WEIGHT / own if own > 0 else math.inf
    return score * (1 + SUBJECT_BOOST) * session


def plan_stream(sample: Scan, query_terms: list[str], floor: float, relative: float,
                text: str | None) -> list[str]:
    """Which terms the scan of a large log streams, from its sample (taken first), for a
    ranking that wants only entries scoring ``floor`` match units or more, within
    ``relative`` of the best (recall's; see score_bound).

    The most common terms are left out for as long as an entry holding only them could not
    reach the floor (MaxScore's non-essential terms): every entry that can qualify holds one
    of the others, which pick the candidates; the common ones are still counted when a
    candidate is read back, their df estimated from the sample. None left: no entry can
    qualify (``what about the dog?`` where one entry in seven has a dog), no stream at all.
    A message that names a time streams every term (the time boost is not bounded so)."""
    months, years = when_named(text)
    if months or years or days_named(text):
        return list(query_terms)
    n, seen = max(sample.lines, 1), max(sample.sampled, 1)
    counts = sample.sample_df or {}
    # a term the sample did not see is taken as rare as can be (held by one entry)
    idfs = {t: idf(n, max(round(counts.get(t, 0) * n / seen), 1)) for t in query_terms}
    wanted = floor * match_unit(n)
    left_out: set[str] = set()
    for t in sorted(query_terms, key=lambda t: (idfs[t], query_terms.index(t))):
        if counts.get(t, 0) < COMMON_MIN_SEEN:
            break
        if score_bound(idfs, query_terms, left_out | {t}, relative) >= wanted:
            break
        left_out.add(t)
    return [t for t in query_terms if t not in left_out]

