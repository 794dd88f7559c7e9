"""Forget (reversible): hide entries from every reader without editing the log.

A forget is one line appended to the log that ``replaces`` the current version of what it
forgets, so every reader that already follows replacements (the in-memory resolver, the
streaming one and its ripgrep passes, the handoff's byte scans) hides it the way it hides a
corrected entry::

    {"id":"<new>","timestamp":"<now>","type":"forget","replaces":"<the entry>","agent":"work"}

Its undo is one more line, replacing the forget: a forget a later undo names hides nothing,
so the entry is back as it was (same id, same conversation date, nothing rewritten)::

    {"id":"<new>","timestamp":"<now>","type":"unforget","replaces":"<the forget>","agent":"work"}

Both carry the agent of the entry (only when it has one, as entries do), so a reader of one
agent's memory sees that agent's forgets. Neither is an entry: readers skip them silently
(``log.record_kind``). ``purge`` (which really removes text) is another module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import paths
from .entries import no_entry
from .errors import GoneError, UsageError
from .log import FORGET, UNFORGET, Log
from .rebriefing import SETTLE, owe, owed, settled


@dataclass
class Plan:
    """What a forget (or its undo) would do: the entries it hides (or brings back), and the
    ids it leaves alone with why."""

    undo: bool
    entries: list[dict] = field(default_factory=list)  # current versions to hide / bring back
    forgets: dict[str, dict] = field(default_factory=dict)  # undo: entry id -> its forget
    notes: list[str] = field(default_factory=list)
    quoted: list[dict] = field(default_factory=list)  # current entries left that quote them
    session: str | None = None  # the whole id of the session --session named


def plan(ids: list[str], *, session: str | None = None, subject: str | None = None,
         undo: bool = False, agents: frozenset[str] | None = None,
         default: str | None = None, match: str | None = None,
         person: str | None = None) -> Plan:
    """The entries ``ids`` (each by any version of it: the current one is forgotten), those of
    ``session``, those about ``subject`` and those whose content, detail or subject holds
    ``match`` (ignoring case, as ``purge --match``), among the agents ``agents`` (None: all).

    An id no agent in scope has is an error naming it (another agent's entry is not found,
    as with ``get``); so is a purged one. Already forgotten (or, with ``undo``, not forgotten):
    a note, nothing to do. A forget also lists the current entries it leaves that quote what
    it hides (a handoff's "Left off at: ...", a correction's detail): ``quoted``.

    ``person``: whom a tool's call acts for (:func:`zettelclaw.people.caller`; None: the
    terminal, every person's): another person's entry is not there for it, as ``get`` says of
    an id it will not show (nothing said of it, not even that it is forgotten)."""
    if not ids and session is None and subject is None and match is None:
        raise UsageError("name what to forget: entry ids, --session ID, --subject SLUG or "
                         "--match TEXT")
    if match is not None:
        from .purge import Selection

        Selection(match=match).check()  # the same rule as purge's: one line, 3 characters
    default = default or paths.default_agent()
    from .resolve import Resolution

    resolution = Resolution.of_log(agents=agents, default_agent=default)
    if session is not None:
        session = _session_named(session, resolution.entries)
    result = Plan(undo=undo, session=session)
    chosen: dict[str, dict] = {}

    def forget_of(entry_id: str) -> dict | None:
        gone = resolution.gone(entry_id)
        return gone if gone is not None and gone.get("type") == FORGET else None

    for entry_id in ids:
        record = resolution.records.get(entry_id)
        if person is not None and not _theirs(entry_id, resolution, person):
            raise no_entry(entry_id)
        if record is not None and "purged" in record:
            raise GoneError(entry_id, "purged", record.get("purged"))
        if record is not None and record.get("type") == FORGET and undo:
            entry_id = record["replaces"]  # the forget's own id: undo it
        if entry_id not in resolution.by_id:
            raise no_entry(entry_id)
        gone = resolution.gone(entry_id)
        if gone is not None and "purged" in gone:
            raise GoneError(entry_id, "purged", gone.get("purged"))
        if undo:
            if gone is None:
                result.notes.append(f"{entry_id} is not forgotten")
                continue
            head = resolution.by_id.get(gone["replaces"])
            if head is not None:
                chosen.setdefault(head["id"], head)
                result.forgets[head["id"]] = gone
        elif gone is not None:
            result.notes.append(f"{entry_id} was already forgotten on "
                                f"{str(gone.get('timestamp'))[:10]}")
        else:
            head = resolution.latest(entry_id)
            if head is not None:
                chosen.setdefault(head["id"], head)
    if session is not None or subject is not None or match is not None:
        for entry in resolution.entries:
            if person is not None and not _theirs(entry["id"], resolution, person):
                continue
            if session is not None and entry.get("session") != session:
                continue
            if subject is not None and entry.get("subject") != subject:
                continue
            if match is not None and not _holds(entry, match):
                continue
            gone = forget_of(entry["id"])
            if undo:
                if gone is not None and gone.get("replaces") == entry["id"]:
                    chosen.setdefault(entry["id"], entry)
                    result.forgets[entry["id"]] = gone
            elif gone is None and entry["id"] not in resolution.replaced_by:
                chosen.setdefault(entry["id"], entry)
    result.entries = sorted(chosen.values(), key=lambda e: resolution.position[e["id"]])
    if not undo:
        result.quoted = _quoting(result.entries, resolution)
    return result


def _theirs(entry_id: str, resolution, person: str) -> bool:
    """Whether ``entry_id`` (an entry, a tombstone, or a forget of an entry) is ``person``'s
    memory."""
    from .people import person_of

    record = resolution.by_id.get(entry_id) or resolution.records.get(entry_id)
    if record is not None and record.get("type") == FORGET:
        record = resolution.by_id.get(record.get("replaces"))
    return record is not None and person_of(record) == person


def _session_named(given: str, entries) -> str:
    """The session ``--session`` names: its whole id, or the start of one (the 8 characters
    the vault and the docs show) that only one session of these entries begins with; a start
    several begin with is a usage error naming them. None begins with it: ``given`` as it is
    (the caller says no entries of that session)."""
    sessions = {e["session"] for e in entries if isinstance(e.get("session"), str)}
    if given in sessions or not given:
        return given
    starting = sorted(s for s in sessions if s.startswith(given))
    if len(starting) > 1:
        shown = ", ".join(starting[:5]) + (f" and {len(starting) - 5} more"
                                           if len(starting) > 5 else "")
        raise UsageError(f"--session {given} is the start of {len(starting)} sessions: "
                         f"{shown}; give more of it")
    return starting[0] if starting else given


def _holds(entry: dict, text: str) -> bool:
    needle = text.casefold()
    return any(isinstance(entry.get(key), str) and needle in entry[key].casefold()
               for key in ("content", "detail", "subject"))


def _quoting(entries: list[dict], resolution) -> list[dict]:
    """The current entries, not among ``entries``, whose content or detail quotes the content
    of one of them: they still say what the forget hides."""
    from .purge import MIN_MATCH, pattern_of

    pattern = pattern_of(tuple(sorted({e["content"] for e in entries
                                     if len(e["content"].strip()) >= MIN_MATCH})))
    if pattern is None:
        return []
    chosen = {e["id"] for e in entries}
    return [e for e in resolution.current if e["id"] not in chosen
            and resolution.gone(e["id"]) is None
            and any(isinstance(e.get(key), str) and pattern.search(e[key])
                    for key in ("content", "detail"))]


def apply(done: Plan) -> list[dict]:
    """Append the plan's forgets (or undos) in one locked write; returns the lines written.
    A plan made before the lock is checked again under it: what was forgotten or brought back
    meanwhile is left alone."""
    from .entries import new_id, now_iso
    from .fsutil import dir_lock

    log = Log(paths.log_path(), warn=False)
    with dir_lock(log.path.parent):
        from .resolve import Resolution

        resolution = Resolution.build(log.entries(records=True))
        stamp = now_iso()
        lines = []
        for entry in done.entries:
            gone = resolution.gone(entry["id"])
            if done.undo:
                forget = done.forgets.get(entry["id"])
                if gone is None or forget is None or gone["id"] != forget["id"]:
                    continue
                line = {"id": new_id(), "timestamp": stamp, "type": UNFORGET,
                        "replaces": forget["id"]}
            else:
                if gone is not None or entry["id"] in resolution.replaced_by:
                    continue  # forgotten, purged or corrected meanwhile
                line = {"id": new_id(), "timestamp": stamp, "type": FORGET,
                        "replaces": entry["id"]}
            if isinstance(entry.get("agent"), str) and entry["agent"]:
                line["agent"] = entry["agent"]
            lines.append(line)
        owe(lines)
        log.append(lines, locked=True)
    return lines


def rebrief(written: list[dict], *, agents: list[str] | None = None) -> list[str]:
    """Rewrite now, without the model, MEMORY.md's generated briefing of each agent whose
    entries ``written`` (forgets or undos) name, and of ``agents``, when that MEMORY.md has one:
    OpenClaw loads it into every session, and last night's may list what is now forgotten (or
    miss what came back). The same block ``brief --no-llm`` writes; a MEMORY.md without the
    markers is left alone. Each briefing rewritten (or with nothing to rewrite) settles what
    :func:`owe` recorded for it. Returns what to tell the person."""
    from . import briefing
    from .briefing.memory_md import _memory_path, _read_memory
    from .errors import ZettelclawError

    default = paths.default_agent()
    debts = owed()  # read before the log is: a debt recorded later stays for the next run
    notes = []
    done: dict[str, str | None] = {}
    for agent in sorted({paths.entry_agent(line, default) for line in written}
                        | set(agents or ())):
        options = briefing.Options.resolve(use_model=False)
        options.default_agent, options.agent, options.single = default, agent, False
        try:
            memory = _memory_path(options)
            if briefing.BEGIN_MARKER.encode() in _read_memory(memory) \
                    and briefing.write(briefing.build(options)):
                notes.append(f"rewrote the briefing in {memory}")
            done[agent] = (debts.get(agent) or {}).get("token")
        except ZettelclawError as exc:  # (MissingWorkspace, broken markers...): said, not fatal
            notes.append(f"warning: the briefing in MEMORY.md was not rewritten: {exc}")
    settled(done)
    return notes


def doctor_check():
    """doctor's line about briefings a forget or a review close still owes (MEMORY.md may
    list what was forgotten or closed); None when there are none."""
    from .errors import ZettelclawError
    from .openclaw import Check

    try:
        debts = owed()
    except ZettelclawError:  # a broken state.json: a check of its own says so
        return None
    if not debts:
        return None
    since = min(str(r.get("since")) for r in debts.values())
    return Check("briefing", "fail", (
        f"a forget or a review close (since {since}) stopped before rewriting the briefing "
        f"of {', '.join(sorted(debts))}: MEMORY.md may still list what it forgot or closed"),
        SETTLE)
