"""The :class:`Extractor`: the prompt, the model client, the user turn, one conversation
in chunked model calls (:meth:`Extractor.extract_segment`); a whole session
(:meth:`Extractor.extract_session`)."""

from __future__ import annotations

import json
import os
import socket
import time
import uuid

from .. import paths
from ..clock import format_ts, now, parse_ts
from ..counts import count
from ..errors import ModelError, ZettelclawError
from ..model import Usage
from ..paths import agent_of_key
from ..redact import redact
from . import bookkeeping
from .bookkeeping import _transient, record_waiting
from .build import build_entries
from .claim import CLAIM_POLL_MAX_SECONDS, CLAIM_POLL_SECONDS, _claim_wait, claim_is_live
from .cursor import after_cursor, make_cursor, segment_time
from .framing import _frame
from .options import _chunk_chars, _skip_prefixes
from .output import parse_output
from .plan import _as_of, _cut_off, _quiet_for
from .result import Result

EXISTING_LIMIT = 150  # current entries shown to the model so it can write `replaces`
EXISTING_CHARS = 20_000


class Extractor:
    """Holds the prompt and a model client (made on first use; shared by sweep's threads)."""

    def __init__(self, client=None, *, chunk_chars: int | None = None):
        self._client = client
        self.chunk_chars = chunk_chars or _chunk_chars()
        self._prompt: str | None = None

    @property
    def client(self):
        if self._client is None:
            from ..model import Client

            self._client = Client()
        return self._client

    @property
    def prompt(self) -> str:
        if self._prompt is None:
            from ..resources import prompt

            self._prompt = prompt("extraction")
        return self._prompt

    # -- context ---------------------------------------------------------------------------

    @staticmethod
    def subjects_context() -> str:
        from ..subjects import Registry

        lines = ["## Subjects", "Known subject slugs (use one when an entry is about it):"]
        items = Registry.load().items()
        if not items:
            lines.append("(none yet)")
        for slug, record in items:
            record = record if isinstance(record, dict) else {}
            lines.append(f"- {slug}: {record.get('display') or slug} "
                         f"({record.get('type') or 'project'})")
        return "\n".join(lines)

    @staticmethod
    def existing_context(current: list[dict]) -> str:
        """The most recent current entries (no handoffs), so corrections can name an id."""
        picked, size = [], 0
        for entry in reversed(current):
            if entry.get("type") == "handoff":
                continue
            line = json.dumps({k: entry[k] for k in ("id", "type", "subject", "content")
                               if entry.get(k)}, ensure_ascii=False)
            if size + len(line) > EXISTING_CHARS or len(picked) >= EXISTING_LIMIT:
                break
            picked.append(line)
            size += len(line) + 1
        return "\n".join(reversed(picked))

    def user_turn(self, transcript: str, *, part: int = 1, parts: int = 1,
                  existing: str = "", earlier: list[dict] | None = None) -> str:
        out = []
        if existing:
            out.append("Existing entries in the log (use their ids in `replaces` when this "
                       "conversation corrects one):\n<existing_entries>\n"
                       f"{_frame(existing)}\n</existing_entries>\n")
        if parts > 1:
            if earlier:
                lines = "\n".join(json.dumps({k: e[k] for k in ("type", "content") if e.get(k)},
                                             ensure_ascii=False) for e in earlier)
                out.append("Entries already extracted from earlier parts of this conversation "
                           f"(do not repeat them):\n<earlier_parts>\n{_frame(lines)}\n"
                           "</earlier_parts>\n")
            if part < parts:
                out.append(f"This is part {part} of {parts} of one long conversation. Extract "
                           "entries from this part only. Do NOT write a handoff entry: the "
                           "handoff comes with the last part.\n")
            else:
                out.append(f"This is the last part ({part} of {parts}) of one long "
                           "conversation. End with exactly one handoff entry describing where "
                           "things stand at the end of the whole conversation.\n")
        out.append(f"<transcript>\n{_frame(transcript)}\n</transcript>")
        return "\n".join(out)

    # -- one segment -----------------------------------------------------------------------

    def extract_segment(self, segment, *, known_ids: set[str], existing: str = "",
                        timestamp: str | None = None, resolution=None,
                        agent: str | None = None,
                        ) -> tuple[list[dict], Usage, list[str], int]:
        """Entries for one conversation (no writes), all dated ``timestamp`` (default: the
        conversation's own time, :func:`segment_time`); ``resolution``: the log's replacement
        map, for the correction rules of :func:`build_entries`. Raises ModelError."""
        from ..transcripts import chunk_messages, render

        chunks = chunk_messages(segment.messages, self.chunk_chars)
        subjects = self.subjects_context()
        stamp = timestamp or segment_time(segment)
        usage = Usage()
        entries: list[dict] = []
        warnings: list[str] = []
        skipped = 0
        for number, chunk in enumerate(chunks, 1):
            last = number == len(chunks)
            user = self.user_turn(render(chunk), part=number, parts=len(chunks),
                                  existing=existing, earlier=entries)
            reply = self.client.complete(self.prompt, user, context=subjects)
            usage = usage + reply.usage
            if reply.stop_reason == "max_tokens":
                warnings.append("the model's output was cut at max_tokens; "
                                "its last line may be lost")
            parsed = parse_output(reply.text)
            made, notes, _ = build_entries(parsed.items, segment.session_id,
                                           known_ids=known_ids, allow_handoff=last,
                                           timestamp=stamp, resolution=resolution,
                                           agent=agent)
            entries.extend(made)
            warnings.extend(notes)
            skipped += parsed.skipped
        if skipped:
            warnings.append(f"skipped {count(skipped, 'line')} of model output that were "
                            "not entries")
        if not any(e["type"] == "handoff" for e in entries):
            warnings.append("the model wrote no handoff for this conversation; none stored")
        return entries, usage, warnings, skipped

    # -- one session -----------------------------------------------------------------------

    def extract_session(self, session_id: str, *, agent: str | None = None,
                        session_key: str | None = None, messages=None,
                        reason: str | None = None, dry_run: bool = False,
                        retry_failed: bool = False, settle_seconds: float | None = None,
                        open_before=None, wait_seconds: float | None = None,
                        ref=None, history: bool = False, since=None,
                        on_segment=None) -> Result:
        """Extract what lies beyond the session's cursor. ``messages``: inline data (the
        ``before_reset`` hook's); otherwise the transcript is found in either layout.
        ``settle_seconds``: leave a still-open conversation alone until it has been quiet
        that long (sweep); None extracts it (a hook saying the session ended).
        ``open_before``: an open conversation whose last message is older than this (the
        gateway's start: a crash or stop cut it off) is extracted however recent.
        ``wait_seconds``: how long to wait for another process's claim on the session to end
        before standing down (default :data:`CLAIM_WAIT_SECONDS`; 0: do not wait).

        Once ``init`` recorded the moment of install, conversations that ended before it are
        history (:mod:`zettelclaw.history`): stepped over here, left for ``history=True`` (the
        import), which takes only them, ended at or after ``since`` when given, and keeps its
        own cursor."""
        from .. import transcripts
        from ..history import imported_cursor, is_history
        from ..state import State, transaction

        if messages is not None:
            key = session_key or transcripts.session_key_for(session_id, agent)
        else:
            if ref is None:
                ref = transcripts.find_session(session_id, agent)
            session_id = ref.session_id
            key = session_key or ref.session_key
            agent = agent or ref.agent_id
        keyed = agent_of_key(key)
        if agent and keyed and keyed != agent:  # another agent's conversation
            from ..errors import UsageError

            raise UsageError(f"refused: session {session_id} ({key}) belongs to agent {keyed}, "
                             f"not to {agent}")
        agent = agent or keyed or paths.default_agent()
        if not transcripts.in_scope(key, _skip_prefixes()):
            return Result(session_id, "skipped", f"skipped {session_id}: {key} is not a main "
                                                 "session")

        token = uuid.uuid4().hex
        if dry_run:
            state = State.load()
            failed = state.failedSessions.get(session_id)
            installed = state.install_moment()
            cursor = (imported_cursor(state, session_id) if history else
                      (state.extractedSessions.get(session_id) or {}).get("cursor"))
            pending = None
        else:
            # Another trigger of the same session (before_reset and session_end fire together)
            # holds the claim: wait for it to finish, then extract what lies beyond the cursor
            # it leaves (usually nothing), so neither leaves the conversation for the next sweep.
            budget = _claim_wait() if wait_seconds is None else wait_seconds
            deadline = time.monotonic() + max(0.0, budget)
            delay = CLAIM_POLL_SECONDS
            while True:
                with transaction() as state:
                    failed = state.failedSessions.get(session_id)
                    if failed and bool(failed.get("history")) != history:
                        failed = None  # the import's failure is not the hooks' and vice versa
                    claims = state.section("claims")
                    if failed and failed.get("permanent") and not retry_failed:
                        return Result(session_id, "skipped",
                                      f"skipped {session_id}: extraction failed for good "
                                      f"({failed.get('error')}); `zettelclaw sweep "
                                      "--retry-failed` tries again")
                    holder = claims.get(session_id)
                    if not claim_is_live(holder):
                        claims[session_id] = {"token": token, "pid": os.getpid(),
                                              "host": socket.gethostname(),
                                              "at": format_ts(now()), "reason": reason}
                        pending = state.section("pending").get(session_id)
                        record = state.extractedSessions.get(session_id) or {}
                        installed = state.install_moment()
                        cursor = (imported_cursor(state, session_id) if history
                                  else record.get("cursor"))
                        break
                left = deadline - time.monotonic()
                if left <= 0:
                    return Result(session_id, "busy", f"skipped {session_id}: being extracted "
                                                      f"by another process (pid "
                                                      f"{holder.get('pid')})")
                time.sleep(min(delay, left))
                delay = min(delay * 2, CLAIM_POLL_MAX_SECONDS)

        result = Result(session_id, "up-to-date", "")
        released = False  # the claim goes with the last commit (one state write fewer)
        try:
            if pending:
                recovered = self._finish_pending(session_id, token, pending)
                result.entries.extend(recovered)
                if bool(pending.get("history")) == history:
                    cursor = pending.get("cursor") or cursor
            from ..log import Log
            from ..resolve import Resolution

            # this agent's entries only: another agent's memory is not shown to the model, and
            # cannot be corrected from here
            default = paths.default_agent()
            log_entries = [e for e in Log(warn=False).entries()
                           if paths.entry_agent(e, default) == agent]
            derived = False
            if not cursor and not history:  # no record (never extracted, or pruned after
                # 30 days): the log
                stamps = [e["timestamp"] for e in log_entries  # knows how far it got: its
                          if e.get("session") == session_id  # entries carry the time of
                          and isinstance(e.get("timestamp"), str)]  # their conversation
                cursor = {"time": max(stamps)} if stamps else None
                derived = cursor is not None
            if messages is not None:
                segments = transcripts.segments_from_messages(messages, session_id)
            else:
                segments = transcripts.read_segments(ref)
            todo = after_cursor(segments, cursor)
            if installed is not None:
                old = [s for s in todo if is_history(s, installed, ref)]
                if history:
                    todo = [s for s in old if since is None or parse_ts(segment_time(s, ref))
                            >= since or not s.has_user]
                else:
                    todo = [s for s in todo if not is_history(s, installed, ref)]
                    result.history = sum(1 for s in old if s.has_user)
            fresh = bool(todo)
            held = 0
            if settle_seconds is not None:
                start = parse_ts(open_before) if isinstance(open_before, str) else open_before
                kept = [s for s in todo if s.closed or _quiet_for(s, ref) >= settle_seconds
                        or _cut_off(s, start)]
                held = len(todo) - len(kept)
                todo = kept
            if not todo:
                if derived and not fresh and not dry_run and not result.entries and segments:
                    # a pruned record: write it back, so the next sweep skips the session
                    self._remember(session_id, token, make_cursor(segments[-1]), agent=agent,
                                   key=key)
                    released = True
                if result.entries:
                    result.status = "extracted"
                    result.message = (f"{session_id}: finished an interrupted extraction "
                                      f"({len(result.entries)} entries)")
                elif history:
                    result.message = f"{session_id}: no history left to import"
                else:
                    result.message = (f"{session_id}: already extracted, nothing new"
                                      if cursor else f"{session_id}: no conversation to extract")
                if result.history:
                    result.message += (f"; {count(result.history, 'conversation')} from "
                                       f"before the install left for `zettelclaw import --session "
                                       f"{session_id}`")
                return result
            from ..corrections import Current

            known_ids = {e["id"] for e in log_entries}
            current = Current(Resolution.build(log_entries))
            for number, segment in enumerate(todo, 1):
                made: list[dict] = []
                usage = Usage()
                if segment.has_user:  # a later conversation may correct an earlier one's,
                    stamp = segment_time(segment, ref)  # never one newer than itself: the
                    existing = self.existing_context(  # log as it stood at the time
                        Resolution.build(_as_of(log_entries, stamp)).current)
                    made, usage, notes, skipped = self.extract_segment(
                        segment, known_ids=known_ids, existing=existing, timestamp=stamp,
                        resolution=current.resolution, agent=agent)
                    made, duplicates = current.take(made)
                    result.duplicates += duplicates
                    result.warnings.extend(notes)
                    result.skipped_lines += skipped
                result.usage = result.usage + usage
                result.segments += 1
                result.entries.extend(made)
                if not dry_run:
                    last = number == len(todo)
                    self._commit(session_id, token, made, make_cursor(segment), usage,
                                 agent=agent, key=key, reason=reason, release=last,
                                 held=bool(held) and last, history=history)
                    released = last
                if on_segment is not None:  # a progress bar
                    on_segment(segment)
                known_ids.update(e["id"] for e in made)
                log_entries.extend(made)  # (current.take added them to its resolution)
            result.status = "dry-run" if dry_run else "extracted"
            verb = "would append" if dry_run else "appended"
            dropped = (f" ({result.duplicates} duplicate{'' if result.duplicates == 1 else 's'}"
                       " dropped)" if result.duplicates else "")
            result.message = (f"{session_id}: {verb} {len(result.entries)} entr"
                              f"{'y' if len(result.entries) == 1 else 'ies'}{dropped} from "
                              f"{count(result.segments, 'conversation')}")
            return result
        except ZettelclawError as exc:
            from ..model import MissingKeyError

            if isinstance(exc, MissingKeyError) and not dry_run:
                record_waiting({session_id: agent})
            if (dry_run or isinstance(exc, MissingKeyError)
                    or not isinstance(exc, ModelError) and not _transient(exc)):
                raise
            error = redact(str(exc))
            retries, permanent = self._record_failure(session_id, token, error, agent=agent,
                                                      key=key, history=history)
            released = True
            result.status = "failed"
            result.message = (f"{session_id}: extraction failed ({error}); "
                              + ("`zettelclaw import` tries again" if history else
                                 "marked as failed for good; `zettelclaw sweep "
                                 "--retry-failed` tries again" if permanent else
                                 "it will be retried once on the next trigger"))
            return result
        finally:
            if not dry_run and not released:
                self._release(session_id, token)

    # -- state (:mod:`.bookkeeping`) ----------------------------------------------------------

    def _commit(self, session_id: str, token: str, entries: list[dict], cursor: dict,
                usage: Usage, **kwargs) -> None:
        bookkeeping.commit(session_id, token, entries, cursor, usage, **kwargs)

    def _finish_pending(self, session_id: str, token: str, pending: dict) -> list[dict]:
        return bookkeeping.finish_pending(session_id, token, pending)

    def _record_failure(self, session_id: str, token: str, error: str,
                        **kwargs) -> tuple[int, bool]:
        return bookkeeping.record_failure(session_id, token, error, **kwargs)

    def _remember(self, session_id: str, token: str, cursor: dict, **kwargs) -> None:
        bookkeeping.remember(session_id, token, cursor, **kwargs)

    def _release(self, session_id: str, token: str) -> None:
        bookkeeping.release(session_id, token)


def extract_session(session_id: str, **kwargs) -> Result:
    """Convenience: one session with a fresh :class:`Extractor`."""
    return Extractor().extract_session(session_id, **kwargs)
