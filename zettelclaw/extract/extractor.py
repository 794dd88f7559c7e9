"""The :class:`Extractor`: the prompt, the model client, the user turn, one conversation
in chunked model calls (:meth:`Extractor.extract_segment`); a whole session
(:meth:`Extractor.extract_session`) runs the steps of :mod:`.session`."""

from __future__ import annotations

import json

from ..counts import count
from ..model import Usage
from . import bookkeeping
from .build import build_entries
from .context import Shown, choose
from .cursor import segment_time
from .framing import _frame
from .options import _chunk_chars
from .output import parse_output
from .result import Result


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
    def shown_for(transcript: str, resolution, stamp: str | None,
                  messages: list[str] | None = None, foreign=frozenset()) -> Shown:
        """The subjects and existing entries shown to the model for a conversation whose text
        is ``transcript`` (:mod:`.context`) and whose person said ``messages``, from
        ``resolution``: the log as it stood at ``stamp``, the conversation's time. The
        registry's slugs in ``foreign`` (only other agents' entries name them) are not
        shown."""
        from ..subjects import Registry

        records = [(s, r) for s, r in Registry.load().items() if s not in foreign]
        hidden = getattr(resolution, "hidden_subjects", None)  # another person's (_persons)
        if hidden:
            records = [(slug, record) for slug, record in records if slug not in hidden]
        own = getattr(resolution, "own_subjects", None)  # a person who is not the owner
        if own is not None:
            records = [(slug, record) for slug, record in records if slug in own]
        return choose(transcript, resolution, records, stamp, messages)

    def user_turn(self, transcript: str, *, part: int = 1, parts: int = 1,
                  shown: Shown | None = None, earlier: list[dict] | None = None) -> str:
        """The user turn: what depends on the conversation, all framed as data: the subjects
        chosen for it, the existing entries chosen for it, the earlier parts' entries and
        which part this is, then the transcript (the system prompt depends on nothing)."""
        out = []
        if shown is not None:
            # what the two lists are and how to use them, the prompt says (it is cached)
            out.append(f"<subjects>\n{_frame(shown.subjects)}\n</subjects>\n")
            if shown.entries:
                out.append(f"<existing_entries>\n{_frame(shown.entries)}\n</existing_entries>\n")
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

    def extract_segment(self, segment, *, known_ids: set[str], as_of=None,
                        timestamp: str | None = None, resolution=None,
                        agent: str | None = None, person: str = "owner",
                        foreign_subjects=frozenset(),
                        ) -> tuple[list[dict], Usage, list[str], int]:
        """Entries for one conversation (no writes), all dated ``timestamp`` (default: the
        conversation's own time, :func:`segment_time`); ``as_of``: the log as it stood then
        (a :class:`~zettelclaw.resolve.Resolution`), from which the model is shown what the
        conversation is about (:mod:`.context`), and whose ids alone a ``replaces`` may name;
        ``resolution``: the log's replacement map, for the correction rules of
        :func:`build_entries`. ``person``: whose session it is (:mod:`zettelclaw.people`):
        the model is shown only that person's entries, and each entry made is theirs, its
        origin found by code from the messages (:mod:`.origin`); ``foreign_subjects``: slugs
        only other agents' entries name, never shown to the model. Raises ModelError."""
        from ..resolve import Resolution
        from ..transcripts import chunk_messages, render
        from .origin import Origins, settle

        messages = settle(segment.messages, person)
        origins = Origins(messages)
        chunks = chunk_messages(messages, self.chunk_chars)
        stamp = timestamp or segment_time(segment)
        shown = self.shown_for(render(messages), _persons(as_of or Resolution([]), person),
                               stamp, [m.text for m in messages if _chooses(m)],
                               foreign_subjects)
        usage = Usage()
        entries: list[dict] = []
        warnings: list[str] = []
        skipped = 0
        for number, chunk in enumerate(chunks, 1):
            last = number == len(chunks)
            user = self.user_turn(render(chunk), part=number, parts=len(chunks),
                                  shown=shown, earlier=entries)
            reply = self.client.complete(self.prompt, user)
            usage = usage + reply.usage
            if reply.stop_reason == "max_tokens":
                warnings.append("the model's output was cut at max_tokens; "
                                "its last line may be lost")
            parsed = parse_output(reply.text)
            made, notes, _ = build_entries(parsed.items, segment.session_id,
                                           known_ids=known_ids, shown=shown.ids,
                                           allow_handoff=last,
                                           timestamp=stamp, resolution=resolution,
                                           agent=agent, person=person, origins=origins,
                                           touched=shown.touched, pool=shown.pool)
            entries.extend(made)
            warnings.extend(notes)
            skipped += parsed.skipped
        if not entries:  # not even the handoff the prompt requires: prose, a refusal, an
            from ..errors import ModelError  # error page served with 200. Retried, not done

            raise ModelError("the model's answer held no entry and no handoff ("
                             f"{count(skipped, 'line')} of other text)")
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
        own cursor. The steps: claim, recover a killed run's append, plan, extract each
        conversation and commit it, report (:mod:`.session`)."""
        from .session import extract

        return extract(self, session_id, agent=agent, session_key=session_key,
                       messages=messages, reason=reason, dry_run=dry_run,
                       retry_failed=retry_failed, settle_seconds=settle_seconds,
                       open_before=open_before, wait_seconds=wait_seconds, ref=ref,
                       history=history, since=since, on_segment=on_segment)

    # -- state (:mod:`.bookkeeping`) ----------------------------------------------------------

    def _commit(self, session_id: str, token: str, entries: list[dict], cursor: dict,
                usage: Usage, **kwargs) -> list[str]:
        return bookkeeping.commit(session_id, token, entries, cursor, usage, **kwargs)

    def _finish_pending(self, session_id: str, token: str, pending: dict) -> list[dict]:
        return bookkeeping.finish_pending(session_id, token, pending)

    def _record_failure(self, session_id: str, token: str, error: str,
                        **kwargs) -> tuple[int, bool]:
        return bookkeeping.record_failure(session_id, token, error, **kwargs)

    def _remember(self, session_id: str, token: str, cursor: dict, **kwargs) -> None:
        bookkeeping.remember(session_id, token, cursor, **kwargs)

    def _release(self, session_id: str, token: str) -> None:
        bookkeeping.release(session_id, token)


def _chooses(message) -> bool:
    """Whether a message's own words choose entries to show the model (:mod:`.context`): the
    person's, and the assistant's in the person's own turns (a close said by the assistant
    and confirmed by the person, "Sorted the invoice for you." / "perfect", names the task in
    the assistant's line alone); not words a web page or another person brought."""
    from ..people import AGENT
    from ..transcripts import ASSISTANT, USER

    return message.role == USER or (message.role == ASSISTANT and message.origin == AGENT)


def extract_session(session_id: str, **kwargs) -> Result:
    """Convenience: one session with a fresh :class:`Extractor`."""
    return Extractor().extract_session(session_id, **kwargs)


class _PersonsView:
    """The part of a log's resolution one person's conversation may be shown (what
    :func:`.context.choose` reads: ``current`` and ``entries``)."""

    def __init__(self, resolution, keep, person: str):
        from ..people import person_of

        self.current = [e for e in resolution.current if keep(e)]
        self.entries = [e for e in resolution.entries if keep(e)]
        # the subjects only other people's entries name: not shown to the model either
        theirs, own = set(), set()
        for e in resolution.entries:
            if e.get("subject"):
                (own if person_of(e) == person else theirs).add(e["subject"])
        self.hidden_subjects = theirs - own
        # a person who is not the owner is shown no subject but those her own entries name:
        # the registry is the owner's, and which of its subjects are someone else's cannot be
        # told from the log as it stood then (her conversation swept late, before the owner's
        # entries of it) nor after the owner forgot or purged them
        from ..people import OWNER

        self.own_subjects = None if person == OWNER else frozenset(own)


def _persons(resolution, person: str):
    """``resolution`` as ``person``'s conversation sees it: that person's entries only, and
    in the owner's, none of the untrusted ones (another person's words, a web page's claim
    are not shown to the model as what the owner's memory holds)."""
    from ..people import OWNER, person_of, untrusted

    if person == OWNER:
        return _PersonsView(resolution, lambda e: person_of(e) == OWNER and not untrusted(e),
                            person)
    return _PersonsView(resolution, lambda e: person_of(e) == person, person)

