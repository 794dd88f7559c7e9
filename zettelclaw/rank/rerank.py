"""The second stage: cheap signals plain BM25 misses, over the best candidates: query terms
adjacent as in the question, the subject it names, the month, year or day it names, and each
entry's session context; last, a handoff that a later correction answering the same words
has outdated falls below it (:func:`_outdated_handoffs`)."""

from __future__ import annotations

from .english import keep, prefixes_of, stem, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .bm25 import Stats

RERANK_DEPTH = 100           # how many BM25 candidates the second stage looks at
PROXIMITY_WEIGHT = 0.25      # share of the two terms' idf earned when they are adjacent
SUBJECT_BOOST = 0.5          # an entry about the subject the question names: score * (1 + this)
WHEN_BOOST = 0.5             # an entry written in the month/year the question names: + this * best
SESSION_WEIGHT = 0.4         # an entry's session context: + this * the best score in its session
# a handoff older than a correction among the candidates that matches every query word the
# correction matches: at most this share of the correction's score (under recall's RELATIVE,
# 0.6, of the best: recall never shows it; search lists it below the correction)
OUTDATED_SHARE = 0.5


class _Question:
    """What proximity looks for, worked out once per question: the adjacent pairs of its
    terms, their prefixes, and the stem of each word met so far (the pool's entries share
    most of their words)."""

    def __init__(self, query_terms: list[str]):
        self.pairs = set(zip(query_terms, query_terms[1:], strict=False))
        self.wanted = frozenset(query_terms)
        self.starts = tuple(prefixes_of(query_terms))  # (the word-starts BM25 counts)
        self.prefixes = self.starts if self.pairs else ()
        # word -> its stem, "" when no query term can come from it, False for a stop word
        self.stems: dict[str, str | bool] = {}
        self.subjects: dict[str, bool] = {}  # slug -> whether the question names it

    def names(self, slug: str) -> bool:
        """Whether the question holds every stem of the subject ``slug`` (``queue-retries``:
        ``queue`` and ``retri``). A slug word that starts with no query prefix cannot stem to
        a query term (BM25 counts the subject field by the same rule): the rest are stemmed
        only when every word may be (the pool's 100 entries name dozens of subjects)."""
        found = self.subjects.get(slug)
        if found is None:
            kept = _slug_words(slug)
            found = self.subjects[slug] = bool(kept) and all(
                w.startswith(self.starts) for w in kept) and self.wanted.issuperset(
                stem(w) for w in kept)
        return found

    def stems_of(self, text_words: list[str]) -> list[str]:
        """The stem of each word but the stop words ("" where no query term can be)."""
        known, out = self.stems, []
        for word in text_words:
            found = known.get(word)
            if found is None:
                found = known[word] = False if not keep(word) else \
                    stem(word) if word.startswith(self.prefixes) else ""
            if found is not False:
                out.append(found)
        return out


def proximity(text_words: list[str], query_terms: list[str], stats: Stats,
              question: _Question | None = None, text: str | None = None
              ) -> tuple[float, list]:
    """Bonus for query terms that stand next to each other (stop words skipped) as in the
    question: ``support group`` beats an entry that says support here and group there.
    ``text``: the lowercased text ``text_words`` come from, when the caller has it."""
    question = question or _Question(query_terms)
    pairs = question.pairs
    if not pairs:
        return 0.0, []
    if text is not None and sum(text.count(p) for p in question.prefixes) < 2:
        return 0.0, []  # fewer than two words start with a query prefix: no pair to stand
    stems = question.stems_of(text_words)
    found = {pair for pair in zip(stems, stems[1:], strict=False) if pair in pairs}
    bonus = sum(PROXIMITY_WEIGHT * (stats.idf.get(a, 0) + stats.idf.get(b, 0)) for a, b in found)
    return bonus, sorted(f"{a} {b}" for a, b in found)


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_PATTERNS = {
    "month": r"\b(?:(in|of|since|during|early|mid|late|last|next|this)\s+)?"
             r"(january|february|march|april|may|june|july|august|september|october|november"
             r"|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b\.?"
             r"(\s*,?\s*(?:\d{1,4}))?",
    "year": r"\b(19[5-9]\d|20\d\d)\b",
}
_MONTH_NAMES = (r"(january|february|march|april|may|june|july|august|september|october"
                r"|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_PATTERNS["day"] = (
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_NAMES + r"\b\.?,?(?:\s*(\d{4})\b)?"
    r"|\b" + _MONTH_NAMES + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4})\b)?"
    r"|\b(\d{4})-(\d{2})-(\d{2})\b")
_compiled: dict = {}


def _regex(name: str):
    """One of _PATTERNS, compiled on first use (case-insensitive)."""
    found = _compiled.get(name)
    if found is None:
        import re  # (only for a message that may name a time: recall's start-up is measured)

        found = _compiled[name] = re.compile(_PATTERNS[name], re.IGNORECASE)
    return found


DAY_WINDOW = 7               # a named day matches entries written up to a week either side


def _may_name_a_time(text: str | None) -> bool:
    """Whether ``text`` may name a month, year or day (the expressions above are compiled,
    at some cost, only then): a digit or a month's first three letters."""
    low = (text or "").lower()
    return any(c.isdigit() for c in low) or any(m in low for m in _MONTH_ABBR)


def when_named(text: str | None) -> tuple[frozenset[int], frozenset[int]]:
    """The calendar months and years a question names: ``in June`` -> ({6}, {}),
    ``May 2023`` -> ({5}, {2023}). ``may``/``march`` (verbs too) and 3-letter abbreviations
    count only with a number or after ``in``, ``since``, ``during``, ``early``, ``mid``,
    ``late``."""
    months, years = set(), set()
    if not _may_name_a_time(text):
        return frozenset(), frozenset()
    for m in _regex("month").finditer(text or ""):
        lead, name, number = m.group(1), m.group(2), m.group(3)
        word = name.lower()
        ambiguous = word in ("may", "march") or len(word) <= 4 and word not in ("june", "july")
        firm = number or lead and lead.lower() in ("in", "since", "during", "early", "mid", "late")
        if ambiguous and not firm:
            continue
        months.add(_MONTH_ABBR[word[:4] if word == "sept" else word[:3]])
    years.update(int(y) for y in _regex("year").findall(text or ""))
    return frozenset(months), frozenset(years)


def days_named(text: str | None) -> list[tuple[int | None, int, int]]:
    """The calendar days a question names, as (year or None, month, day): ``on 7 July, 2023``,
    ``July 7th``, ``2026-03-03``."""
    out = []
    if not _may_name_a_time(text):
        return out
    for m in _regex("day").finditer(text or ""):
        g = m.groups()
        if g[0]:
            day, name, year = g[0], g[1], g[2]
        elif g[3]:
            name, day, year = g[3], g[4], g[5]
        else:
            out.append((int(g[6]), int(g[7]), int(g[8])))
            continue
        word = name.lower()
        out.append((int(year) if year else None,
                     _MONTH_ABBR[word[:4] if word == "sept" else word[:3]], int(day)))
    return [d for d in out if 1 <= d[1] <= 12 and 1 <= d[2] <= 31]


def _near_day(entry: dict, days: list[tuple[int | None, int, int]]) -> bool:
    """Whether the entry was written within DAY_WINDOW days of a named day (a day named
    without a year: in the entry's year)."""
    from datetime import date

    stamp = entry.get("timestamp")
    try:
        written = date(int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10]))
    except (TypeError, ValueError):
        return False
    for year, month, day in days:
        try:
            named = date(year or written.year, month, day)
        except ValueError:
            continue
        if abs((written - named).days) <= DAY_WINDOW:
            return True
    return False


def _written_in(entry: dict, months: frozenset[int], years: frozenset[int]) -> bool:
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str) or len(stamp) < 7 or not stamp[:4].isdigit():
        return False
    try:
        year, month = int(stamp[:4]), int(stamp[5:7])
    except ValueError:
        return False
    return (not months or month in months) and (not years or year in years)


def subject_terms(slug: str) -> tuple[str, ...]:
    """The stems of a subject slug (``queue-retries`` -> ``('queue', 'retri')``)."""
    return tuple(stem(w) for w in _slug_words(slug))


def _slug_words(slug: str) -> list[str]:
    """The words of a subject slug that have a stem (stop words left out)."""
    return [w for w in words(slug.replace("-", " ").replace("_", " ")) if keep(w)]




# -- the second stage -------------------------------------------------------------------------

def rerank(top: list, text: str | None, query_terms: list[str], stats: Stats) -> list[list]:
    """The pool's items (``(score, tiebreak, item, why)``, in any order) as ``[total, item, why,
    boosts, bm25]``: proximity, the subject the question names, the month or year it names,
    then each entry's session context (passage retrieval's document score)."""
    question = _Question(query_terms)
    pool = [_near_and_about(score, item, why, query_terms, stats, question)
            for score, _, item, why in top]
    _when_boost(pool, text)
    _session_boost(pool)
    _outdated_handoffs(pool, query_terms)
    return pool


def _near_and_about(score: float, item: dict, why: dict | None, query_terms: list[str],
                    stats: Stats, question: _Question) -> list:
    """One item with its proximity bonus and, for an entry about the subject the question
    names, the subject boost."""
    boosts = {}
    memory = item.get("source") == "memory"
    text = item.get("snippet") if memory else (
        f"{item.get('content', '')}\n{item.get('detail') or ''}")
    total = score
    low = text.lower()  # (words() lowercases the same way)
    near, pairs = proximity(words(low), query_terms, stats, question, low)
    if near:
        total += near
        boosts["proximity"] = {"pairs": pairs, "score": round(near, 4)}
    subject = item.get("subject")
    if not memory and isinstance(subject, str) and subject:
        if question.names(subject):
            gain = total * SUBJECT_BOOST
            total += gain
            boosts["subject"] = {"subject": subject, "score": round(gain, 4)}
    return [total, item, why, boosts, score]


def _when_boost(pool: list[list], text: str | None) -> None:
    """A share of the best score for the entries written in the month or year the question
    names, twice as much within a week of a day it names."""
    months, years = when_named(text)
    days = days_named(text)
    if not (months or years) or not pool:
        return
    best = max(p[0] for p in pool)
    for p in pool:
        if p[0] <= 0 or p[1].get("source") == "memory":
            continue
        near = bool(days) and _near_day(p[1], days)  # the very week the question names
        if near or _written_in(p[1], months, years):
            gain = WHEN_BOOST * best * (2 if near else 1)
            p[0] += gain
            p[3]["when"] = {"months": sorted(months), "years": sorted(years),
                            "score": round(gain, 4)}


def _session_boost(pool: list[list]) -> None:
    """Each entry's session context: a share of the best score in its session."""
    context: dict[str, float] = {}
    for total, item, *_ in pool:
        sid = item.get("session")
        if isinstance(sid, str) and sid:
            context[sid] = max(context.get(sid, 0.0), total)
    for p in pool:
        sid = p[1].get("session")
        if isinstance(sid, str) and sid and SESSION_WEIGHT:
            gain = SESSION_WEIGHT * context[sid]
            p[0] += gain
            p[3]["session"] = {"session": sid, "score": round(gain, 4)}


def _outdated_handoffs(pool: list[list], query_terms: list[str]) -> None:
    """A handoff never speaks for a fact corrected since: a handoff older than a correction in
    the pool (an entry that replaces another) is worth at most :data:`OUTDATED_SHARE` of the
    correction's score when it matches every query word the correction matches (it says what
    the question found corrected: "what is the gate code now?" against a handoff quoting the
    old code). A handoff is never corrected itself (it is the state of one conversation), so
    this is where the later version wins."""
    handoffs = [p for p in pool if p[1].get("type") == "handoff" and p[0] > 0]
    if not handoffs:
        return
    corrections = [p for p in pool if isinstance(p[1].get("replaces"), str)
                   and p[1].get("type") != "handoff" and p[0] > 0]
    if not corrections:
        return
    from ..clock import sort_key

    wanted, prefixes = set(query_terms), tuple(prefixes_of(query_terms))

    def matched(item: dict) -> set[str]:
        text = f"{item.get('content', '')}\n{item.get('detail') or ''}"
        return {stem(w) for w in words(text) if w.startswith(prefixes) and keep(w)} & wanted

    later = [(sort_key(p[1].get("timestamp")), matched(p[1]), p) for p in corrections]
    for p in handoffs:
        stamp, said = sort_key(p[1].get("timestamp")), None
        best = None
        for when, found, c in later:
            if not found or not when or when <= stamp:
                continue
            if said is None:
                said = matched(p[1])
            if found <= said and (best is None or c[0] > best[0]):
                best = c
        if best is not None and p[0] > OUTDATED_SHARE * best[0]:
            cap = OUTDATED_SHARE * best[0]
            p[3]["outdated"] = {"by": best[1].get("id"), "score": round(cap - p[0], 4)}
            p[0] = cap
