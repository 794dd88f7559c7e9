"""A session's progress in ``state.json``, every write under the directory lock (§4.1.1).

* ``extractedSessions[sessionId]``: the cursor, counts and tokens (an import's in ``imported``);
  ``held``: sweep left an open conversation to settle;
* ``pending[sessionId]``: the entries about to be appended, written before the append and
  cleared after it, so a process killed in between is finished by the next run;
* ``failedSessions[sessionId]``: redacted error and retry count;
* ``waitingForKey``: sessions that met no model key;
* ``usage``: token totals across all extractions.

:func:`commit` and :func:`finish_pending` each check the claim, append and finalize in ONE hold
of the lock: no other process comes in between (two holds appended a conversation twice).
"""

from __future__ import annotations

import sys

from .. import paths
from ..clock import format_ts, now
from ..errors import ZettelclawError
from ..model import Usage
from ..redact import redact
from .claim import _check_claim, _drop_claim, claim_is_live


def commit(session_id: str, token: str, entries: list[dict], cursor: dict,
           usage: Usage, *, agent=None, key=None, reason=None,
           release: bool = False, held: bool = False, history: bool = False) -> list[str]:
    """Append one conversation's entries and move the session's cursor past it, in one hold
    of the directory lock: the claim is checked, ``pending`` written (what a run killed
    mid-way leaves for the next to finish), the lines appended and the cursor moved with
    no other process in between. No one sees ``pending`` without being able to see its
    lines, and a run that lost its claim appends nothing. A correction of an entry forgotten
    or purged while the model answered is kept without its ``replaces``
    (:func:`_unlink_gone`); returns the warnings saying so."""
    from ..fsutil import dir_lock
    from ..log import Log
    from ..state import State
    from ..subjects import append_entries

    record = {"token": token, "entries": entries, "cursor": cursor,
              "tokens": usage.as_dict(), "agent": agent, "key": key, "reason": reason}
    if held:
        record["held"] = True
    if history:  # an import: its own cursor (zettelclaw.history)
        record["history"] = True
    with dir_lock(paths.log_dir()):
        state = State.load()
        _check_claim(state, session_id, token)
        notes = _unlink_gone(entries)
        if entries:
            state.section("pending")[session_id] = record
            state.save()
            # renames/removals since the registry was read apply here, under the lock
            append_entries(entries, Log(), locked=True)
        _finalize(state, session_id, record)
        if release:
            _drop_claim(state, session_id, token)
        state.save()
    return notes

def finish_pending(session_id: str, token: str, pending: dict) -> list[dict]:
    """A run killed between writing ``pending`` and finalizing: append what is missing,
    in the same hold of the lock as the look for what is there."""
    from ..fsutil import dir_lock
    from ..log import Log
    from ..state import State
    from ..subjects import append_entries

    entries = [e for e in pending.get("entries") or [] if isinstance(e, dict)]
    log = Log(warn=False)
    with dir_lock(paths.log_dir()):
        state = State.load()
        _check_claim(state, session_id, token)
        present = log.holding({e.get("id") for e in entries}) if entries else set()
        missing = [e for e in entries if e.get("id") not in present]
        if missing:
            _unlink_gone(missing)
            append_entries(missing, log, locked=True)
        _finalize(state, session_id, {**pending, "token": token})
        state.save()
    return missing

def _unlink_gone(entries: list[dict]) -> list[str]:
    """Under the lock, right before the append: a correction of an entry forgotten or purged
    while the model answered loses its ``replaces`` (kept as a new entry, never bringing the
    forgotten chain back: :func:`~zettelclaw.corrections.gone_targets`); the warnings."""
    from ..corrections import gone_targets
    from ..log import Log

    gone = gone_targets(Log(warn=False), {e.get("replaces") for e in entries})
    notes = []
    for entry in entries:
        if entry.get("replaces") in gone:
            target = entry.pop("replaces")
            notes.append(f"dropped replaces={target}: that entry was {gone[target]} "
                         "meanwhile; kept as a new entry")
    return notes


def record_failure(session_id: str, token: str, error: str, *, agent=None,
                   key=None, history: bool = False) -> tuple[int, bool]:
    from ..state import transaction

    with transaction() as state:
        previous = state.failedSessions.get(session_id)
        if previous and bool(previous.get("history")) != history:
            previous = None
        retries = _count(previous.get("retries")) + 1 if previous else 0
        permanent = previous is not None
        state.failedSessions[session_id] = {
            "at": format_ts(now()), "error": error[:500], "retries": retries,
            "permanent": permanent, "agent": agent, "key": key}
        if history:  # the import retries it; the hooks and sweeps leave it alone
            state.failedSessions[session_id]["history"] = True
        _drop_claim(state, session_id, token)
    return retries, permanent

def remember(session_id: str, token: str, cursor: dict | None, *, agent=None,
             key=None, updated=None) -> None:
    """A session found fully extracted gets a record dated now: one found so by its log
    alone gets its record back; one whose transcript changed after its record without
    anything new in it (a 2026.2 ``/new`` renames the file ``.reset.<time>`` hours or days
    after the conversation) has its record's ``at`` moved past that change, so the next
    sweep skips it unread and ``sweptUpTo`` can move past it."""
    from ..state import transaction

    with transaction() as state:
        record = state.extractedSessions.get(session_id)
        if record is None and cursor is not None:
            state.extractedSessions[session_id] = {
                "at": format_ts(now()), "entries": 0, "segments": 0, "cursor": cursor,
                "tokens": Usage().as_dict(), "agent": agent, "key": key}
        elif isinstance(record, dict) and not record.get("held") and updated is not None \
                and not _newer(record.get("at"), updated):
            # (a session updated after now, dated while the clock ran ahead: dated as its
            # update, so the next sweeps skip it unread rather than read it every night)
            record["at"] = format_ts(max(now(), updated))
        clear_waiting(state, session_id)
        _drop_claim(state, session_id, token)

def release(session_id: str, token: str) -> None:
    from ..state import transaction

    try:
        with transaction() as state:
            _drop_claim(state, session_id, token)
    except ZettelclawError as exc:  # never mask the real outcome
        print(f"zettelclaw: could not release the claim on {session_id}: {redact(str(exc))}",
              file=sys.stderr)

def _transient(exc: Exception) -> bool:
    from ..errors import LockTimeout

    return isinstance(exc, LockTimeout)


def _finalize(state, session_id: str, record: dict) -> None:
    """Move a session's progress into extractedSessions (an import's into ``imported``);
    clear pending and the failure of the same kind."""
    usage = Usage.from_dict(record.get("tokens"))
    history = bool(record.get("history"))
    table = state.section("imported") if history else state.extractedSessions
    previous = table.get(session_id) or {}
    if not history:  # counted apart: pruning drops old records, not the count
        state.section("usage")["conversations"] = state.conversations_extracted() + 1
    table[session_id] = {
        "at": format_ts(now()),
        "entries": _count(previous.get("entries")) + len(record.get("entries") or []),
        "segments": _count(previous.get("segments")) + 1,
        "cursor": record.get("cursor"),
        "tokens": (Usage.from_dict(previous.get("tokens")) + usage).as_dict(),
        "agent": record.get("agent") or previous.get("agent"),
        "key": record.get("key") or previous.get("key"),
    }
    if record.get("reason") and not history:
        table[session_id]["reason"] = record["reason"]
    if record.get("held"):  # an open conversation was left to settle: not up to date yet
        table[session_id]["held"] = True
    state.section("pending").pop(session_id, None)
    failed = state.failedSessions.get(session_id)
    if failed is not None and bool(failed.get("history")) == history:
        del state.failedSessions[session_id]
    clear_waiting(state, session_id)
    totals = state.section("usage")
    summed = Usage.from_dict(totals) + usage
    totals.update(summed.as_dict())
    if usage.total:
        totals["extractions"] = _count(totals.get("extractions")) + 1
    state.prune()
    claims = state.section("claims")
    for sid in [s for s, c in claims.items() if not claim_is_live(c) and s != session_id]:
        del claims[sid]


def clear_waiting(state, session_id: str) -> None:
    from ..state import clear_waiting as clear

    clear(state, session_id)


def record_waiting(sessions: dict[str, str | None], *, ended: bool = False) -> None:
    """No model key: these sessions wait for one (state.json ``waitingForKey``); a later run
    with a key extracts them. ``ended``: a hook said their conversation has ended. Best
    effort: the missing key is the error the caller reports."""
    from ..state import mark_waiting, transaction

    try:
        with transaction() as state:
            mark_waiting(state, sessions, format_ts(now()), ended=ended)
    except ZettelclawError as exc:
        print(f"zettelclaw: could not record the sessions waiting for a key: "
              f"{redact(str(exc))}", file=sys.stderr)


def _newer(stamp, updated) -> bool:
    from ..clock import parse_ts

    moment = parse_ts(stamp)
    return moment is not None and moment >= updated.replace(microsecond=0)


def _count(value) -> int:
    from ..state import count

    return count(value)
