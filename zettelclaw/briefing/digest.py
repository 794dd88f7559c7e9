"""The log's history as tonight's brief needs it, kept between nights: ``brief-digest.json``.

The sections are picked from every line of the log, but most lines are older than every window
(``activeWindow``, ``decisionWindow``, the stale check's week): of those, a brief only needs
each subject's last entry and its last entry before the week (silences), the current open tasks
and questions (Pending, Open Questions), the standing facts and decisions (Standing: without a
subject, or said again), and the current facts and decisions (the contradiction check). None
of that depends on tonight's date, so it is kept folded, per briefing (agent and default
agent), up to a *horizon*: a time key some days before the windows started when it was made.
What lies at or after the horizon is kept as rows (no text), with their position, time key,
subject (inherited by a correction without one), whether they are current and whether they
say again a fact or decision they replace. Beside them: every entry's id, offset and subject
(the ids a contradiction flag or a correction may name), the records' ids, the replaced ids
and the ids forgotten or purged. A brief then counts the folded history, the rows since the
horizon and the lines appended since, not the log.

It is used only while it describes what a pass over the whole log would see: the log's inode,
size and CRC as :mod:`.rows` checks them; tonight's windows start at or after the horizon; a
replayed night (``--now``) is not before its newest line. Lines appended since are added when
they are new entries or corrections of a current entry; anything else (a forget, an undo, a
purge tombstone, a second correction of one entry, an id written twice) is read by the pass
over the whole log, which keeps the digest again. It holds no entry's text (shown texts are
read from the log by offset, as the rows' are); it is written only beside the home's own log
through :func:`zettelclaw.logcache.store`, and deleted with the log's other caches by every
rewrite of the log. Deleting it changes no briefing.

The file is two lines: what every brief reads, then the folded facts and decisions, parsed only
when the contradiction check is to run.
"""

from __future__ import annotations

import os

import orjson

from ..clock import format_ts
from ..logcache import BRIEF_DIGEST as CACHE_FILE
from ..logcache import beside_home
from ..review import SESSION as REVIEW_SESSION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from .options import Options
    from .sections import Snapshot, _Tally

_VERSION = 2  # 2: the standing facts and decisions, whether a row says one again; NFC subjects
ODD = -2  # a subject's number for an entry whose subject is no name (see :func:`_odd`)
MARGIN_DAYS = 7  # the horizon: this long before tonight's first window (nights it serves)
FOLD_AFTER = 16 << 10  # digest again once this much log lies beyond it


def read(options: Options, log_path=None, *, trust: bool = True) -> Snapshot:
    """Tonight's snapshot (:func:`.sections.read`'s): from the digest and the lines appended
    since when it holds (``trust``: use the kept rows and digest at all), else from a pass over
    the whole log, which digests the history again."""
    from .. import clock
    from .sections import read as whole

    if trust:
        snapshot = brief(options, options.now or clock.now(), log_path)
        if snapshot is not None:
            return snapshot

    def digested(*seen) -> None:
        keep(*seen, options=options, log_path=log_path)

    return whole(options, log_path, trust=trust,
                 digested=digested if options.keep_rows else None)


def view_of(options: Options) -> str:
    """Whose briefing a digest is of: the agent (None: every agent) and the default agent."""
    # (the owner's trusted entries alone since people: a digest from before is not this one)
    return orjson.dumps([options.agent, options.default_agent, "people"]).decode()


def cache_path(log_path) -> str:
    return os.path.join(os.path.dirname(os.fspath(log_path)) or ".", CACHE_FILE)


class History:
    """One briefing's digest of the log's first ``size`` bytes (see the module's doc)."""

    def __init__(self, data: dict, facts=None):
        self.horizon: str = data["horizon"]
        self.max_ts: str = data["maxTs"]
        self.count: int = data["count"]
        self.subjects: list[str] = data["subjects"]
        self.ids: list[str] = data["ids"]
        self.at: list[int] = data["at"]
        self.subject_of: list[int] = data["subj"]
        self.records: list[str] = data["records"]
        self.replaced: list[str] = data["replaced"]
        self.gone: list[str] = data["gone"]
        self.last_seen: dict[str, str] = data["lastSeen"]
        self.before_recent: dict[str, str] = data["beforeRecent"]
        self.loops: list[list] = data["loops"]
        self.recent: list[list] = data["recent"]
        self.standing: list[list] = data["standing"]  # [ts, pos, id, at, subject, again]
        self.facts = facts  # subject -> [[ts, id, at]]; None: not read

    def rows_since(self):
        """(position, time key, subject's number, current, row) of the rows since the
        horizon: a row as much as the tally reads of it, and its offset."""
        for pos, ts, subject, current, entry_id, at, kind, status, review, again \
                in self.recent:
            row = {"id": entry_id, "_at": at, "type": kind, "_again": again}
            if status is not None:
                row["status"] = status
            if review:
                row["session"] = REVIEW_SESSION
            yield pos, ts, subject, bool(current), row

    def subject(self, n: int) -> str | None:
        return self.subjects[n] if n >= 0 else None

    def absorb(self, tally: _Tally, hidden: set[str], facts: bool) -> None:
        """Put the folded history into ``tally`` (before any row since the horizon), without
        the entries in ``hidden`` (replaced tonight)."""
        for subject, ts in self.last_seen.items():
            if ts > tally.last_seen.get(subject, ""):
                tally.last_seen[subject] = ts
        for subject, ts in self.before_recent.items():
            if ts > tally.before_recent.get(subject, ""):
                tally.before_recent[subject] = ts
        names, pending, questions = self.subjects, tally.pending, tally.questions
        for kind, ts, pos, entry_id, at, subject in self.loops:
            if entry_id not in hidden:
                item = ((ts, pos), {"id": entry_id, "_at": at},
                        names[subject] if subject >= 0 else None)
                (pending if kind == "task" else questions).append(item)
        for ts, pos, entry_id, at, subject, again in self.standing:
            if entry_id not in hidden:
                tally.standing.append(((ts, pos), {"id": entry_id, "_at": at},
                                       names[subject] if subject >= 0 else None, bool(again)))
        if facts:
            for subject, items in (self.facts or {}).items():
                kept = [(ts, {"id": i, "_at": at}) for ts, i, at in items if i not in hidden]
                if kept:
                    tally.facts.setdefault(subject, []).extend(kept)


class Lookup:
    """The entries of a briefing by id, as :class:`.sections.Snapshot` ``by_id`` (what a
    contradiction flag names): a digested entry is its row, read from the log by its offset
    (its text, too, when it is shown: through ``full``)."""

    def __init__(self, history: History, added: dict[str, dict], data, full=None):
        self.history, self.added, self.data, self.full = history, added, data, full
        self._at: dict[str, int] | None = None

    def _offsets(self) -> dict[str, int]:
        if self._at is None:
            self._at = dict(zip(self.history.ids, self.history.at, strict=True))
        return self._at

    def __contains__(self, entry_id) -> bool:
        return entry_id in self.added or entry_id in self._offsets()

    def __getitem__(self, entry_id: str) -> dict:
        found = self.get(entry_id)
        if found is None:
            raise KeyError(entry_id)
        return found

    def get(self, entry_id: str, default=None):
        if entry_id in self.added:
            return self.added[entry_id]
        at = self._offsets().get(entry_id)
        if at is None:
            return default
        from ..log import line_at
        from .rows import light

        try:
            found = orjson.loads(line_at(self.data, at))
        except orjson.JSONDecodeError:
            found = None
        if type(found) is dict and found.get("id") == entry_id:
            return light(found, at)
        return self.full({"id": entry_id, "_at": at})  # (the line moved: as a shown one)


    def kind(self, entry_id: str) -> str | None:
        """The type of the entry ``entry_id`` (None: unknown, or its line is not there)."""
        if entry_id in self.added:
            return self.added[entry_id].get("type")
        at = self._offsets().get(entry_id)
        if at is None:
            return None
        from ..log import line_at

        try:
            found = orjson.loads(line_at(self.data, at))
        except orjson.JSONDecodeError:
            return None
        return found.get("type") if type(found) is dict and found.get("id") == entry_id \
            else None


class _Fallback(Exception):
    """An appended line the digest cannot add simply: the whole log is read instead."""


def brief(options: Options, now: datetime, log_path=None) -> Snapshot | None:
    """Tonight's snapshot from the digest and the lines appended since, or None when there
    is no digest to trust for this briefing (the caller reads the whole log)."""
    from .. import paths
    from . import rows
    from .sections import _snapshot, _Tally

    path = os.fspath(log_path) if log_path is not None else paths.log_file()
    if not beside_home(path):
        return None
    head, raw_facts = _load(cache_path(path))
    view = view_of(options)
    if head is None or view not in head["views"]:
        return None
    state = head["views"][view]
    try:
        history = History(state)
        kept = _Kept(head["inode"], state)
    except (KeyError, TypeError):  # not of this shape: read the log
        return None
    now_key = format_ts(now)
    if history.max_ts > now_key:
        return None  # lines after the night replayed: left out by the whole pass; lines
        # dated after now (the clock ran ahead): dated anew by it (clock.Dating)
    tally = _Tally(now, options, {}, {})
    if tally.window_key < history.horizon:
        return None  # a window reaching before the horizon
    tail = rows.beyond(path, kept)
    if tail is None:
        return None
    try:
        added = _appended(options, now_key, history, tail)
    except _Fallback:
        return None
    if options.use_model:
        history.facts = _facts(raw_facts, view)
        if history.facts is None:
            return None
    hidden_old = added.hidden_old
    by_id = Lookup(history, {e["id"]: e for e, _, _, _ in added.items}, tail.data)
    tally.kind_of = by_id.kind
    history.absorb(tally, hidden_old, options.use_model)
    for pos, ts, subject, current, row in history.rows_since():
        tally.place(pos, row, ts, history.subject(subject),
                    current and row["id"] not in hidden_old)
    for pos, (entry, row, ts, subject) in enumerate(added.items, history.count):
        tally.place(pos, entry, ts, subject, row["id"] not in added.hidden_new)
    rows.warn(path, (kept, *tail.bad))
    log = rows.Rows([], tail.data)
    snapshot = _snapshot(options, now, log, log_path, tally, by_id,
                         set(history.replaced) | hidden_old | added.hidden_new,
                         set(history.gone))
    by_id.full = snapshot.full
    if options.keep_rows and tail.end - kept.size >= FOLD_AFTER and added.whole \
            and not added.skipped:
        _fold(path, head, raw_facts, view, history, kept, added, tail, tally.window_key)
    return snapshot


class _Added:
    """The appended lines of a briefing: ``items`` (entry, row, time key, subject) in log
    order, the digested entries they replace (``hidden_old``) and the appended ones
    (``hidden_new``)."""

    def __init__(self):
        self.items: list[tuple[dict, dict, str | None, str | None]] = []
        self.hidden_old: set[str] = set()
        self.hidden_new: set[str] = set()
        self.whole = True  # every item is of a whole line
        self.skipped = False  # a line left out as after the night replayed


def _appended(options: Options, now_key: str, history: History, tail) -> _Added:
    """The briefing's lines of ``tail``, as the whole pass would count them (raises
    :class:`_Fallback` for a line it cannot add simply)."""
    from ..log import record_kind
    from ..people import briefed

    out = _Added()
    known = None
    subject_of: dict[str, str | None] = {}  # the appended entries' subjects
    odd: set[str] = set()  # appended entries whose subject is no name
    agent, default = options.agent, options.default_agent
    for n, (entry, row) in enumerate(zip(tail.entries, tail.rows, strict=True)):
        if agent is not None and (entry.get("agent") or default) != agent \
                or not briefed(entry):
            continue
        ts = row.get("timestamp")
        if options.now is None and ts is not None and ts > now_key:
            raise _Fallback  # dated after now (the clock ran ahead): the whole pass dates it
        if options.now is not None and ts is not None and ts > now_key \
                and entry["type"] not in ("forget", "unforget"):
            out.skipped = True
            continue
        if record_kind(entry) is not None or "purged" in entry:
            raise _Fallback
        if known is None:
            known, records = set(history.ids), set(history.records)
            replaced, gone = set(history.replaced), set(history.gone)
        entry_id = entry["id"]
        if entry_id in known or entry_id in records or entry_id in subject_of:
            raise _Fallback
        subject = entry.get("subject")
        if type(subject) is not str or not subject:
            subject = None
        target = entry.get("replaces")
        if type(target) is str:
            if target == entry_id:
                raise _Fallback
            if target in subject_of:
                if target in out.hidden_new or target in odd:
                    raise _Fallback
                out.hidden_new.add(target)
                subject = subject or subject_of[target]
            elif target in records:
                raise _Fallback
            elif target in known:
                if target in out.hidden_old or target in replaced or target in gone:
                    raise _Fallback
                out.hidden_old.add(target)
                if subject is None:
                    named = history.subject_of[history.ids.index(target)]
                    if named == ODD:
                        raise _Fallback
                    subject = history.subject(named)
        elif target is not None:
            raise _Fallback
        subject_of[entry_id] = subject
        if _odd(entry):
            odd.add(entry_id)
        out.items.append((entry, row, ts, subject))
        if n >= tail.whole:
            out.whole = False
    return out


class _Kept:
    """What :func:`.rows.beyond` checks of a briefing's digest (the log's inode, the bytes it
    describes), and the invalid lines it counted among them."""

    def __init__(self, inode: int, state: dict):
        self.inode, self.size, self.crc = inode, state["size"], state["crc"]
        self.bad, self.first_bad = state["bad"], state.get("firstBad")
        if not (type(self.size) is int and type(self.crc) is int and type(self.bad) is int):
            raise TypeError("not a digest")


def _load(where: str) -> tuple[dict | None, bytes]:
    """The digest's first line (checked to be ours and of its shape) and its second, raw."""
    from ..fsutil import read_bytes

    try:
        raw = read_bytes(where) or b""
        first, _, rest = raw.partition(b"\n")
        head = orjson.loads(first) if first else None
    except Exception:  # noqa: BLE001 - unreadable, refused or not ours: read the log
        return None, b""
    if not isinstance(head, dict) or head.get("version") != _VERSION:
        return None, b""
    if type(head.get("inode")) is not int or type(head.get("views")) is not dict:
        return None, b""
    return head, rest


def _facts(raw: bytes, view: str):
    try:
        facts = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return facts.get(view) if isinstance(facts, dict) else None


def keep(log, now: datetime, resolution, gone: set[str], night: int,
         stamps: list[str | None], subjects: list, *, options: Options, log_path=None) -> None:
    """Digest the history after a pass over the whole log (``night`` lines of the briefing,
    of which those not gone had the time keys ``stamps`` and the ``subjects``), when that
    pass saw the log's whole lines only and left nothing out as after a replayed night."""
    from .. import paths
    from ..log import record_kind
    from .sections import _Tally

    path = os.fspath(log_path) if log_path is not None else paths.log_file()
    if len(log.rows) != log.whole or not log.whole or not beside_home(path):
        return  # a line being written: digest another night
    from ..people import briefed

    agent, default = options.agent, options.default_agent
    view_rows = [r for r in log.rows if (agent is None or (r.get("agent") or default) == agent)
                 and briefed(r)]
    if len(view_rows) != night:
        return  # lines left out as after the night replayed
    if len({r["id"] for r in view_rows}) != night:
        return  # an id written twice: the whole pass each night
    kept = [r for r in view_rows if r["id"] not in gone]
    subject_of = {r["id"]: subject for r, subject in zip(kept, subjects, strict=True)}
    records = [r["id"] for r in view_rows if record_kind(r) is not None]
    named = [r for r in view_rows if record_kind(r) is None]
    names: dict[str, int] = {}
    state = {
        "maxTs": max((r.get("timestamp") or "" for r in view_rows), default=""),
        "count": len(kept), "ids": [r["id"] for r in named], "at": [r["_at"] for r in named],
        "subj": [ODD if _odd(r) else _index(names, subject_of.get(r["id"])) for r in named],
        "records": records, "replaced": list(resolution.replaced_by), "gone": sorted(gone),
    }
    items = [(pos, row, stamps[pos], subjects[pos], row["id"] not in resolution.replaced_by)
             for pos, row in enumerate(kept)]
    folding = _Tally.folding(_horizon(_Tally(now, options, {}, {}).window_key))
    folding.by_id = resolution.by_id  # what a correction replaces: said again?
    facts = _digest(state, names, folding, items)
    _store(path, log.inode, log.end, log.crc, log.bad, log.first_bad, options, state, facts)


def _fold(path: str, head: dict, raw_facts: bytes, view: str, history: History, kept: _Kept,
          added: _Added, tail, window_key: str) -> None:
    """Digest again after a brief from the digest: its rows since the horizon and the lines
    appended since, folded up to a later horizon."""
    from .sections import _Tally

    facts = history.facts if history.facts is not None else _facts(raw_facts, view)
    if facts is None:
        return
    history.facts = facts
    hidden = added.hidden_old
    names = {name: n for n, name in enumerate(history.subjects)}
    state = {
        "maxTs": max([history.max_ts] + [ts for _, _, ts, _ in added.items if ts]),
        "count": history.count + len(added.items),
        "ids": history.ids + [e["id"] for e, _, _, _ in added.items],
        "at": history.at + [row["_at"] for _, row, _, _ in added.items],
        "subj": history.subject_of + [ODD if _odd(e) else _index(names, s)
                                      for e, _, _, s in added.items],
        "records": history.records,
        "replaced": history.replaced + sorted(hidden | added.hidden_new),
        "gone": history.gone,
    }
    folding = _Tally.folding(max(history.horizon, _horizon(window_key)))  # never earlier
    by_id = Lookup(history, {e["id"]: e for e, _, _, _ in added.items}, tail.data)
    folding.kind_of = by_id.kind
    history.absorb(folding, hidden, True)
    items = [(pos, row, ts, history.subject(s), current and row["id"] not in hidden)
             for pos, ts, s, current, row in history.rows_since()]
    items += [(pos, row, ts, subject, row["id"] not in added.hidden_new)
              for pos, (_, row, ts, subject) in enumerate(added.items, history.count)]
    facts = _digest(state, names, folding, items)
    bad = (kept, tail.bad[0])  # (not a line being written, after ``tail.end``)
    first_bad = next((p.first_bad for p in bad if p.first_bad is not None), None)
    _store(path, head["inode"], tail.end, tail.crc, sum(p.bad for p in bad), first_bad,
           None, state, facts, view=view, head=head, raw_facts=raw_facts)


def _odd(entry: dict) -> bool:
    """Whether ``entry``'s subject is something but no name (a correction without a subject
    would inherit it as it is: the whole pass tells what that does)."""
    subject = entry.get("subject")
    return bool(subject) and type(subject) is not str


def _horizon(window_key: str) -> str:
    from ..clock import days_before, parse_ts

    return format_ts(days_before(parse_ts(window_key), MARGIN_DAYS))


def _index(names: dict[str, int], subject) -> int:
    if subject is None:
        return -1
    return names.setdefault(subject, len(names))


def _digest(state: dict, names: dict[str, int], folding: _Tally, items) -> dict:
    """Fold ``items`` (position, row, time key, subject, current; in log order) older than
    the folding tally's horizon into it, keep the others as rows; fill ``state``. Returns
    the folded facts and decisions by subject."""
    recent = []
    horizon = folding.window_key
    for pos, row, ts, subject, current in items:
        if ts is None or ts < horizon:
            folding.place(pos, row, ts, subject, current)
        else:
            recent.append([pos, ts, _index(names, subject), int(current), row["id"],
                           row["_at"], row["type"], row.get("status"),
                           int(row.get("session") == REVIEW_SESSION),
                           int(folding.said_again(row))])
    loops = [[kind, ts, pos, entry["id"], entry["_at"], _index(names, subject)]
             for kind, items_ in (("task", folding.pending), ("question", folding.questions))
             for (ts, pos), entry, subject in items_]
    standing = [[ts, pos, entry["id"], entry["_at"], _index(names, subject), int(again)]
                for (ts, pos), entry, subject, again in folding.standing]
    state.update(horizon=horizon, lastSeen=folding.last_seen,
                 beforeRecent=folding.before_recent, loops=loops, recent=recent,
                 standing=standing, subjects=list(names))
    return {subject: [[ts, entry["id"], entry["_at"]] for ts, entry in items_]
            for subject, items_ in folding.facts.items()}


def _store(path: str, inode: int, size: int, crc: int, bad: int, first_bad, options,
           state: dict, facts: dict, *, view: str | None = None, head: dict | None = None,
           raw_facts: bytes = b"") -> None:
    """Write the digest of one briefing (of the log's first ``size`` bytes); the other
    briefings' digests of this log stay, each checked against the bytes it describes (a run
    briefing every agent keeps each)."""
    from ..logcache import store

    where = cache_path(path)
    view = view if view is not None else view_of(options)
    if head is None:
        head, raw_facts = _load(where)
    views, all_facts = {}, {}
    if head is not None and head["inode"] == inode:
        views = {k: v for k, v in head["views"].items() if k != view}
        all_facts = {k: v for k, v in (_facts_all(raw_facts)).items() if k in views}
    state.update(size=size, crc=crc, bad=bad)
    if first_bad is not None:
        state["firstBad"] = first_bad
    views[view] = state
    all_facts[view] = facts
    top = {"version": _VERSION, "inode": inode, "views": views}
    store(where, path, inode, orjson.dumps(top) + b"\n" + orjson.dumps(all_facts) + b"\n")


def _facts_all(raw: bytes) -> dict:
    try:
        found = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}
