"""One session, in named steps: identify it, claim it, recover a killed run's append, plan
its conversations, extract and commit each, report; a model failure is recorded instead.

The claim is taken before any model call and goes with the last commit (one state write
fewer), or with the failure's record, or at the end whatever happened (:func:`extract`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from .. import paths
from ..counts import count
from ..errors import ModelError, ZettelclawError
from ..model import Usage
from ..paths import agent_of_key
from ..redact import redact
from . import claim
from .bookkeeping import _transient, record_waiting
from .cursor import make_cursor, segment_time
from .options import _skip_prefixes
from .plan import Plan, _as_of, plan
from .result import Result


@dataclass
class Run:
    """One run over one session: who it is for, and what it did so far."""

    session_id: str
    key: str | None
    agent: str
    token: str
    result: Result
    reason: str | None = None
    dry_run: bool = False
    history: bool = False
    released: bool = False  # the claim went with a commit or a failure's record


def extract(extractor, session_id: str, *, agent: str | None = None,
            session_key: str | None = None, messages=None, reason: str | None = None,
            dry_run: bool = False, retry_failed: bool = False,
            settle_seconds: float | None = None, open_before=None,
            wait_seconds: float | None = None, ref=None, history: bool = False, since=None,
            on_segment=None) -> Result:
    """:meth:`Extractor.extract_session <zettelclaw.extract.Extractor.extract_session>`."""
    session_id, key, agent, ref = identify(session_id, agent=agent, session_key=session_key,
                                           messages=messages, ref=ref)
    from .. import transcripts

    if not transcripts.in_scope(key, _skip_prefixes()):
        return Result(session_id, "skipped", f"skipped {session_id}: {key} is not a main "
                                             "session")
    token = uuid.uuid4().hex
    if dry_run:
        start = claim.peek(session_id, history=history)
    else:
        start = claim.take(session_id, token, reason=reason, history=history,
                           retry_failed=retry_failed, wait_seconds=wait_seconds)
        if isinstance(start, Result):  # failed for good, or another process holds it
            return start
    run = Run(session_id, key, agent, token, Result(session_id, "up-to-date", ""),
              reason=reason, dry_run=dry_run, history=history)
    try:
        cursor = recover(extractor, run, start.pending, start.cursor)
        todo = plan(session_id, agent=agent, cursor=cursor, installed=start.installed,
                    ref=ref, messages=messages, history=history, since=since,
                    settle_seconds=settle_seconds, open_before=open_before)
        run.result.history = todo.history
        run.result.held = todo.why_held
        if not todo.todo:
            return nothing_to_extract(extractor, run, todo, ref)
        extract_each(extractor, run, todo, ref=ref, on_segment=on_segment)
        return report(run)
    except ZettelclawError as exc:
        return failed(extractor, run, exc)
    finally:
        if not dry_run and not run.released:
            extractor._release(session_id, token)


def identify(session_id: str, *, agent: str | None, session_key: str | None, messages,
             ref) -> tuple[str, str | None, str, object]:
    """The session's id, key, agent and transcript (``ref``; none for inline messages).
    Refuses another agent's conversation."""
    from .. import transcripts
    from ..statefile import known_key

    if messages is not None:
        key = session_key or transcripts.session_key_for(session_id, agent)
    else:
        if ref is None:
            ref = transcripts.find_session(session_id, agent)
        session_id = ref.session_id
        key = session_key or ref.session_key
        agent = agent or ref.agent_id
    # a 2026.2 transcript that /new rotated is gone from the store: the key state.json
    # recorded when it was extracted before (None: not known, nobody's words are the owner's)
    key = known_key(session_id, key or None)
    keyed = agent_of_key(key)
    if agent and keyed and keyed != agent:  # another agent's conversation
        from ..errors import UsageError

        raise UsageError(f"refused: session {session_id} ({key}) belongs to agent {keyed}, "
                         f"not to {agent}")
    return session_id, key, agent or keyed or paths.default_agent(), ref


def recover(extractor, run: Run, pending: dict | None, cursor: dict | None) -> dict | None:
    """Finish the append of a run killed after writing ``pending``; the cursor it left."""
    if pending:
        recovered = extractor._finish_pending(run.session_id, run.token, pending)
        run.result.entries.extend(recovered)
        if bool(pending.get("history")) == run.history:
            cursor = pending.get("cursor") or cursor
    return cursor


def nothing_to_extract(extractor, run: Run, todo: Plan, ref=None) -> Result:
    """Nothing (left) to extract: say why; a record pruned from state.json is written back,
    and a record older than the session's last update is dated now (nothing lay beyond its
    cursor), so the next sweep skips the session."""
    result, session_id = run.result, run.session_id
    if not todo.fresh and not run.dry_run and not run.history and not result.entries:
        if todo.derived and todo.segments:
            extractor._remember(session_id, run.token, make_cursor(todo.segments[-1]),
                                agent=run.agent, key=run.key)
            run.released = True
        elif todo.cursor and not todo.held and getattr(ref, "updated_at", None):
            extractor._remember(session_id, run.token, None, agent=run.agent, key=run.key,
                                updated=ref.updated_at)
            run.released = True
    if result.entries:
        result.status = "extracted"
        result.message = (f"{session_id}: finished an interrupted extraction "
                          f"({len(result.entries)} entries)")
    elif run.history:
        result.message = f"{session_id}: no history left to import"
    else:
        result.message = (f"{session_id}: already extracted, nothing new"
                          if todo.cursor else f"{session_id}: no conversation to extract")
    if result.history:
        result.message += (f"; {count(result.history, 'conversation')} from "
                           f"before the install left for `zettelclaw import --session "
                           f"{session_id}`")
    return result


def extract_each(extractor, run: Run, todo: Plan, *, ref=None, on_segment=None) -> None:
    """Each conversation in order: the model sees the log as it stood at the conversation's
    time; its entries are committed (with the cursor past it) before the next one starts."""
    from ..corrections import Current
    from ..people import person_of_session
    from ..resolve import Resolution

    result, log_entries = run.result, todo.log_entries
    person = person_of_session(run.key)  # a lost key: UNKNOWN's, never the owner's
    known_ids = {e["id"] for e in log_entries}
    current = Current(Resolution.build(log_entries))
    for number, segment in enumerate(todo.todo, 1):
        made: list[dict] = []
        usage = Usage()
        if segment.has_user:  # a later conversation may correct an earlier one's,
            stamp = segment_time(segment, ref)  # never one newer than itself: the
            as_of = Resolution.build(  # the log as it stood at the time
                _as_of(log_entries, stamp, current.resolution))
            made, usage, notes, skipped = extractor.extract_segment(
                segment, known_ids=known_ids, as_of=as_of, timestamp=stamp,
                resolution=current.resolution, agent=run.agent, person=person,
                foreign_subjects=todo.foreign_subjects)
            made, duplicates = current.take(made)
            result.duplicates += duplicates
            result.warnings.extend(notes)
            result.skipped_lines += skipped
        result.usage = result.usage + usage
        result.segments += 1
        result.entries.extend(made)
        if not run.dry_run:
            last = number == len(todo.todo)
            result.warnings += extractor._commit(
                run.session_id, run.token, made, make_cursor(segment), usage, agent=run.agent,
                key=run.key, reason=run.reason, release=last,
                held=bool(todo.held) and last, history=run.history)
            run.released = last
        if on_segment is not None:  # a progress bar
            on_segment(segment)
        known_ids.update(e["id"] for e in made)
        log_entries.extend(made)  # (current.take added them to its resolution)


def report(run: Run) -> Result:
    """What was (or would be) appended, from how many conversations."""
    result = run.result
    result.status = "dry-run" if run.dry_run else "extracted"
    verb = "would append" if run.dry_run else "appended"
    dropped = (f" ({result.duplicates} duplicate{'' if result.duplicates == 1 else 's'}"
               " dropped)" if result.duplicates else "")
    result.message = (f"{run.session_id}: {verb} {len(result.entries)} entr"
                      f"{'y' if len(result.entries) == 1 else 'ies'}{dropped} from "
                      f"{count(result.segments, 'conversation')}")
    return result


def failed(extractor, run: Run, exc: ZettelclawError) -> Result:
    """A model failure (or a lock timeout) is recorded: retried once by the next trigger, then
    failed for good. A missing key, a dry run's error and any other error are raised; a missing
    key first marks the session as waiting for one."""
    from ..model import MissingKeyError

    if isinstance(exc, MissingKeyError) and not run.dry_run:
        # a hook's run (session_end, before_reset) is told the conversation has ended
        record_waiting({run.session_id: run.agent}, ended=_said_ended(run.reason))
    if (run.dry_run or isinstance(exc, MissingKeyError)
            or not isinstance(exc, ModelError) and not _transient(exc)):
        raise exc
    error = redact(str(exc))
    retries, permanent = extractor._record_failure(run.session_id, run.token, error,
                                                   agent=run.agent, key=run.key,
                                                   history=run.history)
    run.released = True
    result, session_id = run.result, run.session_id
    result.status = "failed"
    result.message = (f"{session_id}: extraction failed ({error}); "
                      + ("`zettelclaw import` tries again" if run.history else
                         "marked as failed for good; `zettelclaw sweep "
                         "--retry-failed` tries again" if permanent else
                         "it will be retried once on the next trigger"))
    return result


def _said_ended(reason: str | None) -> bool:
    """Whether the run's reason is a hook's saying the conversation ended."""
    return isinstance(reason, str) and reason.split(":", 1)[0] in ("session_end",
                                                                   "before_reset")
