"""Structured queries over the log: type, subject, status, session, time window, keywords.

Replaced entries are hidden unless ``include_replaced``; then they carry ``replacedBy``.
The scan streams the file and only parses lines whose raw bytes can match, so a filter costs
about as much as reading the file once.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from . import clock
from .clock import is_plain, parse_ts, sort_key, within_years
from .errors import BadValue, UsageError
from .people import sees as _sees

_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w|y)\s*(?:ago)?\s*$", re.I)
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_when(text: str, *, end_of_day: bool = False, now: datetime | None = None) -> datetime:
    """A moment from ``7d`` / ``12h`` / ``2w`` / ``today`` / an ISO date or date-time (UTC)."""
    try:
        return _parse_when(text, end_of_day=end_of_day, now=now)
    except (OverflowError, ValueError):  # 3000y, 10**30d, 9999-12-31 as an upper bound
        raise UsageError(f"cannot use {text!r} as a time: it lies outside the years 1-9999"
                         ) from None


def _parse_when(text: str, *, end_of_day: bool = False, now: datetime | None = None) -> datetime:
    now = now or clock.now()
    value = text.strip()
    match = _RELATIVE.match(value)
    if match:
        amount, unit = int(match.group(1)), match.group(2).lower()
        if unit == "y":
            return now - timedelta(days=365 * amount)
        return now - timedelta(**{_UNITS[unit]: amount})
    lowered = value.lower()
    if lowered in ("now",):
        return now
    if lowered in ("today", "yesterday"):
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        if lowered == "yesterday":
            day -= timedelta(days=1)
        return day + timedelta(days=1) if end_of_day else day
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"cannot read {text!r} as a time: use an ISO date (2026-02-20), "
            "a date-time or a relative form like 7d, 12h, 2w") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = within_years(moment)
    if end_of_day and len(value) == 10:  # a bare date as an upper bound includes that day
        moment += timedelta(days=1)
    return moment


def entry_time(entry: dict) -> datetime | None:
    return parse_ts(entry.get("timestamp"))


def check_query(text: str | None) -> None:
    """UsageError when ``text`` is longer than ``rank.MAX_QUERY_CHARS``."""
    if text is None:  # a filtered search: no need to import rank
        return
    from .rank import MAX_QUERY_CHARS

    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {len(text):,} characters: at most {MAX_QUERY_CHARS:,} "
                         "(ask with the words that matter)")


@dataclass
class Query:
    """A search: keywords (at most MAX_QUERY_CHARS characters) and structured filters."""

    text: str | None = None
    type: str | None = None
    subject: str | None = None
    status: str | None = None
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_replaced: bool = False
    limit: int | None = None
    # the agents whose entries match (None: every agent); entries without ``agent`` belong to
    # ``default_agent``
    agents: frozenset[str] | None = None
    default_agent: str = "main"
    # whose session asks (zettelclaw.people): None, the terminal, sees every person's entries
    person: str | None = None
    words: list[str] = field(init=False)

    def __post_init__(self):
        from .log import TASK_STATUSES, TYPES

        # a bad value as Click words its own (docs/exit-codes.md: one shape everywhere)
        if self.type is not None and self.type not in TYPES:
            raise BadValue("'--type' / '-t'", self.type, f"is not one of {', '.join(TYPES)}")
        if self.status is not None and self.status not in TASK_STATUSES:
            raise BadValue("'--status'", self.status, "is not one of open, done")
        if self.limit is not None and self.limit < 1:
            raise BadValue("'--limit' / '-n'", self.limit, "is not at least 1")
        if self.subject is not None:  # a malformed slug is a usage error, not "no entries"
            from .subjects import check_slug

            self.subject = check_slug(self.subject)
        check_query(self.text)
        self.words = [w.lower() for w in (self.text or "").split() if w]

    def needles(self) -> list[bytes]:
        """Byte strings every matching raw line must contain (a cheap prefilter)."""
        out = []
        for value in (self.type, self.subject, self.status, self.session):
            if value and value.isascii():  # (other letters have more than one spelling)
                out.append(b'"' + value.encode() + b'"')
        if self.agents is not None and len(self.agents) == 1 \
                and self.default_agent not in self.agents:
            out.append(b'"agent":"' + next(iter(self.agents)).encode() + b'"')
        return out

    def in_scope(self, entry: dict) -> bool:
        if self.person is not None and not _sees(self.person, entry):
            return False
        if self.agents is None:
            return True
        agent = entry.get("agent")
        return (agent if isinstance(agent, str) and agent else self.default_agent) in self.agents

    def matches(self, entry: dict) -> bool:
        """The structured filters and keywords (every word, case-insensitive)."""
        if self.type and entry.get("type") != self.type:
            return False
        if not self.in_scope(entry):
            return False
        if self.subject and entry.get("subject") != self.subject:
            return False
        if self.status and entry.get("status") != self.status:
            return False
        if self.session and entry.get("session") != self.session:
            return False
        if self.since or self.until:
            moment = entry_time(entry)
            if moment is None:
                return False
            if self.since and moment < self.since:
                return False
            if self.until and moment >= self.until:
                return False
        if self.words:
            haystack = f"{entry.get('content', '')}\n{entry.get('detail') or ''}".lower()
            if not all(word in haystack for word in self.words):
                return False
        return True


def scan(query: Query, path: Path | None = None, *, warn: bool = True, started=None):
    """Yield ``(position, entry)`` for every entry that matches ``query``, oldest first.

    Applies replacement resolution: replaced entries are skipped, or marked with
    ``replacedBy`` when ``query.include_replaced``. With ripgrep, rg reads the log
    (:class:`zettelclaw.ripgrep.Filtered`; ``started``: those passes, started by the hot path
    before it imported this module); else Python reads it twice. A line repeated by hand (its
    id written again) is yielded once, its first time, as every reader takes it.
    """
    yield from _scan(query, path, warn=warn, started=started)


def _scan(query: Query, path: Path | None, *, warn: bool, started):
    from . import paths

    path = path or paths.log_path()
    needles = query.needles()
    # raw-byte prefilter only for words that appear verbatim in JSON (ASCII, nothing escaped)
    words = [w.encode() for w in query.words
             if w.isascii() and '"' not in w and "\\" not in w and w.isprintable()]
    # the longest needle (a subject or session rather than a type) finds the candidate lines
    needles.sort(key=len, reverse=True)
    if started is not None and not set(started.needles) <= set(needles):
        started.kill()
        started = None
    if started is None and needles:
        from .ripgrep import Filtered

        started = Filtered.start(path, needles)
    if started is not None:
        rest = [n for n in needles if n not in started.needles]
        found = _scan_ripgrep(query, path, started, _prefilter(rest, words), warn)
        try:
            first = next(found)
        except StopIteration:
            return
        except _RipgrepFailed as failed:
            started.kill()
            warn = warn and not failed.warned
        else:
            yield first
            yield from found
            return
    from .log import Log
    from .resolve import StreamingResolution

    resolution = StreamingResolution.scan(path)
    first, rest = (needles[0], needles[1:]) if needles else (None, [])
    seen: set[str] = set()
    for pos, entry in Log(path, warn=warn).located(_prefilter(rest, words), needle=first):
        if query.matches(entry) and _first(entry, seen) \
                and _current(pos, entry, resolution, query):
            yield pos, entry


class _RipgrepFailed(Exception):
    """rg failed, or the log was renamed over while it read it: read the log in Python
    (``warned``: rg's lines were read to the end, and a torn line already said so)."""

    def __init__(self, warned: bool = False):
        super().__init__()
        self.warned = warned


# at most this many entries wait for the "replaces" pass in memory
_WAITING = 4096


def _scan_ripgrep(query: Query, path: Path, started, prefilter, warn: bool):
    """:func:`scan` over rg's lines; raises :class:`_RipgrepFailed` before its first entry.
    The lines are parsed and matched while rg still looks for the "replaces" (they wait for
    it in memory, a bounded number), then judged."""
    from .log import Log

    lines = started.lines()
    if lines is None:
        raise _RipgrepFailed
    resolution, waiting = None, []
    seen: set[str] = set()
    for pos, entry in Log(path, warn=warn).located(prefilter, lines=lines):
        if not query.matches(entry) or not _first(entry, seen):
            continue
        if resolution is None:
            waiting.append((pos, entry))
            if len(waiting) < _WAITING and (len(waiting) % 64 or not started.done()):
                continue
            resolution = started.resolution()
            if resolution is None:
                raise _RipgrepFailed
            located, waiting = waiting, []
        else:
            located = ((pos, entry),)
        for pos, entry in located:
            if _current(pos, entry, resolution, query):
                yield pos, entry
    if resolution is None:
        resolution = started.resolution()
        if resolution is None:
            raise _RipgrepFailed(warned=True)
        for pos, entry in waiting:
            if _current(pos, entry, resolution, query):
                yield pos, entry


def _prefilter(rest: list[bytes], words: list[bytes]):
    """A cheap test of a raw line: it holds every needle of ``rest`` and every word
    (lowercased); None when there is nothing to test."""
    if not rest and not words:
        return None

    def maybe(line: bytes) -> bool:
        if rest and not all(n in line for n in rest):
            return False
        if words:
            lowered = line.lower()
            return all(w in lowered for w in words)
        return True

    return maybe


def _first(entry: dict, seen: set[str]) -> bool:
    """Whether ``entry``'s line is the first of its id (``seen``: the ids met so far, in log
    order): a line repeated by hand is the same entry, its first line alone read."""
    if entry["id"] in seen:
        return False
    seen.add(entry["id"])
    return True


def _current(pos: int, entry: dict, resolution, query: Query) -> bool:
    """Whether ``entry`` (its line at ``pos``) is shown: not replaced by a later line, or
    ``include_replaced`` (it then carries ``replacedBy``)."""
    if not resolution.is_named(entry["id"]):
        return True
    found = resolution.replacer(entry["id"], pos)
    if found is None:
        return True
    if query.include_replaced:
        from .resolve import mark

        mark(entry, found[1])
        return True
    return False


def latest(located, limit: int) -> list[tuple[int, dict]]:
    """The ``limit`` latest-dated of ``(position, entry)`` pairs, oldest first.

    By the entries' timestamps (when their conversations happened), not their place in the
    file: a late extraction appends older-dated entries at the end. Equal timestamps keep file
    order; an entry without a readable timestamp counts as the oldest.
    """
    top = heapq.nlargest(limit, located, key=_date_order)
    top.reverse()
    return top


def _date_order(item: tuple[int, dict]) -> tuple[str, int]:
    return sort_key(item[1].get("timestamp")), item[0]


_TIMESTAMP = b'"timestamp":"'
_STAMP_RE = re.compile(rb'"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"')


def _candidates(path: Path, top: list, limit: int):
    """``(offset, line)`` from the last line to the first, skipping whole blocks whose every
    line is dated in the log's own form no later than the ``limit``-th latest date in ``top``
    (such lines cannot get in: later lines win ties). One regex pass per block, in C.
    Records (forgets, their undos, purge tombstones) are left out by their bytes."""
    from .log import reverse_located

    blocks = reverse_located(path, whole_blocks=True)
    for base, block in blocks:
        if len(top) >= limit:
            stamps = _STAMP_RE.findall(block)
            if len(stamps) == block.count(b"\n") + 1 and max(stamps) <= top[0][0]:
                continue
        end = base + len(block)
        for line in reversed(block.split(b"\n")):
            start = end - len(line)
            if line.strip() and not is_record_line(line):
                yield start, line
            end = start - 1


_AGENT = b'"agent":"'


def _line_agent(line: bytes, default: str) -> str | None:
    """The agent of a raw log line by its bytes (the log's compact form), None if unsure."""
    at = line.find(_AGENT)
    if at < 0:
        return default if b'"agent"' not in line else None
    end = line.find(b'"', at + 9)
    value = line[at + 9:end]
    return value.decode() if end > 0 and b"\\" not in value and value else None


def is_record_line(line: bytes) -> bool:
    """Whether a raw line is a forget, its undo or a purge tombstone, by its bytes (quotes
    inside a text are escaped, so no content holds these)."""
    return (b'"purged":"' in line or b'"type":"forget"' in line
            or b'"type":"unforget"' in line)


def latest_entries(limit: int, path: Path | None = None, *,
                   agents: frozenset[str] | None = None, default_agent: str = "main"
                   ) -> list[dict]:
    """The ``limit`` latest-dated entries of the whole log, oldest first, replaced ones marked
    (what ``zettelclaw log`` shows): :func:`latest` over every line, but read from the end (most
    lines of a mostly dated-in-order log then cost one comparison) and only the lines that make
    it are parsed; the others are dated by the bytes of their ``"timestamp"`` field."""
    from . import paths
    from .resolve import StreamingResolution

    path = path or paths.log_path()
    dropped: set[int] = set()  # lines of forgotten or purged things: they show nowhere
    resolution = None  # (one scan of the "replaces", whatever the rounds)
    while True:
        chosen = _latest_lines(limit, path, agents, default_agent, dropped)
        if chosen is None:  # a torn or invalid line dated like an entry: do it the long way
            query = Query(include_replaced=True, agents=agents, default_agent=default_agent)
            return [e for _, e in latest(
                ((p, e) for p, e in scan(query, path) if "forgotten" not in e), limit)]
        if not chosen:
            return []
        if resolution is None:
            resolution = StreamingResolution.scan(path)
        gone = False
        for start, entry in chosen:
            if resolution.is_named(entry["id"]):
                if resolution.gone(entry, start) is not None:
                    dropped.add(start)
                    gone = True
                    continue
                replacer = resolution.replaced_by(entry["id"], start)
                if replacer is not None:
                    entry["replacedBy"] = replacer
        if not gone:
            first = {}  # a line repeated by hand: its first line alone (as every reader)
            for start, entry in chosen:
                first[entry["id"]] = min(start, first.get(entry["id"], start))
            return [entry for start, entry in chosen if first[entry["id"]] == start]


def _latest_lines(limit, path, agents, default_agent, dropped) -> list | None:
    from .log import parse_line

    top: list[tuple[bytes, int, bytes]] = []  # min-heap: the earliest date, then earliest line
    for start, line in _candidates(path, top, limit):
        if start in dropped:
            continue
        if agents is not None:
            agent = _line_agent(line, default_agent)
            if agent is None:
                entry = parse_line(line)
                if entry is None:
                    continue
                agent = entry.get("agent") or default_agent
            if agent not in agents:
                continue
        at = line.find(_TIMESTAMP)
        key = line[at + 13:at + 33] if at >= 0 else b""
        if not is_plain(key.decode("latin-1")):  # the log's own form naming a real moment
            entry = parse_line(line)
            if entry is None:
                continue
            key = sort_key(entry.get("timestamp")).encode()
        if len(top) < limit:
            heapq.heappush(top, (key, start, line))
        elif key > top[0][0]:  # an equal date on an earlier line loses: later lines win ties
            heapq.heapreplace(top, (key, start, line))
    chosen = []
    for _, start, line in sorted(top):
        entry = parse_line(line)
        if entry is None:
            return None
        chosen.append((start, entry))
    return chosen


def run(query: Query, path: Path | None = None, *, started=None) -> list[dict]:
    """Matching entries in log order; with a limit, the ``limit`` latest-dated of them in date
    order, oldest first, as ``log -n`` lists them (a late extraction appends older-dated
    entries at the end: in log order the newest would not come last). ``started``: see
    :func:`scan`."""
    located = scan(query, path, started=started)
    if query.limit:
        return [entry for _, entry in latest(located, query.limit)]
    return [entry for _, entry in located]
