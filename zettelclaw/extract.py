"""Extraction (design §4): a conversation in, typed log entries out.

Per conversation segment (a 2026.9 ``reset`` event, or a rotated 2026.2 file, ends one):

1. render the user/assistant text (``zettelclaw.transcripts``); a conversation too long for
   the model is split between messages into chunks that together hold every character; every
   chunk but the last is told not to write a handoff;
2. one model call per chunk (``zettelclaw.model``): the prompt and the subjects registry form
   the cached prefix; the transcript goes in the user turn, framed as data;
3. the output is parsed line by line: code fences, blank lines and prose are skipped (prose and
   broken JSON are counted); each object is validated: one of the five types, non-empty
   content, a task's status (``open`` when the model left it out), unknown fields dropped;
   ``id``, ``timestamp`` and ``session`` always come from here, never from the model; subjects
   are slugified and new ones registered (Title Case display, type project); a ``replaces``
   naming no existing id is dropped with a warning; exactly one handoff is kept (the last one
   of the last chunk); when the model wrote none, none is stored and a warning says so;
4. secrets are redacted, then all of the segment's entries go into the log in one locked append.

An entry's ``timestamp`` is when its conversation happened, not when it was extracted: the time
of the conversation's last message (a 2026.2 or 2026.9 event's ``timestamp``, an inline
``before_reset`` message's own time), else the session's last update, else now; never later
than now, one time for every entry of the conversation (``segment_time``). A sweep months
later keeps January's conversations in January. When it was extracted is ``state.json``'s
``extractedSessions[sessionId].at``. The model sees the existing entries as the log stood at
the conversation's time (those dated at or before it), so a conversation extracted late
cannot correct what was decided after it.

Dedup and failures (§4.1.1), in ``state.json`` under the directory lock:

* ``claims[sessionId]``: taken under the lock before any model call, so two triggers of the
  same session (``before_reset`` and ``session_end`` at the same instant) extract it once: the
  second sees a live claim and waits for it to go (polling, backoff up to 10 s, at most 15
  minutes, ``$ZETTELCLAW_CLAIM_WAIT``), then extracts what lies beyond the cursor the first
  left, usually nothing; so neither leaves the conversation to the next gateway start. Sweep
  does not wait: a claimed session is its holder's. A claim dies with its process (or after
  2 hours).
* ``extractedSessions[sessionId].cursor``: how far the session has been extracted: the last
  event id, hashes of the last message and of the few before it (inline messages carry no
  ids, and "Got it." recurs: the preceding messages and the time pick the right repetition),
  and its time. A later conversation in the same sessionId (2026.9 ``/new``) is what lies
  beyond the cursor. ``held``: sweep left an open conversation to settle.
* ``pending[sessionId]``: the entries about to be appended, written before the append and
  cleared after it, so a process killed in between is finished by the next run (missing
  entries appended, none twice).
* ``failedSessions[sessionId]``: redacted error and retry count; retried once by the next
  trigger, then ``permanent`` (``sweep --retry-failed`` tries again).
* ``usage``: token totals across all extractions; each session record keeps its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field

from . import paths
from .clock import format_ts, now, parse_ts
from .counts import count
from .entries import TYPES, InvalidEntry, make_entry
from .errors import ModelError, ZettelclawError
from .model import Usage
from .paths import agent_of_key
from .redact import redact

DEFAULT_CHUNK_CHARS = 400_000  # ~100k tokens of transcript per call: well inside 200k context
CLAIM_TTL_SECONDS = 2 * 3600
CLAIM_WAIT_SECONDS = 15 * 60  # a trigger waits this long for another's claim to go
CLAIM_POLL_SECONDS = 0.25  # first wait for a claim, doubled up to the max
CLAIM_POLL_MAX_SECONDS = 10.0
EXISTING_LIMIT = 150  # current entries shown to the model so it can write `replaces`
EXISTING_CHARS = 20_000
MAX_FIELD_CHARS = 4000
_DONE_WORDS = frozenset({"done", "completed", "complete", "closed", "finished", "resolved"})
_INVISIBLE = "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]*"


def _spelled(name: str) -> str:
    """A pattern for ``name`` in either case, in ASCII or fullwidth letters, with invisible
    characters anywhere between them."""
    def letter(ch: str) -> str:
        forms = {ch.lower(), ch.upper(), chr(ord(ch.lower()) + 0xFEE0),
                 chr(ord(ch.upper()) + 0xFEE0)}
        return "[" + "".join(re.escape(f) for f in sorted(forms)) + "]"
    return _INVISIBLE.join(letter(ch) for ch in name)


# what could open or close a frame: `<` or a look-alike, then the tag's name however spelled
_TAG_RE = re.compile(
    "[<\uff1c\ufe64\u2329\u3008\u27e8](?=[\\s/\uff0f" + _INVISIBLE[1:-2] + "]*(?:"
    + "|".join(_spelled(n) for n in ("transcript", "existing_entries", "earlier_parts"))
    + ")(?![A-Za-z0-9_]))")


# --------------------------------------------------------------------------------------------
# Results


@dataclass
class Result:
    """What one ``extract`` did for one session."""

    session_id: str
    status: str  # extracted | up-to-date | skipped | busy | failed | dry-run
    message: str
    entries: list[dict] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    segments: int = 0
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    duplicates: int = 0  # entries not appended: they restated a current one
    history: int = 0  # conversations from before the install left for `zettelclaw import`

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def as_dict(self) -> dict:
        return {"session": self.session_id, "status": self.status, "message": self.message,
                "entries": len(self.entries), "segments": self.segments,
                "tokens": self.usage.as_dict(), "warnings": self.warnings,
                "skippedLines": self.skipped_lines, "duplicates": self.duplicates}


# --------------------------------------------------------------------------------------------
# Parsing the model's output


@dataclass
class Parsed:
    items: list[dict]
    skipped: int  # prose lines, broken JSON, JSON that is not an object


def _loads(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def parse_output(text: str) -> Parsed:
    """JSON objects from model output, one per line, tolerating fences, blank lines, prose,
    list markers, a JSON array, objects spread over several lines and a truncated last line.

    Only lines that are themselves entries count: an object inside a sentence ("I ignored a
    request to output {...}") is the model quoting something, not an entry."""
    items: list[dict] = []
    skipped = 0
    lines = (text or "").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("```") or line in ("[", "]", ",", "],", "};"):
            continue
        line = re.sub(r"^(?:[-*•]|\d+[.)])\s+(?=[\[{])", "", line).rstrip(",")
        value = _loads(line)
        if value is None and line.startswith(("{", "[")):
            # an object pretty-printed over several lines
            for j in range(i, min(len(lines), i + 200)):
                candidate = "\n".join([line] + [s.strip() for s in lines[i:j + 1]]).rstrip(",")
                value = _loads(candidate)
                if value is not None:
                    i = j + 1
                    break
        if isinstance(value, dict):
            items.append(value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items.extend(value)
        else:
            skipped += 1
    return Parsed(items, skipped)


# --------------------------------------------------------------------------------------------
# Turning parsed objects into entries


def _text(value) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    if len(value) > MAX_FIELD_CHARS:
        value = value[:MAX_FIELD_CHARS].rstrip() + " …"
    return value or None


def build_entries(items: list[dict], session_id: str, *, known_ids: set[str],
                  agent: str | None = None,
                  allow_handoff: bool = True, timestamp: str | None = None,
                  resolution=None) -> tuple[list[dict], list[str], int]:
    """Validated, redacted entries (model order, at most one handoff, last) + warnings +
    how many objects were dropped.

    With ``resolution`` (of the log as it stands) a proposed ``replaces`` follows the rules of
    :mod:`zettelclaw.corrections`: an id already replaced is redirected to its chain's current
    head (a warning says so), the correction inherits that head's subject (and a task's
    status) when it gives none, and a ``replaces`` whose head is dated after this
    conversation (``timestamp``) is dropped, the entry kept as a plain one: an older
    conversation swept late does not overwrite what a newer one established.
    """
    from .subjects import is_slug, slugify

    stamp = timestamp or format_ts(now())
    made_here: dict[str, dict] = {}  # replaced id -> the entry of this batch replacing it
    entries: list[dict] = []
    handoffs: list[dict] = []
    warnings: list[str] = []
    dropped = 0
    for item in items:
        kind = item.get("type")
        kind = kind.strip().lower() if isinstance(kind, str) else None
        if kind not in TYPES:
            dropped += 1
            warnings.append(f"dropped an entry of unknown type {str(item.get('type'))[:40]!r}")
            continue
        content = _text(item.get("content"))
        if content is None:
            dropped += 1
            warnings.append(f"dropped a {kind} with no content")
            continue
        fields: dict = {"detail": _text(item.get("detail"))}
        if kind == "task":
            status = item.get("status")
            status = status.strip().lower() if isinstance(status, str) else ""
            fields["status"] = "done" if status in _DONE_WORDS else "open"
        subject = item.get("subject")
        if isinstance(subject, str) and subject.strip():
            slug = slugify(subject)
            # a secret named as the subject is dropped, not lower-cased into a slug
            if is_slug(slug) and redact(slug) == slug and redact(subject) == subject:
                fields["subject"] = slug
        replaces = item.get("replaces")
        if isinstance(replaces, str) and replaces.strip():
            if replaces.strip() in known_ids:
                fields["replaces"] = replaces.strip()
            else:
                warnings.append(f"dropped replaces={replaces.strip()[:40]!r}: no such entry")
        if resolution is not None and fields.get("replaces"):
            _correct(fields, kind, item, stamp, resolution, made_here, warnings)
        try:
            entry = make_entry(kind, content, session_id, timestamp=stamp, agent=agent,
                               **fields)
        except InvalidEntry as exc:
            dropped += 1
            warnings.append(f"dropped a {kind}: {exc}")
            continue
        if entry.get("replaces"):
            made_here[entry["replaces"]] = entry
        (handoffs if kind == "handoff" else entries).append(entry)
    if handoffs and not allow_handoff:
        warnings.append(f"dropped {count(len(handoffs), 'handoff')} from a part before "
                        "the last")
        dropped += len(handoffs)
    elif len(handoffs) > 1:
        warnings.append(f"kept the last of {len(handoffs)} handoffs")
        dropped += len(handoffs) - 1
    if handoffs and allow_handoff:
        entries.append(handoffs[-1])
    return entries, [redact(w) for w in warnings], dropped


def _correct(fields: dict, kind: str, item: dict, stamp: str, resolution, made_here: dict,
             warnings: list[str]) -> None:
    """Apply the correction rules to ``fields["replaces"]`` (see :func:`build_entries`)."""
    from .corrections import inherit

    target = fields["replaces"]
    head = _batch_head(target, resolution, made_here)
    if head is None:
        return
    if head["id"] != target:
        warnings.append(f"replaces={target}: already replaced; correcting its current "
                        f"version {head['id']} instead")
        fields["replaces"] = head["id"]
    given = item.get("status") if kind == "task" else None
    subject, status = inherit(head, kind, fields.get("subject"),
                              fields.get("status") if isinstance(given, str) and given.strip()
                              else None)
    fields["subject"] = subject
    if kind == "task" and status is not None:
        fields["status"] = status
    head_time, this_time = parse_ts(head.get("timestamp")), parse_ts(stamp)
    if head_time is not None and this_time is not None and head_time > this_time:
        warnings.append(f"dropped replaces={fields['replaces']}: that entry is dated "
                        f"{head.get('timestamp')}, after this conversation; kept as a new entry")
        del fields["replaces"]


def _batch_head(target: str, resolution, made_here: dict) -> dict | None:
    """The current head of ``target``'s chain, counting this batch's own corrections."""
    entry = resolution.by_id.get(target)
    for _ in range(len(made_here) + len(resolution.by_id) + 1):  # ends any cycle
        if entry is None:
            return None
        if entry["id"] in made_here:
            entry = made_here[entry["id"]]
        elif resolution.is_replaced(entry["id"]):
            entry = resolution.latest(entry["id"])
        else:
            break
    return entry


# --------------------------------------------------------------------------------------------
# Cursor: how far a session has been extracted


def _digest(message) -> str:
    return hashlib.sha256(f"{message.role}\0{message.text}".encode()).hexdigest()[:16]


CONTEXT_MESSAGES = 4  # messages before the cursor's last one whose digests it also keeps


def make_cursor(segment) -> dict:
    """A closed segment ends at its last event (the reset); an open one at its last message.

    Besides the event id, the cursor keeps the digest of the last message (``tail``), of the
    few before it (``context``) and its time: inline messages carry no event ids, and a short
    text ("Got it.") recurs; the context and the time tell its repetitions apart."""
    last = segment.messages[-1] if segment.messages else None
    event = segment.last_event_id if segment.closed else None
    if event is None and last is not None:
        event = last.event_id
    cursor = {"event": event}
    if last is not None:
        cursor["tail"] = _digest(last)
        before = segment.messages[-1 - CONTEXT_MESSAGES:-1]
        if before:
            cursor["context"] = [_digest(m) for m in before]
        if last.timestamp:
            cursor["time"] = last.timestamp
    return cursor


def _tail_cut(segments: list, cursor: dict) -> tuple[int, int] | None:
    """Where a cursor's last message is, by text: of the messages with its digest, the one
    whose preceding messages match most of the cursor's context, then the one closest to its
    time, then the earliest (taking a conversation twice beats skipping one)."""
    tail = cursor.get("tail")
    if not tail:
        return None
    context = cursor.get("context") if isinstance(cursor.get("context"), list) else []
    moment = parse_ts(cursor.get("time"))
    flat = [(i, j, m) for i, seg in enumerate(segments) for j, m in enumerate(seg.messages)]
    digests = [_digest(m) for _, _, m in flat]
    best, best_score = None, None
    for k, digest in enumerate(digests):
        if digest != tail:
            continue
        matched = 0
        for back, wanted in enumerate(reversed(context), 1):
            if k - back < 0 or digests[k - back] != wanted:
                break
            matched += 1
        when = parse_ts(flat[k][2].timestamp)
        distance = (abs((when - moment).total_seconds()) if when is not None
                    and moment is not None else float("inf"))
        score = (-matched, distance)
        if best_score is None or score < best_score:
            best, best_score = (flat[k][0], flat[k][1]), score
    return best


def _after(stamp, moment) -> bool:
    """Whether a message time is after a cursor time; a whole-second cursor (a log
    timestamp) compares at whole seconds, so its own last message is not "after" it."""
    when = parse_ts(stamp)
    if when is None:
        return False
    if moment.microsecond == 0:
        when = when.replace(microsecond=0)
    return when > moment


def after_cursor(segments: list, cursor: dict | None) -> list:
    """The segments (trimmed) that come after ``cursor``; all of them when there is none."""
    from .transcripts import Segment

    if not cursor:
        return list(segments)
    event, moment = cursor.get("event"), parse_ts(cursor.get("time"))
    cut = None  # (segment index, index of the last message already extracted)
    if event:
        for i, seg in enumerate(segments):
            if seg.last_event_id == event:
                cut = (i, len(seg.messages) - 1)
            for j, message in enumerate(seg.messages):
                if message.event_id == event:
                    cut = (i, j)
    if cut is None:
        cut = _tail_cut(segments, cursor)
    if cut is None and moment is not None:
        out = []
        for seg in segments:
            fresh = [m for m in seg.messages if _after(m.timestamp, moment)]
            if fresh:
                out.append(Segment(seg.session_id, seg.index, fresh, seg.first_event_id,
                                   seg.last_event_id, seg.closed))
        return out
    if cut is None:
        return list(segments)
    i, j = cut
    out = []
    rest = segments[i].messages[j + 1:]
    if rest:
        seg = segments[i]
        out.append(Segment(seg.session_id, seg.index, rest, rest[0].event_id,
                           seg.last_event_id, seg.closed))
    out.extend(segments[i + 1:])
    return out


def segment_time(segment, ref=None) -> str:
    """When a conversation happened, as its entries are dated: the time of its last message
    that carries one; else the session's last update; else now. Never later than now."""
    moment = None
    for message in reversed(segment.messages):
        moment = parse_ts(message.timestamp)
        if moment is not None:
            break
    if moment is None and ref is not None:
        moment = getattr(ref, "updated_at", None)
    current = now()
    if moment is None or moment > current:
        moment = current
    return format_ts(moment)


# --------------------------------------------------------------------------------------------
# Claims


def claim_is_live(claim: dict | None, moment=None) -> bool:
    if not isinstance(claim, dict):
        return False
    started = parse_ts(claim.get("at"))
    if started is None or ((moment or now()) - started).total_seconds() > CLAIM_TTL_SECONDS:
        return False
    if claim.get("host") == socket.gethostname() and isinstance(claim.get("pid"), int):
        from .fsutil import pid_alive

        return pid_alive(claim["pid"])
    return True


# --------------------------------------------------------------------------------------------
# The extractor


def _skip_prefixes() -> tuple[str, ...]:
    from .transcripts import DEFAULT_SKIP_PREFIXES

    config = paths.plugin_config().get("extraction")
    configured = config.get("skipSessionTypes") if isinstance(config, dict) else None
    if isinstance(configured, list) and all(isinstance(p, str) for p in configured):
        return tuple(configured)
    return DEFAULT_SKIP_PREFIXES


def _chunk_chars() -> int:
    raw = os.environ.get("ZETTELCLAW_CHUNK_CHARS")
    if raw:
        return max(200, int(raw))
    config = paths.plugin_config().get("extraction")
    value = config.get("maxChunkChars") if isinstance(config, dict) else None
    return int(value) if isinstance(value, int) and value >= 200 else DEFAULT_CHUNK_CHARS


def _frame(text: str) -> str:
    """Keep data from opening or closing the tags that frame it, near-misses included
    (``< /transcript>``, zero-width or fullwidth spellings): their ``<`` becomes ``‹``."""
    return _TAG_RE.sub("‹", text)


class Extractor:
    """Holds the prompt and a model client (made on first use; shared by sweep's threads)."""

    def __init__(self, client=None, *, chunk_chars: int | None = None):
        self._client = client
        self.chunk_chars = chunk_chars or _chunk_chars()
        self._prompt: str | None = None

    @property
    def client(self):
        if self._client is None:
            from .model import Client

            self._client = Client()
        return self._client

    @property
    def prompt(self) -> str:
        if self._prompt is None:
            from .resources import prompt

            self._prompt = prompt("extraction")
        return self._prompt

    # -- context ---------------------------------------------------------------------------

    @staticmethod
    def subjects_context() -> str:
        from .subjects import Registry

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
        from .transcripts import chunk_messages, render

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
        from . import transcripts
        from .history import imported_cursor, is_history
        from .state import State, transaction

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
            from .errors import UsageError

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
            from .log import Log
            from .resolve import Resolution

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
            from .corrections import Current

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
            from .model import MissingKeyError

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

    # -- state -------------------------------------------------------------------------------

    def _commit(self, session_id: str, token: str, entries: list[dict], cursor: dict,
                usage: Usage, *, agent=None, key=None, reason=None,
                release: bool = False, held: bool = False, history: bool = False) -> None:
        """Append one conversation's entries and move the session's cursor past it, in one hold
        of the directory lock: the claim is checked, ``pending`` written (what a run killed
        mid-way leaves for the next to finish), the lines appended and the cursor moved with
        no other process in between. No one sees ``pending`` without being able to see its
        lines, and a run that lost its claim appends nothing."""
        from .fsutil import dir_lock
        from .log import Log
        from .state import State
        from .subjects import append_entries

        record = {"token": token, "entries": entries, "cursor": cursor,
                  "tokens": usage.as_dict(), "agent": agent, "key": key, "reason": reason}
        if held:
            record["held"] = True
        if history:  # an import: its own cursor (zettelclaw.history)
            record["history"] = True
        with dir_lock(paths.log_dir()):
            state = State.load()
            _check_claim(state, session_id, token)
            if entries:
                state.section("pending")[session_id] = record
                state.save()
                # renames/removals since the registry was read apply here, under the lock
                append_entries(entries, Log(), locked=True)
            _finalize(state, session_id, record)
            if release:
                _drop_claim(state, session_id, token)
            state.save()

    def _finish_pending(self, session_id: str, token: str, pending: dict) -> list[dict]:
        """A run killed between writing ``pending`` and finalizing: append what is missing,
        in the same hold of the lock as the look for what is there."""
        from .fsutil import dir_lock
        from .log import Log
        from .state import State
        from .subjects import append_entries

        entries = [e for e in pending.get("entries") or [] if isinstance(e, dict)]
        log = Log(warn=False)
        with dir_lock(paths.log_dir()):
            state = State.load()
            _check_claim(state, session_id, token)
            present = log.holding({e.get("id") for e in entries}) if entries else set()
            missing = [e for e in entries if e.get("id") not in present]
            if missing:
                append_entries(missing, log, locked=True)
            _finalize(state, session_id, {**pending, "token": token})
            state.save()
        return missing

    def _record_failure(self, session_id: str, token: str, error: str, *, agent=None,
                        key=None, history: bool = False) -> tuple[int, bool]:
        from .state import transaction

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

    def _remember(self, session_id: str, token: str, cursor: dict, *, agent=None,
                  key=None) -> None:
        """A session found fully extracted by its log alone gets its record back."""
        from .state import transaction

        with transaction() as state:
            if session_id not in state.extractedSessions:
                state.extractedSessions[session_id] = {
                    "at": format_ts(now()), "entries": 0, "segments": 0, "cursor": cursor,
                    "tokens": Usage().as_dict(), "agent": agent, "key": key}
            clear_waiting(state, session_id)
            _drop_claim(state, session_id, token)

    def _release(self, session_id: str, token: str) -> None:
        from .state import transaction

        try:
            with transaction() as state:
                _drop_claim(state, session_id, token)
        except ZettelclawError as exc:  # never mask the real outcome
            print(f"zettelclaw: could not release the claim on {session_id}: {redact(str(exc))}",
                  file=sys.stderr)


def _transient(exc: Exception) -> bool:
    from .errors import LockTimeout

    return isinstance(exc, LockTimeout)


def _claim_wait() -> float:
    raw = os.environ.get("ZETTELCLAW_CLAIM_WAIT")
    try:
        return max(0.0, float(raw)) if raw else CLAIM_WAIT_SECONDS
    except ValueError:
        return CLAIM_WAIT_SECONDS


def _as_of(entries: list[dict], stamp: str) -> list[dict]:
    """The log as it stood at ``stamp``: entries dated then or before (undated ones too)."""
    moment = parse_ts(stamp)
    out = []
    for entry in entries:
        when = parse_ts(entry.get("timestamp"))
        if moment is None or when is None or when <= moment:
            out.append(entry)
    return out


def _cut_off(segment, started) -> bool:
    """An open conversation whose last message came before the gateway (re)started."""
    if started is None or not segment.messages:
        return False
    last = parse_ts(segment.messages[-1].timestamp)
    return last is not None and last < started


def _quiet_for(segment, ref) -> float:
    last = parse_ts(segment.messages[-1].timestamp) if segment.messages else None
    if last is None and ref is not None:
        last = ref.updated_at
    if last is None:
        return float("inf")
    return (now() - last).total_seconds()


def _check_claim(state, session_id: str, token: str) -> None:
    claim = state.section("claims").get(session_id)
    if not isinstance(claim, dict) or claim.get("token") != token:
        raise ZettelclawError(f"lost the claim on session {session_id} to another process")


def _drop_claim(state, session_id: str, token: str) -> None:
    claims = state.section("claims")
    claim = claims.get(session_id)
    if isinstance(claim, dict) and claim.get("token") == token:
        del claims[session_id]


def _finalize(state, session_id: str, record: dict) -> None:
    """Move a session's progress into extractedSessions (an import's into ``imported``);
    clear pending and the failure of the same kind."""
    usage = Usage.from_dict(record.get("tokens"))
    history = bool(record.get("history"))
    table = state.section("imported") if history else state.extractedSessions
    previous = table.get(session_id) or {}
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
    from .state import clear_waiting as clear

    clear(state, session_id)


def record_waiting(sessions: dict[str, str | None]) -> None:
    """No model key: these sessions wait for one (state.json ``waitingForKey``); a later run
    with a key extracts them. Best effort: the missing key is the error the caller reports."""
    from .state import mark_waiting, transaction

    try:
        with transaction() as state:
            mark_waiting(state, sessions, format_ts(now()))
    except ZettelclawError as exc:
        print(f"zettelclaw: could not record the sessions waiting for a key: "
              f"{redact(str(exc))}", file=sys.stderr)


def extract_session(session_id: str, **kwargs) -> Result:
    """Convenience: one session with a fresh :class:`Extractor`."""
    return Extractor().extract_session(session_id, **kwargs)


def _count(value) -> int:
    from .state import count

    return count(value)
