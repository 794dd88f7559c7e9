"""What the log says tonight: one pass over it gives every section but Contradictions (Active,
Recent Decisions, Pending, Open Questions, Stale) and the facts the contradiction check reads.
The pass is over the log's rows (:mod:`.rows`: kept between nights, no text, plus the lines
appended since); a section's texts are read from the log when its items are shown.

Activity (how busy a subject is, when it was last seen, its silences) counts every line of the
log, replaced ones included: a correction is activity. What is *shown* comes only from current
entries. A replacement without a ``subject`` inherits the subject of the entry it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..clock import days_before, format_ts, is_plain, parse_ts, sort_key
from ..review import SESSION as REVIEW_SESSION
from .options import Options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

RECENT_DAYS = 7              # "came back in the last 7 days" (Stale)
ITEM_CHARS = 160             # one item's text; MEMORY.md must stay within OpenClaw's 20k chars
SUBJECT_CHARS = 60


def _ts_key(value) -> str | None:
    """A timestamp as a sortable ``YYYY-MM-DDTHH:MM:SSZ`` string (None when unreadable)."""
    return sort_key(value) or None


def one_line(text, limit: int = ITEM_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters, unable to forge a marker."""
    from ..display import printable

    text = printable(" ".join(str(text or "").split())).replace("<!--", "&lt;!--")
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def name(subject: str) -> str:
    """A subject slug as shown (slugs written by hand can hold anything)."""
    return one_line(subject, SUBJECT_CHARS)


@dataclass
class Snapshot:
    """What the log says tonight: the deterministic sections and the contradiction material."""

    now: datetime
    options: Options
    sections: dict[str, Shown | list[str]]
    by_id: dict[str, dict]
    replaced: set[str]
    facts: dict[str, list[tuple[str, dict]]]  # subject -> current facts/decisions (ts, entry)
    active_key: str
    quiet: dict[str, int] = field(default_factory=dict)  # open loops left out: untouched
    gone: set[str] = field(default_factory=set)  # ids forgotten or purged, records
    # an entry of by_id or sections with its text (a kept row's is read from the log)
    full: Callable[[dict], dict] = lambda entry: entry

    def cutoff(self, days: int) -> datetime:
        return days_before(self.now, days)


def read(options: Options, log_path: Path | None = None, *, trust: bool = True,
         digested: Callable | None = None) -> Snapshot:
    """One pass over the log (the kept rows and the lines appended since, see :mod:`.rows`;
    ``trust``: use the kept rows at all): every section but Contradictions, and the facts to
    check. A section's texts are read from the log when shown; :class:`.rows.Moved` when a
    kept offset holds another line (read again with ``trust=False``). ``digested`` is given
    what the pass saw, to digest the history for the next night (:func:`.digest.keep`);
    :func:`.digest.read` makes the same snapshot without this pass when it can."""
    from .. import clock
    from ..resolve import Resolution
    from . import rows

    now = options.now or clock.now()
    log = rows.read(log_path, trust=trust, keep=options.keep_rows)
    entries, stamps, ahead = _entries_of_the_night(options, format_ts(now), log.entries,
                                                   log.kept)
    entries, stamps = _first_of_each_id(entries, stamps)
    if ahead:  # (dates that are clock errors: the whole pass, until they are past)
        digested = None
    resolution = Resolution(entries)
    night = len(entries)
    # what was forgotten or purged is neither shown nor activity: as if never written;
    # ids that are no more: purge tombstones (and the records' own ids), what was forgotten
    records, hidden = resolution.records, resolution.replaced_by
    gone = set(records).union(e["id"] for e in entries if e["id"] in hidden
                              and resolution.gone(e["id"]) is not None)
    kept = [i for i, e in enumerate(entries) if e["id"] not in gone]
    entries, stamps = [entries[i] for i in kept], [stamps[i] for i in kept]
    tally = _Tally(now, options, resolution.by_id, resolution.replaced_by)
    subjects = [tally.add(pos, entry, stamps[pos]) for pos, entry in enumerate(entries)]
    if digested is not None:
        digested(log, now, resolution, gone, night, stamps, subjects)
    return _snapshot(options, now, log, log_path, tally, resolution.by_id,
                     set(resolution.replaced_by), gone)


def _first_of_each_id(entries: list[dict], stamps: list):
    """A line repeated by hand (its id written again) is one entry, its first line, as
    :class:`~zettelclaw.resolve.Resolution` takes it (such a log is not digested:
    :func:`.digest.keep` sees fewer entries than lines)."""
    seen: set[str] = set()
    keep = [i for i, e in enumerate(entries) if not (e["id"] in seen or seen.add(e["id"]))]
    if len(keep) == len(entries):
        return entries, stamps
    return [entries[i] for i in keep], [stamps[i] for i in keep]


def _snapshot(options: Options, now: datetime, log, log_path, tally: _Tally, by_id,
              replaced: set[str], gone: set[str]) -> Snapshot:
    """Tonight's snapshot from the tally of the night's rows."""
    quiet = tally.leave_quiet(format_ts(days_before(now, options.quiet_after)))
    full = Texts(log, log_path)
    sections = _sections(tally, tally.stale(timedelta(days=options.stale_threshold)), full)
    for subject_facts in tally.facts.values():
        subject_facts.sort(key=lambda item: item[0])
        subject_facts[:] = [(ts, full(entry)) for ts, entry in subject_facts]
    return Snapshot(now=now, options=options, sections=sections, by_id=by_id,
                    replaced=replaced, facts=tally.facts, active_key=tally.active_key,
                    quiet=quiet, gone=gone, full=full)


class Texts:
    """An entry with its text: a kept row's is read back from the log by its offset.

    While ``strict`` a row whose line is no longer there raises :class:`.rows.Moved` (the
    snapshot is to be read again); after, the entry is looked up by its id."""

    def __init__(self, log, log_path):
        self.log, self.log_path = log, log_path
        self.strict = True

    def __call__(self, entry: dict) -> dict:
        from .rows import Moved

        try:
            return self.log.full(entry)
        except Moved:
            if self.strict:
                raise
            from ..log import Log

            found = Log(self.log_path).get(entry["id"])
            if found is None:
                from ..errors import ZettelclawError

                raise ZettelclawError("the log changed while it was read; brief again") \
                    from None
            return found


def _entries_of_the_night(options: Options, now_key: str, lines: list[dict], kept: int = 0
                          ) -> tuple[list[dict], list[str | None], int]:
    """The briefed agent's entries (of ``lines``: the log's entries and records, the first
    ``kept`` of them kept rows, whose timestamps are sortable keys already), their
    timestamps as sortable keys (None: unreadable), and how many lines are dated after now.
    When a night is replayed (``options.now``), what was written after it is left out;
    otherwise a line dated after now was written while the clock ran ahead and is dated as
    :class:`~zettelclaw.clock.Dating` says (just after the lines before it)."""
    from ..clock import Dating
    from ..people import briefed

    replay = options.now is not None
    dating = Dating(now_key)
    entries, stamps = [], []
    agent = options.agent
    for n, entry in enumerate(lines):
        ts = entry.get("timestamp")
        if n >= kept and not is_plain(ts):
            ts = _ts_key(ts)
        if not replay:
            ts = dating(ts)
        if agent is not None and (entry.get("agent") or options.default_agent) != agent:
            continue  # another agent's memory
        if not briefed(entry):
            continue  # another person's, or untrusted words (zettelclaw.people)
        if replay and ts is not None and ts > now_key and entry["type"] not in (
                "forget", "unforget"):
            continue  # written after the night being replayed (a forget counts: never shown)
        entries.append(entry)
        stamps.append(ts)
    return entries, stamps, dating.ahead


class _Tally:
    """What the sections are made of, gathered entry by entry in log order."""

    def __init__(self, now: datetime, options: Options, by_id: dict[str, dict],
                 replaced: dict[str, str]):
        self._begin(format_ts(days_before(now, options.active_window)),
                    format_ts(days_before(now, options.decision_window)),
                    format_ts(days_before(now, RECENT_DAYS)), by_id, replaced,
                    options.use_model)

    @classmethod
    def folding(cls, horizon: str) -> _Tally:
        """A tally of what the entries older than ``horizon`` leave for any later night
        (:mod:`.digest`): every window starts there, the facts are kept."""
        tally = cls.__new__(cls)
        tally._begin(horizon, horizon, horizon, {}, {}, True)
        return tally

    def _begin(self, active_key: str, decision_key: str, recent_key: str,
               by_id: dict[str, dict], replaced: dict[str, str], want_facts: bool) -> None:
        self.active_key, self.decision_key, self.recent_key = (active_key, decision_key,
                                                               recent_key)
        # entries older than every window count for the open loops (and silences) only
        self.window_key = min(self.active_key, self.decision_key, self.recent_key)
        self.by_id = by_id
        self.replaced = replaced
        self.want_facts = want_facts
        self.inherited: dict[str, str] = {}
        self.active_count: dict[str, int] = {}
        self.active_last: dict[str, str] = {}
        self.first_recent: dict[str, str] = {}
        self.before_recent: dict[str, str] = {}
        self.latest: dict[str, tuple[str, int]] = {}
        self.latest_entry: dict[str, dict] = {}  # subject -> its entry of ``latest``
        self.last_seen: dict[str, str] = {}  # subject -> its latest entry of any kind
        self.handed_off: set[str] = set()  # subjects of the handoffs of the last 7 days
        self.decisions: list = []
        self.pending: list = []
        self.questions: list = []
        self.facts: dict[str, list[tuple[str, dict]]] = {}
        # current facts and decisions that stand (see :meth:`_stand`): ((ts, pos), entry,
        # subject, said again)
        self.standing: list = []

    def kind_of(self, entry_id: str) -> str | None:
        """The type of the entry ``entry_id`` (what a correction replaces)."""
        found = self.by_id.get(entry_id)
        return found.get("type") if found is not None else None

    def said_again(self, entry: dict) -> bool:
        """Whether ``entry`` says again, in more words or with a new value, a fact or decision
        it replaces (a digest's row knows it already: ``_again``)."""
        again = entry.get("_again")
        if again is not None:
            return bool(again)
        target = entry.get("replaces")
        return type(target) is str and self.kind_of(target) in ("fact", "decision")

    def _stand(self, pos: int, entry: dict, ts: str, subject) -> None:
        """A current fact or decision written before the decision window stands when it has no
        subject (about the person: a preference, a habit) or says again one it replaces."""
        if ts >= self.decision_key:
            return
        again = self.said_again(entry)
        if subject is None or again:
            self.standing.append(((ts, pos), entry, subject, again))

    def add(self, pos: int, entry: dict, ts: str | None):
        """Count ``entry`` (the ``pos``-th of the night's, ``ts`` its time key); returns its
        subject (inherited by a replacement without one)."""
        subject = self._subject(entry)
        self.place(pos, entry, ts, subject, entry["id"] not in self.replaced)
        return subject

    def place(self, pos: int, entry: dict, ts: str | None, subject, current: bool) -> None:
        """Count ``entry`` whose subject and currency are known (:mod:`.digest`)."""
        kind = entry["type"]
        # what `zettelclaw review` writes (closes, undos) is bookkeeping, not activity
        busy = subject if entry.get("session") != REVIEW_SESSION else None
        if busy and ts is not None and ts > self.last_seen.get(busy, ""):
            self.last_seen[busy] = ts
        if ts is None or ts < self.window_key:  # most of the log: cheap
            self._add_old(pos, entry, ts, subject, kind, current, busy)
        else:
            self._add_recent(pos, entry, ts, subject, kind, current, busy)

    def _subject(self, entry: dict):
        """The entry's subject (a name: a hand-written 42 is none); a replacement without one
        inherits the replaced entry's."""
        subject = entry.get("subject")
        if type(subject) is not str or not subject:
            subject = None
            target = entry.get("replaces")
            if type(target) is str and target in self.by_id:
                named = self.by_id[target].get("subject")
                subject = named if type(named) is str and named else self.inherited.get(target)
                if subject:
                    self.inherited[entry["id"]] = subject
        return subject

    def _add_old(self, pos: int, entry: dict, ts: str | None, subject, kind: str,
                 current: bool, busy) -> None:
        """An entry older than every window: a silence's start, or an open loop."""
        if busy and ts is not None and ts > self.before_recent.get(subject, ""):
            self.before_recent[subject] = ts
        if not current:
            return
        if kind == "task":
            if entry.get("status") == "open":
                self.pending.append(((ts or "", pos), entry, subject))
        elif kind == "question":
            self.questions.append(((ts or "", pos), entry, subject))
        elif ts is not None and (kind == "fact" or kind == "decision"):
            if self.want_facts and subject:
                self.facts.setdefault(subject, []).append((ts, entry))
            self._stand(pos, entry, ts, subject)

    def _add_recent(self, pos: int, entry: dict, ts: str, subject, kind: str,
                    current: bool, busy) -> None:
        """An entry inside a window: activity, and (when current) what the sections show."""
        if busy:
            if ts >= self.active_key:
                self.active_count[subject] = self.active_count.get(subject, 0) + 1
                if ts > self.active_last.get(subject, ""):
                    self.active_last[subject] = ts
            if ts >= self.recent_key:
                if ts < self.first_recent.get(subject, "~"):
                    self.first_recent[subject] = ts
            elif ts > self.before_recent.get(subject, ""):
                self.before_recent[subject] = ts
        if not current:
            return
        order = (ts, pos)
        if busy and ts >= self.active_key and order >= self.latest.get(subject, ("", -1)):
            self.latest[subject] = order
            self.latest_entry[subject] = entry
        if kind == "task":
            if entry.get("status") == "open":
                self.pending.append((order, entry, subject))
        elif kind == "question":
            self.questions.append((order, entry, subject))
        elif kind == "handoff":
            if subject and ts >= self.recent_key:
                self.handed_off.add(subject)
        elif kind == "decision" or kind == "fact":
            if kind == "decision" and ts >= self.decision_key:
                self.decisions.append((order, entry))
            if self.want_facts and subject:
                self.facts.setdefault(subject, []).append((ts, entry))
            self._stand(pos, entry, ts, subject)

    def rank(self, item) -> tuple:
        """How much an open loop matters today: its subject in a recent handoff, then how
        busy its subject is now, then when it (or its subject) was last touched, then its
        own age."""
        (ts, pos), _, subject = item
        return (subject in self.handed_off, self.active_count.get(subject, 0),
                self.touched(item), ts, pos)

    def touched(self, item) -> str:
        """When an open loop was last touched: its own latest version, or any entry about its
        subject since."""
        (ts, _), _, subject = item
        return max(ts, self.last_seen.get(subject, "")) if subject else ts

    def leave_quiet(self, quiet_key: str) -> dict[str, int]:
        """Take the open loops untouched since ``quiet_key`` out of Pending and Open
        Questions; returns how many of each went (the log keeps them: `zettelclaw review`)."""
        counts = {}
        for key, items in (("pending", self.pending), ("questions", self.questions)):
            kept = [item for item in items if not item[0][0] or self.touched(item) >= quiet_key]
            if len(kept) < len(items):
                counts[key] = len(items) - len(kept)
            items[:] = kept
        return counts

    def stale(self, threshold: timedelta) -> list[tuple[str, str, str]]:
        """(came back at, subject, last entry before) of the subjects back after a silence
        longer than ``threshold``, the most recent return first."""
        stale = []
        for subject, back in self.first_recent.items():
            before = self.before_recent.get(subject)
            if before is not None and parse_ts(back) - parse_ts(before) > threshold:
                stale.append((back, subject, before))
        stale.sort(reverse=True)
        return stale


class Shown:
    """A section's items, each made its line when first shown (for a kept row, its text read
    back from the log then)."""

    def __init__(self, items: list, line, subject=None):
        self.items, self.line = items, line
        self.subject = subject  # an item's subject (for "+N more in <subject>"), if it has one
        self.lines: dict[int, str] = {}

    def subjects_after(self, shown: int) -> list[tuple[str | None, int]]:
        """(subject, how many) of the items after the first ``shown``, the most first (then
        in the order they come); [] for items without subjects."""
        if self.subject is None:
            return []
        counts: dict = {}
        for item in self.items[shown:]:
            key = self.subject(item)
            counts[key] = counts.get(key, 0) + 1
        return sorted(counts.items(), key=lambda kv: -kv[1])

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self[i] for i in range(*key.indices(len(self.items)))]
        i = range(len(self.items))[key]
        if i not in self.lines:
            self.lines[i] = self.line(self.items[i])
        return self.lines[i]

    def __iter__(self):
        return (self[i] for i in range(len(self.items)))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)


def _sections(tally: _Tally, stale: list[tuple[str, str, str]], full
              ) -> dict[str, Shown | list[str]]:
    """Each section's items, in the order they are shown (Contradictions still empty)."""
    stale_subjects = {subject for _, subject, _ in stale}
    # a subject active only through entries corrected since into another subject has nothing
    # current to say: no line (its activity was about what is now filed elsewhere)
    active = sorted(s for s in tally.active_count
                    if s not in stale_subjects and s in tally.latest_entry)
    active.sort(key=lambda s: (tally.active_count[s], tally.active_last[s]), reverse=True)
    tally.decisions.sort(key=lambda item: item[0], reverse=True)
    tally.pending.sort(key=tally.rank, reverse=True)
    tally.questions.sort(key=tally.rank, reverse=True)
    tally.pending[:] = spread(tally.pending)
    tally.questions[:] = spread(tally.questions)

    def summary(subject: str) -> str:
        return _summary(tally.latest_entry, subject, full)

    def decision(item) -> str:
        (ts, _), entry = item
        return f"{ts[:10]}: {one_line(full(entry)['content'])}"

    def open_loop(item) -> str:
        return _with_subject(full(item[1]), item[2])

    standing = sorted(tally.standing, key=lambda item: item[0])  # the oldest first
    standing.sort(key=lambda item: (item[2] is not None, not item[3]))

    return {
        "active": Shown(active, summary),
        "decisions": Shown(tally.decisions, decision),
        "pending": Shown(tally.pending, open_loop, _loop_subject),
        "questions": Shown(tally.questions, open_loop, _loop_subject),
        "standing": Shown(standing, open_loop),
        "stale": [f"{name(subject)} — last entry {before[:10]}, referenced in recent session"
                  for _, subject, before in stale],
        "contradictions": [],
    }


def _loop_subject(item) -> str | None:
    return item[2]


def spread(items: list) -> list:
    """Open loops (ranked, what matters today first) spread over their subjects: each subject's
    most pressing loop, in the order of the subjects' first, then each one's second, and so
    on (the loops without a subject count as one subject). No subject takes every line while
    others have open loops; within a subject the order stays."""
    groups: dict = {}
    for item in items:
        groups.setdefault(item[2], []).append(item)
    if len(groups) < 2:
        return items
    out = []
    for depth in range(max(len(group) for group in groups.values())):
        out.extend(group[depth] for group in groups.values() if depth < len(group))
    return out


def _with_subject(entry: dict, subject: str | None) -> str:
    text = one_line(entry["content"])
    return f"{text} ({name(subject)})" if subject else text


def _summary(latest: dict[str, dict], subject: str, full) -> str:
    """An active subject with its latest current entry as a one-line state."""
    entry = full(latest[subject]) if subject in latest else None
    if entry is None:
        return name(subject)
    text = one_line(entry["content"])
    if entry["type"] == "task":
        text += f" ({entry.get('status') or 'open'})"
    return f"{name(subject)} — {text}"
