"""Sweep (design §4.1, ``gateway_start`` and by hand): extract every main session of every
agent, in both OpenClaw layouts, that has not been extracted up to its end.

A session is up to date when its state record is newer than the session's last update, when
its agent's ``sweptUpTo`` (state.json) covers that update, or (its record pruned, no such proof)
when the log already holds its entries from after that update. A whole sweep (no ``--since``, no
``--dry-run``) moves each agent's ``sweptUpTo`` to the latest update up to which every session
is done, and prunes the records it covers: a night with nothing new reads neither transcripts
nor the log and writes nothing; a night's work is its new conversations, whatever the history.
Permanently failed sessions wait for ``--retry-failed``; a conversation still open and
active in the last 30 minutes is left for its ``session_end`` (a record that left one so is
not up to date). Everything else goes to a thread pool (the SDK blocks on IO, so threads
overlap the model calls).

The log's timestamps are conversation times (the last message of each conversation), never
later than the session's last update: a session whose record went without a ``sweptUpTo`` to
cover it (state.json from before it existed) is therefore looked at again, found complete by
its cursor (no model call) and its record written back; the sweep then covers it. So is a
2026.2 session reset (``/new``) after its extraction: the reset renames its file
``.reset.<time>``, a last update later than its record; it is read once, found complete, and
its record dated now (:func:`zettelclaw.extract.bookkeeping.remember`).

``gateway_start`` passes the gateway's start time (``--gateway-start``): an open conversation
whose last message is older than that was cut off by a crash or a stop, nobody is in it, and
it is extracted at once instead of 30 minutes later; if the person carries on after the
restart, the cursor makes the continuation a conversation of its own. A config hot reload also
fires ``gateway_start``, but the process (and its start time) stays the same, so a
conversation going on during the reload is after that time and still settles first.

Conversations that ended before the moment of install are history (:mod:`zettelclaw.history`):
a sweep leaves them alone (a session last updated before the install is not even read; its
summary counts the sessions it read that hold some); :func:`import_history` brings them in
with the same pool, progress bar and extractor.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from . import paths
from .clock import now as clock_now
from .clock import parse_ts
from .counts import count
from .errors import UsageError, ZettelclawError
from .model import Usage

if TYPE_CHECKING:
    from .extract import Extractor, Result

SETTLE_SECONDS = 30 * 60
_EPOCH = datetime.min.replace(tzinfo=timezone.utc)
DEFAULT_CONCURRENCY = 4


@dataclass
class Candidate:
    ref: object  # transcripts.SessionRef
    why: str  # "new", "more", "retry", "retry-failed"
    mark: str | None = None  # the latest time of its entries in the log (no record left)


@dataclass
class Summary:
    extracted: int = 0
    skipped: int = 0
    failed: int = 0
    entries: int = 0
    usage: Usage = field(default_factory=Usage)
    results: list[Result] = field(default_factory=list)
    planned: list[Candidate] = field(default_factory=list)
    dry_run: bool = False
    history: int = 0  # sessions read that hold conversations from before the install
    ahead: dict[str, str] = field(default_factory=dict)  # agent -> its sweptUpTo after now
    held: int = 0  # open conversations left to settle (each named as its session reports)

    def add(self, result: Result) -> None:
        self.results.append(result)
        self.held += len(result.held)
        if result.history:
            self.history += 1
        self.usage = self.usage + result.usage
        self.entries += len(result.entries)
        if result.status == "failed":
            self.failed += 1
        elif result.status in ("extracted", "dry-run"):
            self.extracted += 1
        else:
            self.skipped += 1

    def line(self) -> str:
        u = self.usage
        verb = "would extract" if self.dry_run else "extracted"
        line = (f"Sweep: {count(self.extracted, 'session')} {verb}, {self.skipped} skipped, "
                f"{self.failed} failed; {count(self.entries, 'entry')}; tokens: {u.input} input, "
                f"{u.output} output, {u.cache_read} cache read, {u.cache_creation} cache write")
        if self.held:
            line += (f"; {count(self.held, 'open conversation')} held to settle "
                     "(named above)")
        if self.history:
            line += (f"; {count(self.history, 'session')} also "
                     f"hold{'s' if self.history == 1 else ''} conversations from before the "
                     "install, left for `zettelclaw import`")
        return line

    def as_dict(self) -> dict:
        return {"extracted": self.extracted, "skipped": self.skipped, "failed": self.failed,
                "entries": self.entries, "tokens": self.usage.as_dict(),
                "dryRun": self.dry_run, "history": self.history, "held": self.held,
                **({"sweptAhead": self.ahead} if self.ahead else {})}


def _log_marks(sessions: set[str]) -> dict[str, str]:
    """sessionId -> the latest timestamp of its entries in the log, for ``sessions``: the
    log's bytes are searched for each id and only the lines naming one are parsed (a night's
    new sessions are in none), a purged entry's tombstone too."""
    from .fsutil import read_bytes
    from .log import line_at, parse_line

    raw = read_bytes(paths.log_path()) or b""
    marks: dict[str, str] = {}
    for sid in sessions:
        needle = sid.encode()
        at = raw.find(needle)
        while at != -1:
            entry = parse_line(line_at(raw, at))
            stamp = entry.get("timestamp") if entry is not None else None
            if entry is not None and entry.get("session") == sid and isinstance(stamp, str) \
                    and stamp > marks.get(sid, ""):
                marks[sid] = stamp
            at = raw.find(needle, at + len(needle))
    return marks


def _newer(stamp: str | None, updated: datetime | None) -> bool:
    moment = parse_ts(stamp)
    return moment is not None and updated is not None and moment >= updated.replace(
        microsecond=0)


def known_agents() -> list[str]:
    """The agents OpenClaw knows: those its config lists and those with a folder of sessions."""
    found = set(paths.agent_ids())
    try:
        found.update(p.name for p in paths.agents_dir().iterdir()
                     if p.is_dir() and not p.name.startswith("."))
    except OSError:
        pass
    return sorted(found)


def check_where(agent: str | None) -> None:
    """A sweep with nothing to look at says so: no OpenClaw state directory is an error (exit
    1: OpenClaw is not where zettelclaw looks), an agent OpenClaw does not know a usage error
    (exit 2) naming the ones it does."""
    state = paths.openclaw_state_dir()
    if not state.is_dir():
        raise ZettelclawError(f"no OpenClaw state directory at {state}, so no sessions to "
                              "sweep; set OPENCLAW_STATE_DIR if OpenClaw keeps it elsewhere")
    if agent is not None:
        known = known_agents()
        if agent not in known:
            raise UsageError(f"OpenClaw has no agent {agent!r} (in {state}); its agents: "
                             f"{', '.join(known)}")


def plan(*, agent: str | None = None, since: datetime | None = None,
         retry_failed: bool = False,
         unreadable: list[tuple[str, str]] | None = None,
         seen: dict | None = None) -> tuple[list[Candidate], int]:
    """(sessions to look at, how many were skipped without reading them; among them those
    last updated before the install: only history can be in them, and those the agent's
    ``sweptUpTo`` covers). An agent whose database cannot be read: (agent, why) in
    ``unreadable``. ``seen`` gets agent -> [(last update, sessionId, done)] of the sessions in
    scope (done None: a candidate, done or not once the sweep has run), except those the
    listing itself found covered by ``sweptUpTo`` (:mod:`.transcripts.horizon`): done and no
    later than it, they cannot move it (:func:`advance`)."""
    from . import transcripts
    from .transcripts.horizon import Horizon
    from .transcripts.scope import skip_prefixes

    state = _view()
    prefixes = skip_prefixes()
    unknown: list = []  # sessions with no record: the log is read for them at the end
    installed = state.install_moment()
    swept = state.swept
    # failures and held records are planned by their own rules below, never by the horizon
    covers = Horizon(swept, state.failedSessions.keys() | {
        sid for sid, record in state.extractedSessions.items() if record.get("held")})
    todo: list[Candidate] = []
    skipped = 0

    def note(ref, done: bool | None) -> None:
        if seen is not None and ref.updated_at is not None:
            seen.setdefault(ref.agent_id, []).append((ref.updated_at, ref.session_id, done))

    for ref in transcripts.list_sessions(agent, since, unreadable, covers):
        if not transcripts.in_scope(ref.session_key, prefixes):
            skipped += 1
            continue
        failed = state.failedSessions.get(ref.session_id)
        record = state.extractedSessions.get(ref.session_id)
        if installed is not None and not record and (not failed or failed.get("history")) \
                and ref.updated_at is not None and ref.updated_at < installed:
            skipped += 1  # nothing in it ended after the install: history, left for import
            note(ref, True)
            continue
        if failed and failed.get("history"):
            failed = None  # the import's failure: retried by the import
        if failed:
            note(ref, True)  # a failure waits in failedSessions, not on sweptUpTo
            if failed.get("permanent") and not retry_failed:
                skipped += 1
                continue
            todo.append(Candidate(ref, "retry-failed" if failed.get("permanent") else "retry"))
            continue
        horizon = swept.get(ref.agent_id)
        if not (record or {}).get("held") and horizon is not None \
                and ref.updated_at is not None and ref.updated_at <= horizon:
            skipped += 1  # a sweep proved it done: its transcript is not opened again
            note(ref, True)
            continue
        if record:
            stamp = record.get("at")
        else:
            unknown.append((ref, None))  # the log decides, read once for all of them
            continue
        if _newer(stamp, ref.updated_at) and not (record or {}).get("held"):
            skipped += 1
            note(ref, True)
            continue
        note(ref, None)
        todo.append(Candidate(ref, "more"))
    if unknown:  # no record: how far the log's own entries got (one look at the log)
        marks = _log_marks({ref.session_id for ref, _ in unknown})
        for ref, _ in unknown:
            stamp = marks.get(ref.session_id)
            if _newer(stamp, ref.updated_at):
                skipped += 1
                note(ref, True)
                continue
            note(ref, None)
            todo.append(Candidate(ref, "more" if stamp else "new", stamp))
        todo.sort(key=lambda c: (c.ref.updated_at or _EPOCH, c.ref.session_id))
    return todo, skipped + covers.covered


def ahead() -> dict[str, datetime]:
    """agent -> its ``sweptUpTo`` when that is later than now: a sweep ran while the clock was
    ahead (sweep, ``stats`` and ``doctor`` say so; the next whole sweep sets it back)."""
    return _view().ahead


def clock_note(agent: str, stamp: str, *, set_back: bool) -> str:
    """What a person is told of an agent whose ``sweptUpTo`` is later than now."""
    return (f"agent {agent}'s sweptUpTo ({stamp}) is later than now: a sweep ran while the "
            "clock was ahead; its sessions are checked against their own records, none "
            "skipped by that date, " + ("and this sweep sets it back" if set_back else
                                         "until a sweep sets it back (zettelclaw sweep)"))


def doctor_check():
    """doctor's line about a ``sweptUpTo`` later than now (a warning: no conversation is
    skipped for it, the next sweep sets it back); None when there is none."""
    from .clock import format_ts
    from .openclaw import Check

    try:
        found = ahead()
    except ZettelclawError:  # a broken state.json: a check of its own says so
        return None
    if not found:
        return None
    return Check("sweep", "warn", "; ".join(clock_note(a, format_ts(t), set_back=False)
                                            for a, t in sorted(found.items())),
                 "zettelclaw sweep")


def advance(seen: dict[str, list]) -> bool:
    """After a whole sweep: move each agent's ``sweptUpTo`` to the latest update up to which
    every session in scope is done (a candidate is done when its record is now newer than its
    update and holds nothing open, or it failed), and prune the records it covers. Writes
    state.json only when the time moved (a quiet night writes nothing); returns whether it
    did."""
    if not _would_move(_view(), seen):  # a quiet night: no lock, no state.json written
        return False
    from .clock import format_ts
    from .fsutil import dir_lock
    from .state import SWEPT, State

    with dir_lock(paths.log_dir()):
        state = State.load()
        swept = state.swept_up_to()  # (one later than now left out: it is set back here)
        ahead = state.swept_ahead()
        moved = False
        for agent, sessions in seen.items():
            horizon = _horizon(sessions, state.extractedSessions, state.failedSessions)
            before = parse_ts(swept.get(agent))
            if horizon is not None and (before is None or horizon > before):
                # to the microsecond: the session updated at it is covered, a later one not
                state.section(SWEPT)[agent] = format_ts(horizon)[:-1] + \
                    f".{horizon.microsecond:06d}Z"
                moved = True
            elif agent in ahead:  # nothing proved done yet: no time rather than a false one
                del state.section(SWEPT)[agent]
                moved = True
        if not moved:  # a quiet night writes nothing: the next one with news prunes
            return False
        state.prune()
        state.save()
        return True


def _would_move(state: _View, seen: dict[str, list]) -> bool:
    """Whether :func:`advance` would move some agent's ``sweptUpTo`` (read without the lock:
    the locked pass decides again)."""
    for agent, sessions in seen.items():
        horizon = _horizon(sessions, state.extractedSessions, state.failedSessions)
        before = state.swept.get(agent)
        if horizon is not None and (before is None or horizon > before) \
                or agent in state.ahead:
            return True
    return False


def _horizon(sessions: list, extracted: dict, failed: dict) -> datetime | None:
    """The latest update of one agent's ``sessions`` ([(last update, sessionId, done)]) up to
    which every one is done: done already, or, when not known (None), its record newer than
    its update and holding nothing open, or a failure recorded. Never later than now: a
    session dated after now (written while the clock ran ahead) moves it to now, no further,
    so a conversation held after the clock is set right is never taken for done."""
    horizon = None
    moment = clock_now()
    for updated, session_id, done in sorted(sessions, key=lambda s: s[0]):
        if done is None:
            record = extracted.get(session_id) or {}
            done = session_id in failed or (
                _newer(record.get("at"), updated) and not record.get("held"))
        if not done:
            break
        horizon = min(updated, moment)
    return horizon


class _View:
    """What a sweep reads of state.json to plan, without pydantic (a quiet night's whole
    work): the sessions' records and failures, the install time, ``sweptUpTo``. A file that
    is not state JSON gets :meth:`State.load`'s one clear error."""

    def __init__(self, data: dict):
        self.data = data
        self.extractedSessions = data.get("extractedSessions") or {}
        self.failedSessions = data.get("failedSessions") or {}
        stamps = data.get("sweptUpTo")
        known = {a: moment for a, t in (stamps if isinstance(stamps, dict) else {}).items()
                 if isinstance(a, str) and (moment := parse_ts(t)) is not None}
        # a sweptUpTo later than now was written while the clock ran ahead: it proves nothing
        # of a conversation held since the clock was set right (dated before it, and after
        # that sweep); the sessions are checked against their own records until a sweep sets
        # it back (:func:`advance`)
        moment = clock_now()
        self.swept = {a: t for a, t in known.items() if t <= moment}
        self.ahead = {a: t for a, t in known.items() if t > moment}

    def install_moment(self) -> datetime | None:
        return parse_ts(self.data.get("installedAt"))


def _view() -> _View:
    from . import statefile

    return _View(statefile.load())  # plain JSON; a file that is not state JSON: its error


def quiet() -> Summary | None:
    """A whole sweep of every agent when nothing is new: its summary, having read no
    transcript, no log and imported neither the model SDK nor pydantic; None when there is
    something to extract or to report (the full :func:`sweep` then runs)."""
    try:
        check_where(None)
        seen: dict[str, list] = {}
        unreadable: list[tuple[str, str]] = []
        candidates, skipped = plan(unreadable=unreadable, seen=seen)
    except ZettelclawError:
        return None
    if candidates or unreadable or _view().ahead:
        return None  # (a sweptUpTo later than now: the full sweep says so and sets it back)
    _advance(seen)
    return Summary(skipped=skipped)


def preview(candidate: Candidate, open_before: datetime | None = None) -> Result:
    """What a sweep would extract from one session (no model call, no writes): the
    conversations the run would take, and those it would hold, with why (the run's own rule,
    :func:`zettelclaw.extract.plan.held`)."""
    from . import transcripts
    from .extract import Result, after_cursor
    from .extract.cursor import is_history
    from .extract.plan import held
    from .state import State

    ref = candidate.ref
    state = State.load()
    record = state.extractedSessions.get(ref.session_id) or {}
    cursor = record.get("cursor") or ({"time": candidate.mark} if candidate.mark else None)
    segments = after_cursor(transcripts.read_segments(ref), cursor)
    installed = state.install_moment()
    segments = [s for s in segments if s.has_user and not is_history(s, installed, ref)]
    verdicts = [(s, held(s, ref, SETTLE_SECONDS, open_before)) for s in segments]
    why_held = [why for _, why in verdicts if why is not None]
    segments = [s for s, why in verdicts if why is None]
    messages = sum(len(s.messages) for s in segments)
    if not segments:
        result = Result(ref.session_id, "up-to-date", f"{ref.session_id}: nothing new")
        result.held = why_held
        return result
    return Result(ref.session_id, "dry-run",
                  f"{ref.session_id} ({ref.agent_id}, {ref.session_key or 'no key'}): "
                  f"{count(len(segments), 'conversation')}, {count(messages, 'message')} "
                  "to extract",
                  segments=len(segments), held=why_held)


def sweep(*, agent: str | None = None, since: datetime | None = None,
          concurrency: int = DEFAULT_CONCURRENCY, retry_failed: bool = False,
          dry_run: bool = False, extractor: Extractor | None = None,
          on_result: Callable[[Result], None] | None = None,
          progress: bool | None = None, gateway_start: datetime | None = None) -> Summary:
    """Extract every session that needs it; returns the summary. ``gateway_start``: open
    conversations quiet since before it are extracted without waiting to settle."""
    from .clock import format_ts
    from .extract import Extractor, Result

    check_where(agent)
    extractor = extractor or Extractor()
    seen: dict[str, list] = {}
    unreadable: list[tuple[str, str]] = []
    candidates, skipped = plan(agent=agent, since=since, retry_failed=retry_failed,
                               unreadable=unreadable, seen=seen)
    summary = Summary(skipped=skipped, planned=candidates, dry_run=dry_run,
                      ahead={a: format_ts(t) for a, t in ahead().items()
                             if agent is None or a == agent})
    for agent_id, why in unreadable:  # its sessions were not looked at: a failure, exit 1
        result = Result(f"agent:{agent_id}", "failed", f"agent {agent_id} skipped: {why}")
        summary.add(result)
        if on_result is not None:
            on_result(result)
    whole = since is None and not dry_run  # only a look at every session proves them done
    for one in summary.ahead:  # set back even when it has no session in scope
        seen.setdefault(one, [])
    if not candidates:  # nothing new: no model client made, no SDK imported
        if whole:
            _advance(seen)
        return summary
    if not dry_run:
        from .model import MissingKeyError

        try:
            extractor.client  # noqa: B018  (made once here, not raced for by the threads)
        except MissingKeyError:  # no key anywhere: the sessions wait for one, none failed
            from .extract import record_waiting

            record_waiting({c.ref.session_id: c.ref.agent_id for c in candidates})
            raise

    ended = _ended_waiting()

    def work(candidate: Candidate, advance) -> Result:
        ref = candidate.ref
        if dry_run:
            return preview(candidate, _latest(gateway_start, ended.get(ref.session_id)))
        return extractor.extract_session(
            ref.session_id, agent=ref.agent_id, ref=ref, reason="sweep",
            retry_failed=retry_failed, settle_seconds=SETTLE_SECONDS,
            open_before=_latest(gateway_start, ended.get(ref.session_id)),
            wait_seconds=0)  # a claimed session is its holder's

    summary = _run(summary, candidates, work, extractor=extractor, concurrency=concurrency,
                   on_result=on_result, progress=progress, total=len(candidates))
    if whole:
        _advance(seen)
    return summary


def _advance(seen: dict[str, list]) -> None:
    """:func:`advance`, best effort: another process holding the lock for long costs this
    sweep its proof, not its outcome (the next sweep proves it)."""
    from .errors import LockTimeout

    try:
        advance(seen)
    except LockTimeout:
        pass


def _ended_waiting() -> dict[str, datetime]:
    """sessionId -> the latest moment a run found it due and met no model key (a hook that said
    its conversation ended, a sweep), of those waiting for a key: an open conversation quiet
    since then waited for the key, it was not going on, and is not left to settle as a live
    one (even in the agent's current session)."""
    from .state import State, waited_since

    try:
        ended = waited_since(State.load())
    except ZettelclawError:
        return {}
    # the moment is kept to the second, cut down: the conversation ended before the next one
    return {sid: moment + timedelta(seconds=1) for sid, stamp in ended.items()
            if (moment := parse_ts(stamp)) is not None}


def _latest(*moments: datetime | None) -> datetime | None:
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def import_history(survey, *, concurrency: int = DEFAULT_CONCURRENCY,
                   since: datetime | None = None, extractor: Extractor | None = None,
                   on_result: Callable[[Result], None] | None = None,
                   progress: bool | None = None) -> Summary:
    """Extract the history conversations of ``survey`` (:func:`zettelclaw.history.survey`),
    each committed as it is done; the progress bar counts conversations."""
    from .extract import Extractor

    extractor = extractor or Extractor()
    candidates = [Candidate(s.ref, "history") for s in survey.sessions]
    summary = Summary(planned=candidates)
    if not candidates:
        return summary

    def work(candidate: Candidate, advance) -> Result:
        ref = candidate.ref
        return extractor.extract_session(
            ref.session_id, agent=ref.agent_id, ref=ref, reason="import", history=True,
            since=since, retry_failed=True, wait_seconds=0, on_segment=advance)

    return _run(summary, candidates, work, extractor=extractor, concurrency=concurrency,
                on_result=on_result, progress=progress, total=survey.conversations,
                label="importing", per_segment=True)


def _run(summary: Summary, candidates: list[Candidate], work, *, extractor: Extractor,
         concurrency: int, on_result, progress: bool | None, total: int,
         label: str = "extracting", per_segment: bool = False) -> Summary:
    """``work(candidate, advance)`` for every candidate on a thread pool, a progress bar on a
    terminal's stderr (one step a session, or with ``per_segment`` a conversation)."""
    if not summary.dry_run:
        extractor.client  # noqa: B018  (made once here, not raced for by the threads)
    if progress is None:
        progress = sys.stderr.isatty()

    bar = None
    if progress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        from .render import console

        bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), console=console(stderr=True), transient=True)
        task = bar.add_task(label, total=total)
        bar.start()
    import threading

    lock = threading.Lock()
    done = {"steps": 0}

    def advance(segment) -> None:  # from the workers: a conversation done
        if bar is None or not per_segment:
            return
        with lock:
            if done["steps"] < total:
                done["steps"] += 1
                bar.update(task, completed=done["steps"])

    from concurrent.futures import ThreadPoolExecutor, as_completed  # (logging: not when quiet)

    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = {pool.submit(work, c, advance): c for c in candidates}
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # one broken session does not stop the sweep
                    from .extract import Result
                    from .redact import redact

                    sid = futures[future].ref.session_id
                    result = Result(sid, "failed", f"{sid}: {redact(str(exc))}")
                summary.add(result)
                if on_result is not None:
                    on_result(result)
                if bar is not None and not per_segment:
                    bar.advance(task)
    finally:
        if bar is not None:
            bar.stop()
    return summary
