"""Review: walk the open loops, oldest first, and close, drop or keep them (design §3.6: the
log never decays, so what nobody will do must be closed by someone).

An open loop is a current open task or a current question (§3.2: a question closes when a
decision or a fact replaces it). Closing or dropping one is a correction appended to the log,
never an edit, the way ``write --replaces`` corrects an entry:

* a task closed is the same task with ``status: done``; dropped, it is done too, its detail
  beginning "Dropped in review, not done.";
* a question closed is a fact replacing it: the answer given, or "Closed without an answer:
  <question>";
  dropped, a fact "Dropped: <question>".

Every line review writes has the session ``review``: bookkeeping, not activity (the briefing
does not count it as touching a subject). Its undo is one more correction: the loop as it was
before the close (its date too), open again, replacing the close (a new id; ``get --history``
shows the whole chain). Keeping a loop writes nothing. A loop is *quiet* when neither it nor any
entry about its subject was written in the last ``briefing.quietAfter`` days: the briefing
counts those on one line instead of listing them.

A link to confirm: an entry extraction kept apart from the one the model said it replaces
(``may_replace``: one of several look-alikes shown, or an entry of another subject;
``extract.build_entries``), with the look-alikes it may close as well. Review lists it with
those still current and the one command that makes the link (`review close` of the loop, or
`forget` of the fact it corrects), each undone by one more (`review undo`, `forget --undo`);
once the person closed one of them in review or forgot one, it is not asked again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import paths
from .entries import no_entry
from .errors import GoneError, UsageError
from .log import Log

SESSION = "review"
ACTIONS = ("close", "drop")
CONFIRM = "confirm"  # an untrusted entry the owner vouches for (zettelclaw.people)
DROPPED = "Dropped in review, not done."


@dataclass
class Loop:
    entry: dict  # the current version
    touched: str  # when it (or an entry about its subject) was last written
    quiet: bool

    def row(self) -> dict:
        return {**self.entry, "touched": self.touched, "quiet": self.quiet}


@dataclass
class Plan:
    """The corrections a close, drop or undo would append, and what it leaves alone."""

    action: str  # close, drop or undo
    loops: list[dict] = field(default_factory=list)  # the versions it replaces
    lines: list[dict] = field(default_factory=list)  # the corrections, one per loop
    notes: list[str] = field(default_factory=list)


def answers(entries) -> dict[str, dict]:
    """What the person did in review, for :func:`still_asked`: replaced id -> the review's
    line replacing it (the last one, as the log is read in order)."""
    return {e["replaces"]: e for e in entries
            if e.get("session") == SESSION and isinstance(e.get("replaces"), str)}


def still_asked(ids, *, by_review: dict[str, dict], replaced, gone) -> list[str]:
    """Of ``ids``, what a link kept for review may still close (``may_replace``), as each
    stands now (its current version's id); none once the person answered: forgot one, or
    closed one in review (``by_review``: replaced id -> the review's line replacing it; a
    close undone in review opens it again). One closed or corrected by a later conversation
    (``replaced``) is left out; ``gone``: forgotten or purged."""
    left = []
    for entry_id in ids:
        if gone(entry_id):
            return []
        at, last, seen = entry_id, None, {entry_id}
        while at in by_review and by_review[at]["id"] not in seen:
            last = by_review[at]
            at = last["id"]
            seen.add(at)
        if last is not None and not _is_open(last):
            return []  # closed in review: the person answered
        if not replaced(at):  # (else settled since, by a conversation)
            left.append(at)
    return left


def _is_open(entry: dict) -> bool:
    return entry["type"] == "question" or (entry["type"] == "task"
                                           and entry.get("status") == "open")


class Loops:
    """The open loops of the agents in scope, as the log stands."""

    def __init__(self, *, agents: frozenset[str] | None, default: str | None = None,
                 quiet_after: int, now: datetime, person: str | None = None):
        from .resolve import Resolution

        # whom a tool's call acts for (zettelclaw.people.caller): only that person's loops are
        # there for it; None: the terminal, every person's
        self.person = person
        self.default = default or paths.default_agent()
        self.resolution = Resolution.of_log(agents=agents, default_agent=self.default)
        from .clock import Dating, days_before, format_ts

        self.quiet_key = format_ts(days_before(now, quiet_after))
        self.last_seen: dict[str, str] = {}
        # each entry's time, in log order: one dated after now (the clock ran ahead) is dated
        # just after the lines before it, so it is not untouched-in-the-future for weeks
        dating = Dating(format_ts(now))
        self.when = {e["id"]: dating(_key(e.get("timestamp"))) or ""
                     for e in self.resolution.entries}
        for entry in self.resolution.entries:
            if entry.get("session") == SESSION:
                continue  # a close or an undo is bookkeeping, not a touch
            subject, stamp = entry.get("subject"), self.when[entry["id"]]
            if isinstance(subject, str) and stamp > self.last_seen.get(subject, ""):
                self.last_seen[subject] = stamp

    def loop(self, entry: dict) -> Loop:
        touched = self.when.get(entry["id"], _key(entry.get("timestamp")))
        subject = entry.get("subject")
        if isinstance(subject, str):
            touched = max(touched, self.last_seen.get(subject, ""))
        return Loop(entry, touched, bool(touched) and touched < self.quiet_key)

    def open(self, *, kind: str | None = None, subject: str | None = None,
             quiet: bool = False) -> list[Loop]:
        """The open loops, oldest first; ``quiet``: only those untouched for long."""
        found = []
        for entry in self.resolution.current:
            if self.resolution.gone(entry["id"]) is not None or not _is_open(entry) \
                    or not self._theirs(entry):
                continue
            if kind is not None and entry["type"] != kind:
                continue
            if subject is not None and entry.get("subject") != subject:
                continue
            loop = self.loop(entry)
            if not quiet or loop.quiet:
                found.append(loop)
        found.sort(key=lambda loop: (self.when.get(loop.entry["id"], ""),
                                     self.resolution.position[loop.entry["id"]]))
        return found

    def unsure(self) -> list[tuple[dict, list[dict]]]:
        """The links to confirm, oldest first: (the entry kept apart, the current versions
        of the entries it may close that are still open, the model's pick first; see
        :func:`still_asked`)."""
        from .corrections import asked_of

        resolution = self.resolution
        by_review = answers(resolution.entries)
        found = []
        for entry in resolution.current:
            ids = [i for i in asked_of(entry) if i in resolution.by_id]
            if not ids or resolution.gone(entry["id"]) is not None or not self._theirs(entry):
                continue
            left = still_asked(ids, by_review=by_review, replaced=resolution.is_replaced,
                               gone=lambda i: resolution.gone(i) is not None)
            if left:
                found.append((entry, [resolution.by_id[i] for i in left]))
        return found

    def _theirs(self, entry: dict | None) -> bool:
        from .people import person_of

        return self.person is None or (entry is not None and person_of(entry) == self.person)

    def head(self, entry_id: str) -> dict:
        """The current version of ``entry_id`` (any version of it names it). Another
        person's, for a call made for one person, is not there (as ``get`` says it)."""
        if not self._theirs(self.resolution.by_id.get(entry_id)
                            or self.resolution.records.get(entry_id)):
            raise no_entry(entry_id)
        record = self.resolution.records.get(entry_id)
        if record is not None and "purged" in record:
            raise GoneError(entry_id, "purged", record.get("purged"))
        if entry_id not in self.resolution.by_id:
            raise no_entry(entry_id)
        gone = self.resolution.gone(entry_id)
        if gone is not None:
            how = "purged" if "purged" in gone else "forgotten"
            raise GoneError(entry_id, how, gone.get("purged") or gone.get("timestamp"))
        return self.resolution.latest(entry_id)

    def plan(self, action: str, ids: list[str], *, every: list[Loop] | None = None,
             answer: str | None = None) -> Plan:
        """Close or drop the loops ``ids`` (and ``every`` one of a filtered list)."""
        if action not in ACTIONS:
            raise UsageError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")
        if answer is not None and (action != "close" or len(ids) != 1 or every):
            raise UsageError("--answer settles one question: name exactly one id with close")
        done = Plan(action)
        chosen: dict[str, dict] = {}
        for entry_id in ids:
            head = self.head(entry_id)
            if not _is_open(head):
                done.notes.append(f"{entry_id} is not an open task or question "
                                  f"(its current version {head['id']} is a "
                                  f"{'done task' if head['type'] == 'task' else head['type']})")
                continue
            chosen.setdefault(head["id"], head)
        for loop in every or []:
            chosen.setdefault(loop.entry["id"], loop.entry)
        for head in sorted(chosen.values(), key=lambda e: self.resolution.position[e["id"]]):
            if answer is not None and head["type"] != "question":
                raise UsageError(f"--answer is for a question; {head['id']} is a task")
            done.loops.append(head)
            done.lines.append(_correction(head, action, answer))
        return done

    def untrusted(self) -> list[dict]:
        """The current untrusted entries (another person's words, a web page's claim), oldest
        first: what never acts as memory until the owner confirms it."""
        from .people import untrusted

        found = [e for e in self.resolution.current
                 if untrusted(e) and self.resolution.gone(e["id"]) is None and self._theirs(e)]
        found.sort(key=lambda e: (_key(e.get("timestamp")), self.resolution.position[e["id"]]))
        return found

    def plan_confirm(self, ids: list[str]) -> Plan:
        """Confirm untrusted entries: each becomes the owner's (a correction, the same words,
        origin ``owner``, no other person); one that is not untrusted is left alone."""
        from .people import untrusted

        if not ids:
            raise UsageError("name the untrusted entries to confirm (`zettelclaw review "
                             "untrusted` lists them)")
        done = Plan(CONFIRM)
        chosen: dict[str, dict] = {}
        for entry_id in ids:
            head = self.head(entry_id)
            if not untrusted(head):
                done.notes.append(f"{entry_id} is not untrusted (its current version "
                                  f"{head['id']} is {head.get('origin') or 'unmarked'})")
                continue
            chosen.setdefault(head["id"], head)
        for head in sorted(chosen.values(), key=lambda e: self.resolution.position[e["id"]]):
            done.loops.append(head)
            done.lines.append(_confirmed(head))
        return done

    def plan_undo(self, ids: list[str]) -> Plan:
        """Open again the loops that review closed or dropped: ``ids`` are the closes (or any
        version of their chains)."""
        if not ids:
            raise UsageError("name the closes to undo (the ids review printed)")
        done = Plan("undo")
        chosen: dict[str, dict] = {}
        for entry_id in ids:
            head = self.head(entry_id)
            before = self.resolution.by_id.get(head.get("replaces") or "")
            if head.get("session") != SESSION or before is None or _is_open(head):
                done.notes.append(f"{entry_id}: its current version {head['id']} was not "
                                  "closed or dropped by review")
                continue
            chosen.setdefault(head["id"], head)
        for head in sorted(chosen.values(), key=lambda e: self.resolution.position[e["id"]]):
            before = self.resolution.by_id[head["replaces"]]
            done.loops.append(head)
            done.lines.append(_reopened(before, head))
        return done


def _key(stamp) -> str:
    from .clock import sort_key

    return sort_key(stamp) or ""


def _agent(entry: dict) -> str | None:
    agent = entry.get("agent")
    return agent if isinstance(agent, str) and agent else None


def _confirmed(entry: dict) -> dict:
    """The owner's version of an untrusted entry: the same words, replacing it."""
    from .entries import make_entry

    return make_entry(entry["type"], entry["content"], SESSION, detail=entry.get("detail"),
                      subject=entry.get("subject"), status=entry.get("status"),
                      replaces=entry["id"], agent=_agent(entry), origin="owner")


def _kept(entry: dict) -> dict:
    """Whose memory a correction of ``entry`` is, and its origin: the entry's own."""
    return {"person": entry.get("person"), "origin": entry.get("origin")}


def _correction(loop: dict, action: str, answer: str | None) -> dict:
    from .entries import make_entry

    subject, detail = loop.get("subject"), loop.get("detail")
    if loop["type"] == "task":
        if action == "drop":
            detail = f"{DROPPED} {detail}" if detail else DROPPED
        return make_entry("task", loop["content"], SESSION, detail=detail, subject=subject,
                          status="done", replaces=loop["id"], agent=_agent(loop),
                          **_kept(loop))
    if answer:  # the answer, as the person closing it gave it
        content, why = answer, "closed in review with this answer"
    elif action == "close":  # said so: never as if it had been answered
        content = f"Closed without an answer: {loop['content']}"
        why = "closed in review without an answer"
    else:
        content, why = f"Dropped: {loop['content']}", "dropped in review, no longer open"
    return make_entry("fact", content, SESSION, detail=f"The question was {why}.",
                      subject=subject, replaces=loop["id"], agent=_agent(loop), **_kept(loop))


def _reopened(before: dict, close: dict) -> dict:
    """The loop as it was before the close (its date too), open again."""
    from .clock import is_plain
    from .entries import make_entry

    stamp = before.get("timestamp")
    return make_entry(before["type"], before["content"], SESSION, detail=before.get("detail"),
                      subject=before.get("subject"), timestamp=stamp if is_plain(stamp) else None,
                      status="open" if before["type"] == "task" else None,
                      replaces=close["id"], agent=_agent(before), **_kept(before))


def apply(done: Plan) -> list[dict]:
    """Append the plan's corrections in one locked write; returns the lines written. A loop
    corrected, forgotten or purged since the plan was made is left alone."""
    from .fsutil import dir_lock
    from .resolve import Resolution
    from .subjects import append_entries

    log = Log(paths.log_path(), warn=False)
    with dir_lock(log.path.parent):
        resolution = Resolution.build(log.entries(records=True))
        lines = [line for line in done.lines
                 if line["replaces"] in resolution.by_id
                 and not resolution.is_replaced(line["replaces"])]
        if lines:
            from .rebriefing import owe

            owe(lines)
            append_entries(lines, log, locked=True)
    return lines
